#include "pin/report.hpp"

#include <algorithm>
#include <filesystem>

#include "discover/discover.hpp"
#include "download/runtime.hpp"
#include "formats/binfmt.hpp"
#include "store/component.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

std::string pin_way(const RunReport& in, bool json) {
  if (host_platform().os == Os::windows) {
    return json ? "path+SetDllDirectoryW+AddDllDirectory" : "PATH + SetDllDirectoryW + AddDllDirectory in the program";
  }
  return std::string(util::name_of(k_pin_modes, in.mode));
}

// The file of `failures` that is `path` (both resolved), if it failed.
const FailedFile* failed_file(const LoadFailures& failures, const std::string& path) {
  for (const auto& failed : failures.failed) {
    if (util::same_file(util::path_from_utf8(failed.path), util::path_from_utf8(path))) return &failed;
  }
  return nullptr;
}

std::string plural(long count, const char* one, const char* many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

// " with the CUDA runtime 'cuda-13.0.2' (/store/cuda-13.0.2/lib)": each tree pinned beside cuDNN's.
std::string beside_words(const RunReport& in) {
  std::string words;
  for (const TreeRecord* each : in.beside) {
    words += " with the " + std::string(component(each->kind).noun) + " '" + each->name + "' (" +
             util::to_utf8(each->resolve(each->layout.library_dir)) + ")";
  }
  return words;
}

// Where the standard Windows search looks for a DLL the program loads by
// name, with the pin's folders where SetDllDirectoryW puts them.
std::vector<SearchedPath> standard_search(const LaunchPlan& plan) {
  std::vector<SearchedPath> places;
  if (host_platform().os != Os::windows) return places;
  DiscoverContext discover;
  discover.environment = plan.environment;
  const auto before = folders_before_path(discover, plan.program);
  for (std::size_t i = 0; i < before.size(); ++i) {
    places.push_back({before[i].via, util::to_utf8(before[i].directory)});
    if (i == 0) {
      for (const auto& folder : plan.folders)
        places.push_back({"SetDllDirectoryW: cudnnenv's pin", util::to_utf8(folder)});
    }
  }
  for (const auto& entry : util::split(plan.environment.get("PATH").value_or(""), ';')) {
    if (!entry.empty()) places.push_back({"PATH", entry});
  }
  return places;
}

}  // namespace

// What the watched run tried to load and could not, each with its fix.
LoadFailures failures_of(const LaunchPlan& plan, const std::vector<LoadedModule>& loaded, const WatchedRun& run,
                         const Selection& selection, const Store& store, const std::vector<std::string>& command,
                         const util::Environment& environment) {
  const NeededOf needed_of = [](const std::string& path) {
    auto links = read_link_info(util::path_from_utf8(path));
    std::vector<std::string> needed;
    if (!links) return needed;
    for (const auto& name : links->needed) {
      if (std::find(links->delay_loaded.begin(), links->delay_loaded.end(), name) == links->delay_loaded.end()) {
        needed.push_back(name);
      }
    }
    return needed;
  };
  LoadFailures failures =
      find_load_failures(plan.program, loaded, run.searches, host_platform().os, needed_of, standard_search(plan));
  // Windows: a name the tree lacks mapped the fence's file and failed there.
  if (!plan.fence_folder.empty()) {
    const std::string program = util::to_utf8(plan.program.filename());
    for (const auto& module : loaded) {
      const fs::path file = util::path_from_utf8(module.path);
      if (!util::same_file(file.parent_path(), plan.fence_folder)) continue;
      const std::string name = util::to_utf8(file.filename());
      if (std::any_of(failures.missing.begin(), failures.missing.end(),
                      [&](const MissingLibrary& each) { return util::iequals(each.name, name); })) {
        continue;
      }
      MissingLibrary missing;
      missing.name = name;
      missing.needed_by = {program};
      missing.chains = {{program, name}};
      missing.looked_in = {{"pin", util::to_utf8(plan.library_dir)}, {"fence", util::to_utf8(plan.fence_folder)}};
      failures.missing.push_back(std::move(missing));
    }
  }
  const Listing listing = store.list(RecordPart::identity);
  FixContext fix;
  fix.tree = &selection.tree;
  fix.runtime = selection.runtime();
  fix.trees = listing.trees;
  fix.runtimes = listing.runtimes();
  fix.releases = known_cuda_releases(cuda_index(environment));
  std::vector<std::string> words;
  for (const auto& word : command) words.push_back(util::command_word(word));
  fix.command = util::join(words, " ");
  for (auto& missing : failures.missing) missing.fix = fix_for_missing(missing, fix);
  return failures;
}

Json failures_json(const LoadFailures& failures) {
  Json missing = Json::array();
  for (const auto& entry : failures.missing) {
    Json looked_in = Json::array();
    for (const auto& place : entry.looked_in) looked_in.push_back(Json{{"folder", place.path}, {"rule", place.rule}});
    missing.push_back(Json{{"name", entry.name},
                           {"also_asked", entry.also_asked},
                           {"needed_by", entry.needed_by},
                           {"chains", entry.chains},
                           {"looked_in", std::move(looked_in)},
                           {"looked_in_observed", entry.looked_in_observed},
                           {"fix", entry.fix}});
  }
  Json failed = Json::array();
  for (const auto& entry : failures.failed) {
    failed.push_back(Json{{"path", entry.path}, {"pid", entry.pid}, {"missing", entry.missing}});
  }
  return Json{{"missing", std::move(missing)}, {"failed", std::move(failed)}};
}

