#include "store/store.hpp"

#include <algorithm>
#include <functional>
#include <future>
#include <random>
#include <set>
#include <system_error>

#include "formats/archive.hpp"
#include "formats/archive_name.hpp"
#include "formats/binfmt.hpp"
#include "store/component.hpp"
#include "store/extract.hpp"
#include "store/layout.hpp"
#include "store/official.hpp"
#include "store/runtime.hpp"
#include "store/spec.hpp"
#include "util/fs.hpp"
#include "util/sha256.hpp"
#include "util/text.hpp"

#include "state_layout.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

// Removes a folder when the scope ends, unless released.
class ScopedRemoval {
 public:
  explicit ScopedRemoval(fs::path path) : m_path(std::move(path)) {}
  ~ScopedRemoval() {
    if (!m_path.empty()) {
      util::remove_tree(m_path);
    }
  }
  ScopedRemoval(const ScopedRemoval&) = delete;
  ScopedRemoval& operator=(const ScopedRemoval&) = delete;

 private:
  fs::path m_path;
};

// Runs a function when the scope ends (on every return).
template <class F>
class AtScopeEnd {
 public:
  explicit AtScopeEnd(F f) : m_f(std::move(f)) {}
  ~AtScopeEnd() { m_f(); }
  AtScopeEnd(const AtScopeEnd&) = delete;
  AtScopeEnd& operator=(const AtScopeEnd&) = delete;

 private:
  F m_f;
};

void warn(const WarningSink& sink, const std::string& message) {
  if (sink) {
    sink(message);
  }
}

bool is_library_file(const std::string& path) {
  const std::string name = util::to_lower(path.substr(path.rfind('/') + 1));
  return util::ends_with(name, ".dll") || name.find(".so.") != std::string::npos || util::ends_with(name, ".so");
}

std::string list_some(const std::vector<std::string>& items) {
  return util::quote_some(items, 3);
}

std::string platform_hint(Platform platform) {
  return platform.os == Os::windows
             ? "use the Windows x64 archive (cudnn-windows-x86_64-*-archive.zip)"
             : "use the Linux archive for this machine (cudnn-linux-" + to_string(platform.arch) + "-*-archive.tar.xz)";
}

// Every library file must be built for the tree's platform: a 32-bit DLL
// fails to load into a 64-bit program exactly like a missing one.
Result<void> check_binaries(const std::vector<ExtractedFile>& files, const std::string& strip, Platform platform) {
  for (const auto& file : files) {
    if (!is_library_file(file.record.path)) {
      continue;
    }
    const std::string shown = file.record.path.substr(strip.size());
    if (file.binary.format == BinaryFormat::none) {
      return make_error("'" + shown + "' is not a library (" + std::to_string(file.record.size) + " bytes)",
                        "the file is truncated or damaged: download the archive again");
    }
    if (!matches(file.binary, platform)) {
      return make_error("'" + shown + "' is " + file.binary.describe() + ", not " + describe(platform),
                        file.binary.bits == 32 && platform.arch == Arch::x86_64
                            ? "a 32-bit library cannot load into a 64-bit program: " + platform_hint(platform)
                            : platform_hint(platform));
    }
  }
  return {};
}

// The one commit point of every operation that adds a tree: the record goes
// into the staged folder, every file of it is put on disk, then the folder is
// renamed into place and the store's folder synced, so a visible tree always
// has its record and whole files, after a power cut too.
Result<void> publish(const fs::path& staged, const TreeRecord& record, const fs::path& tree_dir) {
  std::error_code ec;
  // Gone with the store's folder: creating the record's folder would make the store again, with a tree of one file.
  if (!fs::is_directory(staged.parent_path(), ec)) {
    return make_error("the staging folder '" + util::to_utf8(staged.parent_path()) + "' is gone");
  }
  fs::create_directories(record_path(staged).parent_path(), ec);
  if (auto written = util::write_file_atomic(record_path(staged), serialize(record)); !written) {
    return written;
  }
  CUDNNENV_TRY(util::sync_tree(staged));
  CUDNNENV_TRY(util::rename_directory(staged, tree_dir));
  // The tree is visible now: a folder that cannot be synced (EIO) does not undo that.
  (void)util::sync_directory(tree_dir.parent_path());
  return {};
}

std::vector<std::string> top_level_names(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : util::directory_entries(folder)) {
    names.push_back(util::to_utf8(entry.path.filename()));
  }
  return names;
}

}  // namespace

namespace store_detail {

struct VersionFacts {
  Version version;
  std::string version_from;
  std::optional<CudaVersion> cuda;
  std::string cuda_from;
  std::optional<CudaVersion> cuda_variant;
  std::optional<CudaVersion> cudart;
};

// A folder to adopt: where its library and headers are.
struct AdoptedFolders {
  fs::path location;  // canonical
  TreeLayout layout;
  fs::path library_dir;
  fs::path include_dir;     // empty: no headers found
  fs::path version_header;  // empty: none
};

}  // namespace store_detail

using store_detail::AdoptedFolders;
using store_detail::VersionFacts;

