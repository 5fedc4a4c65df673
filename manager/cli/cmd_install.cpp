#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "doctor/node.hpp"
#include "download/download.hpp"
#include "download/runtime.hpp"
#include "formats/archive_name.hpp"
#include "integrate/cdi.hpp"
#include "pin/launch.hpp"
#include "select/activation.hpp"
#include "select/lock.hpp"
#include "select/project.hpp"
#include "store/official.hpp"
#include "store/runtime.hpp"
#include "util/fs.hpp"
#include "util/sha256.hpp"
#include "util/text.hpp"

namespace cudnnenv::cli {

namespace {

struct InstallArguments {
  std::string source;
  std::string release;     // `install cuda RELEASE`, or a manifest the user has (a path)
  std::string print_urls;  // `install cuda RELEASE --print-urls FILE`: write the URLs, install nothing
  std::string name;
  bool require_official = false;
  bool json = false;
  std::uint64_t max_unpacked = ExtractLimits::k_default_max_bytes;
  std::uint64_t max_ratio = ExtractLimits::k_default_max_ratio;
  std::uint64_t max_download = std::uint64_t{4} << 30;
  // install by version
  std::string cuda;
  std::string mirror;
  std::string cacert;
  bool allow_unverified = false;
  std::string facts;     // --facts: plan for the node of this snapshot
  bool dry_run = false;  // say which archive, fetch nothing
  // `sync`: exactly this archive (a lock's), in place of what `source` names; `source` is its file name.
  std::optional<OfficialArchive> exact;
  // `sync`: the CUDA runtime a lock names; its manifest and archives must have the lock's SHA-256.
  std::optional<LockedRuntime> locked_runtime;
  bool quiet = false;
  int retries = 3;
  int stall_seconds = 60;
  std::uint64_t min_rate = 16 * 1024;
};

// Progress on stderr: redrawn in place on a terminal, at most ten times a
// second; a line at the start, each quarter and the end otherwise.
class ProgressPrinter {
 public:
  ProgressPrinter(std::string name, bool quiet) : m_name(std::move(name)), m_quiet(quiet) {}

  void operator()(const DownloadProgress& progress) {
    if (m_quiet) return;
    const double seconds = std::chrono::duration<double>(progress.elapsed).count();
    const double rate = seconds > 0 ? static_cast<double>(progress.received - progress.resumed_from) / seconds : 0;
    const std::string amount =
        util::human_size(progress.received) + (progress.total ? " of " + util::human_size(progress.total) : "");
    const int percent = progress.total ? static_cast<int>(100 * progress.received / progress.total) : -1;
    if (m_terminal) {
      const auto now = std::chrono::steady_clock::now();
      if (!progress.done && now - m_last < std::chrono::milliseconds(100)) return;
      m_last = now;
      std::string line = "downloading " + m_name + ": " + amount;
      if (percent >= 0) line += fmt::format(" ({}%)", percent);
      if (rate > 0) line += ", " + util::human_size(static_cast<std::uint64_t>(rate)) + "/s";
      if (!progress.done && rate > 0 && progress.total > progress.received) {
        const auto left = static_cast<long>(static_cast<double>(progress.total - progress.received) / rate);
        line += fmt::format(", {}:{:02} left", left / 60, left % 60);
      }
      print_progress(line, progress.done);
      return;
    }
    if (!m_started) {
      m_started = true;
      print_note("downloading " + m_name + (progress.total ? " (" + util::human_size(progress.total) + ")" : "") +
                 (progress.resumed_from ? ", resuming at " + util::human_size(progress.resumed_from) : ""));
    }
    const int quarter = percent >= 0 ? percent / 25 : 0;
    if (progress.done) {
      print_note("downloaded " + util::human_size(progress.received) +
                 (rate > 0 ? ", " + util::human_size(static_cast<std::uint64_t>(rate)) + "/s" : ""));
    } else if (quarter > m_quarter && quarter < 4) {
      m_quarter = quarter;
      print_note(fmt::format("  {}%, {}", quarter * 25, amount) +
                 (rate > 0 ? ", " + util::human_size(static_cast<std::uint64_t>(rate)) + "/s" : ""));
    }
  }

 private:
  std::string m_name;
  bool m_quiet;
  bool m_terminal = stderr_is_terminal();
  bool m_started = false;
  int m_quarter = 0;
  std::chrono::steady_clock::time_point m_last{};
};

// Unpacking on stderr: on a terminal redrawn in place once it has taken a
// second; otherwise a line before and after for archives over 100 MB.
class UnpackPrinter {
 public:
  UnpackPrinter(std::string name, std::uint64_t archive_size, bool quiet)
      : m_name(std::move(name)), m_large(archive_size > 100'000'000), m_quiet(quiet) {}

  void operator()(std::uint64_t unpacked, bool done) {
    if (m_quiet) return;
    const auto now = std::chrono::steady_clock::now();
    if (m_terminal) {
      if (now - m_began < std::chrono::seconds(1) || (!done && now - m_last < std::chrono::milliseconds(100))) return;
      m_last = now;
      print_progress((done ? "unpacked " : "unpacking ") + m_name + ": " + util::human_size(unpacked), done);
      return;
    }
    if (!m_large) return;
    if (!m_started) {
      m_started = true;
      print_note("unpacking " + m_name);
    }
    if (done) print_note("unpacked " + util::human_size(unpacked));
  }

