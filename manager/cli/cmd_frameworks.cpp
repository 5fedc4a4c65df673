// cudnnenv frameworks [--probe] [--solve] [--json]: what each framework of
// the Python that runs needs of cuDNN, and the one cuDNN that runs them all
// (doctor/frameworks.hpp).

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "doctor/frameworks.hpp"
#include "pin/launch.hpp"
#include "select/activation.hpp"
#include "store/official.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv::cli {

namespace fs = std::filesystem;

namespace {

struct FrameworksArguments {
  std::string program = "python";
  std::string cudnn;
  bool probe = false;
  bool solve = false;
  bool json = false;
  double timeout = 60;
  std::string facts;
};

std::string candidate_words(const CudnnCandidate& candidate) {
  std::string words = "'" + candidate.name + "' (cuDNN " + candidate.version.str();
  if (candidate.cuda) words += ", CUDA " + candidate.cuda->str();
  return words + (candidate.installed ? ", installed)" : ", from the official list)");
}

void print_need(const CudnnNeed& need) {
  if (!need.probe_failure.empty()) {
    print(need.label() + ": the probe failed: " + need.probe_failure + "\n");
    print("  from its files: " + (need.known() ? "needs " + need.wants() : std::string("nothing known")) + " (" +
          need.source + ")\n");
  } else if (!need.known()) {
    print(need.label() +
          (util::starts_with(need.source, "probe: built without")
               ? std::string(": built without cuDNN, needs none (probe)")
               : ": no cuDNN known (" + need.source + ")") +
          "\n");
  } else {
    print(need.label() + ": needs " + need.wants() + " (" + need.source + ")\n");
  }
  if (!need.metadata.empty()) print("  its metadata says " + need.metadata + "\n");
  if (!need.binds_selection) print("  loads its own copy by full path, whatever is selected\n");
  if (!need.checked_at_load && need.known())
    print("  does not check at load: a cuDNN it cannot use fails at its first call\n");
  if (!need.load_error.empty()) {
    print("  refused the cuDNN it loaded: " + need.load_error + "\n");
  } else if (need.loaded) {
    std::string why;
    print("  loaded cuDNN " + need.loaded->str() +
          (runs(need, *need.loaded, std::nullopt, &why) ? std::string(", which it runs with")
                                                        : ", which it cannot run with: it " + why) +
          "\n");
  }
}

Result<int> run_frameworks(const FrameworksArguments& arguments, const Context& context) {
  const Facts facts = collect_facts(
      facts_request(context.store(), context.environment, context.request(arguments.cudnn), arguments.program, true));
  if (facts.program.path.empty()) {
    return make_error("no '" + arguments.program + "' on PATH",
                      "name the program: 'cudnnenv frameworks --for python3'");
  }
  const std::vector<CudnnNeed> needs = framework_needs(facts, context.environment, arguments.probe, arguments.timeout);
  const bool probe_failed =
      std::any_of(needs.begin(), needs.end(), [](const CudnnNeed& need) { return !need.probe_failure.empty(); });
  std::optional<NodeFacts> node;
  if (!arguments.facts.empty()) {
    CUDNNENV_TRY_ASSIGN(read, read_node_facts_file(arguments.facts));
    node = std::move(*read);
  }
  std::optional<Solution> solution;
  if (arguments.solve) {
    const Platform platform = node ? node->platform : facts.platform;
    solution = solve(needs, facts.trees, available_archives(platform, nullptr, std::nullopt), platform.os,
                     node ? &*node : nullptr);
  }
  const bool unsolved = solution && !solution->needs.empty() && !solution->pick;
  const int code = probe_failed || unsolved ? 1 : 0;
  if (arguments.json) {
    Json list = Json::array();
    for (const auto& need : needs) list.push_back(need_json(need));
    Json json{{"program", util::to_utf8(facts.program.target)},
              {"selected", facts.selection ? Json(facts.selection->tree.name) : Json(nullptr)},
              {"probed", arguments.probe},
              {"frameworks", list}};
    if (solution) json["solve"] = solution_json(*solution);
    if (node) json["node"] = node->describe();
    print_json(json);
    return code;
  }
  std::string head = util::to_utf8(facts.program.target);
  head += facts.selection
              ? " (selected: '" + facts.selection->tree.name + "', cuDNN " + facts.selection->tree.version.str() + ")"
              : std::string(" (nothing selected: what the plain search finds)");
  print(head + "\n");
  if (node && solution) print("solved for " + node->describe() + "\n");
  if (needs.empty()) {
    print("no TensorFlow, PyTorch, JAX, ONNX Runtime or CuPy with a CUDA build in " +
          (facts.site_packages.empty() ? std::string("its site-packages")
                                       : "'" + util::to_utf8(facts.site_packages.front()) + "'") +
          "\n");
    return 0;
  }
  for (const auto& need : needs) print_need(need);
  if (!solution) return code;
  print("\n");
  if (solution->needs.empty()) {
    print("nothing here says which cuDNN it needs: any cuDNN runs it\n");
  } else if (solution->pick) {
    const std::size_t count = solution->needs.size();
    print(
        (count == 1 ? std::string("the cuDNN that runs it: ") : "one cuDNN runs all " + std::to_string(count) + ": ") +
        candidate_words(*solution->pick) + "\n");
    print("  select it: " + solution->command + "\n");
  } else {
    print(solution->conflict + "\n");
    print("  split them: an environment each (a .cudnnenv.toml each), or each program with its own:\n");
    for (const auto& part : solution->split) {
      print("    " + part.need->label() + ": " +
            (part.pick ? part.command : "no cuDNN installed or in the official list runs it") + "\n");
    }
  }
  return code;
}

}  // namespace

