// The transfer through WinHTTP, part of Windows: no DLL to ship. The system's
// proxy settings apply (WINHTTP_ACCESS_TYPE_AUTOMATIC_PROXY, Windows 8.1 and
// later; the static WinHTTP setting before that); certificates are the
// system's store (ca_file is for the Linux build; on Windows a CA is trusted
// by adding it to the store).
#include <windows.h>
#include <winhttp.h>

#include <chrono>
#include <cwchar>
#include <vector>

#include "download/transfer.hpp"
#include "util/text.hpp"
#include "util/win.hpp"

namespace cudnnenv {

namespace {

struct Handle {
  HINTERNET value = nullptr;
  explicit Handle(HINTERNET handle) : value(handle) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() {
    if (value) WinHttpCloseHandle(value);
  }
  explicit operator bool() const { return value != nullptr; }
};

TransferFailure classify(DWORD error) {
  switch (error) {
    case ERROR_WINHTTP_NAME_NOT_RESOLVED:
      return TransferFailure::resolve;
    case ERROR_WINHTTP_CANNOT_CONNECT:
      return TransferFailure::connect;
    case ERROR_WINHTTP_SECURE_FAILURE:
    case ERROR_WINHTTP_SECURE_CERT_DATE_INVALID:
    case ERROR_WINHTTP_SECURE_CERT_CN_INVALID:
    case ERROR_WINHTTP_SECURE_INVALID_CA:
    case ERROR_WINHTTP_SECURE_CERT_REV_FAILED:
    case ERROR_WINHTTP_SECURE_CHANNEL_ERROR:
    case ERROR_WINHTTP_SECURE_INVALID_CERT:
    case ERROR_WINHTTP_SECURE_CERT_REVOKED:
    case ERROR_WINHTTP_SECURE_CERT_WRONG_USAGE:
      return TransferFailure::tls;
    case ERROR_WINHTTP_TIMEOUT:
      return TransferFailure::too_slow;
    case ERROR_WINHTTP_CONNECTION_ERROR:
    case ERROR_WINHTTP_INVALID_SERVER_RESPONSE:
      return TransferFailure::cut;
    // Wine's WinHTTP passes the socket's own error on where Windows says
    // ERROR_WINHTTP_TIMEOUT / _CONNECTION_ERROR / _CANNOT_CONNECT.
    case WSAETIMEDOUT:
      return TransferFailure::too_slow;
    case WSAECONNRESET:
    case WSAECONNABORTED:
      return TransferFailure::cut;
    case WSAECONNREFUSED:
      return TransferFailure::connect;
    default:
      return TransferFailure::other;
  }
}

std::string describe(DWORD error) {
  wchar_t* text = nullptr;
  const DWORD length =
      FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_HMODULE | FORMAT_MESSAGE_IGNORE_INSERTS,
                     GetModuleHandleW(L"winhttp.dll"), error, 0, reinterpret_cast<LPWSTR>(&text), 0, nullptr);
  std::string message = "WinHTTP error " + std::to_string(error);
  if (length && text) {
    std::string said = util::narrow(std::wstring_view(text, length));
    while (!said.empty() && (said.back() == '\n' || said.back() == '\r' || said.back() == ' ')) said.pop_back();
    message += ": " + said;
  }
  if (text) LocalFree(text);
  return message;
}

TransferOutcome failed(const TransferRequest& request, int status = 0) {
  const DWORD error = GetLastError();
  return {classify(error), status, describe(error), request.url};
}

std::optional<std::wstring> query_text(HINTERNET request, DWORD what) {
  DWORD size = 0;
  WinHttpQueryHeaders(request, what, WINHTTP_HEADER_NAME_BY_INDEX, WINHTTP_NO_OUTPUT_BUFFER, &size,
                      WINHTTP_NO_HEADER_INDEX);
  if (GetLastError() != ERROR_INSUFFICIENT_BUFFER || size == 0) return std::nullopt;
  std::wstring text(size / sizeof(wchar_t), L'\0');
  if (!WinHttpQueryHeaders(request, what, WINHTTP_HEADER_NAME_BY_INDEX, text.data(), &size, WINHTTP_NO_HEADER_INDEX)) {
    return std::nullopt;
  }
  text.resize(size / sizeof(wchar_t));
  return text;
}

HINTERNET open_session() {
  HINTERNET session =
      WinHttpOpen(L"cudnnenv", WINHTTP_ACCESS_TYPE_AUTOMATIC_PROXY, WINHTTP_NO_PROXY_NAME, WINHTTP_NO_PROXY_BYPASS, 0);
  if (!session) {  // before Windows 8.1
    session =
        WinHttpOpen(L"cudnnenv", WINHTTP_ACCESS_TYPE_DEFAULT_PROXY, WINHTTP_NO_PROXY_NAME, WINHTTP_NO_PROXY_BYPASS, 0);
  }
  return session;
}

}  // namespace

std::filesystem::path fetch_program_beside(const std::filesystem::path& program) {
  return program.parent_path() / "cudnnenv-fetch.exe";  // not used: WinHTTP runs in the process
}

