// The names under the store root and the state folder that the shim's fast
// path (launch_key.cpp, no C++ library) and the manager (store/state.hpp)
// must agree on. Plain C strings: the shim joins them itself.
#pragma once

namespace cudnnenv::layout {

// A project's file, looked for from the working folder up.
inline constexpr char k_project_file[] = ".cudnnenv.toml";
// The project's lock, beside its project file (select/lock.hpp).
inline constexpr char k_lock_file[] = "cudnnenv.lock";
// The store's own folder under its root: its config.toml (a shared store's
// default), staging, locks, trash.
inline constexpr char k_own_folder[] = ".cudnnenv";
// Under a state folder (and, for k_config_file, under the own folder).
inline constexpr char k_config_file[] = "config.toml";
inline constexpr char k_trust_folder[] = "trusted";
inline constexpr char k_cache_folder[] = "cache";
inline constexpr char k_launch_cache_folder[] = "launch";  // under k_cache_folder

}  // namespace cudnnenv::layout
