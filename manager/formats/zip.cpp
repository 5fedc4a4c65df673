#include "formats/zip.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "util/text.hpp"

namespace cudnnenv {

namespace {

constexpr std::uint32_t k_local_signature = 0x04034b50;
constexpr std::uint32_t k_central_signature = 0x02014b50;
constexpr std::uint32_t k_end_signature = 0x06054b50;
constexpr std::uint32_t k_zip64_end_signature = 0x06064b50;
constexpr std::uint32_t k_zip64_locator_signature = 0x07064b50;
constexpr std::size_t k_end_record_size = 22;
constexpr std::size_t k_chunk = 1 << 20;

std::uint16_t u16(const unsigned char* p) {
  return static_cast<std::uint16_t>(p[0] | (p[1] << 8));
}
std::uint32_t u32(const unsigned char* p) {
  return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
         (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}
std::uint64_t u64(const unsigned char* p) {
  return static_cast<std::uint64_t>(u32(p)) | (static_cast<std::uint64_t>(u32(p + 4)) << 32);
}

bool read_at(std::FILE* file, std::uint64_t offset, void* buffer, std::size_t size) {
  return util::seek_file(file, offset) && std::fread(buffer, 1, size, file) == size;
}

}  // namespace

bool ZipEntry::is_directory() const {
  return !name.empty() && name.back() == '/';
}

std::uint32_t ZipEntry::unix_file_type() const {
  return made_by_system == 3 ? (external_attributes >> 16) & 0170000 : 0;
}

Error ZipReader::corrupt(const std::string& what) const {
  return make_error("'" + util::to_utf8(m_path) + "' is not a valid zip archive: " + what,
                    "the file is truncated or damaged: download it again and compare its SHA-256");
}

Result<ZipReader> ZipReader::open(const std::filesystem::path& path) {
  util::FilePtr owned = util::open_file(path, "rb");
  if (!owned) {
    return make_error("cannot open '" + util::to_utf8(path) + "'", "check that the file exists and is readable");
  }
  CUDNNENV_TRY_ASSIGN(reader, open(owned.get(), path));
  reader->m_owned = std::move(owned);
  return std::move(*reader);
}

Result<ZipReader> ZipReader::open(std::FILE* file, const std::filesystem::path& path) {
  ZipReader reader;
  reader.m_path = path;
  reader.m_file = file;
  reader.m_file_size = util::file_size(file);
  if (reader.m_file_size < k_end_record_size) {
    return reader.corrupt("too short");
  }

  // The end record sits in the last 22 bytes plus up to 64 KiB of comment.
  const std::uint64_t tail_size = std::min<std::uint64_t>(reader.m_file_size, k_end_record_size + 0xFFFF);
  std::vector<unsigned char> tail(tail_size);
  if (!read_at(file, reader.m_file_size - tail_size, tail.data(), tail.size())) {
    return reader.corrupt("cannot read its end");
  }
  std::size_t end_at = std::string::npos;
  for (std::size_t i = tail.size() - k_end_record_size + 1; i-- > 0;) {
    if (u32(&tail[i]) == k_end_signature) {
      end_at = i;
      break;
    }
  }
  if (end_at == std::string::npos) {
    return reader.corrupt("no end of central directory (truncated?)");
  }
  const unsigned char* end = &tail[end_at];
  std::uint64_t entry_count = u16(end + 10);
  std::uint64_t directory_size = u32(end + 12);
  std::uint64_t directory_offset = u32(end + 16);
  const std::uint64_t end_offset = reader.m_file_size - tail_size + end_at;

  if (entry_count == 0xFFFF || directory_size == 0xFFFFFFFF || directory_offset == 0xFFFFFFFF) {
    // Zip64: a locator right before the end record points at the zip64 end record.
    unsigned char locator[20];
    if (end_offset < sizeof locator || !read_at(file, end_offset - sizeof locator, locator, sizeof locator) ||
        u32(locator) != k_zip64_locator_signature) {
      return reader.corrupt("zip64 locator missing");
    }
    unsigned char end64[56];
    if (!read_at(file, u64(locator + 8), end64, sizeof end64) || u32(end64) != k_zip64_end_signature) {
      return reader.corrupt("zip64 end record missing");
    }
    entry_count = u64(end64 + 32);
    directory_size = u64(end64 + 40);
    directory_offset = u64(end64 + 48);
  }
  // Checked without overflow: a zip64 record can claim offset + size past 2^64.
  if (directory_size > end_offset || directory_offset > end_offset - directory_size) {
    return reader.corrupt("central directory beyond the end of the file (truncated?)");
  }

  std::vector<unsigned char> directory(directory_size);
  if (!read_at(file, directory_offset, directory.data(), directory.size())) {
    return reader.corrupt("cannot read the central directory");
  }
  std::size_t at = 0;
  for (std::uint64_t i = 0; i < entry_count; ++i) {
    if (at + 46 > directory.size() || u32(&directory[at]) != k_central_signature) {
      return reader.corrupt("central directory entry " + std::to_string(i + 1) + " is damaged");
    }
    const unsigned char* p = &directory[at];
    ZipEntry entry;
    entry.made_by_system = p[5];
    entry.flags = u16(p + 8);
    entry.method = u16(p + 10);
    entry.crc32 = u32(p + 16);
    entry.compressed_size = u32(p + 20);
    entry.size = u32(p + 24);
    const std::size_t name_length = u16(p + 28);
    const std::size_t extra_length = u16(p + 30);
    const std::size_t comment_length = u16(p + 32);
    entry.external_attributes = u32(p + 38);
    entry.local_header_offset = u32(p + 42);
    if (at + 46 + name_length + extra_length + comment_length > directory.size()) {
      return reader.corrupt("central directory entry " + std::to_string(i + 1) + " is damaged");
    }
    entry.name.assign(reinterpret_cast<const char*>(p + 46), name_length);
    std::replace(entry.name.begin(), entry.name.end(), '\\', '/');

    // The zip64 extra field holds, in this order, whichever of size,
    // compressed size and offset did not fit in 32 bits.
    const unsigned char* extra = p + 46 + name_length;
    for (std::size_t e = 0; e + 4 <= extra_length;) {
      const std::uint16_t id = u16(extra + e);
      const std::uint16_t length = u16(extra + e + 2);
      if (id == 0x0001) {
        std::size_t field = e + 4;
        const std::size_t field_end = std::min<std::size_t>(e + 4 + length, extra_length);
        if (entry.size == 0xFFFFFFFF && field + 8 <= field_end) {
          entry.size = u64(extra + field);
          field += 8;
        }
        if (entry.compressed_size == 0xFFFFFFFF && field + 8 <= field_end) {
          entry.compressed_size = u64(extra + field);
          field += 8;
        }
        if (entry.local_header_offset == 0xFFFFFFFF && field + 8 <= field_end) {
          entry.local_header_offset = u64(extra + field);
        }
      }
      e += 4 + length;
    }
    if (entry.local_header_offset > directory_offset) {
      return reader.corrupt("entry '" + entry.name + "' starts beyond the central directory");
    }
    reader.m_entries.push_back(std::move(entry));
    at += 46 + name_length + extra_length + comment_length;
  }

  // Every entry's local header, name and data must fit before the next
  // entry's local header: entries that share bytes are refused.
  std::vector<std::size_t> order(reader.m_entries.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return reader.m_entries[a].local_header_offset < reader.m_entries[b].local_header_offset;
  });
  for (std::size_t k = 0; k < order.size(); ++k) {
    ZipEntry& entry = reader.m_entries[order[k]];
    entry.span_end = k + 1 < order.size() ? reader.m_entries[order[k + 1]].local_header_offset : directory_offset;
    const std::uint64_t room = entry.span_end - entry.local_header_offset;
    if (room < 30 || room - 30 < entry.name.size() || room - 30 - entry.name.size() < entry.compressed_size) {
      return make_error("'" + util::to_utf8(path) + "' is not a safe zip archive: entry '" + entry.name +
                            "' overlaps " +
                            (k + 1 < order.size() ? "'" + reader.m_entries[order[k + 1]].name + "'"
                                                  : std::string("the central directory")),
                        "entries that share bytes make a small file unpack to a huge one: use an official archive");
    }
  }
  return reader;
}

Result<void> ZipReader::read(const ZipEntry& entry, const DataSink& sink) {
  std::FILE* file = m_file;
  unsigned char local[30];
  if (!read_at(file, entry.local_header_offset, local, sizeof local) || u32(local) != k_local_signature) {
    return corrupt("local header of '" + entry.name + "' is missing");
  }
  if (entry.flags & 0x1) {
    return make_error("'" + entry.name + "' in '" + util::to_utf8(m_path) + "' is encrypted",
                      "official cuDNN archives are not encrypted: use an unencrypted copy");
  }
  const std::uint64_t data_offset = entry.local_header_offset + 30 + u16(local + 26) + u16(local + 28);
  if (data_offset > entry.span_end || entry.compressed_size > entry.span_end - data_offset) {
    return corrupt("data of '" + entry.name + "' runs into the next entry");
  }
  if (!util::seek_file(file, data_offset)) {
    return corrupt("cannot seek to '" + entry.name + "'");
  }

  std::vector<char> input(k_chunk);
  uLong crc = ::crc32(0, nullptr, 0);
  std::uint64_t produced = 0;
  std::uint64_t remaining = entry.compressed_size;

  if (entry.method == 0) {
    if (entry.compressed_size != entry.size) {
      return corrupt("stored entry '" + entry.name + "' has two different sizes");
    }
    while (remaining > 0) {
      const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(remaining, input.size()));
      if (std::fread(input.data(), 1, want, file) != want) {
        return corrupt("cannot read '" + entry.name + "'");
      }
      remaining -= want;
      produced += want;
      crc = ::crc32(crc, reinterpret_cast<const Bytef*>(input.data()), static_cast<uInt>(want));
      if (auto sent = sink(std::string_view(input.data(), want)); !sent) {
        return sent;
      }
    }
  } else if (entry.method == 8) {
    z_stream stream{};
    if (::inflateInit2(&stream, -MAX_WBITS) != Z_OK) {
      return make_error("cannot start zlib");
    }
    std::vector<char> output(k_chunk);
    int status = Z_OK;
    Result<void> failure;
    while (status != Z_STREAM_END && failure) {
      if (stream.avail_in == 0) {
        if (remaining == 0) {
          failure = corrupt("deflate data of '" + entry.name + "' ends early");
          break;
        }
        const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(remaining, input.size()));
        if (std::fread(input.data(), 1, want, file) != want) {
          failure = corrupt("cannot read '" + entry.name + "'");
          break;
        }
        remaining -= want;
        stream.next_in = reinterpret_cast<Bytef*>(input.data());
        stream.avail_in = static_cast<uInt>(want);
      }
      stream.next_out = reinterpret_cast<Bytef*>(output.data());
      stream.avail_out = static_cast<uInt>(output.size());
      status = ::inflate(&stream, Z_NO_FLUSH);
      if (status != Z_OK && status != Z_STREAM_END) {
        failure = corrupt("deflate data of '" + entry.name + "' is damaged");
        break;
      }
      const std::size_t got = output.size() - stream.avail_out;
      produced += got;
      if (produced > entry.size) {
        failure = corrupt("'" + entry.name + "' inflates to more than its recorded size");
        break;
      }
      crc = ::crc32(crc, reinterpret_cast<const Bytef*>(output.data()), static_cast<uInt>(got));
      if (got > 0) {
        failure = sink(std::string_view(output.data(), got));
      }
    }
    ::inflateEnd(&stream);
    if (!failure) {
      return failure;
    }
  } else {
    return make_error("'" + entry.name + "' in '" + util::to_utf8(m_path) + "' uses compression method " +
                          std::to_string(entry.method) + ", which cudnnenv does not read",
                      "official archives use deflate: re-create the zip with deflate or stored entries");
  }

  if (produced != entry.size) {
    return corrupt("'" + entry.name + "' has " + std::to_string(produced) + " bytes, the directory says " +
                   std::to_string(entry.size));
  }
  if (static_cast<std::uint32_t>(crc) != entry.crc32) {
    return corrupt("CRC-32 of '" + entry.name + "' does not match");
  }
  return {};
}

}  // namespace cudnnenv
