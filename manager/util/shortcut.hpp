// Windows shell links (.lnk): what a Start-menu entry starts. Written and
// read through the shell's own IShellLinkW and IPersistFile, so the file is
// what Explorer makes; elsewhere every call fails, saying it is Windows's.
// Knows nothing about cuDNN.
#pragma once

#include <filesystem>
#include <string>

#include "util/result.hpp"

namespace cudnnenv::util {

struct Shortcut {
  std::filesystem::path target;  // the program (absolute)
  std::string arguments;         // the command line after it, as the program receives it
  std::filesystem::path working_directory;
  std::string description;  // the tooltip
};

// Creates or replaces `file` (its folder must exist).
Result<void> write_shortcut(const std::filesystem::path& file, const Shortcut& shortcut);

// What `file` starts; fails for a file that is not a shell link.
Result<Shortcut> read_shortcut(const std::filesystem::path& file);

// This user's Start menu programs folder (FOLDERID_Programs, where a policy
// may have moved it).
Result<std::filesystem::path> start_menu_programs();

// The Windows folder's System32 (GetSystemDirectoryW): where cmd.exe is.
Result<std::filesystem::path> system_folder();

}  // namespace cudnnenv::util
