// Which files make a complete cuDNN release per major version and OS, and
// where they sit inside a tree (cuda/bin, bin/x64, lib/x64, nvidia/cudnn/lib).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "formats/platform.hpp"
#include "formats/version.hpp"
#include "util/result.hpp"

namespace cudnnenv {

struct ExpectedSet {
  std::vector<std::string> libraries;  // DLLs (Windows) or .so.N names (Linux)
  std::vector<std::string> headers;
  std::vector<std::string> import_libs;  // Windows .lib files of the official zips
  // A release newer than the table checks: whose set was taken, in words.
  std::string note;
};

// The files of cuDNN `release` on `os`: the libraries of data/cudnn-libraries.tsv
// (7.x one; 8.x seven; 9.x the eight core ones, cudnn_engines_tensor_ir from
// 9.21, cudnn_ext from 9.25), the headers and Windows .lib files of its major
// (import libraries for the core libraries only: the others' are not known).
// A release newer than the table's "checked through" gets that release's set
// and a note.
ExpectedSet expected_set(const Version& release, Os os);

// Every library name any release of cuDNN `major` ships on `os`
// (data/cudnn-libraries.tsv): what a tree of that major may be asked for.
std::vector<std::string> family_libraries(int major, Os os);

// Those of family_libraries(major, os) that `folder` has no file of.
std::vector<std::string> family_libraries_lacking(const std::filesystem::path& folder, int major, Os os);

// The first release that ships library `name` on `os` (the table's), if any.
std::optional<Version> first_release_of(const std::string& name, Os os);

// "libcudnn.so.9" / "cudnn64_9.dll".
std::string main_library_name(int major, Os os);

// The major version a main-library file name stands for, if it is one.
std::optional<int> main_library_major(const std::string& file_name, Os os);

// What cuDNN `version` on `os` opens by name at run time besides its own
// sub-libraries (cudnn-facts.md, section 3): zlibwapi.dll for 8.3 to 8.9 on
// Windows (9.2 on links zlib in; for 9.0 and 9.1 the facts are unsure).
std::vector<std::string> loaded_at_run_time(const Version& version, Os os);

// Whether a file name looks like any cuDNN library (for discovery and checks).
bool is_cudnn_library_name(const std::string& file_name, Os os);

// Relative paths inside a tree, '/'-separated; empty when absent.
struct TreeLayout {
  int major = 0;
  std::string library_dir;  // bin (Windows) or lib (Linux)
  std::string main_library;
  std::string include_dir;
  std::string import_lib_dir;
  std::string version_header;  // the header the version was read from
  // What the main library says of itself, for a component whose library
  // carries it (NCCL's version string): its release and the CUDA it was
  // built for. Not recorded: the tree record keeps them as its version and CUDA.
  std::optional<Version> release;
  std::optional<CudaVersion> built_for;
};

// Finds the main library (no deeper than 5 levels), the headers and the
// import libraries under `root`. Fails when there is no cuDNN library, or
// libraries of two majors, or two folders with the main library.
Result<TreeLayout> locate_layout(const std::filesystem::path& root, Os os);

// The version header for a library folder whose headers live beside it, as
// system and pip layouts have them: <lib>/../include, <lib>/../../include,
// <lib>/../../include/<triplet> (Debian), trying cudnn_version.h,
// cudnn_version_vN.h, then cudnn.h. Empty when there is none.
std::filesystem::path find_version_header_near(const std::filesystem::path& library_dir, int major);

enum class RequireImportLibs { no, yes };

// Names (relative to the tree) of the files of `release` that are missing.
std::vector<std::string> missing_files(const std::filesystem::path& root, const TreeLayout& layout,
                                       const Version& release, Os os, RequireImportLibs import_libs);

}  // namespace cudnnenv
