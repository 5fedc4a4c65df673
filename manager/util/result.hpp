// Errors as values: every fallible function in the core returns Result<T>.
// One place (the CLI) turns an Error into the two lines a user sees:
//   cudnnenv: error: <message>
//     hint: <hint>
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace cudnnenv {

// Process exit codes, shared by every command (design.md); every code the
// program returns of its own is here. `exec` and the shims otherwise return
// the program's.
enum class ExitCode : int {
  ok = 0,
  failure = 1,
  usage = 2,
  not_found = 3,      // nothing selected, no such tree
  verify_failed = 4,  // a check failed; `which`: its file is missing
  no_gpu = 5,         // verify --level conv found no GPU: verified up to load
  no_program = 127,   // exec: the program was not found (as shells say it)
};

struct Error {
  std::string message;  // lower-case start, no trailing period, user values quoted
  std::string hint;     // what to do about it; may be empty
  ExitCode code = ExitCode::failure;
};

inline Error make_error(std::string message, std::string hint = {}, ExitCode code = ExitCode::failure) {
  return Error{std::move(message), std::move(hint), code};
}

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : m_value(std::move(value)) {}
  Result(Error error) : m_value(std::move(error)) {}

  explicit operator bool() const { return m_value.index() == 0; }

  T& value() & { return std::get<0>(m_value); }
  const T& value() const& { return std::get<0>(m_value); }
  T&& value() && { return std::get<0>(std::move(m_value)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const& { return std::get<1>(m_value); }
  Error&& error() && { return std::get<1>(std::move(m_value)); }

 private:
  std::variant<T, Error> m_value;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : m_error(std::move(error)) {}

  explicit operator bool() const { return !m_error; }
  const Error& error() const& { return *m_error; }
  Error&& error() && { return std::move(*m_error); }

 private:
  std::optional<Error> m_error;
};

}  // namespace cudnnenv

// Propagating an error, for a function that returns a Result:
//
//   CUDNNENV_TRY(write_file_atomic(path, text));      // Result<void>, or a value not needed
//   CUDNNENV_TRY_ASSIGN(record, read_record(folder)); // auto record = ...; *record after it
//
// On failure both return the Error from the enclosing function. (Macros: C++
// has no early return from an expression; the names are prefixed so that
// they cannot clash.)
#define CUDNNENV_TRY(...)                                                   \
  do {                                                                      \
    if (auto cudnnenv_try_result_ = (__VA_ARGS__); !cudnnenv_try_result_) { \
      return std::move(cudnnenv_try_result_).error();                       \
    }                                                                       \
  } while (false)

#define CUDNNENV_TRY_ASSIGN(name, ...) \
  auto name = (__VA_ARGS__);           \
  if (!name) return std::move(name).error()
