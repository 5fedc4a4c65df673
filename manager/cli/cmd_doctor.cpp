// cudnnenv doctor: every known failure mode, checked (doctor/doctor.hpp);
// cudnnenv snapshot [-o FILE] [--json] / snapshot diff A B: what doctor knows,
// as a record to keep and compare.
#include <fstream>
#include <map>
#include <set>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "doctor/doctor.hpp"
#include "doctor/facts.hpp"
#include "util/fs.hpp"
#include "util/sha256.hpp"
#include "util/text.hpp"
#include "verify/verify.hpp"
#include "version_info.hpp"

namespace cudnnenv::cli {

namespace fs = std::filesystem;

namespace {

struct DoctorArguments {
  std::string program = "python";
  std::string cudnn;
  bool deep = false;
  bool verify = false;
  bool json = false;
};

struct SnapshotArguments {
  std::string program = "python";
  std::string output;
  bool json = false;
  std::string before;
  std::string after;
};

Facts gather(const Context& context, const std::string& program, const std::string& cudnn) {
  const Store store = context.store();
  FactsRequest request;
  request.environment = context.environment;
  request.store = &store;
  request.selection = context.request(cudnn);
  request.program = program;
  request.probe_program = probe_program_beside(util::current_executable());
  request.config_file = store.state_directory() / "config.toml";
  return collect_facts(request);
}

Json check_json(const DoctorCheck& check) {
  Json json{{"id", check.id}, {"status", to_string(check.status)}, {"summary", check.summary}};
  json["details"] = check.details;
  json["symptom"] = or_null(check.symptom);
  json["cause"] = or_null(check.cause);
  json["fix"] = or_null(check.fix);
  return json;
}

Paint paint_of(DoctorStatus status) {
  return status == DoctorStatus::ok ? Paint::ok : status == DoctorStatus::fail ? Paint::fail : Paint::warn;
}

// verify --level conv of the selected tree, as one more check.
DoctorCheck verify_check(const Facts& facts) {
  DoctorCheck check;
  check.id = "verify";
  if (!facts.selection) {
    check.status = DoctorStatus::skip;
    check.summary = "nothing selected";
    return check;
  }
  VerifyOptions options;
  options.level = VerifyLevel::conv;
  options.probe_program = probe_program_beside(util::current_executable());
  options.environment = facts.environment;
  const VerifyReport report = verify_tree(facts.selection->tree, options);
  for (const auto& item : report.checks) {
    check.details.push_back(to_string(item.status) + "  " + item.name + ": " + item.detail);
  }
  if (!report.passed()) {
    check.status = DoctorStatus::fail;
    std::string first;
    for (const auto& item : report.checks) {
      if (item.status == CheckStatus::failed && first.empty()) first = item.name + ": " + item.detail;
    }
    check.summary = "verify --level conv failed: " + first;
    check.symptom = "the selected tree does not work as installed";
    check.cause = first;
    check.fix = "cudnnenv verify " + facts.selection->tree.name + " --level conv shows every step";
  } else if (report.gpu_unavailable) {
    check.status = DoctorStatus::warn;
    check.summary = "verified up to load; the convolution was skipped: no GPU";
    check.symptom = "no GPU to run a convolution on";
    check.cause = "the driver or the GPU is missing (see the driver and gpu checks)";
    check.fix = "see the driver and gpu checks above";
  } else {
    check.status = DoctorStatus::ok;
    check.summary = "a convolution on the GPU matches the CPU reference";
  }
  return check;
}

Result<int> run_doctor(const DoctorArguments& arguments, const Context& context) {
  const Facts facts = gather(context, arguments.program, arguments.cudnn);
  DoctorOptions options;
  options.deep = arguments.deep;
  options.deep_check = [&facts](const TreeRecord& tree) {
    VerifyOptions verify;
    verify.level = VerifyLevel::files;
    verify.environment = facts.environment;
    std::vector<std::string> problems;
    for (const auto& item : verify_tree(tree, verify).checks) {
      if (item.status == CheckStatus::failed) problems.push_back(item.name + ": " + item.detail);
    }
    return problems;
  };
  auto checks = run_checks(facts, options);
  if (arguments.verify) {
    checks.push_back(verify_check(facts));
  }
  int failed = 0;
  int warned = 0;
  for (const auto& check : checks) {
    failed += check.status == DoctorStatus::fail;
    warned += check.status == DoctorStatus::warn;
  }
  if (arguments.json) {
    Json array = Json::array();
    for (const auto& check : checks) array.push_back(check_json(check));
    print_json(Json{{"checks", array}, {"failed", failed}, {"warnings", warned}});
    return failed > 0 ? 1 : 0;
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

// ---- snapshot ----

bool interesting_variable(const std::string& name) {
  static const char* const exact[] = {"PATH",        "LD_LIBRARY_PATH", "LD_PRELOAD",
                                      "LD_AUDIT",    "CONDA_PREFIX",    "CONDA_DEFAULT_ENV",
                                      "VIRTUAL_ENV", "PYTHONPATH",      "PYTHONHOME"};
  // TensorFlow's own TF_ families only: TF_CLI_CONFIG_FILE, TF_VAR_*, TF_LOG are Terraform's.
  static const char* const prefixes[] = {"CUDA",       "CUDNN",     "NVIDIA_",          "PYTORCH_", "XLA_",
                                         "TF_CPP_",    "TF_GPU_",   "TF_CUDA",          "TF_CUDNN", "TF_XLA_",
                                         "TF_ENABLE_", "TF_FORCE_", "TF_DETERMINISTIC", "TF_USE_",  "TF_NUM_"};
  const std::string upper = [&] {
    std::string text = name;
    for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return text;
  }();
  for (const char* item : exact) {
    if (upper == item) return true;
  }
  for (const char* item : prefixes) {
    if (util::starts_with(upper, item)) return true;
  }
  return false;
}

Json snapshot_json(const Facts& facts, const std::vector<DoctorCheck>& checks) {
  Json driver{{"version", or_null(facts.driver.version)},
              {"version_from", or_null(facts.driver.version_from)},
              {"cuda", facts.driver.cuda ? Json(facts.driver.cuda->str()) : Json(nullptr)},
              {"error", or_null(facts.driver.error)}};
  Json gpus = Json::array();
  for (const auto& gpu : facts.driver.gpus) {
    gpus.push_back(Json{{"index", gpu.index}, {"name", gpu.name}, {"compute_capability", gpu.compute_capability()}});
  }
  Json toolkits = Json::array();
  for (const auto& toolkit : facts.toolkits) {
    toolkits.push_back(
        Json{{"root", util::to_utf8(toolkit.root)}, {"version", or_null(toolkit.version_text)}, {"via", toolkit.via}});
  }
  Json headers = Json::array();
  for (const auto& header : facts.headers) {
    headers.push_back(Json{{"file", util::to_utf8(header.file)},
                           {"version", header.version ? Json(header.version->str()) : Json(nullptr)},
                           {"via", header.via}});
  }
  Json copies = Json::array();
  for (const auto& copy : facts.copies) {
    std::error_code ec;
    const auto size = fs::file_size(copy.library, ec);
    auto hash = util::sha256_file(copy.library);
    copies.push_back(Json{{"library", util::to_utf8(copy.library)},
                          {"version", copy.version ? Json(copy.version->str()) : Json(nullptr)},
                          {"cuda", copy.cuda ? Json(copy.cuda->str()) : Json(nullptr)},
                          {"size", ec ? Json(nullptr) : Json(size)},
                          {"sha256", hash ? Json(*hash) : Json(nullptr)},
                          {"found_via", copy.found_via},
                          {"loaded_by_name", copy.loaded_by_name}});
  }
  Json trees = Json::array();
  for (const auto& tree : facts.trees) {
    trees.push_back(Json{{"name", tree.name},
                         {"version", tree.version.str()},
                         {"cuda", tree.cuda ? Json(tree.cuda->str()) : Json(nullptr)},
                         {"library", util::to_utf8(tree.library_path())}});
  }
  Json selection = nullptr;
  if (facts.selection) {
    const TreeRecord& tree = facts.selection->tree;
    selection = Json{{"tree", tree.name},
                     {"version", tree.version.str()},
                     {"cuda", tree.cuda ? Json(tree.cuda->str()) : Json(nullptr)},
                     {"library", util::to_utf8(tree.library_path())},
                     {"decided_by", facts.selection->decided_by},
                     {"spec", facts.selection->spec}};
  }
  Json program{{"requested", facts.program.requested},
               {"path", facts.program.path.empty() ? Json(nullptr) : Json(util::to_utf8(facts.program.path))},
               {"target", facts.program.target.empty() ? Json(nullptr) : Json(util::to_utf8(facts.program.target))},
               {"shim", facts.program.is_shim},
               {"version_manager", or_null(facts.program.manager)},
               {"binary", facts.program.binary ? Json(facts.program.binary->describe()) : Json(nullptr)}};
  Json frameworks = Json::array();
  for (const auto& framework : facts.frameworks) {
    Json own = Json::array();
    for (const auto& file : framework.own_copies) own.push_back(util::to_utf8(file));
    frameworks.push_back(Json{{"name", framework.name},
                              {"version", or_null(framework.version)},
                              {"location", util::to_utf8(framework.location)},
                              {"cuda", or_null(framework.cuda)},
                              {"cudnn", or_null(framework.cudnn)},
                              {"own_copies", own}});
  }
  Json environment = Json::object();
  for (const auto& [name, value] : facts.environment.variables()) {
    if (interesting_variable(name)) environment[name] = value;
  }
  Json check_list = Json::array();
  for (const auto& check : checks) {
    check_list.push_back(Json{{"id", check.id}, {"status", to_string(check.status)}, {"summary", check.summary}});
  }
  return Json{{"format", 1},
              {"taken_at", utc_timestamp()},
              {"cudnnenv", CUDNNENV_VERSION_STRING},
              {"host", Json{{"os", to_string(facts.platform.os)}, {"arch", to_string(facts.platform.arch)}}},
              {"driver", driver},
              {"gpus", gpus},
              {"toolkits", toolkits},
              {"headers", headers},
              {"copies", copies},
              {"store", Json{{"root", util::to_utf8(facts.store_root)}, {"trees", trees}}},
              {"selection", selection},
              {"program", program},
              {"frameworks", frameworks},
              {"environment", environment},
              {"checks", check_list}};
}

// "a.b[key].c" -> scalar text, in document order. Array elements that are
// objects are named by their identity (id, library, name, file, root,
// index), so a copy added to a list does not shift every later one. False
// past k_max_depth levels (a snapshot has four): a crafted file cannot
// exhaust the stack.
constexpr int k_max_depth = 16;

bool flatten(const Json& value, const std::string& path, std::vector<std::pair<std::string, std::string>>& out,
             int depth = 0) {
  if (depth > k_max_depth) {
    return false;
  }
  if (value.is_object()) {
    for (const auto& [key, item] : value.items()) {
      if (!flatten(item, path.empty() ? key : path + "." + key, out, depth + 1)) return false;
    }
  } else if (value.is_array()) {
    std::size_t index = 0;
    for (const auto& item : value) {
      std::string name = std::to_string(index++);
      if (item.is_object()) {
        for (const char* key : {"id", "library", "name", "file", "root", "index"}) {
          if (item.contains(key)) {
            name = item[key].is_string() ? item[key].get<std::string>() : item[key].dump();
            break;
          }
        }
      } else if (item.is_string()) {
        name = item.get<std::string>();
      }
      if (!flatten(item, path + "[" + name + "]", out, depth + 1)) return false;
    }
    if (value.empty()) out.emplace_back(path, "[]");
  } else {
    out.emplace_back(path, value.is_string() ? value.get<std::string>() : value.dump());
  }
  return true;
}

Result<std::vector<std::pair<std::string, std::string>>> snapshot_lines(std::string_view text,
                                                                        const std::string& name) {
  const auto refused = [&] {
    return make_error("'" + name + "' is not a cudnnenv snapshot", "make one with: cudnnenv snapshot -o " + name,
                      ExitCode::usage);
  };
  // Nesting is counted before parsing: nlohmann's parser and destructor recurse.
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > k_max_depth) return refused();
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  const Json json = Json::parse(text, nullptr, false);
  std::vector<std::pair<std::string, std::string>> lines;
  if (json.is_discarded() || !json.is_object() || !json.contains("format") || !flatten(json, "", lines)) {
    return refused();
  }
  return lines;
}

}  // namespace

Result<std::vector<SnapshotChange>> diff_snapshots(std::string_view before, std::string_view after,
                                                   const std::string& before_name, const std::string& after_name) {
  CUDNNENV_TRY_ASSIGN(a, snapshot_lines(before, before_name));
  CUDNNENV_TRY_ASSIGN(b, snapshot_lines(after, after_name));
  // Keys in document order, once each (a crafted file may repeat one: the last value counts, as in the maps).
  std::map<std::string, std::string> left;
  std::map<std::string, std::string> right;
  for (const auto& [key, value] : *a) left[key] = value;
  for (const auto& [key, value] : *b) right[key] = value;
  std::vector<SnapshotChange> changes;
  std::set<std::string> seen;
  for (const auto& entry : *a) {
    const std::string& key = entry.first;
    if (key == "taken_at" || !seen.insert(key).second) continue;
    auto other = right.find(key);
    if (other == right.end()) {
      changes.push_back({"removed", key, left[key], std::nullopt});
    } else if (other->second != left[key]) {
      changes.push_back({"changed", key, left[key], other->second});
    }
  }
  for (const auto& entry : *b) {
    const std::string& key = entry.first;
    if (key != "taken_at" && !left.count(key) && seen.insert(key).second) {
      changes.push_back({"added", key, std::nullopt, right[key]});
    }
  }
  return changes;
}

namespace {

std::string taken_at(std::string_view text) {
  const Json json = Json::parse(text, nullptr, false);
  return json.is_object() && json.contains("taken_at") && json["taken_at"].is_string()
             ? json["taken_at"].get<std::string>()
             : std::string("?");
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
  print("--- " + arguments.before + "  (" + taken_at(*before) + ")\n");
  print("+++ " + arguments.after + "  (" + taken_at(*after) + ")\n");
  for (const auto& change : *changes) {
    if (change.change == "changed") {
      print("changed  " + change.key + ": " + *change.before + " -> " + *change.after + "\n");
    } else if (change.change == "added") {
      print("added    " + change.key + ": " + *change.after + "\n");
    } else {
      print("removed  " + change.key + ": " + *change.before + "\n");
    }
  }
  if (changes->empty()) {
    print("no differences\n");
  }
  return changes->empty() ? 0 : 1;  // as diff(1) does
}
Result<int> run_snapshot(const SnapshotArguments& arguments, const Context& context) {
  const Facts facts = gather(context, arguments.program, {});
  const Json json = snapshot_json(facts, run_checks(facts));
  if (!arguments.output.empty()) {
    CUDNNENV_TRY(util::write_file_atomic(util::path_from_utf8(arguments.output), json.dump(2) + "\n"));
    print_note("snapshot written to " + arguments.output + "; compare two with: cudnnenv snapshot diff OLD NEW");
    return 0;
  }
  if (arguments.json) {
    print_json(json);
    return 0;
  }
  std::vector<std::pair<std::string, std::string>> lines;
  flatten(json, "", lines);  // our own: four levels deep
  for (const auto& [key, value] : lines) {
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
  command->add_flag("--json", arguments->json, "print the checks as JSON (docs/doctor.md)");
  command->footer(
      "Exit code: 0 when no check failed, 1 otherwise.\n"
      "Examples:\n"
      "  cudnnenv doctor                  every check, for the python on PATH\n"
      "  cudnnenv doctor --for jupyter    which cuDNN jupyter would load, and why\n"
      "  cudnnenv doctor --deep --verify  hash every tree, then a convolution on the GPU\n"
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
  command->add_flag("--json", arguments->json, "print the snapshot as JSON");
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
