// One HTTP(S) GET, its body handed over in pieces as it arrives: libcurl in a
// child program on Linux (transfer_posix: cudnnenv-fetch, so that cudnnenv
// itself stays static), WinHTTP in the process on Windows (transfer_win).
// Knows nothing about cuDNN; download.hpp builds on it.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace cudnnenv {

struct TransferRequest {
  std::string url;                // http:// or https://
  std::uint64_t offset = 0;       // > 0: a range request from this byte on
  std::filesystem::path ca_file;  // certificates to trust in place of the system's (empty: the system's)
  std::chrono::seconds connect_timeout{30};
  // Abort when fewer than low_speed_bytes arrive per second for low_speed_time
  // (a stalled server never hangs an install).
  std::uint64_t low_speed_bytes = 1024;
  std::chrono::seconds low_speed_time{60};
  std::filesystem::path helper;  // Linux: the cudnnenv-fetch program
};

// What the server answered, known before the first byte of the body.
struct TransferStart {
  int status = 0;            // 200, 206
  std::uint64_t offset = 0;  // where the body starts: the request's offset, or 0 when the server sent it whole
  std::optional<std::uint64_t> length;  // of the body, when the server said
};

enum class TransferFailure {
  none,
  resolve,     // no such host: no network, or DNS
  connect,     // refused or unreachable
  tls,         // the certificate or the handshake
  http,        // a status >= 400 (status says which)
  no_range,    // asked for a range, the server cannot give one
  too_slow,    // under the low-speed limit for too long, or the connection timed out
  cut,         // the connection ended before the body did
  aborted,     // the sink said stop (it keeps its own reason)
  no_library,  // this machine has no libcurl (Linux: cudnnenv-fetch loads it at run time)
  other,
};

struct TransferOutcome {
  TransferFailure failure = TransferFailure::none;
  int status = 0;      // the HTTP status, when one came
  std::string detail;  // the library's words, for the message
  std::string url;     // where the bytes came from in the end (after redirects)
};

struct TransferSink {
  // Once, before any data; false stops the transfer (aborted).
  std::function<bool(const TransferStart&)> start;
  // Each piece of the body; false stops the transfer (aborted).
  std::function<bool(std::string_view)> data;
};

TransferOutcome transfer(const TransferRequest& request, const TransferSink& sink);

// Where the Linux helper is: beside `program` (cudnnenv).
std::filesystem::path fetch_program_beside(const std::filesystem::path& program);

// The helper's first line on stdout, before the body (both sides use these).
std::string format_transfer_start(const TransferStart& start);
std::optional<TransferStart> parse_transfer_start(std::string_view line);
// The helper's last line on stderr when it failed, and back.
std::string format_transfer_outcome(const TransferOutcome& outcome);
TransferOutcome parse_transfer_outcome(std::string_view line);

}  // namespace cudnnenv
