// What a shim launch depends on, as one string, and the cached decision for
// it: the shims' fast path and `cudnnenv exec` (which writes the decision)
// share this code, so both compute the same key.
//
// The key holds everything resolution reads (resolve.hpp): CUDNNENV_VERSION, CUDNNENV_ACTIVATED,
// CUDNNENV_VERIFY, the nearest .cudnnenv.toml by path, size and modification
// time, the same of the user's config.toml and trust folder (in the state
// folder), of the store's own config.toml and of the store root (a tree
// installed or removed changes the root's time). The decision is kept in
// <state>/cache/launch/<hash of key>, beside the key:
//
//   key = <the key, with newlines as '\x1f'>
//   library_dir = /store/tree/lib
//   library = /store/tree/lib/libcudnn.so.9
//   library_id = <size:mtime of library>|<size:mtime of library_dir>, when the check before the start passed
//
// The folder's time changes when a file in it is deleted, renamed or
// replaced, so a sub-library gone since the check sends the shim to the slow
// path, whose check covers every file (pin_policy.hpp).
//
// Written in the C subset of C++ the launcher links (no C++ library).
#pragma once

#include <cstddef>
#include <cstdint>

namespace cudnnenv::shim {

constexpr std::size_t k_path_max = 4096;
constexpr std::size_t k_key_max = 16384;

// Text appended to a fixed buffer, always NUL-terminated; `ok` turns false
// for good when something did not fit. (printf's machinery alone would touch
// more pages of the launcher than all of its own work.)
class TextBuffer {
 public:
  TextBuffer(char* data, std::size_t size);
  TextBuffer& add(const char* text, std::size_t length);
  TextBuffer& add(const char* text);
  TextBuffer& add(char c) { return add(&c, 1); }
  TextBuffer& add_number(unsigned long long value, unsigned base = 10, int min_digits = 1);
  bool ok() const { return m_ok; }
  std::size_t size() const { return m_used; }

 private:
  char* m_data;
  std::size_t m_size;
  std::size_t m_used = 0;
  bool m_ok = true;
};

// "size:mtime" of a file or folder (mtime in the platform's finest unit), or
// false when it does not exist. Paths are UTF-8.
bool file_identity(const char* path, char* out, std::size_t out_size);
// Whether `path` is a regular file (a link followed), as resolution's
// find_project_file asks: a folder named .cudnnenv.toml is no project file.
bool is_regular_file(const char* path);
// A project file as find_project_file takes it: a regular file, owned (POSIX)
// by this user or root; another user's file in a shared folder is passed over.
bool is_project_file(const char* path);

// What a decision is valid for: "<library identity>|<library_dir identity>".
bool decision_identity(const char* library, const char* library_dir, char* out, std::size_t out_size);

// The working folder, UTF-8.
bool working_directory(char* out, std::size_t out_size);

// An environment variable's value as UTF-8 into `out`; false when unset.
bool environment_value(const char* name, char* out, std::size_t out_size);

// The key for a launch with store root `root` and this user's state folder
// `state` (where config.toml, trusted/ and the caches are) from the working folder.
bool launch_key(const char* root, const char* state, char* out, std::size_t out_size);

// FNV-1a (64-bit) of `text`, continuing from `hash`: a cache's key, not a
// check against tampering (whoever can write the files can write the cache).
std::uint64_t fnv1a(const char* text, std::uint64_t hash = 14695981039346656037ull);

// <state>/cache/launch/<16 hex digits of the key's FNV-1a hash>.
bool launch_cache_path(const char* state, const char* key, char* out, std::size_t out_size);

// The state folder a sidecar names (`state = ...`), else <root>/.cudnnenv
// (a sidecar written before there was a state folder).
bool state_folder(const char* sidecar_state, const char* root, char* out, std::size_t out_size);

// The values point into the text they were read from (or, when writing, to
// the caller's strings).
struct LaunchDecision {
  const char* library_dir = "";
  const char* library = "";
  const char* library_id = "";
};

// Parses a cache file's `text` in place (values are cut out with NULs, so
// `text` needs room for one byte past `size`) and accepts it only when its
// key is `key` and the library still has the identity it had when checked.
bool read_decision(char* text, std::size_t size, const char* key, LaunchDecision& decision);

// The cache file's text for `key` and `decision`.
bool format_decision(const char* key, const LaunchDecision& decision, char* out, std::size_t out_size);

}  // namespace cudnnenv::shim