namespace {

// The record of a component tree adopted as a store folder of links (split
// wheels, a healed folder): its layout in that folder (lib/, bin/ on
// Windows) with the main library `main_file`'s name, its release `release`
// (`named`: as a library's full name says it, else its major alone), its
// name from --name or the component's default.
Result<TreeRecord> linked_record(const ComponentTrees& kind_of, const AdoptOptions& options, const TreeLayout& found,
                                 const fs::path& main_file, const Version& release, bool named) {
  TreeLayout layout;
  layout.library_dir = options.platform.os == Os::windows ? "bin" : "lib";
  layout.main_library = layout.library_dir + "/" + util::to_utf8(main_file.filename());
  layout.major = found.major;
  TreeRecord record = kind_of.record(options.name.value_or(kind_of.default_name(release, !named)), layout, release,
                                     named, options.platform);
  CUDNNENV_TRY(check_tree_name(record.name));
  record.version_from = named ? "library" : "name";
  record.cuda_from = record.version_from;
  record.source.kind = "adopted";
  return record;
}

// One file of a healed tree into its store folder `links`, recorded in
// `files`: the adopted folder's own (`own`) by link (Linux: symbolic;
// Windows: hard, which needs the store's volume), as split-wheel runtimes are
// adopted; the donor's hard-linked, else copied, so that removing the donor
// leaves the healed tree whole. `folder`: the adopted folder, for the hint.
Result<void> link_healed_file(const fs::path& links, const fs::path& target, const std::string& name, bool own, Os os,
                              const std::string& folder, const std::string& library_dir,
                              std::vector<FileRecord>& files) {
  const fs::path link = links / util::path_from_utf8(name);
  std::error_code failed;
  if (own && os != Os::windows) {
    fs::create_symlink(target, link, failed);
  } else {
    fs::create_hard_link(target, link, failed);
    if (failed && !own) {
      failed.clear();
      fs::copy_file(target, link, failed);
    }
  }
  if (failed) {
    return make_error("cannot link '" + util::to_utf8(target) + "' into the store: " + failed.message(),
                      os == Os::windows ? "a hard link needs the store (--root) on the same drive as '" + folder + "'"
                                        : "check that the store is writable");
  }
  std::error_code ec;
  CUDNNENV_TRY_ASSIGN(hash, util::sha256_file(target));
  // A name that is a link in the folder (libcudnn.so.9 -> libcudnn.so.9.1.0) is recorded as one, as adopt
  // records it: its bytes are the file's it names, counted once.
  std::string link_text;
  if (own && fs::is_symlink(fs::symlink_status(target, ec)))
    link_text = util::generic_utf8(fs::read_symlink(target, ec));
  files.push_back({library_dir + "/" + name, fs::file_size(target, ec), *hash, link_text});
  return {};
}

// Version from the headers (else the library), build and CUDA from the name
// or wheel metadata (else the library), all cross-checked.
Result<VersionFacts> read_versions(const fs::path& header, const fs::path& library, const ArchiveName& name,
                                   bool can_load, const ProbeFunction& probe, const WarningSink& warn_sink) {
  VersionFacts facts;
  std::optional<Version> header_version;
  if (!header.empty()) {
    if (auto text = util::read_file(header)) {
      header_version = parse_version_header(*text);
    }
    if (!header_version) {
      return make_error("'" + util::to_utf8(header) + "' does not define CUDNN_MAJOR, CUDNN_MINOR and CUDNN_PATCHLEVEL",
                        "the header is damaged or not cuDNN's");
    }
  }
  std::optional<ProbeReport> report;
  if (can_load && probe) {
    auto probed = probe(library);
    if (probed) {
      report = *probed;
    } else {
      warn(warn_sink,
           "could not load '" + util::to_utf8(library) + "' to read its versions: " + probed.error().message);
    }
  }
  if (header_version) {
    facts.version = *header_version;
    facts.version_from = "header";
    if (report) {
      const Version loaded = decode_cudnn_version(report->version_raw);
      if (!loaded.same_release(*header_version)) {
        return make_error("the headers say cuDNN " + header_version->str() + " but '" +
                              util::to_utf8(library.filename()) + "' reports " + loaded.str(),
                          "headers and libraries come from different releases: use one complete archive");
      }
    }
  } else if (report) {
    facts.version = decode_cudnn_version(report->version_raw);
    facts.version_from = "library";
    warn(warn_sink, "no cudnn_version.h found: version " + facts.version.str() + " read from the library");
  } else {
    return make_error(
        "cannot tell the cuDNN version: no cudnn_version.h or cudnn.h, and the library cannot be loaded here",
        "install from an archive or folder that includes the headers");
  }
  if (name.version) {
    if (name.version->same_release(facts.version)) {
      facts.version.build = name.version->build;
    } else {
      warn(warn_sink, "the name says cuDNN " + name.version->str() + " but the " + facts.version_from + " says " +
                          facts.version.str() + ": keeping " + facts.version.str());
    }
  }
  // CUDA: what the library was built with, when it can be asked (the name
  // says only the major since 8.5, and a folder name can say anything), so
  // that list, verify and the tree's name show one version (#11).
  facts.cuda_variant = name.cuda;
  if (report && report->cudart_raw) {
    facts.cudart = decode_cudart_version(*report->cudart_raw);
    facts.cuda = facts.cudart;
    facts.cuda_from = "library";
    if (name.cuda && name.cuda->major != facts.cuda->major) {
      warn(warn_sink, std::string("the ") + (name.wheel ? "wheel's metadata says" : "name says") + " CUDA " +
                          name.cuda->str() + " but the library was built with CUDA " + facts.cuda->str() +
                          ": keeping " + facts.cuda->str());
    }
    if (name.cuda && name.cuda->major != facts.cudart->major) facts.cuda_variant.reset();
  } else if (name.cuda) {
    facts.cuda = name.cuda;
    facts.cuda_from = name.wheel ? "metadata" : "name";
  }
  return facts;
}

// A new tree's record: its name, where its files are in `layout`, the
// versions read, the platform, the time; the caller adds source and files.
TreeRecord new_record(std::string name, const TreeLayout& layout, const VersionFacts& versions, Platform platform) {
  TreeRecord record;
  record.name = std::move(name);
  record.version = versions.version;
  record.version_from = versions.version_from;
  record.cuda = versions.cuda;
  record.cuda_from = versions.cuda_from;
  record.cuda_variant = versions.cuda_variant;
  record.cudart = versions.cudart;
  record.platform = platform;
  record.layout = layout;
  record.installed_at = utc_timestamp();
  return record;
}

// An install's source, classified: what it is, its names, its record.
struct InstallSource {
  SourceKind kind = SourceKind::folder;
  fs::path path;          // absolute
  std::string file_name;  // the archive's or folder's own name
  ArchiveName name;       // what the name says (version, CUDA, platform)
  std::string tree_name;
  // The name is not given (--name) and the file name says no version (a
  // folder): the tree is named once its versions are read.
  bool provisional_name = false;
  SourceRecord record;
};

Result<InstallSource> classify_source(const fs::path& source_path, const InstallOptions& options) {
  InstallSource source;
  CUDNNENV_TRY_ASSIGN(kind, detect_source_kind(source_path));
  source.kind = *kind;
  std::error_code ec;
  source.path = fs::absolute(source_path, ec).lexically_normal();
  source.file_name =
      util::to_utf8(source.path.has_filename() ? source.path.filename() : source.path.parent_path().filename());
  source.name = source.kind == SourceKind::folder ? ArchiveName{source.file_name, {}, {}, {}, false}
                                                  : parse_archive_name(source.file_name);
  if (options.name) {
    source.tree_name = *options.name;
  } else if (source.name.version) {
    source.tree_name = default_tree_name(*source.name.version, source.name.cuda);
  } else {
    source.tree_name = source.name.stem;
    source.provisional_name = true;
  }
  CUDNNENV_TRY(check_tree_name(source.tree_name));
  if (source.name.platform && source.name.platform->os != options.platform.os) {
    return make_error("'" + source.file_name + "' is a " + describe(*source.name.platform) +
                          " archive; this store holds " + describe(options.platform) + " trees",
                      platform_hint(options.platform), ExitCode::usage);
  }
  if (source.kind == SourceKind::folder && options.require_official == RequireOfficial::yes) {
    return make_error("a folder cannot be checked against the official archives",
                      "install the official archive itself, or drop --require-official", ExitCode::usage);
  }
  source.record.kind = source.kind == SourceKind::folder ? "folder"
                       : source.name.wheel               ? "wheel"
                       : source.kind == SourceKind::zip  ? "zip"
                                                         : "tar";
  source.record.path = util::to_utf8(source.path);
  if (source.kind != SourceKind::folder) {
    source.record.size = fs::file_size(source.path, ec);
  }
  return source;
}

// Where an archive comes from: its SHA-256, computed on a second core while
// it unpacks (from `held`, the one open handle the unpacking reads too) and
// awaited only where a decision needs it, against the official list and the
// hash the caller checked before. `held` must outlive this object.
class Provenance {
 public:
  Provenance(const InstallSource& source, const InstallOptions& options, std::FILE* held) : m_options(options) {
    m_file_name = source.file_name;
    if (held) {
      m_hash =
          std::async(std::launch::async, [held, path = source.path] { return util::sha256_held_file(held, path); });
    }
  }

  // Fills `record`'s sha256 and official name, warns about an unknown or
  // altered archive, refuses one under --require-official. Once.
  Result<void> settle(SourceRecord& record) {
    if (m_settled || !m_hash.valid()) {
      return {};
    }
    m_settled = true;
    CUDNNENV_TRY_ASSIGN(hash, m_hash.get());
    if (!m_options.expected_sha256.empty() && *hash != m_options.expected_sha256) {
      return make_error("'" + m_file_name +
                            "' changed after it was checked: the bytes read to install it have the "
                            "SHA-256 " +
                            *hash + ", the checked file's was " + m_options.expected_sha256 + "; nothing was installed",
                        "something replaced the file meanwhile: check who can write its folder, then run this again");
    }
    record.sha256 = *hash;
    if (const OfficialArchive* official = find_official_by_sha256(*hash)) {
      record.official = std::string(official->file_name);
    } else if (const OfficialArchive* same_name = find_official_by_name(m_file_name)) {
      warn(m_options.warn, "'" + m_file_name + "' has the name of an official archive but not its SHA-256 (expected " +
                               std::string(same_name->sha256.substr(0, 16)) + "..., got " + hash->substr(0, 16) +
                               "...): it was modified, re-packed or damaged");
    } else {
      warn(m_options.warn, "'" + m_file_name + "' is not a known official cuDNN archive (SHA-256 " +
                               hash->substr(0, 16) + "...); mirrors and re-zipped copies are common");
    }
    if (record.official.empty() && m_options.require_official == RequireOfficial::yes) {
      return make_error("'" + m_file_name + "' is not a known official cuDNN archive",
                        "download it from NVIDIA, or install without --require-official");
    }
    return {};
  }

