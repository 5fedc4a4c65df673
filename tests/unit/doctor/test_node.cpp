#include <doctest/doctest.h>

#include "doctor/node.hpp"
#include "store/spec.hpp"

namespace cudnnenv {

namespace {

std::string snapshot(const std::string& arch, const std::string& driver, const std::string& cuda,
                     const std::string& gpus) {
  return R"({"format": 1, "taken_at": "2026-12-06T10:00:00Z", "host": {"os": "linux", "arch": ")" + arch +
         R"("}, "driver": {"version": ")" + driver + R"(", "cuda": ")" + cuda + R"("}, "gpus": )" + gpus +
         R"(, "toolkits": [{"root": "/usr/local/cuda-12.2", "version": "12.2", "via": "/usr/local/cuda-*"}]})";
}

TreeRecord tree_of(const std::string& version, const std::string& cuda) {
  TreeRecord tree;
  tree.name = "t";
  tree.version = *parse_version(version);
  tree.cuda = parse_cuda_version(cuda);
  return tree;
}

}  // namespace

TEST_SUITE("doctor/node") {
  TEST_CASE("a snapshot's node: platform, driver, GPUs, toolkits; anything else refused with exit 2") {
    const auto node = read_node_facts(
        snapshot("x86_64", "535.104.05", "12.2", R"([{"index": 0, "name": "A100", "compute_capability": "8.0"}])"),
        "old.json");
    REQUIRE(node);
    CHECK(node->describe() == "the node of 'old.json' (Linux x86_64, driver 535.104.05 running CUDA 12.2, A100 8.0)");
    CHECK(node->toolkits.front().version->str() == "12.2");
    CHECK(node->taken_at == "2026-12-06T10:00:00Z");
    CHECK(read_node_facts("{}", "x").error().code == ExitCode::usage);
    CHECK(read_node_facts("not json", "x").error().message ==
          "'x' is not a snapshot cudnnenv can plan for: not a snapshot (cudnnenv snapshot -o writes one)");
    CHECK(read_node_facts(snapshot("mips", "1", "12.2", "[]"), "x").error().message ==
          "'x' is not a snapshot cudnnenv can plan for: its host.os and host.arch are not a platform cudnnenv knows");
    for (const char* cc : {"9", "9.0.1", "x.0", "-1.0", "1234.0", ""}) {
      const std::string gpus = std::string(R"([{"name": "g", "compute_capability": ")") + cc + R"("}])";
      CHECK(read_node_facts(snapshot("x86_64", "1", "12.2", gpus), "x").error().message ==
            "'x' is not a snapshot cudnnenv can plan for: a GPU's compute_capability is not MAJOR.MINOR");
    }
    const auto hostile = read_node_facts(
        snapshot("arm64", "580\\u001b[2J", "13.0", R"([{"name": "G\u0007", "compute_capability": "11.0"}])"), "x");
    REQUIRE(hostile);
    CHECK(hostile->describe() == "the node of 'x' (Linux arm64, driver 580\\x1b[2J running CUDA 13.0, G\\x07 11.0)");
  }

  TEST_CASE("fails_on_node: another platform, a driver older than the CUDA major, a GPU without code") {
    const auto old = *read_node_facts(
        snapshot("x86_64", "535.104.05", "12.2", R"([{"name": "A100", "compute_capability": "8.0"}])"), "old.json");
    CHECK(fails_on_node(tree_of("9.19.0", "12.9"), old).empty());
    CHECK(fails_on_node(tree_of("9.19.0", "13.1"), old) ==
          "its driver 535.104.05 runs CUDA 12.2, and CUDA 13 needs 580.65.06 or newer");
    TreeRecord windows = tree_of("9.19.0", "12.9");
    windows.platform = Platform{Os::windows, Arch::x86_64};
    CHECK(fails_on_node(windows, old) == "built for Windows x64, and the node is Linux x86_64");
    CHECK(fails_on_node(windows, old, false).empty());
    const auto pascal_node = *read_node_facts(
        snapshot("x86_64", "580.95.05", "13.0", R"([{"name": "P", "compute_capability": "6.1"}])"), "p.json");
    CHECK(fails_on_node(tree_of("9.10.2", "12.9"), pascal_node).empty());
    CHECK(fails_on_node(tree_of("9.19.0", "12.9"), pascal_node) ==
          "P (compute capability 6.1): not supported by cuDNN 9.19.0 for CUDA 12.9");
    CHECK(fails_on_node(tree_of("9.14.0", "12.9"), pascal_node) ==
          "P (compute capability 6.1): probably not supported by cuDNN 9.14.0");
  }

  TEST_CASE("the archive for a node: the newest that runs there, its platform's, the toolkit's CUDA first") {
    const auto old = *read_node_facts(
        snapshot("x86_64", "535.104.05", "12.2", R"([{"name": "A100", "compute_capability": "8.0"}])"), "old.json");
    const auto choice = choose_archive_for_node(*parse_spec("9.19"), std::nullopt, old);
    REQUIRE(choice);
    CHECK(std::string(choice->archive->cuda_variant) == "cuda12");
    CHECK(std::string(choice->archive->platform) == "linux-x86_64");
    REQUIRE_FALSE(choice->passed.empty());
    CHECK(choice->passed.front().find("_cuda13-archive.tar.xz would fail there: its driver 535.104.05") !=
          std::string::npos);
    const auto thor = *read_node_facts(
        snapshot("arm64", "580.00", "13.0", R"([{"name": "Thor", "compute_capability": "11.0"}])"), "t.json");
    const auto sbsa = choose_archive_for_node(*parse_spec("9.19"), parse_cuda_version("13"), thor);
    REQUIRE(sbsa);
    CHECK(std::string(sbsa->archive->platform) == "linux-sbsa");
    CHECK(choose_archive_for_node(*parse_spec("9.19"), parse_cuda_version("13"), old).error().code ==
          ExitCode::not_found);
  }
}

}  // namespace cudnnenv
