#include <algorithm>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "util/text.hpp"

namespace cudnnenv::cli {

namespace {

struct ListArguments {
  bool json = false;
};

std::string pad(const std::string& text, std::size_t width) {
  return text.size() >= width ? text + "  " : text + std::string(width - text.size() + 2, ' ');
}

Result<int> run_list(const ListArguments& arguments, const Context& context) {
  const Store store = context.store();
  const Listing listing = store.list();
  for (const auto& damaged : listing.damaged) {
    log_warning(damaged.message);
  }
  if (arguments.json) {
    Json trees = Json::array();
    for (const auto& tree : listing.trees) {
      Json entry = tree_to_json(tree);
      const auto changed = changed_files(tree);
      entry["damaged"] = !changed.empty();
      entry["changed_files"] = changed;
      trees.push_back(std::move(entry));
    }
    print_json(trees);
    return 0;
  }
  if (listing.trees.empty()) {
    print_diagnostic("no cuDNN trees in " + util::to_utf8(store.root()) +
                     "\n  hint: 'cudnnenv install <archive>' or 'cudnnenv adopt <folder>'\n");
  } else {
    std::vector<std::vector<std::string>> rows = {{"NAME", "VERSION", "CUDA", "PLATFORM", "SIZE", "LOCATION"}};
    for (const auto& tree : listing.trees) {
      const auto changed = changed_files(tree);
      rows.push_back(
          {tree.name, tree.version.str(), tree.cuda ? tree.cuda->str() : "?", describe(tree.platform),
           util::human_size(tree.total_size()),
           util::to_utf8(tree.root) + (tree.location ? " (adopted)" : "") +
               (changed.empty()
                    ? ""
                    : "  DAMAGED: '" + changed.front() + "'" +
                          (changed.size() > 1 ? " and " + std::to_string(changed.size() - 1) + " more" : "") +
                          " missing or changed")});
    }
    std::vector<std::size_t> widths(rows.front().size(), 0);
    for (const auto& row : rows) {
      for (std::size_t i = 0; i < row.size(); ++i) {
        widths[i] = std::max(widths[i], row[i].size());
      }
    }
    for (const auto& row : rows) {
      std::string line;
      for (std::size_t i = 0; i < row.size(); ++i) {
        line += i + 1 == row.size() ? row[i] : pad(row[i], widths[i]);
      }
      print(line + "\n");
    }
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
  CLI::App* command = app.add_subcommand("list", "show installed and adopted cuDNN trees");
  command->add_flag("--json", arguments->json, "print the trees as a JSON array");
  command->callback(
      [arguments, &context] { context.action = [arguments, &context] { return run_list(*arguments, context); }; });
}

}  // namespace cudnnenv::cli
