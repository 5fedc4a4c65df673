// The manager's plain children (the probe, doctor's probes, cudnnenv-fetch)
// through Boost.Process (the v1 API of Debian 12's Boost 1.81, with
// std::filesystem): both pipes read as output arrives on one Asio loop, which
// also keeps the deadline. The launcher's own starts (same-PID execve, a
// suspended start in a job, the debug API) stay in pin/.
#define BOOST_PROCESS_USE_STD_FS 1

#ifdef _WIN32
// Boost 1.81's detail/windows/handles.hpp uses GetHandleInformation without
// including the header that declares it.
#include <boost/winapi/handle_info.hpp>
// before any Boost.Process header
#include <boost/process/windows.hpp>
#else
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#endif

#include <boost/asio/io_context.hpp>
#include <boost/process/args.hpp>
#include <boost/process/async_pipe.hpp>
#include <boost/process/child.hpp>
#include <boost/process/env.hpp>
#include <boost/process/environment.hpp>
#include <boost/process/exe.hpp>
#include <boost/process/extend.hpp>
#include <boost/process/io.hpp>
#include <functional>

#include "util/process.hpp"
#include "util/text.hpp"
#ifdef _WIN32
#include "util/start_retry.hpp"
#include "util/win.hpp"
#endif

namespace cudnnenv::util {

namespace bp = boost::process;

namespace {

// Reads `pipe` until it closes, each piece to `sink`; a sink that returns
// false stops the loop (the caller ends the child).
class PipeReader {
 public:
  PipeReader(boost::asio::io_context& loop, bp::async_pipe& pipe, std::size_t buffer_size,
             std::function<bool(std::string_view)> sink)
      : m_loop(loop), m_pipe(pipe), m_buffer(buffer_size), m_sink(std::move(sink)) {}

  void start() {
    m_pipe.async_read_some(boost::asio::buffer(m_buffer),
                           [this](const boost::system::error_code& error, std::size_t got) {
                             if (got > 0 && !m_sink(std::string_view(m_buffer.data(), got))) {
                               m_stopped = true;
                               m_loop.stop();
                               return;
                             }
                             if (!error) start();
                           });
  }

  bool stopped() const { return m_stopped; }

 private:
  boost::asio::io_context& m_loop;
  bp::async_pipe& m_pipe;
  std::vector<char> m_buffer;
  std::function<bool(std::string_view)> m_sink;
  bool m_stopped = false;
};

}  // namespace

Result<ProcessOutcome> run_process(const ProcessSpec& spec) {
  boost::asio::io_context loop;
  bp::async_pipe out_pipe(loop);
  bp::async_pipe err_pipe(loop);
#ifndef _WIN32
  if (spec.on_out) {
    // A stream (a download): a larger pipe, fewer switches between the two processes.
    ::fcntl(out_pipe.native_source(), F_SETPIPE_SZ, 1 << 20);
  }
#endif
  std::error_code error;
#ifdef _WIN32
  // The command line as the C runtime splits it (quote_windows_argument;
  // Boost's own quoting doubles quotes and keeps a backslash before one),
  // and the variables in UTF-16, as they are (no code page in between).
  std::wstring command_line = widen(quote_windows_argument(to_utf8(spec.program)));
  for (const auto& argument : spec.arguments) {
    command_line += L' ' + widen(quote_windows_argument(argument));
  }
  // The block by hand: Boost refuses an empty one (ERROR_BAD_ENVIRONMENT),
  // which CreateProcessW takes.
  std::wstring environment_block;
  for (const auto& [name, value] : spec.environment.variables()) {
    environment_block += widen(name) + L'=' + widen(value);
    environment_block += L'\0';
  }
  environment_block += L'\0';
  const std::wstring working_folder = spec.working_folder.wstring();
  const auto exact_line = [&](auto& exec) {
    exec.cmd_line = command_line.c_str();
    if (!working_folder.empty()) exec.work_dir = working_folder.c_str();
    exec.env = environment_block.c_str();
    exec.creation_flags |= CREATE_UNICODE_ENVIRONMENT;
  };
  bp::child child;
  const unsigned long start_error = start_with_retry(
      [&]() -> unsigned long {
        // Fresh pipes each try: Boost closes a pipe's write end when a start fails.
        out_pipe = bp::async_pipe(loop);
        err_pipe = bp::async_pipe(loop);
        child = bp::child(bp::exe = spec.program.wstring(), bp::extend::on_setup = exact_line,
                          bp::std_in<bp::null, bp::std_out> out_pipe, bp::std_err > err_pipe,
                          bp::windows::create_no_window, error);
        return error ? static_cast<unsigned long>(error.value()) : 0;
      },
      [] { ::Sleep(100); });
  (void)start_error;  // `error` holds the last try's
#else
  bp::environment environment;
  environment.clear();
  for (const auto& [name, value] : spec.environment.variables()) {
    environment[name] = value;
  }
  const std::string working_folder = spec.working_folder.string();
  // In the forked child, before exec (chdir is async-signal-safe); a folder
  // that cannot be entered fails the start, as it does on Windows.
  const auto enter_folder = [&](auto& exec) {
    if (!working_folder.empty() && ::chdir(working_folder.c_str()) != 0)
      exec.set_error(std::error_code(errno, std::system_category()), "chdir");
  };
  bp::child child(bp::exe = spec.program.string(), bp::args = spec.arguments, bp::env = environment,
                  bp::extend::on_exec_setup = enter_folder, bp::std_in<bp::null, bp::std_out> out_pipe,
                  bp::std_err > err_pipe, error);
#endif
  if (error) {
    return make_error("cannot start '" + to_utf8(spec.program) + "': " + error.message());
  }

  ProcessOutcome outcome;
  PipeReader out(loop, out_pipe, spec.on_out ? std::size_t{1} << 20 : 16384, [&](std::string_view data) {
    if (spec.on_out) return spec.on_out(data);
    outcome.out.append(data);
    return true;
  });
  PipeReader err(loop, err_pipe, 16384, [&](std::string_view data) {
    outcome.err.append(data);
    return true;
  });
  out.start();
  err.start();
  loop.run_for(spec.timeout);
  outcome.stopped = out.stopped();
  if (!loop.stopped() || outcome.stopped) {
    outcome.timed_out = !outcome.stopped;
    // POSIX: SIGKILL, and reaped there (Boost keeps no status of a child it
    // ended); Windows: TerminateProcess.
    child.terminate(error);
#ifndef _WIN32
    outcome.signal = SIGKILL;
#endif
    return outcome;
  }
  child.wait(error);
#ifdef _WIN32
  outcome.exit_code = child.exit_code();
#else
  const int status = child.native_exit_code();
  if (WIFEXITED(status)) {
    outcome.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    outcome.signal = WTERMSIG(status);
  }
#endif
  return outcome;
}

}  // namespace cudnnenv::util
