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

TEST_CASE("the driver's version from /proc, both kernel modules; anything else is no version") {
  CHECK(parse_proc_driver_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Tue Oct  7 "
                                  "00:00:00 UTC 2025\nGCC version:  gcc 12\n") == "580.95.05");
  CHECK(parse_proc_driver_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build"
                                  "  (dvs-builder@U22)  Thu Jan  1\n") == "580.159.04");
  CHECK(parse_proc_driver_version("GCC version: 12.2.0\n").empty());
  CHECK(parse_proc_driver_version("NVRM version: nothing 1..2x here\n").empty());
}

TEST_CASE("the GPU list the probe prints") {
  const DriverInfo info = parse_gpu_probe(
      "driver_version=580.159.04\ndriver_cuda=13.0\ndevice=0 9.0 NVIDIA H200\ndevice=1 12.0 NVIDIA RTX PRO 6000\n"
      "device=broken\n");
  CHECK(info.version == "580.159.04");
  CHECK(info.version_from == "NVML");
  REQUIRE(info.cuda);
  CHECK(info.cuda->str() == "13.0");
  REQUIRE(info.gpus.size() == 2);
  CHECK(info.gpus[0].name == "NVIDIA H200");
  CHECK(info.gpus[0].compute_capability() == "9.0");
  CHECK(info.gpus[1].index == 1);
  CHECK(info.gpus[1].name == "NVIDIA RTX PRO 6000");
  CHECK(info.gpus[1].cc_major == 12);
  CHECK_FALSE(parse_gpu_probe("gpu_error=no GPU\n").found());
}

TEST_CASE("values in Python files, as TensorFlow and PyTorch write them") {
  CHECK(python_value_after("build_info = {'cuda_version': '11.2', 'cudnn_version': '8'}", "'cudnn_version'") == "8");
  CHECK(python_value_after("cuda_version_number = \"10.1\"\n", "cuda_version_number") == "10.1");
  const std::string torch =
      "\n__all__ = ['__version__', 'debug', 'cuda']\n__version__ = '2.11.0+cu130'\ncuda: Optional[str] = '13.0'\n";
  CHECK(python_value_after(torch, "\n__version__") == "2.11.0+cu130");
  CHECK(python_value_after(torch, "\ncuda") == "13.0");
  CHECK(python_value_after("cuda: Optional[str] = None\n", "cuda").empty());
  CHECK(python_value_after("x = 'unterminated", "x").empty());
}

TEST_CASE("a version manager's shim: the tool it runs, as pyenv and asdf write them; anything else names none") {
  const auto pyenv = manager_in_shim_text(
      "#!/usr/bin/env bash\nset -e\n[ -n \"$PYENV_DEBUG\" ] && set -x\n\nprogram=\"${0##*/}\"\n\n"
      "export PYENV_ROOT=\"/root/.pyenv\"\nexec \"/root/.pyenv/libexec/pyenv\" exec \"$program\" \"$@\"\n");
  REQUIRE(pyenv);
  CHECK(pyenv->name == "pyenv");
  CHECK(pyenv->tool == "/root/.pyenv/libexec/pyenv");
  const auto asdf = manager_in_shim_text(
      "#!/usr/bin/env bash\n# asdf-plugin: python 3.11.4\nexec /home/u/.asdf/bin/asdf exec \"python\" \"$@\"\n");
  REQUIRE(asdf);
  CHECK(asdf->name == "asdf");
  CHECK(asdf->tool == "/home/u/.asdf/bin/asdf");
  CHECK(manager_in_shim_text("#!/bin/sh\nexec asdf exec \"python\" \"$@\"\n")->tool == "asdf");
  CHECK_FALSE(
      manager_in_shim_text("\x7f"
                           "ELF exec \"/x/libexec/pyenv\" exec "));
  CHECK_FALSE(manager_in_shim_text("#!/bin/sh\nexec /usr/bin/python3.11 \"$@\"\n"));
}

TEST_CASE("dotted versions compare by number") {
  CHECK(compare_dotted("580.65.06", "580.159.04") < 0);
  CHECK(compare_dotted("590.44.01", "580.159.04") > 0);
  CHECK(compare_dotted("525.60.13", "525.60.13") == 0);
  CHECK(compare_dotted("570.26", "570.26.0") == 0);
}

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

TEST_CASE("install times read back; anything else is no time") {
  const auto time = parse_utc_timestamp("2026-12-01T15:19:50Z");
  REQUIRE(time);
  CHECK(std::chrono::duration_cast<std::chrono::seconds>(time->time_since_epoch()).count() == 1796138390);
  CHECK(
      std::chrono::duration_cast<std::chrono::seconds>(parse_utc_timestamp("1970-01-01T00:00:00Z")->time_since_epoch())
          .count() == 0);
  CHECK_FALSE(parse_utc_timestamp("2026-13-01T15:19:50Z"));
  CHECK_FALSE(parse_utc_timestamp("2026-12-01 15:19:50"));
  CHECK_FALSE(parse_utc_timestamp(""));
}

TEST_CASE("no AVX warns; not x86 skips") {
  Facts facts;
  facts.cpu_avx = false;
  CHECK(find_check(run_checks(facts), "cpu-avx").status == DoctorStatus::warn);
  facts.cpu_avx.reset();
  CHECK(find_check(run_checks(facts), "cpu-avx").status == DoctorStatus::skip);
}

}  // namespace cudnnenv
