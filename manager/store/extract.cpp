#include "store/extract.hpp"

#include <algorithm>

#include <map>
#include <optional>
#include <set>
#include <system_error>

#include "util/fs.hpp"
#include "util/sha256.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

// A file's SHA-256: a large file's on a second core while this one unpacks
// and writes it (Sha256Stream; the end of the file waits only for its last
// queued chunks), a small file's here, where starting a thread would cost
// more than it saves. The size is the archive's announcement, used only to
// choose: the hash is the same either way.
class FileHash {
 public:
  explicit FileHash(std::uint64_t announced_size) {
    if (announced_size >= k_threaded_from) m_stream.emplace();
  }
  void update(const char* data, std::size_t size) {
    if (m_stream) {
      m_stream->update(data, size);
    } else {
      m_hash.update(data, size);
    }
  }
  std::string hex_digest() { return m_stream ? m_stream->hex_digest() : m_hash.hex_digest(); }

 private:
  static constexpr std::uint64_t k_threaded_from = std::uint64_t{1} << 20;
  util::Sha256 m_hash;
  std::optional<util::Sha256Stream> m_stream;
};

const std::string k_escape_hint = "the archive is not safe to unpack: use an official archive from NVIDIA";

bool is_reserved_windows_name(std::string_view component) {
  // CON, PRN, AUX, NUL, COM1-9, LPT1-9, with or without an extension.
  const std::string stem = util::to_lower(component.substr(0, component.find('.')));
  static const std::set<std::string> reserved = {"con", "prn", "aux", "nul"};
  if (reserved.count(stem)) {
    return true;
  }
  return stem.size() == 4 && (util::starts_with(stem, "com") || util::starts_with(stem, "lpt")) && stem[3] >= '1' &&
         stem[3] <= '9';
}

std::vector<std::string> normalize(std::string_view base_dir, std::string_view relative, bool* escaped) {
  std::vector<std::string> parts;
  if (!base_dir.empty()) {
    parts = util::split(base_dir, '/');
  }
  *escaped = false;
  for (const auto& part : util::split(relative, '/')) {
    if (part.empty() || part == ".") {
      continue;
    }
    if (part == "..") {
      if (parts.empty()) {
        *escaped = true;
        return {};
      }
      parts.pop_back();
    } else {
      parts.push_back(part);
    }
  }
  return parts;
}

std::string join_parts(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& part : parts) {
    out += out.empty() ? part : "/" + part;
  }
  return out;
}

// "./", ".", ".//": the folder being unpacked into.
bool names_tree_root(std::string_view name) {
  for (const auto& part : util::split(name, '/')) {
    if (!part.empty() && part != ".") {
      return false;
    }
  }
  return !name.empty();
}