void register_frameworks(CLI::App& app, Context& context) {
  auto arguments = std::make_shared<FrameworksArguments>();
  CLI::App* command = app.add_subcommand(
      "frameworks", "what each framework here needs of cuDNN, and (--solve) the one cuDNN that runs them all");
  command->add_option("--for", arguments->program,
                      "the Python whose site-packages are read (default: python, else python3, on PATH, through "
                      "shims)");
  command->add_option("--cudnn", arguments->cudnn, "probe under this spec instead of the selection");
  command->add_flag("--probe", arguments->probe,
                    "ask each framework what its binary was built with: each is imported in a child of that "
                    "Python, under the pin, with a timeout (no GPU needed)");
  command->add_flag("--solve", arguments->solve,
                    "name the installed tree, else the archive of the official list, that runs every framework, "
                    "and the command that selects it; or the split when none does");
  command->add_option("--timeout", arguments->timeout, "with --probe: seconds each framework may take (default 60)")
      ->check(CLI::Range(1.0, 3600.0));
  command->add_option("--facts", arguments->facts,
                      "with --solve: only what runs on the node whose snapshot this is ('cudnnenv snapshot -o "
                      "FILE' there): its platform, its driver's CUDA, its GPUs");
  command->add_flag("--json", arguments->json, "print the needs (and the solution) as JSON (docs/json.md)");
  command->footer(
      "Exit code: 0; 1 when a probe failed (hung, crashed, or said nothing readable) or --solve found no single "
      "cuDNN.\n"
      "Examples:\n"
      "  cudnnenv frameworks                   what the files of each framework say\n"
      "  cudnnenv frameworks --probe --solve   what the binaries need, and the one cuDNN for all\n"
      "  cudnnenv frameworks --for .venv/bin/python --json\n"
      "  cudnnenv frameworks --probe --solve --facts node.json   for the compute node of that snapshot");
  command->callback([arguments, &context] {
    context.action = [arguments, &context] { return run_frameworks(*arguments, context); };
  });
}

}  // namespace cudnnenv::cli
