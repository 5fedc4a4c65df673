#include <windows.h>

#include <thread>

#include "util/process.hpp"
#include "util/text.hpp"
#include "util/win.hpp"

namespace cudnnenv::util {

namespace {

void drain(HANDLE pipe, std::string* sink) {
  char buffer[16384];
  DWORD got = 0;
  while (::ReadFile(pipe, buffer, sizeof buffer, &got, nullptr) && got > 0) {
    sink->append(buffer, got);
  }
}

}  // namespace

Result<ProcessOutcome> run_process(const ProcessSpec& spec) {
  SECURITY_ATTRIBUTES inherit{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
  HANDLE out_read = nullptr, out_write = nullptr, err_read = nullptr, err_write = nullptr;
  if (!::CreatePipe(&out_read, &out_write, &inherit, 0) || !::CreatePipe(&err_read, &err_write, &inherit, 0)) {
    return make_error("cannot create a pipe: " + last_error_message());
  }
  ::SetHandleInformation(out_read, HANDLE_FLAG_INHERIT, 0);
  ::SetHandleInformation(err_read, HANDLE_FLAG_INHERIT, 0);

  std::wstring command_line = widen(quote_windows_argument(to_utf8(spec.program)));
  for (const auto& argument : spec.arguments) {
    command_line += L' ';
    command_line += widen(quote_windows_argument(argument));
  }
  std::wstring environment_block;
  for (const auto& [name, value] : spec.environment.variables()) {
    environment_block += widen(name) + L'=' + widen(value);
    environment_block += L'\0';
  }
  environment_block += L'\0';

  STARTUPINFOW startup{};
  startup.cb = sizeof startup;
  startup.dwFlags = STARTF_USESTDHANDLES;
  startup.hStdInput = nullptr;
  startup.hStdOutput = out_write;
  startup.hStdError = err_write;
  PROCESS_INFORMATION process{};
  // A start Windows (and Wine, with another prefix busy) fails with
  // ERROR_INTERNAL_ERROR for a moment is tried once more.
  BOOL started = FALSE;
  for (int attempt = 0; attempt < 2; ++attempt) {
    started = ::CreateProcessW(spec.program.c_str(), command_line.data(), nullptr, nullptr, TRUE,
                               CREATE_UNICODE_ENVIRONMENT | CREATE_NO_WINDOW, environment_block.data(), nullptr,
                               &startup, &process);
    if (started || ::GetLastError() != ERROR_INTERNAL_ERROR) break;
    ::Sleep(100);
  }
  const std::string start_error = started ? std::string() : last_error_message();
  ::CloseHandle(out_write);
  ::CloseHandle(err_write);
  if (!started) {
    ::CloseHandle(out_read);
    ::CloseHandle(err_read);
    return make_error("cannot start '" + to_utf8(spec.program) + "': " + start_error);
  }

  ProcessOutcome outcome;
  std::thread out_reader(drain, out_read, &outcome.out);
  std::thread err_reader(drain, err_read, &outcome.err);
  const DWORD waited = ::WaitForSingleObject(process.hProcess, static_cast<DWORD>(spec.timeout.count()));
  if (waited != WAIT_OBJECT_0) {
    outcome.timed_out = true;
    ::TerminateProcess(process.hProcess, 1);
    ::WaitForSingleObject(process.hProcess, INFINITE);
  }
  out_reader.join();
  err_reader.join();
  DWORD code = 0;
  ::GetExitCodeProcess(process.hProcess, &code);
  outcome.exit_code = outcome.timed_out ? -1 : static_cast<int>(code);
  ::CloseHandle(process.hThread);
  ::CloseHandle(process.hProcess);
  ::CloseHandle(out_read);
  ::CloseHandle(err_read);
  return outcome;
}

}  // namespace cudnnenv::util
