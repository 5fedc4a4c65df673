#include "formats/toml_text.hpp"

#include <algorithm>
#include <cstdio>
#include <variant>

#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

struct Place {
  std::size_t line = 1;
  std::size_t column = 1;
};

struct Refusal {
  Place place;
  std::string what;
};

std::string escape(char32_t code) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, code <= 0xFFFF ? "\\u%04X" : "\\U%08X", static_cast<unsigned>(code));
  return buffer;
}

// `text` with every character outside ASCII written as TOML reads the same
// value (see the header), or where it cannot be.
// A cursor over a token for is_toml_scalar: each step consumes what it
// matches and says whether it did.
class Scan {
 public:
  explicit Scan(std::string_view text) : m_text(text) {}

  bool done() const { return m_at == m_text.size(); }
  bool one(std::string_view choices) {
    if (m_at < m_text.size() && choices.find(m_text[m_at]) != std::string_view::npos) {
      ++m_at;
      return true;
    }
    return false;
  }
  bool word(std::string_view expected) {
    if (m_text.substr(m_at, expected.size()) != expected) return false;
    m_at += expected.size();
    return true;
  }
  // `count` characters of `digits`.
  bool exactly(std::string_view digits, int count) {
    for (int i = 0; i < count; ++i) {
      if (!one(digits)) return false;
    }
    return true;
  }
  // D(_?D)*: a digit, then digits each after at most one '_'.
  bool grouped(std::string_view digits) {
    if (!one(digits)) return false;
    for (;;) {
      const std::size_t before = m_at;
      one("_");
      if (!one(digits)) {
        m_at = before;
        return true;
      }
    }
  }
  std::size_t at() const { return m_at; }
  void reset(std::size_t at) { m_at = at; }

 private:
  std::string_view m_text;
  std::size_t m_at = 0;
};

constexpr std::string_view k_digits = "0123456789";

// [+-]?(0|[1-9](_?[0-9])*)(\.[0-9](_?[0-9])*)?([eE][+-]?[0-9](_?[0-9])*)?
bool is_decimal(std::string_view token) {
  Scan scan(token);
  scan.one("+-");
  if (!scan.one("0") && !(scan.one("123456789") && (scan.reset(scan.at() - 1), scan.grouped(k_digits)))) {
    return false;
  }
  if (scan.one(".") && !scan.grouped(k_digits)) return false;
  if (scan.one("eE")) {
    scan.one("+-");
    if (!scan.grouped(k_digits)) return false;
  }
  return scan.done();
}

// HH:MM:SS(\.[0-9]+)?
bool time_of_day(Scan& scan) {
  if (!(scan.exactly(k_digits, 2) && scan.one(":") && scan.exactly(k_digits, 2) && scan.one(":") &&
        scan.exactly(k_digits, 2))) {
    return false;
  }
  if (scan.one(".")) {
    if (!scan.one(k_digits)) return false;
    while (scan.one(k_digits)) {
    }
  }
  return true;
}

// YYYY-MM-DD([Tt ]time([Zz]|[+-]HH:MM)?)?
bool is_date(std::string_view token) {
  Scan scan(token);
  if (!(scan.exactly(k_digits, 4) && scan.one("-") && scan.exactly(k_digits, 2) && scan.one("-") &&
        scan.exactly(k_digits, 2))) {
    return false;
  }
  if (scan.done()) return true;
  if (!scan.one("Tt ") || !time_of_day(scan)) return false;
  if (scan.done() || scan.one("Zz")) return scan.done();
  return scan.one("+-") && scan.exactly(k_digits, 2) && scan.one(":") && scan.exactly(k_digits, 2) && scan.done();
}

constexpr std::size_t k_max_key_parts = 128;

