// SHA-256 through the operating system's or OpenSSL's implementation
// (OpenSSL libcrypto on POSIX, BCrypt on Windows). Knows nothing about cuDNN.
#pragma once

#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "util/result.hpp"

namespace cudnnenv::util {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(const void* data, std::size_t size);
  // Lower-case hex digest; the object must not be updated afterwards.
  std::string hex_digest();

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

// A Sha256 fed on a thread of its own: update() copies the bytes into a
// bounded queue and returns (waiting only when the queue is full), so hashing
// overlaps with whatever produces the bytes (a download).
class Sha256Stream {
 public:
  Sha256Stream();
  ~Sha256Stream();
  Sha256Stream(const Sha256Stream&) = delete;
  Sha256Stream& operator=(const Sha256Stream&) = delete;

  void update(const void* data, std::size_t size);
  // Waits for the queue to drain; the object must not be updated afterwards.
  std::string hex_digest();

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

// Hash of the whole of `held` (from open_held_file), read by a reader of its
// own so that `held`'s position is untouched and another thread may read
// `held` meanwhile (POSIX: pread on its descriptor; Windows: a second open of
// `path`, which the held handle keeps from changing). `path` names it in
// errors.
Result<std::string> sha256_held_file(std::FILE* held, const std::filesystem::path& path);

// Hash of the whole file at `path`; fails when it cannot be read or is no
// regular file (a FIFO, a device: open_regular_file).
Result<std::string> sha256_file(const std::filesystem::path& path);

}  // namespace cudnnenv::util
