#include "doctor/facts.hpp"

#include <algorithm>
#include <cstdio>
#include <system_error>
#include <tuple>

#include <spdlog/spdlog.h>

#include "integrate/cdi.hpp"
#include "integrate/kernelspec.hpp"
#include "pin/launch.hpp"
#include "pin/shims.hpp"
#include "probe/probe.hpp"
#include "probe/protocol.hpp"
#include "store/layout.hpp"
#include "util/fs.hpp"
#include "util/json.hpp"
#include "util/process.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

std::string GpuInfo::compute_capability() const {
  return std::to_string(cc_major) + "." + std::to_string(cc_minor);
}

int compare_dotted(std::string_view a, std::string_view b) {
  const auto left = util::split(a, '.');
  const auto right = util::split(b, '.');
  for (std::size_t i = 0; i < std::max(left.size(), right.size()); ++i) {
    const long x = i < left.size() ? std::strtol(left[i].c_str(), nullptr, 10) : 0;
    const long y = i < right.size() ? std::strtol(right[i].c_str(), nullptr, 10) : 0;
    if (x != y) {
      return x < y ? -1 : 1;
    }
  }
  return 0;
}

std::string parse_proc_driver_version(std::string_view text) {
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Tue Oct  7 ..." (or "Open Kernel Module for x86_64").
  const auto line_end = text.find('\n');
  const std::string_view line = text.substr(0, line_end);
  if (!util::starts_with(line, "NVRM version:")) {
    return {};
  }
  for (const auto& word : util::split(line, ' ')) {
    if (word.find('.') != std::string::npos && !word.empty() && std::isdigit(static_cast<unsigned char>(word[0])) &&
        std::all_of(word.begin(), word.end(),
                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; })) {
      return word;
    }
  }
  return {};
}

DriverInfo parse_gpu_probe(std::string_view text) {
  DriverInfo info;
  for (const auto& [key, value] : probe_protocol::parse_key_values(text)) {
    if (key == probe_protocol::driver_version) {
      info.version = value;
      info.version_from = "NVML";
    } else if (key == probe_protocol::driver_cuda) {
      info.cuda = parse_cuda_version(value);
    } else if (key == probe_protocol::gpu_error) {
      info.error = value;
    } else if (key == probe_protocol::device) {
      // "INDEX CC NAME"
      const auto first = value.find(' ');
      const auto second = first == std::string::npos ? first : value.find(' ', first + 1);
      if (second == std::string::npos) {
        continue;
      }
      GpuInfo gpu;
      gpu.index = std::atoi(value.substr(0, first).c_str());
      const std::string cc = value.substr(first + 1, second - first - 1);
      const auto dot = cc.find('.');
      gpu.cc_major = std::atoi(cc.substr(0, dot).c_str());
      gpu.cc_minor = dot == std::string::npos ? 0 : std::atoi(cc.substr(dot + 1).c_str());
      gpu.name = value.substr(second + 1);
      info.gpus.push_back(gpu);
    }
  }
  return info;
}

DriverInfo read_driver(const fs::path& probe_program, std::chrono::milliseconds timeout) {
  DriverInfo info;
  util::ProcessSpec spec;
  spec.program = probe_program;
  spec.arguments = {"--gpus"};
  spec.environment = util::Environment::current();
  spec.timeout = timeout;
  auto outcome = util::run_process(spec);
  if (!outcome) {
    info.error = "cannot run " + util::to_utf8(probe_program) + ": " + outcome.error().message;
  } else {
    info = parse_gpu_probe(outcome->out);
    if (outcome->timed_out) {
      info.error = "the driver did not answer within " + std::to_string(timeout.count() / 1000) + " s";
    } else if (info.error.empty() && outcome->exit_code != 0) {
      info.error = util::trim(outcome->err).empty()
                       ? "the GPU list failed (exit code " + std::to_string(outcome->exit_code) + ")"
                       : std::string(util::trim(outcome->err));
    }
  }
  if (info.version.empty()) {
    info.version = proc_driver_version();
    if (!info.version.empty()) {
      info.version_from = "/proc/driver/nvidia/version";
    }
  }
  return info;
}

