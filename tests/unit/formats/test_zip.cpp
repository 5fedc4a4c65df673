#include <doctest/doctest.h>

#include <clocale>
#include <cstdlib>
#include <cstring>
#include <map>

#include "formats/zip.hpp"
#include "support.hpp"
#include "util/fs.hpp"
#include "util/sha256.hpp"
#include "util/text.hpp"

#ifndef _WIN32
#include <archive.h>
#include <archive_entry.h>
#endif

namespace cudnnenv {

using test::FileMap;
using test::Item;

namespace {

using test::put16;
using test::put32;
using test::put64;

// A zip whose zip64 end record claims a central directory at `offset` of
// `size` bytes (tests/crafted/make_crafted.py writes the same).
std::string zip64_claiming(std::uint64_t offset, std::uint64_t size) {
  std::string bytes = "PK\3\4";
  bytes.append(26, '\0');
  const std::uint64_t end64_at = bytes.size();
  put32(bytes, 0x06064B50);
  put64(bytes, 44);
  put16(bytes, 45);
  put16(bytes, 45);
  put32(bytes, 0);
  put32(bytes, 0);
  put64(bytes, 1);
  put64(bytes, 1);
  put64(bytes, size);
  put64(bytes, offset);
  put32(bytes, 0x07064B50);
  put32(bytes, 0);
  put64(bytes, end64_at);
  put32(bytes, 1);
  put32(bytes, 0x06054B50);
  put16(bytes, 0);
  put16(bytes, 0);
  put16(bytes, 0xFFFF);
  put16(bytes, 0xFFFF);
  put32(bytes, 0xFFFFFFFF);
  put32(bytes, 0xFFFFFFFF);
  put16(bytes, 0);
  return bytes;
}

std::string zip_error(const std::string& bytes) {
  test::write_binary("crafted.zip", bytes);
  auto reader = ZipReader::open("crafted.zip");
  REQUIRE_FALSE(reader);
  return reader.error().message;
}

// Every central-directory record of the zip at `path` pointed at the first
// entry's local header: eight names, one body.
void overlap_all(const std::string& path) {
  std::string bytes = test::read_binary(path);
  for (std::size_t at = bytes.find("PK\1\2"); at != std::string::npos; at = bytes.find("PK\1\2", at + 4)) {
    std::memset(&bytes[at + 42], 0, 4);
  }
  test::write_binary(path, bytes);
}

// name -> content (or "link:<target>"), as our reader sees the archive.
std::map<std::string, std::string> read_with_ours(const std::filesystem::path& path) {
  auto reader = ZipReader::open(path);
  REQUIRE_MESSAGE(reader, (reader ? std::string() : reader.error().message));
  std::map<std::string, std::string> out;
  for (const auto& entry : reader->entries()) {
    if (entry.is_directory()) {
      continue;
    }
    std::string data;
    auto read = reader->read(entry, [&](std::string_view chunk) -> Result<void> {
      data.append(chunk);
      return {};
    });
    REQUIRE_MESSAGE(read, (read ? std::string() : read.error().message));
    out[entry.name] = entry.unix_file_type() == 0120000 ? "link:" + data : data;
  }
  return out;
}

FileMap sample_files() {
  FileMap files;
  files["cuda/bin/cudnn64_8.dll"] = Item{test::read_binary(test::fixture("fake-pe64-8.1.0.dll"))};
  files["cuda/include/cudnn_version.h"] = Item{test::version_header("8.1.0")};
  std::string large;
  for (int i = 0; i < 300000; ++i) {
    large += std::to_string(i * 7919ull % 104729) + (i % 13 ? "," : "\n");
  }
  files["cuda/lib/x64/big.txt"] = Item{large};
  files["cuda/empty"] = Item{""};
  files["目录 with space/ünïcode.txt"] = Item{"non-ASCII names survive\n"};
  return files;
}

}  // namespace

TEST_SUITE("formats/zip") {
  TEST_CASE("stored, deflated and zip64 archives read back byte for byte") {
    const FileMap files = sample_files();
    struct Variant {
      const char* name;
      test::ZipOptions options;
    };
    for (const Variant& variant :
         {Variant{"stored", {false, false}}, Variant{"deflate", {true, false}}, Variant{"zip64", {true, true}}}) {
      CAPTURE(variant.name);
      const std::filesystem::path path = std::string(variant.name) + ".zip";
      test::write_zip(path, files, variant.options);
      const auto read = read_with_ours(path);
      REQUIRE(read.size() == files.size());
      for (const auto& [name, item] : files) {
        CHECK(read.at(name) == item.data);
      }
    }
  }

  TEST_CASE("a symbolic link entry carries its Unix mode and target") {
    FileMap files;
    files["lib/libcudnn.so.9.1.0"] = Item{"library"};
    files["lib/libcudnn.so.9"] = Item{"", "libcudnn.so.9.1.0", 0120777};
    test::write_zip("links.zip", files);
    const auto read = read_with_ours("links.zip");
    CHECK(read.at("lib/libcudnn.so.9") == "link:libcudnn.so.9.1.0");
  }

  TEST_CASE("a truncated zip is refused with a message that says so") {
    test::write_zip("whole.zip", sample_files());
    const std::string bytes = test::read_binary("whole.zip");
    for (const std::size_t keep : {bytes.size() / 2, bytes.size() - 10, std::size_t{30}}) {
      CAPTURE(keep);
      {
        util::FilePtr file = util::open_file("cut.zip", "wb");
        std::fwrite(bytes.data(), 1, keep, file.get());
      }
      auto reader = ZipReader::open("cut.zip");
      REQUIRE_FALSE(reader);
      CHECK(reader.error().message.rfind("'cut.zip' is not a valid zip archive: ", 0) ==
            0);  // the why varies with the cut
      CHECK(reader.error().hint == "the file is truncated or damaged: download it again and compare its SHA-256");
    }
  }

  TEST_CASE("a flipped byte in the data fails the CRC check") {
    FileMap files;
    files["a.txt"] = Item{std::string(5000, 'a')};
    test::write_zip("stored.zip", files, {false, false});
    std::string bytes = test::read_binary("stored.zip");
    bytes[30 + 5 + 100] = 'b';  // inside the stored data of the only entry
    {
      util::FilePtr file = util::open_file("flipped.zip", "wb");
      std::fwrite(bytes.data(), 1, bytes.size(), file.get());
    }
    auto reader = ZipReader::open("flipped.zip");
    REQUIRE(reader);
    auto read = reader->read(reader->entries().front(), [](std::string_view) -> Result<void> { return {}; });
    REQUIRE_FALSE(read);
    CHECK(read.error().message == "'flipped.zip' is not a valid zip archive: CRC-32 of 'a.txt' does not match");
  }

#ifndef _WIN32
  // libarchive is the reference: the same archives, the same entries and bytes.
  TEST_CASE("our reader and libarchive agree on Info-ZIP and our own archives") {
    // libarchive converts names through the locale; give it one that holds every UTF-8 name.
    std::setlocale(LC_CTYPE, "C.UTF-8");
    const FileMap files = sample_files();
    test::write_folder("tree", files);
    std::filesystem::create_symlink("cudnn64_8.dll", "tree/cuda/bin/link.dll");
    REQUIRE(
        std::system("cd tree && zip -q -r -y -0 ../infozip-stored.zip . && zip -q -r -y -9 ../infozip-deflate.zip . "
                    "&& zip -q -r -y -fz ../infozip-zip64.zip .") == 0);
    test::write_zip("ours-zip64.zip", files, {true, true});

    for (const std::string name :
         {"infozip-stored.zip", "infozip-deflate.zip", "infozip-zip64.zip", "ours-zip64.zip"}) {
      CAPTURE(name);
      const auto ours = read_with_ours(name);
      std::map<std::string, std::string> theirs;
      struct archive* reader = archive_read_new();
      archive_read_support_format_zip(reader);
      REQUIRE(archive_read_open_filename(reader, name.c_str(), 65536) == ARCHIVE_OK);
      struct archive_entry* entry = nullptr;
      int status = ARCHIVE_OK;
      // ARCHIVE_WARN: a UTF-8 name that the C locale cannot represent; the _utf8 accessor still has it.
      while ((status = archive_read_next_header(reader, &entry)) == ARCHIVE_OK || status == ARCHIVE_WARN) {
        const char* utf8_name = archive_entry_pathname_utf8(entry);
        std::string entry_name = utf8_name ? utf8_name : archive_entry_pathname(entry);
        if (archive_entry_filetype(entry) == AE_IFDIR) {
          continue;
        }
        if (entry_name.rfind("./", 0) == 0) {
          entry_name = entry_name.substr(2);
        }
        if (archive_entry_filetype(entry) == AE_IFLNK) {
          theirs[entry_name] = std::string("link:") + archive_entry_symlink(entry);
          continue;
        }
        std::string data;
        char buffer[65536];
        la_ssize_t got = 0;
        while ((got = archive_read_data(reader, buffer, sizeof buffer)) > 0) {
          data.append(buffer, static_cast<std::size_t>(got));
        }
        theirs[entry_name] = data;
      }
      archive_read_free(reader);
      // Named copies, not structured bindings: clang 14 cannot capture those in doctest's lambdas.
      for (const auto& item : ours) {
        const std::string& entry_name = item.first;
        CAPTURE(entry_name);
        CHECK(theirs.count(entry_name) == 1);
      }
      for (const auto& item : theirs) {
        const std::string& entry_name = item.first;
        CAPTURE(entry_name);
        REQUIRE(ours.count(entry_name) == 1);
        CHECK(ours.at(entry_name) == item.second);
      }
    }
  }
#endif

  TEST_CASE("a zip64 central directory whose offset plus size wraps is refused before anything is allocated") {
    const std::string expected =
        "'crafted.zip' is not a valid zip archive: central directory beyond the end of the file (truncated?)";
    CHECK(zip_error(zip64_claiming(16, ~std::uint64_t{0} - 7)) == expected);
    CHECK(zip_error(zip64_claiming(~std::uint64_t{0} - (std::uint64_t{3} << 30) + 9, std::uint64_t{3} << 30)) ==
          expected);
  }

  TEST_CASE("zip entries that share bytes are refused") {
    test::FileMap files;
    for (const char* name : {"a.dll", "b.dll", "c.dll"}) {
      files[name] = test::Item{std::string(4096, 'x')};
    }
    test::write_zip("overlap.zip", files);
    REQUIRE(ZipReader::open("overlap.zip"));
    overlap_all("overlap.zip");
    auto reader = ZipReader::open("overlap.zip");
    REQUIRE_FALSE(reader);
    CHECK(reader.error().message == "'overlap.zip' is not a safe zip archive: entry 'a.dll' overlaps 'b.dll'");
  }
}

}  // namespace cudnnenv
