#include <doctest/doctest.h>

#include "doctor/frameworks.hpp"

namespace cudnnenv {

namespace {

CudnnNeed need_of(const std::string& framework, int major, std::optional<int> minor, std::optional<int> cuda) {
  CudnnNeed need;
  need.framework = framework;
  need.version = "1.0";
  need.major = major;
  need.minor = minor;
  need.cuda_major = cuda;
  need.source = "test";
  return need;
}

TreeRecord tree_of(const std::string& name, const std::string& version, const std::string& cuda) {
  TreeRecord tree;
  tree.name = name;
  tree.version = *parse_version(version);
  tree.cuda = parse_cuda_version(cuda);
  return tree;
}

}  // namespace

TEST_SUITE("doctor/frameworks") {
  TEST_CASE("a wheel's requirement on NVIDIA's cuDNN wheel, and the lowest version it accepts") {
    CHECK(cudnn_requirement("Metadata-Version: 2.1\nName: jax-cuda12-plugin\nRequires-Dist: jax-cuda12-pjrt==0.6.2\n"
                            "Requires-Dist: nvidia-cudnn-cu12<10.0,>=9.8; extra == \"with-cuda\"\n") ==
          "nvidia-cudnn-cu12<10.0,>=9.8");
    CHECK(cudnn_requirement("Requires-Dist: nvidia-cudnn-cu11 (==8.5.0.96) ; platform_system == \"Linux\"\r\n") ==
          "nvidia-cudnn-cu11==8.5.0.96");
    CHECK(cudnn_requirement("Requires-Dist: nvidia-cublas-cu12\nSummary: nvidia-cudnn-cu12>=9\n").empty());
    CHECK(requirement_floor("nvidia-cudnn-cu12<10.0,>=9.8")->str() == "9.8.0");
    CHECK(requirement_floor("nvidia-cudnn-cu13==9.19.0.56")->str() == "9.19.0.56");
    CHECK(requirement_floor("nvidia-cudnn-cu12~=9.0")->str() == "9.0.0");
    CHECK(requirement_floor("nvidia-cudnn-cu12>=9")->str() == "9.0.0");
    CHECK(requirement_floor("nvidia-cudnn-cu12>=9.1,>=9.5")->str() == "9.5.0");
    CHECK_FALSE(requirement_floor("nvidia-cudnn-cu12<10"));
    CHECK_FALSE(requirement_floor("nvidia-cudnn-cu12"));
    CHECK_FALSE(requirement_floor("nvidia-cudnn-cu12>=x.y"));
  }

  TEST_CASE("runs: the same major, a minor not older, the CUDA major it was built for") {
    const CudnnNeed jax = need_of("JAX", 9, 8, 12);
    std::string why;
    CHECK(runs(jax, *parse_version("9.19.0"), parse_cuda_version("12.9")));
    CHECK(runs(jax, *parse_version("9.8.0"), std::nullopt));
    CHECK_FALSE(runs(jax, *parse_version("9.4.0"), parse_cuda_version("12.4"), &why));
    CHECK(why == "needs cuDNN 9.8 or a newer 9.x for CUDA 12; 9.4.0 is older");
    CHECK_FALSE(runs(jax, *parse_version("8.9.7"), std::nullopt, &why));
    CHECK(why == "needs cuDNN 9.8 or a newer 9.x for CUDA 12; 8.9.7 is another major");
    CHECK_FALSE(runs(jax, *parse_version("9.19.0"), parse_cuda_version("13.1"), &why));
    CHECK(why == "needs cuDNN 9.8 or a newer 9.x for CUDA 12; this cuDNN is built for CUDA 13");
    CudnnNeed old = need_of("PyTorch", 6, 0, std::nullopt);
    old.rule = CudnnRule::same_minor;
    CHECK(old.wants() == "cuDNN 6.0 exactly (any patch)");
    CHECK_FALSE(runs(old, *parse_version("6.1.0"), std::nullopt, &why));
    CHECK(why == "needs cuDNN 6.0 exactly (any patch); 6.1.0 is another minor");
    CHECK(need_of("TensorFlow", 9, std::nullopt, std::nullopt).wants() == "cuDNN 9.x");
    CudnnNeed windows = need_of("PyTorch", 9, 19, 13);
    windows.binds_selection = false;  // torch\lib's copy, by full path
    CHECK(runs(windows, *parse_version("8.1.0"), std::nullopt));
    CHECK(runs(CudnnNeed{}, *parse_version("8.1.0"), std::nullopt));  // nothing known: nothing refused
  }

  TEST_CASE("from files: TensorFlow's minor from its profile, PyTorch by its own copy, no need for the wheel alone") {
    Profile tf218;
    tf218.name = "tf2.18";
    tf218.cudnn = "9.3";
    tf218.cuda = "12.5";
    FrameworkInfo tensorflow{"TensorFlow", "2.18.0", "/site/tensorflow", "12.5.1", "9", "", "", {}};
    FrameworkInfo torch{"PyTorch", "2.5.1+cu124", "/site/torch", "12.4", "9.1.0", "", "nvidia-cudnn-cu12==9.1.0.70",
                        {}};
    FrameworkInfo wheel{"nvidia-cudnn-cu12", "9.1.0.70", "/site/nvidia/cudnn", "", "9.1.0", "", "", {}};
    const auto needs = needs_from_files({tensorflow, torch, wheel}, {tf218}, Os::linux);
    REQUIRE(needs.size() == 2);
    CHECK(needs[0].wants() == "cuDNN 9.3 or a newer 9.x for CUDA 12");
    CHECK(needs[0].source == "files: tensorflow/python/platform/build_info.py and profile tf2.18");
    CHECK(needs[1].wants() == "cuDNN 9.1 or a newer 9.x for CUDA 12");
    CHECK(needs[1].metadata == "nvidia-cudnn-cu12==9.1.0.70");
    CHECK(needs[1].binds_selection);
    CHECK_FALSE(needs_from_files({torch}, {}, Os::windows)[0].binds_selection);
  }

  TEST_CASE("a probe's answer: its last marked line, the framework's words kept printable") {
    CudnnNeed need = need_of("JAX", 9, 1, 12);
    REQUIRE(apply_probe_output(
        "noise\ncudnnenv-probe: {\"old\": 1}\nWARNING: x\n\ncudnnenv-probe: {\"version\": \"0.6.2\", \"cuda\": "
        "\"12.8\", \"source\": \"jax._src.lib.cuda_versions.cudnn_build_version()\", \"cudnn_build\": \"9.8.0\", "
        "\"cudnn_loaded\": \"9.4.0\"}\n",
        need));
    CHECK(need.built_with() == "9.8.0");
    CHECK(need.source == "probe: jax._src.lib.cuda_versions.cudnn_build_version()");
    CHECK(need.loaded->str() == "9.4.0");
    CHECK(need.cuda_major == 12);

    CudnnNeed tensorflow = need_of("TensorFlow", 9, 3, 12);
    tensorflow.source = "files: build_info.py and profile tf2.18";
    REQUIRE(
        apply_probe_output("\ncudnnenv-probe: {\"version\": \"2.18.0\", \"cudnn_build\": \"9\", \"source\": "
                           "\"tf.sysconfig.get_build_info()\"}\n",
                           tensorflow));
    CHECK(tensorflow.wants() == "cuDNN 9.3 or a newer 9.x for CUDA 12");
    CHECK(tensorflow.source ==
          "probe: tf.sysconfig.get_build_info() (the major); files: build_info.py and profile tf2.18");

    CudnnNeed cpu = need_of("PyTorch", 9, 1, 12);
    REQUIRE(apply_probe_output("\ncudnnenv-probe: {\"version\": \"2.5.1+cpu\", \"cudnn_build\": null}\n", cpu));
    CHECK_FALSE(cpu.known());

    CudnnNeed hostile = need_of("PyTorch", 9, 1, 12);
    REQUIRE(
        apply_probe_output("\ncudnnenv-probe: {\"version\": \"2.5\\u001b[2J\\nforged\", \"cudnn_build\": "
                           "\"9.1.0\", \"load_error\": \"bad\\u0007\"}\n",
                           hostile));
    CHECK(hostile.version == "2.5\\x1b[2J\\x0aforged");
    CHECK(hostile.load_error == "bad\\x07");

    CudnnNeed same = need_of("JAX", 9, 1, 12);
    CHECK(apply_probe_output("nothing marked", same).error().message == "the probe printed no answer");
    CHECK(apply_probe_output("xcudnnenv-probe: {}", same).error().message == "the probe printed no answer");
    CHECK(apply_probe_output("\ncudnnenv-probe: [1]", same).error().message == "the probe's answer is not JSON");
    CHECK(apply_probe_output("\ncudnnenv-probe: {\"a\": [[[[[[1]]]]]]}", same).error().message ==
          "the probe's answer is not what it writes");
    CHECK(apply_probe_output("\ncudnnenv-probe: {\"cudnn_build\": \"9.x\"}", same).error().message ==
          "the probe's cuDNN version '9.x' is not a version");
    CHECK(apply_probe_output("\ncudnnenv-probe: {\"error\": \"ModuleNotFoundError: No module named 'jax'\"}", same)
              .error()
              .message == "ModuleNotFoundError: No module named 'jax'");
    CHECK(same.built_with() == "9.1");  // a failed answer leaves the files' need
  }

  TEST_CASE("solve: an installed tree first, else the newest archive; no single cuDNN names the pair and a split") {
    const std::vector<CudnnNeed> pair = {need_of("PyTorch", 9, 1, 12), need_of("JAX", 9, 8, 12)};
    const std::vector<TreeRecord> installed = {tree_of("t94", "9.4.0", "12.4"), tree_of("t919", "9.19.0", "13.1"),
                                               tree_of("t921", "9.21.0", "12.9")};
    const OfficialArchive a12{"9.27.0.42", "linux-x86_64", "cuda12", "a12.tar.xz", "", 0, "https://x/a12"};
    const OfficialArchive a13{"9.27.0.42", "linux-x86_64", "cuda13", "a13.tar.xz", "", 0, "https://x/a13"};
    Solution solution = solve(pair, installed, {&a12, &a13}, Os::linux);
    REQUIRE(solution.pick);
    CHECK(solution.pick->name == "t921");
    CHECK(solution.command == "cudnnenv use t921");
    solution = solve(pair, {installed[0], installed[1]}, {&a12, &a13}, Os::linux);
    REQUIRE(solution.pick);
    CHECK(solution.pick->name == "9.27.0+cuda12");
    CHECK(solution.command == "cudnnenv install 9.27.0+cuda12 && cudnnenv use 9.27.0+cuda12");

    const std::vector<CudnnNeed> parted = {need_of("TensorFlow", 9, 3, 12), need_of("PyTorch", 9, 19, 13)};
    solution = solve(parted, installed, {&a12}, Os::linux);
    CHECK_FALSE(solution.pick);
    CHECK(solution.conflict ==
          "no single cuDNN runs both TensorFlow 1.0 and PyTorch 1.0: TensorFlow needs cuDNN 9.3 or a newer 9.x for "
          "CUDA 12, PyTorch needs cuDNN 9.19 or a newer 9.x for CUDA 13");
    REQUIRE(solution.split.size() == 2);
    CHECK(solution.split[0].command == "cudnnenv exec --cudnn t921 -- python");
    CHECK(solution.split[1].command == "cudnnenv exec --cudnn t919 -- python");

    const std::vector<CudnnNeed> unknown = {CudnnNeed{}};
    CHECK(solve(unknown, installed, {}, Os::linux).needs.empty());
    const std::vector<CudnnNeed> future = {need_of("JAX", 9, 40, 12)};
    solution = solve(future, installed, {&a12}, Os::linux);
    CHECK(solution.conflict == "no cuDNN installed or in the official list runs them all");
    CHECK(solution.split[0].command.empty());
  }
}

}  // namespace cudnnenv
