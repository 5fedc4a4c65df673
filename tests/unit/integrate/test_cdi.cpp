#include <doctest/doctest.h>

#include "integrate/cdi.hpp"
#include "support.hpp"
#include "util/fs.hpp"
#include "util/json.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

TEST_SUITE("integrate/cdi") {
  TEST_CASE("device names: a letter or digit first, then letters, digits, '_', '-', '.', ':'") {
    for (const char* name : {"t91", "9.19.0.56-cuda13", "tf2.5", "a_b:c"}) CHECK(is_cdi_name(name));
    for (const char* name : {"", "-t", ".t", "a b", "a/b", "库", "a=b", "a\nb"}) CHECK_FALSE(is_cdi_name(name));
  }

  TEST_CASE("a tree's device: its folder and the audit module mounted, the pin's variables, no LD_LIBRARY_PATH") {
    if (host_platform().os != Os::linux) return;  // the Linux pin's variables
    const Store store = test::make_selection_store();
    const auto tree = test::pick(store, "9.1");
    REQUIRE(tree);
    const fs::path module = test::test_dir() / "libcudnnenv-audit.so";
    REQUIRE(util::write_file_atomic(module,
                                    "\x7f"
                                    "ELF"));
    const auto text = cdi_spec({{"tf2.18", *tree, {}, {{"TF_CPP_MIN_LOG_LEVEL", "1"}}}}, module);
    REQUIRE(text);
    const Json spec = Json::parse(*text);
    CHECK(spec["cdiVersion"] == "0.5.0");
    CHECK(spec["kind"] == "cudnnenv.dev/cudnn");
    REQUIRE(spec["devices"].size() == 1);
    const Json& edits = spec["devices"][0]["containerEdits"];
    const std::string inside = "/opt/cudnnenv/" + tree->name;
    CHECK(edits["env"] ==
          Json::array({"CUDNN_PATH=" + inside, "CUDNN_INCLUDE_DIR=" + inside + "/include",
                       "CUDNN_LIB_DIR=" + inside + "/lib", "CUDNNENV_ACTIVE=" + tree->name, "TF_CPP_MIN_LOG_LEVEL=1",
                       "CUDNNENV_PIN_DIR=" + inside + "/lib", "LD_AUDIT=/opt/cudnnenv/lib/libcudnnenv-audit.so",
                       "CUDNNENV_CDI_TREES=" + tree->name + "@" + tree->installed_at}));
    CHECK(edits["mounts"] == Json::array({Json{{"hostPath", util::to_utf8(tree->root)},
                                               {"containerPath", inside},
                                               {"options", Json::array({"ro", "bind"})}},
                                          Json{{"hostPath", util::to_utf8(module)},
                                               {"containerPath", "/opt/cudnnenv/lib/libcudnnenv-audit.so"},
                                               {"options", Json::array({"ro", "bind"})}}}));
    // Read back as doctor reads it.
    const auto records = read_cdi_spec(*text);
    REQUIRE(records);
    REQUIRE(records->size() == 1);
    CHECK((*records)[0].name == "tf2.18");
    CHECK((*records)[0].host_paths == std::vector<std::string>{util::to_utf8(tree->root), util::to_utf8(module)});
    CHECK((*records)[0].trees == std::vector<std::pair<std::string, std::string>>{{tree->name, tree->installed_at}});
  }

  TEST_CASE("refused: a name CDI cannot take, two devices of one name") {
    const Store store = test::make_selection_store();
    const auto tree = test::pick(store, "9.1");
    REQUIRE(tree);
    const auto bad = cdi_spec({{"my tree", *tree, {}, {}}}, "/nowhere");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().message ==
          "the device 'my tree' cannot be a CDI device name or a container path: letters, digits, '_', '-', '.', ':' "
          "only, a letter or digit first");
    const auto twice = cdi_spec({{"a", *tree, {}, {}}, {"a", *tree, {}, {}}}, "/nowhere");
    REQUIRE_FALSE(twice);
    CHECK(twice.error().message == "two devices named 'a'");
  }

  TEST_CASE("reading specs: another vendor's kind is no device of ours; text that is no spec is an error") {
    const auto other =
        read_cdi_spec(R"({"cdiVersion": "0.5.0", "kind": "nvidia.com/gpu", "devices": [{"name": "0"}]})");
    REQUIRE(other);
    CHECK(other->empty());
    CHECK_FALSE(read_cdi_spec("kind: nvidia.com/gpu"));
    CHECK_FALSE(read_cdi_spec(R"({"kind": "cudnnenv.dev/cudnn", "devices": [{"containerEdits": {}}]})"));
    const auto odd = read_cdi_spec(
        R"({"kind": "cudnnenv.dev/cudnn", "devices": [{"name": "x", "containerEdits": {"env": [1, "CUDNNENV_CDI_TREES=a@1,b"], "mounts": [{"hostPath": 2}]}}]})");
    REQUIRE(odd);
    CHECK((*odd)[0].host_paths.empty());
    CHECK((*odd)[0].trees == std::vector<std::pair<std::string, std::string>>{{"a", "1"}});
  }
}

}  // namespace cudnnenv
