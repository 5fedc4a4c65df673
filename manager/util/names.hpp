// A closed set spelled once: each value of an enum beside the word the
// command line, the configuration, JSON and completion use for it. Parsing,
// CLI11's checks, hints and completion read the table, so a value added to
// the enum and its table is accepted, offered and printed everywhere at once.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudnnenv::util {

template <class Enum>
struct Named {
  Enum value;
  std::string_view name;
};

// Every value of `table` named once, in one order: a table that misses or
// repeats a value fails to compile where it is declared (see the tables'
// static_asserts). `count` is the enum's number of values.
template <class Enum, std::size_t N>
constexpr bool covers_each_once(const Named<Enum> (&table)[N], std::size_t count) {
  if (N != count) return false;
  for (std::size_t i = 0; i < N; ++i) {
    if (static_cast<std::size_t>(table[i].value) != i) return false;
  }
  return true;
}

template <class Enum, std::size_t N>
constexpr std::optional<Enum> parse_name(const Named<Enum> (&table)[N], std::string_view text) {
  for (const auto& entry : table) {
    if (entry.name == text) return entry.value;
  }
  return std::nullopt;
}

template <class Enum, std::size_t N>
constexpr std::string_view name_of(const Named<Enum> (&table)[N], Enum value) {
  for (const auto& entry : table) {
    if (entry.value == value) return entry.name;
  }
  return {};
}

// The names in table order, for CLI11's IsMember and completion.
template <class Enum, std::size_t N>
std::vector<std::string> names_of(const Named<Enum> (&table)[N]) {
  std::vector<std::string> names;
  for (const auto& entry : table) names.emplace_back(entry.name);
  return names;
}

// The names as prose for messages: "none, load or conv".
template <class Enum, std::size_t N>
std::string choices_of(const Named<Enum> (&table)[N]) {
  std::string text;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) text += i + 1 == N ? " or " : ", ";
    text += table[i].name;
  }
  return text;
}

}  // namespace cudnnenv::util