 private:
  std::string m_name;
  bool m_large;
  bool m_quiet;
  bool m_terminal = stderr_is_terminal();
  bool m_started = false;
  std::chrono::steady_clock::time_point m_began = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point m_last{};
};

// A tree installed where a removed one of its name was: the CDI specs that
// still mount that folder, written again with it (Linux's containers only).
void refresh_cdi_after_install(const TreeRecord& record, const Context& context, bool json) {
  if (host_platform().os != Os::linux) return;
  const SelectSpec select = [&](const std::string& spec) {
    return resolve_selection(context.store(), context.request(spec));
  };
  print_cdi_refreshes(refresh_cdi_specs(util::final_path(record.root), record.name, select,
                                        audit_module_beside(util::installed_program())),
                      json);
}

DownloadOptions download_options(const InstallArguments& arguments, const Context& context, const Store&) {
  DownloadOptions options = context.download_options(arguments.mirror, arguments.quiet);
  options.ca_file = util::path_from_utf8(arguments.cacert);
  options.retries = arguments.retries;
  options.stall_time = std::chrono::seconds(arguments.stall_seconds);
  options.min_rate = arguments.min_rate;
  options.allow_unverified = arguments.allow_unverified;
  options.max_unknown_size = arguments.max_download;
  return options;
}

// The archive for `install SPEC` or `install URL`, fetched and checked, or
// the tree it already became (then nothing is fetched).
struct Fetched {
  std::filesystem::path file;
  std::string sha256;  // what the file was checked to be
  std::optional<TreeRecord> installed;
};

Result<Fetched> fetch_for_install(const InstallArguments& arguments, const Context& context, const Store& store) {
  std::optional<ArchiveToInstall> chosen;
  if (arguments.exact) {
    // A tree from those very bytes is the install (never one of the same version from other bytes).
    for (auto& tree : store.list().trees) {
      if (tree.source.sha256 == arguments.exact->sha256) return Fetched{{}, {}, std::move(tree)};
    }
  } else {
    const auto has_toolkit = [&](const CudaVersion& cuda) { return toolkit_installed(cuda, context.environment); };
    CUDNNENV_TRY_ASSIGN(found, archive_to_install(arguments.source, arguments.cuda, arguments.allow_unverified,
                                                  host_platform(), store.list().trees, has_toolkit));
    if (found->installed) return Fetched{{}, {}, std::move(found->installed)};
    chosen = std::move(*found);
  }
  const OfficialArchive archive = arguments.exact ? *arguments.exact : chosen->archive();
  DownloadOptions options = download_options(arguments, context, store);
  ProgressPrinter printer(std::string(archive.file_name), arguments.quiet);
  options.progress = [&printer](const DownloadProgress& progress) { printer(progress); };
  CUDNNENV_TRY_ASSIGN(downloaded, fetch_archive(archive, options));
  if (!arguments.quiet && downloaded->url.empty()) {
    print_note("using " + std::string(archive.file_name) + " from the downloads folder (checked)");
  }
  return Fetched{downloaded->file, downloaded->sha256, std::nullopt};
}

std::string summary(const TreeRecord& record) {
  std::string text = "cuDNN " + record.version.str();
  text += record.cuda ? ", CUDA " + record.cuda->str() : ", CUDA unknown";
  text += ", " + describe(record.platform) + ", " + util::human_size(record.total_size());
  return text;
}

std::string runtime_summary(const TreeRecord& record) {
  std::string text = "CUDA " + record.version.str() + " runtime";
  if (!record.components.empty()) {
    text += " (";
    for (std::size_t i = 0; i < record.components.size(); ++i) {
      text += (i ? ", " : "") + record.components[i].name + " " + record.components[i].version;
    }
    text += ")";
  }
  return text + ", " + describe(record.platform) + ", " + util::human_size(record.total_size());
}

// Whether `install cuda SOURCE` names a manifest the user has (a path, a
// .json file name or a folder here) rather than a release number.
bool is_local_manifest(const std::string& source) {
  std::error_code ec;
  return source.find_first_of("/\\") != std::string::npos || util::ends_with(source, ".json") ||
         std::filesystem::is_directory(util::path_from_utf8(source), ec);
}

// `install cuda RELEASE --print-urls FILE`: the manifest's URL and every
// archive's, one a line (what `wget -i` reads), to download elsewhere; FILE
// `-` is stdout. An existing FILE is left alone.
Result<int> print_download_urls(const InstallArguments& arguments, const CudaRelease& release) {
  CUDNNENV_TRY_ASSIGN(urls, runtime_download_urls(release, runtime_components(release.release.major)));
  std::string text;
  std::uint64_t total = 0;
  for (const auto& url : *urls) {
    text += url.url + "\n";
    total += url.size;
  }
  const std::string folder = "cuda-" + release.release.str();
  if (arguments.json) {
    Json list = Json::array();
    for (const auto& url : *urls) list.push_back(Json{{"url", url.url}, {"file", url.file_name}, {"size", url.size}});
    print_json(Json{{"release", release.release.str()}, {"urls", list}});
  }
  if (arguments.print_urls == "-") {
    if (!arguments.json) print(text);
    return 0;
  }
  const auto file = util::path_from_utf8(arguments.print_urls);
  if (util::entry_exists(file)) {
    return make_error("'" + util::printable(arguments.print_urls) + "' exists: --print-urls does not replace a file",
                      "remove it, or name another file: 'cudnnenv install cuda " +
                          util::command_word(arguments.release) + " --print-urls urls-" + release.release.str() +
                          ".txt" + (arguments.allow_unverified ? " --allow-unverified" : "") + "'",
                      ExitCode::usage);
  }
  CUDNNENV_TRY(write_output_file(file, text));
  if (!arguments.json) {
    print("wrote " + std::to_string(urls->size()) + " URLs (" + util::human_size(total) + ") to '" +
          util::printable(arguments.print_urls) + "': download them into a folder " + folder + " (with wget: wget -P " +
          folder + " -i " + util::command_word(arguments.print_urls) + "), then here: cudnnenv install cuda ./" +
          folder + "\n");
  }
  return 0;
}

// `profile`: the runtime must ship every library it opens on this OS.
Result<int> run_install_runtime(const InstallArguments& arguments, const Context& context,
                                const Profile* profile = nullptr) {
  Store& store = context.store();
  const bool local = is_local_manifest(arguments.release);
  const std::optional<std::filesystem::path> index = local ? std::nullopt : cuda_index(context.environment);
  if (local && !arguments.mirror.empty()) {
    return make_error(
        "--mirror goes with a release number, and '" + util::printable(arguments.release) + "' is a manifest here",
        "drop --mirror: the archives are read from the manifest's folder", ExitCode::usage);
  }
  DownloadOptions options = download_options(arguments, context, store);
  auto printer = std::make_shared<ProgressPrinter>("", arguments.quiet);
  options.progress = [printer](const DownloadProgress& progress) { (*printer)(progress); };
  CUDNNENV_TRY_ASSIGN(release, local ? read_local_cuda_release(util::path_from_utf8(arguments.release), host_platform(),
                                                               arguments.allow_unverified)
                                     : find_cuda_release(arguments.release, host_platform(), index, options,
                                                         !arguments.print_urls.empty()));
  if (!release->pinned && !index) {
    log_warning("the manifest of CUDA " + release->release.str() +
                (local ? " in '" + util::printable(release->manifest_source) + "'" : std::string()) + " is not " +
                (local ? "the pinned one" : "pinned") + ": its SHA-256 (" + release->manifest_sha256 +
                ") was not checked (--allow-unverified)");
  }
  if (!arguments.print_urls.empty()) return print_download_urls(arguments, *release);
  if (arguments.locked_runtime) CUDNNENV_TRY(check_locked_runtime(*arguments.locked_runtime, *release));
  const auto starting = [printer, &arguments](const std::string& file_name) {
    *printer = ProgressPrinter(file_name, arguments.quiet);
  };
  CUDNNENV_TRY_ASSIGN(archives,
                      fetch_runtime_archives(*release, runtime_components(release->release.major), options, starting));
  ComponentInstallOptions install;
  install.release = release->release;
  install.manifest = release->manifest_source;
  install.manifest_sha256 = release->manifest_sha256;
  if (!arguments.name.empty()) install.name = arguments.name;
  install.limits.max_bytes = arguments.max_unpacked;
  install.limits.max_ratio = arguments.max_ratio;
  if (profile) {
    install.required_libraries = profile->runtime_libraries(host_platform().os);
    install.required_by = profile->framework;
    install.required_hint = "install the CUDA release " + profile->framework + " was built with, CUDA " +
                            profile->cuda + ": 'cudnnenv install cuda " + profile->cuda +
                            ".N --allow-unverified' with its full release number (its manifest is not pinned)";
  }
  CUDNNENV_TRY_ASSIGN(outcome, store.install_component(*archives, install));
  const TreeRecord& record = outcome->record;
  const bool fresh = outcome->status == InstallStatus::installed;
  if (arguments.json) {
    print_json(Json{{"status", fresh ? "installed" : "already_installed"}, {"tree", tree_to_json(record)}});
    if (fresh) refresh_cdi_after_install(record, context, true);
    return 0;
  }
  print(std::string(fresh ? "installed" : "already installed") + " '" + record.name + "': " + runtime_summary(record) +
        "\n");
  print("  location:  " + util::to_utf8(record.root) + "\n");
  print("  libraries: " + util::to_utf8(record.resolve(record.layout.library_dir)) + "\n");
  print("  source:    " + record.source.path +
        (index                      ? std::string(" (CUDNNENV_CUDA_INDEX)")
         : local && release->pinned ? " (a copy, SHA-256 pinned)"
         : local                    ? " (a copy, not pinned)"
         : release->pinned          ? " (SHA-256 pinned)"
                                    : " (not pinned)") +
        "\n");
  // What stays in the downloads folder: the archives fetched, or copied from a mirror folder (each checked
  // in the copy it read, so the folder can change meanwhile); a manifest's own folder is read in place.
  std::uint64_t kept_bytes = 0;
  std::size_t kept = 0;
  for (const auto& archive : *archives) {
    std::error_code ec;
    if (util::starts_with(util::to_utf8(archive.file), util::to_utf8(options.folder))) {
      kept_bytes += std::filesystem::file_size(archive.file, ec);
      ++kept;
    }
  }
  if (kept != 0) {
    const bool from_folder = !options.mirror.empty() && !util::starts_with(options.mirror, "http://") &&
                             !util::starts_with(options.mirror, "https://");
    print("  kept:      " + std::to_string(kept) + (kept == 1 ? " archive, " : " archives, ") +
          util::human_size(kept_bytes) + ", in " + util::to_utf8(options.folder) +
          (from_folder ? " (copied from the mirror folder, and checked in the copy)" : std::string()) +
          ": 'cudnnenv cache clean' frees them\n");
  }
  if (fresh) refresh_cdi_after_install(record, context, false);
  return 0;
}

Result<int> run_install(const InstallArguments& arguments, const Context& context);

// `install SPEC --facts FILE` / `--dry-run`: the archive for the node of the
// snapshot (its platform, driver and GPUs), or for this machine; with
// --dry-run said and not fetched, else installed as that very archive.
Result<int> install_planned(const InstallArguments& arguments, const Context& context) {
  CUDNNENV_TRY_ASSIGN(
      spec, parse_spec(arguments.source,
                       arguments.cuda.empty() ? std::nullopt : std::optional<std::string_view>(arguments.cuda)));
  if (spec->components.empty() || is_archive_url(arguments.source)) {
    if (const auto bare = version_without_prefix(arguments.source)) {
      return make_error("--facts and --dry-run go with a version ('" + util::printable(arguments.source) + "' is none)",
                        "write the version alone: cudnnenv install " + *bare + " --dry-run", ExitCode::usage);
    }
    return make_error("--facts and --dry-run go with a version ('" + util::printable(arguments.source) + "' is none)",
                      "name a version: 'cudnnenv install 9 --dry-run'", ExitCode::usage);
  }
  const OfficialArchive* archive = nullptr;
  std::vector<std::string> passed;
  std::string node_words;
  if (!arguments.facts.empty()) {
    CUDNNENV_TRY_ASSIGN(node, read_node_facts_file(arguments.facts));
    CUDNNENV_TRY_ASSIGN(choice, choose_archive_for_node(*spec, spec->cuda, *node));
    archive = choice->archive;
    passed = choice->passed;
    node_words = node->describe();
  } else {
    const auto has_toolkit = [&](const CudaVersion& cuda) { return toolkit_installed(cuda, context.environment); };
    CUDNNENV_TRY_ASSIGN(official, choose_archive(host_platform(), *spec, spec->cuda, has_toolkit));
    archive = *official;
    node_words = "this machine";
  }
  const TreeRecord record = as_record(*archive);
  if (arguments.dry_run) {
    if (arguments.json) {
      Json list = Json::array();
      for (const auto& line : passed) list.push_back(line);
      print_json(Json{{"archive", archive->file_name},
                      {"version", archive->version},
                      {"cuda", record.cuda ? Json(record.cuda->str()) : Json(nullptr)},
                      {"platform", archive->platform},
                      {"url", archive->url},
                      {"sha256", archive->sha256},
                      {"for", node_words},
                      {"passed", list}});
      return 0;
    }
    print("would install cuDNN " + std::string(archive->version) +
          (record.cuda ? " for CUDA " + record.cuda->str() : std::string()) + " (" + std::string(archive->platform) +
          ") for " + node_words + ": " + std::string(archive->file_name) + "\n");
    // The newest few left aside say why; the rest are counted (--json lists them all).
    constexpr std::size_t k_shown = 3;
    for (std::size_t i = 0; i < std::min(passed.size(), k_shown); ++i) print("  " + passed[i] + "\n");
    if (passed.size() > k_shown) {
      print("  and " + std::to_string(passed.size() - k_shown) + " older archives that would fail there too\n");
    }
    return 0;
  }
  if (!arguments.quiet) {
    print_note("for " + node_words + ": " + std::string(archive->file_name));
    if (!passed.empty())
      print_note(passed.front() +
                 (passed.size() > 1 ? " (and " + std::to_string(passed.size() - 1) + " more)" : std::string()));
  }
  InstallArguments exact = arguments;
  exact.exact = *archive;
  exact.source = std::string(archive->file_name);
  exact.facts.clear();
  return run_install(exact, context);
}

// `cudnnenv install tf2.5`: the profile's cuDNN (its tested pair), then the
// CUDA runtime with every library the framework opens here: the profile's
// CUDA release when its manifest is known, else the newest release of that
// major, checked for the names before it becomes visible.
Result<int> run_install_profile(const InstallArguments& arguments, const Context& context, const Profile& profile) {
  if (arguments.json || !arguments.name.empty()) {
    return make_error("--json and --name install one tree, and a profile installs two",
                      "install them one by one: 'cudnnenv install " + profile.cudnn + " --cuda " + profile.cuda +
                          "' and 'cudnnenv install cuda " + profile.cuda + "'",
                      ExitCode::usage);
  }
  InstallArguments cudnn = arguments;
  cudnn.source = profile.cudnn;
  cudnn.cuda = profile.cuda;
  CUDNNENV_TRY_ASSIGN(done, run_install(cudnn, context));
  if (*done != 0) return done;
  const auto& libraries = profile.runtime_libraries(host_platform().os);
  if (libraries.empty()) {
    print_note(profile.framework + "'s profile names no CUDA runtime libraries for " +
               std::string(host_platform().os == Os::windows ? "Windows" : "Linux") +
               ": cuDNN only (the framework's own CUDA, e.g. a wheel's, is used)");
    return 0;
  }
  const auto asked = parse_cuda_version(profile.cuda);
  if (!asked) return make_error("the profile " + profile.name + " has no CUDA version", "see 'cudnnenv profile show'");
  CUDNNENV_TRY_ASSIGN(
      choice, runtime_release_for(*asked, known_cuda_releases(cuda_index(context.environment)), profile.framework));
  if (choice->newest_of_major) {
    print_note("CUDA " + profile.cuda + "'s manifest is not known here: installing CUDA " + choice->release +
               ", the newest " + std::to_string(asked->major) + ".x, if it ships every library " + profile.framework +
               " opens");
  }
  InstallArguments runtime = arguments;
  runtime.source = "cuda";
  runtime.release = choice->release;
  return run_install_runtime(runtime, context, &profile);
}

// `cudnnenv install nccl FILE`: a tree of a row beside cuDNN (not the
// runtime's, which comes from a manifest) from one archive or wheel, its
// release from the file's name.
Result<int> run_install_component(TreeKind kind, const InstallArguments& arguments, const Context& context) {
  const ComponentRow& row = component(kind);
  const std::filesystem::path file = util::path_from_utf8(arguments.release);
  const std::string file_name = util::to_utf8(file.filename());
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    return make_error("no file '" + util::printable(arguments.release) + "'",
                      "give the path of " + std::string(row.noun) + "'s archive or wheel", ExitCode::not_found);
  }
  const auto release = release_in_archive_name(file_name);
  if (!release) {
    return make_error(
        "'" + util::printable(file_name) + "' does not say which " + std::string(row.noun) + " release it holds",
        "give the archive under NVIDIA's name, or adopt its unpacked folder: cudnnenv adopt --kind " + to_string(kind) +
            " FOLDER",
        ExitCode::usage);
  }
  CUDNNENV_TRY_ASSIGN(sha256, util::sha256_file(file));
  ComponentInstallOptions install;
  install.kind = kind;
  install.release = *release;
  install.built_for = cuda_in_archive_name(file_name);
  install.manifest = util::to_utf8(std::filesystem::absolute(file, ec));
  install.manifest_sha256 = *sha256;
  if (!arguments.name.empty()) install.name = arguments.name;
  install.limits.max_bytes = arguments.max_unpacked;
  install.limits.max_ratio = arguments.max_ratio;
  const std::vector<ComponentArchive> archives{{file, to_string(kind), release->str(), *sha256}};
  CUDNNENV_TRY_ASSIGN(outcome, context.store().install_component(archives, install));
  const TreeRecord& record = outcome->record;
  const bool fresh = outcome->status == InstallStatus::installed;
  if (arguments.json) {
    print_json(Json{{"status", fresh ? "installed" : "already_installed"}, {"tree", tree_to_json(record)}});
    if (fresh) refresh_cdi_after_install(record, context, true);
    return 0;
  }
  print(std::string(fresh ? "installed" : "already installed") + " '" + record.name + "': " + std::string(row.noun) +
        " " + record.version.str() + (record.cuda ? " for CUDA " + record.cuda->str() : std::string()) + "\n");
  print("  location:  " + util::to_utf8(record.root) + "\n");
  print("  libraries: " + util::to_utf8(record.resolve(record.layout.library_dir)) + "\n");
  print("  source:    " + record.source.path + " (SHA-256 " + record.source.sha256 + ")\n");
  if (fresh) refresh_cdi_after_install(record, context, false);
  return 0;
}

Result<int> run_install(const InstallArguments& arguments, const Context& context) {
  if (!arguments.print_urls.empty() && (arguments.source != "cuda" || arguments.release.empty())) {
    return make_error("--print-urls goes with 'cudnnenv install cuda RELEASE'",
                      "for a cuDNN archive, 'cudnnenv list --available --json' gives each one's URL", ExitCode::usage);
  }
  if (!arguments.release.empty()) {
    if (const auto kind = parse_tree_kind(arguments.source);
        kind && std::ranges::count(named_rows(), &component(*kind)) > 0) {
      return run_install_component(*kind, arguments, context);
    }
    if (arguments.source != "cuda") {
      return make_error("'cudnnenv install " + arguments.source + " " + arguments.release + "' has one word too many",
                        "install takes one version, archive or folder; a CUDA runtime: 'cudnnenv install cuda " +
                            arguments.release + "'",
                        ExitCode::usage);
    }
    return run_install_runtime(arguments, context);
  }
  if (!arguments.exact && (!arguments.facts.empty() || arguments.dry_run)) {
    return install_planned(arguments, context);
  }
  InstallOptions options;
  if (!arguments.name.empty()) {
    options.name = arguments.name;
  }
  options.require_official = arguments.require_official ? RequireOfficial::yes : RequireOfficial::no;
  options.probe = context.probe();
  options.warn = context.warner();
  options.carried = carried_libraries_beside(util::installed_program());
  options.limits.max_bytes = arguments.max_unpacked;
  options.limits.max_ratio = arguments.max_ratio;
  Store& store = context.store();
  std::filesystem::path source = util::path_from_utf8(arguments.source);
  std::error_code ec;
  std::optional<InstallOutcome> outcome;
  // A version when it is no file here and does not look like one (a path
  // with a separator, or an archive's name: then "does not exist" says more).
  const bool looks_like_path = arguments.source.find_first_of("/\\") != std::string::npos ||
                               has_tar_extension(arguments.source) || has_zip_extension(arguments.source);
  if (!looks_like_path && !is_archive_url(arguments.source) && !std::filesystem::exists(source, ec) &&
      !parse_version(arguments.source) && arguments.source.find("+cuda") == std::string::npos) {
    if (auto profile = find_profile(arguments.source, host_platform().os, config_files(store))) {
      return run_install_profile(arguments, context, *profile);
    }
  }
  if (arguments.exact || is_archive_url(arguments.source) ||
      (!looks_like_path && !std::filesystem::exists(source, ec))) {
    CUDNNENV_TRY_ASSIGN(fetched, fetch_for_install(arguments, context, store));
    if (fetched->installed) {
      outcome = InstallOutcome{InstallStatus::already_installed, std::move(*fetched->installed)};
    } else {
      source = fetched->file;
      options.expected_sha256 = fetched->sha256;  // the bytes unpacked must be the bytes checked
    }
  } else if (!arguments.cuda.empty() || !arguments.mirror.empty() || arguments.allow_unverified) {
    return make_error("--cuda, --mirror and --allow-unverified go with a version or a URL, and '" + arguments.source +
                          "' is a file here",
                      "drop them to install this file", ExitCode::usage);
  }
  if (!outcome) {
    const std::uint64_t size =
        std::filesystem::is_regular_file(source, ec) ? std::filesystem::file_size(source, ec) : 0;
    auto printer = std::make_shared<UnpackPrinter>(util::to_utf8(source.filename()), size, arguments.quiet);
    options.unpack_progress = [printer](std::uint64_t unpacked, bool done) { (*printer)(unpacked, done); };
    CUDNNENV_TRY_ASSIGN(installed, store.install(source, options));
    outcome = std::move(*installed);
  }
  const TreeRecord& record = outcome->record;
  const bool fresh = outcome->status == InstallStatus::installed;
  if (arguments.json) {
    print_json(Json{{"status", fresh ? "installed" : "already_installed"}, {"tree", tree_to_json(record)}});
    if (fresh) refresh_cdi_after_install(record, context, true);
    return 0;
  }
  print(std::string(fresh ? "installed" : "already installed") + " '" + record.name + "': " + summary(record) + "\n");
  print("  location: " + util::to_utf8(record.root) + "\n");
  print("  library:  " + util::to_utf8(record.library_path()) + "\n");
  const std::string index = site_index();
  print("  source:   " +
        (record.source.official.empty()
             ? "not an archive " + std::string(index.empty() ? "of the official list" : "of the site index " + index)
         : index.empty() ? "official archive " + record.source.official
                         : "site index " + index + ": " + record.source.official) +
        "\n");
  for (const auto& added : record.components) {
    // A library cudnnenv carried into the tree (InstallOptions::carried).
    print("  added:    " + added.name + ".dll (" + added.version + ", carried by cudnnenv: cuDNN " +
          record.version.str() + " opens it by name and its archive does not ship it)\n");
  }
  if (fresh) refresh_cdi_after_install(record, context, false);
  return 0;
}

// A lock's NCCL or TensorRT tree: the tree installed from its file (the same SHA-256), else the file fetched
// (a mirror, the lock's URL) and installed as `install <kind> FILE` does.
Result<int> sync_locked_tree(const LockedTree& locked, const InstallArguments& arguments, const Context& context) {
  const ComponentRow& row = component(locked.kind);
  for (const auto& tree : context.store().list(RecordPart::identity).of(locked.kind)) {
    if (tree.source.sha256 == locked.sha256) {
      print("already installed '" + tree.name + "': " + std::string(row.noun) + " " + tree.version.str() +
            " (the lock's " + locked.file + ")\n");
      return 0;
    }
  }
  CUDNNENV_TRY_ASSIGN(
      file, fetch_locked_tree(locked, std::nullopt, context.download_options(arguments.mirror, arguments.quiet)));
  InstallArguments install = arguments;
  install.source = std::string(row.json_key);
  install.release = util::to_utf8(file->file);
  install.name.clear();
  return run_install_component(locked.kind, install, context);
}

struct SyncArguments {
  InstallArguments install;
  bool locked = false;  // fail when the lock no longer matches .cudnnenv.toml
  bool frozen = false;  // use the lock as it is
};

Result<int> run_sync(const SyncArguments& arguments, const Context& context) {
  if (arguments.locked && arguments.frozen) {
    return make_error("--locked and --frozen exclude each other",
                      "--locked: fail when the lock is out of date; --frozen: use it as it is", ExitCode::usage);
  }
  const SyncMode mode = arguments.locked ? SyncMode::locked : arguments.frozen ? SyncMode::frozen : SyncMode::update;
  CUDNNENV_TRY_ASSIGN(plan, plan_sync(context.request().working_directory, mode, context.lock_sources(),
                                      arguments.install.allow_unverified));
  if (plan->rewritten) {
    print_note("'" + util::to_utf8(plan->lock.file) + "' was out of date (" + *plan->rewritten + "): written again");
  }
  const std::string here = official_platform(host_platform());
  if ((plan->runtime || !plan->trees.empty()) && arguments.install.json) {
    return make_error("--json installs one tree, and this lock names " +
                          std::to_string(1 + (plan->runtime ? 1 : 0) + plan->trees.size()) + " for " + here +
                          " (cuDNN and the trees beside it)",
                      "run 'cudnnenv sync' without --json, then 'cudnnenv list --json'", ExitCode::usage);
  }
  InstallArguments install = arguments.install;
  install.source = std::string(plan->archive.file_name);
  install.exact = plan->archive;
  CUDNNENV_TRY_ASSIGN(done, run_install(install, context));
  if (*done != 0) return done;
  if (plan->runtime) {
    InstallArguments cuda = arguments.install;
    cuda.source = "cuda";
    cuda.release = plan->runtime->release;
    cuda.locked_runtime = *plan->runtime;
    std::optional<Profile> profile;
    if (plan->lock.input.profile) {
      if (auto found = find_profile(*plan->lock.input.profile, host_platform().os, config_files(context.store()))) {
        profile = std::move(*found);
      }
    }
    CUDNNENV_TRY_ASSIGN(installed, run_install_runtime(cuda, context, profile ? &*profile : nullptr));
    if (*installed != 0) return installed;
  }
  for (const LockedTree& tree : plan->trees) {
    CUDNNENV_TRY_ASSIGN(installed, sync_locked_tree(tree, arguments.install, context));
    if (*installed != 0) return installed;
  }
  return 0;
}

}  // namespace

