#include "integrate/kernelspec.hpp"

#include <cctype>

#include "select/project.hpp"
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
                                            const BesideNames& beside, const fs::path& python) {
  std::vector<std::string> argv = {util::to_utf8(cudnnenv), "--root", store, "exec", "--cudnn", spec};
  const auto flags = beside_flags(beside);
  argv.insert(argv.end(), flags.begin(), flags.end());
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

Result<KernelSpec> pinned_kernel(const Selection& selection, const Pin& pin, const fs::path& program,
                                 const std::string& root, const fs::path& python, const std::string& name,
                                 const std::string& display_name) {
  if (!util::is_valid_utf8(util::to_utf8(python)) || !util::is_valid_utf8(root)) {
    return make_error("'" + util::printable(util::to_utf8(python)) + "' or the store '" + util::printable(root) +
                          "' is not UTF-8 text, which kernel.json must be",
                      "move it to a path of UTF-8 letters");
  }
  KernelSpec spec;
  spec.name = name.empty() ? default_kernel_name(selection.tree.name) : name;
  spec.tree = selection.tree.name;
  spec.runtime = selection.runtime() ? selection.runtime()->name : std::string();
  spec.store = root;
  spec.display_name =
      !display_name.empty()
          ? display_name
          : "Python 3 (cuDNN " + selection.tree.version.str() +
                (selection.runtime() ? ", CUDA " + selection.runtime()->version.str() + " runtime" : std::string()) +
                ", cudnnenv '" + selection.tree.name + "')";
  if (!util::is_valid_utf8(spec.display_name)) {
    return make_error("the display name is not UTF-8 text", "give --display-name in UTF-8", ExitCode::usage);
  }
  spec.argv = pinned_kernel_argv(program, root, pin.spec, pin.beside, python);
  return spec;
}

Result<FileChange> write_kernel(const fs::path& folder, const std::optional<fs::path>& prefix, const KernelSpec& spec) {
  const fs::path kernel = folder / util::path_from_utf8(spec.name);
  if (prefix) CUDNNENV_TRY(no_link_on_the_way(*prefix, kernel / "kernel.json"));
  if (util::entry_exists(kernel / "kernel.json")) {
    // One that cannot be read (too big, a FIFO, no permission) cannot be shown to be cudnnenv's: left alone.
    auto existing = util::read_file(kernel / "kernel.json", k_max_settings_file);
    if (!existing || !written_by_cudnnenv(*existing)) {
      return make_error("a kernel '" + spec.name + "' that cudnnenv did not write is in " + util::to_utf8(kernel) +
                            (existing ? std::string() : " (" + existing.error().message + ")"),
                        "pick another name with --name");
    }
  }
  std::error_code ec;
  fs::create_directories(kernel, ec);
  if (ec) return make_error("cannot create '" + util::to_utf8(kernel) + "': " + ec.message());
  CUDNNENV_TRY(util::write_file_atomic(kernel / "kernel.json", kernel_json(spec)));
  return FileChange{FileChange::Kind::wrote, kernel / "kernel.json",
                    "(kernel '" + spec.name + "': " + spec.display_name + ")"};
}

Result<FileChange> remove_kernel(const fs::path& folder, const std::optional<fs::path>& prefix,
                                 const std::string& name) {
  const fs::path kernel = folder / util::path_from_utf8(name);
  if (prefix) CUDNNENV_TRY(no_link_on_the_way(*prefix, kernel / "kernel.json"));
  auto text = util::read_file(kernel / "kernel.json", k_max_settings_file);
  if (!text) {
    return make_error("no kernel '" + name + "' in " + util::to_utf8(folder), "'jupyter kernelspec list' lists them",
                      ExitCode::not_found);
  }
  if (!written_by_cudnnenv(*text)) {
    return make_error("the kernel '" + name + "' in " + util::to_utf8(kernel) + " was not written by cudnnenv",
                      "'jupyter kernelspec remove " + name + "' removes it");
  }
  std::error_code ec;
  fs::remove(kernel / "kernel.json", ec);
  if (ec) return make_error("cannot remove '" + util::to_utf8(kernel / "kernel.json") + "': " + ec.message());
  fs::remove(kernel, ec);  // only when nothing else is in it
  return FileChange{FileChange::Kind::removed, kernel / "kernel.json", {}};
}

namespace {

// settings.json's text, empty when there is none.
Result<std::string> vscode_settings_text(const fs::path& settings) {
  std::error_code ec;
  if (!fs::exists(settings, ec)) return std::string();
  auto text = util::read_file(settings, k_max_settings_file);
  if (!text) return make_error("cannot read '" + util::to_utf8(settings) + "': " + text.error().message);
  return std::move(*text);
}

Result<std::string> merged_settings(const fs::path& settings, const std::string& existing, const std::string& launcher,
                                    const std::string& tree) {
  auto merged = merged_vscode_settings(existing, launcher, tree, host_platform().os);
  if (!merged) {
    return make_error("'" + util::to_utf8(settings) + "' is " + merged.error().message + ": it was left as it is",
                      "add \"python.defaultInterpreterPath\" by hand, or remove the comments and run this again");
  }
  return merged;
}

}  // namespace

Result<void> check_vscode_settings(const fs::path& workspace) {
  const fs::path settings = workspace / ".vscode" / "settings.json";
  CUDNNENV_TRY(no_link_on_the_way(workspace, settings));
  CUDNNENV_TRY_ASSIGN(existing, vscode_settings_text(settings));
  if (!existing->empty()) CUDNNENV_TRY(merged_settings(settings, *existing, "", ""));
  return {};
}

Result<FileChange> write_vscode_settings(const fs::path& workspace, const fs::path& launcher, const std::string& tree) {
  const fs::path settings = workspace / ".vscode" / "settings.json";
  CUDNNENV_TRY(no_link_on_the_way(workspace, settings));
  CUDNNENV_TRY_ASSIGN(existing, vscode_settings_text(settings));
  CUDNNENV_TRY_ASSIGN(merged, merged_settings(settings, *existing, util::to_utf8(launcher), tree));
  std::error_code ec;
  fs::create_directories(settings.parent_path(), ec);
  CUDNNENV_TRY(util::write_file_atomic(settings, *merged));
  return FileChange{
      FileChange::Kind::wrote, settings,
      "(python.defaultInterpreterPath: " + util::to_utf8(launcher) + "; its terminals: CUDNNENV_VERSION=" + tree + ")"};
}

}  // namespace cudnnenv
