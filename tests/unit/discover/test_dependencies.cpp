#include <doctest/doctest.h>

#include "discover/dependencies.hpp"

namespace cudnnenv {

TEST_SUITE("discover/dependencies") {
  TEST_CASE("missing libraries grouped: one line per name, the libraries that need it together, hints once") {
    const std::string where = "its folder, PATH (3 folders)";
    const std::string hint = "a CUDA runtime library: 'cudnnenv install cuda 11.8.0' installs it";
    const std::vector<MissingDependency> missing = {
        {"cudnn64_8.dll", "cublas64_11.dll", where, hint},
        {"cudnn_ops_infer64_8.dll", "cublas64_11.dll", where, hint},
        {"cudnn_ops_infer64_8.dll", "cublasLt64_11.dll", where, hint},
        {"cudnn_cnn_infer64_8.dll", "cublas64_11.dll", where, hint},
        {"cudnn_cnn_infer64_8.dll", "cublas64_11.dll", where, hint},  // seen twice: named once
    };
    CHECK(
        describe_grouped(missing, false) ==
        std::vector<std::string>{
            "cudnn64_8.dll, cudnn_ops_infer64_8.dll and cudnn_cnn_infer64_8.dll need cublas64_11.dll: not in " + where,
            "cudnn_ops_infer64_8.dll needs cublasLt64_11.dll: not in " + where});
    CHECK(describe_grouped(missing).back() ==
          "cudnn_ops_infer64_8.dll needs cublasLt64_11.dll: not in " + where + " (" + hint + ")");
    CHECK(distinct_hints(missing) == hint);
    CHECK(distinct_hints({{"a.dll", "b.dll", where, ""}, {"a.dll", "c.dll", where, "other"}}) == "other");
    CHECK(describe_grouped({}).empty());
  }
}

}  // namespace cudnnenv