TransferOutcome transfer(const TransferRequest& request, const TransferSink& sink) {
  const std::wstring url = util::widen(request.url);
  URL_COMPONENTS parts{};
  parts.dwStructSize = sizeof parts;
  parts.dwHostNameLength = static_cast<DWORD>(-1);
  parts.dwUrlPathLength = static_cast<DWORD>(-1);
  parts.dwExtraInfoLength = static_cast<DWORD>(-1);
  if (!WinHttpCrackUrl(url.c_str(), 0, 0, &parts)) {
    return {TransferFailure::other, 0, "not a URL WinHTTP can read", request.url};
  }
  const std::wstring host(parts.lpszHostName, parts.dwHostNameLength);
  std::wstring path(parts.lpszUrlPath, parts.dwUrlPathLength);
  if (parts.lpszExtraInfo) path.append(parts.lpszExtraInfo, parts.dwExtraInfoLength);
  const bool secure = parts.nScheme == INTERNET_SCHEME_HTTPS;

  Handle session(open_session());
  if (!session) return failed(request);
  const int connect_ms = static_cast<int>(request.connect_timeout.count() * 1000);
  const int stall_ms = static_cast<int>(request.low_speed_time.count() * 1000);
  WinHttpSetTimeouts(session.value, connect_ms, connect_ms, stall_ms, stall_ms);
  Handle connection(WinHttpConnect(session.value, host.c_str(), parts.nPort, 0));
  if (!connection) return failed(request);
  Handle http(WinHttpOpenRequest(connection.value, L"GET", path.c_str(), nullptr, WINHTTP_NO_REFERER,
                                 WINHTTP_DEFAULT_ACCEPT_TYPES, secure ? WINHTTP_FLAG_SECURE : 0));
  if (!http) return failed(request);
  if (request.offset > 0) {
    const std::wstring range = L"Range: bytes=" + std::to_wstring(request.offset) + L"-";
    WinHttpAddRequestHeaders(http.value, range.c_str(), static_cast<DWORD>(-1), WINHTTP_ADDREQ_FLAG_ADD);
  }
  if (!WinHttpSendRequest(http.value, WINHTTP_NO_ADDITIONAL_HEADERS, 0, WINHTTP_NO_REQUEST_DATA, 0, 0, 0) ||
      !WinHttpReceiveResponse(http.value, nullptr)) {
    return failed(request);
  }
  DWORD status = 0;
  DWORD size = sizeof status;
  if (!WinHttpQueryHeaders(http.value, WINHTTP_QUERY_STATUS_CODE | WINHTTP_QUERY_FLAG_NUMBER,
                           WINHTTP_HEADER_NAME_BY_INDEX, &status, &size, WINHTTP_NO_HEADER_INDEX)) {
    return failed(request);
  }
  if (status >= 400) {
    return {TransferFailure::http, static_cast<int>(status), "", request.url};
  }
  TransferStart start;
  start.status = static_cast<int>(status);
  start.offset = status == 206 ? request.offset : 0;  // 200: the server sent the whole file
  if (const auto length = query_text(http.value, WINHTTP_QUERY_CONTENT_LENGTH)) {
    std::uint64_t value = 0;
    bool digits = !length->empty();
    for (wchar_t c : *length) {
      if (c < L'0' || c > L'9') {
        digits = false;
        break;
      }
      value = value * 10 + static_cast<std::uint64_t>(c - L'0');
    }
    if (digits) start.length = value;
  }
  if (!sink.start(start)) return {TransferFailure::aborted, start.status, "", request.url};

  // WinHTTP has no low-speed limit: a receive timeout ends a silent server,
  // this window a trickle.
  std::vector<char> buffer(256 * 1024);
  std::uint64_t received = 0;
  std::uint64_t window_bytes = 0;
  auto window_start = std::chrono::steady_clock::now();
  for (;;) {
    DWORD got = 0;
    if (!WinHttpReadData(http.value, buffer.data(), static_cast<DWORD>(buffer.size()), &got)) {
      return failed(request, start.status);
    }
    if (got == 0) break;
    received += got;
    if (!sink.data(std::string_view(buffer.data(), got))) {
      return {TransferFailure::aborted, start.status, "", request.url};
    }
    window_bytes += got;
    const auto now = std::chrono::steady_clock::now();
    if (now - window_start >= request.low_speed_time) {
      const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(now - window_start).count();
      if (window_bytes < request.low_speed_bytes * static_cast<std::uint64_t>(seconds)) {
        return {TransferFailure::too_slow, start.status, "under the low-speed limit", request.url};
      }
      window_start = now;
      window_bytes = 0;
    }
  }
  if (start.length && received < *start.length) {
    return {TransferFailure::cut, start.status,
            "the body ended after " + std::to_string(received) + " of " + std::to_string(*start.length) + " bytes",
            request.url};
  }
  return {TransferFailure::none, start.status, "", request.url};
}

}  // namespace cudnnenv