std::variant<std::string, Refusal> to_ascii(std::string_view text) {
  enum class State { normal, comment, basic, literal, multi_basic, multi_literal };
  State state = State::normal;
  bool line_start = true;     // outside strings: nothing but whitespace yet on this line
  bool in_value = false;      // after a key's '=', until the value ends
  std::string open;           // the '[' and '{' of a value that are still open, innermost last
  bool expect_value = false;  // after '=', or '[' / ',' in an array: a value comes next
  std::string out;
  out.reserve(text.size());
  Place place;
  std::size_t key_dots = 0;  // on this line, outside strings and comments
  auto run_of = [&](std::size_t at, char quote) {
    std::size_t n = 0;
    while (at + n < text.size() && text[at + n] == quote) ++n;
    return n;
  };
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const Place here = place;
    // TOML allows no raw control character but tab and line breaks, in strings and comments too.
    if ((c < 0x20 && c != '\t' && c != '\n' && !(c == '\r' && i + 1 < text.size() && text[i + 1] == '\n')) ||
        c == 0x7F) {
      char what[64];
      std::snprintf(what, sizeof what, "a control character (U+%04X)", c);
      return Refusal{here, what};
    }
    if (c == '\n') {
      ++place.line;
      place.column = 1;
      key_dots = 0;
    } else {
      ++place.column;
    }
    if (c >= 0x80) {
      const auto [code, length] = util::decode_utf8(text, i);
      if (length == 0) {
        return Refusal{here, "the file is not UTF-8"};
      }
      switch (state) {
        case State::normal:
          return Refusal{here, "a character outside ASCII outside a string or comment"};
        case State::comment:
          out += '?';
          break;
        default:
          out += escape(code);
          break;
      }
      i += length;
      continue;
    }
    switch (state) {
      case State::normal:
        // toml++ recurses once per part of a dotted key or table header (its 256-deep limit covers
        // values only): 200,000 parts overflowed the stack. A bare value never reaches here.
        if (c == '.' && ++key_dots > k_max_key_parts) {
          return Refusal{here,
                         "a key or table header of more than " + std::to_string(k_max_key_parts) + " dotted parts"};
        }
        if (c == '\n') {
          line_start = true;
          if (open.empty()) in_value = false;
        } else if (c == ' ' || c == '\t' || c == '\r') {
          // whitespace keeps line_start as it is
        } else if (expect_value && c != '"' && c != '\'' && c != '[' && c != '{' && c != ']' && c != '#' && c != ',' &&
                   c != '}') {
          // A bare value: toml++ 3.3 scans numbers and dates on assumptions a malformed one breaks
          // (`2026-12-01Tz0`, found by fuzz_toml); only well-formed scalars reach it.
          std::size_t end = i;
          auto terminator = [&](std::size_t at) {
            const char t = text[at];
            return t == ' ' || t == '\t' || t == '\r' || t == '\n' || t == ',' || t == ']' || t == '}' || t == '#';
          };
          while (end < text.size() && !terminator(end)) ++end;
          if (end - i == 10 && end + 1 < text.size() && text[end] == ' ' && text[end + 1] >= '0' &&
              text[end + 1] <= '9') {
            for (++end; end < text.size() && !terminator(end);) ++end;  // a date, a space, a time
          }
          const std::string token(text.substr(i, end - i));
          if (!is_toml_scalar(token)) {
            return Refusal{here, "'" + token + "' is not a TOML value"};
          }
          out += token;
          place.column += end - i - 1;
          i = end;
          expect_value = false;
          line_start = false;
          continue;
        } else {
          if (c == '=' || (c == '[' && (in_value || !open.empty())) ||
              (c == ',' && !open.empty() && open.back() == '[')) {
            expect_value = true;
          } else if (c != '#') {
            expect_value = false;
          }
          if (line_start && open.empty() && !in_value && c == '[') {
            // A table header: toml++ 3.3 assumes a key follows (tomlplusplus #294, found by fuzz_toml).
            std::size_t j = i + 1;
            if (j < text.size() && text[j] == '[') ++j;
            while (j < text.size() && (text[j] == ' ' || text[j] == '\t')) ++j;
            const char next = j < text.size() ? text[j] : '\n';
            const bool key = (next >= 'A' && next <= 'Z') || (next >= 'a' && next <= 'z') ||
                             (next >= '0' && next <= '9') || next == '_' || next == '-' || next == '"' ||
                             next == '\'' || next == ']';
            if (!key) {
              return Refusal{here, "a table header without a key"};
            }
          } else if (c == '=' && open.empty()) {
            in_value = true;
          } else if ((c == '[' || c == '{') && (in_value || !open.empty())) {
            open += static_cast<char>(c);
          } else if ((c == ']' || c == '}') && !open.empty()) {
            // A bracket that closes the other kind: toml++ 3.3 assumes a value where an
            // array meets '}' (found by fuzz_toml).
            if (open.back() != (c == ']' ? '[' : '{')) {
              return Refusal{here, std::string("a '") + static_cast<char>(c) + "' that closes a '" + open.back() + "'"};
            }
            open.pop_back();
          }
          line_start = false;
        }
        if (c == '#') {
          state = State::comment;
          out += '#';
        } else if (c == '"' || c == '\'') {
          const bool multi = run_of(i, static_cast<char>(c)) >= 3;
          state =
              c == '"' ? (multi ? State::multi_basic : State::basic) : (multi ? State::multi_literal : State::literal);
          out += multi ? "\"\"\"" : "\"";  // a literal string becomes a basic one
          i += multi ? 3 : 1;
          place.column += multi ? 2 : 0;
          continue;
        } else {
          out += static_cast<char>(c);
        }
        break;
      case State::comment:
        if (c == '\n') {
          state = State::normal;
          line_start = true;
          if (open.empty()) in_value = false;
        }
        out += static_cast<char>(c);
        break;
      case State::basic:
      case State::multi_basic:
        if (c == '\\' && i + 1 < text.size()) {
          if (static_cast<unsigned char>(text[i + 1]) >= 0x80) {
            return Refusal{here, "an escape sequence TOML does not have"};
          }
          out += text.substr(i, 2);  // the escape as it is, a line-ending backslash included
          if (text[i + 1] == '\n') {
            ++place.line;
            place.column = 1;
          } else {
            ++place.column;
          }
          i += 2;
          continue;
        }
        if (state == State::basic && (c == '"' || c == '\n')) {
          state = State::normal;
        } else if (state == State::multi_basic && c == '"' && run_of(i, '"') >= 3) {
          const std::size_t n = std::min<std::size_t>(run_of(i, '"'), 5);  // up to two quotes end the content
          out.append(n, '"');
          i += n;
          place.column += n - 1;
          state = State::normal;
          continue;
        }
        out += static_cast<char>(c);
        break;
      case State::literal:
      case State::multi_literal:
        if (c == '\'' && (state == State::literal || run_of(i, '\'') >= 3)) {
          const std::size_t n = state == State::literal ? 1 : std::min<std::size_t>(run_of(i, '\''), 5);
          if (state == State::multi_literal) out.append(n - 3, '\'');
          out += state == State::literal ? "\"" : "\"\"\"";
          i += n;
          place.column += n - 1;
          state = State::normal;
          continue;
        }
        if (c == '\\') {
          out += "\\\\";
        } else if (c == '"') {
          out += "\\\"";
        } else {
          out += static_cast<char>(c);
          if (state == State::literal && c == '\n') state = State::normal;
        }
        break;
    }
    ++i;
  }
  return out;
}

}  // namespace