// A framework's build_info.py or version.py is a few kB: a larger one is not read.
constexpr std::size_t k_max_framework_file = 1024 * 1024;

std::string python_value_after(std::string_view text, std::string_view key) {
  // The first occurrence that is assigned or given: `key = '...'`, `key: T = '...'`,
  // `'key': '...'`; one in a list (`__all__ = ['__version__', ...]`) is not. Each
  // occurrence is looked at over k_max_value characters at most, so a crafted file
  // of many occurrences is read in linear time.
  constexpr std::size_t k_max_value = 200;
  for (auto at = text.find(key); at != std::string_view::npos; at = text.find(key, at + 1)) {
    const std::size_t limit = std::min(text.size(), at + key.size() + k_max_value);
    std::size_t position = at + key.size();
    while (position < limit && text[position] == ' ') ++position;
    if (position >= limit || (text[position] != '=' && text[position] != ':')) {
      continue;
    }
    while (position < limit && text[position] != '\'' && text[position] != '"' && text[position] != '\n' &&
           text[position] != ',' && text[position] != '}') {
      ++position;
    }
    if (position >= limit || (text[position] != '\'' && text[position] != '"')) {
      continue;
    }
    const char quote = text[position];
    const auto end = text.substr(0, std::min(text.size(), position + 1 + k_max_value + 1)).find(quote, position + 1);
    if (end == std::string_view::npos) {
      continue;
    }
    return std::string(text.substr(position + 1, end - position - 1));
  }
  return {};
}

std::vector<HeaderInfo> find_headers(const util::Environment& environment, const std::vector<ToolkitInfo>& toolkits,
                                     Os os) {
  std::vector<HeaderInfo> headers;
  std::error_code ec;
  auto add = [&](const fs::path& folder, const std::string& via) {
    for (const char* name : {"cudnn_version.h", "cudnn.h"}) {
      const fs::path file = folder / name;
      if (folder.empty() || !fs::is_regular_file(file, ec)) {
        continue;
      }
      for (const auto& known : headers) {
        if (fs::equivalent(known.file, file, ec)) {
          return;
        }
      }
      auto text = util::read_file(file);
      headers.push_back({file, text ? parse_version_header(*text) : std::nullopt, via});
      return;
    }
  };
  if (auto value = environment.get("CUDNN_INCLUDE_DIR"); value && !value->empty()) {
    add(util::path_from_utf8(*value), "CUDNN_INCLUDE_DIR");
  }
  for (const char* variable : {"CUDNN_PATH", "CUDNN_HOME", "CUDNN_ROOT"}) {
    if (auto value = environment.get(variable); value && !value->empty()) {
      add(util::path_from_utf8(*value) / "include", variable);
    }
  }
  for (const auto& toolkit : toolkits) {
    add(toolkit.root / "include", "the CUDA toolkit (" + toolkit.via + ")");
  }
  if (os == Os::linux) {
    add("/usr/include", "the system include folder");
    add("/usr/include/x86_64-linux-gnu", "the system include folder");
    add("/usr/local/include", "the system include folder");
  }
  return headers;
}

