#include "util/sha256.hpp"

#include <cstdio>
#include <vector>

#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv::util {

Result<std::string> sha256_file(const std::filesystem::path& path) {
  FilePtr file = open_file(path, "rb");
  if (!file) {
    return make_error("cannot read '" + to_utf8(path) + "'", "check that the file exists and is readable");
  }
  Sha256 hash;
  std::vector<char> buffer(1 << 20);
  std::size_t got = 0;
  while ((got = std::fread(buffer.data(), 1, buffer.size(), file.get())) > 0) {
    hash.update(buffer.data(), got);
  }
  if (std::ferror(file.get())) {
    return make_error("cannot read '" + to_utf8(path) + "'");
  }
  return hash.hex_digest();
}

}  // namespace cudnnenv::util
