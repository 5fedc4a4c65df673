// Output conventions: stdout carries only what was asked for; errors,
// warnings and notes go to stderr as "cudnnenv: <level>: ...".
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/tree.hpp"
#include "util/json.hpp"
#include "util/result.hpp"

namespace cudnnenv {
struct FileChange;  // integrate/change.hpp
using FileChanges = std::vector<FileChange>;
struct CdiRefresh;  // integrate/cdi.hpp
}  // namespace cudnnenv

namespace cudnnenv::cli {

// The one logging path (spdlog), to stderr: warnings always; -v (verbosity
// 1) the decisions, -vv (2) every step; CUDNNENV_LOG (`variable`: trace,
// debug, info, warning, error, off) overrides both. The core logs through
// spdlog's default logger, which this replaces.
void init_logging(int verbosity, const std::optional<std::string>& variable);
void log_warning(std::string_view message);
void log_debug(std::string_view message);

// "cudnnenv: error: <message>" and "  hint: <hint>" on stderr.
void print_error(const Error& error);

// "cudnnenv: <message>" on stderr: what a command did, when its stdout may be
// evaluated by a shell (use, activate) and so must hold nothing else.
void print_note(std::string_view message);

// `text` (one or more lines) on stderr, each line through util::printable, in
// the console's own encoding on Windows: what a command reports about itself
// (exec's notes and --report, list's notes). Every stderr line goes through
// here, print_note or print_error.
void print_diagnostic(std::string_view text);

// Whether stderr is a terminal (progress redrawn in place) or not (a few lines).
bool stderr_is_terminal();

// One line of progress on a terminal's stderr, redrawn in place ("\r");
// `last` ends it with a newline.
void print_progress(std::string_view line, bool last);

// A check's mark on stdout ("  ok    ", "  FAIL  "...) in green, yellow or red
// on a terminal that shows colours, unless NO_COLOR is set; then `rest` as
// print() writes it.
enum class Paint { ok, warn, fail };
void print_marked(Paint paint, std::string_view mark, std::string_view rest);

// Writes `text` to stdout (UTF-8), each line through util::printable (line
// ends kept, CRLF too), terminal or not: the one edge where names from
// folders, archives and handed-over files reach a person or a pipe, so none
// can drive a terminal or forge a line. JSON (print_json) escapes its own.
void print(std::string_view text);

// Writes `text` to stdout exactly: what a shell evaluates or reads as data
// (activate's and the hook's scripts, init, completion candidates, JSON),
// whose renderers quote every value for that shell.
void print_script(std::string_view text);

// `rows` (the first a header, each row as many cells) on stdout, each
// column as wide as its widest cell and two spaces apart; the last column
// is not padded.
void print_table(const std::vector<std::vector<std::string>>& rows);

// A question on stderr without a line end ("... [y/N] "), through
// util::printable.
void print_prompt(std::string_view text);

// Json and or_null: util/json.hpp (the core parses JSON too).
using cudnnenv::Json;
using cudnnenv::or_null;

// A tree as the JSON object that 'list --json' and 'install --json' print.
Json tree_to_json(const TreeRecord& record);

// `value` on stdout, indented, one final newline. Text that is not UTF-8 (a
// folder name on Linux) comes out with U+FFFD in its place, never an abort.
void print_json(const Json& value);

// Writes `text` to `file`, a file the user named for this command's output
// (doctor --output, install cuda --print-urls, __man's pages), atomically,
// its folder made as needed: the one place the CLI writes to the disk.
// What an export or a refresh changed, a line each ("wrote FILE (ABOUT)").
void print_changes(const FileChanges& changes);
// The CDI specs a remove or an install wrote again: their changes, notes and
// warnings; with `json` (stdout holds JSON) the changes as notes on stderr.
void print_cdi_refreshes(const std::vector<CdiRefresh>& refreshes, bool json = false);

Result<void> write_output_file(const std::filesystem::path& file, std::string_view text);

}  // namespace cudnnenv::cli
