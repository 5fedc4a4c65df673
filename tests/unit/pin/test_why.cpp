#include <doctest/doctest.h>

#include "pin/why.hpp"
#include "store/runtime.hpp"
#include "support.hpp"
#include "util/fs.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

// The audit log of `load-names libcusolver.so.11` whose libcusolver needs a
// libnvJitLink.so.12 that is nowhere, as the report build writes it.
constexpr std::string_view k_audit_log =
    "41\tO\t/usr/lib/libc.so.6\n"
    "41\tS\tlibcusolver.so.11\t\n"
    "41\tT\tpin\t/store/cuda-12/lib/libcusolver.so.11\n"
    "41\tO\t/store/cuda-12/lib/libcusolver.so.11\n"
    "41\tS\tlibnvJitLink.so.12\t/store/cuda-12/lib/libcusolver.so.11\n"
    "41\tT\tLD_LIBRARY_PATH\t/store/t/lib/libnvJitLink.so.12\n"
    "41\tT\tLD_LIBRARY_PATH\t/store/cuda-12/lib/libnvJitLink.so.12\n"
    "41\tT\tdefault\t/lib/x86_64-linux-gnu/glibc-hwcaps/x86-64-v3/libnvJitLink.so.12\n"
    "41\tT\tdefault\t/lib/x86_64-linux-gnu/libnvJitLink.so.12\n"
    "41\tT\tdefault\t/usr/lib/libnvJitLink.so.12\n"
    "41\tS\tlibfoo.so.1\t\n"
    "not a line\n"
    "x\tO\t/ignored\n";

NeededOf needs_from(std::map<std::string, std::vector<std::string>> tables) {
  return [tables = std::move(tables)](const std::string& path) {
    const auto at = tables.find(path);
    return at == tables.end() ? std::vector<std::string>() : at->second;
  };
}

}  // namespace

