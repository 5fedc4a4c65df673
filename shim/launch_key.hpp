// What a shim launch depends on, as one string, and the cached decision for
// it: the shims' fast path and `cudnnenv exec` (which writes the decision)
// share this code, so both compute the same key.
//
// The key holds everything resolution reads (resolve.hpp): CUDNNENV_VERSION, CUDNNENV_ACTIVATED,
// CUDNNENV_CUDA_RUNTIME, CUDNNENV_VERIFY, CUDA_PATH, CUDA_HOME and CUDA_ROOT (where the toolkit search
// starts), the nearest .cudnnenv.toml by path, size and modification
// time, the size and time of the cudnnenv.lock beside it, the same of the user's config.toml and trust folder (in the
// state folder; the trust folder only with a project file, the one thing trust governs), of the store's own config.toml
// and of the store root (a tree installed or removed changes the root's time). The decision is kept in
// <state>/cache/launch/<hash of key>, beside the key:
//
//   key = <the key, with newlines as '\x1f'>
//   library_dir = /store/tree/lib                 (the cuDNN tree's library folder: Windows' shim pins it)
//   folder = /store/tree/lib                      (one line per pinned tree's library folder, the table's order)
//   folder = /store/cuda-13.0.2/lib
//   program = C:\Python311\python.exe             (Windows: the program it was decided for)
//   identity = <size:mtime of each folder>[|<program's folder's>], when the check before the start passed
//   change = +LD_LIBRARY_PATH=/store/tree/lib      (one line per change of the launch environment, in order:
//   change = =CUDNN_PATH=/store/tree                 `+` puts an entry first on a list, `=` sets, `-` unsets)
//
// The changes are the launch environment `cudnnenv exec` gave the program
// (pin/launch.hpp, LaunchPlan::changes): the fast path applies exactly them,
// so a program started by a shim sees what exec would have given it.
// A folder's time changes when a file in it is deleted, renamed or
// replaced, so a library gone since the check, of any pinned tree, sends the
// shim to the slow path, whose check covers every file (pin_policy.hpp). One
// stat per pinned tree: a file rewritten in place is the slow path's and
// verify's to find, as it is for every sub-library (and whoever can write the
// trees can write this cache too).
//
// Written in the C subset of C++ the launcher links (no C++ library).
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace cudnnenv::shim {

constexpr size_t k_path_max = 4096;
constexpr size_t k_key_max = 16384;

// Text appended to a fixed buffer, always NUL-terminated; `ok` turns false
// for good when something did not fit. (printf's machinery alone would touch
// more pages of the launcher than all of its own work.)
class TextBuffer {
 public:
  TextBuffer(char* data, size_t size);
  TextBuffer& add(const char* text, size_t length);
  TextBuffer& add(const char* text);
  TextBuffer& add(char c) { return add(&c, 1); }
  TextBuffer& add_number(unsigned long long value, unsigned base = 10, int min_digits = 1);
  bool ok() const { return m_ok; }
  size_t size() const { return m_used; }
  // Where the next text goes, and how much fits there (NUL excluded): a
  // function may write straight into the buffer, then keep() what it wrote.
  char* end() { return m_data + m_used; }
  size_t room() const { return m_ok ? m_size - m_used - 1 : 0; }
  TextBuffer& keep(size_t length);

 private:
  char* m_data;
  size_t m_size;
  size_t m_used = 0;
  bool m_ok = true;
};

// "size:mtime" of a file or folder (mtime in the platform's finest unit), or
// false when it does not exist. Paths are UTF-8.
bool file_identity(const char* path, char* out, size_t out_size);
// Whether `path` is a regular file (a link followed), as resolution's
// find_project_file asks: a folder named .cudnnenv.toml is no project file.
bool is_regular_file(const char* path);
// The identity (as file_identity) of a project file as find_project_file
// takes it: a regular file, owned (POSIX) by this user or root; false for
// anything else (another user's file in a shared folder is passed over).
bool project_file_identity(const char* path, char* out, size_t out_size);

// What a decision is valid for: the identities of `folders` (the pinned
// trees' library folders), then of `program`'s folder when it is not empty (a
// file put beside a Windows program changes its folder's time: a copy of a
// DLL there, which the slow path loads past, sends it there), joined by '|'.
bool decision_identity(const char* const* folders, int folder_count, const char* program, char* out, size_t out_size);

// The working folder, UTF-8.
bool working_directory(char* out, size_t out_size);

// An environment variable's value as UTF-8 into `out`; false when unset.
bool environment_value(const char* name, char* out, size_t out_size);

// The key for a launch with store root `root` and this user's state folder
// `state` (where config.toml, trusted/ and the caches are) from the working folder.
bool launch_key(const char* root, const char* state, char* out, size_t out_size);

// FNV-1a (64-bit) of `text`, continuing from `hash`: a cache's key, not a
// check against tampering (whoever can write the files can write the cache).
uint64_t fnv1a(const char* text, uint64_t hash = 14695981039346656037ull);

// <state>/cache/launch/<16 hex digits of the key's FNV-1a hash>.
bool launch_cache_path(const char* state, const char* key, char* out, size_t out_size);

// The state folder a sidecar names (`state = ...`), else <root>/.cudnnenv
// (a sidecar written before there was a state folder).
bool state_folder(const char* sidecar_state, const char* root, char* out, size_t out_size);

// One change of the launch environment: `op` '+' puts `value` first on the
// list `name` (earlier copies of it removed), '=' sets, '-' unsets.
struct EnvironmentChange {
  char op = 0;
  const char* name = "";
  const char* value = "";
};
constexpr int k_changes_max = 64;
// A folder per row of components.inc, and room to spare.
constexpr int k_folders_max = 8;

// The values point into the text they were read from (or, when writing, to
// the caller's strings).
struct LaunchDecision {
  const char* library_dir = "";
  const char* folders[k_folders_max] = {};
  int folder_count = 0;
  const char* program = "";  // empty: any program (Linux)
  const char* identity = "";
  EnvironmentChange changes[k_changes_max];
  int change_count = 0;
};

// Parses a cache file's `text` in place (values are cut out with NULs, so
// `text` needs room for one byte past `size`) and accepts it only when its
// key is `key`, it has at least one change, and the folders (and the
// program's) still have the identity they had when checked.
bool read_decision(char* text, size_t size, const char* key, LaunchDecision& decision);

// The cache file's text for `key` and `decision`; false when it does not fit
// or a name or value has a line break (or a name a '='), or a folder a line break.
bool format_decision(const char* key, const LaunchDecision& decision, char* out, size_t out_size);

}  // namespace cudnnenv::shim
