// The transfer in cudnnenv-fetch (libcurl), its stdout read as it arrives.
#include <chrono>

#include "download/transfer.hpp"
#include "util/environment.hpp"
#include "util/process.hpp"
#include "util/text.hpp"

namespace cudnnenv {

std::filesystem::path fetch_program_beside(const std::filesystem::path& program) {
  return program.parent_path() / "cudnnenv-fetch";
}

TransferOutcome transfer(const TransferRequest& request, const TransferSink& sink) {
  util::ProcessSpec spec;
  spec.program = request.helper;
  spec.arguments = {request.url,
                    "--from",
                    std::to_string(request.offset),
                    "--connect-timeout",
                    std::to_string(request.connect_timeout.count()),
                    "--low-speed",
                    std::to_string(request.low_speed_bytes),
                    "--low-speed-time",
                    std::to_string(request.low_speed_time.count())};
  if (!request.ca_file.empty()) {
    spec.arguments.push_back("--cacert");
    spec.arguments.push_back(request.ca_file.string());
  }
  spec.environment = util::Environment::current();  // proxies, SSL_CERT_FILE
  // The helper's own low-speed limit ends a stalled transfer; this is only
  // the last guard against a helper that itself hangs.
  spec.timeout = std::chrono::hours(48);

  std::string head;  // the first line, until it is complete
  bool started = false;
  bool refused = false;
  spec.on_out = [&](std::string_view piece) {
    if (!started) {
      head.append(piece);
      const std::size_t end = head.find('\n');
      if (end == std::string::npos) return head.size() < 4096;
      const auto start = parse_transfer_start(std::string_view(head).substr(0, end));
      if (!start) return false;
      started = true;
      if (!sink.start(*start)) {
        refused = true;
        return false;
      }
      piece = std::string_view(head).substr(end + 1);
      if (piece.empty()) return true;
      const bool more = sink.data(piece);
      refused = !more;
      return more;
    }
    const bool more = sink.data(piece);
    refused = !more;
    return more;
  };
  auto ran = util::run_process(spec);
  if (!ran) {
    return {TransferFailure::other, 0, ran.error().message, request.url};
  }
  const util::ProcessOutcome& outcome = *ran;
  if (refused) return {TransferFailure::aborted, 0, "", request.url};
  if (outcome.exit_code == 0 && started) return {TransferFailure::none, 0, "", request.url};
  std::string last = outcome.err;
  while (!last.empty() && last.back() == '\n') last.pop_back();
  if (const std::size_t line = last.rfind('\n'); line != std::string::npos) last = last.substr(line + 1);
  if (outcome.exit_code == 1 && util::starts_with(last, "failure=")) {
    TransferOutcome failed = parse_transfer_outcome(last);
    if (failed.url.empty()) failed.url = request.url;
    return failed;
  }
  std::string detail = "'" + request.helper.string() + "' ";
  detail += outcome.signal ? "was killed by signal " + std::to_string(outcome.signal)
                           : "ended with exit code " + std::to_string(outcome.exit_code);
  if (!last.empty()) detail += ": " + last;
  return {TransferFailure::other, 0, detail, request.url};
}

}  // namespace cudnnenv
