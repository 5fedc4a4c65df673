#include "trust.hpp"

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

fs::path absolute_file(const fs::path& file) {
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(fs::absolute(file, ec), ec);
  return canonical.empty() ? file : canonical;
}

}  // namespace

TrustStore::TrustStore(fs::path state_dir) : m_dir(std::move(state_dir) / "trusted") {}

fs::path TrustStore::entry_for(const fs::path& project_file) const {
  // One small file per trusted project file, named by the hash of its path.
  return m_dir / (sha256_of(util::to_utf8(absolute_file(project_file))).substr(0, 32) + ".trust");
}

Result<void> TrustStore::trust(const fs::path& project_file) {
  auto content = util::read_file(project_file);
  if (!content) {
    return std::move(content).error();
  }
  std::error_code ec;
  fs::create_directories(m_dir, ec);
  const std::string entry = util::to_utf8(absolute_file(project_file)) + "\n" + sha256_of(*content) + "\n";
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
