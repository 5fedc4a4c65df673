// CDI spec files as doctor reads them (integrate/cdi's read_cdi_spec) and as
// remove's refresh rewrites them (refresh_cdi_specs, in a temporary folder,
// every device mounting "/cdi-tree" failing to resolve): any vendor's file in
// /etc/cdi or /var/run/cdi, JSON or not. Beyond not crashing or throwing: a
// spec read back is of cudnnenv's kind, and each tree entry has a name; a
// refreshed spec is still one of ours (read as one when it was before), no
// device in it mounts the tree, and its note or warning holds no escape.
#include <unistd.h>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string_view>

#include "integrate/cdi.hpp"
#include "util/fs.hpp"

namespace {

void refresh(std::string_view text, bool ours) {
  static const std::filesystem::path folder = [] {
    auto made = std::filesystem::temp_directory_path() / ("fuzz-cdi-" + std::to_string(::getpid()));
    std::filesystem::create_directories(made);
    return made;
  }();
  const auto file = folder / "spec.json";
  if (!cudnnenv::util::write_file_atomic(file, text)) return;
  const cudnnenv::SelectSpec select = [](const std::string&) -> cudnnenv::Result<cudnnenv::Selection> {
    return cudnnenv::make_error("no such tree");
  };
  for (const auto& done : cudnnenv::refresh_cdi_specs("/cdi-tree", "t", select, "/audit.so", {folder})) {
    for (const auto* words : {&done.note, &done.warning}) {
      if (*words && words->value().find('\x1b') != std::string::npos) std::abort();  // no escape reaches a terminal
    }
    if (done.refused || done.changes.empty()) continue;
    if (done.changes.front().kind == cudnnenv::FileChange::Kind::removed) continue;
    const auto again = cudnnenv::util::read_file(file, 1 << 22);
    if (!again) std::abort();
    const auto records = cudnnenv::read_cdi_spec(*again);
    if (!records) {
      if (ours) std::abort();  // what read as a spec of ours before reads as one after
      continue;
    }
    if (records->empty()) std::abort();
    for (const auto& record : *records) {
      for (const auto& host : record.host_paths) {
        if (host == "/cdi-tree") std::abort();
      }
    }
  }
  std::error_code ec;
  std::filesystem::remove(file, ec);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto records = cudnnenv::read_cdi_spec(text);
  if (text.size() < (1 << 20)) refresh(text, static_cast<bool>(records));
  if (!records) return 0;
  if (!records->empty() && text.find("cudnnenv.dev/cudnn") == std::string_view::npos) std::abort();
  for (const auto& record : *records) {
    for (const auto& [name, installed_at] : record.trees) {
      if (name.find(',') != std::string::npos) std::abort();
    }
  }
  return 0;
}
