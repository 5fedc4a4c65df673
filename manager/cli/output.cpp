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

Json or_null(const std::string& value) { return value.empty() ? Json(nullptr) : Json(value); }

Json tree_to_json(const TreeRecord& record) {
  Json tree;
  tree["name"] = record.name;
  tree["version"] = record.version.str();
  tree["version_from"] = record.version_from;
  tree["build"] = or_null(record.version.build);
  tree["cuda"] = record.cuda ? Json(record.cuda->str()) : Json(nullptr);
  tree["cuda_from"] = or_null(record.cuda_from);
  tree["os"] = to_string(record.platform.os);
  tree["arch"] = to_string(record.platform.arch);
  tree["size"] = record.total_size();
  tree["files"] = record.files.size();
  tree["location"] = util::to_utf8(record.root);
  tree["library"] = util::to_utf8(record.library_path());
  tree["library_dir"] = util::to_utf8(record.resolve(record.library_dir));
  tree["include_dir"] = record.include_dir.empty() ? Json(nullptr) : Json(util::to_utf8(record.resolve(record.include_dir)));
  tree["adopted"] = record.location.has_value();
  tree["installed_at"] = or_null(record.installed_at);
  tree["source"] = Json{{"kind", or_null(record.source.kind)},
                        {"path", or_null(record.source.path)},
                        {"sha256", or_null(record.source.sha256)},
                        {"official", record.source.official}};
  return tree;
}

void print_json(const Json& value) { print(value.dump(2, ' ', false, Json::error_handler_t::replace) + "\n"); }

}  // namespace cudnnenv::cli
