// Framework profiles: a name (tf2.5) for a cuDNN version, a CUDA version and
// variables, from the data files under profiles/ (embedded at build time).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "formats/platform.hpp"
#include "store/tree.hpp"
#include "util/result.hpp"

namespace cudnnenv {

struct Profile {
  std::string name;       // "tf2.5"
  std::string framework;  // "TensorFlow 2.5"
  std::vector<Os> platforms;
  std::string cudnn;  // a spec: "8.1"
  std::string cuda;   // "11.2"
  std::vector<std::pair<std::string, std::string>> env;
  // The CUDA runtime libraries the framework opens by name besides cuDNN, per
  // OS (`windows_libraries`, `linux_libraries`); empty where not known.
  std::vector<std::string> windows_libraries;
  std::vector<std::string> linux_libraries;
  // tensorrt = "7": the release of a row beside cuDNN (named_rows) that the
  // framework opens by name where known (TensorFlow 2.4-2.11: libnvinfer.so.7).
  std::map<TreeKind, std::string> components;

  const std::vector<std::string>& runtime_libraries(Os os) const {
    return os == Os::windows ? windows_libraries : linux_libraries;
  }
};

// Parses `[profiles."NAME"]` tables (other keys are left to their owner);
// errors name `origin`:line:col. A profile without `platforms` is for every
// platform.
Result<std::vector<Profile>> parse_profiles(std::string_view text, const std::filesystem::path& origin);

// The profiles for `os`: the built-in ones (profiles/*.toml), then those of
// each of `config_files` in turn (EffectiveConfig::profile_files: a shared
// store's, then the user's), each replacing one of the same name. A broken
// config file is an error; a missing one has none.
Result<std::vector<Profile>> all_profiles(Os os, const std::vector<std::filesystem::path>& config_files);

// Profile `name` among those; an error with the closest name when there is none.
Result<Profile> find_profile(const std::string& name, Os os, const std::vector<std::filesystem::path>& config_files);

// An installed tree that runs what a profile was built for.
struct ProfileFit {
  TreeRecord tree;
  // The pair the framework was tested with: the profile's cuDNN version
  // (whole components) and its CUDA version (major.minor, when the tree says).
  bool tested = false;
};

// The tree that runs what `profile` was built for: the tested pair when it is
// installed; else the newest of the same major cuDNN version and the same or
// a higher minor (what TensorFlow accepts), built for the profile's CUDA major
// when it says. Among fits, the profile's cuDNN version before a newer minor,
// then its CUDA minor, then the newest.
std::optional<ProfileFit> satisfying_tree(const Profile& profile, const std::vector<TreeRecord>& trees);

// The warning when `fit` is not the tested pair, naming it.
std::string untested_warning(const Profile& profile, const ProfileFit& fit);

}  // namespace cudnnenv
