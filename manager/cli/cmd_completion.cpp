// `cudnnenv completion SHELL`: the tab completion script; and
// `cudnnenv __complete --current=WORD -- WORDS...`, which those scripts call: the
// candidates for WORD after WORDS (the command line after the program's
// name), one per line, read from the registered commands and options and
// from the store (tree names, versions, profiles).
#include <algorithm>
#include <set>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "pin/launch.hpp"
#include "pin/pin_policy.hpp"
#include "select/profile.hpp"
#include "shell/init.hpp"
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

std::vector<std::string> option_names(const CLI::App& scope) {
  std::vector<std::string> names;
  for (const CLI::Option* option : scope.get_options()) {
    if (option->get_group().empty() || option->get_positional()) continue;  // hidden, or a positional
    for (const auto& name : option->get_lnames()) names.push_back("--" + name);
  }
  return names;
}

std::vector<std::string> subcommand_names(const CLI::App& scope) {
  std::vector<std::string> names;
  for (const CLI::App* sub : scope.get_subcommands([](const CLI::App*) { return true; })) {
    if (!sub->get_group().empty()) names.push_back(sub->get_name());
  }
  return names;
}

// What a spec can be here: installed trees' names and versions, this platform's profiles.
std::vector<std::string> specs(const Context& context) {
  std::vector<std::string> names;
  std::set<std::string> versions;
  for (const auto& tree : context.store().list(RecordPart::identity).trees) {
    names.push_back(tree.name);
    versions.insert(std::to_string(tree.version.major) + "." + std::to_string(tree.version.minor));
    versions.insert(tree.version.str());
  }
  std::sort(names.begin(), names.end());
  names.insert(names.end(), versions.begin(), versions.end());
  if (auto profiles = all_profiles(host_platform().os, config_files(context.store()))) {
    for (const auto& profile : *profiles) names.push_back(profile.name);
  }
  return names;
}

std::vector<std::string> profile_names(const Context& context) {
  std::vector<std::string> names;
  if (auto profiles = all_profiles(host_platform().os, config_files(context.store()))) {
    for (const auto& profile : *profiles) names.push_back(profile.name);
  }
  return names;
}

std::vector<std::string> candidates(const CLI::App& app, const Context& context, const CompleteArguments& arguments) {
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
  if (after_dashes || (command == "exec" && !positionals.empty())) {
    return {};  // the program and its arguments: the shell's own completion
  }
  if (!previous.empty() && util::starts_with(previous, "-") && previous.find('=') == std::string::npos &&
      (takes_value(*scope, previous) || takes_value(app, previous))) {
    if (previous == "--cudnn") return specs(context);
    if (previous == "--shell") return shell::shell_names();
    if (previous == "--verify") return util::names_of(k_launch_policies);
    if (previous == "--mode") return util::names_of(k_pin_modes);
    if (previous == "--level") return util::names_of(k_verify_levels);
    return {};  // a path or a number
  }
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
  if (!positionals.empty()) return {};
  if (command == "use" || command == "remove" || command == "verify" || command == "activate" || command == "which" ||
      command == "current") {
    return specs(context);
  }
  if (command == "show" || command == "generate") return profile_names(context);
  if (command == "init") return shell::shell_names();
  if (command == "completion") return shell::shell_names(shell::has_completion);
  if (command == "deinit") return {"cmd"};
  return {};
}

Result<int> run_complete(const CLI::App& app, const CompleteArguments& arguments, const Context& context) {
  std::set<std::string> seen;
  for (const auto& candidate : candidates(app, context, arguments)) {
    if (util::starts_with(candidate, arguments.current) && seen.insert(candidate).second) {
      // One per line, and shown by the shell: a name with a control byte (a line break, an escape
      // sequence) cannot be typed anyway; leave it out.
      if (util::printable(candidate) == candidate) print_script(candidate + "\n");
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
