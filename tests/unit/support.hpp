// Helpers shared by the unit tests: the per-test folder, fixture paths,
// fake cuDNN trees held in memory, and writers for zips and tarballs that
// can produce what official tools refuse to (hostile names, links out).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "formats/platform.hpp"
#include "probe/probe.hpp"
#include "store/store.hpp"

namespace cudnnenv::test {

namespace fs = std::filesystem;

// The folder the current test case runs in (also the working directory).
// Removed when the test passes, kept (and named on stderr) when it fails.
fs::path test_dir();

// A file built by tests/fixtures (fake-pe64-8.1.0.dll, fake-elf64-9.1.0.so, ...).
fs::path fixture(const std::string& name);

// A file under tests/golden/ (expected outputs, reviewed by hand).
fs::path golden(const std::string& name);

// The cudnnenv program of this build, and a probe that runs it as the child.
fs::path cudnnenv_program();
ProbeFunction child_probe();

struct Item {
  Item(std::string content = {}, std::string link_text = {}, std::uint32_t unix_mode = 0100644)
      : data(std::move(content)), link(std::move(link_text)), mode(unix_mode) {}
  std::string data;
  std::string link;    // non-empty: a symbolic link with this text
  std::uint32_t mode;  // Unix mode for archives that carry one
};
using FileMap = std::map<std::string, Item>;

std::string read_binary(const fs::path& path);
void write_binary(const fs::path& path, std::string_view content);

enum class TreeStyle {
  legacy,   // cuda/bin, cuda/include, cuda/lib/x64 (cudnn-11.2-windows-x64-v8.1.0.77.zip)
  archive,  // <prefix>/bin, include, lib/x64 on Windows; <prefix>/include, lib with .so links on Linux
  wheel,    // nvidia/cudnn/{bin|lib,include} plus a .dist-info folder
};

struct FakeTree {
  Os os = Os::windows;
  int major = 8;
  std::string header_version = "8.1.0";                  // what cudnn_version.h says
  std::string library;                                   // fixture copied under every library name
  std::map<std::string, std::string> library_overrides;  // another fixture for some names ("cudnn_ops64_9.dll")
  TreeStyle style = TreeStyle::legacy;
  std::string prefix;               // top folder for TreeStyle::archive (may be empty)
  std::string wheel_metadata_name;  // e.g. "nvidia-cudnn-cu12" (wheel style)
  std::string wheel_version;        // e.g. "9.1.0.70"
};

// The files of a complete fake release, by relative path.
FileMap fake_tree(const FakeTree& spec);

// The cudnn_version.h text for `version` ("8.1.0").
std::string version_header(const std::string& version);

void write_folder(const fs::path& root, const FileMap& files);

struct ZipOptions {
  bool deflate = true;
  bool zip64 = false;  // force zip64 records even for small files
};
void write_zip(const fs::path& path, const FileMap& files, ZipOptions options = {});

#ifndef _WIN32
// A tarball through libarchive; .tar.xz by default. Items whose mode is a
// character device become device entries.
void write_tar(const fs::path& path, const FileMap& files);
#endif

// Every path under `root` with its size (links with their text), except the
// lock files, which are meant to persist: two equal snapshots mean the store
// was left as it was.
std::string snapshot(const fs::path& root);

// A fake 9.1.0 tree of the host's kind, installed from a folder "source" in
// the test's folder; `overrides` puts other fixtures under some names.
TreeRecord install_host_tree(Store& store, const std::string& header_version = "9.1.0",
                             std::map<std::string, std::string> overrides = {});

// A fake Linux tree installed from a zip named `archive` (its name tells
// the style: an official archive's or a legacy one's).
void install_fake(Store& store, const std::string& archive, const std::string& version, int major);
// A store of five such trees: 8.1 (CUDA 11.2), 8.9.7 for CUDA 11 and 12,
// 8.10 (CUDA 12), 9.1 (CUDA 12).
Store make_selection_store();
// The tree `text` (with `cuda`) selects among the store's.
Result<TreeRecord> pick(const Store& store, const std::string& text, std::optional<std::string> cuda = {});

// Little-endian fields, as zip and PE headers store them.
void put16(std::string& out, std::uint32_t value);
void put32(std::string& out, std::uint32_t value);
void put64(std::string& out, std::uint64_t value);

}  // namespace cudnnenv::test
