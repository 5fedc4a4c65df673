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

}  // namespace cudnnenv
