#include <doctest/doctest.h>

#include "integrate/kernelspec.hpp"
#include "util/json.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

TEST_SUITE("integrate/kernelspec") {
  TEST_CASE("kernel.json: the pinned argv, the display name and cudnnenv's mark, as JSON") {
    KernelSpec spec;
    spec.name = "cudnnenv-9.1";
    spec.display_name = "Python 3 (\"cuDNN\" 9.1 & é)";
    spec.tree = "tree \"9.1\"";
    spec.store = "/store root";
    spec.argv = pinned_kernel_argv("/opt/cudnnenv", spec.store, spec.tree, {}, "/usr/bin/python3");
    const std::string text = kernel_json(spec);
    const Json kernel = Json::parse(text);
    CHECK(kernel["argv"] ==
          Json::array({"/opt/cudnnenv", "--root", "/store root", "exec", "--cudnn", "tree \"9.1\"", "--",
                       "/usr/bin/python3", "-m", "ipykernel_launcher", "-f", "{connection_file}"}));
    CHECK(kernel["display_name"] == "Python 3 (\"cuDNN\" 9.1 & é)");
    CHECK(kernel["metadata"]["cudnnenv"]["runtime"].is_null());
    CHECK(written_by_cudnnenv(text));
    CHECK_FALSE(written_by_cudnnenv(R"({"argv": ["python3"], "display_name": "theirs"})"));
    CHECK_FALSE(written_by_cudnnenv(R"({"metadata": {"cudnnenv": 1}})"));
    CHECK_FALSE(written_by_cudnnenv("not json"));
    CHECK_FALSE(written_by_cudnnenv(std::string(100000, '[')));  // measured before parsing
  }

  TEST_CASE("kernel names: Jupyter's letters; the default from any tree name") {
    CHECK(is_valid_kernel_name("cudnnenv-9.19.0.56-cuda13"));
    CHECK_FALSE(is_valid_kernel_name("bad name"));
    CHECK_FALSE(is_valid_kernel_name("../up"));
    CHECK_FALSE(is_valid_kernel_name(".."));
    CHECK_FALSE(is_valid_kernel_name(""));
    CHECK(default_kernel_name("Tree 9.1 & é") == "cudnnenv-tree_9.1_____");  // é is two bytes
    CHECK(is_valid_kernel_name(default_kernel_name("Tree 9.1 & é")));
  }

  TEST_CASE("where kernelspecs go: jupyter_core's rule") {
    util::Environment environment;
#ifdef _WIN32
    environment.set("APPDATA", "C:\\Users\\me\\AppData\\Roaming");
    CHECK(*kernels_folder(environment, Os::windows, std::nullopt) ==
          fs::path("C:\\Users\\me\\AppData\\Roaming\\jupyter\\kernels"));
    environment.set("JUPYTER_DATA_DIR", "C:\\jd");
    CHECK(*kernels_folder(environment, Os::windows, std::nullopt) == fs::path("C:\\jd\\kernels"));
    environment.set("JUPYTER_DATA_DIR", "relative");  // never a folder that follows the working folder
    CHECK(*kernels_folder(environment, Os::windows, std::nullopt) ==
          fs::path("C:\\Users\\me\\AppData\\Roaming\\jupyter\\kernels"));
#else
    environment.set("HOME", "/home/me");
    CHECK(*kernels_folder(environment, Os::linux, std::nullopt) == fs::path("/home/me/.local/share/jupyter/kernels"));
    environment.set("XDG_DATA_HOME", "/data");
    CHECK(*kernels_folder(environment, Os::linux, std::nullopt) == fs::path("/data/jupyter/kernels"));
    environment.set("XDG_DATA_HOME", "relative");  // never a folder that follows the working folder
    CHECK(*kernels_folder(environment, Os::linux, std::nullopt) == fs::path("/home/me/.local/share/jupyter/kernels"));
    environment.set("JUPYTER_DATA_DIR", "/jd");
    CHECK(*kernels_folder(environment, Os::linux, std::nullopt) == fs::path("/jd/kernels"));
    CHECK(*kernels_folder(environment, Os::linux, fs::path("/venv")) == fs::path("/venv/share/jupyter/kernels"));
#endif
  }
}

}  // namespace cudnnenv
