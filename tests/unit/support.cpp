#include "support.hpp"

#include <doctest/doctest.h>

#include <zlib.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "store/layout.hpp"
#include "store/spec.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

#ifndef _WIN32
#include <archive.h>
#include <archive_entry.h>
#endif

namespace cudnnenv::test {

fs::path fixture(const std::string& name) {
  const fs::path path = util::path_from_utf8(CUDNNENV_FIXTURE_DIR) / name;
  if (!fs::exists(path)) {
    throw std::runtime_error("fixture missing: " + util::to_utf8(path));
  }
  return path;
}

fs::path golden(const std::string& name) {
  return util::path_from_utf8(CUDNNENV_GOLDEN_DIR) / name;
}

fs::path cudnnenv_program() {
  return util::path_from_utf8(CUDNNENV_PROGRAM);
}

ProbeFunction child_probe() {
  return [](const fs::path& library) { return probe_in_child(probe_program_beside(cudnnenv_program()), library); };
}

std::string read_binary(const fs::path& path) {
  auto content = util::read_file(path);
  if (!content) {
    throw std::runtime_error(content.error().message);
  }
  return *content;
}

void write_binary(const fs::path& path, std::string_view content) {
  if (auto written = util::write_file_atomic(path, content); !written) {
    throw std::runtime_error(written.error().message);
  }
}

std::string version_header(const std::string& version) {
  const auto parts = util::split(version, '.');
  const int major = std::stoi(parts.at(0));
  std::ostringstream out;
  out << "/* cudnn_version.h (test fixture) */\n#ifndef CUDNN_VERSION_H_\n#define CUDNN_VERSION_H_\n\n"
      << "#define CUDNN_MAJOR " << parts.at(0) << "\n#define CUDNN_MINOR " << parts.at(1)
      << "\n#define CUDNN_PATCHLEVEL " << parts.at(2) << "\n\n#define CUDNN_VERSION (CUDNN_MAJOR * "
      << (major >= 9 ? "10000" : "1000") << " + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)\n\n#endif\n";
  return out.str();
}

FileMap fake_tree(const FakeTree& spec) {
  FileMap files;
  const ExpectedSet set =
      expected_set(parse_version(spec.header_version).value_or(Version{spec.major, 0, 0, {}}), spec.os);
  const std::string default_library = read_binary(fixture(spec.library));
  std::string bin, include, lib;
  const std::string top = spec.prefix.empty() ? std::string() : spec.prefix + "/";
  switch (spec.style) {
    case TreeStyle::legacy:
      bin = "cuda/bin/";
      include = "cuda/include/";
      lib = spec.os == Os::windows ? "cuda/lib/x64/" : "cuda/lib64/";
      break;
    case TreeStyle::archive:
      bin = top + "bin/";
      include = top + "include/";
      lib = top + (spec.os == Os::windows ? "lib/x64/" : "lib/");
      break;
    case TreeStyle::wheel:
      bin = "nvidia/cudnn/bin/";
      include = "nvidia/cudnn/include/";
      lib = "nvidia/cudnn/lib/";
      break;
  }
  const std::string version_suffix = spec.header_version;
  for (const auto& name : set.libraries) {
    const auto override_ = spec.library_overrides.find(name);
    const std::string& library =
        override_ == spec.library_overrides.end() ? default_library : read_binary(fixture(override_->second));
    if (spec.os == Os::windows) {
      files[bin + name] = Item{library, "", 0100755};
    } else if (spec.style == TreeStyle::wheel) {
      files[lib + name] = Item{library, "", 0100755};
    } else {
      // Official tarballs: the real file carries the full version, links carry the soname.
      files[lib + name + version_suffix.substr(version_suffix.find('.'))] = Item{library, "", 0100755};
      files[lib + name] = Item{"", name + version_suffix.substr(version_suffix.find('.')), 0120777};
      const std::string unversioned = name.substr(0, name.rfind(".so") + 3);
      files[lib + unversioned] = Item{"", name, 0120777};
    }
  }
  for (const auto& name : set.headers) {
    files[include + name] =
        Item{name == "cudnn_version.h" ? version_header(spec.header_version) : "/* " + name + " (test fixture) */\n"};
  }
  if (spec.style != TreeStyle::wheel) {
    for (const auto& name : set.import_libs) {
      files[lib + name] = Item{"!<arch>\n"};
    }
  }
  if (spec.style == TreeStyle::wheel) {
    const std::string dist = "nvidia_cudnn_" + spec.wheel_metadata_name.substr(std::string("nvidia-cudnn-").size()) +
                             "-" + spec.wheel_version + ".dist-info/";
    files[dist + "METADATA"] = Item{"Metadata-Version: 2.1\nName: " + spec.wheel_metadata_name +
                                    "\nVersion: " + spec.wheel_version + "\n\ncuDNN runtime libraries\n"};
    files["nvidia/__init__.py"] = Item{""};
  }
  files[(spec.style == TreeStyle::legacy ? std::string("cuda/") : top) + "LICENSE"] = Item{"test fixture\n"};
  return files;
}

void write_folder(const fs::path& root, const FileMap& files) {
  for (const auto& [name, item] : files) {
    const fs::path path = root / util::path_from_utf8(name);
    fs::create_directories(path.parent_path());
    fs::remove(path);  // doctest re-enters a test case once per SUBCASE
    if (!item.link.empty()) {
      fs::create_symlink(util::path_from_utf8(item.link), path);
      continue;
    }
    util::FilePtr file = util::open_file(path, "wb");
    std::fwrite(item.data.data(), 1, item.data.size(), file.get());
  }
}

void put16(std::string& out, std::uint32_t value) {
  out += static_cast<char>(value & 0xff);
  out += static_cast<char>((value >> 8) & 0xff);
}
void put32(std::string& out, std::uint32_t value) {
  put16(out, value & 0xffff);
  put16(out, value >> 16);
}
void put64(std::string& out, std::uint64_t value) {
  put32(out, static_cast<std::uint32_t>(value));
  put32(out, static_cast<std::uint32_t>(value >> 32));
}

namespace {

std::string raw_deflate(const std::string& data) {
  z_stream stream{};
  deflateInit2(&stream, Z_BEST_SPEED, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&stream, static_cast<uLong>(data.size())) + 16, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

}  // namespace

void write_zip(const fs::path& path, const FileMap& files, ZipOptions options) {
  std::string body;
  std::string directory;
  std::uint64_t count = 0;
  for (const auto& [name, item] : files) {
    const std::string content = item.link.empty() ? item.data : item.link;
    const bool deflated = options.deflate && item.link.empty();
    const std::string stored = deflated ? raw_deflate(content) : content;
    const auto crc = static_cast<std::uint32_t>(
        crc32(0, reinterpret_cast<const Bytef*>(content.data()), static_cast<uInt>(content.size())));
    const std::uint64_t offset = body.size();
    const std::uint32_t size32 = options.zip64 ? 0xFFFFFFFF : static_cast<std::uint32_t>(content.size());
    const std::uint32_t csize32 = options.zip64 ? 0xFFFFFFFF : static_cast<std::uint32_t>(stored.size());
    std::string local_extra;
    std::string central_extra;
    if (options.zip64) {
      put16(local_extra, 0x0001);
      put16(local_extra, 16);
      put64(local_extra, content.size());
      put64(local_extra, stored.size());
      put16(central_extra, 0x0001);
      put16(central_extra, 24);
      put64(central_extra, content.size());
      put64(central_extra, stored.size());
      put64(central_extra, offset);
    }
    put32(body, 0x04034b50);
    put16(body, options.zip64 ? 45 : 20);
    put16(body, 0x0800);  // UTF-8 names
    put16(body, deflated ? 8 : 0);
    put32(body, 0);  // time, date
    put32(body, crc);
    put32(body, csize32);
    put32(body, size32);
    put16(body, static_cast<std::uint32_t>(name.size()));
    put16(body, static_cast<std::uint32_t>(local_extra.size()));
    body += name + local_extra + stored;

    const std::uint32_t mode = item.link.empty() ? item.mode : 0120777;
    put32(directory, 0x02014b50);
    put16(directory, (3 << 8) | 45);  // made by Unix
    put16(directory, options.zip64 ? 45 : 20);
    put16(directory, 0x0800);
    put16(directory, deflated ? 8 : 0);
    put32(directory, 0);
    put32(directory, crc);
    put32(directory, csize32);
    put32(directory, size32);
    put16(directory, static_cast<std::uint32_t>(name.size()));
    put16(directory, static_cast<std::uint32_t>(central_extra.size()));
    put16(directory, 0);  // comment
    put16(directory, 0);  // disk
    put16(directory, 0);  // internal attributes
    put32(directory, mode << 16);
    put32(directory, options.zip64 ? 0xFFFFFFFF : static_cast<std::uint32_t>(offset));
    directory += name + central_extra;
    ++count;
  }
  std::string out = body + directory;
  if (options.zip64) {
    const std::uint64_t end64_offset = out.size();
    put32(out, 0x06064b50);
    put64(out, 44);
    put16(out, 45);
    put16(out, 45);
    put32(out, 0);
    put32(out, 0);
    put64(out, count);
    put64(out, count);
    put64(out, directory.size());
    put64(out, body.size());
    put32(out, 0x07064b50);
    put32(out, 0);
    put64(out, end64_offset);
    put32(out, 1);
  }
  put32(out, 0x06054b50);
  put16(out, 0);
  put16(out, 0);
  put16(out, options.zip64 ? 0xFFFF : static_cast<std::uint32_t>(count));
  put16(out, options.zip64 ? 0xFFFF : static_cast<std::uint32_t>(count));
  put32(out, options.zip64 ? 0xFFFFFFFF : static_cast<std::uint32_t>(directory.size()));
  put32(out, options.zip64 ? 0xFFFFFFFF : static_cast<std::uint32_t>(body.size()));
  put16(out, 0);
  util::FilePtr file = util::open_file(path, "wb");
  std::fwrite(out.data(), 1, out.size(), file.get());
}

#ifndef _WIN32
void write_tar(const fs::path& path, const FileMap& files) {
  struct archive* writer = archive_write_new();
  archive_write_set_format_pax_restricted(writer);
  const std::string name = path.filename().string();
  if (util::ends_with(name, ".xz")) {
    archive_write_add_filter_xz(writer);
  } else if (util::ends_with(name, ".gz") || util::ends_with(name, ".tgz")) {
    archive_write_add_filter_gzip(writer);
  }
  archive_write_open_filename(writer, path.c_str());
  for (const auto& [entry_name, item] : files) {
    struct archive_entry* entry = archive_entry_new();
    archive_entry_set_pathname(entry, entry_name.c_str());
    archive_entry_set_perm(entry, item.mode & 07777);
    if (!item.link.empty()) {
      archive_entry_set_filetype(entry, AE_IFLNK);
      archive_entry_set_symlink(entry, item.link.c_str());
    } else if ((item.mode & 0170000) == 0020000) {
      archive_entry_set_filetype(entry, AE_IFCHR);
      archive_entry_set_rdev(entry, 0x0103);
    } else {
      archive_entry_set_filetype(entry, AE_IFREG);
      archive_entry_set_size(entry, static_cast<la_int64_t>(item.data.size()));
    }
    archive_write_header(writer, entry);
    if (item.link.empty() && !item.data.empty()) {
      archive_write_data(writer, item.data.data(), item.data.size());
    }
    archive_entry_free(entry);
  }
  archive_write_close(writer);
  archive_write_free(writer);
}
#endif

std::string snapshot(const fs::path& root) {
  std::vector<std::string> lines;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const std::string relative = util::generic_utf8(it->path().lexically_relative(root));
    if (util::starts_with(relative, ".cudnnenv/locks/")) {
      continue;
    }
    std::string line = relative;
    if (it->is_symlink(ec)) {
      line += " -> " + util::generic_utf8(fs::read_symlink(it->path(), ec));
    } else if (it->is_regular_file(ec)) {
      line += " " + std::to_string(it->file_size(ec));
    } else {
      line += "/";
    }
    lines.push_back(line);
  }
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const auto& line : lines) {
    out += line + "\n";
  }
  return out;
}