 private:
  const InstallOptions& m_options;
  std::string m_file_name;
  std::future<Result<std::string>> m_hash;
  bool m_settled = false;
};

// The source unpacked (or copied) into `staging`/content, checked entry by
// entry; the tree's root inside it.
struct Staged {
  Extraction extraction;
  fs::path tree_root;
  std::string strip;  // the top folder taken off the entries' paths, with its '/'
};

Result<Staged> stage(const InstallSource& source, std::FILE* held, const fs::path& staging, ExtractLimits limits,
                     const UnpackProgress& progress) {
  util::remove_tree(staging);
  const fs::path content = staging / "content";
  std::error_code ec;
  fs::create_directories(content, ec);
  if (ec) {
    return make_error("cannot create '" + util::to_utf8(content) + "': " + ec.message());
  }
  CUDNNENV_TRY_ASSIGN(reader,
                      held ? open_source(held, source.path, source.kind) : open_source(source.path, source.kind));
  limits.source_size = source.kind == SourceKind::folder ? 0 : source.record.size;
  CUDNNENV_TRY_ASSIGN(extraction, extract(**reader, content, source.file_name, limits, progress));
  Staged staged{std::move(*extraction), content, {}};
  // An archive whose single top folder carries the archive's own name is
  // the tree itself (cudnn-...-archive/bin); any other layout is kept as is
  // (cudnn-11.2-windows-x64-v8.1.0.77/cuda/bin).
  if (const auto top = top_level_names(content);
      top.size() == 1 && top[0] == source.name.stem && fs::is_directory(content / util::path_from_utf8(top[0]), ec)) {
    staged.tree_root = content / util::path_from_utf8(top[0]);
    staged.strip = top[0] + "/";
  }
  return staged;
}

RequireImportLibs import_libs_of(const InstallSource& source, Platform platform) {
  return platform.os == Os::windows && source.kind == SourceKind::zip && !source.name.wheel ? RequireImportLibs::yes
                                                                                            : RequireImportLibs::no;
}

// What a set check knows of the tree's release: the whole version once it
// is read, before that only the major.
struct ReleaseKnown {
  Version version;
  bool whole = false;
  std::string words() const { return whole ? version.str() : std::to_string(version.major); }
};

// The files of `release` missing from a staged tree: an error naming them.
Result<void> check_release_files(const Staged& staged, const TreeLayout& layout, const ReleaseKnown& known,
                                 const InstallSource& source, Platform platform) {
  const Version& release = known.version;
  if (const auto missing =
          missing_files(staged.tree_root, layout, release, platform.os, import_libs_of(source, platform));
      !missing.empty()) {
    const std::string suggestion = known.whole ? " (" + release_suggestion(release) + ")" : std::string();
    const std::string hint =
        source.kind == SourceKind::folder
            ? "a tree needs every library of its release: copy " + std::string(missing.size() == 1 ? "it" : "them") +
                  " from the release's archive, or install that archive" + suggestion
        : source.name.wheel ? "the wheel lacks part of its release: install NVIDIA's archive instead" + suggestion
                            : "the archive is damaged or not a complete cuDNN release: download it again";
    return make_error(
        "incomplete cuDNN " + known.words() + " set for " + describe(platform) + ": missing " + list_some(missing),
        hint);
  }
  return {};
}

// A complete release for the platform: every binary built for it, the
// layout found, every file its major version ships present (the release's
// own set is checked once its version is read).
Result<TreeLayout> check_release(const Staged& staged, const InstallSource& source, Platform platform) {
  CUDNNENV_TRY(check_binaries(staged.extraction.files, staged.strip, platform));
  CUDNNENV_TRY_ASSIGN(layout, locate_layout(staged.tree_root, platform.os));
  CUDNNENV_TRY(check_release_files(staged, *layout, {Version{layout->major, 0, 0, {}}, false}, source, platform));
  return std::move(*layout);
}

Result<AdoptedFolders> locate_adopted(const fs::path& directory, Os os) {
  std::error_code ec;
  AdoptedFolders found;
  found.location = fs::canonical(directory, ec);
  if (ec || !fs::is_directory(found.location, ec)) {
    return make_error("'" + util::to_utf8(directory) + "' is not a folder", "pass the folder that holds the cuDNN tree",
                      ExitCode::not_found);
  }
  CUDNNENV_TRY_ASSIGN(layout, locate_layout(found.location, os));
  found.layout = *layout;
  const fs::path& location = found.location;
  found.library_dir = layout->library_dir.empty() ? location : location / util::path_from_utf8(layout->library_dir);
  // System and pip layouts keep headers beside, not under, the library folder.
  found.include_dir = layout->include_dir.empty() ? fs::path() : location / util::path_from_utf8(layout->include_dir);
  found.version_header =
      layout->version_header.empty() ? fs::path() : location / util::path_from_utf8(layout->version_header);
  if (found.include_dir.empty()) {
    found.version_header = find_version_header_near(found.library_dir, layout->major);
    found.include_dir = found.version_header.parent_path();
  }
  return found;
}

// The cuDNN files only, hashed (the folder may be a whole system library
// folder): the libraries, and the cudnn*.h headers when found.
Result<std::vector<ExtractedFile>> hash_adopted_files(const AdoptedFolders& found, Os os) {
  std::vector<ExtractedFile> files;
  std::error_code ec;
  auto add_files = [&](const fs::path& folder, auto&& wanted) -> Result<void> {
    for (const auto& entry : util::directory_entries(folder)) {
      const std::string name = util::to_utf8(entry.path.filename());
      if (!wanted(name) || !entry.is_regular_file) {
        continue;
      }
      CUDNNENV_TRY_ASSIGN(hash, util::sha256_file(entry.path));
      ExtractedFile file;
      const fs::path relative = entry.path.lexically_relative(found.location);
      const bool inside = !relative.empty() && !util::starts_with(util::generic_utf8(relative), "..");
      file.record.path = inside ? util::generic_utf8(relative) : util::to_utf8(entry.path);
      file.record.size = entry.size;
      file.record.sha256 = *hash;
      if (entry.is_symlink) {
        file.record.link = util::generic_utf8(fs::read_symlink(entry.path, ec));
      }
      auto binary = identify_binary_file(entry.path);
      file.binary = binary ? *binary : BinaryInfo{};
      files.push_back(std::move(file));
    }
    return {};
  };
  CUDNNENV_TRY(add_files(found.library_dir, [os](const std::string& name) { return is_cudnn_library_name(name, os); }));
  if (!found.include_dir.empty()) {
    CUDNNENV_TRY(add_files(found.include_dir, [](const std::string& name) {
      return util::starts_with(name, "cudnn") && util::ends_with(name, ".h");
    }));
  }
  return files;
}

// Every library of the release in the adopted folder.
Result<void> check_adopted_libraries(const AdoptedFolders& found, const ReleaseKnown& known, Platform platform) {
  const Version& release = known.version;
  TreeLayout checked = found.layout;
  checked.include_dir = found.include_dir.empty() ? "include" : util::to_utf8(found.include_dir);
  if (auto missing = missing_files(found.location, checked, release, platform.os, RequireImportLibs::no);
      !missing.empty()) {
    std::erase_if(missing, [](const std::string& path) { return util::ends_with(path, ".h"); });
    if (!missing.empty()) {
      return make_error("incomplete cuDNN " + known.words() + " set in '" + util::to_utf8(found.location) +
                            "': missing " + list_some(missing),
                        known.whole ? "a tree needs every cuDNN library of its release: 'cudnnenv adopt --heal " +
                                          util::command_word(util::to_utf8(found.location)) +
                                          "' fills the gaps from a store tree of the same release"
                                    : "a tree needs every cuDNN library of its release in one folder");
    }
  }
  return {};
}

// Every binary built for the platform, every library of the major there.
Result<void> check_adopted_set(const AdoptedFolders& found, const std::vector<ExtractedFile>& files,
                               Platform platform) {
  CUDNNENV_TRY(check_binaries(files, "", platform));
  return check_adopted_libraries(found, {Version{found.layout.major, 0, 0, {}}, false}, platform);
}

// Named from what was read: "cudnn-9.19.0-cuda-13.0" when the library says
// its CUDA, else after the first telling folder (/opt/x/cudnn-copy/lib gives
// "cudnn-9.19.0-cudnn-copy"), never after a folder's claim of a CUDA.
// The tree's CUDA part of its default name: the variant, else the major of the cudart it was built with.
std::optional<CudaVersion> naming_cuda(const VersionFacts& versions) {
  if (versions.cuda_variant) return versions.cuda_variant;
  if (versions.cudart) return CudaVersion{versions.cudart->major, std::nullopt};
  return std::nullopt;
}

std::string adopted_name(const fs::path& location, const VersionFacts& versions) {
  fs::path telling = location;
  while (telling.has_parent_path() && telling.parent_path() != telling &&
         std::set<std::string>{"lib", "lib64", "bin", "x64", "cudnn", "nvidia", "Library"}.count(
             util::to_utf8(telling.filename()))) {
    telling = telling.parent_path();
  }
  std::string name = "cudnn-" + versions.version.str() + "-" +
                     (versions.cuda ? "cuda-" + versions.cuda->str() : util::to_utf8(telling.filename()));
  std::replace_if(
      name.begin(), name.end(), [](char c) { return c == ' ' || c == ':'; }, '_');
  return name;
}

// The carried libraries `record`'s release opens by name and its library
// folder lacks, copied into the staged tree at `tree_root`.
Result<void> add_carried(const fs::path& tree_root, TreeRecord& record, const std::vector<CarriedLibrary>& carried) {
  for (const auto& name : loaded_at_run_time(record.version, record.platform.os)) {
    const std::string relative = (record.layout.library_dir.empty() ? "" : record.layout.library_dir + "/") + name;
    const auto in_tree = std::find_if(record.files.begin(), record.files.end(),
                                      [&](const FileRecord& file) { return util::iequals(file.path, relative); });
    const auto library = std::find_if(carried.begin(), carried.end(), [&](const CarriedLibrary& each) {
      return util::iequals(util::to_utf8(each.file.filename()), name);
    });
    if (in_tree != record.files.end() || library == carried.end()) continue;
    const fs::path into = tree_root / util::path_from_utf8(relative);
    std::error_code ec;
    fs::copy_file(library->file, into, fs::copy_options::overwrite_existing, ec);
    if (ec) {
      return make_error("cannot copy '" + util::to_utf8(library->file) + "' into the tree: " + ec.message(),
                        "reinstall cudnnenv, whose package carries it");
    }
    CUDNNENV_TRY_ASSIGN(sha256, util::sha256_file(into));
    record.files.push_back({relative, fs::file_size(into, ec), *sha256, {}});
    record.components.push_back({library->component, library->version});
  }
  return {};
}

}  // namespace

std::vector<CarriedLibrary> carried_libraries_beside(const fs::path& program) {
  std::vector<CarriedLibrary> carried;
#ifdef CUDNNENV_CARRIED_ZLIB_VERSION
  const fs::path zlib = program.parent_path() / "zlib" / "zlibwapi.dll";
  std::error_code ec;
  if (fs::is_regular_file(zlib, ec)) carried.push_back({zlib, "zlibwapi", "zlib " CUDNNENV_CARRIED_ZLIB_VERSION});
#else
  (void)program;
#endif
  return carried;
}

