// Jupyter kernelspecs that start a Python pinned to one tree: kernel.json
// whose argv runs `cudnnenv exec --cudnn TREE -- PYTHON -m ipykernel_launcher
// -f {connection_file}`, so Jupyter, VS Code's notebooks and every other
// client of jupyter_client start each kernel through the pin and its check.
// Where kernelspecs live is jupyter_core's rule (jupyter_data_dir), the JSON
// is written by the JSON library, and a kernelspec cudnnenv wrote says so in
// its metadata: removal deletes nothing else.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/platform.hpp"
#include "integrate/change.hpp"
#include "integrate/launcher.hpp"
#include "select/resolve.hpp"
#include "util/environment.hpp"
#include "util/result.hpp"

namespace cudnnenv {

struct KernelSpec {
  std::string name;          // the kernelspec's folder: [A-Za-z0-9._-]+
  std::string display_name;  // what the notebook's kernel picker shows
  std::vector<std::string> argv;
  std::string tree;     // the cuDNN tree the kernel is pinned to
  std::string runtime;  // the CUDA runtime tree selected with it at export, or empty
  std::string store;    // the store root the argv names
};

// The argv of a pinned kernel: `cudnnenv --root STORE exec --cudnn SPEC
// [--runtime RUNTIME] [--nccl NCCL] -- PYTHON -m ipykernel_launcher -f
// {connection_file}` (SPEC: the tree, or the profile that chose it; the
// others: the trees named at export).
std::vector<std::string> pinned_kernel_argv(const std::filesystem::path& cudnnenv, const std::string& store,
                                            const std::string& spec, const BesideNames& beside,
                                            const std::filesystem::path& python);

// kernel.json's text (two-space indented, as `jupyter kernelspec install` writes it).
std::string kernel_json(const KernelSpec& spec);

// Whether `text` is a kernel.json that cudnnenv wrote (its metadata says
// so); false for anything else, malformed or not.
bool written_by_cudnnenv(const std::string& text);

// jupyter_client's rule for a kernel name: letters, digits, '.', '_', '-'.
bool is_valid_kernel_name(const std::string& name);

// "cudnnenv-" and the tree's name in the letters a kernel name may hold
// (every other byte becomes '_'), lower-case as jupyter_client lists names.
std::string default_kernel_name(const std::string& tree);

// A VS Code workspace's settings.json (`existing`: its text, empty when
// there is none) with `python.defaultInterpreterPath` set to `launcher` and
// CUDNNENV_VERSION=`tree` in the integrated terminals' environment for `os`;
// every other key kept, in its order. Fails, changing nothing, for a text
// that is not a plain JSON object (VS Code also reads comments and trailing
// commas, which a rewrite would lose), nested too deep, or not UTF-8.
Result<std::string> merged_vscode_settings(std::string_view existing, const std::string& launcher,
                                           const std::string& tree, Os os);

// Where kernelspecs go: with `prefix`, PREFIX/share/jupyter/kernels;
// else the user's jupyter_data_dir()/kernels: JUPYTER_DATA_DIR, else on
// Windows %APPDATA%\jupyter, elsewhere XDG_DATA_HOME/jupyter or
// ~/.local/share/jupyter. Fails when no such folder can be named.
Result<std::filesystem::path> kernels_folder(const util::Environment& environment, Os os,
                                             const std::optional<std::filesystem::path>& prefix);

// The kernelspec pinning `python` to what `pin` names of `selection`, run by
// `program` from the store `root`: named `name` (else default_kernel_name of
// the tree), shown as `display_name` (else "Python 3 (cuDNN 9.19.0, CUDA
// 13.0.2 runtime, cudnnenv 'TREE')"). Fails for a path or name that is not
// the UTF-8 text kernel.json must hold.
Result<KernelSpec> pinned_kernel(const Selection& selection, const Pin& pin, const std::filesystem::path& program,
                                 const std::string& root, const std::filesystem::path& python, const std::string& name,
                                 const std::string& display_name);

// Writes `spec` as `folder`/NAME/kernel.json, unless a kernel of that name
// that cudnnenv did not write is there; `prefix` (an env's folder): never
// through a link inside it.
Result<FileChange> write_kernel(const std::filesystem::path& folder, const std::optional<std::filesystem::path>& prefix,
                                const KernelSpec& spec);

// Removes the kernel `name` from `folder` when cudnnenv wrote it.
Result<FileChange> remove_kernel(const std::filesystem::path& folder,
                                 const std::optional<std::filesystem::path>& prefix, const std::string& name);

// Merges the launcher and the tree its terminals select into
// `workspace`/.vscode/settings.json (merged_vscode_settings). check_vscode_settings
// runs the same checks first, so that a refusal comes before a launcher is made.
Result<void> check_vscode_settings(const std::filesystem::path& workspace);
Result<FileChange> write_vscode_settings(const std::filesystem::path& workspace, const std::filesystem::path& launcher,
                                         const std::string& tree);

}  // namespace cudnnenv
