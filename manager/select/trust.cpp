#include "select/trust.hpp"

#include "select/project.hpp"

#include <system_error>

#include "util/fs.hpp"
#include "util/sha256.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

std::string sha256_of(std::string_view text) {
  util::Sha256 hash;
  hash.update(text.data(), text.size());
  return hash.hex_digest();
}

// The folder resolved (a linked folder is the same folder), the file's own
// name kept: a link named .cudnnenv.toml is its own entry, never its target's.
fs::path absolute_file(const fs::path& file) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(file, ec);
  const fs::path folder = fs::weakly_canonical(absolute.parent_path(), ec);
  return folder.empty() ? absolute : folder / absolute.filename();
}

bool is_link(const fs::path& file) {
  std::error_code ec;
  return fs::is_symlink(fs::symlink_status(file, ec));
}

}  // namespace

std::string describe(TrustStatus status) {
  switch (status) {
    case TrustStatus::untrusted:
      return "is not trusted";
    case TrustStatus::trusted:
      return "is trusted";
    case TrustStatus::changed_since_trusted:
      return "changed since it was trusted";
    case TrustStatus::symbolic_link:
      return "is a symbolic link, which is never trusted";
  }
  return "";
}

TrustStore::TrustStore(fs::path folder) : m_dir(std::move(folder)) {}

fs::path TrustStore::entry_for(const fs::path& project_file) const {
  // One small file per trusted project file, named by the hash of its path.
  return m_dir / (sha256_of(util::to_utf8(absolute_file(project_file))).substr(0, 32) + ".trust");
}

Result<void> TrustStore::trust(const fs::path& project_file, std::string_view content) {
  if (is_link(project_file)) {
    std::error_code ec;
    const fs::path target = fs::weakly_canonical(absolute_file(project_file), ec);
    return make_error("'" + util::to_utf8(absolute_file(project_file)) + "' is a symbolic link (to '" +
                          util::to_utf8(target) + "'), which cudnnenv never trusts",
                      "trust the file itself in its own folder, or replace the link with a copy and trust that");
  }
  std::error_code ec;
  fs::create_directories(m_dir, ec);
  const std::string entry = util::to_utf8(absolute_file(project_file)) + "\n" + sha256_of(content) + "\n";
  return util::write_file_atomic(entry_for(project_file), entry);
}

Result<void> TrustStore::untrust(const fs::path& project_file) {
  std::error_code ec;
  if (!fs::remove(entry_for(project_file), ec)) {
    return make_error("'" + util::to_utf8(absolute_file(project_file)) + "' is not trusted", "nothing to undo",
                      ExitCode::not_found);
  }
  return {};
}

TrustStatus TrustStore::status(const fs::path& project_file, std::string_view content) const {
  if (is_link(project_file)) {
    return TrustStatus::symbolic_link;
  }
  auto entry = util::read_file(entry_for(project_file));
  if (!entry) {
    return TrustStatus::untrusted;
  }
  const auto lines = util::split(*entry, '\n');
  if (lines.size() < 2 || lines[0] != util::to_utf8(absolute_file(project_file))) {
    return TrustStatus::untrusted;
  }
  return lines[1] == sha256_of(content) ? TrustStatus::trusted : TrustStatus::changed_since_trusted;
}

}  // namespace cudnnenv
