#include "pin/launch.hpp"

#include <regex>

#include "batch_command.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <set>
#include <system_error>

#include <spdlog/spdlog.h>

#include "discover/discover.hpp"
#include "formats/binfmt.hpp"
#include "launch_key.hpp"
#include "store/component.hpp"
#include "store/layout.hpp"
#include "store/runtime.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

Result<void> check_batch_arguments(const fs::path& program, const std::vector<std::string>& arguments) {
  const std::string path = util::to_utf8(program);
  if (!shim::is_batch_file(std::string_view(path))) {
    return {};
  }
  const std::string hint =
      "cmd re-reads a batch file's command line: pass such a value in an environment variable or a file, "
      "or start a program (.exe) instead";
  if (const char* problem = shim::batch_argument_problem(std::string_view(path))) {
    return make_error("the batch file '" + path + "' has " + problem + " in its path", hint, ExitCode::usage);
  }
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    if (const char* problem = shim::batch_argument_problem(std::string_view(arguments[i]))) {
      return make_error("argument " + std::to_string(i + 1) + " ('" + arguments[i] + "') for the batch file '" + path +
                            "' has " + problem + ": refused",
                        hint, ExitCode::usage);
    }
  }
  return {};
}

fs::path audit_module_beside(const fs::path& program) {
  return program.parent_path() / "libcudnnenv-audit.so";
}