// One line of JSON, for stderr: stdout is the program's.
std::string report_json(const RunReport& in) {
  Json files = Json::array();
  for (const auto& file : in.report.files) {
    files.push_back(Json{{"path", file.path},
                         {"pid", file.pid},
                         {"inside", file.inside},
                         {"failed", failed_file(in.failures, file.path) != nullptr},
                         {"runtime", file.kind == TreeKind::cuda},
                         {"component", to_string(file.kind)},
                         {"preloaded", file.preloaded},
                         {"fenced", file.fenced},
                         {"why", or_null(file.why)}});
  }
  return Json{{"tree", in.tree.name},
              {"version", in.tree.version.str()},
              {"library_dir", util::to_utf8(in.plan.library_dir)},
              {"runtime", in.runtime ? Json(in.runtime->name) : Json(nullptr)},
              {"runtime_dir", in.runtime ? Json(util::to_utf8(in.plan.runtime_dir)) : Json(nullptr)},
              {"mode", pin_way(in, true)},
              {"pid", in.run.program_pid},
              {"exit_code", in.exit_code},
              {"files", std::move(files)},
              {"outside", in.report.outside_count()},
              {"missing", failures_json(in.failures)["missing"]},
              {"failed", failures_json(in.failures)["failed"]},
              {"started", in.run.started},
              {"running_at_exit", in.run.running_at_exit}}
             .dump(-1, ' ', false, Json::error_handler_t::replace) +
         "\n";
}

std::string report_text(const RunReport& in) {
  std::string text = "cudnnenv: report: pinned to '" + in.tree.name + "' (cuDNN " + in.tree.version.str() + ", " +
                     util::to_utf8(in.plan.library_dir) + ")" + beside_words(in) +
                     (host_platform().os == Os::windows ? ", " : ", mode ") + pin_way(in, false) + "\n";
  if (in.report.files.empty()) {
    text += "  no cuDNN library was loaded\n";
    if (host_platform().os == Os::windows) {
      text +=
          "  hint: a program that loads cuDNN with its own list of folders can add the trees': in Python, "
          "before the import: [os.add_dll_directory(os.environ[v]) for v in (\"CUDNNENV_PIN_DIR\", "
          "\"CUDNNENV_RUNTIME_DIR\") if os.environ.get(v)]\n";
    } else {
      text +=
          "  hint: a process started without LD_AUDIT in its environment (env -i, or a program that gives its "
          "children an environment of its own) runs without cudnnenv's audit module: what it loads is neither "
          "pinned nor seen here; start it through 'cudnnenv exec' itself\n";
    }
  }
  // A column of where each file came from (its row's report label), as wide as its widest label here.
  const auto label_of = [&](const LoadedCudnnFile& file) -> std::string {
    return failed_file(in.failures, file.path) ? "FAILED"
           : file.fenced                       ? "FENCED"
           : file.inside                       ? std::string(component(file.kind).report_label)
                                               : "OUTSIDE";
  };
  std::size_t width = std::string_view("in the tree  ").size();
  for (const auto& file : in.report.files) {
    if (file.inside) width = std::max(width, component(file.kind).report_label.size() + 2);
  }
  for (const auto& file : in.report.files) {
    const FailedFile* failed = failed_file(in.failures, file.path);
    const std::string label = label_of(file);
    text += "  " + label + std::string(width - label.size(), ' ') + file.path +
            (file.why.empty() ? "" : " (" + file.why + ")") +
            (failed ? " (did not load: it needs " + util::join(failed->missing, ", ") + ")" : std::string()) +
            (file.pid != 0 && file.pid != in.run.program_pid
                 ? " [pid " + std::to_string(file.pid) + ", a process the program started]"
                 : std::string()) +
            "\n";
  }
  if (in.run.started != 0) {
    // What the pin does not reach in them (Windows): the in-program calls.
    text += "cudnnenv: report: " + plural(in.run.started, "process", "processes") +
            " the program started had the trees' folders on PATH, not its AddDllDirectory folders: a load "
            "there with LOAD_LIBRARY_SEARCH_DEFAULT_DIRS (os.add_dll_directory, Python 3.8+) does not search "
            "the trees; start such a child through 'cudnnenv exec' or a shim\n";
  }
  if (in.run.running_at_exit != 0) {
    text += "cudnnenv: report: " + plural(in.run.running_at_exit, "process", "processes") +
            " the program started still ran when it ended: ended with it, or left running if started outside "
            "its job (CREATE_BREAKAWAY_FROM_JOB); what they load from then on is not in this report\n";
  }
  if (const std::size_t outside = in.report.outside_count(); outside != 0) {
    std::vector<std::string> nouns{"cuDNN"};
    for (const TreeRecord* each : in.beside) nouns.push_back(std::string(component(each->kind).noun));
    const std::string last = nouns.back();
    nouns.pop_back();
    text += "cudnnenv: report: " + std::to_string(outside) + " " +
            (nouns.empty() ? last : util::join(nouns, ", ") + " or " + last) + " file(s) came from outside the tree" +
            (in.beside.empty() ? "" : "s") + "\n";
  }
  if (!in.failures.empty()) text += describe_load_failures(in.failures);
  return text;
}

}  // namespace cudnnenv
