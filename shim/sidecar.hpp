// The NAME.shim file beside a launcher (as scoop's shims have), written by
// `cudnnenv shim add`:
//
//   cudnnenv = /opt/cudnnenv/bin/cudnnenv  # for the slow path: `cudnnenv exec`
//   root = /home/me/.local/share/cudnnenv  # the store the shim belongs to
//   audit = /opt/cudnnenv/bin/libcudnnenv-audit.so   # Linux: the LD_AUDIT module
//   path = /usr/bin/python3            # optional: the program to start (else NAME on PATH, shims skipped)
//   args = -X utf8                     # optional, inserted before the user's arguments
//   cudnn = 9.19.0.56-cuda13           # optional: always `cudnnenv exec --cudnn TREE`, a launcher
//                                      # pinned to one tree or profile (export launcher, vscode, jupyter)
//   runtime = cuda-12.4.1              # optional, with cudnn: and `--runtime NAME`; a key per row of
//   nccl = nccl-2.26.2                 # components.inc beside cuDNN (its JSON key): `--nccl NAME`
//
// Lines are `key = value`; '#' starts a comment line; unknown keys are errors.
// Every start is what `cudnnenv exec` decides (its recorded decision, or
// exec itself): a sidecar names no library folder of its own. One that does
// (`library_dir = `, written before there was one start) is refused with the
// command that writes it again.
// Kept free of the C++ library's heavier parts: the launcher starts before
// every python and must cost no more than one extra exec.
#pragma once

#include <stddef.h>

#include "components.inc"

namespace cudnnenv::shim {

// The rows of components.inc, and each row's sidecar key (its JSON key) and
// the `cudnnenv exec` flag that names its tree ("runtime", "--runtime");
// the first row's (cuDNN's: `cudnn = ...`) are not used.
#define CUDNNENV_SIDECAR_ROW(...) +1
inline constexpr int k_component_rows = 0 CUDNNENV_COMPONENTS(CUDNNENV_SIDECAR_ROW);
#undef CUDNNENV_SIDECAR_ROW
#define CUDNNENV_SIDECAR_KEY(kind, noun, short_noun, json_key, ...) json_key,
inline constexpr const char* k_beside_keys[] = {CUDNNENV_COMPONENTS(CUDNNENV_SIDECAR_KEY)};
#undef CUDNNENV_SIDECAR_KEY
#define CUDNNENV_SIDECAR_FLAG(kind, noun, short_noun, json_key, ...) "--" json_key,
inline constexpr const char* k_beside_flags[] = {CUDNNENV_COMPONENTS(CUDNNENV_SIDECAR_FLAG)};
#undef CUDNNENV_SIDECAR_FLAG

// Each value points into the parsed text; a missing key is "".
struct Sidecar {
  char* path;
  char* args;
  char* cudnnenv;
  char* root;
  char* audit;
  char* state;  // this user's state folder; "" in sidecars written before it (then <root>/.cudnnenv)
  char* cudnn;  // a tree every start is pinned to through `cudnnenv exec --cudnn`; "" for a shim of the selection
  // With `cudnn`: the tree named beside it of each row after the first
  // (beside[1], `runtime =`: the CUDA runtime, `--runtime`); "" for the row's rule.
  char* beside[k_component_rows];
};

// Parses `text` (`size` bytes, UTF-8) in place: each value is cut out with a
// NUL where its line ends, so `text` must have room for one byte past `size`
// and outlive `sidecar`. (No copies: each buffer the launcher fills is a page
// the kernel must fault in at every start.) On failure returns false and
// writes a one-line reason into `error`; `name` is the shim's (the fix of an
// old sidecar names it).
bool parse_sidecar(char* text, size_t size, Sidecar& sidecar, char* error, size_t error_size, const char* name);

}  // namespace cudnnenv::shim
