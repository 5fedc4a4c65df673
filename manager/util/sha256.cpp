#include "util/sha256.hpp"

#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv::util {

struct Sha256Stream::Impl {
  static constexpr std::size_t k_max_queued = 8;
  Sha256 hash;
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::string> queue;
  bool closing = false;
  std::thread worker{[this] { work(); }};

  void work() {
    for (;;) {
      std::string chunk;
      {
        std::unique_lock lock(mutex);
        changed.wait(lock, [this] { return closing || !queue.empty(); });
        if (queue.empty()) return;  // closing, and nothing left
        chunk = std::move(queue.front());
        queue.pop_front();
      }
      changed.notify_all();
      hash.update(chunk.data(), chunk.size());
    }
  }

  void close() {
    {
      std::lock_guard lock(mutex);
      if (closing) return;
      closing = true;
    }
    changed.notify_all();
    worker.join();
  }
};

Sha256Stream::Sha256Stream() : m_impl(std::make_unique<Impl>()) {}

Sha256Stream::~Sha256Stream() {
  m_impl->close();
}

void Sha256Stream::update(const void* data, std::size_t size) {
  std::string chunk(static_cast<const char*>(data), size);
  {
    std::unique_lock lock(m_impl->mutex);
    m_impl->changed.wait(lock, [this] { return m_impl->queue.size() < Impl::k_max_queued; });
    m_impl->queue.push_back(std::move(chunk));
  }
  m_impl->changed.notify_all();
}

std::string Sha256Stream::hex_digest() {
  m_impl->close();
  return m_impl->hash.hex_digest();
}

Result<std::string> sha256_file(const std::filesystem::path& path) {
  // A regular file only: a FIFO or a link to /dev/zero would never end.
  CUDNNENV_TRY_ASSIGN(file, open_regular_file(path));
  Sha256 hash;
  std::vector<char> buffer(1 << 20);
  std::size_t got = 0;
  while ((got = std::fread(buffer.data(), 1, buffer.size(), file->get())) > 0) {
    hash.update(buffer.data(), got);
  }
  if (std::ferror(file->get())) {
    return make_error("cannot read '" + to_utf8(path) + "'");
  }
  return hash.hex_digest();
}

}  // namespace cudnnenv::util
