#include <openssl/evp.h>

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

}  // namespace cudnnenv::util
