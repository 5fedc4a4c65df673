// The spec parser (command line, CUDNNENV_VERSION, project files) and the
// matcher that picks a tree with it. The first line is the spec, the rest
// the --cuda value.
#include "store/spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto newline = text.find('\n');
  const std::string_view spec_text = text.substr(0, newline);
  const std::optional<std::string_view> cuda =
      newline == std::string_view::npos ? std::nullopt : std::optional<std::string_view>(text.substr(newline + 1));
  auto spec = cudnnenv::parse_spec(spec_text, cuda);
  if (!spec) {
    return 0;
  }
  static const std::vector<cudnnenv::TreeRecord> trees = [] {
    std::vector<cudnnenv::TreeRecord> list;
    for (const auto& [name, version, cuda_major] :
         {std::tuple{"cudnn-8.1.0.77-cuda11.2", "8.1.0.77", 11}, std::tuple{"cudnn-8.9.7.29-cuda12", "8.9.7.29", 12},
          std::tuple{"cudnn-8.9.7.29-cuda11", "8.9.7.29", 11}, std::tuple{"torch-9.19", "9.19.0", 13}}) {
      cudnnenv::TreeRecord tree;
      tree.name = name;
      tree.version = *cudnnenv::parse_version(version);
      tree.cuda = cudnnenv::CudaVersion{cuda_major, std::nullopt};
      list.push_back(tree);
    }
    return list;
  }();
  (void)cudnnenv::select_tree(trees, *spec);
  return 0;
}