std::string default_tree_name(const Version& version, const std::optional<CudaVersion>& cuda) {
  return version.str() + (cuda ? "-cuda" + cuda->str() : std::string());
}

std::vector<std::string> former_names(const TreeRecord& tree) {
  std::vector<std::string> names;
  if (tree.location) {
    VersionFacts versions;
    versions.version = tree.version;
    versions.cuda = tree.cuda;
    names.push_back(adopted_name(util::path_from_utf8(*tree.location), versions));
  } else if (!tree.source.path.empty()) {
    names.push_back(archive_stem(util::to_utf8(util::path_from_utf8(tree.source.path).filename())));
  }
  return names;
}

std::string Store::free_tree_name(const std::string& base) const {
  std::error_code ec;
  std::string name = base;
  for (int n = 2; fs::exists(fs::symlink_status(m_root / util::path_from_utf8(name), ec)); ++n) {
    name = base + "-" + std::to_string(n);
  }
  return name;
}

Result<void> check_tree_name(const std::string& name) {
  if (name.empty() || name.front() == '.' || name.find_first_of("/\\:*?\"<>|\t\r\n") != std::string::npos ||
      name.back() == ' ' || !util::is_valid_utf8(name)) {
    return make_error("'" + name + "' cannot be a tree name",
                      "a tree name is a folder name on every OS: none of / \\ : * ? \" < > |, no line breaks, "
                      "not starting with '.' nor ending with a space",
                      ExitCode::usage);
  }
  return {};
}

Store::Store(fs::path root, std::optional<fs::path> state, std::optional<fs::path> personal)
    : m_root(std::move(root)),
      m_state{state ? std::move(*state) : m_root / layout::k_own_folder},
      m_personal(std::move(personal)) {}

Store Store::personal_store() const {
  return m_personal ? Store(*m_personal, m_state.folder) : *this;
}

fs::path Store::state_dir() const {
  return m_root / layout::k_own_folder;
}

Result<Store> Store::open(fs::path root, const util::Environment& environment, Os os) {
  CUDNNENV_TRY_ASSIGN(state, state_folder_for(root, environment, os));
  // Another user's store this user cannot write: the user's own over it (a
  // store of this user's made read-only, by a mount, stays just that).
  std::optional<fs::path> personal;
  if (!user_can_write(root) && !util::owned_by_this_user(root)) {
    if (auto mine = personal_root_for(environment, os)) {
      std::error_code ec;
      if (*mine != root && !fs::equivalent(*mine, root, ec)) personal = std::move(*mine);
    }
  }
  return Store(std::move(root), std::move(*state), std::move(personal));
}

std::optional<fs::path> Store::personal_root_for(const util::Environment& environment, Os os) {
  const auto absolute = [&](const char* variable) -> std::optional<fs::path> {
    auto value = environment.get(variable);
    if (!value || value->empty() || !util::path_from_utf8(*value).is_absolute()) return std::nullopt;
    return util::path_from_utf8(*value);
  };
  if (os == Os::windows) {
    if (auto local = absolute("LOCALAPPDATA")) return *local / "cudnnenv" / "trees";
    return std::nullopt;
  }
  if (auto data = absolute("XDG_DATA_HOME")) return *data / "cudnnenv";
  if (auto home = absolute("HOME")) return *home / ".local" / "share" / "cudnnenv";
  if (auto home = util::account_home_folder()) return *home / ".local" / "share" / "cudnnenv";
  return std::nullopt;
}

fs::path Store::default_root(const util::Environment& environment, Os os) {
  if (auto root = environment.get("CUDNNENV_ROOT"); root && !root->empty()) {
    return util::path_from_utf8(*root);
  }
  if (os == Os::windows) {
    return fs::path("C:\\libs");
  }
  if (auto data = environment.get("XDG_DATA_HOME"); data && !data->empty()) {
    return util::path_from_utf8(*data) / "cudnnenv";
  }
  return util::path_from_utf8(environment.get("HOME").value_or("/")) / ".local" / "share" / "cudnnenv";
}

Result<void> Store::check_own_folder(const std::string& what) const {
  const auto others = own_folder_changeable_by_others(m_root);
  if (!others) return {};
  return make_error("cannot " + what + ": the store's own folder '" + util::to_utf8(state_dir()) +
                        "' can be changed by another user (" + *others +
                        "), who could swap what cudnnenv stages or removes there for a link",
                    "make it the store manager's alone (as its owner or root: chmod -R go-w " +
                        util::command_word(util::to_utf8(state_dir())) +
                        "), or use a store of your own (--root or CUDNNENV_ROOT)",
                    ExitCode::usage);
}

Result<void> Store::prepare() const {
  CUDNNENV_TRY(check_own_folder("write the store"));
  std::error_code ec;
  for (const char* sub : {"staging", "locks", "trash"}) {
    fs::create_directories(state_dir() / sub, ec);
    if (ec) {
      return make_error("cannot create '" + util::to_utf8(state_dir() / sub) + "': " + ec.message(),
                        "choose a writable store root with CUDNNENV_ROOT or --root");
    }
  }
  clean_leftovers();
  return {};
}

std::uint64_t Store::clean_leftovers() const {
  // What killed installs and removes left behind: a staging folder whose
  // tree lock nobody holds, and anything in the trash; never in a folder
  // another user can change.
  std::uint64_t freed = 0;
  if (own_folder_changeable_by_others(m_root)) return freed;
  const auto size_of = [](const fs::path& folder) {
    std::uint64_t bytes = 0;
    util::walk_directory(folder, [&](const util::DirectoryEntry& entry, int) {
      if (entry.is_regular_file && !entry.is_symlink) bytes += entry.size;
      return !entry.is_symlink;  // what a link leads to is not freed
    });
    return bytes;
  };
  for (const auto& entry : util::directory_entries(state_dir() / "staging")) {
    const fs::path lock_file = state_dir() / "locks" / (entry.path.filename().native() + fs::path(".lock").native());
    if (auto lock = util::FileLock::try_acquire(lock_file)) {
      const std::uint64_t bytes = size_of(entry.path);
      if (util::remove_tree(entry.path)) freed += bytes;
    }
  }
  for (const auto& entry : util::directory_entries(state_dir() / "trash")) {
    const std::uint64_t bytes = size_of(entry.path);
    if (util::remove_tree(entry.path)) freed += bytes;
  }
  return freed;
}

namespace {

// An install's failure while the store's folder was deleted under it reads as
// whatever step noticed first (a staged file gone: "an incomplete set"): say
// what happened instead.
Result<InstallOutcome> unless_root_vanished(const fs::path& root,
                                            const std::function<Result<InstallOutcome>()>& install) {
  std::error_code ec;
  const bool existed = fs::exists(root, ec);
  auto outcome = install();
  if (outcome || !existed || fs::exists(root, ec)) return outcome;
  return make_error("the store's folder '" + util::to_utf8(root) +
                        "' was removed while this install ran: nothing was installed (the step that failed: " +
                        outcome.error().message + ")",
                    "create the folder again (or give another --root), then run this again");
}

}  // namespace

Result<InstallOutcome> Store::install(const fs::path& source_path, const InstallOptions& options) {
  if (m_personal) {
    m_identities.reset();
    return personal_store().install(source_path, options);
  }
  return unless_root_vanished(m_root, [&] { return install_source(source_path, options); });
}

Result<InstallOutcome> Store::install_component(const std::vector<ComponentArchive>& archives,
                                                const ComponentInstallOptions& options) {
  if (m_personal) {
    m_identities.reset();
    return personal_store().install_component(archives, options);
  }
  return unless_root_vanished(m_root, [&] { return install_component_archives(archives, options); });
}

