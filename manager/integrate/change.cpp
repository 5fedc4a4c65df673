#include "integrate/change.hpp"

#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv {

std::string describe(const FileChange& change) {
  return std::string(change.kind == FileChange::Kind::wrote ? "wrote " : "removed ") + util::to_utf8(change.path) +
         (change.about.empty() ? std::string() : " " + change.about);
}

Result<void> no_link_on_the_way(const std::filesystem::path& folder, const std::filesystem::path& file) {
  if (const auto link = util::link_on_the_way(folder, file)) {
    return make_error("'" + util::printable(util::to_utf8(*link)) +
                          "' is a link: cudnnenv does not read or write a file through a link there (it could "
                          "lead anywhere); nothing was written",
                      "replace the link with a plain " + std::string(*link == file ? "file" : "folder") +
                          " of your own, then run this again");
  }
  return {};
}

Result<FileChanges> write_files(const std::filesystem::path& folder,
                                const std::vector<std::pair<std::string, std::string>>& files) {
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  FileChanges changes;
  for (const auto& [name, text] : files) {
    const auto file = folder / util::path_from_utf8(name);
    CUDNNENV_TRY(util::write_file_atomic(file, text));
    changes.push_back({FileChange::Kind::wrote, file, {}});
  }
  return changes;
}

}  // namespace cudnnenv
