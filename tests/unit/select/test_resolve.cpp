#include <doctest/doctest.h>

#include <system_error>

#include "select/profile.hpp"
#include "select/project.hpp"
#include "select/resolve.hpp"
#include "select/trust.hpp"
#include "store/spec.hpp"
#include "store/store.hpp"
#include "support.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;
using test::FakeTree;
using test::TreeStyle;

namespace {

// Installs a fake Linux release under an official-style name; nothing is
// loaded (the fake libraries would all report the same version).
using test::install_fake;
using test::make_selection_store;
using test::pick;

SelectionRequest request_in(const fs::path& directory) {
  SelectionRequest request;
  request.working_directory = directory;
  return request;
}

void write_text(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  util::FilePtr out = util::open_file(file, "wb");
  std::fwrite(text.data(), 1, text.size(), out.get());
}

}  // namespace

TEST_SUITE("select/resolve") {
  TEST_CASE("one matcher: a profile's name works wherever a spec does; remove is the strict mode") {
    const Store store = make_selection_store();
    // tf2.5 wants cuDNN 8.1 with CUDA 11.2 (profiles/tensorflow.toml): the tested pair is installed.
    auto profile = choose_tree(store, "tf2.5", std::nullopt);
    REQUIRE_MESSAGE(profile, (profile ? "" : profile.error().message));
    CHECK(profile->tree.name == "8.1.0.77-cuda11.2");
    CHECK(profile->warnings.empty());
    REQUIRE(profile->profile);
    CHECK(profile->profile->name == "tf2.5");
    auto spec = choose_tree(store, "9", std::nullopt);
    REQUIRE(spec);
    CHECK_FALSE(spec->profile);
    auto missing = choose_tree(store, "tf9.9", std::nullopt);
    REQUIRE_FALSE(missing);
    CHECK(missing.error().code == ExitCode::not_found);

    auto newest = choose_tree(store, "8.9+cuda12", std::nullopt);
    REQUIRE(newest);
    auto ambiguous = choose_tree(store, "8.9", std::nullopt);  // CUDA 11 and 12
    REQUIRE_FALSE(ambiguous);
    CHECK(ambiguous.error().code == ExitCode::usage);
    auto strict = store.find("8");  // five 8.x trees: remove must name one
    REQUIRE_FALSE(strict);
    CHECK(strict.error().code == ExitCode::usage);
    CHECK(strict.error().message.rfind("'8' ", 0) == 0);
    auto exact = store.find("8.1");
    REQUIRE(exact);
    CHECK(exact->version.str() == "8.1.0.77");
    auto with_cuda = store.find("8.9.7+cuda11");  // the strict matcher honours +cuda too
    REQUIRE(with_cuda);
    CHECK(with_cuda->name == "8.9.7.29-cuda11");
  }

  TEST_CASE("a profile prefers its tested pair; a newer minor runs it with a warning naming the pair") {
    Store store(test::test_dir() / "store");
    install_fake(store, "cudnn-11.3-linux-x64-v8.2.0.53.zip", "8.2.0", 8);
    auto newer = choose_tree(store, "tf2.5", std::nullopt);
    REQUIRE_MESSAGE(newer, (newer ? "" : newer.error().message));
    CHECK(newer->tree.name == "8.2.0.53-cuda11.3");
    CHECK(newer->warnings ==
          std::vector<std::string>{"tf2.5 (TensorFlow 2.5) was tested with cuDNN 8.1 and CUDA 11.2, which is not "
                                   "installed; using '8.2.0.53-cuda11.3' (cuDNN 8.2.0.53, CUDA 11.3), which "
                                   "it accepts (hint: install the tested pair: cudnnenv install 8.1 --cuda 11.2)"});
    // The same through a project file: every command shows the warning.
    write_text(test::test_dir() / "p" / k_project_file_name, "profile = \"tf2.5\"\n");
    auto project = resolve_selection(store, request_in(test::test_dir() / "p"));
    REQUIRE(project);
    CHECK(project->warnings == newer->warnings);

    install_fake(store, "cudnn-11.2-linux-x64-v8.1.0.77.zip", "8.1.0", 8);  // older, but the tested pair
    auto tested = choose_tree(store, "tf2.5", std::nullopt);
    REQUIRE(tested);
    CHECK(tested->tree.name == "8.1.0.77-cuda11.2");
    CHECK(tested->warnings.empty());
    auto fit = satisfying_tree(*tested->profile, store.list(RecordPart::identity).trees);
    REQUIRE(fit);
    CHECK(fit->tested);
    project = resolve_selection(store, request_in(test::test_dir() / "p"));
    REQUIRE(project);
    CHECK(project->tree.name == "8.1.0.77-cuda11.2");
    CHECK(project->warnings.empty());
  }

  TEST_CASE("an activation in this shell takes its place: after CUDNNENV_VERSION, before the project file") {
    Store store = make_selection_store();
    write_text(store.state().config(), "default = \"9\"\n");
    write_text(test::test_dir() / "p" / k_project_file_name, "cudnn = \"8.10\"\n");
    SelectionRequest request = request_in(test::test_dir() / "p");
    request.environment.set(k_activated_variable, "8.1.0.77-cuda11.2");
    auto activated = resolve_selection(store, request);
    REQUIRE(activated);
    CHECK(activated->origin == Origin::activation);
    CHECK(activated->tree.version.str() == "8.1.0.77");
    CHECK(describe_origin(*activated) == "set by 'cudnnenv activate' in this shell");
    request.environment.set("CUDNNENV_VERSION", "9");
    auto shell = resolve_selection(store, request);
    REQUIRE(shell);
    CHECK(shell->origin == Origin::environment);
    request.environment.unset("CUDNNENV_VERSION");
    request.environment.unset(k_activated_variable);
    auto project = resolve_selection(store, request);
    REQUIRE(project);
    CHECK(project->tree.version.str() == "8.10.0.5");
  }

  TEST_CASE("precedence: --cudnn, then CUDNNENV_VERSION, then .cudnnenv.toml, then the global default") {
    Store store = make_selection_store();
    write_text(store.state().config(), "default = \"9\"\n");
    const fs::path project = test::test_dir() / "project dir";
    write_text(project / k_project_file_name, "# pinned for TF 2.5\ncudnn = \"8.1\"\n");
    SelectionRequest request = request_in(project / "src");
    fs::create_directories(project / "src");
    request.cudnn = "8.10";
    request.environment.set("CUDNNENV_VERSION", "8.9+cuda11");

    auto flag = resolve_selection(store, request);
    REQUIRE(flag);
    CHECK(flag->origin == Origin::command_line);
    CHECK(flag->tree.version.str() == "8.10.0.5");
    CHECK(describe_origin(*flag) == "set by --cudnn");

    request.cudnn.reset();
    auto environment = resolve_selection(store, request);
    REQUIRE(environment);
    CHECK(environment->origin == Origin::environment);
    CHECK(environment->tree.name == "8.9.7.29-cuda11");

    request.environment.unset("CUDNNENV_VERSION");
    auto file = resolve_selection(store, request);
    REQUIRE(file);
    CHECK(file->origin == Origin::project_file);
    CHECK(file->tree.version.str() == "8.1.0.77");
    CHECK(describe_origin(*file) == "set by " + util::to_utf8(project / k_project_file_name));

    fs::remove(project / k_project_file_name);
    auto global = resolve_selection(store, request);
    REQUIRE(global);
    CHECK(global->origin == Origin::global_default);
    CHECK(global->tree.version.str() == "9.1.0.70");

    fs::remove(store.state().config());
    auto nothing = resolve_selection(store, request);
    REQUIRE_FALSE(nothing);
    CHECK(nothing.error().code == ExitCode::not_found);
    CHECK(nothing.error().message == "no cuDNN is selected here");
  }

  TEST_CASE("the nearest .cudnnenv.toml wins, found from 30 folders below") {
    Store store = make_selection_store();
    const fs::path project = test::test_dir() / "repo";
    write_text(project / k_project_file_name, "cudnn = \"9\"\n");
    fs::path deep = project;
    for (int level = 0; level < 30; ++level) {
      deep /= "d" + std::to_string(level);
    }
    fs::create_directories(deep);
    auto far = resolve_selection(store, request_in(deep));
    REQUIRE(far);
    CHECK(far->origin == Origin::project_file);
    CHECK(far->decided_by == util::to_utf8(project / k_project_file_name));
    CHECK(far->tree.version.str() == "9.1.0.70");

    const fs::path middle = project / "d0" / "d1" / "d2";
    write_text(middle / k_project_file_name, "cudnn = \"8.1\"\n[env]\nTF_CPP_MIN_LOG_LEVEL = \"2\"\n");
    auto near = resolve_selection(store, request_in(deep));
    REQUIRE(near);
    CHECK(near->decided_by == util::to_utf8(middle / k_project_file_name));
    CHECK(near->tree.version.str() == "8.1.0.77");
    // [env] needs trust: withheld, with the reason, until the file is trusted.
    CHECK(near->project->env.empty());
    REQUIRE(near->withheld_env);
    CHECK(near->withheld_env->message == "'" + util::to_utf8(middle / k_project_file_name) +
                                             "' sets variables ([env]) and is not trusted: they were not set");
    REQUIRE(TrustStore(store.state().trust())
                .trust(middle / k_project_file_name, *util::read_file(middle / k_project_file_name)));
    auto trusted = resolve_selection(store, request_in(deep));
    REQUIRE(trusted);
    CHECK_FALSE(trusted->withheld_env);
    CHECK(trusted->project->env == std::vector<std::pair<std::string, std::string>>{{"TF_CPP_MIN_LOG_LEVEL", "2"}});
  }

  TEST_CASE("a project file's cuda key qualifies its spec") {
    Store store = make_selection_store();
    write_text(test::test_dir() / "p" / k_project_file_name, "cudnn = \"8.9\"\ncuda = \"12\"\n");
    auto selection = resolve_selection(store, request_in(test::test_dir() / "p"));
    REQUIRE(selection);
    CHECK(selection->tree.name == "8.9.7.29-cuda12");
  }

  TEST_CASE("malformed content is an error with file, line and column; unknown keys a warning") {
    const fs::path file = test::test_dir() / "p" / k_project_file_name;
    const std::string where = util::to_utf8(file);
    struct Case {
      const char* text;
      std::string message;
    };
    for (const Case& c :
         {Case{"cudnn = 8.1\n", where + ":1:9: 'cudnn' must be a string"},
          Case{"[verify]\non_launch = \"always\"\n",
               where + ":2:13: on_launch must be none, load or conv, not 'always'"},
          Case{"cudnn = \"8.1\"\nprofile = \"tf2.5\"\n", where + ": both 'cudnn' and 'profile' are set"}}) {
      CAPTURE(c.text);
      auto parsed = parse_project_file(c.text, file);
      REQUIRE_FALSE(parsed);
      CHECK(parsed.error().message == c.message);
    }
    // Unknown keys are warnings with the place (#11: a typo must not stop every shim), not errors.
    auto typo = parse_project_file("cudnn = \"8.1\"\ncdunn_typo = \"x\"\n[verify]\nwhen = \"load\"\n", file);
    REQUIRE(typo);
    CHECK(typo->cudnn == "8.1");
    CHECK(typo->warnings ==
          std::vector<std::string>{
              where + ":2:1: unknown key 'cdunn_typo' (valid keys: cudnn, cuda, runtime, nccl, tensorrt, profile, "
                      "path, [env], [verify], [lock])",
              where + ":4:1: unknown key 'when' in [verify] (valid keys: on_launch)"});
    auto syntax = parse_project_file("cudnn = \"8.1\n", file);
    REQUIRE_FALSE(syntax);
    CHECK(syntax.error().message ==
          where + ":1:13: a string that is not closed: its closing quote is missing on this line");
    CHECK(syntax.error().hint == "fix the TOML syntax at that place");
    auto at_end = parse_project_file("cudnn = \"8.1", file);
    REQUIRE_FALSE(at_end);
    CHECK(at_end.error().message.find(": a string that is not closed: its closing quote is missing on this line") !=
          std::string::npos);
    CHECK(parse_project_file("", file));
    // A key or table header of 200,000 dotted parts overflowed toml++'s stack (#28): refused before it parses.
    std::string header = "cudnn = \"9\"\n[a";
    std::string dotted = "a";
    for (int i = 0; i < 200000; ++i) {
      header += ".a";
      dotted += ".a";
    }
    for (const std::string& text : {header + "]\n", dotted + " = 1\n", "x = {" + dotted + " = 1}\n"}) {
      auto deep = parse_project_file(text, file);
      REQUIRE_FALSE(deep);
      CHECK(deep.error().message.find(": a key or table header of more than 128 dotted parts") != std::string::npos);
    }
    CHECK(parse_project_file("[a.b.c]\nx = 1.5\ny = [1.5, 2.5, 3.5]\n", file));  // dots in values are not key parts
    // A UTF-8 byte order mark, as Notepad and PowerShell 5 write one.
    auto bom = parse_project_file(
        "\xEF\xBB\xBF"
        "cudnn = \"8.1\"\r\n",
        file);
    REQUIRE_MESSAGE(bom, (bom ? "" : bom.error().message));
    CHECK(bom->cudnn == "8.1");
  }

  TEST_CASE("a project file with only an unknown key: the error when nothing else selects names the key") {
    Store store(test::test_dir() / "empty store");
    write_text(test::test_dir() / "q" / k_project_file_name, "cudnnn = \"9\"\n");
    auto none = resolve_selection(store, request_in(test::test_dir() / "q"));
    REQUIRE_FALSE(none);
    CHECK(none.error().code == ExitCode::not_found);
    CHECK(none.error().message ==
          "no cuDNN is selected here; " + util::to_utf8(test::test_dir() / "q" / k_project_file_name) +
              ":1:1: unknown key 'cudnnn' (valid keys: cudnn, cuda, runtime, nccl, tensorrt, profile, path, [env], "
              "[verify], [lock])");
  }

  TEST_CASE("a malformed project file stops resolution instead of being skipped") {
    Store store = make_selection_store();
    write_text(store.state().config(), "default = \"9\"\n");
    write_text(test::test_dir() / "p" / k_project_file_name, "cudnn = [\n");
    auto selection = resolve_selection(store, request_in(test::test_dir() / "p"));
    REQUIRE_FALSE(selection);
    CHECK(selection.error().message == util::to_utf8(test::test_dir() / "p" / k_project_file_name) +
                                           ":1:11: Error while parsing array: encountered end-of-file");
  }

  TEST_CASE("a path outside the store needs trust; an edit needs it again; untrust withdraws it") {
    Store store = make_selection_store();
    FakeTree host;
    host.os = host_platform().os;
    host.major = 9;
    host.header_version = "9.1.0";
    host.library = host.os == Os::windows ? "fake-pe64-9.1.0.dll" : "fake-elf64-9.1.0.so";
    host.style = TreeStyle::archive;
    test::write_folder(test::test_dir() / "vendored cudnn", test::fake_tree(host));
    const fs::path project = test::test_dir() / "cloned repo";
    const fs::path file = project / k_project_file_name;
    write_text(file, "path = \"../vendored cudnn\"\n");
    TrustStore trust(store.state().trust());

    auto refused = resolve_selection(store, request_in(project));
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message ==
          "'" + util::to_utf8(file) + "' points outside the store (path = '../vendored cudnn') and is not trusted");
    CHECK(refused.error().hint == "read it, then run 'cudnnenv trust' in '" + util::to_utf8(project) + "'");

    REQUIRE(trust.trust(file, *util::read_file(file)));
    auto trusted = resolve_selection(store, request_in(project));
    REQUIRE_MESSAGE(trusted, (trusted ? "" : trusted.error().message));
    CHECK(trusted->tree.version.str() == "9.1.0");
    CHECK(trusted->tree.library_path() == fs::weakly_canonical(test::test_dir() / "vendored cudnn") /
                                              util::path_from_utf8(trusted->tree.layout.main_library));

    write_text(file, "path = \"../vendored cudnn\"\n# edited after trust\n");
    auto edited = resolve_selection(store, request_in(project));
    REQUIRE_FALSE(edited);
    CHECK(edited.error().message == "'" + util::to_utf8(file) +
                                        "' points outside the store (path = '../vendored cudnn') and changed since it "
                                        "was trusted");
    REQUIRE(trust.trust(file, *util::read_file(file)));
    CHECK(resolve_selection(store, request_in(project)));

    REQUIRE(trust.untrust(file));
    CHECK_FALSE(resolve_selection(store, request_in(project)));
    auto twice = trust.untrust(file);
    REQUIRE_FALSE(twice);
    CHECK(twice.error().code == ExitCode::not_found);
  }

  TEST_CASE("a path inside the store needs no trust") {
    Store store = make_selection_store();
    const fs::path project = test::test_dir() / "p";
    write_text(project / k_project_file_name,
               "path = " + toml_quote(util::to_utf8(store.root() / "9.1.0.70-cuda12")) + "\n");
    if (host_platform().os == Os::linux) {
      auto selection = resolve_selection(store, request_in(project));
      REQUIRE_MESSAGE(selection, (selection ? "" : selection.error().message));
      CHECK(selection->tree.version.str() == "9.1.0");
    } else {
      // The store's trees here are Linux trees; on Windows the folder holds no
      // cudnn64_N.dll, which proves the trust check passed and the layout check ran.
      auto selection = resolve_selection(store, request_in(project));
      REQUIRE_FALSE(selection);
      CHECK(selection.error().message.find("no cuDNN library in") == 0);
    }
  }

  TEST_CASE(
      "a shared store: its config.toml gives the default, the mirror and profiles that the user's own leaves out") {
    const Store shared = make_selection_store();
    const Store user(shared.root(), test::test_dir() / "user state");
    REQUIRE_FALSE(user.state_is_own());
    write_text(shared.own().config(),
               "default = \"8.1\"\n[download]\nmirror = \"https://mirror.site.example/nvidia\"\n"
               "[profiles.site]\ncudnn = \"8.9\"\ncuda = \"11\"\n[profiles.mine]\ncudnn = \"9.1\"\n");
    CHECK(config_files(user) == std::vector<fs::path>{shared.own().config(), user.state().config()});
    CHECK(config_files(shared) == std::vector<fs::path>{shared.state().config()});

    auto site = effective_config(user);
    REQUIRE(site);
    CHECK(site->default_spec == "8.1");
    CHECK(site->default_file == shared.own().config());
    CHECK(site->download_mirror == "https://mirror.site.example/nvidia");
    CHECK(site->mirror_file == shared.own().config());
    CHECK(find_profile("site", host_platform().os, config_files(user))->cudnn == "8.9");
    auto by_default = resolve_selection(user, request_in(test::test_dir()));
    REQUIRE(by_default);
    CHECK(by_default->tree.version.str() == "8.1.0.77");
    CHECK(describe_origin(*by_default) == "set by " + util::to_utf8(shared.own().config()) + ", the global default");

    // The user's own settings win, one by one; the site's profile stays.
    write_text(user.state().config(),
               "[download]\nmirror = \"file:///home/me/archives\"\n[profiles.mine]\ncudnn = \"8.10\"\n");
    auto mixed = effective_config(user);
    REQUIRE(mixed);
    CHECK(mixed->default_spec == "8.1");
    CHECK(mixed->download_mirror == "file:///home/me/archives");
    CHECK(mixed->mirror_file == user.state().config());
    CHECK(find_profile("mine", host_platform().os, config_files(user))->cudnn == "8.10");
    CHECK(find_profile("site", host_platform().os, config_files(user))->cudnn == "8.9");
    CHECK(resolve_selection(user, request_in(test::test_dir()))->tree.version.str() == "8.1.0.77");
    CHECK(choose_tree(user, "site", std::nullopt)->tree.version.str() == "8.9.7.29");

    write_text(shared.own().config(), "default = 8.1\n");
    auto broken = effective_config(user);
    REQUIRE_FALSE(broken);
    CHECK(broken.error().message.find(util::to_utf8(shared.own().config())) == 0);
  }
}

}  // namespace cudnnenv
