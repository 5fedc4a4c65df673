// The process environment as a value, so that code which reads or builds
// one (search paths, child processes) is tested without touching the real
// one. Names compare case-insensitively on Windows, exactly on POSIX.
// Knows nothing about cuDNN.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cudnnenv::util {

class Environment {
 public:
  Environment() = default;
  explicit Environment(std::vector<std::pair<std::string, std::string>> variables);

  // A copy of this process's environment (UTF-8).
  static Environment current();

  std::optional<std::string> get(std::string_view name) const;
  void set(std::string_view name, std::string_view value);
  void unset(std::string_view name);

  const std::vector<std::pair<std::string, std::string>>& variables() const { return m_variables; }

 private:
  std::vector<std::pair<std::string, std::string>> m_variables;
};

// ':' on POSIX, ';' on Windows.
char path_list_separator();

// A PATH-like variable split into its non-empty entries.
std::vector<std::string> split_path_list(std::string_view value);

}  // namespace cudnnenv::util
