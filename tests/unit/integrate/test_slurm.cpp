#include <doctest/doctest.h>

#include "integrate/slurm.hpp"

namespace cudnnenv {

namespace {

// A plan as plan_environment makes one: the changes and the environment they give.
LaunchPlan plan_from(const util::Environment& before, const std::vector<EnvironmentChange>& changes) {
  LaunchPlan plan;
  plan.environment = before;
  for (const auto& change : changes) {
    plan.changes.push_back(change);
    if (change.kind == EnvironmentChange::Kind::unset) {
      plan.environment.unset(change.name);
    } else if (change.kind == EnvironmentChange::Kind::prepend && plan.environment.get(change.name)) {
      plan.environment.set(change.name, change.value + ":" + *plan.environment.get(change.name));
    } else {
      plan.environment.set(change.name, change.value);
    }
  }
  return plan;
}

}  // namespace

TEST_SUITE("integrate/slurm") {
  TEST_CASE("task prolog lines: each changed variable's whole value once, unset only what the task had") {
    const util::Environment before({{"LD_LIBRARY_PATH", "/opt/x"}, {"CUDNNENV_RUNTIME_DIR", "/old/runtime"}});
    const auto plan = plan_from(before, {{EnvironmentChange::Kind::prepend, "LD_LIBRARY_PATH", "/s/rt/lib"},
                                         {EnvironmentChange::Kind::prepend, "LD_LIBRARY_PATH", "/s/t 9/lib"},
                                         {EnvironmentChange::Kind::set, "CUDNNENV_PIN_DIR", "/s/t 9/lib"},
                                         {EnvironmentChange::Kind::unset, "CUDNNENV_RUNTIME_DIR", ""},
                                         {EnvironmentChange::Kind::unset, "CUDNNENV_AUDIT_LOG", ""},
                                         {EnvironmentChange::Kind::set, "QUOTED", "a 'b' \"c\" $d `e` ;f"}});
    const auto lines = task_prolog_lines(plan, before);
    REQUIRE(lines);
    CHECK(*lines ==
          "export LD_LIBRARY_PATH=/s/t 9/lib:/s/rt/lib:/opt/x\n"
          "export CUDNNENV_PIN_DIR=/s/t 9/lib\n"
          "unset CUDNNENV_RUNTIME_DIR\n"
          "export QUOTED=a 'b' \"c\" $d `e` ;f\n");
  }

  TEST_CASE("task prolog lines: a line break in a value or a name, '=' or a space in a name, is refused") {
    const util::Environment before;
    const auto broken = task_prolog_lines(plan_from(before, {{EnvironmentChange::Kind::set, "A", "x\ny"}}), before);
    REQUIRE_FALSE(broken);
    CHECK(broken.error().message ==
          "the value of A ('x\\x0ay') holds a line break, which Slurm's task prolog cannot pass");
    CHECK(broken.error().code == ExitCode::usage);
    for (const char* name : {"A B", "A=B", "A\rB", ""}) {
      const auto refused = task_prolog_lines(plan_from(before, {{EnvironmentChange::Kind::set, name, "1"}}), before);
      REQUIRE_FALSE(refused);
      CHECK(refused.error().message.find("cannot pass through Slurm's task prolog") != std::string::npos);
    }
  }

  TEST_CASE("node reason: one line, control characters as spaces, cut on a UTF-8 boundary") {
    CHECK(node_reason("cudnnenv: tree 't': load\nfailed\t!") == "cudnnenv: tree 't': load failed !");
    CHECK(node_reason("abcdefgh", 8) == "abcdefgh");
    CHECK(node_reason("abcdefghi", 8) == "abcde...");
    CHECK(node_reason("abc库def", 8) == "abc...");  // 库 is 3 bytes: never a part of it
    CHECK(node_reason("ab库cdef", 8) == "ab库...");
  }
}

}  // namespace cudnnenv
