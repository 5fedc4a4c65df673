#include "cli/output.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "util/console.hpp"

#include <cstdio>
#include <sstream>

#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include "integrate/cdi.hpp"
#include "integrate/change.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv::cli {

namespace {

// Colours on `stream` (stdout or stderr): a terminal that shows them, and no
// NO_COLOR (https://no-color.org: set and not empty). Decided once per stream.
bool colours_on(std::FILE* stream) {
  static const bool no_colour = [] {
    const char* value = std::getenv("NO_COLOR");
    return value && *value;
  }();
  static const bool out = !no_colour && util::enable_colours(stdout);
  static const bool err = !no_colour && util::enable_colours(stderr);
  return stream == stdout ? out : err;
}

// `text` in SGR `code` ("1;31": bold red) when colours are on for `stream`.
std::string painted(std::FILE* stream, const char* code, std::string_view text) {
  if (!colours_on(stream)) return std::string(text);
  return std::string("\x1b[") + code + "m" + std::string(text) + "\x1b[0m";
}

// spdlog's default logger writes to stdout, which is for what the user asked
// for (and what shells eval). This one writes "cudnnenv: <level>: <message>"
// through print_diagnostic: every control byte escaped (messages carry names
// from archives, folders and project files), the Windows console's encoding.
class DiagnosticSink final : public spdlog::sinks::base_sink<spdlog::details::null_mutex> {
 protected:
  void sink_it_(const spdlog::details::log_msg& message) override {
    const char* level = message.level >= spdlog::level::err    ? "error"
                        : message.level == spdlog::level::warn ? "warning"
                        : message.level == spdlog::level::info ? "info"
                                                               : "debug";
    const std::string text =
        "cudnnenv: " + std::string(level) + ": " + std::string(message.payload.data(), message.payload.size()) + "\n";
    if (message.level < spdlog::level::warn || !colours_on(stderr)) {
      print_diagnostic(text);
      return;
    }
    // The level word painted, after the text was made printable.
    std::fflush(stdout);
    const std::string word = std::string(level) + ":";
    std::string out;
    for (const auto& line : util::split(text.substr(std::strlen("cudnnenv: ")), '\n')) {
      if (!out.empty()) out += "\n";
      out += util::printable(line);
    }
    util::write_utf8(stderr,
                     "cudnnenv: " + painted(stderr, message.level >= spdlog::level::err ? "1;31" : "1;33", word) +
                         out.substr(word.size()));
  }
  void flush_() override { std::fflush(stderr); }
};

}  // namespace

void init_logging(int verbosity, const std::optional<std::string>& variable) {
  auto logger = std::make_shared<spdlog::logger>("cudnnenv", std::make_shared<DiagnosticSink>());
  // -v: the decisions (which selection won, checks and their cache); -vv:
  // also each source looked at and each file stat'ed. CUDNNENV_LOG wins.
  auto level = verbosity >= 2 ? spdlog::level::trace : verbosity == 1 ? spdlog::level::debug : spdlog::level::warn;
  std::string bad;
  if (variable && !variable->empty()) {
    // spdlog's own names (trace, debug, info, warning, error, critical, off; warn, err); it
    // answers `off` for a name it does not know.
    const auto named = spdlog::level::from_str(*variable);
    if (named != spdlog::level::off || *variable == "off") {
      level = named;
    } else {
      bad = *variable;
    }
  }
  logger->set_level(level);
  spdlog::set_default_logger(std::move(logger));
  if (!bad.empty()) {
    spdlog::warn("CUDNNENV_LOG is '{}': use trace, debug, info, warning, error or off", bad);
  }
}

void log_warning(std::string_view message) {
  spdlog::warn("{}", message);
}
void log_debug(std::string_view message) {
  spdlog::debug("{}", message);
}

