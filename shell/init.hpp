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

}  // namespace cudnnenv::shell