TEST_SUITE("pin/why") {
  TEST_CASE("the audit log: what mapped, each search with what asked and the paths it tried") {
    std::vector<LoadedModule> loaded;
    std::vector<LoadSearch> searches;
    parse_audit_log(k_audit_log, loaded, searches);
    REQUIRE(loaded.size() == 2);
    CHECK(loaded[1].pid == 41);
    CHECK(loaded[1].path == "/store/cuda-12/lib/libcusolver.so.11");
    REQUIRE(searches.size() == 3);
    CHECK(searches[0].name == "libcusolver.so.11");
    CHECK(searches[0].requester.empty());
    CHECK(searches[0].tried == std::vector<SearchedPath>{{"pin", "/store/cuda-12/lib/libcusolver.so.11"}});
    CHECK(searches[1].requester == "/store/cuda-12/lib/libcusolver.so.11");
    CHECK(searches[1].tried.size() == 5);
    CHECK(searches[2].tried.empty());
  }

  TEST_CASE("a missing dependency of a dependency: the chain, the folders in order, the file that failed") {
    std::vector<LoadedModule> loaded;
    std::vector<LoadSearch> searches;
    parse_audit_log(k_audit_log, loaded, searches);
    const auto needed = needs_from({{"/store/cuda-12/lib/libcusolver.so.11", {"libnvJitLink.so.12", "libc.so.6"}}});
    const LoadFailures failures = find_load_failures("/work/load-names", loaded, searches, Os::linux, needed);
    REQUIRE(failures.missing.size() == 1);  // libfoo.so.1 is no CUDA library
    const MissingLibrary& missing = failures.missing[0];
    CHECK(missing.name == "libnvJitLink.so.12");
    CHECK(missing.needed_by == std::vector<std::string>{"libcusolver.so.11"});
    CHECK(missing.chains ==
          std::vector<std::vector<std::string>>{{"load-names", "libcusolver.so.11", "libnvJitLink.so.12"}});
    CHECK(missing.looked_in == std::vector<SearchedPath>{{"LD_LIBRARY_PATH", "/store/t/lib"},
                                                         {"LD_LIBRARY_PATH", "/store/cuda-12/lib"},
                                                         {"default", "/lib/x86_64-linux-gnu"},
                                                         {"default", "/usr/lib"}});
    REQUIRE(failures.failed.size() == 1);
    CHECK(failures.failed[0].path == "/store/cuda-12/lib/libcusolver.so.11");
    CHECK(failures.failed[0].missing == std::vector<std::string>{"libnvJitLink.so.12"});
  }

  TEST_CASE("a name that mapped later in the same process did not fail; nor in another process") {
    std::vector<LoadedModule> loaded = {{7, "/a/libcudnn.so.9"}};
    std::vector<LoadSearch> searches = {
        {7, "libcudnn.so.8", "", {}}, {7, "libcudnn.so.9", "", {}}, {8, "libcudnn.so.9", "", {}}};
    const auto failures = find_load_failures("/p/python3", loaded, searches, Os::linux, needs_from({}));
    REQUIRE(failures.missing.size() == 2);
    CHECK(failures.missing[0].name == "libcudnn.so.8");
    CHECK(failures.missing[0].chains == std::vector<std::vector<std::string>>{{"python3", "libcudnn.so.8"}});
    CHECK(failures.missing[1].name == "libcudnn.so.9");  // pid 8 never mapped one
    CHECK(failures.failed.empty());
  }

  TEST_CASE("cuDNN 9's probes of its own sub-libraries by longer names are no failures; another major is") {
    // As PyTorch 2.11 with the cuDNN 9.19 wheel on the H200 ran it: libcudnn_graph asks for
    // libcudnn_heuristic.so.9.19.0 and .so.9.19 before .so.9, the wheel's only name.
    const std::string lib = "/venv/nvidia/cudnn/lib/";
    std::vector<LoadedModule> loaded = {
        {7, lib + "libcudnn.so.9"}, {7, lib + "libcudnn_graph.so.9"}, {7, lib + "libcudnn_heuristic.so.9"}};
    std::vector<LoadSearch> searches = {{7, "libcudnn_heuristic.so.9.19.0", lib + "libcudnn_graph.so.9", {}},
                                        {7, "libcudnn_heuristic.so.9.19", lib + "libcudnn_graph.so.9", {}},
                                        {7, "libcudnn_heuristic.so.9", lib + "libcudnn_graph.so.9", {}},
                                        {7, "libcudnn_heuristic.so.8", lib + "libcudnn_graph.so.9", {}},
                                        {7, "libcudnn_engines_precompiled.so.9.19", lib + "libcudnn_graph.so.9", {}}};
    const auto failures = find_load_failures("/venv/bin/python", loaded, searches, Os::linux, needs_from({}));
    REQUIRE(failures.missing.size() == 2);
    CHECK(failures.missing[0].name == "libcudnn_heuristic.so.8");               // another major: still a failure
    CHECK(failures.missing[1].name == "libcudnn_engines_precompiled.so.9.19");  // no name of it mapped
  }

  TEST_CASE("one library asked for by several names is one message, under the name with its major alone") {
    // The H200 run with libcudnn_graph.so.9 deleted from the tree: libcudnn.so.9 tries four names.
    const std::string lib = "/tmp/broken/lib/";
    std::vector<LoadedModule> loaded = {{7, lib + "libcudnn.so.9"}};
    std::vector<LoadSearch> searches;
    for (const char* name :
         {"libcudnn_graph.so.9.19.0", "libcudnn_graph.so.9.19", "libcudnn_graph.so.9", "libcudnn_graph.so"}) {
      searches.push_back({7, name, lib + "libcudnn.so.9", {{"pin", lib + name}}});
    }
    const auto failures = find_load_failures("/venv/bin/python", loaded, searches, Os::linux, needs_from({}));
    REQUIRE(failures.missing.size() == 1);
    const MissingLibrary& missing = failures.missing[0];
    CHECK(missing.name == "libcudnn_graph.so.9");
    CHECK(missing.also_asked ==
          std::vector<std::string>{"libcudnn_graph.so.9.19.0", "libcudnn_graph.so.9.19", "libcudnn_graph.so"});
    CHECK(missing.chains ==
          std::vector<std::vector<std::string>>{{"python", "...", "libcudnn.so.9", "libcudnn_graph.so.9"}});
    CHECK(missing.looked_in == std::vector<SearchedPath>{{"pin", "/tmp/broken/lib"}});
    CHECK(describe_load_failures(failures) ==
          "cudnnenv: why: libcudnn_graph.so.9 did not load (needed by libcudnn.so.9)\n"
          "  also asked for as: libcudnn_graph.so.9.19.0, libcudnn_graph.so.9.19, libcudnn_graph.so\n"
          "  chain:  python -> ... -> libcudnn.so.9 -> libcudnn_graph.so.9\n"
          "  looked for in, in order:\n"
          "    /tmp/broken/lib  (pin)\n");
  }

  TEST_CASE("names and folders a program controls reach the terminal printable") {
    // A program can ask for any name; a folder on its path can hold any byte.
    std::vector<LoadedModule> loaded;
    std::vector<LoadSearch> searches = {
        {7, "libnvidia-\x1b]0;owned\x07.so", "", {{"LD_LIBRARY_PATH", "/tmp/a\x1b[2Jb/libnvidia-x.so"}}}};
    const auto failures = find_load_failures("/p/py\x1bthon", loaded, searches, Os::linux, needs_from({}));
    REQUIRE(failures.missing.size() == 1);
    const std::string text = describe_load_failures(failures);
    CHECK(text.find('\x1b') == std::string::npos);
    CHECK(text.find('\x07') == std::string::npos);
    CHECK(text ==
          "cudnnenv: why: libnvidia-\\x1b]0;owned\\x07.so did not load (needed by py\\x1bthon)\n"
          "  chain:  py\\x1bthon -> libnvidia-\\x1b]0;owned\\x07.so\n"
          "  looked for in, in order:\n"
          "    /tmp/a\\x1b[2Jb  (LD_LIBRARY_PATH)\n");
  }

  TEST_CASE("Windows loader snaps: each DLL the loader could not load, its parent and the paths it tried") {
    // Recorded as Windows 10 writes them (FLG_SHOW_LDR_SNAPS), cut to the lines read.
    const std::string text =
        "1d28:1ea0 @ 02043625 - LdrLoadDll - ENTER: DLL name: cudnn_ops_infer64_8.dll\r\n"
        "1d28:1ea0 @ 02043625 - LdrpComputeLazyDllPath - INFO: DLL search path computed: "
        "C:\\app;C:\\libs\\8.1\\bin;C:\\WINDOWS\\SYSTEM32;C:\\WINDOWS\r\n"
        "1d28:1ea0 @ 02043640 - LdrpResolveDllName - ENTER: DLL name: C:\\app\\cublas64_11.dll\r\n"
        "1d28:1ea0 @ 02043640 - LdrpResolveDllName - RETURN: Status: 0xc0000135\r\n"
        "1d28:1ea0 @ 02043641 - LdrpResolveDllName - ENTER: DLL name: C:\\libs\\8.1\\bin\\cublas64_11.dll\r\n"
        "1d28:1ea0 @ 02043650 - LdrpProcessWork - ERROR: Unable to load DLL: \"cublas64_11.dll\", Parent Module: "
        "\"C:\\libs\\8.1\\bin\\cudnn_ops_infer64_8.dll\", Status: 0xc0000135\r\n"
        "1d28:1ea0 @ 02043651 - LdrpComputeLazyDllPath - INFO: DLL search path computed: C:\\app;C:\\WINDOWS\r\n"
        "1d28:1ea0 @ 02043652 - LdrpProcessWork - ERROR: Unable to load DLL: \"cudart64_110.dll\", Parent Module: "
        "\"(null)\", Status: 0xc0000135\r\n";
    const auto searches = parse_loader_snaps(12, text);
    REQUIRE(searches.size() == 2);
    CHECK(searches[0].pid == 12);
    CHECK(searches[0].name == "cublas64_11.dll");
    CHECK(searches[0].requester == "C:\\libs\\8.1\\bin\\cudnn_ops_infer64_8.dll");
    CHECK(searches[0].tried == std::vector<SearchedPath>{{"search path", "C:\\app\\cublas64_11.dll"},
                                                         {"search path", "C:\\libs\\8.1\\bin\\cublas64_11.dll"}});
    CHECK(searches[1].name == "cudart64_110.dll");
    CHECK(searches[1].requester.empty());
    CHECK(searches[1].tried == std::vector<SearchedPath>{{"search path", "C:\\app\\cudart64_110.dll"},
                                                         {"search path", "C:\\WINDOWS\\cudart64_110.dll"}});
  }

  TEST_CASE("Windows without loader text: a sub-library that mapped while an import of it never did failed") {
    const std::vector<LoadedModule> loaded = {{5, "C:\\libs\\8.1\\bin\\cudnn64_8.dll"},
                                              {5, "C:\\libs\\8.1\\bin\\cudnn_ops_infer64_8.dll"},
                                              {5, "C:\\libs\\8.1\\bin\\cudnn_cnn_infer64_8.dll"},
                                              {5, "C:\\windows\\system32\\kernel32.dll"}};
    const auto needed = needs_from({{"C:\\libs\\8.1\\bin\\cudnn_ops_infer64_8.dll",
                                     {"cublas64_11.dll", "KERNEL32.dll", "api-ms-win-crt-runtime-l1-1-0.dll"}},
                                    {"C:\\libs\\8.1\\bin\\cudnn_cnn_infer64_8.dll", {"cublas64_11.dll"}},
                                    {"C:\\app\\tf.exe", {"KERNEL32.dll"}}});
    const std::vector<SearchedPath> standard = {{"the program's folder", "C:\\app"},
                                                {"SetDllDirectoryW: cudnnenv's pin", "C:\\libs\\8.1\\bin"}};
    const auto failures = find_load_failures("C:\\app\\tf.exe", loaded, {}, Os::windows, needed, standard);
    REQUIRE(failures.missing.size() == 1);
    CHECK(failures.missing[0].name == "cublas64_11.dll");
    CHECK(failures.missing[0].needed_by ==
          std::vector<std::string>{"cudnn_ops_infer64_8.dll", "cudnn_cnn_infer64_8.dll"});
    CHECK_FALSE(failures.missing[0].looked_in_observed);
    CHECK(failures.missing[0].looked_in == standard);
    REQUIRE(failures.failed.size() == 2);
    CHECK(failures.failed[0].missing == std::vector<std::string>{"cublas64_11.dll"});
  }

  TEST_CASE("the CUDA major a runtime library's name belongs to") {
    CHECK(cuda_major_of_library("libcublas.so.12") == 12);
    CHECK(cuda_major_of_library("libnvJitLink.so.12") == 12);
    CHECK(cuda_major_of_library("cudart64_110.dll") == 11);
    CHECK(cuda_major_of_library("cublas64_11.dll") == 11);
    CHECK(cuda_major_of_library("nvrtc64_120_0.dll") == 12);
    CHECK(cuda_major_of_library("libcufft.so.11") == 12);
    CHECK(cuda_major_of_library("cufft64_10.dll") == 11);
    CHECK(cuda_major_of_library("libcusolver.so.11") == 12);
    CHECK(cuda_major_of_library("libcusolver.so.11", 11) == 11);
    CHECK(cuda_major_of_library("libcurand.so.10", 12) == 12);
    CHECK(cuda_major_of_library("libcurand.so.10") == 13);
    CHECK_FALSE(cuda_major_of_library("libcudnn.so.9"));
  }

  TEST_CASE("the fix: a runtime of the library's major, installed or the one that has it, or the driver") {
    MissingLibrary missing;
    missing.name = "libnvJitLink.so.12";
    FixContext context;
    context.os = Os::linux;
    context.command = "./load-names libcusolver.so.11";
    CHECK(fix_for_missing(missing, context) == "cudnnenv install cuda 12");
    context.releases = {*parse_version("13.0.2"), *parse_version("12.9.1"), *parse_version("12.8.0")};
    CHECK(fix_for_missing(missing, context) == "cudnnenv install cuda 12.9.1");

    const fs::path dir = test::test_dir() / "why-fix";
    fs::remove_all(dir);
    fs::create_directories(dir / "lib");
    test::write_binary(dir / "lib" / "libnvJitLink.so.12", "x");
    TreeRecord runtime;
    runtime.kind = TreeKind::cuda;
    runtime.name = "cuda-12.4.1";
    runtime.root = dir;
    runtime.layout.library_dir = "lib";
    runtime.version = *parse_version("12.4.1");
    context.runtimes = {runtime};
    CHECK(fix_for_missing(missing, context) == "cudnnenv exec --runtime cuda-12.4.1 -- ./load-names libcusolver.so.11");

    missing.name = "libcuda.so.1";
    CHECK(fix_for_missing(missing, context) ==
          "install NVIDIA's driver for this GPU ('nvidia-smi' then runs); cudnnenv doctor says which");
    fs::remove_all(dir);
  }

  TEST_CASE("the text: one block per missing library, then the files that failed; one line when all loaded") {
    CHECK(describe_load_failures({}) == "cudnnenv: why: every CUDA library the program asked for loaded\n");
    LoadFailures failures;
    failures.missing.push_back({"cublas64_11.dll",
                                {"cudnn_ops_infer64_8.dll", "cudnn_cnn_infer64_8.dll"},
                                {{"tf.exe", "...", "cudnn_ops_infer64_8.dll", "cublas64_11.dll"}},
                                {{"the program's folder", "C:\\app"}, {"PATH", "C:\\libs\\8.1\\bin"}},
                                false,
                                "cudnnenv install cuda 11",
                                {}});
    failures.failed.push_back({"C:\\libs\\8.1\\bin\\cudnn_ops_infer64_8.dll", 5, {"cublas64_11.dll"}});
    CHECK(describe_load_failures(failures) ==
          "cudnnenv: why: cublas64_11.dll did not load (needed by cudnn_ops_infer64_8.dll, cudnn_cnn_infer64_8.dll)\n"
          "  chain:  tf.exe -> ... -> cudnn_ops_infer64_8.dll -> cublas64_11.dll\n"
          "  looked for in, in the standard search order (computed: the loader said nothing):\n"
          "    C:\\app  (the program's folder)\n"
          "    C:\\libs\\8.1\\bin  (PATH)\n"
          "  fix:    cudnnenv install cuda 11\n"
          "cudnnenv: why: C:\\libs\\8.1\\bin\\cudnn_ops_infer64_8.dll was found but did not load: it needs "
          "cublas64_11.dll\n");
  }
}

}  // namespace cudnnenv
