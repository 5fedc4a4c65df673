#include "download/transfer.hpp"

#include <array>
#include <charconv>
#include <utility>

namespace cudnnenv {

namespace {

constexpr std::array<std::pair<TransferFailure, std::string_view>, 11> k_failure_names{{
    {TransferFailure::none, "none"},
    {TransferFailure::resolve, "resolve"},
    {TransferFailure::connect, "connect"},
    {TransferFailure::tls, "tls"},
    {TransferFailure::http, "http"},
    {TransferFailure::no_range, "no_range"},
    {TransferFailure::too_slow, "too_slow"},
    {TransferFailure::cut, "cut"},
    {TransferFailure::aborted, "aborted"},
    {TransferFailure::no_library, "no_library"},
    {TransferFailure::other, "other"},
}};

// The value of ` key=` in `line` up to the next space (or the end when `rest`).
std::optional<std::string_view> field(std::string_view line, std::string_view key, bool rest = false) {
  const std::string wanted = " " + std::string(key) + "=";
  const std::string padded_start = std::string(key) + "=";
  std::size_t at = line.find(wanted);
  if (at != std::string_view::npos) {
    at += wanted.size();
  } else if (line.substr(0, padded_start.size()) == padded_start) {
    at = padded_start.size();
  } else {
    return std::nullopt;
  }
  const std::size_t end = rest ? std::string_view::npos : line.find(' ', at);
  return line.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
}

template <typename T>
std::optional<T> number(std::optional<std::string_view> text) {
  T value{};
  if (!text || text->empty()) return std::nullopt;
  const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (error != std::errc() || end != text->data() + text->size()) return std::nullopt;
  return value;
}

std::string one_line(std::string_view text) {
  std::string line(text);
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return line;
}

}  // namespace

std::string format_transfer_start(const TransferStart& start) {
  std::string line =
      "cudnnenv-fetch status=" + std::to_string(start.status) + " offset=" + std::to_string(start.offset);
  if (start.length) line += " length=" + std::to_string(*start.length);
  return line + "\n";
}

std::optional<TransferStart> parse_transfer_start(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  if (line.substr(0, 15) != "cudnnenv-fetch ") return std::nullopt;
  TransferStart start;
  const auto status = number<int>(field(line, "status"));
  const auto offset = number<std::uint64_t>(field(line, "offset"));
  if (!status || !offset) return std::nullopt;
  start.status = *status;
  start.offset = *offset;
  if (field(line, "length")) {
    start.length = number<std::uint64_t>(field(line, "length"));
    if (!start.length) return std::nullopt;
  }
  return start;
}

std::string format_transfer_outcome(const TransferOutcome& outcome) {
  std::string_view name = "other";
  for (const auto& [failure, text] : k_failure_names) {
    if (failure == outcome.failure) name = text;
  }
  std::string url = one_line(outcome.url);
  for (char& c : url) {
    if (c == ' ') c = '+';
  }
  return "failure=" + std::string(name) + " status=" + std::to_string(outcome.status) + " url=" + url +
         " detail=" + one_line(outcome.detail) + "\n";
}

TransferOutcome parse_transfer_outcome(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  TransferOutcome outcome;
  outcome.failure = TransferFailure::other;
  const auto name = field(line, "failure");
  if (!name) {
    outcome.detail = std::string(line);
    return outcome;
  }
  for (const auto& [failure, text] : k_failure_names) {
    if (text == *name) outcome.failure = failure;
  }
  outcome.status = number<int>(field(line, "status")).value_or(0);
  outcome.url = std::string(field(line, "url").value_or(""));
  outcome.detail = std::string(field(line, "detail", true).value_or(""));
  return outcome;
}

}  // namespace cudnnenv
