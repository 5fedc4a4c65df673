// `cudnnenv selftest`: this machine proves the pin, with no GPU and no real
// cuDNN. A temporary store (its path with a space, `&` and non-ASCII
// letters) gets two trees built from the test libraries the package ships
// (selftest/: sentinel versions 9.90.1 and 9.90.2, no real release), the
// second also placed where a user's machine may have a stray copy (Linux:
// first on LD_LIBRARY_PATH, behind a program's DT_RPATH, named by absolute
// path; Windows: first on PATH, in the working folder, in the program's
// folder, named by full path, in System32 with --system32), and a cuDNN 8
// pair (8.1.90, 8.1.91 on the path) for cuDNN 8's names. Every way the pin
// is reached starts the shipped loader, which prints the version it got and
// the file it came from (a case holds only when that file is in the
// expected tree): exec in each mode and (Windows) each load style a
// framework uses, a shim, and in each shell found here activation, the
// scripts `profile generate` writes and the hook `export conda` writes in an
// env. Each case runs `cudnnenv` itself as a child, as a user would.
// Everything is removed afterwards unless kept. Under Wine, a case that
// rests on what Wine does not do as Windows does is `unprovable`, with the
// reason, whatever loaded.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "util/environment.hpp"
#include "util/names.hpp"
#include "util/result.hpp"

namespace cudnnenv {

enum class SelftestStatus { held, failed, unprovable };
inline constexpr util::Named<SelftestStatus> k_selftest_statuses[] = {
    {SelftestStatus::held, "held"}, {SelftestStatus::failed, "failed"}, {SelftestStatus::unprovable, "unprovable"}};
static_assert(util::covers_each_once(k_selftest_statuses, 3));

struct SelftestCase {
  std::string id;        // "exec-audit", "shim", "activate-bash", ...
  std::string how;       // what ran, in words
  std::string expected;  // "9.90.1 (the pinned tree)"
  std::string loaded;    // what the loader printed, named: "9.90.2 (the stray copy)", "nothing: <error>"
  std::string file;      // the file it was loaded from, as the loader named it, resolved; empty: none loaded
  SelftestStatus status = SelftestStatus::held;
  std::string detail;  // why it failed, or why it cannot be shown here
  // What keeps an unprovable case from being shown: "wine" (what Wine does
  // not do as Windows does), "temporary folder" (its path); empty otherwise.
  std::string unprovable;
};

struct SelftestReport {
  std::vector<SelftestCase> cases;
  std::string os;                                           // "Linux 6.1.0 x86_64"
  std::string code_pages;                                   // Windows: "console 437, ANSI 1252"
  std::vector<std::pair<std::string, std::string>> shells;  // name, version line
  bool wine = false;
  std::filesystem::path store;  // the temporary store (gone unless kept)
  bool kept = false;

  bool passed() const;
};

struct SelftestOptions {
  std::filesystem::path program;  // cudnnenv itself
  std::filesystem::path assets;   // the selftest/ folder beside it
  util::Environment environment;  // the user's: PATH finds the shells
  std::string only;               // one case id, or all
  bool keep = false;              // leave the temporary store for a look
  bool system32 = false;          // Windows: a stray copy in System32 too (needs an elevated prompt)
  // Test-only (CUDNNENV_SELFTEST_UNPINNED=1): each case starts the loader
  // directly, without the pin, so the selftest's own failure can be seen.
  bool unpinned = false;
};

// The ids of every case on this platform, in the order they run (for
// --only's check).
std::vector<std::string> selftest_case_ids();

// Fails only when the temporary store cannot be set up (the test files
// missing, no space): a case that does not hold is a failed case.
Result<SelftestReport> run_selftest(const SelftestOptions& options);

std::string to_string(SelftestStatus status);

}  // namespace cudnnenv
