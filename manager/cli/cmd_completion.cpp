// `cudnnenv completion SHELL`: the tab completion script; and
// `cudnnenv __complete --current=WORD -- WORDS...`, which those scripts call: the
// candidates for WORD after WORDS (the command line after the program's
// name), one per line, read from the registered commands and options and
// from the store (tree names, versions, profiles).
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "integrate/completion.hpp"
#include "pin/launch.hpp"
#include "pin/pin_policy.hpp"
#include "pin/shims.hpp"
#include "select/profile.hpp"
#include "shell/init.hpp"
#include "store/official.hpp"
#include "store/runtime.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"
#include "verify/verify.hpp"

namespace cudnnenv::cli {

namespace {

struct CompleteArguments {
  std::string current;
  std::vector<std::string> words;
};

const CLI::App* find_subcommand(const CLI::App& app, const std::string& name) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name() == name) return sub;
  }
  return nullptr;
}

bool takes_value(const CLI::App& scope, const std::string& word) {
  for (const CLI::Option* option : scope.get_options()) {
    if (option->get_expected_min() > 0 && option->check_name(word)) return true;
  }
  return false;
}

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

Candidates option_names(const CLI::App& scope) {
  Candidates names;
  for (const CLI::Option* option : scope.get_options()) {
    if (option->get_group().empty() || option->get_positional()) continue;  // hidden, or a positional
    for (const auto& name : option->get_lnames()) names.push_back({"--" + name, first_line(option->get_description())});
  }
  return names;
}

Candidates subcommand_names(const CLI::App& scope) {
  Candidates names;
  for (const CLI::App* sub : scope.get_subcommands([](const CLI::App*) { return true; })) {
    if (!sub->get_group().empty()) names.push_back({sub->get_name(), first_line(sub->get_description())});
  }
  return names;
}

// The row of the component table beside cuDNN but the runtime whose flag `option` is (--nccl), if any.
std::optional<TreeKind> row_of_flag(const std::string& option) {
  for (const ComponentRow* row : named_rows()) {
    if (option == "--" + std::string(row->json_key)) return row->kind;
  }
  return std::nullopt;
}

Candidates plain(const std::vector<std::string>& values) {
  Candidates names;
  for (const auto& value : values) names.push_back({value, ""});
  return names;
}

Candidates candidates(const CLI::App& app, const Context& context, const CompleteArguments& arguments) {
  // Walk the words: the subcommands named so far, and the positionals after them.
  const CLI::App* scope = &app;
  std::vector<std::string> positionals;
  std::string previous;
  bool after_dashes = false;
  for (std::size_t i = 0; i < arguments.words.size(); ++i) {
    const std::string& word = arguments.words[i];
    if (after_dashes) {
      positionals.push_back(word);
    } else if (word == "--") {
      after_dashes = true;
    } else if (util::starts_with(word, "-")) {
      if (word.find('=') == std::string::npos && (takes_value(*scope, word) || takes_value(app, word)) &&
          i + 1 < arguments.words.size()) {
        ++i;  // its value
      }
    } else if (const CLI::App* sub = positionals.empty() ? find_subcommand(*scope, word) : nullptr) {
      scope = sub;
    } else {
      positionals.push_back(word);
    }
    previous = arguments.words[i];  // an option's value, when it took one
  }
  const std::string command = scope == &app ? "" : scope->get_name();
  const std::string parent = scope->get_parent() && scope->get_parent() != &app ? scope->get_parent()->get_name() : "";
  if (!after_dashes && !previous.empty() && util::starts_with(previous, "-") &&
      previous.find('=') == std::string::npos && (takes_value(*scope, previous) || takes_value(app, previous))) {
    if (previous == "--cudnn") return spec_candidates(context.store());
    if (previous == "--cuda") return cuda_candidates(context.store());
    if (previous == "--runtime")
      return command == "create" ? cuda_release_candidates() : component_candidates(TreeKind::cuda, context.store());
    if (const auto kind = row_of_flag(previous)) return component_candidates(*kind, context.store());
    if (previous == "--shell") return plain(shell::shell_names());
    if (previous == "--verify") return plain(util::names_of(k_launch_policies));
    if (previous == "--mode") return plain(util::names_of(k_pin_modes));
    if (previous == "--level") return plain(util::names_of(k_verify_levels));
    return {};  // a path or a number
  }
  if (command == "exec" && (after_dashes || !util::starts_with(arguments.current, "-"))) {
    // The program, then its arguments (the shell's own completion: files).
    return positionals.empty() ? program_candidates(arguments.current, context.environment) : Candidates{};
  }
  if (after_dashes) return {};
  if (util::starts_with(arguments.current, "-")) {
    auto names = option_names(*scope);
    if (scope != &app) {
      const auto global = option_names(app);
      names.insert(names.end(), global.begin(), global.end());
    }
    return names;
  }
  if (auto subs = subcommand_names(*scope); !subs.empty() && positionals.empty()) {
    return subs;
  }
  if (command == "install") {
    if (positionals.size() == 1 && positionals[0] == "cuda") return cuda_release_candidates();
    // A version or 'cuda'; a path (a word with a folder or an archive's name) is the shell's.
    const bool path_like =
        arguments.current.find_first_of("/\\~") != std::string::npos ||
        (!arguments.current.empty() && !std::isdigit(static_cast<unsigned char>(arguments.current[0])) &&
         !util::starts_with("cuda", arguments.current));
    if (!positionals.empty() || path_like) return {};
    auto names = official_version_candidates();
    names.push_back({"cuda", "a CUDA release's runtime libraries: cudnnenv install cuda 13.0"});
    return names;
  }
  if (!positionals.empty()) return {};
  if (command == "remove" && parent == "shim") return shim_candidates(context.store());
  if (command == "add" && parent == "shim") return program_candidates(arguments.current, context.environment);
  if (command == "remove") return removable_candidates(context.store());
  if (command == "use" || command == "verify" || command == "activate" || command == "which" || command == "current") {
    return spec_candidates(context.store());
  }
  if (command == "show" || command == "generate") return profile_name_candidates(context.store());
  if (command == "init") return plain(shell::shell_names());
  if (command == "completion") return plain(shell::shell_names(shell::has_completion));
  if (command == "deinit") return plain({"cmd"});
  return {};
}