Result<InstallOutcome> Store::install_source(const fs::path& source_path, const InstallOptions& options) {
  const AtScopeEnd forget_listing([this] { m_identities.reset(); });  // the store changes
  CUDNNENV_TRY_ASSIGN(source, classify_source(source_path, options));
  // An archive is opened once: hashed and unpacked from this handle, never by its name again.
  util::FilePtr held;
  if (source->kind != SourceKind::folder) {
    CUDNNENV_TRY_ASSIGN(opened, util::open_held_file(source->path));
    held = std::move(*opened);
    source->record.size = util::file_size(held.get());
  }
  Provenance provenance(*source, options, held.get());
  if (options.require_official == RequireOfficial::yes) {
    CUDNNENV_TRY(provenance.settle(source->record));
  }

  CUDNNENV_TRY(prepare());
  CUDNNENV_TRY_ASSIGN(lock, util::FileLock::acquire(state_dir() / "locks" / (source->tree_name + ".lock")));
  std::error_code ec;
  fs::path tree_dir = m_root / util::path_from_utf8(source->tree_name);
  if (!source->provisional_name && fs::exists(fs::symlink_status(tree_dir, ec))) {
    CUDNNENV_TRY(provenance.settle(source->record));
    auto existing = read_record(tree_dir);
    if (existing && !source->record.sha256.empty() && existing->source.sha256 == source->record.sha256) {
      return InstallOutcome{InstallStatus::already_installed, std::move(*existing)};
    }
    if (options.name) {
      return make_error("'" + source->tree_name + "' is already in the store" +
                            (existing ? " (from '" + existing->source.path + "')" : std::string()),
                        "remove it first ('cudnnenv remove " + util::command_word(source->tree_name) +
                            "') or pick another name with --name");
    }
    // Another source of the same version and CUDA (a re-zipped copy, a wheel): the next free name.
    source->tree_name = free_tree_name(source->tree_name);
    tree_dir = m_root / util::path_from_utf8(source->tree_name);
  }

  // Holding the lock, any staging folder of this name is a killed install's.
  const fs::path staging = state_dir() / "staging" / util::path_from_utf8(source->tree_name);
  ScopedRemoval cleanup(staging);
  CUDNNENV_TRY_ASSIGN(staged, stage(*source, held.get(), staging, options.limits, options.unpack_progress));
  CUDNNENV_TRY_ASSIGN(layout, check_release(*staged, *source, options.platform));
  if (staged->extraction.wheel_metadata) {
    apply_wheel_metadata(*staged->extraction.wheel_metadata, source->name);
  }
  CUDNNENV_TRY_ASSIGN(
      versions,
      read_versions(layout->version_header.empty() ? fs::path()
                                                   : staged->tree_root / util::path_from_utf8(layout->version_header),
                    staged->tree_root / util::path_from_utf8(layout->main_library), source->name,
                    options.platform == host_platform(), options.probe, options.warn));
  CUDNNENV_TRY(check_release_files(*staged, *layout, {versions->version, true}, *source, options.platform));
  if (const auto note = expected_set(versions->version, options.platform.os).note; !note.empty()) {
    warn(options.warn, note);
  }
  CUDNNENV_TRY(provenance.settle(source->record));

  // A folder: its name now, from what it holds, under a lock of its own.
  std::optional<Result<util::FileLock>> final_lock;
  if (source->provisional_name) {
    source->tree_name = default_tree_name(versions->version, naming_cuda(*versions));
    final_lock.emplace(util::FileLock::acquire(state_dir() / "locks" / (source->tree_name + ".lock")));
    if (!*final_lock) return final_lock->error();
    tree_dir = m_root / util::path_from_utf8(source->tree_name);
    if (fs::exists(fs::symlink_status(tree_dir, ec))) {
      // The same archive again (by hash), or the same folder again: as an install of a named source would.
      auto existing = read_record(tree_dir);
      if (existing && !source->record.sha256.empty() && existing->source.sha256 == source->record.sha256) {
        return InstallOutcome{InstallStatus::already_installed, std::move(*existing)};
      }
      if (existing && existing->source.path == source->record.path) {
        return make_error("'" + source->tree_name + "' is already in the store (from '" + existing->source.path + "')",
                          "remove it first ('cudnnenv remove " + util::command_word(source->tree_name) +
                              "') or pick another name with --name");
      }
      source->tree_name = free_tree_name(source->tree_name);
      tree_dir = m_root / util::path_from_utf8(source->tree_name);
    }
  }

  TreeRecord record = new_record(source->tree_name, *layout, *versions, options.platform);
  record.source = source->record;
  for (const auto& file : staged->extraction.files) {
    FileRecord entry = file.record;
    entry.path = entry.path.substr(staged->strip.size());
    record.files.push_back(std::move(entry));
  }
  CUDNNENV_TRY(add_carried(staged->tree_root, record, options.carried));
  CUDNNENV_TRY(publish(staged->tree_root, record, tree_dir));
  record.root = tree_dir;
  return InstallOutcome{InstallStatus::installed, std::move(record)};
}

namespace {

// A folder `adopt --heal` made whole before is already in the store: its
// healed tree (a store folder of links) says so by its source, as an adopted
// folder says so by its location. Asked under the adoption lock.
Result<void> refuse_healed_again(const std::vector<TreeRecord>& trees, const fs::path& folder) {
  for (const auto& existing : trees) {
    if (existing.source.healed_from.empty() || !util::same_file(util::path_from_utf8(existing.source.path), folder)) {
      continue;
    }
    return make_error(
        "'" + util::to_utf8(folder) + "' is already healed as '" + existing.name +
            "' (its files, and what it lacked from '" + existing.source.healed_from + "')",
        "'cudnnenv list' shows it; 'cudnnenv remove " + util::command_word(existing.name) + "' forgets it");
  }
  return {};
}

}  // namespace

Result<util::FileLock> Store::adoption_lock() const {
  CUDNNENV_TRY(prepare());
  // No tree is named with a leading '.': this lock is no tree's.
  return util::FileLock::acquire(state_dir() / "locks" / ".adopt.lock");
}

Result<TreeRecord> Store::adopt(const fs::path& directory, const AdoptOptions& options) {
  if (m_personal) {
    m_identities.reset();
    return personal_store().adopt(directory, options);
  }
  const AtScopeEnd forget_listing([this] { m_identities.reset(); });  // the store changes
  CUDNNENV_TRY_ASSIGN(found, locate_adopted(directory, options.platform.os));
  // "Already adopted" is decided and acted on under one lock: parallel adopts of one copy register it once.
  CUDNNENV_TRY_ASSIGN(adopting, adoption_lock());
  // The same copy adopted through another folder (lib vs. the toolkit root) is still the same copy.
  std::error_code ec;
  const fs::path real_library =
      fs::weakly_canonical(found->location / util::path_from_utf8(found->layout.main_library), ec);
  for (const auto& existing : list().trees) {
    if (existing.location && fs::weakly_canonical(existing.library_path(), ec) == real_library) {
      return make_error(
          "'" + util::to_utf8(real_library) + "' is already adopted as '" + existing.name + "'",
          "'cudnnenv list' shows it; 'cudnnenv remove " + util::command_word(existing.name) + "' forgets it");
    }
  }
  CUDNNENV_TRY(refuse_healed_again(list().trees, found->location));
  CUDNNENV_TRY_ASSIGN(files, hash_adopted_files(*found, options.platform.os));
  if (options.heal) {
    CUDNNENV_TRY(check_binaries(*files, "", options.platform));
  } else {
    CUDNNENV_TRY(check_adopted_set(*found, *files, options.platform));
  }
  if (found->include_dir.empty()) {
    warn(options.warn, "no cuDNN headers found for '" + util::to_utf8(found->location) + "'");
  }
  CUDNNENV_TRY_ASSIGN(
      versions, read_versions(found->version_header, found->location / util::path_from_utf8(found->layout.main_library),
                              ArchiveName{}, options.platform == host_platform(), options.probe, options.warn));
  if (options.heal) {
    TreeLayout checked = found->layout;
    checked.include_dir = "include";
    auto missing =
        missing_files(found->location, checked, versions->version, options.platform.os, RequireImportLibs::no);
    std::erase_if(missing, [](const std::string& path) { return util::ends_with(path, ".h"); });
    if (!missing.empty()) return heal_adopted(*found, *versions, missing, options);
  }
  CUDNNENV_TRY(check_adopted_libraries(*found, {versions->version, true}, options.platform));
  if (const auto note = expected_set(versions->version, options.platform.os).note; !note.empty()) {
    warn(options.warn, note);
  }

  TreeRecord record = new_record(options.name.value_or(default_tree_name(versions->version, naming_cuda(*versions))),
                                 found->layout, *versions, options.platform);
  CUDNNENV_TRY(check_tree_name(record.name));
  const fs::path include_relative = found->include_dir.lexically_relative(found->location);
  record.layout.include_dir =
      found->include_dir.empty() ? std::string()
      : !include_relative.empty() && !util::starts_with(util::generic_utf8(include_relative), "..")
          ? util::generic_utf8(include_relative)
          : util::to_utf8(found->include_dir);
  record.location = util::to_utf8(found->location);
  record.source.kind = "adopted";
  record.source.path = util::to_utf8(found->location);
  for (auto& file : *files) {
    record.files.push_back(std::move(file.record));
  }

  return publish_adopted(std::move(record), options.name.has_value(), found->location);
}