std::string toml_place(const fs::path& file, const toml::source_region& source) {
  return util::to_utf8(file) + ":" + std::to_string(source.begin.line) + ":" + std::to_string(source.begin.column);
}

bool is_toml_scalar(std::string_view token) {
  if (token == "true" || token == "false") return true;
  Scan signed_word(token);
  signed_word.one("+-");
  if ((signed_word.word("inf") || signed_word.word("nan")) && signed_word.done()) return true;
  for (const auto& [prefix, digits] : {std::pair<std::string_view, std::string_view>{"0x", "0123456789ABCDEFabcdef"},
                                       {"0o", "01234567"},
                                       {"0b", "01"}}) {
    Scan scan(token);
    if (scan.word(prefix)) return scan.grouped(digits) && scan.done();
  }
  Scan time(token);
  return is_decimal(token) || is_date(token) || (time_of_day(time) && time.done());
}

Result<toml::table> parse_toml(std::string_view text, const fs::path& file, const std::string& hint) {
  // A UTF-8 byte order mark, as Notepad and PowerShell 5 write one: not part of the text.
  if (util::starts_with(text, "\xEF\xBB\xBF")) text.remove_prefix(3);
  auto ascii = to_ascii(text);
  if (const auto* refusal = std::get_if<Refusal>(&ascii)) {
    return make_error(util::to_utf8(file) + ":" + std::to_string(refusal->place.line) + ":" +
                          std::to_string(refusal->place.column) + ": " + refusal->what,
                      hint);
  }
  try {
    return toml::parse(std::get<std::string>(ascii), util::to_utf8(file));
  } catch (const toml::parse_error& error) {
    std::string description(error.description());
    // Raw control characters but the line break were refused above: in a
    // string, toml++'s complaint about one, or about the end of the text,
    // means the string is not closed.
    if (util::starts_with(description, "Error while parsing string: unescaped control characters") ||
        util::starts_with(description, "Error while parsing string: encountered end-of-file")) {
      description = "a string that is not closed: its closing quote is missing on this line";
    }
    return make_error(toml_place(file, error.source()) + ": " + description, hint);
  }
}

}  // namespace cudnnenv
