#include "store/tree.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <sstream>

#include <toml++/toml.h>

#include "formats/toml_text.hpp"
#include "util/fs.hpp"
#include "util/sha256.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

std::uint64_t TreeRecord::total_size() const {
  std::uint64_t total = 0;
  for (const auto& file : files) {
    if (file.link.empty()) {
      total += file.size;
    }
  }
  return total;
}

fs::path TreeRecord::resolve(const std::string& relative) const {
  const fs::path path = util::path_from_utf8(relative);
  if (path.is_absolute() || relative.empty()) {
    return relative.empty() ? root : path;
  }
  return (root / path).lexically_normal();
}

std::optional<std::string> changeable_by_others(const TreeRecord& record) {
  if (auto why = util::changeable_by_others(record.root)) return why;
  for (const FileRecord& file : record.files) {
    if (auto why = util::changeable_by_others(record.resolve(file.path))) return why;
  }
  return std::nullopt;
}

namespace {

// The version the served range starts from: the variant, else the cudart.
std::optional<CudaVersion> served_base(const TreeRecord& tree) {
  if (tree.cuda_variant) return tree.cuda_variant;
  if (tree.cudart) return CudaVersion{tree.cudart->major, std::nullopt};
  return tree.cuda ? std::optional(CudaVersion{tree.cuda->major, std::nullopt}) : std::nullopt;
}

}  // namespace

bool serves_cuda(const TreeRecord& tree, const CudaVersion& asked) {
  const auto base = served_base(tree);
  if (!base || base->major != asked.major) return false;
  return !asked.minor || !base->minor || *asked.minor >= *base->minor;
}

std::string describe_served_cuda(const TreeRecord& tree) {
  const auto base = served_base(tree);
  if (!base) return "an unknown CUDA";
  const std::string major = std::to_string(base->major);
  std::string text = base->minor ? "CUDA " + base->str() + " and newer " + major + ".x" : "CUDA " + major + ".x";
  if (tree.cudart) text += " (built with " + tree.cudart->str() + ")";
  return text;
}

std::string to_string(TreeKind kind) {
#define CUDNNENV_KIND_WORD(kind_, noun, short_noun, json_key, folder_words, report_label, pin_variable, \
                           active_variable, every_name)                                                 \
  if (kind == TreeKind::kind_) return #kind_;
  CUDNNENV_COMPONENTS(CUDNNENV_KIND_WORD)
#undef CUDNNENV_KIND_WORD
  return "";
}

std::optional<TreeKind> parse_tree_kind(std::string_view word) {
#define CUDNNENV_KIND_OF(kind, noun, short_noun, json_key, folder_words, report_label, pin_variable, active_variable, \
                         every_name)                                                                                  \
  if (word == #kind) return TreeKind::kind;
  CUDNNENV_COMPONENTS(CUDNNENV_KIND_OF)
#undef CUDNNENV_KIND_OF
  return std::nullopt;
}

fs::path record_path(const fs::path& tree_dir) {
  return tree_dir / ".cudnnenv" / "tree.toml";
}