Result<TreeRecord> Store::heal_adopted(const AdoptedFolders& found, const VersionFacts& versions,
                                       const std::vector<std::string>& missing, const AdoptOptions& options) {
  const Os os = options.platform.os;
  const Version& release = versions.version;
  std::vector<std::string> names;  // the missing libraries' file names
  for (const auto& path : missing) names.push_back(path.substr(path.rfind('/') + 1));
  const std::string folder = util::to_utf8(found.location);
  // The donor: a tree of the same release (and build, when both say) and CUDA major, holding every missing file.
  std::optional<TreeRecord> donor;
  for (const auto& tree : list().trees) {
    if (!tree.version.same_release(release) || (tree.version.build && release.build && tree.version != release))
      continue;
    if (versions.cuda && tree.cuda && versions.cuda->major != tree.cuda->major) continue;
    std::error_code ec;
    const fs::path library_dir = tree.resolve(tree.layout.library_dir);
    if (std::all_of(names.begin(), names.end(), [&](const std::string& name) {
          return fs::is_regular_file(library_dir / util::path_from_utf8(name), ec);
        })) {
      donor = tree;
      break;
    }
  }
  const std::string cuda_words = versions.cuda ? " for CUDA " + std::to_string(versions.cuda->major) : std::string();
  if (!donor) {
    const auto install = release_install_command(
        release, versions.cuda ? std::optional<int>(versions.cuda->major) : std::optional<int>());
    return make_error("'" + folder + "' lacks " + util::join(names, ", ") + " of cuDNN " + release.str() +
                          ", and no tree of cuDNN " + release.str() + cuda_words + " in the store has " +
                          (names.size() == 1 ? "it" : "them") + " to heal it from",
                      install ? *install + " && cudnnenv adopt --heal " + util::command_word(folder)
                              : "install cuDNN " + release.str() + "'s official archive" + cuda_words +
                                    ", then: cudnnenv adopt --heal " + util::command_word(folder),
                      ExitCode::not_found);
  }

  TreeLayout layout;
  layout.major = found.layout.major;
  layout.library_dir = os == Os::windows ? "bin" : "lib";
  layout.main_library =
      layout.library_dir + "/" + util::to_utf8(util::path_from_utf8(found.layout.main_library).filename());
  TreeRecord record = new_record(options.name.value_or(default_tree_name(release, naming_cuda(versions))), layout,
                                 versions, options.platform);
  CUDNNENV_TRY(check_tree_name(record.name));
  record.layout.include_dir = found.include_dir.empty() ? std::string() : util::to_utf8(found.include_dir);
  record.source.kind = "adopted";
  record.source.path = folder;
  record.source.healed_from = donor->name;

  std::error_code ec;
  CUDNNENV_TRY(publish_links(record, options.name.has_value(), [&](const fs::path& links) -> Result<void> {
    auto add = [&](const fs::path& target, const std::string& name, bool own) {
      return link_healed_file(links, target, name, own, os, folder, layout.library_dir, record.files);
    };
    for (const auto& entry : util::directory_entries(found.library_dir)) {
      const std::string name = util::to_utf8(entry.path.filename());
      if (entry.is_regular_file && is_cudnn_library_name(name, os)) CUDNNENV_TRY(add(entry.path, name, true));
    }
    const fs::path donor_dir = donor->resolve(donor->layout.library_dir);
    for (const auto& name : names) {
      CUDNNENV_TRY(add(fs::canonical(donor_dir / util::path_from_utf8(name), ec), name, false));
    }
    return {};
  }));
  warn(options.warn, "'" + folder + "' lacks " + util::join(names, ", ") + ": '" + record.name +
                         "' is a store folder of links to its files and " +
                         (names.size() == 1 ? "that file" : "those files") + " from '" + donor->name + "' (cuDNN " +
                         donor->version.str() + ")");
  return record;
}

std::vector<TreeRecord> Listing::of(TreeKind kind) const {
  std::vector<TreeRecord> trees;
  for (const auto& tree : beside) {
    if (tree.kind == kind) trees.push_back(tree);
  }
  return trees;
}

Listing Store::list(RecordPart part) const {
  if (part == RecordPart::identity && m_identities) return *m_identities;
  Listing listing = list_folder(m_root, part);
  if (m_personal) {
    // The user's trees first, each shadowing a tree of the same name.
    Listing mine = list_folder(*m_personal, part);
    for (auto* list : {&mine.trees, &mine.beside}) {
      for (auto& tree : *list) tree.personal = true;
    }
    const auto shadowed = [&mine](const TreeRecord& tree) {
      for (const auto* list : {&mine.trees, &mine.beside}) {
        for (const auto& each : *list) {
          if (each.name == tree.name) return true;
        }
      }
      return false;
    };
    for (auto* list : {&listing.trees, &listing.beside}) {
      list->erase(std::remove_if(list->begin(), list->end(), shadowed), list->end());
    }
    listing.trees.insert(listing.trees.begin(), mine.trees.begin(), mine.trees.end());
    listing.beside.insert(listing.beside.begin(), mine.beside.begin(), mine.beside.end());
    listing.damaged.insert(listing.damaged.end(), mine.damaged.begin(), mine.damaged.end());
  }
  if (part == RecordPart::identity) m_identities = listing;
  return listing;
}

Listing Store::list_folder(const fs::path& root, RecordPart part) const {
  Listing listing;
  std::error_code ec;
  for (const auto& entry : util::directory_entries(root)) {
    const std::string name = util::to_utf8(entry.path.filename());
    if (name.empty() || name.front() == '.' || !entry.is_directory) {
      continue;
    }
    if (!fs::exists(record_path(entry.path), ec)) {
      listing.unmanaged.push_back(name);
      continue;
    }
    auto record = read_record(entry.path, part);
    if (record) {
      (record->kind == TreeKind::cudnn ? listing.trees : listing.beside).push_back(std::move(*record));
    } else {
      listing.damaged.push_back(record.error());
    }
  }
  const auto newest_first = [](const TreeRecord& a, const TreeRecord& b) {
    if (a.version != b.version) {
      return a.version > b.version;
    }
    return a.name < b.name;
  };
  std::sort(listing.trees.begin(), listing.trees.end(), newest_first);
  std::sort(listing.beside.begin(), listing.beside.end(), [&](const TreeRecord& a, const TreeRecord& b) {
    const auto order_a = component_order(a.kind), order_b = component_order(b.kind);
    return order_a != order_b ? order_a < order_b : newest_first(a, b);
  });
  std::sort(listing.unmanaged.begin(), listing.unmanaged.end());
  return listing;
}

Result<TreeRecord> Store::find(const std::string& spec) const {
  const Listing listing = list();
  // A tree of another component by its name; a runtime tree by "cuda-11.8" / "cuda 11.8" for its release.
  for (const auto& tree : listing.beside) {
    if (tree.name == spec) return tree;
  }
  const auto runtimes = listing.runtimes();
  if (util::starts_with(spec, "cuda-") || util::starts_with(spec, "cuda ")) {
    if (const auto asked = parse_cuda_version(spec.substr(5))) {
      if (auto runtime = choose_runtime(runtimes, asked, std::nullopt)) return *runtime;
    }
    std::string installed;
    for (const auto& runtime : runtimes) installed += (installed.empty() ? "" : ", ") + runtime.name;
    return make_error(
        "no installed CUDA runtime matches '" + spec + "'",
        installed.empty() ? "'cudnnenv install cuda " + spec.substr(5) + "' fetches one" : "installed: " + installed,
        ExitCode::not_found);
  }
  // The one matcher (spec.hpp), strict: remove must name exactly one tree.
  CUDNNENV_TRY_ASSIGN(parsed, parse_spec(spec));
  return select_tree(listing.trees, *parsed, Match::strict);
}

Result<TreeRecord> Store::full_record(const TreeRecord& tree) const {
  if (m_personal && tree.personal) {
    auto record = read_record(*m_personal / util::path_from_utf8(tree.name));
    if (record) record->personal = true;
    return record;
  }
  return read_record(m_root / util::path_from_utf8(tree.name));
}

Result<void> Store::check_writable(const std::string& what) const {
  if (!m_personal) CUDNNENV_TRY(check_own_folder(what));
  std::error_code ec;
  const fs::path own = state_dir();
  for (const fs::path& folder : {m_root, own}) {
    if (fs::exists(folder, ec) && !util::is_writable_directory(folder)) {
      if (m_personal) {
        const auto owner = util::owner_name(m_root);
        return make_error("cannot " + what + ": the store '" + util::to_utf8(m_root) + "' belongs to " +
                              (owner ? *owner : std::string("another user")) + ": your own trees go to '" +
                              util::to_utf8(*m_personal) + "'",
                          "ask whoever manages that store; install or adopt a tree of your own, and it is yours");
      }
      return make_error("cannot " + what + ": the store '" + util::to_utf8(m_root) + "' is read-only for this user ('" +
                            util::to_utf8(folder) + "' cannot be written)",
                        "ask whoever manages that store, or use a store of your own (--root or CUDNNENV_ROOT)");
    }
  }
  return {};
}

Result<void> Store::remove(const TreeRecord& record) {
  const AtScopeEnd forget_listing([this] { m_identities.reset(); });  // the store changes
  if (m_personal && record.personal) return personal_store().remove(record);
  CUDNNENV_TRY(prepare());
  CUDNNENV_TRY_ASSIGN(lock, util::FileLock::acquire(state_dir() / "locks" / (record.name + ".lock")));
  // Holding the lock: a remove that raced with ours and won has left nothing.
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(m_root / util::path_from_utf8(record.name), ec))) {
    return make_error("'" + record.name + "' was already removed", "'cudnnenv list' shows what is installed",
                      ExitCode::not_found);
  }
  // Renamed into the trash first, the tree vanishes from 'list' at once even
  // if deleting its files takes a while or is interrupted.
  std::random_device random;
  const fs::path trash = state_dir() / "trash" /
                         util::path_from_utf8(record.name + "." + std::to_string(util::current_process_id()) + "." +
                                              std::to_string(random()));
  CUDNNENV_TRY(util::rename_directory(m_root / util::path_from_utf8(record.name), trash));
  if (!util::remove_tree(trash)) {
    return make_error("could not delete every file of '" + record.name + "' (left in '" + util::to_utf8(trash) + "')",
                      "a program may still have one of its libraries open: close it and delete the folder");
  }
  return {};
}

