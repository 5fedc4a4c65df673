#include "pin/why.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>

#include "store/layout.hpp"
#include "store/runtime.hpp"
#include "store/spec.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

void parse_audit_log(std::string_view text, std::vector<LoadedModule>& loaded, std::vector<LoadSearch>& searches) {
  std::map<long, std::size_t> open_search;  // pid -> its last search, for the paths it tries
  for (const auto& line : util::split(text, '\n')) {
    const auto fields = util::split(line, '\t');
    if (fields.size() < 3 || fields[1].size() != 1) continue;
    char* end = nullptr;
    const long pid = std::strtol(fields[0].c_str(), &end, 10);
    if (end == fields[0].c_str() || *end != '\0') continue;
    switch (fields[1][0]) {
      case 'O':
        loaded.push_back({pid, fields[2]});
        break;
      case 'S':
        open_search[pid] = searches.size();
        searches.push_back({pid, fields[2], fields.size() > 3 ? fields[3] : std::string(), {}});
        break;
      case 'T':
        if (const auto at = open_search.find(pid); at != open_search.end() && fields.size() > 3) {
          searches[at->second].tried.push_back({fields[2], fields[3]});
        }
        break;
      default:
        break;
    }
  }
}

namespace {

// The text after `key` up to the closing quote, in a loader-snap line.
std::optional<std::string> quoted_after(std::string_view line, std::string_view key) {
  const auto at = line.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  const auto start = at + key.size();
  const auto end = line.find('"', start);
  if (end == std::string_view::npos) return std::nullopt;
  return std::string(line.substr(start, end - start));
}

std::string base_name(std::string_view path) {
  const auto slash = path.find_last_of("/\\");
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

}  // namespace

std::vector<LoadSearch> parse_loader_snaps(long pid, std::string_view text) {
  // Lines: "PID:TID @ TICKS - Function - KIND: text". Per thread: the search
  // path last computed and the full names resolved since, until the ERROR
  // line that ends a failed load.
  struct Thread {
    std::vector<std::string> folders;
    std::vector<std::string> tried;
  };
  std::map<std::string, Thread> threads;
  std::vector<LoadSearch> searches;
  for (auto line : util::split(text, '\n')) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto space = line.find(' ');
    const std::string thread_id = line.substr(0, space);
    Thread& thread = threads[thread_id];
    static constexpr std::string_view computed = "DLL search path computed: ";
    static constexpr std::string_view resolving = "LdrpResolveDllName - ENTER: DLL name: ";
    if (const auto at = line.find(computed); at != std::string::npos) {
      thread.folders = util::split(line.substr(at + computed.size()), ';');
      thread.tried.clear();
    } else if (const auto at = line.find(resolving); at != std::string::npos) {
      thread.tried.push_back(line.substr(at + resolving.size()));
    } else if (auto name = quoted_after(line, "Unable to load DLL: \"")) {
      LoadSearch search{pid, *name, {}, {}};
      if (auto parent = quoted_after(line, "Parent Module: \""); parent && *parent != "(null)") {
        search.requester = *parent;
      }
      if (!thread.tried.empty()) {
        for (const auto& path : thread.tried) search.tried.push_back({"search path", path});
      } else {
        for (const auto& folder : thread.folders) {
          if (!folder.empty()) search.tried.push_back({"search path", folder + "\\" + *name});
        }
      }
      searches.push_back(std::move(search));
      thread.tried.clear();
    }
  }
  return searches;
}

bool is_cuda_family_name(std::string_view file_name) {
  const std::string name = base_name(file_name);
  if (is_cudnn_library_name(name, Os::linux) || is_cudnn_library_name(name, Os::windows)) return true;
  if (is_runtime_library_name(name, Os::linux) || is_runtime_library_name(name, Os::windows)) return true;
  const std::string lower = util::to_lower(name);
  return util::starts_with(name, "libcuda.so") || lower == "nvcuda.dll" || util::starts_with(name, "libnvidia-");
}

namespace {

bool same_name(std::string_view a, std::string_view b, Os os) {
  return os == Os::windows ? util::iequals(a, b) : a == b;
}

struct Analysis {
  const fs::path& program;
  const std::vector<LoadSearch>& searches;
  Os os;

