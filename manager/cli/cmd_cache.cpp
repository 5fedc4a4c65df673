// cudnnenv cache list|clean: the archives install fetched and kept
// (<root>/.cudnnenv/downloads), and freeing their space.
#include "cli/context.hpp"
#include "cli/output.hpp"
#include "download/download.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv::cli {

namespace {

struct CacheArguments {
  bool json = false;
};

std::filesystem::path downloads_folder(const Context& context) {
  return context.store().state().downloads();
}

Json file_json(const CachedFile& file) {
  return Json{{"file", util::to_utf8(file.file)},
              {"size", file.size},
              {"partial", file.partial},
              {"version", file.archive ? Json(std::string(file.archive->version)) : Json(nullptr)}};
}

Result<int> run_cache_list(const CacheArguments& arguments, const Context& context) {
  const auto files = cached_downloads(downloads_folder(context));
  if (arguments.json) {
    Json array = Json::array();
    for (const auto& file : files) array.push_back(file_json(file));
    print_json(array);
    return 0;
  }
  std::uint64_t total = 0;
  for (const auto& file : files) {
    total += file.size;
    print(util::human_size(file.size) + "  " + util::to_utf8(file.file.filename()) +
          (file.partial ? "  (partial: the next install of it resumes)" : "") + "\n");
  }
  print_note(std::to_string(files.size()) + (files.size() == 1 ? " file, " : " files, ") + util::human_size(total) +
             " in " + util::to_utf8(downloads_folder(context)) +
             (files.empty() ? "" : "; 'cudnnenv cache clean' frees it"));
  return 0;
}

Result<int> run_cache_clean(const CacheArguments& arguments, const Context& context) {
  const auto removed = clean_downloads(downloads_folder(context));
  std::uint64_t total = 0;
  for (const auto& file : removed) total += file.size;
  // What killed runs left in the store (staging, trash), where this user may write it.
  const Store& store = context.store();
  const std::uint64_t leftovers =
      util::is_writable_directory(store.own().folder) ? store.clean_leftovers() : std::uint64_t{0};
  // What a killed `use --global` left beside config.toml.
  const std::size_t temporaries = util::remove_stale_temporaries(store.state().config());
  if (arguments.json) {
    Json array = Json::array();
    for (const auto& file : removed) array.push_back(file_json(file));
    print_json(Json{
        {"removed", array}, {"freed", total}, {"leftovers_freed", leftovers}, {"temporaries_removed", temporaries}});
    return 0;
  }
  print("freed " + util::human_size(total) + " (" + std::to_string(removed.size()) +
        (removed.size() == 1 ? " file" : " files") + ") in " + util::to_utf8(downloads_folder(context)) +
        (leftovers ? ", and " + util::human_size(leftovers) + " that killed installs left in the store" : "") +
        (temporaries ? ", and " + std::to_string(temporaries) + " config.toml.tmp file(s) of killed writes" : "") +
        "\n");
  return 0;
}

}  // namespace

void register_cache(CLI::App& app, Context& context) {
  CLI::App* cache = app.add_subcommand("cache", "the archives install fetched and kept: list them, free their space");
  cache->require_subcommand(1);
  for (const auto& [name, description, run] :
       {std::tuple{"list", "the kept archives and partial downloads, with their sizes", &run_cache_list},
        std::tuple{"clean",
                   "delete them (not one an install is fetching now), and what killed installs left in the store",
                   &run_cache_clean}}) {
    auto arguments = std::make_shared<CacheArguments>();
    CLI::App* command = cache->add_subcommand(name, description);
    command->add_flag("--json", arguments->json, "print the result as JSON");
    command->callback([arguments, &context, run = run] {
      context.action = [arguments, &context, run] { return run(*arguments, context); };
    });
  }
  cache->footer("Examples:\n  cudnnenv cache list\n  cudnnenv cache clean");
}

}  // namespace cudnnenv::cli