TreeRecord install_host_tree(Store& store, const std::string& header_version,
                             std::map<std::string, std::string> overrides) {
  FakeTree spec;
  spec.library_overrides = std::move(overrides);
  spec.os = host_platform().os;
  spec.major = 9;
  spec.header_version = header_version;
  spec.library = spec.os == Os::windows ? "fake-pe64-9.1.0.dll" : "fake-elf64-9.1.0.so";
  spec.style = TreeStyle::archive;
  write_folder("source", fake_tree(spec));
  InstallOptions options;
  options.probe = header_version == "9.1.0" ? child_probe() : ProbeFunction{};
  auto outcome = store.install("source", options);
  REQUIRE_MESSAGE(outcome, (outcome ? "" : outcome.error().message));
  return outcome->record;
}

void install_fake(Store& store, const std::string& archive, const std::string& version, int major) {
  FakeTree spec;
  spec.os = Os::linux;
  spec.major = major;
  spec.header_version = version;
  spec.library = "fake-elf64-9.1.0.so";
  spec.style = util::starts_with(archive, "cudnn-linux") ? TreeStyle::archive : TreeStyle::legacy;
  if (spec.style == TreeStyle::archive) {
    spec.prefix = archive.substr(0, archive.size() - 4);
  }
  fs::create_directories("archives");
  write_zip("archives/" + archive, fake_tree(spec));
  InstallOptions options;
  options.platform = Platform{Os::linux, Arch::x86_64};
  auto outcome = store.install("archives/" + archive, options);
  REQUIRE_MESSAGE(outcome, (outcome ? "" : outcome.error().message));
}

