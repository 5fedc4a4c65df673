// cudnnenv mirror create | verify: a folder laid out as NVIDIA's host, for
// machines with no network (download/mirror.hpp).
#include <algorithm>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "download/mirror.hpp"
#include "download/runtime.hpp"
#include "select/lock.hpp"
#include "select/mirror_writer.hpp"
#include "select/profile.hpp"
#include "store/official.hpp"
#include "store/runtime.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv::cli {

namespace fs = std::filesystem;

namespace {

struct CreateArguments {
  std::string folder;
  std::vector<std::string> sources;  // versions and profiles
  std::vector<std::string> locks;
  std::vector<std::string> runtimes;  // CUDA releases
  std::vector<std::string> platforms;
  std::string cuda;
  std::string from;  // where to fetch from: a mirror, else NVIDIA's host
  bool allow_unverified = false;
  bool quiet = false;
  bool json = false;
};

Result<void> check_platforms(const std::vector<std::string>& platforms) {
  for (const auto& platform : platforms) {
    if (std::find(std::begin(k_lock_platforms), std::end(k_lock_platforms), platform) == std::end(k_lock_platforms)) {
      return make_error("'" + util::printable(platform) + "' is no platform of the official list",
                        "use linux-x86_64, linux-sbsa or windows-x86_64", ExitCode::usage);
    }
  }
  return {};
}

// A version or a profile, for each platform: its cuDNN archive, and a profile's CUDA runtime where it names one.
Result<void> add_source(MirrorWriter& writer, const CreateArguments& arguments, const Context& context,
                        const std::string& source, const std::vector<std::string>& platforms) {
  for (const auto& platform : platforms) {
    const Platform target = lock_platform(platform);
    std::string text = source;
    std::optional<std::string> cuda = arguments.cuda.empty() ? std::nullopt : std::optional(arguments.cuda);
    std::optional<Profile> profile;
    if (auto found = find_profile(source, target.os, config_files(context.store()))) {
      profile = std::move(*found);
      text = profile->cudnn;
      cuda = profile->cuda;
    }
    CUDNNENV_TRY_ASSIGN(spec, parse_spec(text, cuda ? std::optional<std::string_view>(*cuda) : std::nullopt));
    CUDNNENV_TRY_ASSIGN(archive, choose_archive(target, *spec, spec->cuda, {}));
    CUDNNENV_TRY(writer.cudnn(**archive));
    if (profile && !profile->runtime_libraries(target.os).empty()) {
      const auto asked = parse_cuda_version(profile->cuda);
      if (!asked) return make_error("the profile " + profile->name + " has no CUDA version", "cudnnenv profile list");
      CUDNNENV_TRY_ASSIGN(choice, runtime_release_for(*asked, known_cuda_releases(cuda_index(context.environment)),
                                                      profile->framework));
      CUDNNENV_TRY(writer.runtime(choice->release, platform, context.environment));
    }
  }
  return {};
}

// What the mirror's own index names again: each cuDNN archive by its official file name, each CUDA release's
// manifest and components.
Result<void> add_from_index(MirrorWriter& writer, const MirrorIndex& index, const Context& context,
                            bool allow_unverified) {
  std::vector<std::pair<std::string, std::string>> runtimes;  // release, platform
  for (const auto& file : index.files) {
    if (!file.cuda_release.empty()) {
      if (!file.platform.empty() &&
          std::find(runtimes.begin(), runtimes.end(), std::pair(file.cuda_release, file.platform)) == runtimes.end()) {
        runtimes.emplace_back(file.cuda_release, file.platform);
      }
      continue;
    }
    const std::string name = file.path.substr(file.path.rfind('/') + 1);
    const OfficialArchive* official = find_official_by_name(name);
    if (!official || (official->sha256 != file.sha256 && !allow_unverified)) {
      return make_error(
          "the mirror's index names '" + util::printable(file.path) + "', which is no official archive of that SHA-256",
          "remove it from the folder and its index, or create the mirror afresh in another folder",
          ExitCode::not_found);
    }
    CUDNNENV_TRY(writer.cudnn(*official));
  }
  for (const auto& [release, platform] : runtimes) {
    CUDNNENV_TRY(writer.runtime(release, platform, context.environment));
  }
  return {};
}

Result<int> run_create(const CreateArguments& arguments, const Context& context) {
  CUDNNENV_TRY(check_platforms(arguments.platforms));
  const fs::path folder = util::path_from_utf8(arguments.folder);
  std::error_code ec;
  MirrorIndex index;
  if (fs::exists(folder / k_mirror_index, ec)) {
    CUDNNENV_TRY_ASSIGN(existing, read_mirror_index(folder));
    index = std::move(*existing);
  } else if (arguments.sources.empty() && arguments.locks.empty() && arguments.runtimes.empty()) {
    return make_error(
        "nothing to put in the mirror: name versions, profiles, --lock FILE or --runtime RELEASE",
        "cudnnenv mirror create " + util::command_word(arguments.folder) + " 9.19 --platform linux-x86_64",
        ExitCode::usage);
  }
  DownloadOptions options = context.download_options(arguments.from, arguments.quiet);
  options.allow_unverified = arguments.allow_unverified;
  MirrorWriter writer(folder, index, options, [quiet = arguments.quiet](const std::string& file) {
    if (!quiet) print_note("fetching " + file);
  });
  const std::string here = official_platform(host_platform());
  const std::vector<std::string> platforms = !arguments.platforms.empty()
                                                 ? arguments.platforms
                                                 : std::vector<std::string>{here.empty() ? "linux-x86_64" : here};
  if (arguments.sources.empty() && arguments.locks.empty() && arguments.runtimes.empty()) {
    CUDNNENV_TRY(add_from_index(writer, index, context, arguments.allow_unverified));
  }
  for (const auto& source : arguments.sources) {
    CUDNNENV_TRY(add_source(writer, arguments, context, source, platforms));
  }
  for (const auto& release : arguments.runtimes) {
    for (const auto& platform : platforms) CUDNNENV_TRY(writer.runtime(release, platform, context.environment));
  }
  // The files NCCL's and TensorRT's trees here came from: what a lock names of them, copied into the mirror.
  const std::vector<TreeRecord> installed =
      arguments.locks.empty() ? std::vector<TreeRecord>() : context.lock_sources().installed;
  for (const auto& file : arguments.locks) {
    CUDNNENV_TRY_ASSIGN(lock, read_lock(util::path_from_utf8(file)));
    const std::vector<std::string>& wanted = arguments.platforms.empty() ? lock->input.platforms : arguments.platforms;
    for (const auto& platform : wanted) {
      const LockedArchive* locked = lock->for_platform(platform);
      if (!locked) {
        return make_error("'" + util::printable(file) + "' locks no build for " + platform,
                          "name the platforms it locks with --platform, or lock " + platform + " there",
                          ExitCode::not_found);
      }
      CUDNNENV_TRY_ASSIGN(archive, locked_official_archive(*locked, arguments.allow_unverified));
      CUDNNENV_TRY(writer.cudnn(*archive));
      if (const LockedRuntime* runtime = lock->runtime_for(platform)) {
        CUDNNENV_TRY(writer.runtime(runtime->release, platform, context.environment, runtime));
      }
      for (const auto& tree : lock->trees) {
        if (tree.platform == platform) CUDNNENV_TRY(writer.tree(tree, installed));
      }
    }
  }
  std::uint64_t bytes = 0;
  for (const auto& file : writer.index().files) bytes += file.size;
  const std::string where = util::to_utf8(folder);
  if (arguments.json) {
    Json files = Json::array();
    for (const auto& file : writer.index().files) {
      files.push_back(Json{{"path", file.path}, {"size", file.size}, {"sha256", file.sha256}, {"what", file.what}});
    }
    print_json(Json{{"mirror", where},
                    {"index", util::to_utf8(folder / k_mirror_index)},
                    {"fetched", writer.fetched()},
                    {"already_there", writer.kept()},
                    {"files", files}});
    return 0;
  }
  print("mirror " + where + ": " + std::to_string(writer.fetched()) + " fetched, " + std::to_string(writer.kept()) +
        " already there; " + std::to_string(writer.index().files.size()) +
        (writer.index().files.size() == 1 ? " file, " : " files, ") + util::human_size(bytes) + "\n");
  for (const auto& file : writer.index().files) print("  " + util::printable(file.path) + "\n");
  const std::string word = util::command_word(where);
  print("on a machine with no network: cudnnenv sync --mirror " + word + "  (or cudnnenv install VERSION --mirror " +
        word + ")\n");
  return 0;
}

struct VerifyArguments {
  std::string folder;
  bool json = false;
};

Result<int> run_verify(const VerifyArguments& arguments) {
  const fs::path folder = util::path_from_utf8(arguments.folder);
  CUDNNENV_TRY_ASSIGN(index, read_mirror_index(folder));
  const auto checks = verify_mirror(folder, *index);
  const auto unlisted = unlisted_mirror_files(folder, *index);
  const auto failed =
      std::count_if(checks.begin(), checks.end(), [](const MirrorCheck& each) { return !each.problem.empty(); });
  const bool ok = failed == 0 && unlisted.empty();
  if (arguments.json) {
    Json files = Json::array();
    for (const auto& check : checks) {
      files.push_back(
          Json{{"path", check.file.path}, {"ok", check.problem.empty()}, {"problem", or_null(check.problem)}});
    }
    print_json(Json{{"mirror", util::to_utf8(folder)}, {"ok", ok}, {"files", files}, {"unlisted", unlisted}});
    return ok ? 0 : 1;
  }
  for (const auto& check : checks) {
    print(std::string(check.problem.empty() ? "ok        " : "FAILED    ") + util::printable(check.file.path) +
          (check.problem.empty() ? "" : ": " + check.problem) + "\n");
  }
  for (const auto& path : unlisted) print("UNLISTED  " + util::printable(path) + ": in the folder, not in the index\n");
  const std::string count = std::to_string(checks.size()) + (checks.size() == 1 ? " file" : " files");
  if (ok) {
    print(count + ": all match the index\n");
    return 0;
  }
  const std::string create = "cudnnenv mirror create " + util::command_word(util::to_utf8(folder));
  if (failed == 0) {
    return make_error(std::to_string(unlisted.size()) + (unlisted.size() == 1 ? " file" : " files") + " in '" +
                          util::to_utf8(folder) + "' " + (unlisted.size() == 1 ? "is" : "are") + " not in its index (" +
                          count + " match it): a sync from it cannot find " +
                          (unlisted.size() == 1 ? "that file" : "those files"),
                      "run the '" + create +
                          " ...' that fetched them again: it indexes what is already there, checked, fetching nothing",
                      ExitCode::failure);
  }
  return make_error(std::to_string(failed) + " of " + count + " in '" + util::to_utf8(folder) + "' " +
                        (failed == 1 ? "does" : "do") + " not match its index" +
                        (unlisted.empty() ? std::string()
                                          : ", and " + std::to_string(unlisted.size()) + " more " +
                                                (unlisted.size() == 1 ? "is" : "are") + " not in it"),
                    create + "  (fetches again what the index names, replacing what is wrong)", ExitCode::failure);
}

}  // namespace