  std::string program_name() const { return base_name(util::to_utf8(program)); }

  // The chain of file names from the program to `path`, through the
  // searches that mapped each; `path` empty: the program.
  std::vector<std::string> chain_to(long pid, const std::string& path, int depth = 0) const {
    if (path.empty()) return {program_name()};
    const std::string base = base_name(path);
    std::vector<std::string> chain;
    const LoadSearch* found = nullptr;
    for (const auto& search : searches) {
      if (search.pid == pid && same_name(base_name(search.name), base, os)) {
        found = &search;
        break;
      }
    }
    if (found && depth < 16 && !same_name(base_name(found->requester), base, os)) {
      chain = chain_to(pid, found->requester, depth + 1);
    } else {
      chain = {program_name(), "..."};
    }
    chain.push_back(base);
    return chain;
  }
};

template <typename T>
void add_once(std::vector<T>& list, T value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(std::move(value));
}

// "libcudnn_graph.so.9.19.0" -> {"libcudnn_graph.so", "9"}; a name without
// ".so" is its own stem, with no major.
std::pair<std::string, std::string> so_stem_and_major(const std::string& name) {
  const auto so = name.find(".so");
  if (so == std::string::npos || (so + 3 != name.size() && name[so + 3] != '.')) return {name, ""};
  const std::string rest = so + 3 == name.size() ? std::string() : name.substr(so + 4);
  return {name.substr(0, so + 3), rest.substr(0, rest.find('.'))};
}

// One entry per library: the names a loader tried for one ELF library
// (libX.so.9.19.0, libX.so.9.19, libX.so.9, libX.so) become the entry of
// the name with its major alone (or the shortest), the others in also_asked.
void merge_names_of_one_library(std::vector<MissingLibrary>& missing) {
  const auto rank = [](const std::string& name) {
    return so_stem_and_major(name).second.empty() ? std::size_t{1000} : name.size();
  };
  std::vector<MissingLibrary> merged;
  for (auto& entry : missing) {
    const auto family = so_stem_and_major(entry.name);  // a pair: a lambda cannot capture a structured binding
    const auto into = std::find_if(merged.begin(), merged.end(), [&](const MissingLibrary& other) {
      const auto [other_stem, other_major] = so_stem_and_major(other.name);
      return other_stem == family.first &&
             (other_major == family.second || other_major.empty() || family.second.empty());
    });
    if (into == merged.end()) {
      merged.push_back(std::move(entry));
      continue;
    }
    if (rank(entry.name) < rank(into->name)) std::swap(into->name, entry.name);
    add_once(into->also_asked, entry.name);
    for (auto& name : entry.also_asked) add_once(into->also_asked, std::move(name));
    for (auto& name : entry.needed_by) add_once(into->needed_by, std::move(name));
    for (auto& chain : entry.chains) add_once(into->chains, std::move(chain));
    for (auto& place : entry.looked_in) add_once(into->looked_in, std::move(place));
  }
  for (auto& entry : merged) {
    std::erase(entry.also_asked, entry.name);
    std::vector<std::vector<std::string>> chains;
    for (auto chain : entry.chains) {
      chain.back() = entry.name;
      add_once(chains, std::move(chain));
    }
    entry.chains = std::move(chains);
  }
  missing = std::move(merged);
}

}  // namespace

