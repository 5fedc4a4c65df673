#include "util/environment.hpp"

#include <algorithm>

#include "util/text.hpp"

namespace cudnnenv::util {

namespace {

bool names_equal(std::string_view a, std::string_view b) {
#ifdef _WIN32
  return iequals(a, b);
#else
  return a == b;
#endif
}

}  // namespace

Environment::Environment(std::vector<std::pair<std::string, std::string>> variables)
    : m_variables(std::move(variables)) {}

std::optional<std::string> Environment::get(std::string_view name) const {
  for (const auto& [key, value] : m_variables) {
    if (names_equal(key, name)) {
      return value;
    }
  }
  return std::nullopt;
}

void Environment::set(std::string_view name, std::string_view value) {
  for (auto& [key, existing] : m_variables) {
    if (names_equal(key, name)) {
      existing = value;
      return;
    }
  }
  m_variables.emplace_back(name, value);
}

void Environment::unset(std::string_view name) {
  std::erase_if(m_variables, [&](const auto& entry) { return names_equal(entry.first, name); });
}

char path_list_separator() {
#ifdef _WIN32
  return ';';
#else
  return ':';
#endif
}

std::vector<std::string> split_path_list(std::string_view value) {
  std::vector<std::string> entries;
  for (auto& entry : split(value, path_list_separator())) {
    if (!entry.empty()) {
      entries.push_back(std::move(entry));
    }
  }
  return entries;
}

}  // namespace cudnnenv::util