void print_error(const Error& error) {
  std::fflush(stdout);
  util::write_utf8(stderr, "cudnnenv: " + painted(stderr, "1;31", "error:") + " " + util::printable(error.message) +
                               "\n" +
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

bool stderr_is_terminal() {
  return util::is_terminal(stderr);
}

void print_progress(std::string_view line, bool last) {
  // \r to the line's start, the text, then blanks over what a longer line left.
  static std::size_t previous = 0;
  std::string out = "\r" + util::printable(line);
  const std::size_t width = out.size();
  if (width < previous) out += std::string(previous - width, ' ');
  previous = last ? 0 : width;
  if (last) out += "\n";
  util::write_utf8(stderr, out);
  std::fflush(stderr);
}

void print_note(std::string_view message) {
  print_diagnostic("cudnnenv: " + std::string(message) + "\n");
}

void print_marked(Paint paint, std::string_view mark, std::string_view rest) {
  if (!colours_on(stdout)) {
    print(std::string(mark) + std::string(rest));
    return;
  }
  std::fflush(stdout);
  util::write_utf8(stdout, painted(stdout,
                                   paint == Paint::ok     ? "32"
                                   : paint == Paint::warn ? "33"
                                                          : "1;31",
                                   util::printable(mark)));
  print(rest);
}

void print_prompt(std::string_view text) {
  std::fflush(stdout);
  std::string out;
  bool first = true;
  for (const auto& line : util::split(text, '\n')) {
    out += (first ? "" : "\n") + util::printable(line);
    first = false;
  }
  util::write_utf8(stderr, out);
  std::fflush(stderr);
}

void print_script(std::string_view text) {
  util::write_utf8(stdout, text);
}

void print(std::string_view text) {
  std::string out;
  const auto lines = util::split(text, '\n');
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    const bool cr = !line.empty() && line.back() == '\r';
    if (cr) line.remove_suffix(1);
    out += util::printable(line) + (cr ? "\r" : "") + (i + 1 < lines.size() ? "\n" : "");
  }
  util::write_utf8(stdout, out);
}

Json tree_to_json(const TreeRecord& record) {
  Json tree;
  tree["kind"] = to_string(record.kind);
  tree["name"] = record.name;
  tree["version"] = record.version.str();
  tree["version_from"] = record.version_from;
  tree["build"] = or_null(record.version.build);
  tree["cuda"] = record.cuda ? Json(record.cuda->str()) : Json(nullptr);
  tree["cuda_from"] = or_null(record.cuda_from);
  tree["cuda_variant"] = record.cuda_variant ? Json(record.cuda_variant->str()) : Json(nullptr);
  tree["cudart"] = record.cudart ? Json(record.cudart->str()) : Json(nullptr);
  tree["serves"] = describe_served_cuda(record);
  tree["os"] = to_string(record.platform.os);
  tree["arch"] = to_string(record.platform.arch);
  tree["size"] = record.total_size();
  tree["files"] = record.files.size();
  tree["location"] = util::to_utf8(record.root);
  tree["library"] = util::to_utf8(record.library_path());
  tree["library_dir"] = util::to_utf8(record.resolve(record.layout.library_dir));
  tree["include_dir"] = record.layout.include_dir.empty()
                            ? Json(nullptr)
                            : Json(util::to_utf8(record.resolve(record.layout.include_dir)));
  tree["adopted"] = record.location.has_value();
  tree["personal"] = record.personal;
  tree["installed_at"] = or_null(record.installed_at);
  tree["source"] = Json{{"kind", or_null(record.source.kind)},
                        {"path", or_null(record.source.path)},
                        {"sha256", or_null(record.source.sha256)},
                        {"official", or_null(record.source.official)},
                        {"healed_from", or_null(record.source.healed_from)}};
  Json components = Json::array();
  for (const auto& component : record.components) {
    components.push_back(Json{{"name", component.name}, {"version", component.version}});
  }
  tree["components"] = std::move(components);
  return tree;
}

void print_json(const Json& value) {
  print_script(value.dump(2, ' ', false, Json::error_handler_t::replace) + "\n");
}

void print_table(const std::vector<std::vector<std::string>>& rows) {
  if (rows.empty()) return;
  std::vector<std::size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size() && i < widths.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    print(line + "\n");
  }
}

Result<void> write_output_file(const std::filesystem::path& file, std::string_view text) {
  if (const auto folder = file.parent_path(); !folder.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
  }
  return util::write_file_atomic(file, text);
}

void print_changes(const FileChanges& changes) {
  for (const auto& change : changes) print(describe(change) + "\n");
}

void print_cdi_refreshes(const std::vector<CdiRefresh>& refreshes, bool json) {
  for (const auto& refresh : refreshes) {
    if (refresh.warning) log_warning(*refresh.warning);
    for (const auto& change : refresh.changes) {
      if (json) {
        print_note(describe(change));
      } else {
        print(describe(change) + "\n");
      }
    }
    if (refresh.note) print_note(*refresh.note);
  }
}

}  // namespace cudnnenv::cli
