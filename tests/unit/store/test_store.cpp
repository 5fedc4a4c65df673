#include <doctest/doctest.h>

#include <system_error>

#include "store/layout.hpp"
#include "store/store.hpp"
#include "support.hpp"
#include "util/fs.hpp"
#include "util/sha256.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;
using test::FakeTree;
using test::FileMap;
using test::Item;
using test::TreeStyle;

namespace {

const Platform k_windows{Os::windows, Arch::x86_64};
const Platform k_linux{Os::linux, Arch::x86_64};

struct Warnings {
  std::vector<std::string> messages;
  WarningSink sink() {
    return [this](const std::string& message) { messages.push_back(message); };
  }
  bool any_contains(const std::string& text) const {
    for (const auto& message : messages) {
      if (message.find(text) != std::string::npos) {
        return true;
      }
    }
    return false;
  }
};

// A store whose root has spaces and Chinese characters, as users' do.
Store make_store() {
  return Store(test::test_dir() / "store root 库");
}

InstallOptions options_for(Platform platform, Warnings* warnings = nullptr) {
  InstallOptions options;
  options.platform = platform;
  options.probe = test::child_probe();  // only ever called for trees built for this host
  if (warnings) {
    options.warn = warnings->sink();
  }
  return options;
}

FileMap windows_8_1() {
  FakeTree spec;
  spec.library = "fake-pe64-8.1.0.dll";
  return test::fake_tree(spec);
}

// The host's own kind of fake 9.1.0 library, loadable by the probe.
FakeTree host_tree_9_1() {
  FakeTree spec;
  spec.os = host_platform().os;
  spec.major = 9;
  spec.header_version = "9.1.0";
  spec.library = spec.os == Os::windows ? "fake-pe64-9.1.0.dll" : "fake-elf64-9.1.0.so";
  spec.style = TreeStyle::archive;
  return spec;
}

// The pip wheel nvidia-cudnn-cu12 9.1.0.70, for Linux x86_64.
FakeTree linux_wheel_9_1() {
  FakeTree spec;
  spec.os = Os::linux;
  spec.major = 9;
  spec.header_version = "9.1.0";
  spec.library = "fake-elf64-9.1.0.so";
  spec.style = TreeStyle::wheel;
  spec.wheel_metadata_name = "nvidia-cudnn-cu12";
  spec.wheel_version = "9.1.0.70";
  return spec;
}

std::string error_of(const Result<InstallOutcome>& result) {
  REQUIRE_FALSE(result);
  CHECK(result.error().message.find('\n') == std::string::npos);  // one line
  CHECK_FALSE(result.error().hint.empty());
  return result.error().message;
}

}  // namespace