void register_mirror(CLI::App& app, Context& context) {
  CLI::App* mirror = app.add_subcommand(
      "mirror", "a folder laid out as NVIDIA's host, for machines with no network (install --mirror, sync --mirror)");
  mirror->require_subcommand(1);

  auto create_arguments = std::make_shared<CreateArguments>();
  CLI::App* create = mirror->add_subcommand(
      "create", "fetch the archives (and CUDA manifests and component archives) of versions, profiles or locks");
  create->add_option("folder", create_arguments->folder, "the mirror's folder (created if missing)")->required();
  create->add_option("sources", create_arguments->sources, "cuDNN versions (9.19, 8.9.7) and profiles (tf2.5)");
  create->add_option("--lock", create_arguments->locks, "every archive this cudnnenv.lock names (repeatable)");
  create->add_option("--runtime", create_arguments->runtimes, "a CUDA release's runtime (13.0, 11.8.0; repeatable)");
  create->add_option("--platform", create_arguments->platforms,
                     "linux-x86_64, linux-sbsa or windows-x86_64 (repeatable; default: this machine's, or a lock's)");
  create->add_option("--cuda", create_arguments->cuda, "the CUDA variant of the versions named (12, 11.8)");
  create->add_option("--from", create_arguments->from,
                     "fetch from this mirror (URL or folder) instead of developer.download.nvidia.com");
  create->add_flag("--allow-unverified", create_arguments->allow_unverified,
                   "take archives no official list or pinned manifest names (their SHA-256 as given)");
  create->add_flag("-q,--quiet", create_arguments->quiet, "no progress on stderr");
  create->add_flag("--json", create_arguments->json, "print the mirror's files as JSON");
  create->footer(
      "Examples:\n"
      "  cudnnenv mirror create /srv/nvidia --lock cudnnenv.lock       what a project's lock names, all its platforms\n"
      "  cudnnenv mirror create /srv/nvidia 9.19 --cuda 13 --platform linux-x86_64 --platform windows-x86_64\n"
      "  cudnnenv mirror create /srv/nvidia tf2.5 --platform windows-x86_64   cuDNN and the CUDA runtime TF 2.5 needs\n"
      "  cudnnenv mirror create /srv/nvidia    fetch again what its index names (after 'mirror verify' failed)\n"
      "Then, with no network: cudnnenv sync --mirror /srv/nvidia, cudnnenv install 9.19 --mirror /srv/nvidia.\n"
      "\n"
      "Each file is checked against the official list or the pinned CUDA manifest as install checks it; a stopped\n"
      "create resumes where it stopped. The folder's cudnnenv-mirror.json names every file with its SHA-256.");
  create->callback([create_arguments, &context] {
    context.action = [create_arguments, &context] { return run_create(*create_arguments, context); };
  });

  auto verify_arguments = std::make_shared<VerifyArguments>();
  CLI::App* verify =
      mirror->add_subcommand("verify", "check every file of a mirror against its index (exit 1 if any differs)");
  verify->add_option("folder", verify_arguments->folder, "the mirror's folder")->required();
  verify->add_flag("--json", verify_arguments->json, "print each file's check as JSON");
  verify->footer(
      "Examples:\n"
      "  cudnnenv mirror verify /srv/nvidia\n"
      "\n"
      "Each file's size and SHA-256 against cudnnenv-mirror.json, and each cuDNN archive's against the official list.");
  verify->callback(
      [verify_arguments, &context] { context.action = [verify_arguments] { return run_verify(*verify_arguments); }; });
}

}  // namespace cudnnenv::cli
