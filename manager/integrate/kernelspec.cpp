#include "integrate/kernelspec.hpp"

#include <cctype>

#include "util/fs.hpp"
#include "util/json.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

// The metadata key that marks a kernelspec as cudnnenv's.
constexpr const char* k_metadata_key = "cudnnenv";

}  // namespace

std::vector<std::string> pinned_kernel_argv(const fs::path& cudnnenv, const std::string& store, const std::string& spec,
                                            const std::string& runtime, const fs::path& python) {
  std::vector<std::string> argv = {util::to_utf8(cudnnenv), "--root", store, "exec", "--cudnn", spec};
  if (!runtime.empty()) argv.insert(argv.end(), {"--runtime", runtime});
  argv.insert(argv.end(), {"--", util::to_utf8(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"});
  return argv;
}

std::string kernel_json(const KernelSpec& spec) {
  Json metadata = Json::object();
  metadata[k_metadata_key] = Json{{"tree", spec.tree}, {"runtime", or_null(spec.runtime)}, {"store", spec.store}};
  const Json kernel{{"argv", spec.argv},
                    {"display_name", spec.display_name},
                    {"language", "python"},
                    {"interrupt_mode", "signal"},
                    {"metadata", std::move(metadata)}};
  return kernel.dump(2, ' ', false, Json::error_handler_t::replace) +
         "\n";  // the caller refuses text that is not UTF-8
}

bool written_by_cudnnenv(const std::string& text) {
  if (!json_nesting_within(text, 16)) return false;
  const Json kernel = parse_json(text);
  if (kernel.is_discarded() || !kernel.is_object()) return false;
  const auto metadata = kernel.find("metadata");
  return metadata != kernel.end() && metadata->is_object() && metadata->contains(k_metadata_key) &&
         (*metadata)[k_metadata_key].is_object();
}

bool is_valid_kernel_name(const std::string& name) {
  if (name.empty() || name.size() > 255) return false;
  for (const char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') return false;
  }
  return name != "." && name != "..";
}

std::string default_kernel_name(const std::string& tree) {
  std::string name = "cudnnenv-";
  for (const char c : tree) {
    const auto byte = static_cast<unsigned char>(c);
    name += std::isalnum(byte) || c == '.' || c == '-' ? static_cast<char>(std::tolower(byte)) : '_';
  }
  return name;
}

Result<std::string> merged_vscode_settings(std::string_view existing, const std::string& launcher,
                                           const std::string& tree, Os os) {
  Json merged = Json::object();
  if (!existing.empty()) {
    merged = util::is_valid_utf8(existing) && json_nesting_within(existing, 64) ? parse_json(existing)
                                                                                : Json(Json::value_t::discarded);
    if (merged.is_discarded() || !merged.is_object()) {
      return make_error("not plain JSON (comments or trailing commas?)");
    }
  }
  merged["python.defaultInterpreterPath"] = launcher;
  const std::string terminal = os == Os::windows ? "terminal.integrated.env.windows" : "terminal.integrated.env.linux";
  if (!merged.contains(terminal) || !merged[terminal].is_object()) merged[terminal] = Json::object();
  merged[terminal]["CUDNNENV_VERSION"] = tree;
  return merged.dump(4, ' ', false, Json::error_handler_t::replace) + "\n";
}

Result<fs::path> kernels_folder(const util::Environment& environment, Os os, const std::optional<fs::path>& prefix) {
  if (prefix) return *prefix / "share" / "jupyter" / "kernels";
  const auto absolute_of = [&](const char* variable) -> std::optional<fs::path> {
    auto value = environment.get(variable);
    if (!value || value->empty()) return std::nullopt;
    fs::path path = util::path_from_utf8(*value);
    return path.is_absolute() ? std::optional(path) : std::nullopt;  // a relative one would follow the working folder
  };
  if (auto data = absolute_of("JUPYTER_DATA_DIR")) return *data / "kernels";
  if (os == Os::windows) {
    if (auto appdata = absolute_of("APPDATA")) return *appdata / "jupyter" / "kernels";
  } else {
    if (auto data = absolute_of("XDG_DATA_HOME")) return *data / "jupyter" / "kernels";
    if (auto home = absolute_of("HOME")) return *home / ".local" / "share" / "jupyter" / "kernels";
    if (auto home = util::account_home_folder()) return *home / ".local" / "share" / "jupyter" / "kernels";
  }
  return make_error("no folder for Jupyter's kernels: " + std::string(os == Os::windows ? "APPDATA" : "HOME") +
                        " and JUPYTER_DATA_DIR are unset",
                    "give --prefix (an environment's folder), or set JUPYTER_DATA_DIR");
}

}  // namespace cudnnenv