std::optional<ManagerShim> manager_in_shim_text(std::string_view text) {
  if (!util::starts_with(text, "#!")) return std::nullopt;
  // pyenv: exec "/root/.pyenv/libexec/pyenv" exec "$program" "$@"
  constexpr std::string_view pyenv = "/libexec/pyenv\" exec ";
  if (const auto at = text.find(pyenv); at != std::string_view::npos) {
    const auto open = text.rfind('"', at);
    if (open != std::string_view::npos) {
      return ManagerShim{"pyenv", std::string(text.substr(open + 1, at + pyenv.size() - 7 - open - 1))};
    }
  }
  // asdf (0.x): exec /home/u/.asdf/bin/asdf exec "python" "$@"  (or a bare asdf on PATH)
  for (std::size_t at = text.find("exec "); at != std::string_view::npos; at = text.find("exec ", at + 5)) {
    const std::size_t begin = at + 5;
    const std::size_t end = text.find(' ', begin);
    if (end == std::string_view::npos) break;
    const std::string_view word = text.substr(begin, end - begin);
    if ((word == "asdf" || util::ends_with(word, "/asdf")) && text.substr(end, 6) == " exec ") {
      return ManagerShim{"asdf", std::string(word)};
    }
  }
  return std::nullopt;
}

namespace {

// A version manager's shim on POSIX (pyenv's and asdf's are scripts naming
// the manager, mise's a link to mise itself): the manager, to ask its `which`.
// A manager is run only when this user or root owns it and its folders, and
// it lies outside the working folder's project.
std::optional<std::pair<std::string, fs::path>> version_manager_of(const fs::path& shim,
                                                                   const util::Environment& environment) {
  std::error_code ec;
  std::optional<std::pair<std::string, fs::path>> found;
  if (fs::is_symlink(shim, ec)) {
    const fs::path target = fs::canonical(shim, ec);
    if (!ec && util::starts_with(util::to_utf8(target.filename()), "mise")) found = std::pair{"mise", target};
  } else if (util::FilePtr file = util::open_file(shim, "rb")) {
    // The first 4 KiB: a program on PATH may be a large binary.
    std::string head(4096, '\0');
    head.resize(std::fread(head.data(), 1, head.size(), file.get()));
    if (auto manager = manager_in_shim_text(head)) {
      fs::path tool = util::path_from_utf8(manager->tool);
      if (manager->tool == "asdf") {
        auto on_path = find_program("asdf", environment, {});
        if (!on_path) return std::nullopt;
        tool = *on_path;
      }
      found = std::pair{manager->name, tool};
    }
  }
  if (!found || !found->second.is_absolute() || !fs::is_regular_file(found->second, ec)) return std::nullopt;
  // Not a tool anyone else could have written (a co-user's folder, a link into one), nor one inside the
  // working folder's project (the nearest folder up holding .git or .cudnnenv.toml; else the working
  // folder): a cloned repository's own "manager" is its code.
  const fs::path tool = fs::weakly_canonical(found->second, ec);
  if (const auto why = util::changeable_by_others(tool)) {
    spdlog::debug("doctor: not running '{}': {}", util::to_utf8(tool), *why);
    return std::nullopt;
  }
  const fs::path here = fs::weakly_canonical(fs::current_path(ec), ec);
  fs::path project = here;
  for (fs::path folder = here; !folder.empty(); folder = folder.parent_path()) {
    if (util::entry_exists(folder / ".git") || util::entry_exists(folder / ".cudnnenv.toml")) {
      project = folder;
      break;
    }
    if (folder == folder.parent_path()) break;
  }
  const auto inside = std::mismatch(project.begin(), project.end(), tool.begin(), tool.end());
  if (inside.first == project.end()) {
    spdlog::debug("doctor: not running '{}', which is inside the project '{}'", util::to_utf8(tool),
                  util::to_utf8(project));
    return std::nullopt;
  }
  return found;
}

// What a version manager's shim runs here, by the manager's own `which`
// (a child, 5 s at most, in this environment and folder).
std::optional<fs::path> resolve_manager_shim(const std::string& manager, const fs::path& tool, const std::string& name,
                                             const util::Environment& environment) {
  util::ProcessSpec spec;
  spec.program = tool;
  spec.arguments = {"which", name};
  spec.environment = environment;
  spec.timeout = std::chrono::seconds(5);
  auto outcome = util::run_process(spec);
  if (!outcome || outcome->exit_code != 0) {
    spdlog::debug("doctor: '{} which {}' failed", manager, name);
    return std::nullopt;
  }
  const std::string first = outcome->out.substr(0, outcome->out.find('\n'));
  const std::string line(util::trim(first));
  std::error_code ec;
  const fs::path found = util::path_from_utf8(line);
  if (line.empty() || !found.is_absolute() || !fs::is_regular_file(found, ec)) return std::nullopt;
  return found;
}

}  // namespace