// The manifest `release` found is the one `locked` names, and its archives too: a lock made from other bytes
// is out of date, never installed in its place.
void register_sync(CLI::App& app, Context& context) {
  auto arguments = std::make_shared<SyncArguments>();
  CLI::App* command = app.add_subcommand(
      "sync",
      "install exactly what cudnnenv.lock names for this platform: cuDNN and the trees beside it (or what "
      ".cudnnenv.toml selects)");
  command->add_flag("--locked", arguments->locked,
                    "fail (exit 1, naming each difference) when the lock no longer matches .cudnnenv.toml");
  command->add_flag("--frozen", arguments->frozen, "install what the lock says, whatever .cudnnenv.toml says now");
  command->add_option("--mirror", arguments->install.mirror,
                      "fetch from this base URL or folder instead of developer.download.nvidia.com (as install)");
  command->add_option("--cacert", arguments->install.cacert, "trust the certificates in this file (Linux)");
  command->add_flag(
      "--allow-unverified", arguments->install.allow_unverified,
      "install an archive the lock names that is not in the official list (checked by the lock's SHA-256)");
  command->add_flag("-q,--quiet", arguments->install.quiet, "no progress on stderr");
  command->add_flag("--json", arguments->install.json, "print the result as JSON");
  command->footer(
      "Examples:\n"
      "  cudnnenv sync                  install what cudnnenv.lock names (writing it again if .cudnnenv.toml changed)\n"
      "  cudnnenv sync --locked         in CI: fail when cudnnenv.lock is out of date\n"
      "  cudnnenv sync --mirror /srv/nvidia   from a mirror ('cudnnenv install --help' shows its layout)\n"
      "\n"
      "A tree already installed from the locked archive (the same SHA-256) is kept; one of the same version from\n"
      "other bytes is never taken in its place. Exit 1 with --locked when the lock is out of date.");
  command->callback(
      [arguments, &context] { context.action = [arguments, &context] { return run_sync(*arguments, context); }; });
}

