// `cudnnenv init SHELL`: the integration a shell's profile evaluates (the
// scripts are the files shell/init.*, embedded at build time).
#pragma once

#include <optional>
#include <string>

#include "shell/quote.hpp"

namespace cudnnenv::shell {

// The integration for `shell`, with `program` (cudnnenv) and the shims
// folder quoted for it; nothing for a shell without one yet.
std::optional<std::string> init_script(Shell shell, const std::string& program, const std::string& shims);

// The one line to add to the shell's profile.
std::string init_line(Shell shell);

// For cmd, two batch files (CRLF): init.bat, run at each cmd start, which
// defines the `cudnnenv` doskey macro and puts the shims on PATH; and
// cudnnenv.bat, what the macro runs.
struct CmdIntegration {
  std::string init_bat;
  std::string cudnnenv_bat;
};
CmdIntegration cmd_integration(const std::string& program, const std::string& shims);

// AutoRun (HKCU\Software\Microsoft\Command Processor) is one command line
// for every cmd start, a list joined by " & ": `part` added once at the end,
// and removed with exactly the separator it came with.
std::string autorun_with(const std::string& autorun, const std::string& part);
std::string autorun_without(const std::string& autorun, const std::string& part);

}  // namespace cudnnenv::shell