namespace {

// In a skipped folder, or the same file as the one of that name there (a
// link to a shim, or a shim reached through another spelling of its path).
bool in_skipped(const fs::path& candidate, const std::vector<fs::path>& skip) {
  for (const auto& folder : skip) {
    if (util::same_file(candidate.parent_path(), folder) || util::same_file(candidate, folder / candidate.filename())) {
      return true;
    }
  }
  return false;
}

// `value` with `entry` first and any earlier copies of it removed, so that
// launching from a launched program does not grow the list.
std::string prepend_entry(const std::string& entry, const std::optional<std::string>& value, char separator) {
  std::string result = entry;
  for (const auto& existing : util::split(value.value_or(""), separator)) {
    if (!existing.empty() && existing != entry) {
      result += separator;
      result += existing;
    }
  }
  return result;
}

// What the pin holds on: for a script, the interpreter its #! line names.
fs::path program_behind(const fs::path& program, const util::Environment& environment) {
  auto file = util::open_file(program, "rb");
  char head[512] = {};
  const std::size_t got = file ? std::fread(head, 1, sizeof head - 1, file.get()) : 0;
  if (got < 2 || head[0] != '#' || head[1] != '!') {
    return program;
  }
  const std::string line(head + 2, std::string_view(head + 2, got - 2).find('\n'));
  std::vector<std::string> words;
  for (const auto& word : util::split(util::trim(line), ' ')) {
    if (!word.empty()) words.push_back(word);
  }
  if (words.empty()) {
    return program;
  }
  if (util::ends_with(words[0], "/env") && words.size() > 1) {
    auto found = find_program(words[1], environment, {});
    return found ? *found : fs::path(words[0]);
  }
  return fs::path(words[0]);
}

// Where the loader will not honour the pin, said before the start.
std::vector<std::string> pin_notes(const fs::path& program, const util::Environment& environment, PinMode mode) {
  std::vector<std::string> notes;
  const std::string name = util::to_utf8(program.filename());
  if (windows_host()) {
    // (A copy in the program's own folder or System32: shadowed_libraries.)
    // A Python with PyTorch: torch\lib's cuDNN is loaded by full path.
    if (util::starts_with(util::to_lower(name), "python")) {
      for (const fs::path& prefix : {program.parent_path(), program.parent_path().parent_path()}) {
        std::error_code ec;
        const fs::path torch_lib = prefix / "Lib" / "site-packages" / "torch" / "lib";
        for (const auto& entry : fs::directory_iterator(torch_lib, ec)) {
          if (is_cudnn_file(util::to_utf8(entry.path().filename()))) {
            notes.push_back(
                "PyTorch in '" + util::to_utf8(torch_lib) +
                "' loads its own cuDNN there by full path; no launcher can replace it (the report shows it)");
            break;
          }
        }
      }
    }
    return notes;
  }
  const fs::path binary = program_behind(program, environment);
  std::error_code ec;
  const auto permissions = fs::status(binary, ec).permissions();
  if (!ec && (permissions & (fs::perms::set_uid | fs::perms::set_gid)) != fs::perms::none) {
    notes.push_back("'" + util::to_utf8(binary) +
                    "' is setuid or setgid: the loader ignores LD_AUDIT, LD_PRELOAD and LD_LIBRARY_PATH for it, "
                    "so the pin cannot hold");
  }
  if (auto links = read_link_info(binary); links && links->binary.format == BinaryFormat::elf && !links->dynamic) {
    notes.push_back("'" + util::to_utf8(binary) + "' is statically linked: it loads libraries only by dlopen, which " +
                    (mode == PinMode::audit ? std::string("LD_AUDIT does not reach in a static program")
                                            : std::string("LD_LIBRARY_PATH still steers")));
  }
  return notes;
}

// Windows: the DLLs of the plan's folders of which a copy lies in a folder
// the standard search looks in before PATH (folders_before_path), ordered so
// that each comes after those of them it imports. Each copy is logged (-v):
// the pin holds, --report shows the tree's file loaded.
std::vector<fs::path> shadowed_libraries(const LaunchPlan& plan) {
  DiscoverContext context;
  context.environment = plan.environment;
  context.os = Os::windows;
  const auto before = folders_before_path(context, plan.program);
  std::vector<fs::path> shadowed;
  for (const fs::path& folder : plan.folders) {
    for (const auto& entry : util::directory_entries(folder)) {
      const fs::path name = entry.path.filename();
      if (!entry.is_regular_file || util::to_lower(util::to_utf8(name.extension())) != ".dll") continue;
      for (const auto& place : before) {
        const fs::path copy = place.directory / name;
        std::error_code ec;
        if (place.directory.empty() || !fs::is_regular_file(copy, ec) || util::same_file(copy, entry.path)) continue;
        shadowed.push_back(entry.path);
        spdlog::debug(
            "'{}' ({}) comes before the pinned folders in Windows' search: '{}' is loaded inside the "
            "program before it starts, so a load of that name gets the tree's",
            util::to_utf8(copy), place.via, util::to_utf8(entry.path));
        break;
      }
    }
  }
  // Dependencies first: a DLL loaded by path resolves its imports by the
  // standard search, which would find the copy of one not loaded yet.
  std::vector<fs::path> ordered;
  const auto imports_pending = [&](const fs::path& file) {
    const auto links = read_link_info(file);
    if (!links) return false;
    return std::any_of(links->needed.begin(), links->needed.end(), [&](const std::string& needed) {
      return std::any_of(shadowed.begin(), shadowed.end(), [&](const fs::path& other) {
        return other != file && util::iequals(util::to_utf8(other.filename()), needed) &&
               std::find(ordered.begin(), ordered.end(), other) == ordered.end();
      });
    });
  };
  while (ordered.size() < shadowed.size()) {
    const std::size_t before_pass = ordered.size();
    for (const auto& file : shadowed) {
      if (std::find(ordered.begin(), ordered.end(), file) == ordered.end() && !imports_pending(file)) {
        ordered.push_back(file);
      }
    }
    if (ordered.size() == before_pass) {  // a cycle: the rest in folder order
      for (const auto& file : shadowed) {
        if (std::find(ordered.begin(), ordered.end(), file) == ordered.end()) ordered.push_back(file);
      }
    }
  }
  return ordered;
}

}  // namespace

bool is_cudnn_file(std::string_view path) {
  const auto slash = path.find_last_of(windows_host() ? "/\\" : "/");
  std::string name(slash == std::string_view::npos ? path : path.substr(slash + 1));
  // A wheel repaired by auditwheel or delvewheel renames its libraries with
  // a hash: libcudnn-0123abcd.so.9, cudnn64_8-0123abcd....dll.
  static const std::regex hashed(R"(^((lib)?cudnn[a-z_]*(64_\d+)?)-[0-9a-f]{8,}(\..*)$)", std::regex::icase);
  name = std::regex_replace(name, hashed, "$1$4");
  return is_cudnn_library_name(name, Os::windows) || is_cudnn_library_name(name, Os::linux);
}

