#include <algorithm>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "download/runtime.hpp"
#include "store/component.hpp"
#include "store/official.hpp"
#include "store/runtime.hpp"
#include "store/spec.hpp"
#include "util/text.hpp"

namespace cudnnenv::cli {

namespace {

struct ListArguments {
  bool json = false;
  bool available = false;
  std::string spec;
  std::string cuda;
};

// The CUDA a tree serves, and the release it was built with where that says
// more: "13 (built 13.1)" for a cuda13 archive whose library says 13.1.
std::string cuda_column(const TreeRecord& tree) {
  if (tree.cuda_variant && tree.cudart && !(*tree.cuda_variant == *tree.cudart)) {
    return tree.cuda_variant->str() + " (built " + tree.cudart->str() + ")";
  }
  return tree.cuda ? tree.cuda->str() : "?";
}

// The installed tree an official archive became: by its recorded source,
// else by the same version and CUDA major.
const TreeRecord* installed_from(const OfficialArchive& archive, const std::vector<TreeRecord>& trees) {
  const TreeRecord wanted = as_record(archive);
  for (const auto& tree : trees) {
    if (tree.source.official == archive.file_name) return &tree;
  }
  for (const auto& tree : trees) {
    const bool same_version =
        tree.version.same_release(wanted.version) &&
        (!tree.version.build || !wanted.version.build || tree.version.build == wanted.version.build);
    if (same_version && tree.cuda && wanted.cuda && tree.cuda->major == wanted.cuda->major &&
        tree.platform == host_platform()) {
      return &tree;
    }
  }
  return nullptr;
}

Result<int> run_available(const ListArguments& arguments, const Context& context) {
  const Platform platform = host_platform();
  const std::string name = official_platform(platform);
  if (name.empty()) {
    return make_error("NVIDIA ships no cuDNN archive for " + describe(platform),
                      "install a wheel or a folder you have: cudnnenv install <path>", ExitCode::not_found);
  }
  std::optional<Spec> spec;
  if (!arguments.spec.empty()) {
    CUDNNENV_TRY_ASSIGN(parsed, parse_spec(arguments.spec));
    spec = *parsed;
  }
  std::optional<CudaVersion> cuda;
  if (!arguments.cuda.empty()) {
    cuda = parse_cuda_version(arguments.cuda);
    if (!cuda) {
      return make_error("'" + arguments.cuda + "' is not a CUDA version", "write it as 11.2 or 12", ExitCode::usage);
    }
  }
  const auto archives = available_archives(platform, spec ? &*spec : nullptr, cuda);
  if (archives.empty()) {
    const std::size_t all = available_archives(platform, nullptr, std::nullopt).size();
    return make_error("no official cuDNN archive for " + name + " matches '" + arguments.spec +
                          (cuda ? "' with CUDA " + cuda->str() : std::string("'")),
                      "'cudnnenv list --available' lists all " + std::to_string(all) + " for " + name,
                      ExitCode::not_found);
  }
  const auto trees = context.store().list().trees;
  if (arguments.json) {
    Json array = Json::array();
    for (const auto* archive : archives) {
      const TreeRecord record = as_record(*archive);
      const TreeRecord* tree = installed_from(*archive, trees);
      array.push_back(
          Json{{"version", std::string(archive->version)},
               {"cuda", record.cuda ? Json(record.cuda->str()) : Json(nullptr)},
               {"platform", std::string(archive->platform)},
               {"file_name", std::string(archive->file_name)},
               {"size", archive->size ? Json(archive->size) : Json(nullptr)},
               {"sha256", archive->sha256.size() == 64 ? Json(std::string(archive->sha256)) : Json(nullptr)},
               {"url", std::string(archive->url)},
               {"installed", tree ? Json(tree->name) : Json(nullptr)}});
    }
    print_json(array);
    return 0;
  }
  std::vector<std::vector<std::string>> rows = {{"VERSION", "CUDA", "SIZE", "INSTALLED", "ARCHIVE"}};
  bool size_unknown = false;
  for (const auto* archive : archives) {
    const TreeRecord record = as_record(*archive);
    const TreeRecord* tree = installed_from(*archive, trees);
    size_unknown = size_unknown || archive->size == 0;
    rows.push_back({std::string(archive->version), record.cuda ? record.cuda->str() : "?",
                    archive->size ? util::human_size(archive->size) : "?", tree ? tree->name : "-",
                    std::string(archive->file_name)});
  }
  print_table(rows);
  if (size_unknown) {
    print("? = the list records no size for this archive (its SHA-256 still checks the download)\n");
  }
  return 0;
}

// `list --available cuda [RELEASE]`: the CUDA releases whose runtime can be
// installed, with each runtime component's download size when the manifest
// is at hand (CUDNNENV_CUDA_INDEX).
Result<int> run_available_cuda(const ListArguments& arguments, const Context& context) {
  const std::optional<std::filesystem::path> index = cuda_index(context.environment);
  const auto runtimes = context.store().list().runtimes();
  Json array = Json::array();
  std::vector<std::vector<std::string>> rows = {{"RELEASE", "DOWNLOAD", "INSTALLED", "MANIFEST"}};
  for (const auto& release : known_cuda_releases(index)) {
    if (!arguments.cuda.empty() && !util::starts_with(release.str() + ".", arguments.cuda + ".")) continue;
    Json components = nullptr;
    std::optional<std::uint64_t> total;
    if (index) {
      const auto file = *index / util::path_from_utf8(manifest_file_name(release.str()));
      auto text = util::read_file(file);
      auto manifest = text ? parse_redist_manifest(*text, util::to_utf8(file), redist_platform(host_platform()))
                           : Result<RedistManifest>(text.error());
      if (!manifest) return std::move(manifest).error();
      components = Json::array();
      total = 0;
      for (const auto& name : runtime_components(release.major)) {
        for (const auto& archive : manifest->archives) {
          if (archive.component != name) continue;
          components.push_back(Json{{"name", name}, {"version", archive.version}, {"size", archive.size}});
          *total += archive.size;
        }
      }
    }
    std::string installed;
    for (const auto& tree : runtimes) {
      if (tree.version == release) installed = tree.name;
    }
    array.push_back(Json{{"release", release.str()},
                         {"pinned", !index},
                         {"size", total ? Json(*total) : Json(nullptr)},
                         {"components", components},
                         {"installed", or_null(installed)}});
    rows.push_back({release.str(), total ? util::human_size(*total) : "?", installed.empty() ? "-" : installed,
                    index ? "CUDNNENV_CUDA_INDEX" : "pinned (SHA-256 embedded)"});
  }
  if (arguments.json) {
    print_json(array);
  } else {
    print_table(rows);
    if (!index) print_diagnostic("note: sizes come from each manifest, fetched by 'cudnnenv install cuda RELEASE'\n");
  }
  return 0;
}

// After a tree's location: adopted; with a personal store over a shared one, whose it is.
std::string marks(const TreeRecord& tree, const Store& store) {
  std::string text = tree.location ? " (adopted)" : "";
  if (store.personal_root()) text += tree.personal ? " (yours)" : " (shared)";
  return text;
}

Result<int> run_list(const ListArguments& arguments, const Context& context) {
  if (arguments.available && arguments.spec == "cuda") {
    return run_available_cuda(arguments, context);
  }
  if (arguments.available) {
    return run_available(arguments, context);
  }
  if (!arguments.spec.empty() || !arguments.cuda.empty()) {
    return make_error("a spec and --cuda go with --available", "cudnnenv list --available " + arguments.spec,
                      ExitCode::usage);
  }
  const Store& store = context.store();
  const Listing listing = store.list();
  for (const auto& damaged : listing.damaged) {
    log_warning(damaged.message);
  }
  if (arguments.json) {
    Json trees = Json::array();
    std::vector<TreeRecord> all = listing.trees;
    all.insert(all.end(), listing.beside.begin(), listing.beside.end());
    for (const auto& tree : all) {
      Json entry = tree_to_json(tree);
      const auto changed = changed_files(tree);
      entry["damaged"] = !changed.empty();
      entry["changed_files"] = changed;
      trees.push_back(std::move(entry));
    }
    print_json(trees);
    return 0;
  }
  if (listing.trees.empty() && listing.beside.empty()) {
    std::error_code ec;
    const bool exists = std::filesystem::exists(store.root(), ec);
    print_diagnostic((exists ? "no cuDNN trees in " : "no store at ") + util::to_utf8(store.root()) +
                     (exists ? std::string() : " yet (install creates it)") + "\n  hint: " + install_suggestion() +
                     "; a copy you have: 'cudnnenv adopt --help'\n");
  } else if (!listing.trees.empty()) {
    std::vector<std::vector<std::string>> rows = {{"NAME", "VERSION", "CUDA", "PLATFORM", "SIZE", "LOCATION"}};
    for (const auto& tree : listing.trees) {
      const auto changed = changed_files(tree);
      rows.push_back(
          {tree.name, tree.version.str(), cuda_column(tree), describe(tree.platform),
           util::human_size(tree.total_size()),
           util::to_utf8(tree.root) + marks(tree, store) +
               (changed.empty()
                    ? ""
                    : "  DAMAGED: '" + changed.front() + "'" +
                          (changed.size() > 1 ? " and " + std::to_string(changed.size() - 1) + " more" : "") +
                          " missing or changed")});
    }
    print_table(rows);
  }
  // Each other component's trees, a table of its own headed by its noun.
  bool printed = !listing.trees.empty();
  for (const ComponentRow& row : components()) {
    if (row.kind == TreeKind::cudnn) continue;
    const auto trees = listing.of(row.kind);
    if (trees.empty()) continue;
    print(printed ? "\n" : "");
    printed = true;
    std::vector<std::vector<std::string>> rows = {
        {util::to_upper(std::string(row.noun)), "RELEASE", "LIBRARIES", "PLATFORM", "SIZE", "LOCATION"}};
    for (const auto& tree : trees) {
      const auto changed = changed_files(tree);
      std::size_t libraries = 0;
      for (const auto& file : tree.files) {
        const std::string name = file.path.substr(file.path.rfind('/') + 1);
        if (file.link.empty() && row.library_name(name, tree.platform.os)) ++libraries;
      }
      rows.push_back({tree.name, tree.cuda ? tree.version.str() : "?", std::to_string(libraries),
                      describe(tree.platform), util::human_size(tree.total_size()),
                      util::to_utf8(tree.root) + marks(tree, store) +
                          (changed.empty() ? "" : "  DAMAGED: '" + changed.front() + "' missing or changed")});
    }
    print_table(rows);
  }
  if (!listing.unmanaged.empty()) {
    print_diagnostic("note: " + std::to_string(listing.unmanaged.size()) +
                     " folder(s) in the store root are not cudnnenv trees (e.g. '" + listing.unmanaged.front() +
                     "'); 'cudnnenv adopt' registers one\n");
  }
  return 0;
}

}  // namespace

void register_list(CLI::App& app, Context& context) {
  auto arguments = std::make_shared<ListArguments>();
  CLI::App* command = app.add_subcommand("list", "show installed and adopted cuDNN trees, or what can be installed");
  command->add_flag("--json", arguments->json, "print them as a JSON array");
  command->add_flag("--available", arguments->available,
                    "the official archives for this platform, newest first, with their CUDA variant, size and the "
                    "tree each became here");
  command->add_option("spec", arguments->spec,
                      "with --available: only versions that fit (8.1 never lists 8.10); 'cuda': the CUDA runtimes");
  command->add_option("--cuda", arguments->cuda, "with --available: only archives built for this CUDA version");
  command->footer(
      "Examples:\n  cudnnenv list\n  cudnnenv list --available 8.1\n  cudnnenv list --available 9 --cuda 12 "
      "--json\n  cudnnenv list --available cuda --cuda 12   the CUDA 12 releases whose runtime can be installed");
  command->callback(
      [arguments, &context] { context.action = [arguments, &context] { return run_list(*arguments, context); }; });
}

}  // namespace cudnnenv::cli