void register_install(CLI::App& app, Context& context) {
  auto arguments = std::make_shared<InstallArguments>();
  CLI::App* command = app.add_subcommand(
      "install", "install a cuDNN version (fetched from NVIDIA, checked), or an archive, wheel or folder you have");
  command->add_option("source", arguments->source, "a version (8.1, 9.1.0), or an archive, wheel or folder; or 'cuda'")
      ->required();
  command->add_option("release", arguments->release,
                      "after 'cuda': the CUDA release whose runtime to install (11.8, 13.0.2), or its manifest "
                      "redistrib_<release>.json (or a folder holding it) with the archives it names beside it");
  command->add_option("--print-urls", arguments->print_urls,
                      "with 'cuda RELEASE': write the URLs of its manifest and archives to this file (- for stdout), "
                      "to download elsewhere; installs nothing");
  command->add_option("--cuda", arguments->cuda, "the CUDA version of the archive to fetch (11.2, 12)");
  command->add_option("--facts", arguments->facts,
                      "plan for another machine: the archive that runs on the node whose snapshot this is "
                      "('cudnnenv snapshot -o FILE' there): its platform, its driver's CUDA, its GPUs");
  command->add_flag("--dry-run", arguments->dry_run, "say which archive would be installed, and fetch nothing");
  command->add_option("--mirror", arguments->mirror,
                      "fetch from this base URL, or a folder (a path or file://), instead of "
                      "developer.download.nvidia.com (also CUDNNENV_MIRROR, [download] mirror in config.toml); the "
                      "SHA-256 is still the official list's");
  command->add_option("--cacert", arguments->cacert, "trust the certificates in this file (Linux; also SSL_CERT_FILE)");
  command->add_flag("--allow-unverified", arguments->allow_unverified,
                    "install a URL given by hand, or an archive the list has no SHA-256 for");
  command->add_flag("-q,--quiet", arguments->quiet, "no progress on stderr");
  command->add_option("--retries", arguments->retries, "tries again after a broken connection or a stall (default 3)")
      ->check(CLI::Range(0, 20));
  command
      ->add_option("--stall-timeout", arguments->stall_seconds,
                   "give up a try after this many seconds under --min-rate (default 60)")
      ->check(CLI::Range(1, 3600));
  command
      ->add_option("--min-rate", arguments->min_rate,
                   "bytes a second below which, over --stall-timeout, a try gives up (default 16384: an archive of "
                   "1 GB then takes at most a day)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 30));
  command->add_option("--name", arguments->name,
                      "the tree's folder name (default: version and CUDA, 9.19.0.56-cuda13; -2 for a second)");
  command->add_flag("--require-official", arguments->require_official,
                    "refuse archives whose SHA-256 is not a known official release");
  command->add_flag("--json", arguments->json, "print the result as JSON");
  command
      ->add_option("--max-unpacked", arguments->max_unpacked,
                   "refuse an archive that unpacks to more than this (default 16GiB; 32G, 40000M, bytes)")
      ->transform(CLI::AsSizeValue(false));
  command
      ->add_option("--max-download", arguments->max_download,
                   "stop fetching an archive whose size the list does not give past this (default 4GiB)")
      ->transform(CLI::AsSizeValue(false));
  command->add_option("--max-ratio", arguments->max_ratio,
                      "refuse an archive that unpacks to more than N times its size (default 50; 0: no limit)");
  command->footer(
      "Examples:\n"
      "  cudnnenv install 8.1 --cuda 11.2      fetch the newest 8.1 for CUDA 11.2 from NVIDIA, check, install\n"
      "  cudnnenv install 9                    the newest 9.x (the CUDA toolkit found here picks the variant)\n"
      "  cudnnenv install ~/Downloads/cudnn-windows-x86_64-8.9.7.29_cuda12-archive.zip\n"
      "  cudnnenv install /usr/local/cuda-12.2 --name cuda12-copy\n"
      "  cudnnenv list --available 8           what could be installed here\n"
      "  cudnnenv install 9 --facts node.json --dry-run\n"
      "                                        the 9.x that runs on the node whose snapshot node.json is\n"
      "  cudnnenv install cuda 11.8            the CUDA 11.8 runtime (cudart, cuBLAS, cuFFT, cuRAND, cuSOLVER,\n"
      "                                        cuSPARSE, NVRTC) from NVIDIA's manifest, selected with cuDNN 8\n"
      "  cudnnenv install cuda 11.8 --print-urls urls.txt\n"
      "                                        the URLs to download on a machine with a network\n"
      "  cudnnenv install cuda ./cuda-11.8.0   offline: from a folder holding redistrib_11.8.0.json and the\n"
      "                                        archives it names, each checked against it\n"
      "  cudnnenv install nccl nccl_2.27.5-1+cuda12.9_x86_64.txz\n"
      "                                        NCCL from NVIDIA's archive or a wheel (nvidia_nccl_cu12-*.whl)\n"
      "\n"
      "A mirror holds each archive at NVIDIA's path under its base, e.g. for 9.1 on Linux:\n"
      "  BASE/compute/cudnn/redist/cudnn/linux-x86_64/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz\n"
      "  (8.x and older: BASE/compute/redist/cudnn/v8.1.0/cudnn-11.2-windows-x64-v8.1.0.77.zip);\n"
      "'cudnnenv list --available --json' gives each URL. Offline: fetch the archive on another machine,\n"
      "then 'cudnnenv install ./FILE' (an official archive is recognised by its SHA-256).\n"
      "\n"
      "A site's own lists, read in place of the built-in ones:\n"
      "  CUDNNENV_INDEX=FILE         the cuDNN archives: a TSV of version, platform, CUDA variant, file name,\n"
      "                              SHA-256, size, URL (e.g. share/doc/cudnnenv/cudnn-index.example.tsv)\n"
      "  CUDNNENV_CUDA_INDEX=FOLDER  the CUDA releases: a folder of NVIDIA's redistrib_<release>.json manifests");
  command->callback(
      [arguments, &context] { context.action = [arguments, &context] { return run_install(*arguments, context); }; });
}

}  // namespace cudnnenv::cli
