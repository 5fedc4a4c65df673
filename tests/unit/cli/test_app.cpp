#include <doctest/doctest.h>

#include <algorithm>

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

TEST_SUITE("cli/app") {
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

  TEST_CASE("a command line that names a subcommand registers only it; anything else registers all") {
    CHECK(named_command({"cudnnenv", "current"}) == "current");
    CHECK(named_command({"cudnnenv", "--root", "current", "-v", "hook", "--shell", "bash"}) == "hook");
    CHECK(named_command({"cudnnenv", "--root=/x", "-vv", "exec", "--", "python"}) == "exec");
    CHECK(named_command({"cudnnenv", "__script", "bash", "use", "9"}) == "use");
    CHECK(named_command({"cudnnenv", "__complete", "ins"}).empty());
    CHECK(named_command({"cudnnenv", "--help"}).empty());
    CHECK(named_command({"cudnnenv"}).empty());
    const auto names = [](std::string_view only) {
      Context context;
      CLI::App app;
      register_all(app, context, only);
      std::vector<std::string> subcommands;
      for (const auto* sub : app.get_subcommands([](CLI::App*) { return true; })) {
        subcommands.push_back(sub->get_name());
      }
      return subcommands;
    };
    CHECK(names("current") == std::vector<std::string>{"current"});
    CHECK(names("hook") == std::vector<std::string>{"activate", "hook", "deactivate"});
    const auto all = names("");
    CHECK(names("instal") == all);  // a misspelling: every name, for the suggestion
    // Each of them, registered alone, is there under its own name.
    for (const auto& name : all) {
      const auto alone = names(name);
      CHECK_MESSAGE(std::find(alone.begin(), alone.end(), name) != alone.end(), name);
      CHECK_MESSAGE(alone.size() < all.size(), name);
    }
  }
}

}  // namespace cudnnenv::cli
