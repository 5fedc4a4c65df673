#include <windows.h>
#include <bcrypt.h>

#include "util/sha256.hpp"
#include "util/text.hpp"

namespace cudnnenv::util {

// BCrypt ships with every Windows since Vista: no extra DLL to carry.
struct Sha256::Impl {
  BCRYPT_ALG_HANDLE algorithm = nullptr;
  BCRYPT_HASH_HANDLE hash = nullptr;
};

Sha256::Sha256() : m_impl(std::make_unique<Impl>()) {
  BCryptOpenAlgorithmProvider(&m_impl->algorithm, BCRYPT_SHA256_ALGORITHM, nullptr, 0);
  BCryptCreateHash(m_impl->algorithm, &m_impl->hash, nullptr, 0, nullptr, 0, 0);
}

Sha256::~Sha256() {
  if (m_impl->hash) {
    BCryptDestroyHash(m_impl->hash);
  }
  if (m_impl->algorithm) {
    BCryptCloseAlgorithmProvider(m_impl->algorithm, 0);
  }
}

void Sha256::update(const void* data, std::size_t size) {
  // BCryptHashData takes a ULONG length: feed large buffers in pieces.
  auto bytes = static_cast<const unsigned char*>(data);
  while (size > 0) {
    const ULONG piece = size > 0x40000000 ? 0x40000000 : static_cast<ULONG>(size);
    BCryptHashData(m_impl->hash, const_cast<PUCHAR>(bytes), piece, 0);
    bytes += piece;
    size -= piece;
  }
}

std::string Sha256::hex_digest() {
  unsigned char digest[32];
  BCryptFinishHash(m_impl->hash, digest, sizeof digest, 0);
  return to_hex(digest, sizeof digest);
}

Result<std::string> sha256_held_file(std::FILE*, const std::filesystem::path& path) {
  // The held handle shares no write or delete access: the name still reaches its bytes.
  return sha256_file(path);
}

}  // namespace cudnnenv::util