// Five trees: 8.1.0.77 (CUDA 11.2), 8.10.0.5 (12), 8.9.7.29 for CUDA 11 and 12, 9.1.0.70 (12).
Store make_selection_store() {
  Store store(test_dir() / "store 库");
  install_fake(store, "cudnn-11.2-linux-x64-v8.1.0.77.zip", "8.1.0", 8);
  install_fake(store, "cudnn-linux-x86_64-8.10.0.5_cuda12-archive.zip", "8.10.0", 8);
  install_fake(store, "cudnn-linux-x86_64-8.9.7.29_cuda11-archive.zip", "8.9.7", 8);
  install_fake(store, "cudnn-linux-x86_64-8.9.7.29_cuda12-archive.zip", "8.9.7", 8);
  install_fake(store, "cudnn-linux-x86_64-9.1.0.70_cuda12-archive.zip", "9.1.0", 9);
  return store;
}

Result<TreeRecord> pick(const Store& store, const std::string& text, std::optional<std::string> cuda) {
  auto spec = parse_spec(text, cuda ? std::optional<std::string_view>(*cuda) : std::nullopt);
  REQUIRE_MESSAGE(spec, (spec ? "" : spec.error().message));
  return select_tree(store.list(RecordPart::identity).trees, *spec);
}

}  // namespace cudnnenv::test