std::string serialize(const TreeRecord& record) {
  toml::table table;
  table.insert("format", TreeRecord::k_format);
  if (record.kind != TreeKind::cudnn) table.insert("kind", to_string(record.kind));
  table.insert("name", record.name);
  table.insert("version", record.version.str());
  table.insert("version_from", record.version_from);
  if (record.cuda) {
    table.insert("cuda", record.cuda->str());
    table.insert("cuda_from", record.cuda_from);
  }
  if (record.cuda_variant) table.insert("cuda_variant", record.cuda_variant->str());
  if (record.cudart) table.insert("cudart", record.cudart->str());
  table.insert("os", to_string(record.platform.os));
  table.insert("arch", to_string(record.platform.arch));
  table.insert("library_dir", record.layout.library_dir);
  table.insert("main_library", record.layout.main_library);
  table.insert("include_dir", record.layout.include_dir);
  if (!record.layout.import_lib_dir.empty()) {
    table.insert("import_lib_dir", record.layout.import_lib_dir);
  }
  table.insert("installed_at", record.installed_at);
  if (record.location) {
    table.insert("location", *record.location);
  }
  toml::table source;
  source.insert("kind", record.source.kind);
  source.insert("path", record.source.path);
  if (!record.source.sha256.empty()) {
    source.insert("sha256", record.source.sha256);
    source.insert("size", static_cast<std::int64_t>(record.source.size));
  }
  if (!record.source.healed_from.empty()) {
    source.insert("healed_from", record.source.healed_from);
  }
  if (!record.source.official.empty()) {
    source.insert("official", record.source.official);
  }
  table.insert("source", std::move(source));
  if (!record.components.empty()) {
    toml::array components;
    for (const auto& component : record.components) {
      components.push_back(toml::table{{"name", component.name}, {"version", component.version}});
    }
    table.insert("components", std::move(components));
  }
  toml::array files;
  for (const auto& file : record.files) {
    toml::table entry;
    entry.insert("path", file.path);
    entry.insert("size", static_cast<std::int64_t>(file.size));
    entry.insert("sha256", file.sha256);
    if (!file.link.empty()) {
      entry.insert("link", file.link);
    }
    files.push_back(std::move(entry));
  }
  table.insert("files", std::move(files));
  std::ostringstream out;
  out << "# Written by cudnnenv when this tree was installed; do not edit.\n" << table << "\n";
  return out.str();
}

Result<TreeRecord> parse_record(std::string_view text, const fs::path& tree_dir, const fs::path& record_file) {
  CUDNNENV_TRY_ASSIGN(
      parsed, parse_toml(text, record_file, "the tree record is damaged: remove the tree and install it again"));
  toml::table table = std::move(*parsed);
  auto bad = [&](const std::string& what) {
    return make_error("'" + util::to_utf8(record_file) + "' is not a valid tree record: " + what,
                      "remove the tree and install it again");
  };
  if (table["format"].value_or(0) != TreeRecord::k_format) {
    return bad("unknown format");
  }
  TreeRecord record;
  const std::string kind = table["kind"].value_or(to_string(TreeKind::cudnn));
  const auto known = parse_tree_kind(kind);
  if (!known) return bad("unknown kind '" + util::printable(kind) + "'");
  record.kind = *known;
  record.name = table["name"].value_or(std::string());
  const auto version = parse_version(table["version"].value_or(std::string()));
  const auto os = parse_os(table["os"].value_or(std::string()));
  const auto arch = parse_arch(table["arch"].value_or(std::string()));
  if (record.name.empty() || !version || !os || !arch) {
    return bad("name, version, os or arch missing");
  }
  record.version = *version;
  record.version_from = table["version_from"].value_or(std::string());
  if (auto cuda = table["cuda"].value<std::string>()) {
    record.cuda = parse_cuda_version(*cuda);
    record.cuda_from = table["cuda_from"].value_or(std::string());
  }
  record.cuda_variant = parse_cuda_version(table["cuda_variant"].value_or(std::string()));
  record.cudart = parse_cuda_version(table["cudart"].value_or(std::string()));
  // A record written before both were kept: its one CUDA, by where it came from.
  if (!record.cuda_variant && !record.cudart && record.cuda) {
    (record.cuda_from == "library" ? record.cudart : record.cuda_variant) = record.cuda;
  }
  record.platform = Platform{*os, *arch};
  record.layout.library_dir = table["library_dir"].value_or(std::string());
  record.layout.main_library = table["main_library"].value_or(std::string());
  record.layout.include_dir = table["include_dir"].value_or(std::string());
  record.layout.import_lib_dir = table["import_lib_dir"].value_or(std::string());
  record.installed_at = table["installed_at"].value_or(std::string());
  if (auto location = table["location"].value<std::string>()) {
    record.location = *location;
  }
  record.source.kind = table["source"]["kind"].value_or(std::string());
  record.source.path = table["source"]["path"].value_or(std::string());
  record.source.sha256 = table["source"]["sha256"].value_or(std::string());
  record.source.size = static_cast<std::uint64_t>(table["source"]["size"].value_or(std::int64_t{0}));
  record.source.official = table["source"]["official"].value_or(std::string());
  record.source.healed_from = table["source"]["healed_from"].value_or(std::string());
  if (const toml::array* components = table["components"].as_array()) {
    for (const auto& node : *components) {
      const toml::table* entry = node.as_table();
      if (!entry) return bad("a components entry is not a table");
      record.components.push_back(
          {(*entry)["name"].value_or(std::string()), (*entry)["version"].value_or(std::string())});
    }
  }
  if (const toml::array* files = table["files"].as_array()) {
    for (const auto& node : *files) {
      const toml::table* entry = node.as_table();
      if (!entry) {
        return bad("a files entry is not a table");
      }
      FileRecord file;
      file.path = (*entry)["path"].value_or(std::string());
      file.size = static_cast<std::uint64_t>((*entry)["size"].value_or(std::int64_t{0}));
      file.sha256 = (*entry)["sha256"].value_or(std::string());
      file.link = (*entry)["link"].value_or(std::string());
      record.files.push_back(std::move(file));
    }
  }
  if (record.layout.main_library.empty()) {
    return bad("main_library missing");
  }
  record.root = record.location ? util::path_from_utf8(*record.location) : tree_dir;
  return record;
}

