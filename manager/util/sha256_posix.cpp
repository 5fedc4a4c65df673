#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "util/sha256.hpp"
#include "util/text.hpp"

namespace cudnnenv::util {

struct Sha256::Impl {
  EVP_MD_CTX* ctx = nullptr;
};

Sha256::Sha256() : m_impl(std::make_unique<Impl>()) {
  m_impl->ctx = EVP_MD_CTX_new();
  EVP_DigestInit_ex(m_impl->ctx, EVP_sha256(), nullptr);
}

Sha256::~Sha256() {
  EVP_MD_CTX_free(m_impl->ctx);
}

void Sha256::update(const void* data, std::size_t size) {
  EVP_DigestUpdate(m_impl->ctx, data, size);
}

std::string Sha256::hex_digest() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(m_impl->ctx, digest, &length);
  return to_hex(digest, length);
}

Result<std::string> sha256_held_file(std::FILE* held, const std::filesystem::path& path) {
  const int descriptor = ::fileno(held);
  Sha256 hash;
  std::vector<char> buffer(1 << 20);
  for (off_t offset = 0;;) {
    const ssize_t got = ::pread(descriptor, buffer.data(), buffer.size(), offset);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return make_error("cannot read '" + to_utf8(path) + "': " + std::strerror(errno));
    if (got == 0) break;
    hash.update(buffer.data(), static_cast<std::size_t>(got));
    offset += got;
  }
  return hash.hex_digest();
}

}  // namespace cudnnenv::util
