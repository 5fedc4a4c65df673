// Which project files may point outside the store (the direnv/mise model):
// a cloned repository must not make a launcher load a DLL of its choosing.
// Trust is recorded by the file's absolute path and the SHA-256 of its
// content, so an edited file needs trusting again.
#pragma once

#include <filesystem>
#include <string_view>

#include "result.hpp"

namespace cudnnenv {

enum class TrustStatus { untrusted, trusted, changed_since_trusted };

class TrustStore {
 public:
  // `state_dir`: <root>/.cudnnenv
  explicit TrustStore(std::filesystem::path state_dir);

  Result<void> trust(const std::filesystem::path& project_file);
  // Fails with exit code 3 when the file was not trusted.
  Result<void> untrust(const std::filesystem::path& project_file);
  TrustStatus status(const std::filesystem::path& project_file, std::string_view content) const;

 private:
  std::filesystem::path entry_for(const std::filesystem::path& project_file) const;
  std::filesystem::path m_dir;
};

}  // namespace cudnnenv