Result<TreeRecord> read_record(const fs::path& tree_dir, RecordPart part) {
  const fs::path file = record_path(tree_dir);
  auto text = util::read_file(file);
  if (!text) {
    return make_error("'" + util::to_utf8(tree_dir) + "' has no readable tree record",
                      "it is not a cudnnenv tree: 'cudnnenv adopt' registers a folder", ExitCode::not_found);
  }
  if (part == RecordPart::identity) {
    // serialize() writes the [[files]] array of tables last.
    if (const auto files = text->find("\n[[files]]"); files != std::string::npos) {
      text->resize(files + 1);
    }
  }
  CUDNNENV_TRY_ASSIGN(record, parse_record(*text, tree_dir, file));
  // The record names its own folder: remove and the pin build paths from the
  // name, so a record saying '../elsewhere' must never be taken at its word.
  if (record->name != util::to_utf8(tree_dir.filename())) {
    return make_error("'" + util::to_utf8(file) + "' is not a valid tree record: it names the tree '" +
                          util::printable(record->name) + "', not its folder's name",
                      "remove the folder and install the tree again");
  }
  return record;
}

std::string utc_timestamp() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm parts{};
#ifdef _WIN32
  ::gmtime_s(&parts, &now);
#else
  ::gmtime_r(&now, &parts);
#endif
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return buffer;
}

std::vector<std::string> changed_files(const TreeRecord& record) {
  std::vector<std::string> changed;
  for (const auto& file : record.files) {
    std::error_code ec;
    const auto size = fs::file_size(record.resolve(file.path), ec);
    if (ec || size != file.size) {
      changed.push_back(file.path);
    }
  }
  return changed;
}

std::optional<std::chrono::system_clock::time_point> parse_utc_timestamp(std::string_view text) {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  char tail = 0;
  if (text.size() != 20 ||
      std::sscanf(std::string(text).c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c", &year, &month, &day, &hour, &minute, &second,
                  &tail) != 7 ||
      tail != 'Z' || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return std::nullopt;
  }
  // Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
  const int y = year - (month <= 2);
  const int era = (y >= 0 ? y : y - 399) / 400;
  const int yoe = y - era * 400;
  const int doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const long long days = static_cast<long long>(era) * 146097 + doe - 719468;
  return std::chrono::system_clock::time_point(std::chrono::seconds(days * 86400 + hour * 3600 + minute * 60 + second));
}

std::vector<std::string> modified_files(const TreeRecord& record) {
  std::vector<std::string> modified;
  const auto installed = parse_utc_timestamp(record.installed_at);
  if (!installed) {
    return modified;
  }
  for (const auto& file : record.files) {
    std::error_code ec;
    const fs::path path = record.resolve(file.path);
    const auto written = fs::last_write_time(path, ec);
    if (ec || fs::file_size(path, ec) != file.size || ec) {
      continue;  // missing or another size: changed_files says so
    }
    const auto when = std::chrono::file_clock::to_sys(written);
    if (when <= *installed + std::chrono::seconds(1)) {  // installed_at is cut to the second
      continue;
    }
    auto hash = util::sha256_file(path);
    if (!hash || *hash != file.sha256) {
      modified.push_back(file.path);
    }
  }
  return modified;
}

}  // namespace cudnnenv
