// The NAME.shim file beside a launcher (as scoop's shims have): which
// program to start and which tree's library folder to put first.
//
//   path = /usr/bin/python3            # the program to start
//   library_dir = /store/tree/lib      # the pinned tree's library folder
//   args = -X utf8                     # optional, inserted before the user's arguments
//
// Lines are `key = value`; '#' starts a comment line; unknown keys are errors.
// Kept free of the C++ library's heavier parts: the launcher starts before
// every python and must cost no more than one extra exec.
#pragma once

#include <cstddef>

namespace cudnnenv::shim {

struct Sidecar {
  char path[4096] = {};
  char library_dir[4096] = {};
  char args[4096] = {};
};

// Parses `text` (`size` bytes, UTF-8). On failure returns false and writes a
// one-line reason into `error`.
bool parse_sidecar(const char* text, std::size_t size, Sidecar& sidecar, char* error, std::size_t error_size);

}  // namespace cudnnenv::shim