bool is_cudnn_module(const std::string& path) {
  if (is_cudnn_file(path)) return true;
  // By what it is: reached through a link of another name, or a copy
  // renamed: a library whose soname is cuDNN's (ELF).
  std::error_code ec;
  const fs::path file = util::path_from_utf8(path);
  const fs::path resolved = fs::weakly_canonical(file, ec);
  if (!ec && is_cudnn_file(util::to_utf8(resolved))) return true;
  if (windows_host()) return false;
  auto links = read_link_info(ec ? file : resolved);
  if (links && !links->soname.empty() && is_cudnn_file(links->soname)) return true;
  // A cuDNN under a name and soname of its own (loaded by path): by what it exports.
  auto exported = exports_symbol(ec ? file : resolved, "cudnnGetVersion");
  return exported && *exported;
}

std::vector<ProgramOnPath> programs_on_path(std::string_view prefix, const util::Environment& environment,
                                            const std::vector<fs::path>& skip) {
  std::vector<std::string> extensions;
  if (windows_host()) {
    for (const auto& extension : util::split(environment.get("PATHEXT").value_or(".COM;.EXE;.BAT;.CMD"), ';')) {
      if (!extension.empty()) extensions.push_back(util::to_lower(extension));
    }
  }
  std::vector<ProgramOnPath> found;
  std::set<std::string> seen;
  for (const auto& entry : util::split_path_list(environment.get("PATH").value_or(""))) {
    const fs::path folder = util::path_from_utf8(entry);
    std::error_code ec;
    if (entry.empty() || std::any_of(skip.begin(), skip.end(),
                                     [&](const fs::path& skipped) { return util::same_file(folder, skipped); })) {
      continue;
    }
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
      std::string name = util::to_utf8(it->path().filename());
      if (windows_host()) {
        const std::string extension = util::to_lower(util::to_utf8(it->path().extension()));
        if (std::find(extensions.begin(), extensions.end(), extension) == extensions.end()) continue;
        name = util::to_utf8(it->path().stem());
      }
      if (!util::starts_with(name, prefix)) continue;
      std::error_code status_ec;
      const auto status = fs::status(it->path(), status_ec);
      if (status_ec || !fs::is_regular_file(status)) continue;
      if (!windows_host() && (status.permissions() & (fs::perms::owner_exec | fs::perms::group_exec |
                                                      fs::perms::others_exec)) == fs::perms::none) {
        continue;
      }
      if (seen.insert(windows_host() ? util::to_lower(name) : name).second) found.push_back({name, it->path()});
    }
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return found;
}

Result<fs::path> find_program(const std::string& command, const util::Environment& environment,
                              const std::vector<fs::path>& skip) {
  std::error_code ec;
  if (command.empty()) {
    return make_error("no program to start", "put it after '--': cudnnenv exec -- python train.py", ExitCode::usage);
  }
  std::vector<std::string> suffixes = {""};
  if (windows_host() && fs::path(util::path_from_utf8(command)).extension().empty()) {
    suffixes.clear();
    for (const auto& extension : util::split(environment.get("PATHEXT").value_or(".COM;.EXE;.BAT;.CMD"), ';')) {
      if (!extension.empty()) suffixes.push_back(util::to_lower(extension));
    }
  }
  const bool has_folder =
      command.find('/') != std::string::npos || (windows_host() && command.find('\\') != std::string::npos);
  std::vector<fs::path> folders;
  if (has_folder) {
    folders.push_back(fs::path());
  } else {
    for (const auto& entry : util::split_path_list(environment.get("PATH").value_or(""))) {
      folders.push_back(util::path_from_utf8(entry));
    }
  }
  bool skipped_one = false;
  for (const auto& folder : folders) {
    for (const auto& suffix : suffixes) {
      const fs::path candidate =
          folder.empty() ? util::path_from_utf8(command + suffix) : folder / util::path_from_utf8(command + suffix);
      if (!fs::is_regular_file(candidate, ec)) {
        continue;
      }
      if (!windows_host() && (fs::status(candidate, ec).permissions() & fs::perms::others_exec) == fs::perms::none &&
          (fs::status(candidate, ec).permissions() & fs::perms::owner_exec) == fs::perms::none) {
        continue;
      }
      if (in_skipped(candidate, skip)) {
        skipped_one = true;
        continue;
      }
      return fs::absolute(candidate, ec);
    }
  }
  if (skipped_one) {
    return make_error("'" + command + "' is found only in the shims folder: the shim would start itself",
                      "install the program, or give the shim a target: cudnnenv shim add " + command + " --target PATH",
                      ExitCode::not_found);
  }
  return make_error("'" + command + "' not found" + (has_folder ? "" : " on PATH"),
                    has_folder ? "check the path" : "give its full path, or put its folder on PATH",
                    ExitCode::no_program);
}

