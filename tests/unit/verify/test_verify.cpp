#include <doctest/doctest.h>

#include <map>

#include "discover/dependencies.hpp"
#include "store/store.hpp"
#include "support.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"
#include "verify/verify.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

VerifyOptions options_at(VerifyLevel level) {
  VerifyOptions options;
  options.level = level;
  options.probe_program = probe_program_beside(test::cudnnenv_program());
  return options;
}

const VerifyCheck& check_named(const VerifyReport& report, const std::string& name) {
  for (const auto& check : report.checks) {
    if (check.name == name) {
      return check;
    }
  }
  FAIL("no check named " << name);
  return report.checks.front();
}

}  // namespace

TEST_SUITE("verify/verify") {
  TEST_CASE("a sound tree passes files and load, with the decoded version") {
    Store store(test::test_dir() / "store");
    const TreeRecord tree = test::install_host_tree(store);
    const VerifyReport report = verify_tree(tree, options_at(VerifyLevel::load));
    CHECK(report.passed());
    CHECK(check_named(report, "load").detail.find("cudnnGetVersion() = 90100 (9.1.0)") == 0);
    CHECK(check_named(report, "sub-libraries").detail == "7 load by absolute path");
    CHECK(check_named(report, "cudart").detail == "built against CUDA 12.2, as the tree says");
  }

  TEST_CASE("a truncated, a vanished and a replaced file are each named") {
    Store store(test::test_dir() / "store");
    const TreeRecord tree = test::install_host_tree(store);
    const fs::path lib = tree.resolve(tree.layout.library_dir);
    const std::string ops = host_platform().os == Os::windows ? "cudnn_ops64_9.dll" : "libcudnn_ops.so.9";
    const std::string cnn = host_platform().os == Os::windows ? "cudnn_cnn64_9.dll" : "libcudnn_cnn.so.9";
    fs::resize_file(lib / ops, 1000);
    fs::remove(lib / cnn);
    const VerifyReport report = verify_tree(tree, options_at(VerifyLevel::load));
    CHECK_FALSE(report.passed());
    const std::string files = check_named(report, "files").detail;
    CHECK(files.find("'" + tree.layout.library_dir + "/" + ops + "' is 1000 bytes, was ") != std::string::npos);
    CHECK(files.find("(truncated?)") != std::string::npos);
    CHECK(files.find("'" + tree.layout.library_dir + "/" + cnn + "' is gone") != std::string::npos);
    // Said once: the set was whole when installed; the vanished file is not also "unreadable".
    CHECK(check_named(report, "file set").status == CheckStatus::ok);
    CHECK(check_named(report, "file set").detail ==
          "the complete cuDNN 9.1.0 set was installed (files: what is gone since)");
    CHECK(check_named(report, "architecture").status == CheckStatus::ok);
    const std::string gone = "'" + tree.layout.library_dir + "/" + cnn + "' is gone";
    CHECK(files.find(gone + (host_platform().os == Os::windows ? " (deleted, or quarantined by a virus scanner?)"
                                                               : " (deleted?)")) != std::string::npos);
    CHECK(util::starts_with(report.fix, "cudnnenv remove " + tree.name + " --yes && cudnnenv install "));
    CHECK(report.checks.back().name != "load");  // nothing is loaded from a damaged tree
  }

  TEST_CASE("headers of one release and libraries of another fail at load") {
    Store store(test::test_dir() / "store");
    const TreeRecord tree = test::install_host_tree(store, "9.2.0");  // installed without probing
    const VerifyReport report = verify_tree(tree, options_at(VerifyLevel::load));
    CHECK_FALSE(report.passed());
    CHECK(check_named(report, "load").detail ==
          "cudnnGetVersion() = 90100 (9.1.0), the tree says 9.2.0, from " + util::to_utf8(tree.library_path()));
  }

  TEST_CASE("a library of the wrong architecture is named") {
    Store store(test::test_dir() / "store");
    const TreeRecord tree = test::install_host_tree(store);
    const bool windows = host_platform().os == Os::windows;
    const std::string adv = windows ? "cudnn_adv64_9.dll" : "libcudnn_adv.so.9";
    fs::copy_file(test::fixture(windows ? "fake-pe32-9.1.0.dll" : "fake-elf32-9.1.0.so"),
                  tree.resolve(tree.layout.library_dir) / adv, fs::copy_options::overwrite_existing);
    const VerifyReport report = verify_tree(tree, options_at(VerifyLevel::files));
    CHECK_FALSE(report.passed());
    // On Linux the .so.9 name is a link: the file it names is the one reported.
    const std::string detail = check_named(report, "architecture").detail;
    CHECK(detail.find("'" + adv) == 0);
    CHECK(detail.find(windows ? "' is PE 32-bit x86 (Machine 0x14c)" : "' is ELF 32-bit x86") != std::string::npos);
  }

  TEST_CASE("a sub-library whose dependency is nowhere names it and where it was looked for") {
    Store store(test::test_dir() / "store");
    const bool windows = host_platform().os == Os::windows;
    const std::string ops = windows ? "cudnn_ops64_9.dll" : "libcudnn_ops.so.9";
    const std::string needed = windows ? "cublas64_11.dll" : "libcublasLt.so.11";
    const TreeRecord tree = test::install_host_tree(
        store, "9.1.0", {{ops, windows ? "fake-pe64-9.1.0-needs-cublas.dll" : "fake-elf64-9.1.0-needs-cublas.so"}});
    VerifyOptions options = options_at(VerifyLevel::load);
    REQUIRE_MESSAGE(default_resolution(DiscoverContext{options.environment}, needed).empty(),
                    needed << " is installed on this machine: the test cannot make it missing");
    const VerifyReport report = verify_tree(tree, options);
    CHECK_FALSE(report.passed());
    const std::string detail = check_named(report, "sub-libraries").detail;
    CAPTURE(detail);
    CHECK(detail.find(ops + " needs " + needed + ": not in its folder, ") == 0);
    CHECK(detail.find(windows ? "PATH (" : "LD_LIBRARY_PATH") != std::string::npos);
    // The fix the tool can carry out: the CUDA 11 runtime (cuBLAS 11's major is CUDA's).
    CHECK(detail.find("a CUDA runtime library: 'cudnnenv install cuda 11.8.0' installs the runtime beside cuDNN "
                      "(selected and pinned with it); or put the matching CUDA toolkit's") != std::string::npos);

    SUBCASE("found once its folder is on the search path") {
      const std::string folder = util::to_utf8(test::fixture("link-only"));
      options.environment.set(windows ? "PATH" : "LD_LIBRARY_PATH", folder);
      CHECK(find_missing_dependencies(tree.resolve(tree.layout.library_dir) / ops, DiscoverContext{options.environment})
                .empty());
    }
  }

  TEST_CASE("known GPU failures in plain words") {
    CHECK(plain_cause("cudnnCreate failed: CUDNN_STATUS_ARCH_MISMATCH")
              .find("this cuDNN build has no code for this GPU") == 0);
    CHECK(plain_cause("3x3 pad 1: cuCtxSynchronize: no kernel image is available for execution on the device (209)")
              .find("this cuDNN build has no code for this GPU") == 0);
    CHECK(plain_cause("cudnnCreate failed: CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER")
              .find("the NVIDIA driver is too old") == 0);
    CHECK(plain_cause("1x1: cuMemAlloc: out of memory (2)").find("the GPU is out of memory") == 0);
    CHECK(plain_cause("cudnnConvolutionForward: CUDNN_STATUS_BAD_PARAM").empty());
  }

  TEST_CASE("the conv level without a GPU says so and is skipped, not failed") {
    Store store(test::test_dir() / "store");
    const TreeRecord tree = test::install_host_tree(store);
    const VerifyReport report = verify_tree(tree, options_at(VerifyLevel::conv));
    // This machine has no NVIDIA driver (CI's neither); on a GPU host the fake would fail cudnnCreate.
    if (!report.gpu_unavailable) {
      MESSAGE("a GPU driver is present here: the no-GPU path is not exercised");
      return;
    }
    CHECK(report.passed());
    CHECK(check_named(report, "conv").status == CheckStatus::skipped);
    CHECK(check_named(report, "conv").detail.find("no NVIDIA driver") == 0);
  }

#ifndef _WIN32
  // The parent's side of a check of several GPUs, from what a probe printed
  // (a script standing in for cudnnenv-probe's --conv: no GPU here).
  TEST_CASE("several GPUs: one result each, a busy one said and not failed, a failed one fails the check") {
    Store store(test::test_dir() / "store");
    const TreeRecord tree = test::install_host_tree(store);
    const auto run_with = [&](const std::string& output, int exit_code) {
      const fs::path probe = test::test_dir() / "fake-probe";
      // The load level's probes go to the real one.
      const std::string real = util::to_utf8(probe_program_beside(test::cudnnenv_program()));
      test::write_binary(probe, "#!/bin/sh\n[ \"$1\" = --conv ] || exec '" + real + "' \"$@\"\ncat <<'EOF'\n" + output +
                                    "EOF\nexit " + std::to_string(exit_code) + "\n");
      fs::permissions(probe, fs::perms::owner_all);
      VerifyOptions options = options_at(VerifyLevel::conv);
      options.probe_program = probe;
      options.devices = "all";
      return verify_tree(tree, options);
    };
    const std::string run = "driver_cuda=13.0\ndriver_init_ms=90.0\ncudnn_load_ms=80.0\n";
    const std::string pass0 =
        "device_begin=0\ngpu=NVIDIA H200\ncompute_capability=9.0\ncontext_ms=100.0\n"
        "cudnn_create_ms=5.0\nmax_relative_error=1.19e-07\nconv_ms=12.0\nconv_result=pass\n";
    const std::string busy1 =
        "device_begin=1\ngpu=NVIDIA H200\ncompute_capability=9.0\n"
        "gpu_busy=GPU 1 is busy: it is in exclusive-process mode and another process holds it\n";
    const std::string wrong2 =
        "device_begin=2\ngpu=NVIDIA H200\ncompute_capability=9.0\nconv=1x1: algo 0, "
        "4x64x16x16, max relative error 3.00e-01, 1.0 ms on the GPU\n"
        "max_relative_error=3.00e-01\nconv_ms=12.0\nconv_result=fail\n";

    VerifyReport report = run_with(run + pass0 + busy1, 0);
    CHECK(report.passed());
    CHECK(check_named(report, "conv").status == CheckStatus::ok);
    CHECK(check_named(report, "conv").detail ==
          "1 of 2 GPUs passed; GPU 1: GPU 1 is busy: it is in exclusive-process mode and another process holds it");
    REQUIRE(report.devices.size() == 2);
    CHECK(report.devices[0].index == 0);
    CHECK(report.devices[0].status == CheckStatus::ok);
    CHECK(report.devices[0].gpu.conv_ms->value == 12.0);
    CHECK(report.devices[1].status == CheckStatus::skipped);
    CHECK(report.gpu.driver_cuda == std::optional<std::string>("13.0"));
    CHECK_FALSE(report.gpu.gpu);  // a GPU's lines stay in its own result

    report = run_with(run + pass0 + busy1 + wrong2, 4);
    CHECK_FALSE(report.passed());
    CHECK(check_named(report, "conv").detail ==
          "GPU 2: 1x1: algo 0, 4x64x16x16, max relative error 3.00e-01, 1.0 ms on the GPU");
    CHECK(report.devices[2].status == CheckStatus::failed);

    report = run_with(run + busy1, 3);
    CHECK(report.passed());
    CHECK(report.gpu_unavailable);
    CHECK(check_named(report, "conv").status == CheckStatus::skipped);

    report = run_with("driver_cuda=13.0\ngpu_error=no GPU 5 (2 present)\n", 3);
    CHECK(report.gpu_unavailable);
    CHECK(check_named(report, "conv").detail == "no GPU 5 (2 present)");
    CHECK(report.devices.empty());
  }
#endif
}

}  // namespace cudnnenv
