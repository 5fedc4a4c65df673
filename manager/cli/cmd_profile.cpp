#include <filesystem>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "integrate/change.hpp"
#include "select/profile.hpp"
#include "select/resolve.hpp"
#include "shell/init.hpp"
#include "shell/quote.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv::cli {

namespace fs = std::filesystem;

namespace {

struct ProfileArguments {
  std::string name;
  bool json = false;
};

std::vector<fs::path> profile_config_files(const Context& context) {
  return config_files(context.store());
}

Json profile_json(const Profile& profile, const std::optional<ProfileFit>& fit) {
  Json env = Json::object();
  for (const auto& [name, value] : profile.env) {
    env[name] = value;
  }
  Json result{{"name", profile.name},         {"framework", profile.framework},
              {"cudnn", profile.cudnn},       {"cuda", profile.cuda},
              {"env", std::move(env)},        {"tree", fit ? Json(fit->tree.name) : Json(nullptr)},
              {"satisfied", fit.has_value()}, {"tested_pair", fit ? Json(fit->tested) : Json(nullptr)}};
  for (const auto& [kind, release] : profile.components) result[std::string(component(kind).json_key)] = release;
  return result;
}

Result<int> run_list(const ProfileArguments& arguments, const Context& context) {
  const auto trees = context.store().list(RecordPart::identity).trees;
  CUDNNENV_TRY_ASSIGN(profiles, all_profiles(host_platform().os, profile_config_files(context)));
  Json array = Json::array();
  std::vector<std::vector<std::string>> rows = {{"", "PROFILE", "CUDNN", "CUDA", "RUNS ON"}};
  std::size_t runs = 0;
  std::string first_missing;
  for (const auto& profile : *profiles) {
    const auto fit = satisfying_tree(profile, trees);
    if (arguments.json) {
      array.push_back(profile_json(profile, fit));
      continue;
    }
    if (fit) ++runs;
    if (!fit && first_missing.empty()) first_missing = profile.name;
    rows.push_back(
        {fit ? "*" : "", profile.name, profile.cudnn, profile.cuda,
         fit ? fit->tree.name + " (" + fit->tree.version.str() + (fit->tested ? ")" : ", not the tested pair)")
             : std::string("-")});
  }
  if (arguments.json) {
    print_json(array);
    return 0;
  }
  print_table(rows);
  print("* = an installed tree runs it: " + std::to_string(runs) + " of " + std::to_string(profiles->size()) +
        (first_missing.empty() ? std::string()
                               : "; 'cudnnenv install " + util::command_word(first_missing) + "' installs what " +
                                     first_missing + " needs") +
        "\n");
  return 0;
}

Result<int> run_show(const ProfileArguments& arguments, const Context& context) {
  CUDNNENV_TRY_ASSIGN(profile, find_profile(arguments.name, host_platform().os, profile_config_files(context)));
  const auto fit = satisfying_tree(*profile, context.store().list(RecordPart::identity).trees);
  if (arguments.json) {
    print_json(profile_json(*profile, fit));
    return 0;
  }
  std::string text = profile->name + ": " + profile->framework + "\n  cuDNN " + profile->cudnn +
                     " (or a newer minor of the same major)\n  CUDA  " + profile->cuda + "\n";
  for (const auto& [kind, release] : profile->components) {
    text += "  " + std::string(component(kind).noun) + " " + release + " (selected beside it where installed)\n";
  }
  for (const auto& [name, value] : profile->env) {
    text += "  " + name + "=" + value + "\n";
  }
  if (fit) {
    text += "  runs on the installed tree '" + fit->tree.name + "' (cuDNN " + fit->tree.version.str() +
            (fit->tested ? ", the tested pair)\n" : "; not the tested pair)\n");
  } else {
    const Error none = no_tree_for(*profile);
    text += "  " + none.message + "\n  " + none.hint + "\n";
  }
  print(text);
  return 0;
}

// Static scripts that call cudnnenv by its full path, so that a plain
// shell with no integration can activate: `call ...\tf2.5\activate.bat`.
Result<int> run_generate(const ProfileArguments& arguments, const Context& context) {
  const Store& store = context.store();
  const auto trees = store.list(RecordPart::identity).trees;
  const std::string program = util::to_utf8(util::current_executable());
  const std::string root =
      util::to_utf8(store.root());  // the scripts belong to this store, whatever CUDNNENV_ROOT says
  std::vector<Profile> profiles;
  if (arguments.name.empty()) {
    CUDNNENV_TRY_ASSIGN(all, all_profiles(host_platform().os, profile_config_files(context)));
    profiles = std::move(*all);
  } else {
    CUDNNENV_TRY_ASSIGN(profile, find_profile(arguments.name, host_platform().os, profile_config_files(context)));
    profiles.push_back(*profile);
  }
  using shell::quote;
  using shell::Shell;
  int written = 0;
  for (const auto& profile : profiles) {
    if (!satisfying_tree(profile, trees)) {
      if (!arguments.name.empty()) {
        return no_tree_for(profile);
      }
      continue;
    }
    const fs::path folder = store.state().profile_scripts(profile.name);
    CUDNNENV_TRY_ASSIGN(program_line, context.program_batch_line(folder, "_CUDNNENV_EXE"));
    const auto apply = [&](Shell shell, const std::string& arguments) {
      return shell::apply_command(shell, program, root, arguments);
    };
    const std::vector<std::pair<std::string, std::string>> files = {
        {"activate.sh", "# source this file: . activate.sh\n" +
                            apply(Shell::bash, "activate " + quote(Shell::bash, profile.name) + " --by profile")},
        {"deactivate.sh", apply(Shell::bash, "deactivate")},
        {"activate.fish", apply(Shell::fish, "activate " + quote(Shell::fish, profile.name) + " --by profile")},
        {"deactivate.fish", apply(Shell::fish, "deactivate")},
        {"activate.ps1",
         apply(Shell::powershell, "activate " + quote(Shell::powershell, profile.name) + " --by profile")},
        {"deactivate.ps1", apply(Shell::powershell, "deactivate")},
        {"activate.bat", shell::profile_batch(*program_line, "activate")},
        {"deactivate.bat", shell::profile_batch(*program_line, "deactivate")},
    };
    CUDNNENV_TRY(write_files(folder, files));
    print("wrote " + util::to_utf8(folder) + " (activate and deactivate for sh, fish, ps1, bat)\n");
    ++written;
  }
  if (written == 0) {
    print("no profile can be satisfied by the installed trees ('cudnnenv profile list')\n");
  }
  return 0;
}

}  // namespace