Result<std::optional<fs::path>> prepare_fence(const TreeRecord& tree, const fs::path& fence_dll,
                                              const fs::path& fences) {
  const std::vector<std::string> lacking =
      family_libraries_lacking(tree.resolve(tree.layout.library_dir), tree.version.major, Os::windows);
  if (lacking.empty()) return std::optional<fs::path>();
  std::error_code ec;
  if (!fs::is_regular_file(fence_dll, ec)) {
    return make_error("'" + util::to_utf8(fence_dll) + "' is missing: the names the tree lacks (" +
                          util::join(lacking, ", ") + ") cannot be fenced",
                      "reinstall cudnnenv");
  }
  // One folder per set of names, named after them: trees lacking the same names share it.
  char digest[17];
  std::snprintf(digest, sizeof digest, "%016llx",
                static_cast<unsigned long long>(shim::fnv1a(util::join(lacking, "\n").c_str())));
  const fs::path folder = fences / digest;
  fs::create_directories(folder, ec);
  for (const auto& name : lacking) {
    const fs::path file = folder / util::path_from_utf8(name);
    if (fs::is_regular_file(file, ec) && fs::file_size(file, ec) == fs::file_size(fence_dll, ec)) continue;
    CUDNNENV_TRY_ASSIGN(bytes, util::read_file(fence_dll, 1 << 20));
    CUDNNENV_TRY(util::write_file_atomic(file, *bytes));
  }
  return std::optional<fs::path>(folder);
}

Result<void> create_report_log(const fs::path& file) {
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  CUDNNENV_TRY_ASSIGN(log, util::create_new_file(file));
  return {};
}

void remove_report_log(const fs::path& file) {
  std::error_code ec;
  fs::remove(file, ec);
}