Result<int> run_complete(const CLI::App& app, const CompleteArguments& arguments, const Context& context) {
  std::set<std::string> seen;
  for (const auto& candidate : candidates(app, context, arguments)) {
    if (util::starts_with(candidate.value, arguments.current) && seen.insert(candidate.value).second) {
      // One per line, a tab before the description, and shown by the shell: a name with a control byte
      // (a line break, a tab, an escape sequence) cannot be typed anyway; leave it out.
      if (util::printable(candidate.value) != candidate.value || candidate.value.find('\t') != std::string::npos) {
        continue;
      }
      std::string description = candidate.description;
      std::replace(description.begin(), description.end(), '\t', ' ');
      description = util::printable(description);
      print_script(candidate.value + (description.empty() ? "" : "\t" + description) + "\n");
    }
  }
  return 0;
}

Result<int> run_completion(const std::string& name, const std::string& command) {
  auto shell = shell::parse_shell(name);
  const std::string program = command.empty() ? util::to_utf8(util::current_executable()) : command;
  auto script = shell ? shell::completion_script(*shell, program) : std::nullopt;
  if (!script) {
    return make_error("no completion for '" + name + "'", "use " + shell::shell_choices(shell::has_completion),
                      ExitCode::usage);
  }
  print_script(*script);
  return 0;
}

}  // namespace

int complete_command_line(const CLI::App& app, Context& context, const std::vector<std::string>& arguments) {
  CompleteArguments parsed;
  std::size_t at = 0;
  if (at < arguments.size() && util::starts_with(arguments[at], "--current=")) {
    parsed.current = arguments[at++].substr(10);
  }
  if (at < arguments.size() && arguments[at] == "--") ++at;
  parsed.words.assign(arguments.begin() + static_cast<std::ptrdiff_t>(at), arguments.end());
  // The store the half-typed command names, if it does.
  for (std::size_t i = 0; i + 1 < parsed.words.size(); ++i) {
    if (parsed.words[i] == "--root") context.root_option = parsed.words[i + 1];
  }
  auto result = run_complete(app, parsed, context);
  return result ? *result : static_cast<int>(result.error().code);
}

void register_completion(CLI::App& app, Context& context) {
  auto shell = std::make_shared<std::string>();
  auto program = std::make_shared<std::string>();
  CLI::App* command =
      app.add_subcommand("completion", "print the tab completion script for bash, zsh, fish or PowerShell");
  command->add_option("shell", *shell, shell::shell_choices(shell::has_completion))->required();
  command->add_option("--command", *program,
                      "ask NAME, found on PATH, instead of this program by its path (the files a package installs)");
  command->footer(
      "'cudnnenv init SHELL' loads it already. By hand:\n  eval \"$(cudnnenv completion bash)\"      # ~/.bashrc\n"
      "  source <(cudnnenv completion zsh)       # ~/.zshrc, after compinit\n"
      "  cudnnenv completion fish | source       # config.fish\n"
      "  cudnnenv completion powershell | Out-String | Invoke-Expression   # $PROFILE");
  command->callback(
      [shell, program, &context] { context.action = [shell, program] { return run_completion(*shell, *program); }; });
}

}  // namespace cudnnenv::cli