// A limit as it was most likely given: "16 GiB", "100 MiB", else bytes.
std::string binary_size(std::uint64_t bytes) {
  if (bytes > 0 && bytes % (std::uint64_t{1} << 30) == 0) return std::to_string(bytes >> 30) + " GiB";
  if (bytes > 0 && bytes % (std::uint64_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

struct PendingLink {
  std::string path;
  std::string text;
  std::string target;  // resolved, relative to the tree
  bool hard = false;
};

}  // namespace

Result<std::string> safe_entry_path(std::string_view name) {
  const std::string quoted = "'" + util::printable(name) + "'";
  if (name.empty()) {
    return make_error("the archive has an entry with an empty name", k_escape_hint);
  }
  if (!util::is_valid_utf8(name)) {
    return make_error("the archive has an entry whose name is not UTF-8", k_escape_hint);
  }
  if (name.front() == '/' || name.front() == '\\') {
    return make_error("the archive entry " + quoted + " has an absolute path", k_escape_hint);
  }
  if (name.find(':') != std::string_view::npos) {
    return make_error("the archive entry " + quoted + " names a drive or a stream (':')", k_escape_hint);
  }
  std::vector<std::string> parts;
  for (const auto& part : util::split(name, '/')) {
    if (part.empty() || part == ".") {
      continue;
    }
    if (part == "..") {
      return make_error("the archive entry " + quoted + " climbs out of the tree with '..'", k_escape_hint);
    }
    if (part.find('\\') != std::string::npos || part.find('\0') != std::string::npos) {
      return make_error("the archive entry " + quoted + " has a '\\' or NUL in its name", k_escape_hint);
    }
    if (is_reserved_windows_name(part) || part.back() == '.' || part.back() == ' ') {
      return make_error("the archive entry " + quoted + " is not a valid Windows file name", k_escape_hint);
    }
    parts.push_back(part);
  }
  // A control character (ESC, BEL, a line break) would reach a terminal in
  // every listing of the file: a cuDNN archive has none.
  if (std::any_of(name.begin(), name.end(), [](char c) {
        const auto byte = static_cast<unsigned char>(c);
        return byte < 0x20 || byte == 0x7f;
      })) {
    return make_error("the archive entry " + quoted + " has a control character in its name", k_escape_hint);
  }
  if (parts.empty()) {
    return make_error("the archive entry " + quoted + " names the tree itself", k_escape_hint);
  }
  return join_parts(parts);
}

Result<std::string> resolve_link_target(std::string_view link_path, std::string_view target) {
  const std::string description = "the link '" + std::string(link_path) + "' -> '" + std::string(target) + "'";
  if (target.empty()) {
    return make_error(description + " is empty", k_escape_hint);
  }
  if (target.front() == '/' || target.front() == '\\' || target.find(':') != std::string_view::npos) {
    return make_error(description + " leads out of the tree (absolute target)", k_escape_hint);
  }
  const auto slash = link_path.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? std::string_view() : link_path.substr(0, slash);
  bool escaped = false;
  const auto parts = normalize(base, target, &escaped);
  if (escaped) {
    return make_error(description + " leads out of the tree", k_escape_hint);
  }
  if (parts.empty()) {
    return make_error(description + " points at the tree itself", k_escape_hint);
  }
  return join_parts(parts);
}

Result<Extraction> extract(ArchiveSource& source, const fs::path& destination, const std::string& label,
                           const ExtractLimits& limits, const UnpackProgress& progress) {
  Extraction extraction;
  // Bytes written so far, against both bounds; checked before each write.
  std::uint64_t total = 0;
  auto account = [&](std::uint64_t bytes) -> Result<void> {
    total += bytes;
    if (progress) progress(total, false);
    if (total > limits.max_bytes) {
      return make_error(
          "'" + label + "' unpacks to more than " + binary_size(limits.max_bytes) + ", the limit for one tree",
          "official cuDNN archives unpack to a few GB; if you trust this one, raise the limit with "
          "--max-unpacked SIZE");
    }
    if (limits.source_size > 0 && limits.max_ratio > 0 && total > limits.ratio_floor &&
        total / limits.max_ratio > limits.source_size) {
      return make_error("'" + label + "' unpacks to more than " + std::to_string(limits.max_ratio) +
                            " times its size (" + util::human_size(limits.source_size) +
                            "): refused as a decompression bomb",
                        "official cuDNN archives unpack to less than 5 times their size; if you trust this one, "
                        "raise the limit with --max-ratio N");
    }
    return {};
  };
  std::map<std::string, std::size_t> file_index;  // path -> index in extraction.files
  std::set<std::string> seen;
  std::set<std::string> directories;
  std::vector<PendingLink> links;
  std::vector<char> write_buffer(1 << 20);

  ArchiveEntry entry;
  while (true) {
    CUDNNENV_TRY_ASSIGN(more, source.next(entry));
    if (!*more) {
      break;
    }
    if (entry.type == EntryType::directory && names_tree_root(entry.name)) {
      continue;  // './' of 'tar -C dir -cf x.tar .'
    }
    CUDNNENV_TRY_ASSIGN(safe, safe_entry_path(entry.name));
    const std::string& path = *safe;
    if (entry.type == EntryType::directory) {
      directories.insert(path);
      std::error_code ec;
      fs::create_directories(destination / util::path_from_utf8(path), ec);
      if (ec) {
        return make_error("cannot create '" + util::to_utf8(destination / util::path_from_utf8(path)) +
                          "': " + ec.message());
      }
      continue;
    }
    if (!seen.insert(path).second) {
      return make_error("'" + label + "' holds '" + path + "' twice", k_escape_hint);
    }
    if (entry.type == EntryType::special) {
      return make_error("'" + label + "' holds a " + entry.special_kind + " at '" + path + "'", k_escape_hint);
    }
    if (entry.type == EntryType::symlink || entry.type == EntryType::hardlink) {
      PendingLink link{path, entry.link_target, {}, entry.type == EntryType::hardlink};
      if (link.hard) {
        auto target = safe_entry_path(entry.link_target);
        if (!target) {
          return make_error("the hard link '" + path + "' -> '" + entry.link_target + "' leads out of the tree",
                            k_escape_hint);
        }
        link.target = *target;
      } else {
        CUDNNENV_TRY_ASSIGN(target, resolve_link_target(path, entry.link_target));
        link.target = *target;
      }
      links.push_back(std::move(link));
      continue;
    }

    // A regular file: write it, hashing as it streams, keeping its head to
    // identify the binary.
    const fs::path output_path = destination / util::path_from_utf8(path);
    std::error_code ec;
    fs::create_directories(output_path.parent_path(), ec);
    util::FilePtr output = util::open_file(output_path, "wb");
    if (!output) {
      return make_error("cannot write '" + util::to_utf8(output_path) + "'",
                        "check free space and permissions in the store");
    }
    std::setvbuf(output.get(), write_buffer.data(), _IOFBF, write_buffer.size());
    FileHash hash(entry.size);
    std::string head;
    std::uint64_t written = 0;
    auto copied = source.read_data([&](std::string_view chunk) -> Result<void> {
      if (auto allowed = account(chunk.size()); !allowed) {
        return allowed;
      }
      if (head.size() < 4096) {
        head.append(chunk.substr(0, 4096 - head.size()));
      }
      hash.update(chunk.data(), chunk.size());
      written += chunk.size();
      if (std::fwrite(chunk.data(), 1, chunk.size(), output.get()) != chunk.size()) {
        return make_error("cannot write '" + util::to_utf8(output_path) + "'", "check free space in the store");
      }
      return {};
    });
    if (!copied) {
      return std::move(copied).error();
    }
    if (std::fflush(output.get()) != 0) {
      return make_error("cannot write '" + util::to_utf8(output_path) + "'", "check free space in the store");
    }
    util::start_writeback(output.get());  // the sync before the tree is published then waits for less
    output.reset();
    ExtractedFile file;
    file.record.path = path;
    file.record.size = written;
    file.record.sha256 = hash.hex_digest();
    file.binary = identify_binary(head);
    if (util::ends_with(path, ".dist-info/METADATA") && path.find('/') == path.rfind('/')) {
      extraction.wheel_metadata = head.substr(0, 4096);
    }
    file_index[path] = extraction.files.size();
    extraction.files.push_back(std::move(file));
  }

  // Links last, so that no later entry can be written through one. Links to
  // links resolve in as many passes as the chain is long.
  while (!links.empty()) {
    std::vector<PendingLink> waiting;
    for (auto& link : links) {
      if (directories.count(link.target) && !link.hard) {
        return make_error(
            "the link '" + link.path + "' points at a folder ('" + link.target + "'), which cudnnenv does not install",
            k_escape_hint);
      }
      const auto found = file_index.find(link.target);
      if (found == file_index.end()) {
        waiting.push_back(std::move(link));
        continue;
      }
      const fs::path link_path = destination / util::path_from_utf8(link.path);
      const fs::path target_path = destination / util::path_from_utf8(link.target);
      std::error_code ec;
      fs::create_directories(link_path.parent_path(), ec);
      if (link.hard) {
        fs::copy_file(target_path, link_path, ec);
        if (ec) {
          return make_error("cannot copy '" + util::to_utf8(target_path) + "': " + ec.message());
        }
      } else if (auto made = util::create_link_or_copy(target_path, link.text, link_path); !made) {
        return std::move(made).error();
      }
      ExtractedFile file = extraction.files[found->second];
      // A copy (a hard link, or a link on Windows) counts its bytes; a link, none.
      if (const bool copied = link.hard || !fs::is_symlink(fs::symlink_status(link_path, ec)); copied) {
        if (auto allowed = account(file.record.size); !allowed) return std::move(allowed).error();
      }
      file.record.path = link.path;
      file.record.link = link.hard ? std::string() : link.text;
      file_index[link.path] = extraction.files.size();
      extraction.files.push_back(std::move(file));
    }
    if (waiting.size() == links.size()) {
      const auto& link = waiting.front();
      return make_error("the link '" + link.path + "' -> '" + link.text + "' points at '" + link.target +
                            "', which the archive does not contain",
                        "the archive is incomplete: download it again");
    }
    links = std::move(waiting);
  }
  if (progress) progress(total, true);
  return extraction;
}

}  // namespace cudnnenv