LoadFailures find_load_failures(const fs::path& program, const std::vector<LoadedModule>& loaded,
                                const std::vector<LoadSearch>& searches, Os os, const NeededOf& needed_of,
                                const std::vector<SearchedPath>& standard_search) {
  const auto key = [os](std::string_view name) {
    return os == Os::windows ? util::to_lower(base_name(name)) : base_name(name);
  };
  std::map<long, std::vector<std::string>> mapped;  // pid -> file names mapped there
  for (const auto& module : loaded) mapped[module.pid].push_back(key(module.path));
  const auto was_mapped = [&](long pid, const std::string& name) {
    const auto& names = mapped[pid];
    return std::find(names.begin(), names.end(), key(name)) != names.end();
  };
  // ELF names of one library differ after ".so." (cuDNN 9's libcudnn_graph
  // asks for libcudnn_heuristic.so.9.19.0, then .so.9.19, then .so.9): a name
  // whose library mapped in that process under another name of the same major
  // is a probe the next try answered, not a failure. libcudnn.so.8 against a
  // mapped libcudnn.so.9 stays one.
  const auto other_name_mapped = [&](long pid, const std::string& name) {
    if (os == Os::windows) return false;
    const auto family = [](std::string_view file) -> std::optional<std::string> {
      const auto so = file.find(".so.");
      if (so == std::string_view::npos) return std::nullopt;
      const auto major_end = file.find('.', so + 4);
      return std::string(file.substr(0, major_end == std::string_view::npos ? file.size() : major_end));
    };
    const auto wanted = family(name);
    if (!wanted) return false;
    const auto& names = mapped[pid];
    return std::any_of(names.begin(), names.end(), [&](const std::string& each) { return family(each) == wanted; });
  };
  LoadFailures failures;
  const Analysis analysis{program, searches, os};
  const auto missing_entry = [&](const std::string& name) -> MissingLibrary& {
    for (auto& entry : failures.missing) {
      if (same_name(entry.name, name, os)) return entry;
    }
    MissingLibrary entry;
    entry.name = name;
    failures.missing.push_back(std::move(entry));
    return failures.missing.back();
  };
  const auto failed_entry = [&](const std::string& path, long pid) -> FailedFile& {
    for (auto& entry : failures.failed) {
      if (entry.path == path) return entry;
    }
    failures.failed.push_back({path, pid, {}});
    return failures.failed.back();
  };
  const auto needs = [&](const std::string& path, const std::string& name) {
    const auto names = needed_of(path);
    return std::any_of(names.begin(), names.end(), [&](const std::string& each) { return same_name(each, name, os); });
  };

  for (const auto& search : searches) {
    const std::string name = base_name(search.name);
    if (!is_cuda_family_name(name) || was_mapped(search.pid, name) || other_name_mapped(search.pid, name)) continue;
    MissingLibrary& entry = missing_entry(name);
    add_once(entry.needed_by, search.requester.empty() ? analysis.program_name() : base_name(search.requester));
    auto chain = analysis.chain_to(search.pid, search.requester);
    chain.push_back(name);
    add_once(entry.chains, std::move(chain));
    for (const auto& tried : search.tried) {
      const auto slash = tried.path.find_last_of(os == Os::windows ? "/\\" : "/");
      add_once(entry.looked_in, SearchedPath{tried.rule, slash == std::string::npos ? tried.path
                                                         : slash == 0               ? tried.path.substr(0, 1)
                                                                                    : tried.path.substr(0, slash)});
    }
    // glibc tries each default folder's hardware-capability subfolders
    // first (glibc-hwcaps/x86-64-v3, tls, ...): the folder stands for them.
    std::erase_if(entry.looked_in, [&](const SearchedPath& place) {
      return std::any_of(entry.looked_in.begin(), entry.looked_in.end(), [&](const SearchedPath& other) {
        return other.rule == place.rule && place.path.size() > other.path.size() &&
               util::starts_with(place.path, other.path + "/");
      });
    });
    if (!search.requester.empty() && needs(search.requester, name)) {
      add_once(failed_entry(search.requester, search.pid).missing, name);
    }
  }

  if (os != Os::windows) merge_names_of_one_library(failures.missing);

  // Windows: a CUDA-family DLL that mapped while one of its imports never
  // mapped in that process failed on that import (the loader maps a DLL
  // before its imports and unmaps it when one fails; Wine sends no unload
  // event for it, Windows does).
  if (os == Os::windows) {
    for (const auto& module : loaded) {
      if (!is_cuda_family_name(base_name(module.path))) continue;
      for (const auto& import : needed_of(module.path)) {
        const std::string lower = util::to_lower(import);
        if (util::starts_with(lower, "api-ms-") || util::starts_with(lower, "ext-ms-") ||
            was_mapped(module.pid, import)) {
          continue;
        }
        add_once(failed_entry(module.path, module.pid).missing, import);
        MissingLibrary& entry = missing_entry(import);
        if (entry.chains.empty() && entry.looked_in.empty()) entry.looked_in_observed = false;
        add_once(entry.needed_by, base_name(module.path));
        const auto& program_imports = needed_of(util::to_utf8(program));
        const bool direct = std::any_of(program_imports.begin(), program_imports.end(), [&](const std::string& each) {
          return same_name(each, base_name(module.path), os);
        });
        std::vector<std::string> chain = {analysis.program_name()};
        if (!direct) chain.push_back("...");
        chain.push_back(base_name(module.path));
        chain.push_back(import);
        add_once(entry.chains, std::move(chain));
        if (!entry.looked_in_observed) {
          for (const auto& folder : standard_search) add_once(entry.looked_in, folder);
        }
      }
    }
  }
  return failures;
}

