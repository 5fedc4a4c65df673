#include "util/process.hpp"

#include "util/fs.hpp"
#include "util/text.hpp"
#include "util/windows_quote.hpp"

namespace cudnnenv::util {

Result<ProcessOutcome> run_python(const PythonSpec& spec) {
  std::error_code ec;
  const std::filesystem::path temporary = std::filesystem::temp_directory_path(ec);
  if (ec) return make_error("no temporary folder to run '" + to_utf8(spec.python) + "' in: " + ec.message());
  CUDNNENV_TRY_ASSIGN(folder, make_private_directory(temporary, "cudnnenv-python-"));
  ProcessSpec process;
  process.program = spec.python;
  process.arguments = {"-c", std::string(k_python_prelude) + spec.script};
  process.arguments.insert(process.arguments.end(), spec.arguments.begin(), spec.arguments.end());
  process.environment = spec.environment;
  process.environment.set("PYTHONSAFEPATH", "1");
  process.timeout = spec.timeout;
  process.working_folder = *folder;
  auto outcome = run_process(process);
  remove_tree(*folder);
  return outcome;
}

std::string quote_windows_argument(std::string_view argument) {
  return quote_windows_argument_as<char>(argument);
}

}  // namespace cudnnenv::util
