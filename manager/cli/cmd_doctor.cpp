// cudnnenv doctor: every known failure mode, checked (doctor/doctor.hpp);
// cudnnenv snapshot [-o FILE] [--json] / snapshot diff A B: what doctor knows,
// as a record to keep and compare.

#include <array>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "doctor/doctor.hpp"
#include "doctor/facts.hpp"
#include "doctor/node.hpp"
#include "doctor/snapshot.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"
#include "version_info.hpp"

namespace cudnnenv::cli {

namespace fs = std::filesystem;

namespace {

struct DoctorArguments {
  std::string program = "python";
  std::string cudnn;
  bool probe = false;
  double timeout = 60;
  std::string facts;
  bool deep = false;
  bool verify = false;
  bool json = false;
  bool no_load = false;
};

struct SnapshotArguments {
  std::string program = "python";
  std::string output;
  bool json = false;
  bool no_load = false;
  bool force = false;  // -o replaces a file that is not a snapshot
  std::string before;
  std::string after;
};

Paint paint_of(DoctorStatus status) {
  return status == DoctorStatus::ok ? Paint::ok : status == DoctorStatus::fail ? Paint::fail : Paint::warn;
}

// The checks that read the node's facts under --facts (the rest read this machine's files).
constexpr std::array<std::string_view, 5> k_node_checks = {"selection", "driver", "gpu", "toolkit", "frameworks"};

Result<int> run_doctor(const DoctorArguments& arguments, const Context& context) {
  Facts facts = collect_facts(facts_request(context.store(), context.environment, context.request(arguments.cudnn),
                                            arguments.program, !arguments.no_load));
  if (!arguments.facts.empty()) {
    CUDNNENV_TRY_ASSIGN(node, read_node_facts_file(arguments.facts));
    apply_node_facts(facts, *node);
  }
  DoctorOptions options;
  options.deep = arguments.deep;
  options.verify = arguments.verify;
  options.probe_program = probe_program_beside(util::installed_program());
  if (arguments.probe) options.framework_needs = framework_needs(facts, context.environment, true, arguments.timeout);
  auto checks = run_checks(facts, options);
  if (!facts.node.empty()) {
    std::erase_if(checks, [](const DoctorCheck& check) {
      return std::find(k_node_checks.begin(), k_node_checks.end(), check.id) == k_node_checks.end();
    });
  }
  int failed = 0;
  int warned = 0;
  for (const auto& check : checks) {
    failed += check.status == DoctorStatus::fail;
    warned += check.status == DoctorStatus::warn;
  }
  if (arguments.json) {
    Json array = Json::array();
    for (const auto& check : checks) array.push_back(doctor_check_json(check));
    print_json(Json{{"checks", array},
                    {"failed", failed},
                    {"warnings", warned},
                    {"node", facts.node.empty() ? Json(nullptr) : Json(facts.node)}});
    return failed > 0 ? 1 : 0;
  }
  if (!facts.node.empty()) {
    print("for " + facts.node +
          ": its driver, GPUs and toolkits; the selection and the frameworks are this "
          "machine's\n");
  }
  std::size_t width = 0;
  for (const auto& check : checks) width = std::max(width, check.id.size());
  for (const auto& check : checks) {
    const std::string status = to_string(check.status);
    print_marked(paint_of(check.status), status + std::string(6 - status.size(), ' '),
                 check.id + std::string(width + 2 - check.id.size(), ' ') + check.summary + "\n");
  }
  for (const auto& check : checks) {
    if (check.status != DoctorStatus::warn && check.status != DoctorStatus::fail) {
      continue;
    }
    print("\n");
    print_marked(paint_of(check.status), to_string(check.status), " " + check.id + ": " + check.summary + "\n");
    print("  you see:  " + check.symptom + "\n");
    print("  because:  " + check.cause + "\n");
    print("  fix:      " + check.fix + "\n");
    for (const auto& line : check.details) {
      print("    " + line + "\n");
    }
  }
  print("\n" + std::to_string(checks.size()) + " checks: " + std::to_string(failed) + " failed, " +
        std::to_string(warned) + (warned == 1 ? " warning" : " warnings") +
        (failed + warned > 0 ? "; 'cudnnenv doctor --json' for every detail" : "") + "\n");
  return failed > 0 ? 1 : 0;
}

Result<int> run_diff(const SnapshotArguments& arguments) {
  CUDNNENV_TRY_ASSIGN(before, util::read_file(util::path_from_utf8(arguments.before)));
  CUDNNENV_TRY_ASSIGN(after, util::read_file(util::path_from_utf8(arguments.after)));
  CUDNNENV_TRY_ASSIGN(changes, diff_snapshots(*before, *after, arguments.before, arguments.after));
  if (arguments.json) {
    Json list = Json::array();
    for (const auto& change : *changes) {
      list.push_back(Json{{"change", change.change},
                          {"key", change.key},
                          {"before", or_null(change.before)},
                          {"after", or_null(change.after)}});
    }
    print_json(Json{{"before", arguments.before}, {"after", arguments.after}, {"changes", list}});
    return changes->empty() ? 0 : 1;
  }
  // Each line whole through printable: a snapshot is a file anyone may hand over,
  // and a newline in one of its values must not make a line of its own.
  const auto line = [](const std::string& text) { print(util::printable(text) + "\n"); };
  line("--- " + arguments.before + "  (" + snapshot_taken_at(*before) + ")");
  line("+++ " + arguments.after + "  (" + snapshot_taken_at(*after) + ")");
  for (const auto& change : *changes) {
    if (change.change == "changed") {
      line("changed  " + change.key + ": " + *change.before + " -> " + *change.after);
    } else if (change.change == "added") {
      line("added    " + change.key + ": " + *change.after);
    } else {
      line("removed  " + change.key + ": " + *change.before);
    }
  }
  if (changes->empty()) {
    print("no differences\n");
  }
  return changes->empty() ? 0 : 1;  // as diff(1) does
}
Result<int> run_snapshot(const SnapshotArguments& arguments, const Context& context) {
  const fs::path output = util::path_from_utf8(arguments.output);
  if (!arguments.output.empty() && !arguments.force && util::entry_exists(output)) {
    // Replaced only when it is an earlier snapshot: -o names a file, and a typo must not cost one.
    auto text = util::read_file(output, 64 * 1024 * 1024);
    if (!text || !is_snapshot(*text)) {
      return make_error("'" + arguments.output + "' exists and is not a cudnnenv snapshot" +
                            (text ? std::string() : " (" + text.error().message + ")") + ": it was left as it is",
                        "give another file with -o, or replace it: 'cudnnenv snapshot -o " +
                            util::command_word(arguments.output) + " --force'",
                        ExitCode::usage);
    }
  }
  const Facts facts = collect_facts(
      facts_request(context.store(), context.environment, context.request({}), arguments.program, !arguments.no_load));
  const Json json = snapshot_json(facts, run_checks(facts), CUDNNENV_VERSION_STRING);
  if (!arguments.output.empty()) {
    CUDNNENV_TRY(write_output_file(output, json.dump(2) + "\n"));
    print_note("snapshot written to " + arguments.output + "; compare two with: cudnnenv snapshot diff OLD NEW");
    return 0;
  }
  if (arguments.json) {
    print_json(json);
    return 0;
  }
  for (const auto& [key, value] : snapshot_text_lines(json)) {
    print(key + ": " + value + "\n");
  }
  return 0;
}

}  // namespace

void register_doctor(CLI::App& app, Context& context) {
  auto arguments = std::make_shared<DoctorArguments>();
  CLI::App* command = app.add_subcommand(
      "doctor", "check every known cause of 'DLL load failed' and the wrong cuDNN: what you see, why, the fix");
  command->add_option("--for", arguments->program,
                      "the program whose loader is walked and whose site-packages are read (default: python, "
                      "else python3, on PATH)");
  command->add_option("--cudnn", arguments->cudnn, "check this spec instead of the selection");
  command->add_flag("--deep", arguments->deep, "hash every file of every tree (default: compare sizes)");
  command->add_flag("--verify", arguments->verify, "also run 'verify --level conv' on the selected tree");
  command->add_option("--facts", arguments->facts,
                      "check for another machine: the driver, GPU and toolkit rows for the node whose snapshot "
                      "this is ('cudnnenv snapshot -o FILE' there), against the selection here");
  command->add_flag("--probe", arguments->probe,
                    "ask each framework what its binary was built with (imports it in a child, under the pin), "
                    "as 'cudnnenv frameworks --probe' does");
  command->add_option("--timeout", arguments->timeout, "with --probe: seconds each framework may take (default 60)")
      ->check(CLI::Range(1.0, 3600.0));
  command->add_flag("--json", arguments->json, "print the checks as JSON (docs/doctor.md)");
  command->add_flag("--no-load", arguments->no_load,
                    "load no cuDNN copy found on the machine to read its version (headers and file names only); "
                    "copies others could have replaced are never loaded");
  command->footer(
      "Exit code: 0 when no check failed, 1 otherwise.\n"
      "Examples:\n"
      "  cudnnenv doctor                  every check, for the python on PATH\n"
      "  cudnnenv doctor --for jupyter    which cuDNN jupyter would load, and why\n"
      "  cudnnenv doctor --deep --verify  hash every tree, then a convolution on the GPU\n"
      "  cudnnenv doctor --probe          the frameworks' needs from the frameworks themselves\n"
      "  cudnnenv doctor --facts node.json   the selection checked against a compute node's snapshot\n"
      "  cudnnenv doctor --json | jq '.checks[] | select(.status != \"ok\")'");
  command->callback(
      [arguments, &context] { context.action = [arguments, &context] { return run_doctor(*arguments, context); }; });
}

void register_snapshot(CLI::App& app, Context& context) {
  auto arguments = std::make_shared<SnapshotArguments>();
  CLI::App* command = app.add_subcommand(
      "snapshot", "record the driver, GPUs, toolkits, every cuDNN copy and the selection, to keep or compare");
  command->add_option("-o,--output", arguments->output, "write the snapshot (JSON) to this file");
  command->add_option("--for", arguments->program, "the program whose loader and site-packages are recorded");
  command->add_flag("--force", arguments->force, "with -o: replace the file even when it is not a snapshot");
  command->add_flag("--json", arguments->json, "print the snapshot as JSON");
  command->add_flag("--no-load", arguments->no_load,
                    "load no cuDNN copy found on the machine to read its version (headers and file names only)");
  command->footer(
      "Examples:\n"
      "  cudnnenv snapshot -o before.json\n"
      "  cudnnenv use 8.9 && cudnnenv snapshot -o after.json\n"
      "  cudnnenv snapshot diff before.json after.json");
  CLI::App* diff = command->add_subcommand("diff", "list what changed between two snapshots");
  command->callback([arguments, &context, command, diff] {
    if (!command->got_subcommand(diff)) {  // CLI11 runs this after diff's own callback
      context.action = [arguments, &context] { return run_snapshot(*arguments, context); };
    }
  });
  diff->add_option("before", arguments->before, "the older snapshot file")->required();
  diff->add_option("after", arguments->after, "the newer snapshot file")->required();
  diff->add_flag("--json", arguments->json, "print the changes as JSON");
  diff->callback([arguments, &context] { context.action = [arguments] { return run_diff(*arguments); }; });
}

}  // namespace cudnnenv::cli
