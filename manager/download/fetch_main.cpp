// cudnnenv-fetch: one HTTP(S) GET with libcurl, for cudnnenv on Linux, which
// is linked statically and so cannot load libcurl itself. libcurl is loaded
// at run time (libcurl.so.4, as every distribution names it since 7.16), so
// the program starts where it is missing and says so (failure=no_library)
// instead of failing in the loader; <curl/curl.h> gives the types and the
// numbers only. Writes one line
// (format_transfer_start) and then the body to stdout; when the transfer
// fails, one line (format_transfer_outcome) to stderr and exit 1. Proxies
// come from the environment as libcurl reads them (HTTPS_PROXY, HTTP_PROXY,
// NO_PROXY), certificates from --cacert, SSL_CERT_FILE or CURL_CA_BUNDLE.
//
// Usage: cudnnenv-fetch URL [--from BYTES] [--cacert FILE] [--connect-timeout S]
//                           [--low-speed BYTES_PER_S] [--low-speed-time S]
#include <dlfcn.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

// The protocol bit masks (deprecated in 7.85) for a libcurl older than that.
#define CURL_DISABLE_DEPRECATION
#include <curl/curl.h>

#include "download/transfer.hpp"

namespace {

using cudnnenv::TransferFailure;

// The libcurl functions used, from libcurl.so.4.
struct Curl {
  CURLcode (*global_init)(long);
  CURL* (*easy_init)();
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...);
  CURLcode (*easy_perform)(CURL*);
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...);
  void (*easy_cleanup)(CURL*);
  const char* (*easy_strerror)(CURLcode);
};

Curl g_curl;

// Loads libcurl.so.4 into g_curl; the reason it cannot, or empty.
std::string load_curl() {
  void* library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char* why = dlerror();
    return why ? why : "libcurl.so.4 cannot be loaded";
  }
  const auto find = [&](auto& function, const char* name) {
    function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(dlsym(library, name));
    return function != nullptr;
  };
  if (find(g_curl.global_init, "curl_global_init") && find(g_curl.easy_init, "curl_easy_init") &&
      find(g_curl.easy_setopt, "curl_easy_setopt") && find(g_curl.easy_perform, "curl_easy_perform") &&
      find(g_curl.easy_getinfo, "curl_easy_getinfo") && find(g_curl.easy_cleanup, "curl_easy_cleanup") &&
      find(g_curl.easy_strerror, "curl_easy_strerror")) {
    return "";
  }
  return "libcurl.so.4 lacks the function curl_easy_* (not libcurl?)";
}

struct State {
  bool started = false;
  std::uint64_t offset = 0;
  bool failed_write = false;
  CURL* curl = nullptr;
};

bool write_all(const char* data, std::size_t size) {
  return size == 0 || std::fwrite(data, 1, size, stdout) == size;
}

// The first line, from what libcurl knows once the headers are in.
bool start(State& state) {
  if (state.started) return true;
  state.started = true;
  long status = 0;
  g_curl.easy_getinfo(state.curl, CURLINFO_RESPONSE_CODE, &status);
  curl_off_t length = -1;
  g_curl.easy_getinfo(state.curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
  cudnnenv::TransferStart start;
  start.status = static_cast<int>(status);
  // libcurl refuses a 200 to a range request (CURLE_RANGE_ERROR), so a body
  // that arrives starts where it was asked to.
  start.offset = state.offset;
  if (length >= 0) start.length = static_cast<std::uint64_t>(length);
  const std::string line = cudnnenv::format_transfer_start(start);
  return write_all(line.data(), line.size());
}

std::size_t on_data(char* data, std::size_t size, std::size_t count, void* user) {
  auto& state = *static_cast<State*>(user);
  if (!start(state) || !write_all(data, size * count)) {
    state.failed_write = true;
    return 0;
  }
  return size * count;
}

TransferFailure classify(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      return TransferFailure::resolve;
    case CURLE_COULDNT_CONNECT:
      return TransferFailure::connect;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
      return TransferFailure::tls;
    case CURLE_HTTP_RETURNED_ERROR:
      return TransferFailure::http;
    case CURLE_RANGE_ERROR:
      return TransferFailure::no_range;
    case CURLE_OPERATION_TIMEDOUT:
      return TransferFailure::too_slow;
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return TransferFailure::cut;
    case CURLE_WRITE_ERROR:
      return TransferFailure::aborted;
    default:
      return TransferFailure::other;
  }
}