Result<InstallOutcome> Store::install_component_archives(const std::vector<ComponentArchive>& archives,
                                                         const ComponentInstallOptions& options) {
  const AtScopeEnd forget_listing([this] { m_identities.reset(); });  // the store changes
  const ComponentTrees& kind_of = *component(options.kind).trees;
  const std::string name = options.name.value_or(kind_of.default_name(options.release, false));
  CUDNNENV_TRY(check_tree_name(name));
  CUDNNENV_TRY(prepare());
  CUDNNENV_TRY_ASSIGN(lock, util::FileLock::acquire(state_dir() / "locks" / (name + ".lock")));
  std::error_code ec;
  const fs::path tree_dir = m_root / util::path_from_utf8(name);
  if (fs::exists(fs::symlink_status(tree_dir, ec))) {
    auto existing = read_record(tree_dir);
    if (existing && existing->kind == options.kind && existing->source.sha256 == options.manifest_sha256) {
      return InstallOutcome{InstallStatus::already_installed, std::move(*existing)};
    }
    return make_error(
        "'" + name + "' is already in the store" +
            (existing ? " (from '" + existing->source.path + "')" : std::string()),
        "remove it first ('cudnnenv remove " + util::command_word(name) + "') or pick another name with --name");
  }
  const fs::path staging = state_dir() / "staging" / util::path_from_utf8(name);
  util::remove_tree(staging);
  ScopedRemoval cleanup(staging);
  const fs::path content = staging / "content";
  fs::create_directories(content, ec);
  if (ec) return make_error("cannot create '" + util::to_utf8(content) + "': " + ec.message());

  std::vector<FileRecord> files;
  std::vector<ComponentRecord> components;
  for (const auto& archive : archives) {
    // Each component into a folder of its own, then its files moved into the
    // tree: two components shipping one name is an error, never an overwrite.
    const fs::path part = staging / "parts" / util::path_from_utf8(archive.component);
    fs::create_directories(part, ec);
    CUDNNENV_TRY_ASSIGN(kind, detect_source_kind(archive.file));
    // Opened once: hashed on a second core and unpacked from this handle; the bytes unpacked must be the
    // bytes the manifest names (the file was checked before, but its folder may be another's to write).
    CUDNNENV_TRY_ASSIGN(held, util::open_held_file(archive.file));
    auto hash = std::async(std::launch::async,
                           [file = held->get(), &archive] { return util::sha256_held_file(file, archive.file); });
    auto unpacked = [&]() -> Result<Extraction> {
      CUDNNENV_TRY_ASSIGN(reader, open_source(held->get(), archive.file, *kind));
      auto kept = kind_of.kept_entries(std::move(*reader), archive.component, options.platform.os);
      ExtractLimits limits = options.limits;
      limits.source_size = util::file_size(held->get());
      return extract(*kept, part, util::to_utf8(archive.file.filename()), limits, options.unpack_progress);
    }();
    CUDNNENV_TRY_ASSIGN(digest, hash.get());
    CUDNNENV_TRY_ASSIGN(extraction, std::move(unpacked));
    if (!archive.sha256.empty() && *digest != archive.sha256) {
      return make_error("'" + util::to_utf8(archive.file) +
                            "' changed after it was checked: the bytes read to "
                            "install it have the SHA-256 " +
                            *digest + ", the manifest says " + archive.sha256 + "; nothing was installed",
                        "something replaced the file meanwhile: check who can write its folder, then run this again");
    }
    CUDNNENV_TRY(check_binaries(extraction->files, "", options.platform));
    for (const auto& file : extraction->files) {
      const fs::path from = part / util::path_from_utf8(file.record.path);
      const fs::path to = content / util::path_from_utf8(file.record.path);
      if (fs::exists(fs::symlink_status(to, ec))) {
        return make_error(
            "two components of the release ship '" + file.record.path + "' (the second: " + archive.component + ")",
            "the manifest is not one release's: use NVIDIA's redistrib_<release>.json");
      }
      fs::create_directories(to.parent_path(), ec);
      fs::rename(from, to, ec);
      if (ec) return make_error("cannot move '" + util::to_utf8(from) + "' into the tree: " + ec.message());
      files.push_back(file.record);
    }
    components.push_back({archive.component, archive.version});
  }
  util::remove_tree(staging / "parts");
  CUDNNENV_TRY_ASSIGN(layout, kind_of.locate_layout(content, options.platform.os));
  CUDNNENV_TRY(kind_of.check_installed(content, *layout, options));
  TreeRecord record = kind_of.record(name, *layout, options.release, true, options.platform);
  record.version_from = "manifest";
  record.cuda_from = "manifest";
  if (!record.cuda && options.built_for) record.cuda = options.built_for;
  record.source.kind = "redist";
  record.source.path = options.manifest;
  record.source.sha256 = options.manifest_sha256;
  record.components = std::move(components);
  record.files = std::move(files);
  CUDNNENV_TRY(publish(content, record, tree_dir));
  record.root = tree_dir;
  return InstallOutcome{InstallStatus::installed, std::move(record)};
}

Result<TreeRecord> Store::adopt_component(TreeKind kind, const fs::path& directory, const AdoptOptions& options) {
  if (m_personal) {
    m_identities.reset();
    return personal_store().adopt_component(kind, directory, options);
  }
  const AtScopeEnd forget_listing([this] { m_identities.reset(); });  // the store changes
  const ComponentTrees& kind_of = *component(kind).trees;
  std::error_code ec;
  const fs::path location = fs::weakly_canonical(fs::absolute(directory, ec), ec);
  CUDNNENV_TRY_ASSIGN(layout, kind_of.locate_layout(location, options.platform.os));
  CUDNNENV_TRY_ASSIGN(adopting, adoption_lock());  // as in adopt
  auto warn_unmet = [&](Result<TreeRecord> adopted) -> Result<TreeRecord> {
    if (!adopted || kind != TreeKind::cuda) return adopted;
    const auto unmet = unmet_runtime_needs(adopted->resolve(adopted->layout.library_dir), options.platform.os);
    if (!unmet.empty()) {
      warn(options.warn, "'" + util::to_utf8(location) + "' lacks " + describe_unmet(unmet) +
                             ": a program started with '" + adopted->name + "' is refused before it starts (" +
                             "with --verify none, " + unmet_loads_unchecked(unmet, options.platform.os) + "); " +
                             runtime_heal_hint(*adopted, has_heal_donor(*adopted, unmet, list().of(kind))));
    }
    return adopted;
  };
  CUDNNENV_TRY(refuse_healed_again(list().of(kind), location));
  if (options.heal && kind == TreeKind::cuda) {
    std::map<std::string, fs::path> own;  // the first folder's file of a name
    for (const auto& folder : kind_of.library_folders(location, options.platform.os)) {
      for (const auto& name : kind_of.library_files(folder, options.platform.os)) {
        own.emplace(name, folder / util::path_from_utf8(name));
      }
    }
    if (!unmet_runtime_needs(own, options.platform.os).empty()) {
      return heal_component(kind, location, *layout, own, options);
    }
  }
  if (kind_of.library_folders(location, options.platform.os).size() > 1) {
    return warn_unmet(adopt_component_folders(kind, location, *layout, options));
  }
  const fs::path library_dir = location / util::path_from_utf8(layout->library_dir);
  for (const auto& existing : list().of(kind)) {
    if (existing.location && util::same_file(existing.resolve(existing.layout.library_dir), library_dir)) {
      return make_error(
          "'" + util::to_utf8(library_dir) + "' is already adopted as '" + existing.name + "'",
          "'cudnnenv list' shows it; 'cudnnenv remove " + util::command_word(existing.name) + "' forgets it");
    }
  }
  // The release: what the main library says of itself (NCCL), or a
  // library's full name (libcudart.so.13.0.96: major and minor); else the major alone.
  Version release = layout->release.value_or(Version{layout->major, 0, 0, std::nullopt});
  bool minor_known = layout->release.has_value();
  std::vector<FileRecord> files;
  const std::string prefix = layout->library_dir.empty() ? "" : layout->library_dir + "/";
  for (const auto& name : kind_of.library_files(library_dir, options.platform.os)) {
    const fs::path path = library_dir / util::path_from_utf8(name);
    CUDNNENV_TRY_ASSIGN(hash, util::sha256_file(path));
    FileRecord file;
    file.path = prefix + name;
    file.size = fs::file_size(path, ec);
    file.sha256 = *hash;
    if (fs::is_symlink(path, ec)) file.link = util::generic_utf8(fs::read_symlink(path, ec));
    files.push_back(std::move(file));
    if (const auto named = kind_of.release_in_name(name, layout->major)) {
      release = *named;
      minor_known = true;
    }
  }
  TreeRecord record = kind_of.record(options.name.value_or(kind_of.default_name(release, !minor_known)), *layout,
                                     release, minor_known, options.platform);
  CUDNNENV_TRY(check_tree_name(record.name));
  record.version_from = minor_known ? "library" : "name";
  record.cuda_from = record.version_from;
  record.location = util::to_utf8(location);
  record.source.kind = "adopted";
  record.source.path = util::to_utf8(location);
  record.files = std::move(files);

  return warn_unmet(publish_adopted(std::move(record), options.name.has_value(), location));
}

