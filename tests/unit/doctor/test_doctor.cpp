#include <algorithm>

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

  TEST_CASE("no AVX warns; not x86 skips") {
    Facts facts;
    facts.cpu_avx = false;
    CHECK(find_check(run_checks(facts), "cpu-avx").status == DoctorStatus::warn);
    facts.cpu_avx.reset();
    CHECK(find_check(run_checks(facts), "cpu-avx").status == DoctorStatus::skip);
  }
}

}  // namespace cudnnenv