int fail(cudnnenv::TransferOutcome outcome) {
  std::fflush(stdout);
  const std::string line = cudnnenv::format_transfer_outcome(outcome);
  std::fwrite(line.data(), 1, line.size(), stderr);
  return 1;
}

long seconds(const char* text) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  return end && *end == '\0' && value >= 0 ? value : -1;
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);  // the parent stopped reading: a write error, not a silent death
  static char buffer[1 << 20];
  std::setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
  if (argc < 2) {
    std::fputs(
        "usage: cudnnenv-fetch URL [--from BYTES] [--cacert FILE] [--connect-timeout S] "
        "[--low-speed BYTES_PER_S] [--low-speed-time S]\n",
        stderr);
    return 2;
  }
  State state;
  const char* url = argv[1];
  const char* ca_file = nullptr;
  long connect_timeout = 30, low_speed = 1024, low_speed_time = 60;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string option = argv[i];
    const char* value = argv[i + 1];
    if (option == "--from") {
      state.offset = std::strtoull(value, nullptr, 10);
    } else if (option == "--cacert") {
      ca_file = value;
    } else if (option == "--connect-timeout") {
      connect_timeout = seconds(value);
    } else if (option == "--low-speed") {
      low_speed = seconds(value);
    } else if (option == "--low-speed-time") {
      low_speed_time = seconds(value);
    } else {
      std::fprintf(stderr, "cudnnenv-fetch: unknown option '%s'\n", option.c_str());
      return 2;
    }
  }
  if (!ca_file) ca_file = std::getenv("SSL_CERT_FILE");
  if (!ca_file) ca_file = std::getenv("CURL_CA_BUNDLE");
  if (ca_file && !*ca_file) ca_file = nullptr;

  if (const std::string why = load_curl(); !why.empty()) {
    return fail({TransferFailure::no_library, 0, why, url});
  }
  if (g_curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    return fail({TransferFailure::other, 0, "libcurl could not start", url});
  }
  static char error_text[CURL_ERROR_SIZE];
  state.curl = g_curl.easy_init();
  CURL* curl = state.curl;
  g_curl.easy_setopt(curl, CURLOPT_URL, url);
  g_curl.easy_setopt(curl, CURLOPT_ERRORBUFFER, error_text);
  // Only HTTP(S), on a redirect too: the _STR options from libcurl 7.85, the
  // bit masks before (RHEL 8 has 7.61).
  if (g_curl.easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK ||
      g_curl.easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https") != CURLE_OK) {
    g_curl.easy_setopt(curl, CURLOPT_PROTOCOLS, static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
    g_curl.easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS, static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
  }
  g_curl.easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  g_curl.easy_setopt(curl, CURLOPT_MAXREDIRS, 10L);
  g_curl.easy_setopt(curl, CURLOPT_FAILONERROR, 1L);
  g_curl.easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  g_curl.easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, connect_timeout);
  g_curl.easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, low_speed);
  g_curl.easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, low_speed_time);
  g_curl.easy_setopt(curl, CURLOPT_USERAGENT, "cudnnenv");
  g_curl.easy_setopt(curl, CURLOPT_BUFFERSIZE, 512L * 1024L);
  g_curl.easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_data);
  g_curl.easy_setopt(curl, CURLOPT_WRITEDATA, &state);
  if (state.offset > 0) g_curl.easy_setopt(curl, CURLOPT_RESUME_FROM_LARGE, static_cast<curl_off_t>(state.offset));
  if (ca_file) g_curl.easy_setopt(curl, CURLOPT_CAINFO, ca_file);

  const CURLcode code = g_curl.easy_perform(curl);
  long status = 0;
  g_curl.easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  char* effective = nullptr;
  g_curl.easy_getinfo(curl, CURLINFO_EFFECTIVE_URL, &effective);
  cudnnenv::TransferOutcome outcome{classify(code), static_cast<int>(status),
                                    error_text[0] ? error_text : g_curl.easy_strerror(code),
                                    effective ? effective : url};
  if (code == CURLE_OK) {
    if (!start(state) || std::fflush(stdout) != 0) {
      return fail({TransferFailure::aborted, outcome.status, "the parent stopped reading", outcome.url});
    }
    g_curl.easy_cleanup(curl);
    return 0;
  }
  if (state.failed_write) outcome.failure = TransferFailure::aborted;
  g_curl.easy_cleanup(curl);
  return fail(outcome);
}
