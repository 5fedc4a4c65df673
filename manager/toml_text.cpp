#include "toml_text.hpp"

#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

struct Place {
  std::size_t line = 1;
  std::size_t column = 1;
};

// Where the first byte outside ASCII stands that TOML allows only inside a
// string or a comment, if any (see the header for why).
std::optional<Place> misplaced_non_ascii(std::string_view text) {
  enum class State { normal, comment, basic, literal, multi_basic, multi_literal };
  State state = State::normal;
  Place place;
  bool after_line_continuation = false;  // in a multi-line basic string, after `\` + line break
  auto starts = [&](std::size_t at, std::string_view what) { return text.substr(at, what.size()) == what; };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const Place here = place;
    if (c == '\n') {
      ++place.line;
      place.column = 1;
    } else if ((c & 0xC0) != 0x80) {
      ++place.column;  // one column per character, as toml++ counts
    }
    switch (state) {
      case State::normal:
        if (c >= 0x80) return here;
        if (c == '#') {
          state = State::comment;
        } else if (starts(i, "\"\"\"")) {
          state = State::multi_basic;
          i += 2;
          place.column += 2;
        } else if (starts(i, "'''")) {
          state = State::multi_literal;
          i += 2;
          place.column += 2;
        } else if (c == '"') {
          state = State::basic;
        } else if (c == '\'') {
          state = State::literal;
        }
        break;
      case State::comment:
        if (c == '\n') state = State::normal;
        break;
      case State::basic:
        if (c == '\\' && i + 1 < text.size() && text[i + 1] != '\n') {
          ++i;
          ++place.column;
        } else if (c == '"' || c == '\n') {
          state = State::normal;
        }
        break;
      case State::literal:
        if (c == '\'' || c == '\n') state = State::normal;
        break;
      case State::multi_basic:
        if (after_line_continuation) {
          if (c == ' ' || c == '\t' || c == '\r' || c == '\n') break;
          after_line_continuation = false;
          if (c >= 0x80) return here;
        }
        if (c == '\\') {
          std::size_t j = i + 1;
          while (j < text.size() && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r')) ++j;
          if (j < text.size() && text[j] == '\n') {
            after_line_continuation = true;
          } else if (i + 1 < text.size()) {
            ++i;  // an escape: the next byte is not a quote that ends the string
            ++place.column;
          }
        } else if (starts(i, "\"\"\"")) {
          state = State::normal;
          i += 2;
          place.column += 2;
          for (int extra = 0; extra < 2 && i + 1 < text.size() && text[i + 1] == '"'; ++extra) {
            ++i;
            ++place.column;
          }
        }
        break;
      case State::multi_literal:
        if (starts(i, "'''")) {
          state = State::normal;
          i += 2;
          place.column += 2;
          for (int extra = 0; extra < 2 && i + 1 < text.size() && text[i + 1] == '\''; ++extra) {
            ++i;
            ++place.column;
          }
        }
        break;
    }
  }
  return std::nullopt;
}

}  // namespace

std::string toml_place(const fs::path& file, const toml::source_region& source) {
  return util::to_utf8(file) + ":" + std::to_string(source.begin.line) + ":" + std::to_string(source.begin.column);
}

Result<toml::table> parse_toml(std::string_view text, const fs::path& file, const std::string& hint) {
  if (auto place = misplaced_non_ascii(text)) {
    return make_error(util::to_utf8(file) + ":" + std::to_string(place->line) + ":" + std::to_string(place->column) +
                          ": a character outside ASCII outside a string or comment",
                      hint);
  }
  try {
    return toml::parse(text, util::to_utf8(file));
  } catch (const toml::parse_error& error) {
    return make_error(toml_place(file, error.source()) + ": " + std::string(error.description()), hint);
  }
}

}  // namespace cudnnenv
