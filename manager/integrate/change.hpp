// What an export did to the files of another tool (a modulefile, a conda
// hook, kernel.json, settings.json, a terminal's script): the integrate/
// functions return these, and the CLI prints them, one line each.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "util/result.hpp"

namespace cudnnenv {

struct FileChange {
  enum class Kind { wrote, removed };
  Kind kind = Kind::wrote;
  std::filesystem::path path;
  std::string about;  // "(module load cudnn/8.9.7: '8.9.7.29-cuda12')", or empty
};
using FileChanges = std::vector<FileChange>;

// "wrote PATH ABOUT" / "removed PATH ABOUT", without the line break.
std::string describe(const FileChange& change);

// Refuses to read or write `file` through a link below `folder` (a project's
// own `.vscode`, an env's `share/jupyter/kernels/NAME`): a cloned repository's
// link would have cudnnenv read a secret file into the project, or write into
// a folder elsewhere while saying it wrote here.
Result<void> no_link_on_the_way(const std::filesystem::path& folder, const std::filesystem::path& file);

// Writes each (name, text) of `files` into `folder` (made as needed),
// atomically each: the scripts `init cmd` and `profile generate` keep in the
// state folder.
Result<FileChanges> write_files(const std::filesystem::path& folder,
                                const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace cudnnenv
