#include <doctest/doctest.h>

#include <set>
#include <string>

#include "components.inc"
#include "store/component.hpp"

namespace cudnnenv {

TEST_SUITE("store/component") {
  TEST_CASE("every kind of tree has one row, in the loader list's order: cuDNN, the runtime, NCCL, TensorRT") {
    REQUIRE(components().size() == 4);
    CHECK(components()[0].kind == TreeKind::cudnn);
    CHECK(components()[1].kind == TreeKind::cuda);
    CHECK(components()[2].kind == TreeKind::nccl);
    CHECK(components()[3].kind == TreeKind::tensorrt);
    std::set<std::string> variables;
    for (const ComponentRow& row : components()) {
      CHECK(&component(row.kind) == &row);
      variables.insert(std::string(row.pin_variable));
      variables.insert(std::string(row.active_variable));
    }
    CHECK(variables.size() == 2 * components().size());  // no two rows, nor a row's two variables, share one
  }

  TEST_CASE("the pin's variables, as the audit module and the launch read them") {
    CHECK(component(TreeKind::cudnn).pin_variable == "CUDNNENV_PIN_DIR");
    CHECK(component(TreeKind::cuda).pin_variable == "CUDNNENV_RUNTIME_DIR");
    CHECK(to_string(TreeKind::cuda) == "cuda");
    CHECK(parse_tree_kind("cudnn") == TreeKind::cudnn);
    CHECK(parse_tree_kind("nccl") == TreeKind::nccl);
    CHECK_FALSE(parse_tree_kind("cudnn9"));
  }

  TEST_CASE("each library the audit module pins is its component's, and no other component's, on both systems") {
    // (No structured bindings: clang 14 cannot capture them in the checks' lambdas.)
#define CHECK_LIBRARY_NAME(kind_, stem, pinned, family, in11, in12, in13)                                          \
  for (const std::string& name : {"lib" + std::string(stem) + ".so.12", std::string(stem) + "64_12.dll"}) {        \
    const Os os = name.ends_with(".dll") ? Os::windows : Os::linux;                                                \
    for (const ComponentRow& row : components()) {                                                                 \
      const bool built = os == Os::linux || !row.trees || !row.trees->no_windows_build;                            \
      CHECK_MESSAGE(row.library_name(name, os) == (row.kind == TreeKind::kind_ && built), (name + " of " #kind_)); \
    }                                                                                                              \
  }
    CUDNNENV_LIBRARIES(CHECK_LIBRARY_NAME)
#undef CHECK_LIBRARY_NAME
    const ComponentRow& cudnn = component(TreeKind::cudnn);
    const ComponentRow& runtime = component(TreeKind::cuda);
    for (const auto& item : {std::pair{"libcudnn_graph.so.9", Os::linux}, std::pair{"cudnn_ops64_9.dll", Os::windows},
                             std::pair{"cudnn_ops_infer64_8.dll", Os::windows}}) {
      const std::string name = item.first;
      CHECK_MESSAGE(cudnn.library_name(name, item.second), name);
      CHECK_FALSE_MESSAGE(runtime.library_name(name, item.second), name);
    }
  }

  TEST_CASE("a selection's trees: cuDNN's, then the runtime's when one is selected, in the table's order") {
    TreeRecord cudnn;
    cudnn.name = "9.19";
    TreeRecord runtime;
    runtime.name = "cuda-13.0.2";
    runtime.kind = TreeKind::cuda;
    const std::vector<TreeRecord> none;
    const std::vector<TreeRecord> beside{runtime};
    CHECK(pinned_trees(cudnn, none) == std::vector<const TreeRecord*>{&cudnn});
    const auto trees = pinned_trees(cudnn, beside);
    REQUIRE(trees.size() == 2);
    CHECK(trees[0] == &cudnn);
    CHECK(trees[1]->name == "cuda-13.0.2");
    CHECK(pinned_trees(runtime, {cudnn})[0]->name == "9.19");  // whatever order they come in
  }
}

}  // namespace cudnnenv
