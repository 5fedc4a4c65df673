#include <doctest/doctest.h>

#include "cli/context.hpp"

namespace cudnnenv::cli {

namespace {

using Words = std::vector<std::string>;

// split_passthrough against the program's own registered options.
std::pair<Words, Words> split(Words arguments) {
  Context context;
  CLI::App app;
  register_all(app, context);
  return split_passthrough(app, std::move(arguments));
}

}  // namespace

TEST_SUITE("exec's argument split") {
  TEST_CASE("after '--' everything is the program's, options and empty words too") {
    const auto [parsed, program] = split({"cudnnenv", "exec", "--", "python", "--cudnn", "8", "", "--"});
    CHECK(parsed == Words{"cudnnenv", "exec"});
    CHECK(program == Words{"python", "--cudnn", "8", "", "--"});
  }

  TEST_CASE("without '--' the program starts at the first word that is neither an option nor its value") {
    const auto [parsed, program] =
        split({"cudnnenv", "--root", "/r", "-v", "exec", "--cudnn", "9", "--report", "--json", "python", "-c", "x"});
    CHECK(parsed == Words{"cudnnenv", "--root", "/r", "-v", "exec", "--cudnn", "9", "--report", "--json"});
    CHECK(program == Words{"python", "-c", "x"});
  }

  TEST_CASE("every exec option that takes a value takes the next word, whatever it looks like") {
    Context context;
    CLI::App app;
    register_all(app, context);
    const auto exec = app.get_subcommands([](const CLI::App* each) { return each->get_name() == "exec"; });
    REQUIRE(exec.size() == 1);
    int with_value = 0;
    for (const CLI::Option* option : exec.front()->get_options()) {
      if (option->get_expected_min() == 0 || option->get_lnames().empty()) {
        continue;
      }
      ++with_value;
      const std::string name = "--" + option->get_lnames().front();
      CAPTURE(name);
      const auto [parsed, program] = split_passthrough(app, {"cudnnenv", "exec", name, "prog", "real", "arg"});
      CHECK(parsed == Words{"cudnnenv", "exec", name, "prog"});
      CHECK(program == Words{"real", "arg"});
    }
    CHECK(with_value >= 6);  // --cudnn --cuda --mode --verify --device --shims-dir
  }

  TEST_CASE("other commands are passed whole, with nothing for a program") {
    const auto [parsed, program] = split({"cudnnenv", "--root", "exec", "list", "--json"});
    CHECK(parsed == Words{"cudnnenv", "--root", "exec", "list", "--json"});
    CHECK(program.empty());
  }
}

TEST_CASE("snapshot diff: key by key, list elements by identity; what is not a snapshot is refused") {
  const std::string before =
      R"({"format": 1, "taken_at": "a", "selection": {"version": "9.4.0"}, "copies": [{"library": "/x", "size": 1}]})";
  const std::string after =
      R"({"format": 1, "taken_at": "b", "selection": {"version": "9.1.0"}, "copies": [{"library": "/y", "size": 1}, {"library": "/x", "size": 1}]})";
  auto changes = diff_snapshots(before, after, "a.json", "b.json");
  REQUIRE(changes);
  REQUIRE(changes->size() == 3);
  CHECK((*changes)[0].change == "changed");
  CHECK((*changes)[0].key == "selection.version");
  CHECK((*changes)[1].key == "copies[/y].library");
  CHECK((*changes)[2].key == "copies[/y].size");
  CHECK((*changes)[2].change == "added");
  CHECK(diff_snapshots(before, before, "a", "a")->empty());
  const auto deep = "{\"format\": 1, \"x\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  auto refused = diff_snapshots(before, deep, "a.json", "deep.json");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message == "'deep.json' is not a cudnnenv snapshot");
  CHECK(refused.error().code == ExitCode::usage);
  CHECK_FALSE(diff_snapshots("[1]", before, "list.json", "a.json"));
}

}  // namespace cudnnenv::cli
