#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>

#include "doctor/facts.hpp"

namespace cudnnenv {

TEST_SUITE("doctor/facts") {
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
    CHECK(python_value_after("x = '" + std::string(201, 'v') + "'", "x").empty());  // no version is that long
  }

  TEST_CASE("a crafted build_info.py of many keys without a value is read in linear time") {
    // Each occurrence used to be followed to the next quote: 1 MB took 20 s in doctor. Now each is looked
    // at over 200 characters: 10x the text, about 10x the steps (counted as the time of one call, which
    // would be 100x the other way).
    const auto seconds = [](std::size_t repeats) {
      std::string text;
      for (std::size_t i = 0; i < repeats; ++i) text += "cuda_version_number=";
      text += " '12.2'";
      double best = 1e9;
      for (int round = 0; round < 5; ++round) {
        const auto start = std::chrono::steady_clock::now();
        CHECK(python_value_after(text, "cuda_version_number") == "12.2");
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      }
      return best;
    };
    const double small = seconds(5000);
    const double large = seconds(50000);
    MESSAGE("10x the text: " << large / small << "x the time (" << large * 1000 << " ms for 1 MB)");
    CHECK(large / small < 40);
    CHECK(large < 0.5);
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
}

}  // namespace cudnnenv
