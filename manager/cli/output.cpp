#include "cli/output.hpp"

#include "util/console.hpp"

#include <cstdio>
#include <sstream>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "util/text.hpp"

namespace cudnnenv::cli {

void init_logging(bool verbose) {
  // spdlog's default logger writes to stdout; stdout is for what the user
  // asked for (and what shells eval), so replace it with a stderr one.
  auto logger = spdlog::stderr_logger_st("cudnnenv");
  logger->set_pattern("cudnnenv: %l: %v");
  logger->set_level(verbose ? spdlog::level::debug : spdlog::level::warn);
  spdlog::set_default_logger(logger);
}

// Messages carry names from archives, folders and project files: every
// control byte is shown escaped, so no name can drive the terminal.
void log_warning(std::string_view message) { spdlog::warn("{}", util::printable(message)); }
void log_debug(std::string_view message) { spdlog::debug("{}", util::printable(message)); }

void print_error(const Error& error) {
  std::fflush(stdout);
  util::write_utf8(stderr, "cudnnenv: error: " + util::printable(error.message) + "\n" +
                               (error.hint.empty() ? std::string() : "  hint: " + util::printable(error.hint) + "\n"));
}

void print_diagnostic(std::string_view text) {
  std::fflush(stdout);
  std::string out;
  for (const auto& line : util::split(text, '\n')) {
    out += util::printable(line) + "\n";
  }
  if (!text.empty() && text.back() == '\n') {
    out.pop_back();  // split gives an empty last line after a final newline
  }
  util::write_utf8(stderr, out);
}

void print_note(std::string_view message) { print_diagnostic("cudnnenv: " + std::string(message) + "\n"); }

void print(std::string_view text) { util::write_utf8(stdout, text); }

toml::table tree_to_table(const TreeRecord& record) {
  toml::table table;
  table.insert("name", record.name);
  table.insert("version", record.version.str());
  table.insert("version_from", record.version_from);
  if (record.version.build) {
    table.insert("build", *record.version.build);
  }
  table.insert("cuda", record.cuda ? record.cuda->str() : std::string());
  table.insert("cuda_from", record.cuda_from);
  table.insert("os", to_string(record.platform.os));
  table.insert("arch", to_string(record.platform.arch));
  table.insert("size", static_cast<std::int64_t>(record.total_size()));
  table.insert("files", static_cast<std::int64_t>(record.files.size()));
  table.insert("location", util::to_utf8(record.root));
  table.insert("library", util::to_utf8(record.library_path()));
  table.insert("library_dir", util::to_utf8(record.resolve(record.library_dir)));
  table.insert("include_dir", record.include_dir.empty() ? std::string() : util::to_utf8(record.resolve(record.include_dir)));
  table.insert("adopted", record.location.has_value());
  table.insert("installed_at", record.installed_at);
  toml::table source;
  source.insert("kind", record.source.kind);
  source.insert("path", record.source.path);
  source.insert("sha256", record.source.sha256);
  source.insert("official", record.source.official);
  table.insert("source", std::move(source));
  return table;
}

std::string to_json(const toml::node& node) {
  std::ostringstream out;
  if (const auto* table = node.as_table()) {
    out << toml::json_formatter(*table);
  } else if (const auto* array = node.as_array()) {
    out << toml::json_formatter(*array);
  }
  out << "\n";
  return out.str();
}

}  // namespace cudnnenv::cli