TEST_SUITE("store/store") {
  TEST_CASE("a legacy Windows zip installs with version, build and CUDA from its name") {
    Store store = make_store();
    const FileMap files = windows_8_1();
    test::write_zip("cudnn-11.2-windows-x64-v8.1.0.77.zip", files);
    Warnings warnings;
    auto outcome = store.install("cudnn-11.2-windows-x64-v8.1.0.77.zip", options_for(k_windows, &warnings));
    REQUIRE_MESSAGE(outcome, (outcome ? "" : outcome.error().message));
    CHECK(outcome->status == InstallStatus::installed);
    const TreeRecord& record = outcome->record;
    // The short name (#22): the version and the CUDA variant the archive's name says.
    CHECK(record.name == "8.1.0.77-cuda11.2");
    CHECK(record.version.str() == "8.1.0.77");
    CHECK(record.version_from == "header");
    CHECK(record.cuda->str() == "11.2");
    // The library is asked where it can load (a Windows host): it says 11.2 too.
    CHECK(record.cuda_from == (host_platform() == k_windows ? "library" : "name"));
    CHECK(record.platform == k_windows);
    CHECK(record.layout.main_library == "cuda/bin/cudnn64_8.dll");
    CHECK(record.files.size() == files.size());
    // Named like the official 8.1.0.77 zip, but these bytes are a test's own.
    CHECK(warnings.any_contains("has the name of an official archive but not its SHA-256"));

    // The archive's inner layout is kept, as every tutorial expects.
    const fs::path tree = store.root() / "8.1.0.77-cuda11.2";
    CHECK(fs::is_regular_file(tree / "cuda" / "bin" / "cudnn64_8.dll"));
    CHECK(fs::is_regular_file(tree / ".cudnnenv" / "tree.toml"));
    CHECK(record.library_path() == tree / "cuda" / "bin" / "cudnn64_8.dll");
    auto hash = util::sha256_file(test::fixture("fake-pe64-8.1.0.dll"));
    for (const auto& file : record.files) {
      if (file.path == "cuda/bin/cudnn64_8.dll") {
        CHECK(file.sha256 == *hash);
      }
    }

    const Listing listing = store.list();
    REQUIRE(listing.trees.size() == 1);
    CHECK(listing.trees[0].version.str() == "8.1.0.77");
    CHECK(listing.trees[0].files.size() == files.size());
    CHECK(fs::is_empty(store.root() / ".cudnnenv" / "staging"));
  }

  TEST_CASE("the same archive twice is a no-op; another of that version and CUDA is the next name; --name refuses") {
    Store store = make_store();
    test::write_zip("cudnn-11.2-windows-x64-v8.1.0.77.zip", windows_8_1());
    REQUIRE(store.install("cudnn-11.2-windows-x64-v8.1.0.77.zip", options_for(k_windows)));
    auto again = store.install("cudnn-11.2-windows-x64-v8.1.0.77.zip", options_for(k_windows));
    REQUIRE(again);
    CHECK(again->status == InstallStatus::already_installed);

    FileMap changed = windows_8_1();
    changed["cuda/extra.txt"] = Item{"different archive, same name\n"};
    fs::create_directory("other");
    test::write_zip("other/cudnn-11.2-windows-x64-v8.1.0.77.zip", changed);
    InstallOptions named = options_for(k_windows);
    named.name = "8.1.0.77-cuda11.2";
    const std::string message = error_of(store.install("other/cudnn-11.2-windows-x64-v8.1.0.77.zip", named));
    CHECK(message == "'8.1.0.77-cuda11.2' is already in the store (from '" +
                         util::to_utf8(fs::absolute("cudnn-11.2-windows-x64-v8.1.0.77.zip")) + "')");
    CHECK(store.list().trees.size() == 1);
    auto second = store.install("other/cudnn-11.2-windows-x64-v8.1.0.77.zip", options_for(k_windows));
    REQUIRE_MESSAGE(second, (second ? "" : second.error().message));
    CHECK(second->record.name == "8.1.0.77-cuda11.2-2");
    CHECK(store.list().trees.size() == 2);
  }

  TEST_CASE("an archive whose top folder has the archive's name becomes the tree itself") {
    Store store = make_store();
    FakeTree spec;
    spec.major = 9;
    spec.header_version = "9.1.0";
    spec.library = "fake-pe64-9.1.0.dll";
    spec.style = TreeStyle::archive;
    spec.prefix = "cudnn-windows-x86_64-9.1.0.70_cuda12-archive";
    test::write_zip(spec.prefix + ".zip", test::fake_tree(spec));
    auto outcome = store.install(spec.prefix + ".zip", options_for(k_windows));
    REQUIRE_MESSAGE(outcome, (outcome ? "" : outcome.error().message));
    CHECK(outcome->record.layout.main_library == "bin/cudnn64_9.dll");
    // The name says 12; a Windows host asks the library, which says 12.2.
    CHECK(outcome->record.cuda->str() == (host_platform() == k_windows ? "12.2" : "12"));
    CHECK(fs::is_regular_file(store.root() / "9.1.0.70-cuda12" / "bin" / "cudnn64_9.dll"));
  }

  TEST_CASE("a wheel whose file name says nothing takes version and CUDA from its metadata") {
    Store store = make_store();
    const FakeTree spec = linux_wheel_9_1();
    test::write_zip("renamed-copy.whl", test::fake_tree(spec));
    InstallOptions options = options_for(k_linux);
    options.probe = {};  // a library that cannot be asked (another platform's)
    auto outcome = store.install("renamed-copy.whl", options);
    REQUIRE_MESSAGE(outcome, (outcome ? "" : outcome.error().message));
    CHECK(outcome->record.source.kind == "wheel");
    CHECK(outcome->record.layout.main_library == "nvidia/cudnn/lib/libcudnn.so.9");
    CHECK(outcome->record.version.str() == "9.1.0.70");
    CHECK(outcome->record.cuda->str() == "12");
    CHECK(outcome->record.cuda_from == "metadata");
  }

  TEST_CASE("CUDA is what the library says when it can be asked: one version in list, verify and the name") {
    Warnings warnings;
    FakeTree spec;
    spec.os = host_platform().os;
    spec.major = 9;
    spec.header_version = "9.1.0";
    spec.library = spec.os == Os::windows ? "fake-pe64-9.1.0.dll" : "fake-elf64-9.1.0.so";  // built with CUDA 12.2
    spec.style = TreeStyle::wheel;
    spec.wheel_version = "9.1.0.70";

    SUBCASE("the metadata's major agrees: the library's full version") {
      Store store = make_store();
      spec.wheel_metadata_name = "nvidia-cudnn-cu12";
      test::write_zip("renamed-copy.whl", test::fake_tree(spec));
      auto outcome = store.install("renamed-copy.whl", options_for(host_platform(), &warnings));
      REQUIRE_MESSAGE(outcome, (outcome ? "" : outcome.error().message));
      CHECK(outcome->record.cuda->str() == "12.2");
      CHECK(outcome->record.cuda_from == "library");
      CHECK_FALSE(warnings.any_contains("CUDA"));
    }
    SUBCASE("the metadata says another CUDA: the library wins, with a warning") {
      Store store = make_store();
      spec.wheel_metadata_name = "nvidia-cudnn-cu11";
      test::write_zip("cu11-copy.whl", test::fake_tree(spec));
      auto outcome = store.install("cu11-copy.whl", options_for(host_platform(), &warnings));
      REQUIRE_MESSAGE(outcome, (outcome ? "" : outcome.error().message));
      CHECK(outcome->record.cuda->str() == "12.2");
      CHECK(warnings.any_contains(
          "the wheel's metadata says CUDA 11 but the library was built with CUDA 12.2: keeping 12.2"));
    }
    SUBCASE("an adopted folder named cuda-11.8 is named from its library") {
      Store store = make_store();
      spec.style = TreeStyle::archive;
      test::write_folder("cuda-11.8", test::fake_tree(spec));
      AdoptOptions options;
      options.platform = host_platform();
      options.probe = test::child_probe();
      options.warn = warnings.sink();
      auto record = store.adopt("cuda-11.8", options);
      REQUIRE_MESSAGE(record, (record ? "" : record.error().message));
      CHECK(record->name == "9.1.0-cuda12");  // one scheme with install: the cudart's major
      CHECK(record->cuda->str() == "12.2");
    }
  }

  TEST_CASE("a folder whose name says nothing takes CUDA from the library, read in a child process") {
    Store store = make_store();
    test::write_folder("my cudnn", test::fake_tree(host_tree_9_1()));
    auto outcome = store.install("my cudnn", options_for(host_platform()));
    REQUIRE_MESSAGE(outcome, (outcome ? "" : outcome.error().message));
    CHECK(outcome->record.name == "9.1.0-cuda12");  // named from what it holds, not "my cudnn"
    CHECK(outcome->record.source.kind == "folder");
    CHECK(outcome->record.version.str() == "9.1.0");
    CHECK(outcome->record.cuda->str() == "12.2");  // the fake's cudnnGetCudartVersion() is 12020
    CHECK(outcome->record.cuda_from == "library");
    CHECK(fs::is_directory("my cudnn"));  // the source folder stays
  }

  TEST_CASE("headers of one release with libraries of another are refused") {
    Store store = make_store();
    FakeTree spec = host_tree_9_1();
    spec.header_version = "9.2.0";
    test::write_folder("mixed", test::fake_tree(spec));
    const std::string message = error_of(store.install("mixed", options_for(host_platform())));
    CHECK(message ==
          "the headers say cuDNN 9.2.0 but '" + main_library_name(9, host_platform().os) + "' reports 9.1.0");
    CHECK(store.list().trees.empty());
  }

  TEST_CASE("bad archives are refused with one clear line and the store is left as it was") {
    Store store = make_store();
    test::write_zip("cudnn-11.2-windows-x64-v8.1.0.77.zip", windows_8_1());
    REQUIRE(store.install("cudnn-11.2-windows-x64-v8.1.0.77.zip", options_for(k_windows)));
    const std::string before = test::snapshot(store.root());
    const std::string name = "cudnn-11.0-windows-x64-v8.0.5.39.zip";  // a different tree name each time
    std::string expected;
    Platform platform = k_windows;
    FileMap files = windows_8_1();
    bool truncate = false;

    SUBCASE("truncated zip") {
      truncate = true;
      expected = "'" + util::to_utf8(fs::absolute(name)) +
                 "' is not a valid zip archive: no end of central directory (truncated?)";
    }
    SUBCASE("entry climbing out with ../") {
      files["../evil.dll"] = Item{"evil"};
      expected = "the archive entry '../evil.dll' climbs out of the tree with '..'";
    }
    SUBCASE("entry with an absolute path") {
      files["/tmp/evil.dll"] = Item{"evil"};
      expected = "the archive entry '/tmp/evil.dll' has an absolute path";
    }
    SUBCASE("symbolic link leading out") {
      files["cuda/bin/evil.dll"] = Item{"", "../../../../../etc/passwd", 0120777};
      expected = "the link 'cuda/bin/evil.dll' -> '../../../../../etc/passwd' leads out of the tree";
    }
    SUBCASE("a 32-bit DLL in a Windows x64 archive") {
      files["cuda/bin/cudnn_ops_infer64_8.dll"] = Item{test::read_binary(test::fixture("fake-pe32-8.1.0.dll"))};
      expected = "'cuda/bin/cudnn_ops_infer64_8.dll' is PE 32-bit x86 (Machine 0x14c), not Windows x64";
    }
    SUBCASE("incomplete 8.x set: a DLL missing") {
      files.erase("cuda/bin/cudnn_adv_train64_8.dll");
      expected = "incomplete cuDNN 8 set for Windows x64: missing 'cuda/bin/cudnn_adv_train64_8.dll'";
    }
    SUBCASE("incomplete 8.x set: an import library missing") {
      files.erase("cuda/lib/x64/cudnn_cnn_train64_8.lib");
      expected = "incomplete cuDNN 8 set for Windows x64: missing 'cuda/lib/x64/cudnn_cnn_train64_8.lib'";
    }
    SUBCASE("a Linux tree offered to a Windows store") {
      platform = k_windows;
      files = test::fake_tree(linux_wheel_9_1());
      expected = "'nvidia/cudnn/lib/libcudnn.so.9' is ELF 64-bit x86_64, not Windows x64";
    }

    test::write_zip(name, files);
    if (truncate) {
      const std::string bytes = test::read_binary(name);
      util::FilePtr file = util::open_file(name, "wb");
      std::fwrite(bytes.data(), 1, bytes.size() / 2, file.get());
    }
    CAPTURE(expected);
    const std::string message = error_of(store.install(name, options_for(platform)));
    CHECK(message == expected);
    CHECK(test::snapshot(store.root()) == before);
  }

  TEST_CASE("an archive for another OS is refused by its name before anything is unpacked") {
    Store store = make_store();
    test::write_zip("cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip", windows_8_1());
    const std::string message =
        error_of(store.install("cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip", options_for(k_linux)));
    CHECK(message ==
          "'cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip' is a Windows x64 archive; this store holds "
          "Linux x86_64 trees");
  }

  TEST_CASE("--require-official refuses an archive whose hash is unknown") {
    Store store = make_store();
    test::write_zip("cudnn-11.2-windows-x64-v8.1.0.77.zip", windows_8_1());
    InstallOptions options = options_for(k_windows);
    Warnings warnings;
    options.warn = warnings.sink();
    options.require_official = RequireOfficial::yes;
    const std::string message = error_of(store.install("cudnn-11.2-windows-x64-v8.1.0.77.zip", options));
    CHECK(message == "'cudnn-11.2-windows-x64-v8.1.0.77.zip' is not a known official cuDNN archive");
    // Same name as the official 8.1.0.77 zip, different bytes: the warning says so.
    CHECK(warnings.any_contains("has the name of an official archive but not its SHA-256 (expected f5a23402ebed5b2a"));
    CHECK(store.list().trees.empty());
  }

#ifndef _WIN32
  TEST_CASE("a Linux tarball with soname links installs; the links stay links") {
    Store store = make_store();
    FakeTree spec = host_tree_9_1();
    spec.prefix = "cudnn-linux-x86_64-9.1.0.70_cuda12-archive";
    test::write_tar(spec.prefix + ".tar.xz", test::fake_tree(spec));
    auto outcome = store.install(spec.prefix + ".tar.xz", options_for(k_linux));
    REQUIRE_MESSAGE(outcome, (outcome ? "" : outcome.error().message));
    CHECK(outcome->record.source.kind == "tar");
    CHECK(outcome->record.layout.main_library == "lib/libcudnn.so.9");
    CHECK(outcome->record.version.str() == "9.1.0.70");
    const fs::path tree = store.root() / "9.1.0.70-cuda12";
    CHECK(fs::is_symlink(tree / "lib" / "libcudnn.so.9"));
    CHECK(fs::read_symlink(tree / "lib" / "libcudnn.so.9") == "libcudnn.so.9.1.0");
    CHECK(fs::is_regular_file(tree / "lib" / "libcudnn.so.9"));
  }

  TEST_CASE("bad tarballs are refused and the store is left as it was") {
    const std::string name = "cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz";
    Store store = make_store();
    if (store.list().trees.empty()) {  // doctest re-enters once per SUBCASE
      test::write_folder("good", test::fake_tree(host_tree_9_1()));
      REQUIRE(store.install("good", options_for(k_linux)));
    }
    const std::string before = test::snapshot(store.root());
    FileMap files = test::fake_tree(host_tree_9_1());
    std::string expected;
    bool truncate = false;
    SUBCASE("truncated .tar.xz") {
      std::string noise;
      for (int i = 0; i < 200000; ++i) {
        noise += static_cast<char>((i * 2654435761u) >> 24);
      }
      files["lib/padding.bin"] = Item{noise};
      truncate = true;
      expected = "'" + util::to_utf8(fs::absolute(name)) + "' is damaged: Lzma library error:  No progress is possible";
    }
    SUBCASE("symbolic link leading out") {
      files["lib/libcudnn_ops.so.9"] = Item{"", "/usr/lib/x86_64-linux-gnu/libc.so.6", 0120777};
      expected =
          "the link 'lib/libcudnn_ops.so.9' -> '/usr/lib/x86_64-linux-gnu/libc.so.6' leads out of the tree (absolute "
          "target)";
    }
    SUBCASE("absolute entry") {
      files["/etc/cron.d/evil"] = Item{"evil"};
      expected = "the archive entry '/etc/cron.d/evil' has an absolute path";
    }
    SUBCASE("device file") {
      files["lib/null"] = Item{"", "", 0020644};
      expected = "'" + name + "' holds a character device at 'lib/null'";
    }
    test::write_tar(name, files);
    if (truncate) {
      const std::string bytes = test::read_binary(name);
      util::FilePtr file = util::open_file(name, "wb");
      std::fwrite(bytes.data(), 1, bytes.size() * 2 / 3, file.get());
    }
    CAPTURE(expected);
    const std::string message = error_of(store.install(name, options_for(k_linux)));
    CHECK(message == expected);
    CHECK(test::snapshot(store.root()) == before);
  }
#endif

  TEST_CASE("adopt registers a folder in place; remove forgets it and leaves its files") {
    Store store = make_store();
    test::write_folder("elsewhere", test::fake_tree(host_tree_9_1()));
    AdoptOptions options;
    options.probe = test::child_probe();
    options.name = "system-9.1";
    auto record = store.adopt("elsewhere", options);
    REQUIRE_MESSAGE(record, (record ? "" : record.error().message));
    CHECK(record->location.has_value());
    CHECK(record->version.str() == "9.1.0");
    CHECK(record->cuda->str() == "12.2");
    CHECK(record->library_path() == fs::canonical("elsewhere") / util::path_from_utf8(record->layout.main_library));
    REQUIRE(store.list().trees.size() == 1);
    CHECK(store.list().trees[0].root == fs::canonical("elsewhere"));

    auto again = store.adopt("elsewhere", options);
    REQUIRE_FALSE(again);
    CHECK(again.error().message ==
          "'" + util::to_utf8(fs::weakly_canonical(record->library_path())) + "' is already adopted as 'system-9.1'");

    REQUIRE(store.remove(*record));
    CHECK(store.list().trees.empty());
    CHECK(fs::is_regular_file(test::test_dir() / "elsewhere" / util::path_from_utf8(record->layout.main_library)));
  }

  TEST_CASE("what killed installs left in staging and trash is cleared by the next install") {
    Store store = make_store();
    const fs::path stale = store.root() / ".cudnnenv" / "staging" / "killed-install";
    const fs::path trashed = store.root() / ".cudnnenv" / "trash" / "half-deleted.123.456";
    fs::create_directories(stale / "cuda" / "bin");
    fs::create_directories(trashed / "bin");
    test::write_zip("cudnn-11.2-windows-x64-v8.1.0.77.zip", windows_8_1());
    REQUIRE(store.install("cudnn-11.2-windows-x64-v8.1.0.77.zip", options_for(k_windows)));
    CHECK_FALSE(fs::exists(stale));
    CHECK_FALSE(fs::exists(trashed));
  }

  TEST_CASE("a staging folder whose install is still running is left alone") {
    Store store = make_store();
    const fs::path busy = store.root() / ".cudnnenv" / "staging" / "busy-tree";
    fs::create_directories(busy);
    fs::create_directories(store.root() / ".cudnnenv" / "locks");
    auto held = util::FileLock::acquire(store.root() / ".cudnnenv" / "locks" / "busy-tree.lock");
    REQUIRE(held);
    test::write_zip("cudnn-11.2-windows-x64-v8.1.0.77.zip", windows_8_1());
    REQUIRE(store.install("cudnn-11.2-windows-x64-v8.1.0.77.zip", options_for(k_windows)));
    CHECK(fs::exists(busy));
  }

  TEST_CASE("remove deletes a store tree") {
    Store store = make_store();
    test::write_zip("cudnn-11.2-windows-x64-v8.1.0.77.zip", windows_8_1());
    auto outcome = store.install("cudnn-11.2-windows-x64-v8.1.0.77.zip", options_for(k_windows));
    REQUIRE(outcome);
    REQUIRE(store.remove(outcome->record));
    CHECK(store.list().trees.empty());
    CHECK_FALSE(fs::exists(store.root() / "8.1.0.77-cuda11.2"));
    CHECK(fs::is_empty(store.root() / ".cudnnenv" / "trash"));
  }

  TEST_CASE("find matches whole version components and explains misses") {
    Store store = make_store();
    for (const char* version : {"8.1.0", "8.10.0"}) {
      FakeTree spec;
      spec.header_version = version;
      spec.library = "fake-pe64-8.1.0.dll";
      test::write_zip(std::string("v") + version + ".zip", test::fake_tree(spec));
      InstallOptions options = options_for(k_windows);
      options.probe = {};  // the fake library says 8.1.0 for both
      REQUIRE(store.install(std::string("v") + version + ".zip", options));
    }
    CHECK(store.find("8.1")->name == "8.1.0");
    CHECK(store.find("8.10")->name == "8.10.0");
    CHECK(store.find("v8.10.0")->name == "8.10.0");  // the name it had before the short names
    auto ambiguous = store.find("8");
    REQUIRE_FALSE(ambiguous);
    CHECK(ambiguous.error().message == "'8' matches 2 trees: '8.10.0', '8.1.0'");
    auto missing = store.find("9.1");
    REQUIRE_FALSE(missing);
    CHECK(missing.error().code == ExitCode::not_found);
    // The same miss as 'use 9.1' says (one matcher): what is installed, and an archive that would fit.
    CHECK(missing.error().message == "no installed cuDNN matches '9.1'");
    const std::string archive = host_platform().os == Os::windows ? "cudnn-windows-x86_64-9.1.1.17_cuda12-archive.zip"
                                                                  : "cudnn-linux-x86_64-9.1.1.17_cuda12-archive.tar.xz";
    CHECK(missing.error().hint ==
          "installed: 8.10.0, 8.1.0; 'cudnnenv install 9.1 --cuda 12' fetches " + archive + " from NVIDIA");
    auto typo = store.find("v8.1.O");
    REQUIRE_FALSE(typo);
    CHECK(typo.error().hint == "did you mean '8.1.0'?");
  }

  TEST_CASE("a remove that lost the race says the tree was already removed") {
    Store store(test::test_dir() / "store");
    fs::create_directories(store.root());
    TreeRecord record;
    record.name = "gone-9.1";
    auto removed = store.remove(record);
    REQUIRE_FALSE(removed);
    CHECK(removed.error().message == "'gone-9.1' was already removed");
    CHECK(removed.error().code == ExitCode::not_found);
  }

  TEST_CASE("a personal store over a shared one: its trees first and marked, shadowing; writes go there") {
    const fs::path shared = test::test_dir() / "shared";
    const fs::path personal = test::test_dir() / "personal";
    Store admin(shared);
    const TreeRecord shared_tree = test::install_host_tree(admin);
    Store store(shared, test::test_dir() / "state", personal);
    CHECK(store.personal_root() == personal);
    const TreeRecord mine = test::install_host_tree(store, "9.1.2");
    CHECK(mine.root == personal / mine.name);
    CHECK(fs::exists(personal / mine.name));
    const Listing listing = store.list();
    REQUIRE(listing.trees.size() == 2);
    CHECK(listing.trees[0].name == mine.name);
    CHECK(listing.trees[0].personal);
    CHECK(listing.trees[1].name == shared_tree.name);
    CHECK_FALSE(listing.trees[1].personal);
    const auto full = store.full_record(listing.trees[0]);
    REQUIRE(full);
    CHECK(full->root == personal / mine.name);
    CHECK(full->personal);
    // A tree of the user's named like a shared one hides it.
    fs::create_directories(personal);
    fs::copy(shared / shared_tree.name, personal / shared_tree.name, fs::copy_options::recursive);
    const Listing shadowed = store.list();
    REQUIRE(shadowed.trees.size() == 2);
    CHECK(std::all_of(shadowed.trees.begin(), shadowed.trees.end(),
                      [](const TreeRecord& tree) { return tree.personal; }));
    REQUIRE(store.remove(listing.trees[0]));
    CHECK_FALSE(fs::exists(personal / mine.name));
    CHECK(fs::exists(shared / shared_tree.name));
  }
}

}  // namespace cudnnenv
