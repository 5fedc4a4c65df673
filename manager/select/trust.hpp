// Which project files may change what gets loaded or run (the direnv/mise
// model): `path = ...` outside the store and any [env] need trust, so that a
// cloned repository cannot make a launcher load a DLL of its choosing or a
// shell export LD_PRELOAD. Trust is recorded by the file's absolute path
// (its folder resolved, the file itself not followed) and the SHA-256 of its
// content, so an edited file needs trusting again. A project file that is a
// symbolic link is never trusted: trust names a file in its own folder, and
// `path = ...` is read from the folder where the link lies.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace cudnnenv {

enum class TrustStatus { untrusted, trusted, changed_since_trusted, symbolic_link };

// "is not trusted", "changed since it was trusted", "is a symbolic link, which is never trusted"
std::string describe(TrustStatus status);

class TrustStore {
 public:
  // `folder`: StatePaths::trust(), this user's trusted/ folder.
  explicit TrustStore(std::filesystem::path folder);

  // Records `content`, the text of `project_file` as the caller read and
  // parsed it (read once: what is trusted is what was checked). Fails for a
  // symbolic link, naming the file it points to.
  Result<void> trust(const std::filesystem::path& project_file, std::string_view content);
  // Fails with exit code 3 when the file was not trusted.
  Result<void> untrust(const std::filesystem::path& project_file);
  TrustStatus status(const std::filesystem::path& project_file, std::string_view content) const;

 private:
  std::filesystem::path entry_for(const std::filesystem::path& project_file) const;
  std::filesystem::path m_dir;
};

}  // namespace cudnnenv