Result<LaunchPlan> plan_environment(const LaunchRequest& request) {
  LaunchPlan plan;
  plan.environment = request.environment;
  plan.library_dir = request.tree.resolve(request.tree.layout.library_dir);
  plan.report_log = request.report_log;
  // The selection's trees and their folders, in the components' order.
  std::vector<std::pair<const ComponentRow*, std::string>> folders;
  for (const TreeRecord* tree : pinned_trees(request.tree, request.beside)) {
    if (tree->kind == TreeKind::cuda) plan.runtime_dir = tree->resolve(tree->layout.library_dir);
    plan.folders.push_back(tree->resolve(tree->layout.library_dir));
    folders.emplace_back(&component(tree->kind), util::to_utf8(tree->resolve(tree->layout.library_dir)));
  }
  const char separator = windows_host() ? ';' : ':';
  if (!windows_host()) {
    std::vector<std::pair<std::string, std::string>> checked;
    for (const auto& [row, folder] : folders) checked.emplace_back(row->folder_words, folder);
    checked.emplace_back("the audit module", util::to_utf8(request.audit_module));
    for (const auto& [what, text] : checked) {
      if (text.find(':') != std::string::npos) {
        return make_error(what + " '" + text + "' has a ':', which LD_LIBRARY_PATH and LD_AUDIT cannot hold",
                          "move the store (--root) or cudnnenv to a path without ':'");
      }
    }
  }
  auto& environment = plan.environment;
  const auto set = [&](const std::string& name, const std::string& value) {
    plan.changes.push_back({EnvironmentChange::Kind::set, name, value});
    environment.set(name, value);
  };
  const auto unset = [&](const std::string& name) {
    plan.changes.push_back({EnvironmentChange::Kind::unset, name, {}});
    environment.unset(name);
  };
  const auto prepend = [&](const std::string& name, const std::string& entry) -> Result<void> {
    if (entry.find(separator) != std::string::npos) {
      return make_error("'" + entry + "' has a '" + std::string(1, separator) + "', which " + name + " cannot hold",
                        "move the store (--root) to a path without one");
    }
    plan.changes.push_back({EnvironmentChange::Kind::prepend, name, entry});
    environment.set(name, prepend_entry(entry, environment.get(name), separator));
    return {};
  };
  // The selection's launch environment: each entry in front of the ones
  // before it (the tree's folder ends up first, the runtime's right after).
  const std::string loader_list = windows_host() ? "PATH" : "LD_LIBRARY_PATH";
  // The fence goes first so that it ends up right after the trees' folders.
  if (windows_host() && !request.fence_folder.empty()) {
    CUDNNENV_TRY(prepend("PATH", util::to_utf8(request.fence_folder)));
    plan.fence_folder = request.fence_folder;
  }
  if (request.selection_environment.prepend.empty()) {
    for (auto each = folders.rbegin(); each != folders.rend(); ++each) CUDNNENV_TRY(prepend(loader_list, each->second));
  }
  for (const auto& [name, entry] : request.selection_environment.prepend) CUDNNENV_TRY(prepend(name, entry));
  for (const auto& [name, value] : request.selection_environment.set) set(name, value);
  // The pin.
  const bool audit = !windows_host() && (request.mode == PinMode::audit || !request.report_log.empty());
  const bool pinned_by_name = windows_host() || request.mode == PinMode::audit;
  // Each component's folder to the pin; a component without a tree here
  // (or the audit module loaded only to record, for --report) unset: one
  // left by an outer start would send its names elsewhere.
  for (const ComponentRow& row : components()) {
    const auto selected =
        std::find_if(folders.begin(), folders.end(), [&](const auto& each) { return each.first == &row; });
    if (pinned_by_name && selected != folders.end()) {
      set(std::string(row.pin_variable), selected->second);
    } else {
      unset(std::string(row.pin_variable));
    }
  }
  if (audit) {
    // The report's module also records every object that maps.
    const fs::path module = request.report_log.empty()
                                ? request.audit_module
                                : request.audit_module.parent_path() / "libcudnnenv-audit-report.so";
    std::error_code ec;
    if (!fs::is_regular_file(module, ec)) {
      return make_error("the audit module '" + util::to_utf8(module) + "' is missing",
                        "reinstall cudnnenv, or use --mode preload");
    }
    CUDNNENV_TRY(prepend("LD_AUDIT", util::to_utf8(module)));
  }
  if (!windows_host() && request.mode == PinMode::preload) {
    // ld.so splits LD_PRELOAD at spaces as well as colons, with no escape:
    // a path with a space would preload nothing, and the pin would be
    // LD_LIBRARY_PATH's alone, which a program's DT_RPATH comes before.
    const std::string library = util::to_utf8(request.tree.library_path());
    if (library.find(' ') != std::string::npos) {
      return make_error("the tree's library '" + library + "' has a space, which LD_PRELOAD cannot hold",
                        "use --mode audit (the default), or a store (--root) whose path has no space");
    }
    CUDNNENV_TRY(prepend("LD_PRELOAD", library));
  }
  if (!request.report_log.empty()) {
    set("CUDNNENV_AUDIT_LOG", util::to_utf8(request.report_log));
  }
  return plan;
}