namespace {

std::optional<int> cudnn_major_of(const std::string& name) {
  // libcudnn.so.9, libcudnn_ops.so.9.1.0, cudnn64_8.dll, cudnn_ops_infer64_8.dll
  const std::string lower = util::to_lower(name);
  std::size_t at = lower.find(".so.");
  if (at != std::string::npos) return std::atoi(lower.c_str() + at + 4);
  at = lower.rfind("64_");
  if (at != std::string::npos) return std::atoi(lower.c_str() + at + 3);
  return std::nullopt;
}

}  // namespace

std::string fix_for_missing(const MissingLibrary& missing, const FixContext& context) {
  const std::string& name = missing.name;
  const std::string after = context.command.empty() ? std::string(" -- PROGRAM") : " -- " + context.command;
  if (is_cudnn_library_name(name, Os::linux) || is_cudnn_library_name(name, Os::windows)) {
    const auto major = cudnn_major_of(name);
    if (context.tree && major && context.tree->version.major == *major) {
      const TreeRecord& tree = *context.tree;
      const auto set = expected_set(tree.version, tree.platform.os).libraries;
      const bool of_release = std::any_of(
          set.begin(), set.end(), [&](const std::string& each) { return same_name(each, name, tree.platform.os); });
      const auto install =
          of_release ? release_install_command(tree.version, tree.cuda ? std::optional(tree.cuda->major) : std::nullopt)
                     : std::nullopt;
      // A whole tree of the same release and CUDA in the store: the fix that works here, offline too.
      if (of_release) {
        for (auto at = context.trees.rbegin(); at != context.trees.rend(); ++at) {
          std::error_code ec;
          if (at->name == tree.name || at->version != tree.version || at->platform.os != tree.platform.os ||
              (at->cuda && tree.cuda && at->cuda->major != tree.cuda->major) ||
              !fs::exists(at->resolve(at->layout.library_dir) / util::path_from_utf8(name), ec)) {
            continue;
          }
          const std::string why = "  (the tree '" + tree.name + "' lacks it; '" + at->name + "' in the store, cuDNN " +
                                  at->version.str() + ", has it)";
          if (tree.source.kind == "adopted" && !tree.source.path.empty()) {
            const std::string own = util::command_word(tree.name);
            return "cudnnenv remove " + own + " --yes && cudnnenv adopt --heal " +
                   util::command_word(tree.source.path) + " --name " + own + why;
          }
          return "cudnnenv exec --cudnn " + util::command_word(at->name) + after + why;
        }
      }
      if (install) {
        return *install + "  (the tree '" + tree.name + "' lacks it; cuDNN " + tree.version.str() +
               "'s archive has it)";
      }
      // A name of a later release: what asked for it expects that release.
      if (const auto first = first_release_of(name, tree.platform.os); !of_release && first && tree.version < *first) {
        if (const auto newer =
                release_install_command(*first, tree.cuda ? std::optional(tree.cuda->major) : std::nullopt)) {
          return *newer + "  (cuDNN " + tree.version.str() + " does not ship it; " + first->str() + " and later do)";
        }
      }
      return "cudnnenv verify " + util::command_word(tree.name) + "  (the tree '" + tree.name + "' lacks it)";
    }
    if (major) {
      for (auto at = context.trees.rbegin(); at != context.trees.rend(); ++at) {
        if (at->version.major == *major) return "cudnnenv exec --cudnn " + util::command_word(at->name) + after;
      }
      return "cudnnenv install " + std::to_string(*major);
    }
  }
  std::optional<int> prefer;
  if (context.runtime) {
    prefer = context.runtime->version.major;
  } else if (context.tree && context.tree->cuda) {
    prefer = context.tree->cuda->major;
  }
  if (const auto major = cuda_major_of_library(name, prefer)) {
    // The pinned runtime's own release lacks it: its fence failed the load.
    if (context.runtime && context.runtime->version.major == *major) {
      std::error_code ec;
      const fs::path folder = context.runtime->resolve(context.runtime->layout.library_dir);
      if (!fs::exists(folder / util::path_from_utf8(name), ec)) {
        return runtime_heal_command(*context.runtime,
                                    has_heal_donor(*context.runtime, {{name, {}}}, context.runtimes)) +
               "  (the CUDA runtime '" + context.runtime->name + "' lacks it)";
      }
    }
    const TreeRecord* best = nullptr;
    for (const auto& runtime : context.runtimes) {
      if (runtime.version.major != *major) continue;
      std::error_code ec;
      if (!fs::exists(runtime.resolve(runtime.layout.library_dir) / util::path_from_utf8(name), ec)) continue;
      if (!best || best->version < runtime.version) best = &runtime;
    }
    if (best && (!context.runtime || context.runtime->name != best->name)) {
      return "cudnnenv exec --runtime " + util::command_word(best->name) + after;
    }
    for (const auto& release : context.releases) {  // newest first
      if (release.major == *major) return "cudnnenv install cuda " + release.str();
    }
    return "cudnnenv install cuda " + std::to_string(*major);
  }
  const std::string lower = util::to_lower(name);
  if (util::starts_with(name, "libcuda.so") || lower == "nvcuda.dll" || util::starts_with(name, "libnvidia-")) {
    return "install NVIDIA's driver for this GPU ('nvidia-smi' then runs); cudnnenv doctor says which";
  }
  return "no cudnnenv tree ships " + name + ": put it beside " +
         (missing.needed_by.empty() ? std::string("the program") : missing.needed_by.front()) +
         (context.os == Os::windows ? " or in a folder on PATH" : " or in a folder on LD_LIBRARY_PATH");
}