ProgramInfo find_program_that_runs(const std::string& program, const util::Environment& environment,
                                   const fs::path& shims_dir, Os os, bool run_managers) {
  ProgramInfo info;
  info.requested = program;
  std::vector<std::string> names = {program};
  if (program == "python") names.push_back("python3");
  std::error_code ec;
  for (const auto& name : names) {
    auto found = find_program(name, environment, {});
    if (!found) continue;
    info.path = *found;
    info.target = *found;
    if (!shims_dir.empty() && fs::equivalent(found->parent_path(), shims_dir, ec)) {
      info.is_shim = true;
      info.target.clear();
      ShimPaths paths;
      paths.shims_dir = shims_dir;
      for (const auto& shim : list_shims(paths)) {
        if (fs::equivalent(shim.file, *found, ec) && !shim.target.empty()) {
          info.target = util::path_from_utf8(shim.target);
        }
      }
      if (info.target.empty()) {
        if (auto behind = find_program(name, environment, {shims_dir})) info.target = *behind;
      }
    }
    // A version manager's shim, first on PATH or behind cudnnenv's (pyenv's
    // shims after cudnnenv's): the program its `which` names. --no-load: no child at all.
    if (os != Os::windows && run_managers && !info.target.empty()) {
      if (auto manager = version_manager_of(info.target, environment)) {
        if (auto real = resolve_manager_shim(manager->first, manager->second, name, environment)) {
          info.manager = manager->first;
          info.target = *real;
        }
      }
    }
    break;
  }
  if (!info.target.empty()) {
    if (auto binary = identify_binary_file(info.target); binary && binary->format != BinaryFormat::none) {
      info.binary = *binary;
    }
  }
  return info;
}

std::vector<fs::path> site_packages_of(const fs::path& program, const util::Environment& environment, Os os) {
  std::vector<fs::path> sites;
  std::error_code ec;
  auto add = [&](const fs::path& site) {
    if (!fs::is_directory(site, ec)) {
      return;
    }
    for (const auto& known : sites) {
      if (fs::equivalent(known, site, ec)) {
        return;
      }
    }
    sites.push_back(site);
  };
  auto add_prefix = [&](const fs::path& prefix) {
    if (os == Os::windows) {
      add(prefix / "Lib" / "site-packages");
    } else {
      for (const auto& site : expand_glob(prefix / "lib" / "python3*" / "site-packages")) {
        add(site);
      }
    }
  };
  if (!program.empty()) {
    // python in <prefix>/bin (a venv, conda) or <prefix> / <prefix>\Scripts on Windows.
    add_prefix(program.parent_path());
    add_prefix(program.parent_path().parent_path());
  }
  for (const char* variable : {"VIRTUAL_ENV", "CONDA_PREFIX"}) {
    if (auto value = environment.get(variable); value && !value->empty()) {
      add_prefix(util::path_from_utf8(*value));
    }
  }
  // The project's own venv, where uv and poetry put it, whether or not it is active.
  add_prefix(fs::current_path(ec) / ".venv");
  return sites;
}

std::string cudnn_requirement(std::string_view metadata) {
  for (const auto& raw : util::split(metadata, '\n')) {
    const std::string_view line = util::trim(raw);
    constexpr std::string_view k_key = "Requires-Dist:";
    if (!util::starts_with(line, k_key)) continue;
    std::string_view requirement = util::trim(line.substr(k_key.size()));
    if (!util::starts_with(requirement, "nvidia-cudnn-cu") && !util::starts_with(requirement, "nvidia_cudnn_cu")) {
      continue;
    }
    requirement = util::trim(requirement.substr(0, requirement.find(';')));
    // "nvidia-cudnn-cu12 (>=9.1)" in older metadata: the same without the parentheses.
    std::string text;
    for (const char c : requirement) {
      if (c != '(' && c != ')' && c != ' ') text += c;
    }
    return text.substr(0, 200);
  }
  return {};
}

