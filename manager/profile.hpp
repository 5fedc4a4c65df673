// Framework profiles: a name (tf2.5) for a cuDNN version, a CUDA version and
// variables, from the data files under profiles/ (embedded at build time).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "platform.hpp"
#include "result.hpp"
#include "tree.hpp"

namespace cudnnenv {

struct Profile {
  std::string name;       // "tf2.5"
  std::string framework;  // "TensorFlow 2.5"
  std::vector<Os> platforms;
  std::string cudnn;      // a spec: "8.1"
  std::string cuda;       // "11.2"
  std::vector<std::pair<std::string, std::string>> env;
};

// Parses `[profile."NAME"]` tables; errors name `origin`:line:col.
Result<std::vector<Profile>> parse_profiles(std::string_view text, const std::filesystem::path& origin);

// The built-in profiles (profiles/*.toml) for `os`.
std::vector<Profile> builtin_profiles(Os os);

// The built-in profile `name` for `os`; an error with the closest names when there is none.
Result<Profile> find_profile(const std::string& name, Os os);

// The tree that runs what `profile` was built for: the newest installed one
// of the same major cuDNN version and the same or a higher minor (what
// TensorFlow accepts), built for the profile's CUDA major when it says.
std::optional<TreeRecord> satisfying_tree(const Profile& profile, const std::vector<TreeRecord>& trees);

}  // namespace cudnnenv
