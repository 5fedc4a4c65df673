#include "store/component.hpp"

#include <algorithm>
#include <charconv>

#include "components.inc"
#include "store/layout.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv {

// cuDNN's row: its trees are Store::install's and adopt's.
bool is_cudnn_library(std::string_view file_name, Os os) {
  return is_cudnn_library_name(std::string(file_name), os);
}
const ComponentTrees* trees_of_cudnn() {
  return nullptr;
}

std::vector<std::string> component_library_files(const std::filesystem::path& folder, Os os,
                                                 bool (*is_library)(std::string_view file_name, Os os)) {
  std::vector<std::string> names;
  for (const auto& entry : util::directory_entries(folder)) {
    const std::string name = util::to_utf8(entry.path.filename());
    if (!entry.is_directory && is_library(name, os)) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::filesystem::path> component_library_folders(const std::filesystem::path& root, Os os,
                                                             bool (*is_library)(std::string_view file_name, Os os)) {
  std::vector<std::filesystem::path> found;
  std::vector<std::pair<std::filesystem::path, int>> folders{{root, 0}};
  while (!folders.empty()) {
    auto [folder, depth] = folders.back();
    folders.pop_back();
    bool holds = false;
    for (const auto& entry : util::directory_entries(folder)) {
      const std::string name = util::to_utf8(entry.path.filename());
      if (entry.is_directory) {
        if (depth < 3 && name != "stubs" && name.front() != '.') folders.push_back({entry.path, depth + 1});
      } else {
        holds = holds || is_library(name, os);
      }
    }
    if (holds) found.push_back(folder);
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::span<const ComponentRow> components() {
#define CUDNNENV_ROW(kind, noun, short_noun, json_key, folder_words, report_label, pin_variable, active_variable, \
                     every_name)                                                                                  \
  {TreeKind::kind,       noun,                                                                                    \
   short_noun,           json_key,                                                                                \
   folder_words,         report_label,                                                                            \
   pin_variable,         active_variable,                                                                         \
   &is_##kind##_library, trees_of_##kind()},
  static const ComponentRow rows[] = {CUDNNENV_COMPONENTS(CUDNNENV_ROW)};
#undef CUDNNENV_ROW
  return rows;
}

const ComponentRow& component(TreeKind kind) {
  for (const auto& row : components()) {
    if (row.kind == kind) return row;
  }
  return components().front();  // unreachable: every TreeKind has a row (test_component)
}

std::vector<const ComponentRow*> named_rows() {
  std::vector<const ComponentRow*> rows;
  for (const ComponentRow& row : components()) {
    if (row.trees && row.kind != TreeKind::cuda) rows.push_back(&row);
  }
  return rows;
}

std::ptrdiff_t component_order(TreeKind kind) {
  return &component(kind) - components().data();
}

std::optional<TreeRecord> paired_tree(TreeKind kind, const TreeRecord& cudnn, const std::vector<TreeRecord>& trees) {
  const ComponentTrees* of_kind = component(kind).trees;
  return of_kind ? of_kind->paired_with(cudnn, trees) : std::nullopt;
}

std::optional<TreeRecord> find_component(const std::vector<TreeRecord>& trees, std::string_view text) {
  for (const auto& tree : trees) {
    if (tree.name == text) return tree;
  }
  // One to four numbers: the fields of the release that must match.
  std::vector<int> asked;
  for (const auto& part : util::split(text, '.')) {
    int number = 0;
    const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), number);
    if (part.empty() || error != std::errc() || end != part.data() + part.size()) return std::nullopt;
    asked.push_back(number);
  }
  if (asked.empty() || asked.size() > 4) return std::nullopt;
  const TreeRecord* best = nullptr;
  for (const auto& tree : trees) {
    const Version& v = tree.version;
    const int fields[] = {v.major, v.minor, v.patch, v.build.value_or(-1)};
    const bool fits = std::equal(asked.begin(), asked.end(), fields);
    if (fits && (!best || v > best->version)) best = &tree;
  }
  return best ? std::optional(*best) : std::nullopt;
}

std::optional<TreeRecord> newest_of_cuda_major(const TreeRecord& cudnn, const std::vector<TreeRecord>& trees) {
  const TreeRecord* best = nullptr;
  for (const auto& tree : trees) {
    if (!cudnn.cuda || !tree.cuda || tree.cuda->major != cudnn.cuda->major) continue;
    if (!best || tree.version > best->version) best = &tree;
  }
  return best ? std::optional(*best) : std::nullopt;
}

std::optional<CudaVersion> cuda_in_archive_name(std::string_view file_name) {
  for (const std::string_view marker : {"+cuda", ".cuda-", "_cu", "-cu"}) {
    const auto at = file_name.find(marker);
    if (at == std::string_view::npos) continue;
    std::string_view rest = file_name.substr(at + marker.size());
    rest = rest.substr(0, std::min(rest.size(), rest.find_first_not_of("0123456789.")));
    // "12.9" from "+cuda12.9_x86_64"; "12" from "_cu12_libs"; never the ".tar" after it.
    while (!rest.empty() && rest.back() == '.') rest.remove_suffix(1);
    if (marker.size() == 3 && rest.find('.') != std::string_view::npos) continue;  // _cu12.9 is no wheel's
    if (auto cuda = parse_cuda_version(rest)) return cuda;
  }
  return std::nullopt;
}

namespace {

class RenamedEntries final : public ArchiveSource {
 public:
  RenamedEntries(std::unique_ptr<ArchiveSource> inner,
                 std::function<std::optional<std::string>(std::string_view name)> rename)
      : m_inner(std::move(inner)), m_rename(std::move(rename)) {}

  Result<bool> next(ArchiveEntry& entry) override {
    for (;;) {
      CUDNNENV_TRY_ASSIGN(more, m_inner->next(entry));
      if (!*more) return false;
      if (entry.type == EntryType::directory) continue;  // made as files need them
      const auto kept = m_rename(entry.name);
      if (!kept) continue;
      entry.name = *kept;
      if (entry.type == EntryType::hardlink) {
        const auto target = m_rename(entry.link_target);
        if (!target) return make_error("'" + util::printable(entry.name) + "' is a hard link to a file not kept");
        entry.link_target = *target;
      }
      return true;
    }
  }
  Result<void> read_data(const DataSink& sink) override { return m_inner->read_data(sink); }

 private:
  std::unique_ptr<ArchiveSource> m_inner;
  std::function<std::optional<std::string>(std::string_view name)> m_rename;
};

}  // namespace

std::unique_ptr<ArchiveSource> renamed_entries(
    std::unique_ptr<ArchiveSource> inner, std::function<std::optional<std::string>(std::string_view name)> rename) {
  return std::make_unique<RenamedEntries>(std::move(inner), std::move(rename));
}

std::optional<Version> release_in_archive_name(std::string_view file_name) {
  for (std::size_t at = 0; at + 1 < file_name.size(); ++at) {
    if ((file_name[at] != '-' && file_name[at] != '_') || !std::isdigit(static_cast<unsigned char>(file_name[at + 1])))
      continue;
    std::size_t end = at + 1;
    while (end < file_name.size() &&
           (std::isdigit(static_cast<unsigned char>(file_name[end])) || file_name[end] == '.'))
      ++end;
    std::string_view number = file_name.substr(at + 1, end - at - 1);
    while (!number.empty() && number.back() == '.') number.remove_suffix(1);
    if (number.find('.') == std::string_view::npos) continue;
    if (auto version = parse_version(number)) return version;
  }
  return std::nullopt;
}

std::vector<std::string> beside_flags(const BesideNames& names) {
  std::vector<std::string> flags;
  for (const ComponentRow& row : components()) {
    const auto named = names.find(row.kind);
    if (row.kind == TreeKind::cudnn || named == names.end() || named->second.empty()) continue;
    flags.insert(flags.end(), {"--" + std::string(row.json_key), named->second});
  }
  return flags;
}

std::vector<const TreeRecord*> pinned_trees(const TreeRecord& cudnn, const std::vector<TreeRecord>& beside) {
  std::vector<const TreeRecord*> trees{&cudnn};
  for (const auto& tree : beside) trees.push_back(&tree);
  std::stable_sort(trees.begin(), trees.end(), [&](const TreeRecord* a, const TreeRecord* b) {
    return component_order(a->kind) < component_order(b->kind);
  });
  return trees;
}

}  // namespace cudnnenv