std::string describe_load_failures(const LoadFailures& failures) {
  if (failures.empty()) return "cudnnenv: why: every CUDA library the program asked for loaded\n";
  // Names and paths come from what the program asked for and where its files
  // are: each is made printable before it reaches the terminal.
  const auto shown = [](const std::vector<std::string>& items, std::string_view separator) {
    std::string text;
    for (const auto& item : items) text += (text.empty() ? "" : std::string(separator)) + util::printable(item);
    return text;
  };
  std::string text;
  for (const auto& missing : failures.missing) {
    text += "cudnnenv: why: " + util::printable(missing.name) + " did not load";
    if (!missing.needed_by.empty()) text += " (needed by " + shown(missing.needed_by, ", ") + ")";
    text += "\n";
    if (!missing.also_asked.empty()) text += "  also asked for as: " + shown(missing.also_asked, ", ") + "\n";
    for (const auto& chain : missing.chains) text += "  chain:  " + shown(chain, " -> ") + "\n";
    if (!missing.looked_in.empty()) {
      text += missing.looked_in_observed
                  ? "  looked for in, in order:\n"
                  : "  looked for in, in the standard search order (computed: the loader said nothing):\n";
      for (const auto& place : missing.looked_in) {
        text += "    " + util::printable(place.path) + "  (" + util::printable(place.rule) + ")\n";
      }
    }
    if (!missing.fix.empty()) text += "  fix:    " + util::printable(missing.fix) + "\n";
  }
  for (const auto& failed : failures.failed) {
    text += "cudnnenv: why: " + util::printable(failed.path) + " was found but did not load: it needs " +
            shown(failed.missing, ", ") + "\n";
  }
  return text;
}

}  // namespace cudnnenv