Result<LaunchPlan> plan_launch(const LaunchRequest& request) {
  CUDNNENV_TRY_ASSIGN(program, find_program(request.command, request.environment, request.skip));
  if (windows_host()) {
    CUDNNENV_TRY(check_batch_arguments(*program, request.arguments));
  }
  CUDNNENV_TRY_ASSIGN(plan, plan_environment(request));
  plan->program = *program;
  plan->arguments = request.arguments;
  plan->notes = pin_notes(plan->program, plan->environment, request.mode);
  if (windows_host() && !shim::is_batch_file(std::basic_string_view<fs::path::value_type>(plan->program.native()))) {
    // (cmd.exe runs a batch file: what it starts gets no loads of ours.)
    plan->preload = shadowed_libraries(*plan);
  }
  return plan;
}

PinReport classify_loaded(const std::vector<const TreeRecord*>& trees, const fs::path& program,
                          const std::vector<LoadedModule>& loaded, const fs::path& fence_folder) {
  PinReport report;
  std::error_code ec;
  const TreeRecord& tree = *trees.front();
  const fs::path program_folder = fs::weakly_canonical(program.parent_path(), ec);
  const fs::path working_folder = fs::current_path(ec);
  std::vector<std::string> seen;
  std::vector<LoadedCudnnFile> outside;
  for (const auto& module : loaded) {
    const std::string base = util::to_utf8(util::path_from_utf8(module.path).filename());
    // The row beside cuDNN whose library it is, where that row has a tree here; else cuDNN's, if it is one.
    const auto beside = std::find_if(trees.begin() + 1, trees.end(), [&](const TreeRecord* each) {
      return component(each->kind).library_name(base, tree.platform.os);
    });
    if (beside == trees.end() && !is_cudnn_module(module.path)) continue;
    const TreeRecord& owner = beside == trees.end() ? tree : **beside;
    // Both sides as the file system resolves them: a tree reached through a
    // subst or mapped drive is named by the debug API with the drive's target.
    const fs::path root = util::final_path(owner.root);
    const fs::path file = util::final_path(util::path_from_utf8(module.path));
    const std::string shown = util::to_utf8(file);
    if (std::find(seen.begin(), seen.end(), shown) != seen.end()) {
      continue;
    }
    seen.push_back(shown);
    const auto relative = file.lexically_relative(root);
    // A runtime adopted from split wheels, and a healed adoption, are folders of links to the files where they are.
    const bool inside = (!relative.empty() && *relative.begin() != "..") ||
                        util::same_file(owner.resolve(owner.layout.library_dir) / util::path_from_utf8(base), file);
    LoadedCudnnFile entry{shown, module.pid, inside, owner.kind, module.preloaded, false, {}};
    if (!fence_folder.empty() && util::same_file(file.parent_path(), fence_folder)) {
      entry.fenced = true;
      entry.why = "the tree lacks " + base + ": its load failed on the fence instead of taking another copy";
      report.files.push_back(std::move(entry));
      continue;
    }
    if (module.preloaded) {
      entry.why = "loaded inside the program before it started, as a copy of its name comes first in Windows' search";
    }
    if (inside) {
      report.files.push_back(std::move(entry));
      continue;
    }
    if (util::same_file(file.parent_path(), program_folder)) {
      entry.why = "from the program's own folder, which the loader searches before PATH: remove or rename that copy";
    } else if (util::same_file(file.parent_path(), working_folder)) {
      entry.why = "from the working folder, which the default search puts before PATH" +
                  std::string(windows_host() ? "; on Windows the SetDllDirectoryW that cudnnenv sets, passed to "
                                               "the program, takes it out of the search"
                                             : "");
    }
    outside.push_back(std::move(entry));
  }
  report.files.insert(report.files.end(), std::make_move_iterator(outside.begin()),
                      std::make_move_iterator(outside.end()));
  return report;
}

std::size_t PinReport::outside_count() const {
  return static_cast<std::size_t>(std::count_if(
      files.begin(), files.end(), [](const LoadedCudnnFile& file) { return !file.inside && !file.fenced; }));
}

}  // namespace cudnnenv