std::optional<Version> requirement_floor(std::string_view requirement) {
  std::optional<Version> floor;
  const auto start = requirement.find_first_of("<>=~!");
  if (start == std::string_view::npos) return std::nullopt;
  for (const auto& clause : util::split(requirement.substr(start), ',')) {
    const std::string_view text = util::trim(clause);
    for (const std::string_view op : {">=", "==", "~="}) {
      if (!util::starts_with(text, op)) continue;
      std::string_view number = util::trim(text.substr(op.size()));
      if (number.ends_with(".*")) number.remove_suffix(2);
      auto version = parse_version(number);
      if (!version && !number.empty() && number.find('.') == std::string_view::npos) {
        version = parse_version(std::string(number) + ".0");
      }
      if (version && (!floor || *floor < *version)) floor = version;
    }
  }
  return floor;
}

std::vector<FrameworkInfo> find_frameworks(const std::vector<fs::path>& site_packages,
                                           const std::vector<FoundCopy>& copies, Os os) {
  std::vector<FrameworkInfo> frameworks;
  std::error_code ec;
  auto dist_version = [&](const fs::path& site, std::initializer_list<const char*> names) -> std::string {
    for (const char* name : names) {
      for (const auto& info : expand_glob(site / (std::string(name) + "-*.dist-info"))) {
        const std::string folder = util::to_utf8(info.filename());
        const std::string rest = folder.substr(std::string(name).size() + 1);
        return rest.substr(0, rest.size() - std::string(".dist-info").size());
      }
    }
    return {};
  };
  auto copy_version = [&](const fs::path& library) -> std::string {
    for (const auto& copy : copies) {
      if (fs::equivalent(copy.library, library, ec) && copy.version) {
        return copy.version->str();
      }
    }
    return {};
  };
  auto metadata_requirement = [&](const fs::path& dist_info) -> std::string {
    if (auto text = util::read_file(dist_info / "METADATA", k_max_framework_file)) return cudnn_requirement(*text);
    return {};
  };
  // A dist-info folder's distribution ("jax-cuda12-plugin", '_' as '-') and version.
  auto dist_parts = [](const fs::path& dist_info) {
    const std::string folder = util::to_utf8(dist_info.filename());
    const auto dash = std::min(folder.find('-'), folder.size());
    std::string name = folder.substr(0, dash);
    std::replace(name.begin(), name.end(), '_', '-');
    const std::size_t suffix = std::string(".dist-info").size();
    const std::string version =
        folder.size() > dash + 1 + suffix ? folder.substr(dash + 1, folder.size() - dash - 1 - suffix) : "";
    return std::pair{name, version};
  };
  for (const auto& site : site_packages) {
    const fs::path tensorflow = site / "tensorflow";
    if (fs::is_directory(tensorflow, ec)) {
      FrameworkInfo info;
      info.name = "TensorFlow";
      info.location = tensorflow;
      info.version = dist_version(site, {"tensorflow", "tensorflow_gpu", "tensorflow_cpu", "tf_nightly"});
      if (auto text = util::read_file(tensorflow / "python" / "platform" / "build_info.py", k_max_framework_file)) {
        info.cuda = python_value_after(*text, "'cuda_version'");
        info.cudnn = python_value_after(*text, "'cudnn_version'");
        if (info.cuda.empty()) info.cuda = python_value_after(*text, "cuda_version_number");
        if (info.cudnn.empty()) info.cudnn = python_value_after(*text, "cudnn_version_number");
      }
      frameworks.push_back(info);
    }
    const fs::path torch = site / "torch";
    const fs::path wheel = site / "nvidia" / "cudnn" / (os == Os::windows ? "bin" : "lib");
    if (!fs::is_directory(torch, ec) && fs::is_directory(wheel, ec)) {
      // NVIDIA's cuDNN wheel without PyTorch beside it (JAX, a venv made for a tree): its copy, by itself.
      FrameworkInfo info;
      info.name = "nvidia-cudnn";
      info.location = site / "nvidia" / "cudnn";
      for (const auto& dist : expand_glob(site / "nvidia_cudnn_cu*-*.dist-info")) {
        std::tie(info.name, info.version) = dist_parts(dist);
        break;
      }
      for (const auto& entry : fs::directory_iterator(wheel, ec)) {
        if (main_library_major(util::to_utf8(entry.path().filename()), os)) {
          info.own_copies.push_back(entry.path());
          if (info.cudnn.empty()) info.cudnn = copy_version(entry.path());
        }
      }
      frameworks.push_back(info);
    }
    if (fs::is_directory(torch, ec)) {
      FrameworkInfo info;
      info.name = "PyTorch";
      info.location = torch;
      if (auto file = util::read_file(torch / "version.py", k_max_framework_file)) {
        const std::string text = "\n" + *file;  // so that every line starts after a newline
        info.version = python_value_after(text, "\n__version__");
        // "cuda: Optional[str] = '13.0'" (2.x) or "cuda = '11.3'", at the start of a line.
        info.cuda = python_value_after(text, "\ncuda");
      }
      if (info.version.empty()) {
        info.version = dist_version(site, {"torch"});
      }
      for (const auto& dist : expand_glob(site / "torch-*.dist-info")) {
        info.requires_cudnn = metadata_requirement(dist);
      }
      for (const fs::path& folder : {torch / "lib", site / "nvidia" / "cudnn" / (os == Os::windows ? "bin" : "lib")}) {
        for (const auto& entry : fs::directory_iterator(folder, ec)) {
          const std::string name = util::to_utf8(entry.path().filename());
          if (main_library_major(name, os)) {
            info.own_copies.push_back(entry.path());
            if (info.cudnn.empty()) {
              info.cudnn = copy_version(entry.path());
            }
          }
        }
      }
      frameworks.push_back(info);
    }
    const fs::path jax = site / "jax";
    if (fs::is_directory(jax, ec)) {
      // JAX's CUDA build is its plugin (jax-cuda12-plugin, jax-cuda13-plugin):
      // without one JAX runs on the CPU and needs no cuDNN.
      for (const auto& plugin : expand_glob(site / "jax_cuda*_plugin-*.dist-info")) {
        FrameworkInfo info;
        info.name = "JAX";
        info.location = jax;
        info.version = dist_version(site, {"jax"});
        info.package = dist_parts(plugin).first;
        const std::string digits = info.package.substr(std::string("jax-cuda").size());
        info.cuda = digits.substr(0, digits.find('-'));
        info.requires_cudnn = metadata_requirement(plugin);
        if (auto floor = requirement_floor(info.requires_cudnn)) info.cudnn = floor->str();
        frameworks.push_back(info);
        break;
      }
    }
    const fs::path onnxruntime = site / "onnxruntime";
    if (auto text = util::read_file(onnxruntime / "capi" / "build_and_package_info.py", k_max_framework_file)) {
      // Only the GPU builds say a CUDA version.
      const std::string body = "\n" + *text;
      FrameworkInfo info;
      info.name = "ONNX Runtime";
      info.location = onnxruntime;
      info.cuda = python_value_after(body, "\ncuda_version");
      info.cudnn = python_value_after(body, "\ncudnn_version");
      info.version = python_value_after(body, "\n__version__");
      info.package = python_value_after(body, "\npackage_name");
      for (const auto& dist : expand_glob(site / "onnxruntime_gpu-*.dist-info")) {
        info.requires_cudnn = metadata_requirement(dist);
        if (info.version.empty()) info.version = dist_version(site, {"onnxruntime_gpu"});
      }
      if (!info.cuda.empty()) frameworks.push_back(info);
    }
    const fs::path cupy = site / "cupy";
    if (fs::is_directory(cupy, ec)) {
      for (const auto& dist : expand_glob(site / "cupy_cuda*-*.dist-info")) {
        FrameworkInfo info;
        info.name = "CuPy";
        info.location = cupy;
        std::tie(info.package, info.version) = dist_parts(dist);
        // cupy-cuda12x, cupy-cuda11x; cupy-cuda102 and the like name a minor too.
        std::string digits = info.package.substr(std::string("cupy-cuda").size());
        if (!digits.empty() && digits.back() == 'x') digits.pop_back();
        info.cuda = digits.size() == 3 ? digits.substr(0, 2) + "." + digits.substr(2) : digits;
        info.requires_cudnn = metadata_requirement(dist);
        frameworks.push_back(info);
        break;
      }
    }
  }
  return frameworks;
}

