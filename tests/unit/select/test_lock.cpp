#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "select/lock.hpp"

namespace cudnnenv {

namespace {

const std::string k_sha(64, 'a');

LockFile two_platforms() {
  LockFile lock;
  lock.file = "cudnnenv.lock";
  lock.input.cudnn = "9.1";
  lock.input.cuda = "12";
  lock.input.platforms = {"linux-x86_64", "windows-x86_64"};
  lock.cudnn.push_back({"linux-x86_64", "9.1.0.70", "cuda12", "cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz",
                        "https://developer.download.nvidia.com/x.tar.xz", 123, k_sha});
  lock.cudnn.push_back({"windows-x86_64", "9.1.0.70", "cuda12", "cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip",
                        "https://developer.download.nvidia.com/x.zip", 0, std::string(64, 'b')});
  return lock;
}

// The lock's text with `field`'s line of the first [[cudnn]] entry replaced by `line`.
std::string with_line(const std::string& field, const std::string& line) {
  std::string text = serialize_lock(two_platforms());
  const auto at = text.find("\n" + field + " = ", text.find("[[cudnn]]"));
  const auto end = text.find('\n', at + 1);
  return text.substr(0, at + 1) + line + text.substr(end);
}

}  // namespace

TEST_SUITE("select/lock") {
  TEST_CASE("a lock written and read back is the same lock, in a fixed order") {
    const LockFile lock = two_platforms();
    const std::string text = serialize_lock(lock);
    CHECK(text.rfind("# cudnnenv.lock: written by 'cudnnenv lock'", 0) == 0);
    CHECK(
        text.find("\n[input]\ncudnn = \"9.1\"\ncuda = \"12\"\nplatforms = [\"linux-x86_64\", \"windows-x86_64\"]\n") !=
        std::string::npos);
    CHECK(text.find("[[cudnn]]\nplatform = \"windows-x86_64\"\nversion = \"9.1.0.70\"\ncuda = \"cuda12\"\n"
                    "file = \"cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip\"\n"
                    "url = \"https://developer.download.nvidia.com/x.zip\"\nsha256 = \"" +
                    std::string(64, 'b') + "\"\n") != std::string::npos);
    auto read = parse_lock(text, "cudnnenv.lock");
    REQUIRE(read);
    CHECK(read->input == lock.input);
    REQUIRE(read->cudnn.size() == 2);
    CHECK(read->cudnn[0].size == 123);
    CHECK(read->for_platform("windows-x86_64")->file == "cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip");
    CHECK(read->for_platform("linux-sbsa") == nullptr);
    CHECK(serialize_lock(*read) == text);
  }

  TEST_CASE("a hostile lock is refused at its line, never used") {
    const auto refused = [](const std::string& text) {
      auto lock = parse_lock(text, "cudnnenv.lock");
      REQUIRE_FALSE(lock);
      return lock.error().message;
    };
    CHECK(refused(with_line("file", "file = \"../../etc/passwd\"")) ==
          "cudnnenv.lock:14:8: '../../etc/passwd' is not an archive's file name");
    CHECK(refused(with_line("url", "url = \"file:///etc/passwd\"")) ==
          "cudnnenv.lock:15:7: 'file:///etc/passwd' is not an http or https URL");
    CHECK(refused(with_line("sha256", "sha256 = \"abc\"")) ==
          "cudnnenv.lock:17:10: 'abc' is not a SHA-256 (64 hex digits)");
    CHECK(
        refused(with_line("platform", "platform = \"plan9\"")) ==
        "cudnnenv.lock:11:12: 'plan9' is no platform of the official list (linux-x86_64, linux-sbsa, windows-x86_64)");
    CHECK(refused(with_line("size", "size = -1")) == "cudnnenv.lock:16:8: 'size' must be a number of bytes");
    // A float too large for any integer: refused, never converted (the fuzzer's find).
    CHECK(refused(with_line("size", "size = 6.6e66")) == "cudnnenv.lock:16:8: 'size' must be a number of bytes");
    CHECK(refused("format = 66666666666.6666666E66\n") ==
          "'cudnnenv.lock' is not a lock of format 1 (a newer cudnnenv may have written it)");
    CHECK(refused(with_line("version", "version = \"latest\"")) ==
          "cudnnenv.lock:12:11: 'latest' is not a cuDNN version");
    CHECK(refused(with_line("cuda", "cuda = \"12\"")) ==
          "cudnnenv.lock:13:8: '12' is not a CUDA variant (cuda12, cuda11.2)");
    CHECK(refused("format = 2\n[input]\nplatforms = []\n") ==
          "'cudnnenv.lock' is not a lock of format 1 (a newer cudnnenv may have written it)");
    CHECK(refused(std::string(k_max_lock_file + 1, '#')) == "'cudnnenv.lock' is larger than any lock (262 kB)");
    std::string twice = serialize_lock(two_platforms());
    twice += twice.substr(twice.find("[[cudnn]]"));
    CHECK(refused(twice).find("a second [[cudnn]] entry for linux-x86_64") != std::string::npos);
  }

  TEST_CASE("a profile's CUDA runtime, with each component archive, written and read back") {
    LockFile lock = two_platforms();
    lock.input.cudnn.reset();
    lock.input.profile = "tf2.5";
    LockedRuntime runtime;
    runtime.platform = "windows-x86_64";
    runtime.release = "11.8.0";
    runtime.manifest = "https://developer.download.nvidia.com/compute/cuda/redist/redistrib_11.8.0.json";
    runtime.manifest_sha256 = std::string(64, 'c');
    runtime.components = {
        {"cuda_cudart", "11.8.89", "cuda_cudart/windows-x86_64/cuda_cudart-windows-x86_64-11.8.89-archive.zip", 2900,
         std::string(64, 'd')},
        {"libcublas", "11.11.3.6", "libcublas/windows-x86_64/libcublas-windows-x86_64-11.11.3.6-archive.zip", 0,
         std::string(64, 'e')}};
    lock.runtime.push_back(runtime);
    const std::string text = serialize_lock(lock);
    CHECK(text.find("\n[[runtime]]\nplatform = \"windows-x86_64\"\nrelease = \"11.8.0\"\n"
                    "manifest = \"https://developer.download.nvidia.com/compute/cuda/redist/redistrib_11.8.0.json\"\n"
                    "manifest_sha256 = \"" +
                    std::string(64, 'c') +
                    "\"\n\n[[runtime.component]]\nname = \"cuda_cudart\"\nversion = \"11.8.89\"\n"
                    "path = \"cuda_cudart/windows-x86_64/cuda_cudart-windows-x86_64-11.8.89-archive.zip\"\n"
                    "size = 2900\nsha256 = \"" +
                    std::string(64, 'd') + "\"\n") != std::string::npos);
    auto read = parse_lock(text, "cudnnenv.lock");
    REQUIRE(read);
    REQUIRE(read->runtime_for("windows-x86_64"));
    CHECK(*read->runtime_for("windows-x86_64") == runtime);
    CHECK(read->runtime_for("linux-x86_64") == nullptr);
    CHECK(serialize_lock(*read) == text);

    const auto refused = [&](const std::string& from, const std::string& to) {
      std::string hostile = text;
      const auto at = hostile.find(from);
      REQUIRE(at != std::string::npos);
      hostile.replace(at, from.size(), to);
      auto parsed = parse_lock(hostile, "cudnnenv.lock");
      REQUIRE_FALSE(parsed);
      return parsed.error().message;
    };
    CHECK(refused("path = \"cuda_cudart/", "path = \"../../") ==
          "cudnnenv.lock:36:8: '../../windows-x86_64/cuda_cudart-windows-x86_64-11.8.89-archive.zip' is not a plain "
          "relative path");
    CHECK(refused("name = \"cuda_cudart\"", "name = \"a b\"") ==
          "cudnnenv.lock:34:8: 'a b' is not a CUDA component's name");
    CHECK(refused("manifest = \"https", "manifest = \"file") ==
          "cudnnenv.lock:30:12: 'file://developer.download.nvidia.com/compute/cuda/redist/redistrib_11.8.0.json' is "
          "not the manifest's URL");
    CHECK(refused("release = \"11.8.0\"", "release = \"new\"") == "cudnnenv.lock:29:11: 'new' is not a CUDA release");
    CHECK(
        refused("\n[[runtime.component]]\nname = \"cuda_cudart\"", "\n[[runtime.component]]\nevil = 1\nname = \"x\"") ==
        "cudnnenv.lock:34:8: unknown key 'evil' in [[runtime.component]]");
  }

  TEST_CASE("the differences between the lock's input and the project file, each named") {
    LockInput locked = two_platforms().input;
    ProjectFile project;
    project.cudnn = "9.1";
    project.cuda = "12";
    CHECK(lock_differences(locked, lock_input_of(project)).empty());  // no [lock] platforms: not compared
    project.cudnn = "9.2";
    project.cuda.reset();
    project.runtime = "13.0.2";
    project.lock_platforms = {"linux-x86_64"};
    const auto differences = lock_differences(locked, lock_input_of(project));
    REQUIRE(differences.size() == 4);
    CHECK(differences[0] == "cudnn: the lock was made for \"9.1\", .cudnnenv.toml now says \"9.2\"");
    CHECK(differences[1] == "cuda: the lock was made for \"12\", .cudnnenv.toml now says nothing");
    CHECK(differences[2] == "runtime: the lock was made for nothing, .cudnnenv.toml now says \"13.0.2\"");
    CHECK(differences[3] ==
          "platforms: the lock was made for linux-x86_64, windows-x86_64, .cudnnenv.toml now targets linux-x86_64");
  }

  TEST_CASE("a stale lock: each platform whose archive or runtime would change, named") {
    const LockFile locked = two_platforms();
    CHECK(lock_staleness(locked, two_platforms()).empty());
    LockFile now = two_platforms();
    now.cudnn[0].version = "9.1.2.5";
    now.cudnn[0].file = "cudnn-linux-x86_64-9.1.2.5_cuda12-archive.tar.xz";
    now.runtime.push_back({"windows-x86_64", "12.4.1", "https://developer.download.nvidia.com/m.json", k_sha, {}});
    const auto differences = lock_staleness(locked, now);
    REQUIRE(differences.size() == 2);
    CHECK(differences[0] ==
          "linux-x86_64: the lock has cuDNN 9.1.0.70 (cuda12), .cudnnenv.toml now resolves to cuDNN 9.1.2.5 (cuda12)");
    CHECK(differences[1] ==
          "windows-x86_64: the lock has no CUDA runtime, .cudnnenv.toml now resolves to the CUDA 12.4.1 runtime");
    LockFile rehashed = two_platforms();
    rehashed.cudnn[1].size = 456;
    CHECK(lock_staleness(locked, rehashed) ==
          std::vector<std::string>{
              "its text is not what 'cudnnenv lock' writes now (another cudnnenv wrote it, or a hand edited it)"});
  }
}

}  // namespace cudnnenv
