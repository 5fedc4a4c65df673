// export modulefile's quoting: any value (a store path on Linux may hold any
// byte but NUL) written as a Lua string and as a Tcl word must read back as
// exactly that value (Tcl: values that are UTF-8; others are refused). The readers below follow the languages' rules
// for the escapes the writers use (Lua 5.x: \\ \" \n \ddd; Tcl 8.6: \\ \" \$ \[ \]
// \{ \} \; \n \uHHHH with surrogate pairs joined), and refuse any other
// backslash or an unescaped quote, '$' or '[' (which Tcl would substitute).
#include <cstdlib>
#include <optional>
#include <string>

#include "shell/modulefile.hpp"
#include "util/text.hpp"

namespace {

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> read_lua(const std::string& literal) {
  if (literal.size() < 2 || literal.front() != '"' || literal.back() != '"') return std::nullopt;
  std::string out;
  for (std::size_t i = 1; i + 1 < literal.size(); ++i) {
    const char c = literal[i];
    if (c == '"' || c == '\n') return std::nullopt;
    if (c != '\\') {
      out += c;
      continue;
    }
    const char next = literal[++i];
    if (next == '\\' || next == '"') {
      out += next;
    } else if (next == 'n') {
      out += '\n';
    } else if (next >= '0' && next <= '9') {
      int value = 0;
      for (int digits = 0; digits < 3 && literal[i] >= '0' && literal[i] <= '9'; ++digits)
        value = value * 10 + (literal[i++] - '0');
      --i;
      if (value > 255) return std::nullopt;
      out += static_cast<char>(value);
    } else {
      return std::nullopt;
    }
  }
  return out;
}

void append_utf8(std::string& out, unsigned code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

std::optional<std::string> read_tcl(const std::string& word) {
  if (word.size() < 2 || word.front() != '"' || word.back() != '"') return std::nullopt;
  std::string out;
  unsigned high = 0;  // a pending high surrogate
  for (std::size_t i = 1; i + 1 < word.size(); ++i) {
    const char c = word[i];
    if (c == '"' || c == '$' || c == '[' || static_cast<unsigned char>(c) >= 0x80) return std::nullopt;
    if (c != '\\') {
      out += c;
      continue;
    }
    const char next = word[++i];
    if (std::string_view("\\\"$[]{};").find(next) != std::string_view::npos) {
      out += next;
    } else if (next == 'n') {
      out += '\n';
    } else if (next == 'u') {
      unsigned code = 0;
      for (int k = 1; k <= 4; ++k) {
        const int digit = hex(word[i + k]);
        if (digit < 0) return std::nullopt;
        code = code * 16 + static_cast<unsigned>(digit);
      }
      i += 4;
      if (code >= 0xD800 && code < 0xDC00) {
        high = code;
        continue;
      }
      if (code >= 0xDC00 && code < 0xE000) {
        if (!high) return std::nullopt;
        code = 0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00);
        high = 0;
      }
      append_utf8(out, code);
    } else {
      return std::nullopt;
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string value(reinterpret_cast<const char*>(data), size);
  if (value.find('\0') != std::string::npos) return 0;  // refused before quoting (modulefile_problem)
  if (read_lua(cudnnenv::shell::lua_quote(value)) != value) std::abort();
  if (cudnnenv::util::is_valid_utf8(value) && read_tcl(cudnnenv::shell::tcl_quote(value)) != value) std::abort();
  return 0;
}