namespace {

// The kernelspecs jupyter_client would list: the user's folder, then the
// system's (Linux: /usr/local/share, /usr/share; Windows: %PROGRAMDATA%).
std::vector<KernelInfo> find_kernels(const util::Environment& environment, Os os) {
  std::vector<std::filesystem::path> folders;
  if (auto user = kernels_folder(environment, os, std::nullopt)) folders.push_back(*user);
  if (os == Os::windows) {
    if (auto data = environment.get("PROGRAMDATA"); data && !data->empty()) {
      folders.push_back(util::path_from_utf8(*data) / "jupyter" / "kernels");
    }
  } else {
    folders.push_back("/usr/local/share/jupyter/kernels");
    folders.push_back("/usr/share/jupyter/kernels");
  }
  std::vector<KernelInfo> kernels;
  for (const auto& folder : folders) {
    for (const auto& entry : util::directory_entries(folder)) {
      if (!entry.is_directory) continue;
      const std::filesystem::path file = entry.path / "kernel.json";
      auto text = util::read_file(file, 256 * 1024);
      if (!text || !json_nesting_within(*text, 16)) continue;
      const Json kernel = parse_json(*text);
      if (kernel.is_discarded() || !kernel.is_object() || !kernel.contains("argv") || !kernel["argv"].is_array()) {
        continue;
      }
      KernelInfo info{util::to_utf8(entry.path.filename()), file, {}, written_by_cudnnenv(*text)};
      for (const auto& word : kernel["argv"]) {
        if (word.is_string()) info.argv.push_back(word.get<std::string>());
      }
      kernels.push_back(std::move(info));
    }
  }
  return kernels;
}

// The nearest .vscode/settings.json from `folder` up, and its interpreter;
// pinned only when that is a launcher cudnnenv made in `launchers` (a
// NAME.shim beside a repository's own interpreter is anyone's to write). The
// search skips another user's settings and stops at another user's folder,
// as the project file's does.
std::optional<VscodeInfo> find_vscode(const fs::path& folder, const fs::path& launchers) {
  std::error_code ec;
  fs::path workspace = folder;
  for (int depth = 0; depth < 256; ++depth) {
    if (util::foreign_owner(workspace)) break;
    const fs::path settings = workspace / ".vscode" / "settings.json";
    if (fs::is_regular_file(settings, ec) && !util::foreign_owner(settings)) {
      VscodeInfo info;
      info.settings = settings;
      auto text = util::read_file(settings, k_max_settings_file);
      const Json parsed = text && util::is_valid_utf8(*text) && json_nesting_within(*text, 64)
                              ? parse_json(*text)
                              : Json(Json::value_t::discarded);
      if (parsed.is_discarded() || !parsed.is_object()) {
        info.problem = text ? "not plain JSON (comments or trailing commas?)" : text.error().message;
        return info;
      }
      const auto interpreter = parsed.find("python.defaultInterpreterPath");
      if (interpreter == parsed.end() || !interpreter->is_string()) return info;
      info.interpreter = interpreter->get<std::string>();
      std::string path = info.interpreter;
      for (const std::string variable : {"${workspaceFolder}", "${workspaceRoot}"}) {
        for (auto at = path.find(variable); at != std::string::npos; at = path.find(variable)) {
          path.replace(at, variable.size(), util::to_utf8(workspace));
        }
      }
      info.program = util::path_from_utf8(path);
      if (info.program.is_relative()) info.program = workspace / info.program;
      // launchers/<tree>/<interpreter>/python (launchers/<tree>/python: an older export).
      const fs::path folder = info.program.parent_path();
      if (util::same_file(folder.parent_path(), launchers)) {
        info.pinned = launcher_pin(info.program);
      } else if (util::same_file(folder.parent_path().parent_path(), launchers)) {
        info.pinned = launcher_pin(info.program);
        if (info.pinned) info.pinned->tree = util::to_utf8(folder.parent_path().filename());
      }
      return info;
    }
    if (!workspace.has_parent_path() || workspace.parent_path() == workspace) break;
    workspace = workspace.parent_path();
  }
  return std::nullopt;
}

}  // namespace

