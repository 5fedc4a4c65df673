#include <unistd.h>

#include <cstdlib>

#include "util/console.hpp"

namespace cudnnenv::util {

void write_utf8(std::FILE* stream, std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stream);
}

bool is_terminal(std::FILE* stream) {
  return ::isatty(::fileno(stream)) == 1;
}

bool enable_colours(std::FILE* stream) {
  const char* term = std::getenv("TERM");
  return is_terminal(stream) && !(term && std::string_view(term) == "dumb");
}

std::optional<std::string> encode_for_console(std::string_view utf8) {
  for (const char c : utf8) {
    if (static_cast<unsigned char>(c) >= 0x80) {
      return std::nullopt;
    }
  }
  return std::string(utf8);
}

std::optional<ExecutionPolicy> powershell_execution_policy() {
  return std::nullopt;
}

Result<std::string> read_cmd_autorun() {
  return make_error("cmd's AutoRun is a Windows setting", "run this on Windows", ExitCode::usage);
}

Result<void> write_cmd_autorun(const std::string&) {
  return make_error("cmd's AutoRun is a Windows setting", "run this on Windows", ExitCode::usage);
}

}  // namespace cudnnenv::util
