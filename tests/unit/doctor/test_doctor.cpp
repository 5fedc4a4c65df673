#include <algorithm>
#include <filesystem>
#include <fstream>

#include <doctest/doctest.h>

#include "doctor/doctor.hpp"
#include "doctor/facts.hpp"

namespace cudnnenv {

namespace {

const DoctorCheck& find_check(const std::vector<DoctorCheck>& checks, const std::string& id) {
  auto it = std::find_if(checks.begin(), checks.end(), [&](const DoctorCheck& check) { return check.id == id; });
  REQUIRE(it != checks.end());
  return *it;
}

Facts facts_with(Version version, CudaVersion cuda) {
  Facts facts;
  Selection selection;
  selection.tree.name = "t";
  selection.tree.version = version;
  selection.tree.cuda = cuda;
  selection.decided_by = "--cudnn";
  facts.selection = selection;
  return facts;
}

}  // namespace

TEST_SUITE("doctor/doctor") {
  TEST_CASE("the minimum driver: the toolkit's own, and the major's (minor-version compatibility)") {
    CHECK(minimum_driver(CudaVersion{12, 4}, Os::linux).exact == "550.54.14");
    CHECK(minimum_driver(CudaVersion{12, 4}, Os::linux).major == "525.60.13");
    CHECK(minimum_driver(CudaVersion{11, 2}, Os::windows).exact == "460.82");
    CHECK(minimum_driver(CudaVersion{11, 2}, Os::windows).major == "452.39");
    CHECK(minimum_driver(CudaVersion{12, std::nullopt}, Os::linux).exact.empty());
  }

  TEST_CASE("a driver older than the tree's CUDA major fails; older than its minor warns") {
    Facts facts = facts_with(Version{8, 9, 7, std::nullopt}, CudaVersion{12, 2});
    facts.driver.version = "470.57.02";
    const DoctorCheck old = find_check(run_checks(facts), "driver");
    CHECK(old.status == DoctorStatus::fail);
    CHECK(old.summary == "470.57.02: too old for CUDA 12.2");
    CHECK(old.fix == "update the driver (525.60.13 or newer), or select a tree built for an older CUDA: cudnnenv list");
    facts.driver.version = "530.30.02";
    const DoctorCheck minor = find_check(run_checks(facts), "driver");
    CHECK(minor.status == DoctorStatus::warn);
    CHECK(minor.fix == "update the driver to 535.54.03 or newer");
    facts.driver.version = "535.104.05";
    CHECK(find_check(run_checks(facts), "driver").status == DoctorStatus::ok);
  }

  TEST_CASE("a GPU the selected cuDNN has no code for") {
    Facts facts = facts_with(Version{8, 5, 0, std::nullopt}, CudaVersion{11, 7});
    facts.driver.version = "535.104.05";
    facts.driver.gpus = {GpuInfo{0, "NVIDIA H100", 9, 0}};
    const DoctorCheck hopper = find_check(run_checks(facts), "gpu");
    CHECK(hopper.status == DoctorStatus::fail);
    CHECK(hopper.summary == "NVIDIA H100 (compute capability 9.0): not supported by cuDNN 8.5.0");
    CHECK(hopper.fix == "install cuDNN 8.6 or newer: cudnnenv list --available");
    facts.driver.gpus = {GpuInfo{0, "NVIDIA B200", 10, 0}};
    CHECK(find_check(run_checks(facts), "gpu").fix ==
          "install cuDNN 9.7 or newer for CUDA 12.8 or newer: cudnnenv list --available");
    facts.driver.gpus = {GpuInfo{0, "Tesla K80", 3, 7}};
    CHECK(find_check(run_checks(facts), "gpu").status == DoctorStatus::ok);
    facts.selection->tree.version = Version{8, 9, 7, std::nullopt};
    CHECK(find_check(run_checks(facts), "gpu").status == DoctorStatus::fail);  // 8.8 starts at 5.0
    facts.driver.gpus.clear();
    CHECK(find_check(run_checks(facts), "gpu").status == DoctorStatus::fail);  // a driver, no GPU
  }

  TEST_CASE("bundle-incomplete: a framework's cuDNN without a library of its release, or mixing with another copy") {
    namespace fs = std::filesystem;
    const fs::path work = fs::temp_directory_path() / "cudnnenv-bundle-incomplete";
    fs::remove_all(work);
    const fs::path wheel = work / "venv/site-packages/nvidia/cudnn/lib";
    const fs::path system = work / "usr/lib";
    fs::create_directories(wheel);
    fs::create_directories(system);
    auto touch = [](const fs::path& file) { std::ofstream(file) << "x"; };
    for (const char* name :
         {"libcudnn.so.9", "libcudnn_graph.so.9", "libcudnn_ops.so.9", "libcudnn_cnn.so.9", "libcudnn_adv.so.9",
          "libcudnn_heuristic.so.9", "libcudnn_engines_precompiled.so.9", "libcudnn_engines_runtime_compiled.so.9"}) {
      touch(wheel / name);
      touch(system / name);
    }
    touch(system / "libcudnn_engines_tensor_ir.so.9");
    Facts facts;
    facts.platform = Platform{Os::linux, Arch::x86_64};
    facts.program.requested = "python";
    FrameworkInfo torch;
    torch.name = "PyTorch";
    torch.version = "2.12.1+cu130";
    torch.own_copies = {wheel / "libcudnn.so.9"};
    facts.frameworks = {torch};
    FoundCopy bundled;
    bundled.library = wheel / "libcudnn.so.9";
    bundled.version = Version{9, 20, 0, 48};
    FoundCopy distribution;
    distribution.library = system / "libcudnn.so.9";
    distribution.version = Version{9, 23, 2, {}};
    distribution.loaded_by_name = true;
    facts.copies = {bundled, distribution};
    // 9.20 ships no tensor_ir, but the dispatcher asks for it: run plainly, the distribution's loads.
    const DoctorCheck mixed = find_check(run_checks(facts), "bundle-incomplete");
    CHECK(mixed.status == DoctorStatus::fail);
    CHECK(mixed.summary ==
          "PyTorch 2.12.1+cu130's cuDNN 9.20.0.48 in '" + wheel.string() + "' lacks libcudnn_engines_tensor_ir.so.9");
    CHECK(mixed.cause == "run plainly, the loader takes libcudnn_engines_tensor_ir.so.9 from '" +
                             (system / "libcudnn_engines_tensor_ir.so.9").string() +
                             "' (cuDNN 9.23.2) beside the bundle's 9.20.0.48: two versions of cuDNN in one process");
    // A 9.21 wheel without tensor_ir is incomplete whatever else is here.
    facts.copies[0].version = Version{9, 21, 0, {}};
    fs::remove(system / "libcudnn_engines_tensor_ir.so.9");
    const DoctorCheck incomplete = find_check(run_checks(facts), "bundle-incomplete");
    CHECK(incomplete.status == DoctorStatus::fail);
    CHECK(
        incomplete.cause ==
        "cuDNN 9.21.0 ships libcudnn_engines_tensor_ir.so.9; the bundle left it out, and cuDNN opens it by bare name");
    CHECK(incomplete.fix.find(" -- python  (a complete tree, pinned") != std::string::npos);
    touch(wheel / "libcudnn_engines_tensor_ir.so.9");
    CHECK(find_check(run_checks(facts), "bundle-incomplete").status == DoctorStatus::ok);
    fs::remove_all(work);
  }

  TEST_CASE("no AVX warns; not x86 skips") {
    Facts facts;
    facts.cpu_avx = false;
    CHECK(find_check(run_checks(facts), "cpu-avx").status == DoctorStatus::warn);
    facts.cpu_avx.reset();
    CHECK(find_check(run_checks(facts), "cpu-avx").status == DoctorStatus::skip);
  }
}

}  // namespace cudnnenv