void register_profile(CLI::App& app, Context& context) {
  CLI::App* profile = app.add_subcommand("profile", "framework profiles: tf2.5 means cuDNN 8.1, CUDA 11.2, ...");
  profile->require_subcommand(1);
  auto list_arguments = std::make_shared<ProfileArguments>();
  CLI::App* list =
      profile->add_subcommand("list", "each profile for this platform, and the installed tree that runs it");
  list->add_flag("--json", list_arguments->json, "print them as a JSON array");
  list->callback([list_arguments, &context] {
    context.action = [list_arguments, &context] { return run_list(*list_arguments, context); };
  });
  auto show_arguments = std::make_shared<ProfileArguments>();
  CLI::App* show = profile->add_subcommand("show", "one profile: versions, variables, the tree that runs it");
  show->add_option("name", show_arguments->name, "the profile (tf2.5)")->required();
  show->add_flag("--json", show_arguments->json, "print the profile as JSON");
  show->callback([show_arguments, &context] {
    context.action = [show_arguments, &context] { return run_show(*show_arguments, context); };
  });
  auto generate_arguments = std::make_shared<ProfileArguments>();
  CLI::App* generate = profile->add_subcommand(
      "generate", "write activate/deactivate scripts for every shell under <root>/.cudnnenv/profiles/NAME/");
  generate->add_option("name", generate_arguments->name, "one profile (default: every one an installed tree runs)");
  generate->callback([generate_arguments, &context] {
    context.action = [generate_arguments, &context] { return run_generate(*generate_arguments, context); };
  });
}

}  // namespace cudnnenv::cli