Result<TreeRecord> Store::heal_component(TreeKind kind, const fs::path& location, const TreeLayout& found,
                                         const std::map<std::string, fs::path>& own, const AdoptOptions& options) {
  const ComponentTrees& kind_of = *component(kind).trees;
  const Os os = options.platform.os;
  const std::string folder = util::to_utf8(location);
  const fs::path main_file = location / util::path_from_utf8(found.main_library);
  // The release: a library's full name (libcudart.so.13.0.96) says major and minor; else the major alone.
  std::optional<Version> named;
  for (const auto& [name, path] : own) {
    if (const auto in_name = kind_of.release_in_name(name, found.major)) named = in_name;
  }
  const Version release = named.value_or(Version{found.major, 0, 0, std::nullopt});
  // The donor: a runtime of the same release (major and minor where the name says it) whose folder holds every
  // library the folder's libraries need, and every one those need in turn.
  std::optional<TreeRecord> donor;
  std::map<std::string, fs::path> taken;
  std::vector<std::string> lacked;
  for (const auto& name_and_need : unmet_runtime_needs(own, os)) lacked.push_back(name_and_need.name);
  for (const auto& tree : list().of(kind)) {
    if (tree.version.major != release.major || (named && tree.version.minor != release.minor)) continue;
    const fs::path donor_dir = tree.resolve(tree.layout.library_dir);
    std::map<std::string, fs::path> files = own, added;
    bool whole = true;
    for (auto unmet = unmet_runtime_needs(files, os); whole && !unmet.empty(); unmet = unmet_runtime_needs(files, os)) {
      for (const auto& need : unmet) {
        std::error_code ec;
        const fs::path path = donor_dir / util::path_from_utf8(need.name);
        if (!fs::is_regular_file(path, ec)) {
          whole = false;
          break;
        }
        files[need.name] = added[need.name] = fs::canonical(path, ec);
      }
    }
    if (whole) {
      donor = tree;
      taken = std::move(added);
      break;
    }
  }
  const std::string release_words =
      "CUDA " +
      (named ? std::to_string(release.major) + "." + std::to_string(release.minor) : std::to_string(release.major));
  if (!donor) {
    return make_error("'" + folder + "' lacks " + util::join(lacked, ", ") + ", and no " + release_words +
                          " runtime in the store has " + (lacked.size() == 1 ? "it" : "them") + " to heal it from",
                      "cudnnenv install cuda " +
                          (named ? std::to_string(release.major) + "." + std::to_string(release.minor)
                                 : std::to_string(release.major)) +
                          " && cudnnenv adopt --heal " + util::command_word(folder) +
                          (options.name ? " --name " + util::command_word(*options.name) : std::string()),
                      ExitCode::not_found);
  }
  CUDNNENV_TRY_ASSIGN(made, linked_record(kind_of, options, found, main_file, release, named.has_value()));
  TreeRecord record = std::move(*made);
  const TreeLayout& layout = record.layout;
  record.source.path = folder;
  record.source.healed_from = donor->name;
  CUDNNENV_TRY(publish_links(record, options.name.has_value(), [&](const fs::path& links) -> Result<void> {
    auto add = [&](const fs::path& target, const std::string& name, bool own) {
      return link_healed_file(links, target, name, own, os, folder, layout.library_dir, record.files);
    };
    for (const auto& [name, path] : own) CUDNNENV_TRY(add(path, name, true));
    for (const auto& [name, path] : taken) CUDNNENV_TRY(add(path, name, false));
    return {};
  }));
  std::vector<std::string> names;
  for (const auto& [name, path] : taken) names.push_back(name);
  warn(options.warn, "'" + folder + "' lacks " + util::join(names, ", ") + ": '" + record.name +
                         "' is a store folder of links to its files and " +
                         (names.size() == 1 ? "that file" : "those files") + " from '" + donor->name + "' (" +
                         release_words + ")");
  return record;
}

Result<TreeRecord> Store::adopt_component_folders(TreeKind kind, const fs::path& location, const TreeLayout& found,
                                                  const AdoptOptions& options) {
  const ComponentTrees& kind_of = *component(kind).trees;
  const Os os = options.platform.os;
  const auto folders = kind_of.library_folders(location, os);
  for (const auto& existing : list().of(kind)) {
    if (!existing.location && existing.source.kind == "adopted" &&
        util::same_file(util::path_from_utf8(existing.source.path), location)) {
      return make_error(
          "'" + util::to_utf8(location) + "' is already adopted as '" + existing.name + "'",
          "'cudnnenv list' shows it; 'cudnnenv remove " + util::command_word(existing.name) + "' forgets it");
    }
  }
  const fs::path main_file = location / util::path_from_utf8(found.main_library);
  const auto named = kind_of.release_in_name(util::to_utf8(main_file.filename()), found.major);
  const Version release = named.value_or(Version{found.major, 0, 0, std::nullopt});
  CUDNNENV_TRY_ASSIGN(made, linked_record(kind_of, options, found, main_file, release, named.has_value()));
  TreeRecord record = std::move(*made);
  const TreeLayout& layout = record.layout;
  record.source.path = util::to_utf8(location);

  std::error_code ec;
  CUDNNENV_TRY(publish_links(record, options.name.has_value(), [&](const fs::path& links) -> Result<void> {
    // One folder of links to the files where they are (Linux: symbolic links;
    // Windows: hard links, which need the store's volume), so that the runtime
    // has one folder to pin, as every other tree.
    std::set<std::string> linked;
    for (const auto& folder : folders) {
      for (const auto& name : kind_of.library_files(folder, os)) {
        if (!linked.insert(os == Os::windows ? util::to_lower(name) : name).second) continue;  // the first folder's
        const fs::path target = folder / util::path_from_utf8(name);
        const fs::path link = links / util::path_from_utf8(name);
        if (os == Os::windows) {
          fs::create_hard_link(target, link, ec);
        } else {
          fs::create_symlink(target, link, ec);
        }
        if (ec) {
          return make_error("cannot link '" + util::to_utf8(target) + "' into the store: " + ec.message(),
                            os == Os::windows ? "a hard link needs the store (--root) on the same drive as '" +
                                                    util::to_utf8(location) + "'; or adopt each folder by itself"
                                              : "adopt each folder by itself");
        }
        CUDNNENV_TRY_ASSIGN(hash, util::sha256_file(target));
        record.files.push_back({layout.library_dir + "/" + name, fs::file_size(target, ec), *hash, {}});
      }
    }
    return {};
  }));
  return record;
}

Result<void> Store::publish_links(TreeRecord& record, bool named,
                                  const std::function<Result<void>(const fs::path& links)>& fill) {
  CUDNNENV_TRY(prepare());
  CUDNNENV_TRY_ASSIGN(lock, util::FileLock::acquire(state_dir() / "locks" / (record.name + ".lock")));
  if (!named) record.name = free_tree_name(record.name);
  const fs::path tree_dir = m_root / util::path_from_utf8(record.name);
  std::error_code ec;
  if (fs::exists(fs::symlink_status(tree_dir, ec))) {
    return make_error("'" + record.name + "' is already in the store", "pick another name with --name");
  }
  const fs::path staging = state_dir() / "staging" / util::path_from_utf8(record.name);
  util::remove_tree(staging);
  ScopedRemoval cleanup(staging);
  const fs::path links = staging / util::path_from_utf8(record.layout.library_dir);
  fs::create_directories(links, ec);
  CUDNNENV_TRY(fill(links));
  CUDNNENV_TRY(publish(staging, record, tree_dir));
  record.root = tree_dir;
  return {};
}

Result<TreeRecord> Store::publish_adopted(TreeRecord record, bool named, const fs::path& location) {
  const AtScopeEnd forget_listing([this] { m_identities.reset(); });
  std::error_code ec;
  CUDNNENV_TRY(prepare());
  CUDNNENV_TRY_ASSIGN(lock, util::FileLock::acquire(state_dir() / "locks" / (record.name + ".lock")));
  if (!named) record.name = free_tree_name(record.name);
  const fs::path tree_dir = m_root / util::path_from_utf8(record.name);
  if (fs::exists(fs::symlink_status(tree_dir, ec))) {
    return make_error("'" + record.name + "' is already in the store", "pick another name with --name");
  }
  const fs::path staging = state_dir() / "staging" / util::path_from_utf8(record.name);
  util::remove_tree(staging);
  ScopedRemoval cleanup(staging);
  CUDNNENV_TRY(publish(staging, record, tree_dir));
  record.root = location;
  return record;
}

}  // namespace cudnnenv