Facts collect_facts(const FactsRequest& request) {
  Facts facts;
  facts.platform = request.platform;
  facts.environment = request.environment;
  const Os os = request.platform.os;
  if (request.store != nullptr) {
    facts.store_root = request.store->root();
    auto listing = request.store->list(RecordPart::everything);
    facts.trees = listing.trees;
    facts.beside = listing.beside;
    facts.kernels = find_kernels(request.environment, request.platform.os);
    facts.vscode = find_vscode(request.selection.working_directory, request.store->state().launchers());
    if (request.platform.os == Os::linux) facts.cdi_specs = find_cdi_specs();
    facts.damaged_trees = listing.damaged;
    auto selection = resolve_selection(*request.store, request.selection);
    if (selection) {
      if (auto whole = request.store->full_record(selection->tree)) {
        selection->tree = *whole;
      }
      facts.selection = *selection;
    } else {
      facts.selection_error = selection.error();
    }
  }
  if (auto profiles = all_profiles(os, request.config_files)) {
    facts.profiles = *profiles;
  }
  facts.driver = read_driver(request.probe_program, request.timeout);
  facts.toolkits = find_toolkits(request.environment, os);
  facts.headers = find_headers(request.environment, facts.toolkits, os);

  const fs::path shims_dir = request.store != nullptr ? request.store->state().shims() : fs::path();
  facts.program = find_program_that_runs(request.program, request.environment, shims_dir, os, request.load_copies);
  facts.site_packages = site_packages_of(facts.program.target, request.environment, os);

  DiscoverContext discover_context;
  discover_context.environment = request.environment;
  discover_context.os = os;
  discover_context.site_packages = facts.site_packages;
  if (request.load_copies) {
    discover_context.probe = [program = request.probe_program, timeout = request.timeout](const fs::path& library) {
      return probe_in_child(program, library, timeout);
    };
  }
  facts.copies = discover(discover_context);
  facts.frameworks = find_frameworks(facts.site_packages, facts.copies, os);
  facts.cpu_avx = cpu_has_avx();
  if (os == Os::windows) {
    facts.registry_path = read_registry_path();
    facts.vc_runtime = find_vc_runtime(request.environment);
  }
  return facts;
}

FactsRequest facts_request(const Store& store, const util::Environment& environment, SelectionRequest selection,
                           const std::string& program, bool load_copies) {
  FactsRequest request;
  request.environment = environment;
  request.store = &store;
  request.selection = std::move(selection);
  request.program = program;
  request.probe_program = probe_program_beside(util::installed_program());
  request.config_files = config_files(store);
  request.load_copies = load_copies;
  return request;
}

}  // namespace cudnnenv
