#include "select/profile.hpp"

#include "store/store.hpp"

#include "formats/toml_text.hpp"
#include "select/project.hpp"
#include "store/component.hpp"
#include "store/spec.hpp"

#include <algorithm>
#include <tuple>

#include <toml++/toml.h>

#include "formats/version.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

#include "profiles.inc"

namespace cudnnenv {

namespace fs = std::filesystem;

Result<std::vector<Profile>> parse_profiles(std::string_view text, const fs::path& origin) {
  CUDNNENV_TRY_ASSIGN(parsed, parse_toml(text, origin, "fix the TOML syntax"));
  const toml::table root = std::move(*parsed);
  std::vector<Profile> profiles;
  const toml::table* table = root["profiles"].as_table();
  if (!table) {
    return profiles;
  }
  for (const auto& [name, node] : *table) {
    const toml::table* entry = node.as_table();
    if (!entry) {
      return make_error(
          toml_place(origin, node.source()) + ": profile '" + std::string(name.str()) + "' must be a table",
          "write [profiles.\"NAME\"] with cudnn = \"...\"");
    }
    // A profile's name is a folder's (profile generate writes <state>/profiles/<name>/): the trees' rule.
    if (auto named = check_tree_name(std::string(name.str())); !named) {
      return make_error(toml_place(origin, name.source()) + ": the profile name '" +
                            util::printable(std::string(name.str())) + "' cannot be a folder name",
                        "a profile's name is a folder's on every OS: none of / \\ : * ? \" < > |, no line breaks, "
                        "not starting with '.' nor ending with a space");
    }
    Profile profile;
    profile.name = std::string(name.str());
    profile.framework = entry->get_as<std::string>("framework") ? **entry->get_as<std::string>("framework") : "";
    profile.cudnn = entry->get_as<std::string>("cudnn") ? **entry->get_as<std::string>("cudnn") : "";
    profile.cuda = entry->get_as<std::string>("cuda") ? **entry->get_as<std::string>("cuda") : "";
    if (profile.cudnn.empty() || !parse_version(profile.cudnn)) {
      return make_error(
          toml_place(origin, entry->source()) + ": profile '" + profile.name + "' needs cudnn = \"<version>\"",
          "for example cudnn = \"8.1\"");
    }
    if (const toml::array* platforms = entry->get_as<toml::array>("platforms")) {
      for (const auto& platform : *platforms) {
        const std::string value = platform.value_or(std::string());
        profile.platforms.push_back(value == "windows" ? Os::windows : Os::linux);
      }
    }
    if (profile.platforms.empty()) {
      profile.platforms = {Os::linux, Os::windows};
    }
    for (const auto& [key, list] : {std::pair{"windows_libraries", &profile.windows_libraries},
                                    std::pair{"linux_libraries", &profile.linux_libraries}}) {
      const toml::node* node = entry->get(key);
      if (!node) continue;
      const toml::array* names = node->as_array();
      if (!names) {
        return make_error(toml_place(origin, node->source()) + ": " + key + " must be an array of file names",
                          "for example " + std::string(key) + " = [\"cudart64_110.dll\"]");
      }
      for (const auto& name : *names) {
        const std::string value = name.value_or(std::string());
        if (value.empty() || value.find_first_of("/\\:") != std::string::npos || value.size() > 128) {
          return make_error(toml_place(origin, name.source()) + ": " + key + " holds a file name, not a path",
                            "write the library's name as the framework opens it, e.g. cublas64_11.dll");
        }
        list->push_back(value);
      }
    }
    for (const ComponentRow* row : named_rows()) {
      const toml::node* node = entry->get(row->json_key);
      if (!node) continue;
      const auto release = node->value<std::string>();
      if (!release || !parse_version(*release + (release->find('.') == std::string::npos ? ".0" : ""))) {
        return make_error(toml_place(origin, node->source()) + ": " + std::string(row->json_key) +
                              " must be the release of " + std::string(row->noun) + " the framework opens",
                          "for example " + std::string(row->json_key) + " = \"7\"");
      }
      profile.components[row->kind] = *release;
    }
    if (const toml::table* env = entry->get_as<toml::table>("env")) {
      for (const auto& [key, value] : *env) {
        CUDNNENV_TRY(check_variable_name(key.str(), toml_place(origin, key.source())));
        profile.env.emplace_back(std::string(key.str()), value.value_or(std::string()));
      }
    }
    profiles.push_back(std::move(profile));
  }
  return profiles;
}

Result<std::vector<Profile>> all_profiles(Os os, const std::vector<fs::path>& config_files) {
  std::vector<Profile> candidates;
  for (const auto& [file, text] : k_builtin_profiles) {
    auto parsed = parse_profiles(text, fs::path("profiles") / file);
    if (!parsed) {
      return std::move(parsed).error();  // the unit tests parse every built-in file: this cannot ship
    }
    candidates.insert(candidates.end(), parsed->begin(), parsed->end());
  }
  for (const fs::path& config_file : config_files) {
    std::error_code ec;
    if (!fs::exists(config_file, ec)) continue;
    CUDNNENV_TRY_ASSIGN(text, util::read_file(config_file, k_max_settings_file));
    CUDNNENV_TRY_ASSIGN(parsed, parse_profiles(*text, config_file));
    for (auto& profile : *parsed) {
      std::erase_if(candidates, [&](const Profile& other) { return other.name == profile.name; });
      candidates.push_back(std::move(profile));
    }
  }
  std::vector<Profile> found;
  for (auto& profile : candidates) {
    if (std::find(profile.platforms.begin(), profile.platforms.end(), os) != profile.platforms.end()) {
      found.push_back(std::move(profile));
    }
  }
  // tf2.4 before tf2.10, torch2.5-cu121 before torch2.5-cu124: the first
  // number compared as a version, then the rest as text.
  auto key = [](const std::string& name) {
    const auto digit = name.find_first_of("0123456789");
    if (digit == std::string::npos) return std::tuple{name, Version{}, std::string()};
    const auto end = std::min(name.size(), name.find_first_not_of("0123456789.", digit));
    const std::string number = name.substr(digit, end - digit);
    auto version = parse_version(number);
    if (!version) version = parse_version(number + ".0");
    return std::tuple{name.substr(0, digit), version.value_or(Version{}), name.substr(end)};
  };
  std::stable_sort(found.begin(), found.end(),
                   [&](const Profile& a, const Profile& b) { return key(a.name) < key(b.name); });
  return found;
}

Result<Profile> find_profile(const std::string& name, Os os, const std::vector<fs::path>& config_files) {
  CUDNNENV_TRY_ASSIGN(profiles, all_profiles(os, config_files));
  std::string closest;
  std::size_t best = 3;
  std::vector<std::string> longer;  // "torch2.5": torch2.5-cu121, torch2.5-cu124
  for (const auto& profile : *profiles) {
    if (profile.name == name) {
      return profile;
    }
    if (!name.empty() && util::starts_with(profile.name, name + "-")) longer.push_back("'" + profile.name + "'");
    if (const std::size_t distance = util::edit_distance(name, profile.name); distance < best) {
      best = distance;
      closest = profile.name;
    }
  }
  std::string hint = "'cudnnenv profile list' shows them";
  if (!longer.empty()) {
    const std::string last = longer.back();
    longer.pop_back();
    hint = "did you mean " + (longer.empty() ? last : util::join(longer, ", ") + " or " + last) + "?";
  } else if (!closest.empty()) {
    hint = "did you mean '" + closest + "'?";
  }
  return make_error("there is no profile '" + name + "' for " + std::string(os == Os::windows ? "Windows" : "Linux"),
                    hint, ExitCode::not_found);
}

std::optional<ProfileFit> satisfying_tree(const Profile& profile, const std::vector<TreeRecord>& trees) {
  const auto wanted = parse_version(profile.cudnn);
  const auto cuda = parse_cuda_version(profile.cuda);
  if (!wanted) {
    return std::nullopt;
  }
  const auto spec = parse_spec(profile.cudnn);  // the one matcher: whole components
  const auto same_cudnn = [&](const TreeRecord& tree) { return spec && fits(*spec, tree); };
  // The tested pair's CUDA is what the tree serves (a cuda12 tree built with 12.9 serves 12.5).
  const auto same_cuda = [&](const TreeRecord& tree) { return !cuda || !tree.cuda || serves_cuda(tree, *cuda); };
  std::optional<ProfileFit> best;
  auto rank = [&](const TreeRecord& tree) { return std::tuple{same_cudnn(tree), same_cuda(tree), tree.version}; };
  for (const auto& tree : trees) {
    const bool same_major = tree.version.major == wanted->major;
    const bool minor_ok = tree.version.minor >= wanted->minor;
    const bool cuda_ok = !cuda || !tree.cuda || tree.cuda->major == cuda->major;
    if (same_major && minor_ok && cuda_ok && (!best || rank(best->tree) < rank(tree))) {
      best = ProfileFit{tree, same_cudnn(tree) && same_cuda(tree)};
    }
  }
  return best;
}

std::string untested_warning(const Profile& profile, const ProfileFit& fit) {
  return profile.name + " (" + profile.framework + ") was tested with cuDNN " + profile.cudnn + " and CUDA " +
         profile.cuda + ", which is not installed; using '" + fit.tree.name + "' (cuDNN " + fit.tree.version.str() +
         (fit.tree.cuda ? ", CUDA " + fit.tree.cuda->str() : std::string()) +
         "), which it accepts (hint: install the tested pair: cudnnenv install " + profile.cudnn + " --cuda " +
         profile.cuda + ")";
}

}  // namespace cudnnenv
