#include "download/download.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>

#include "formats/redist.hpp"
#include "util/fs.hpp"
#include "util/sha256.hpp"
#include "util/text.hpp"

namespace fs = std::filesystem;

namespace cudnnenv {

namespace {

bool is_http_url(std::string_view url) {
  return util::starts_with(url, "https://") || util::starts_with(url, "http://");
}

// "https://host:port/path" -> "host:port".
std::string host_of(std::string_view url) {
  const std::size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return std::string(url);
  url.remove_prefix(scheme + 3);
  return std::string(url.substr(0, url.find('/')));
}

// "https://host/compute/cudnn/x.tar.xz" -> "/compute/cudnn/x.tar.xz".
std::string path_of(std::string_view url) {
  const std::size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return std::string(url);
  const std::size_t slash = url.find('/', scheme + 3);
  return slash == std::string_view::npos ? std::string("/") : std::string(url.substr(slash));
}

constexpr std::string_view k_mirror_hint =
    "set a mirror with --mirror URL, CUDNNENV_MIRROR or [download] mirror in config.toml (the SHA-256 is still "
    "the official list's)";

bool transient(const TransferOutcome& outcome) {
  switch (outcome.failure) {
    case TransferFailure::cut:
    case TransferFailure::too_slow:  // a connection that timed out too
      return true;
    case TransferFailure::http:
      return outcome.status >= 500 || outcome.status == 408 || outcome.status == 429;
    default:
      return false;
  }
}

std::string tries(int count) {
  return count == 1 ? "1 try" : std::to_string(count) + " tries";
}

// "16 KiB/s", "1 KiB/s", "500 B/s".
std::string rate_words(std::uint64_t bytes_per_second) {
  return bytes_per_second % 1024 == 0 ? std::to_string(bytes_per_second / 1024) + " KiB/s"
                                      : std::to_string(bytes_per_second) + " B/s";
}

Error failure_error_of(const TransferOutcome& outcome, const std::string& url, int attempts,
                       std::chrono::seconds stall_time, std::uint64_t min_rate, const std::string& mirror_path) {
  const bool from_mirror = !mirror_path.empty();
  const std::string mirror_hint =
      from_mirror ? "try another mirror, or none (a mirror holds each archive at NVIDIA's path: " + mirror_path + ")"
                  : std::string(k_mirror_hint);
  const std::string host = host_of(url);
  const std::string detail = outcome.detail.empty() ? std::string() : " (" + outcome.detail + ")";
  switch (outcome.failure) {
    case TransferFailure::resolve:
      return make_error(
          "cannot find the server '" + host + "' to fetch " + url + ": its name does not resolve" + detail,
          "check the network connection and DNS; behind a proxy, set HTTPS_PROXY; or " + mirror_hint);
    case TransferFailure::connect:
      // Refused or unreachable: at once, not retried (nothing there will answer a second try sooner).
      return make_error("cannot connect to '" + host + "' to fetch " + url + detail,
                        "check the network connection or the proxy (HTTPS_PROXY, NO_PROXY); or " + mirror_hint);
    case TransferFailure::tls:
      return make_error("the secure connection to '" + host + "' failed" + detail,
                        "the server's certificate is not trusted here: a proxy that inspects TLS needs its CA, "
                        "given with --cacert FILE or SSL_CERT_FILE");
    case TransferFailure::http:
      if (outcome.status == 403 || outcome.status == 404 || outcome.status == 410) {
        return make_error(
            "'" + url + "' answered HTTP " + std::to_string(outcome.status) +
                (from_mirror ? std::string(": the mirror does not have the archive")
                             : std::string(": the archive is not there (NVIDIA may have moved it)")),
            from_mirror ? "put it in the mirror at NVIDIA's path (" + mirror_path + "), or try another mirror, or none"
                        : mirror_hint,
            ExitCode::not_found);
      }
      return make_error("'" + url + "' answered HTTP " + std::to_string(outcome.status) + " after " + tries(attempts),
                        "the server has a problem: try again later (the download resumes), or " + mirror_hint);
    case TransferFailure::too_slow:
      return make_error("the download from '" + url + "' stalled: less than " + rate_words(min_rate) + " for " +
                            std::to_string(stall_time.count()) + " s, " + tries(attempts),
                        "check the network (--min-rate sets the rate below which a try gives up); run the same "
                        "command again to resume, or " +
                            mirror_hint);
    case TransferFailure::cut:
      return make_error("the connection to '" + host + "' broke off before the end, " + tries(attempts) + detail,
                        "run the same command again: it resumes where it stopped");
    case TransferFailure::no_library:
      return make_error(
          "cannot download '" + url + "': this machine has no libcurl, which cudnnenv downloads with" + detail,
          "install libcurl (Debian, Ubuntu: apt install libcurl4; RHEL, Fedora: dnf install "
          "libcurl); or fill a mirror folder where there is a network (cudnnenv mirror create "
          "DIR VERSION) and use it here with --mirror DIR");
    default:
      return make_error("cannot download '" + url + "'" + detail, "run with -v for details, or " + mirror_hint);
  }
}

// What a hint ends with: the way in for a machine that cannot reach the host.
std::string offline_hint(const OfficialArchive& archive, const DownloadOptions& options) {
  if (!options.offline_hint.empty()) return options.offline_hint;
  return "; or download " + std::string(archive.url) + " elsewhere and run: cudnnenv install ./" +
         std::string(archive.file_name);
}

// The failure of the last try, in plain words; `mirror_path`: where a mirror
// holds the archive, NVIDIA's path (empty: not from a mirror; its hints then
// say "set a mirror").
Error failure_error(const TransferOutcome& outcome, const std::string& url, int attempts,
                    std::chrono::seconds stall_time, std::uint64_t min_rate, const std::string& offline,
                    const std::string& mirror_path) {
  Error error = failure_error_of(outcome, url, attempts, stall_time, min_rate, mirror_path);
  error.hint += offline;
  return error;
}

// The part file and the hash of what it holds, kept in step.
// Partial downloads kept for a resume, this one included: the others, oldest
// first, go (a run of broken transfers from a mirror of many names must not
// fill the disk).
constexpr std::size_t k_kept_partials = 3;

void prune_partials(const fs::path& folder, const fs::path& keep) {
  std::vector<std::pair<fs::file_time_type, fs::path>> parts;
  std::error_code ec;
  for (const auto& entry : util::directory_entries(folder)) {
    if (!entry.is_regular_file || entry.is_symlink || entry.path.extension() != ".part" || entry.path == keep) continue;
    parts.emplace_back(fs::last_write_time(entry.path, ec), entry.path);
  }
  if (parts.size() < k_kept_partials) return;
  std::sort(parts.begin(), parts.end());  // oldest first
  for (std::size_t i = 0; i + k_kept_partials - 1 < parts.size(); ++i) {
    spdlog::debug("download: removing the old partial file {}", util::to_utf8(parts[i].second));
    fs::remove(parts[i].second, ec);
  }
}

class PartFile {
 public:
  explicit PartFile(fs::path path) : m_path(std::move(path)) {}

  // Opens the part for appending, hashing what it already holds unless the
  // hash is in step with it. The downloads folder may be shared (a mirror's,
  // a store's): what is there continues only when it is this user's own
  // regular file of one name (util::open_own_file); anything else under the
  // name (a planted link, another user's file) is removed and a new file
  // made in its place (util::create_new_file), never written through.
  Result<void> open(std::uint64_t limit) {
    m_file = util::open_own_file(m_path);
    const std::uint64_t size = m_file ? util::file_size(m_file.get()) : 0;
    if (m_file && limit && size > limit) m_file.reset();
    if (!m_file) {
      auto created = util::create_new_file(m_path);
      if (!created) {
        return make_error(created.error().message,
                          "the downloads folder '" + util::to_utf8(m_path.parent_path()) + "' must be writable");
      }
      m_file = std::move(*created);
      m_hasher = std::make_unique<util::Sha256Stream>();
      m_hashed = 0;
      return {};
    }
    if (size != m_hashed) {
      // Read through the descriptor just checked, never the name again.
      m_hasher = std::make_unique<util::Sha256Stream>();
      m_hashed = 0;
      util::seek_file(m_file.get(), 0);
      std::vector<char> buffer(1 << 20);
      std::size_t got = 0;
      while ((got = std::fread(buffer.data(), 1, buffer.size(), m_file.get())) > 0) {
        m_hasher->update(buffer.data(), got);
        m_hashed += got;
      }
    }
    std::fseek(m_file.get(), 0, SEEK_END);  // from reading to appending
    return {};
  }

  bool append(std::string_view data) {
    if (std::fwrite(data.data(), 1, data.size(), m_file.get()) != data.size()) {
      m_errno = errno;
      return false;
    }
    m_hasher->update(data.data(), data.size());
    m_hashed += data.size();
    return true;
  }

  // Back to nothing (a server that sent the whole file again).
  void reset() {
    m_file.reset();
    std::error_code ec;
    fs::remove(m_path, ec);
    m_hasher = std::make_unique<util::Sha256Stream>();
    m_hashed = 0;
  }

  // No fsync: a kept archive is hashed again before every use, so a file a
  // crash left short is fetched again, not trusted.
  Result<void> close() {
    if (m_file && std::fflush(m_file.get()) != 0) m_errno = errno;
    m_file.reset();
    if (m_errno) return write_error();
    return {};
  }

  Error write_error() const {
    bool full = m_errno == ENOSPC || m_errno == EFBIG;
#ifdef EDQUOT
    full = full || m_errno == EDQUOT;  // over quota: full for this user
#endif
    return make_error(std::string(full ? "the disk is full" : "cannot write") + " while downloading to '" +
                          util::to_utf8(m_path) + "': " + std::strerror(m_errno) + "; the partial file is deleted",
                      full ? "free some space (cudnnenv cache clean frees old downloads) and run the command again"
                           : "the downloads folder '" + util::to_utf8(m_path.parent_path()) + "' must be writable");
  }

  int write_errno() const {
    return m_errno;
  }
  std::uint64_t size() const {
    return m_hashed;
  }
  std::string digest() {
    return m_hasher->hex_digest();
  }
  const fs::path& path() const {
    return m_path;
  }

 private:
  fs::path m_path;
  util::FilePtr m_file;
  std::unique_ptr<util::Sha256Stream> m_hasher = std::make_unique<util::Sha256Stream>();
  std::uint64_t m_hashed = 0;
  int m_errno = 0;
};

Result<void> check_digest(const OfficialArchive& archive, const std::string& digest, const std::string& url) {
  if (archive.sha256.empty() || digest == archive.sha256) return {};
  return make_error("the file served by '" + url + "' is not " +
                        (archive.listed_by == "the official list" ? "the official " : "the ") +
                        std::string(archive.file_name) + ": its SHA-256 is " + digest + ", " +
                        std::string(archive.listed_by) + " says " + std::string(archive.sha256) +
                        "; it was deleted and nothing was installed",
                    "the server (or the mirror) sent other bytes; try again, or another mirror");
}

}  // namespace

namespace {

// A file on this machine (a folder mirror's, or one the user has): the
// archive copied from there into the downloads folder, checked like a
// download (size, then SHA-256). The file is opened once and the bytes
// written are the bytes hashed: whoever can write its folder cannot swap the
// file between the check and the copy. `local`: the user's own copy (its
// errors name the file, not a mirror).
Result<Downloaded> copy_from_file(const OfficialArchive& archive, const fs::path& source, bool local,
                                  const fs::path& final_file, std::uint64_t max_unknown_size, Downloaded result) {
  const std::string name(archive.file_name);
  const std::string url = "file://" + util::to_utf8(source);
  const std::string other_file =
      local ? "'" + util::to_utf8(source) + "' is another file; download " + std::string(archive.url) + " again"
            : std::string("the mirror has another file under this name");
  std::error_code ec;
  CUDNNENV_TRY_ASSIGN(in, util::open_held_file(source));
  const std::uint64_t limit = archive.size ? archive.size : max_unknown_size;
  const auto wrong_size = [&](std::uint64_t size) {
    if (!archive.size) {
      return make_error("'" + util::to_utf8(source) + "' is larger than a file of this kind can be (" +
                            util::human_size(limit) + "); nothing was installed",
                        other_file);
    }
    return make_error("'" + util::to_utf8(source) + "' has " +
                          (size > limit ? "more than " + std::to_string(limit) : std::to_string(size)) + " bytes, " +
                          std::string(archive.listed_by) + " says " + std::to_string(archive.size) +
                          "; nothing was installed",
                      other_file);
  };
  const fs::path part = util::path_from_utf8(util::to_utf8(final_file) + ".part");
  util::Sha256 hash;
  std::uint64_t copied = 0;
  {
    // A new file of this call's own: a link planted under the part's name is removed, never written through.
    auto created = util::create_new_file(part);
    if (!created) {
      return make_error(created.error().message, "check the free space and the rights of the downloads folder");
    }
    util::FilePtr out = std::move(*created);
    std::vector<char> buffer(1 << 20);
    std::size_t got = 0;
    while ((got = std::fread(buffer.data(), 1, buffer.size(), in->get())) > 0) {
      if (copied + got > limit) {
        out.reset();
        fs::remove(part, ec);
        return wrong_size(copied + got);
      }
      if (std::fwrite(buffer.data(), 1, got, out.get()) != got) {
        out.reset();
        fs::remove(part, ec);
        return make_error("cannot write '" + util::to_utf8(part) + "'", "check the free space of the downloads folder");
      }
      hash.update(buffer.data(), got);
      copied += got;
    }
    const bool read_failed = std::ferror(in->get()) != 0;
    if (read_failed || std::fflush(out.get()) != 0) {
      out.reset();
      fs::remove(part, ec);
      return make_error(
          read_failed ? "cannot read '" + util::to_utf8(source) + "'" : "cannot write '" + util::to_utf8(part) + "'",
          read_failed ? "check the folder it is in" : "check the free space of the downloads folder");
    }
  }
  const auto refuse = [&](Error error) -> Result<Downloaded> {
    fs::remove(part, ec);
    return error;
  };
  if (archive.size && copied != archive.size) return refuse(wrong_size(copied));
  const std::string digest = hash.hex_digest();
  if (auto checked = check_digest(archive, digest, url); !checked) {
    if (!local) return refuse(checked.error());
    Error error = checked.error();
    error.message = "'" + util::to_utf8(source) + "' is not the " + name + " " + std::string(archive.listed_by) +
                    " names: its SHA-256 is " + digest + ", the manifest says " + std::string(archive.sha256) +
                    "; nothing was installed";
    error.hint = "download " + std::string(archive.url) + " again";
    return refuse(error);
  }
  CUDNNENV_TRY(util::replace_file(part, final_file));
  result.url = url;
  result.sha256 = digest;
  result.bytes_fetched = copied;
  spdlog::debug("download: '{}' copied from '{}', verified", name, util::to_utf8(source));
  return result;
}

// A mirror that is a folder: the archive at NVIDIA's path under it.
Result<Downloaded> copy_from_folder(const OfficialArchive& archive, const std::string& url, const fs::path& final_file,
                                    const DownloadOptions& options, Downloaded result) {
  const std::string name(archive.file_name);
  std::string path = url.substr(7);
  if (path.size() > 2 && path[0] == '/' && path[2] == ':') path.erase(0, 1);  // file:///C:/mirror
  const fs::path source = util::path_from_utf8(path);
  std::error_code ec;
  if (!fs::exists(source, ec) && options.mirror.empty()) {
    return make_error("'" + util::to_utf8(source) + "', where " + std::string(archive.listed_by) + " puts " + name +
                          ", does not exist",
                      "put it there, or correct the index's URL", ExitCode::not_found);
  }
  if (!fs::exists(source, ec)) {
    return make_error("the mirror folder has no '" + util::to_utf8(source) + "'",
                      "put " + name +
                          " there (a mirror holds each archive at NVIDIA's path), or try another mirror, "
                          "or none" +
                          offline_hint(archive, options),
                      ExitCode::not_found);
  }
  return copy_from_file(archive, source, false, final_file, options.max_unknown_size, std::move(result));
}

}  // namespace

Result<std::string> mirror_file_url(const std::string& mirror, const std::string& path) {
  std::string base = mirror;
  if (util::starts_with(mirror, "file://") || !is_http_url(mirror)) {
    // A folder (or a file:// URL of one) laid out as NVIDIA's host: read from there.
    std::string folder = util::starts_with(mirror, "file://") ? mirror.substr(7) : mirror;
    if (folder.size() > 2 && folder[0] == '/' && folder[2] == ':') folder.erase(0, 1);  // file:///C:/mirror
    std::error_code ec;
    if (!std::filesystem::is_directory(util::path_from_utf8(folder), ec)) {
      return make_error("the mirror '" + mirror + "' is neither an http:// or https:// URL nor a folder",
                        "give the mirror's base URL (--mirror https://mirror.example.org/nvidia) or a folder laid out "
                        "as NVIDIA's host (--mirror /srv/nvidia, file:///srv/nvidia)",
                        ExitCode::usage);
    }
    base = "file://" + util::to_utf8(std::filesystem::absolute(util::path_from_utf8(folder), ec));
  } else if (mirror.find_first_of(" \"\\\r\n\t") != std::string::npos) {
    return make_error("the mirror '" + mirror + "' is not a plain http:// or https:// URL",
                      "give the mirror's base URL, e.g. --mirror https://mirror.example.org/nvidia", ExitCode::usage);
  }
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base + "/" + path;
}

Result<std::string> archive_url(const OfficialArchive& archive, const std::string& mirror) {
  if (mirror.empty()) return std::string(archive.url);
  // Whatever host the list names (NVIDIA's, a site's index, a file:// folder), the mirror holds the file at the
  // URL's path, where `mirror create` put it: host_path, which also refuses a path out of the mirror (..).
  const std::string path = host_path(archive);
  if (path.empty()) {
    return make_error("the list's URL '" + util::printable(std::string(archive.url)) +
                          "' gives no plain path ending in " + util::printable(std::string(archive.file_name)) +
                          ", so no mirror holds it",
                      "install it without a mirror, or correct the list's URL", ExitCode::usage);
  }
  return mirror_file_url(mirror, path);
}

namespace {

// The file of an earlier install (or of another store sharing the folder),
// when it is the archive; anything else under its name is removed.
Result<bool> already_downloaded(const OfficialArchive& archive, const fs::path& final_file, Downloaded& result) {
  std::error_code ec;
  if (!fs::is_regular_file(final_file, ec)) return false;
  const std::uint64_t size = fs::file_size(final_file, ec);
  if (!ec && (archive.size == 0 || size == archive.size)) {
    CUDNNENV_TRY_ASSIGN(digest, util::sha256_file(final_file));
    if (archive.sha256.empty() || *digest == archive.sha256) {
      result.sha256 = *digest;
      return true;
    }
  }
  spdlog::debug("download: '{}' in the downloads folder is not the official file; fetching it again",
                util::to_utf8(final_file.filename()));
  fs::remove(final_file, ec);
  return false;
}

// One download over HTTP into `<name>.part`: the tries with their delays, the
// resume from what the part file holds, one start over for a server that
// does not resume, and the checks of size and SHA-256 before the rename.
class ArchiveFetch {
 public:
  ArchiveFetch(const OfficialArchive& archive, const DownloadOptions& options, std::string url, std::string mirror_path,
               Downloaded result)
      : m_archive(archive),
        m_options(options),
        m_url(std::move(url)),
        m_mirror_path(std::move(mirror_path)),
        m_name(archive.file_name),
        m_part(options.folder / util::path_from_utf8(m_name + ".part")),
        m_result(std::move(result)) {}

  Result<Downloaded> run() {
    auto delay = m_options.first_delay;
    for (int attempt = 1;; ++attempt) {
      CUDNNENV_TRY_ASSIGN(outcome, try_once(attempt));
      if (outcome->failure == TransferFailure::none) break;
      spdlog::debug("download: try {} failed: {} (HTTP {})", attempt, outcome->detail, outcome->status);
      if ((outcome->failure == TransferFailure::no_range ||
           (outcome->failure == TransferFailure::http && outcome->status == 416)) &&
          start_over()) {
        continue;
      }
      const Error failed = failure_error(*outcome, m_url, attempt, m_options.stall_time, m_options.min_rate,
                                         offline_hint(m_archive, m_options), m_mirror_path);
      if (!transient(*outcome) || attempt > m_options.retries) {
        // What arrived stays for the next run to resume, unless nothing did
        // or the server said the file is not there.
        if (m_part.size() == 0 || (outcome->failure == TransferFailure::http && outcome->status < 500)) {
          m_part.reset();
        } else {
          prune_partials(m_options.folder, m_part.path());
        }
        return failed;
      }
      if (m_options.note) {
        m_options.note(failed.message + "; trying again in " + fmt::format("{:.1f}", delay.count() / 1000.0) + " s");
      }
      std::this_thread::sleep_for(delay);
      delay *= 2;
    }
    return finish();
  }

 private:
  // A server that sent the whole file again, or cannot send a range: the
  // part file emptied, once. False when it was done already.
  bool start_over() {
    if (m_restarted) return false;
    m_restarted = true;
    if (m_options.note) m_options.note("the server does not resume downloads: starting over");
    m_part.reset();
    return true;
  }

  // One GET from the part file's end. An error is a refusal (other bytes
  // than the archive's, a write that failed): the part file is gone.
  Result<TransferOutcome> try_once(int attempt) {
    CUDNNENV_TRY(m_part.open(m_archive.size));
    const std::uint64_t offset = m_part.size();
    if (offset > 0) m_result.resumed = true;
    if (m_archive.size && offset == m_archive.size) {  // complete, killed before the rename
      CUDNNENV_TRY(m_part.close());
      return TransferOutcome{};
    }
    TransferRequest request;
    request.url = m_url;
    request.offset = offset;
    request.ca_file = m_options.ca_file;
    request.helper = m_options.helper;
    request.low_speed_time = m_options.stall_time;
    request.low_speed_bytes = m_options.min_rate;
    spdlog::debug("download: GET {} from byte {} (try {})", m_url, offset, attempt);

    std::optional<Error> refusal;
    const auto began = std::chrono::steady_clock::now();
    std::uint64_t total = m_archive.size;
    const auto report = [&](bool done) {
      if (m_options.progress) {
        m_options.progress({m_part.size(), total, offset, std::chrono::steady_clock::now() - began, done});
      }
    };
    TransferSink sink;
    sink.start = [&](const TransferStart& start) {
      if (start.offset != m_part.size()) {  // the whole file again, not the rest
        if (!start_over()) {
          refusal = make_error("'" + m_url + "' ignored the range request twice", "run the command again");
          return false;
        }
        if (auto reopened = m_part.open(m_archive.size); !reopened) {
          refusal = reopened.error();
          return false;
        }
      }
      if (start.length && m_archive.size && start.offset + *start.length != m_archive.size) {
        refusal = make_error("'" + m_url + "' offers " + std::to_string(start.offset + *start.length) + " bytes for " +
                                 m_name + ", " + std::string(m_archive.listed_by) + " says " +
                                 std::to_string(m_archive.size) + "; nothing was installed",
                             "the server (or the mirror) has another file under this name");
        return false;
      }
      if (!m_archive.size && start.length) total = start.offset + *start.length;
      report(false);
      return true;
    };
    sink.data = [&](std::string_view data) {
      refusal = too_much(data.size());
      if (!refusal && !m_part.append(data)) refusal = m_part.write_error();
      if (refusal) return false;
      m_result.bytes_fetched += data.size();
      report(false);
      return true;
    };
    const TransferOutcome outcome = transfer(request, sink);
    const auto closed = m_part.close();
    if (refusal || !closed) {
      m_part.reset();
      return refusal ? *refusal : closed.error();
    }
    if (outcome.failure == TransferFailure::none) {
      report(true);
      if (!outcome.url.empty()) m_result.url = outcome.url;
    }
    return outcome;
  }

  // Past the archive's size, or past the cap when the list gives none.
  std::optional<Error> too_much(std::size_t more) const {
    if (m_archive.size && m_part.size() + more > m_archive.size) {
      return make_error("'" + m_url + "' sent more than the " + std::to_string(m_archive.size) + " bytes of " + m_name +
                            "; it was deleted and nothing was installed",
                        "the server (or the mirror) has another file under this name");
    }
    if (!m_archive.size && m_part.size() + more > m_options.max_unknown_size) {
      return make_error("'" + m_url + "' sent more than " + util::human_size(m_options.max_unknown_size) + " of " +
                            m_name + ", whose size the list does not give; it was deleted and nothing was installed",
                        "the official archives are smaller; a larger one needs --max-download SIZE");
    }
    return std::nullopt;
  }

  // The size and the SHA-256 checked, then the rename to the archive's name.
  Result<Downloaded> finish() {
    if (m_result.url.empty()) m_result.url = m_url;
    if (m_archive.size && m_part.size() != m_archive.size) {
      const std::uint64_t got = m_part.size();
      m_part.reset();
      return make_error("'" + m_result.url + "' sent " + std::to_string(got) + " bytes of " + m_name + ", " +
                            std::string(m_archive.listed_by) + " says " + std::to_string(m_archive.size) +
                            "; it was deleted",
                        "the server (or the mirror) has another file under this name");
    }
    m_result.sha256 = m_part.digest();
    if (auto checked = check_digest(m_archive, m_result.sha256, m_result.url); !checked) {
      m_part.reset();
      return checked.error();
    }
    CUDNNENV_TRY(util::replace_file(m_part.path(), m_result.file));
    spdlog::debug("download: '{}' verified ({} bytes fetched, SHA-256 {})", m_name, m_result.bytes_fetched,
                  m_result.sha256);
    return m_result;
  }

  const OfficialArchive& m_archive;
  const DownloadOptions& m_options;
  const std::string m_url;
  const std::string m_mirror_path;  // the archive's path on NVIDIA's host, for a mirror's messages
  const std::string m_name;
  PartFile m_part;
  Downloaded m_result;
  bool m_restarted = false;
};

// The archive in options.folder: the one already there when it is the
// archive (checked again), else what `get` puts there, under the folder's
// lock for that name (another install fetching it waits).
Result<Downloaded> into_downloads(const OfficialArchive& archive, const DownloadOptions& options,
                                  const std::function<Result<Downloaded>(Downloaded)>& get) {
  // A mirror's folders on the way are made without following a link a co-writer planted.
  const fs::path& base = options.folder_base.empty() ? options.folder : options.folder_base;
  if (auto made = util::create_directories_below(base, options.folder); !made) {
    return make_error(made.error().message, made.error().hint.empty()
                                                ? "choose a writable store root with CUDNNENV_ROOT or --root"
                                                : made.error().hint);
  }
  const std::string name(archive.file_name);
  fs::path lock_file = options.folder / util::path_from_utf8("." + name + ".lock");
  if (!options.lock_folder.empty()) {
    // One lock per file of the folder, named by its path: two mirrors may hold files of one name.
    util::Sha256 path_hash;
    const std::string path = util::to_utf8(fs::absolute(options.folder / util::path_from_utf8(name)));
    path_hash.update(path.data(), path.size());
    std::error_code ec;
    fs::create_directories(options.lock_folder, ec);
    lock_file =
        options.lock_folder / util::path_from_utf8("." + name + "." + path_hash.hex_digest().substr(0, 16) + ".lock");
  }
  CUDNNENV_TRY_ASSIGN(lock, util::FileLock::acquire(lock_file));
  Downloaded result;
  result.file = options.folder / util::path_from_utf8(name);
  CUDNNENV_TRY_ASSIGN(here, already_downloaded(archive, result.file, result));
  if (*here) {
    spdlog::debug("download: '{}' is already in '{}', checked", name, util::to_utf8(options.folder));
    return result;
  }
  return get(std::move(result));
}

}  // namespace

std::string host_path(const OfficialArchive& archive) {
  std::string path = path_of(archive.url);
  if (!path.empty() && path.front() == '/') path.erase(0, 1);
  const bool ends_in_name = path == archive.file_name || util::ends_with(path, "/" + std::string(archive.file_name));
  return ends_in_name && is_safe_relative_path(path) ? path : std::string();
}

Result<Downloaded> fetch_archive(const OfficialArchive& archive, const DownloadOptions& options) {
  if (archive.sha256.empty() && !options.allow_unverified) {
    return make_error(
        "the list has no SHA-256 for " + std::string(archive.file_name) + ": what a server sends could not be checked",
        "pass --allow-unverified to install it anyway (its hash is recorded in the tree)");
  }
  if (options.nvidia_layout) {
    const std::string path = host_path(archive);
    if (path.empty()) {
      return make_error("the URL '" + util::printable(std::string(archive.url)) +
                            "' gives no folder a mirror could hold " + util::printable(std::string(archive.file_name)) +
                            " in",
                        "a mirror holds each file at its path on NVIDIA's host: use an official release");
    }
    DownloadOptions placed = options;
    placed.nvidia_layout = false;
    placed.folder = options.folder / util::path_from_utf8(path).parent_path();
    placed.folder_base = options.folder;
    return fetch_archive(archive, placed);
  }
  CUDNNENV_TRY_ASSIGN(url, archive_url(archive, options.mirror));
  return into_downloads(archive, options, [&](Downloaded result) -> Result<Downloaded> {
    if (util::starts_with(*url, "file://")) {
      const fs::path final_file = result.file;
      return copy_from_folder(archive, *url, final_file, options, std::move(result));
    }
    const std::string mirror_path = *url != archive.url ? path_of(archive.url) : std::string();
    return ArchiveFetch(archive, options, *url, mirror_path, std::move(result)).run();
  });
}

Result<Downloaded> take_local_archive(const OfficialArchive& archive, const fs::path& file,
                                      const DownloadOptions& options) {
  return into_downloads(archive, options, [&](Downloaded result) {
    const fs::path final_file = result.file;
    return copy_from_file(archive, file, true, final_file, options.max_unknown_size, std::move(result));
  });
}

Result<const OfficialArchive*> choose_archive(const Platform& platform, const Spec& spec,
                                              const std::optional<CudaVersion>& cuda,
                                              const std::function<bool(const CudaVersion&)>& has_toolkit) {
  const std::string platform_name = official_platform(platform);
  if (platform_name.empty()) {
    return make_error("NVIDIA ships no cuDNN archive for " + describe(platform),
                      "install a wheel or a folder you have: cudnnenv install <path>", ExitCode::not_found);
  }
  const auto archives = available_archives(platform, &spec, cuda);
  if (archives.empty()) {
    return make_error("no official cuDNN archive for " + platform_name + " matches '" + spec.text + "'" +
                          (cuda ? " with CUDA " + cuda->str() : std::string()),
                      "'cudnnenv list --available' shows what there is", ExitCode::not_found);
  }
  // The newest release that fits, in each of its CUDA variants.
  std::vector<const OfficialArchive*> newest;
  for (const auto* archive : archives) {
    if (archive->version == archives.front()->version) newest.push_back(archive);
  }
  if (newest.size() == 1) return newest.front();
  std::vector<const OfficialArchive*> with_toolkit;
  for (const auto* archive : newest) {
    const auto record = as_record(*archive);
    if (record.cuda && has_toolkit && has_toolkit(*record.cuda)) with_toolkit.push_back(archive);
  }
  if (with_toolkit.size() == 1) {
    spdlog::debug("download: {} of {} builds of cuDNN {}: the CUDA toolkit found here",
                  with_toolkit.front()->cuda_variant, newest.size(), with_toolkit.front()->version);
    return with_toolkit.front();
  }
  std::string variants;
  std::string commands;
  for (const auto* archive : newest) {
    const auto record = as_record(*archive);
    const std::string variant = record.cuda ? record.cuda->str() : std::string(archive->cuda_variant);
    variants += (variants.empty() ? "" : ", ") + variant;
    commands +=
        (commands.empty() ? "" : ", ") + std::string("'cudnnenv install ") + spec.text + " --cuda " + variant + "'";
  }
  // Without has_toolkit (a lock: every machine resolves alike) nothing here was looked at: say only what is known.
  const std::string why = !has_toolkit           ? std::string("the toolkits here do not choose for a lock")
                          : with_toolkit.empty() ? std::string("no CUDA toolkit of these is installed here")
                                                 : std::to_string(with_toolkit.size()) + " of their toolkits are here";
  return make_error(
      "cuDNN " + std::string(newest.front()->version) + " comes for CUDA " + variants + ", and " + why + ": say which",
      "add --cuda with the CUDA version your framework was built for: " + commands, ExitCode::not_found);
}

bool is_archive_url(std::string_view source) {
  return util::starts_with(source, "https://") || util::starts_with(source, "http://");
}

OfficialArchive ArchiveToInstall::archive() const {
  if (official) return *official;
  OfficialArchive by_hand{};
  by_hand.file_name = file_name;
  by_hand.url = url;
  return by_hand;
}

Result<ArchiveToInstall> archive_to_install(const std::string& source, const std::string& cuda, bool allow_unverified,
                                            const Platform& platform, const std::vector<TreeRecord>& trees,
                                            const std::function<bool(const CudaVersion&)>& has_toolkit) {
  ArchiveToInstall chosen;
  if (is_archive_url(source)) {
    if (!allow_unverified) {
      return make_error("'" + source + "' is a URL, and nothing says what its bytes should be",
                        "install by version ('cudnnenv install 9.1') to get the official archive checked, or pass "
                        "--allow-unverified to take this file as it comes (its SHA-256 is recorded in the tree)",
                        ExitCode::usage);
    }
    std::string_view path = source;
    path = path.substr(0, path.find_first_of("?#"));
    chosen.file_name = std::string(path.substr(path.rfind('/') + 1));
    if (chosen.file_name.empty() || chosen.file_name == "." || chosen.file_name == ".." ||
        chosen.file_name.find('\\') != std::string::npos) {
      return make_error("'" + source + "' does not end in a file name", "give the archive's own URL", ExitCode::usage);
    }
    chosen.url = source;
    return chosen;
  }
  CUDNNENV_TRY_ASSIGN(spec, parse_spec(source, cuda.empty() ? std::nullopt : std::optional<std::string_view>(cuda)));
  if (spec->components.empty()) {
    if (const auto bare = version_without_prefix(source)) {
      return make_error("'" + source + "' is neither a file nor a version",
                        "write the version alone: cudnnenv install " + *bare, ExitCode::not_found);
    }
    return make_error("'" + source + "' is neither a file nor a version",
                      "give an archive, a wheel or a folder that exists, or a version: 'cudnnenv install 8.1 --cuda "
                      "11.2' ('cudnnenv list --available' lists them)",
                      ExitCode::not_found);
  }
  CUDNNENV_TRY_ASSIGN(official, choose_archive(platform, *spec, spec->cuda, has_toolkit));
  chosen.official = *official;
  for (const auto& tree : trees) {
    if (tree.source.official == chosen.official->file_name ||
        (!chosen.official->sha256.empty() && tree.source.sha256 == chosen.official->sha256)) {
      chosen.installed = tree;
      break;
    }
  }
  return chosen;
}

std::vector<CachedFile> cached_downloads(const fs::path& folder) {
  std::vector<CachedFile> files;
  for (const auto& entry : util::directory_entries(folder)) {
    const std::string name = util::to_utf8(entry.path.filename());
    if (name.empty() || name.front() == '.' || !entry.is_regular_file) continue;
    CachedFile file;
    file.file = entry.path;
    file.size = entry.size;
    file.partial = util::ends_with(name, ".part");
    file.archive = find_official_by_name(file.partial ? name.substr(0, name.size() - 5) : name);
    files.push_back(std::move(file));
  }
  std::sort(files.begin(), files.end(), [](const CachedFile& a, const CachedFile& b) { return a.file < b.file; });
  return files;
}

std::vector<CachedFile> clean_downloads(const fs::path& folder) {
  std::vector<CachedFile> removed;
  for (auto& file : cached_downloads(folder)) {
    std::string name = util::to_utf8(file.file.filename());
    if (file.partial) name.resize(name.size() - 5);
    const fs::path lock_file = folder / util::path_from_utf8("." + name + ".lock");
    auto lock = util::FileLock::try_acquire(lock_file);
    if (!lock) continue;  // being fetched now
    std::error_code ec;
    if (fs::remove(file.file, ec)) removed.push_back(std::move(file));
    fs::remove(lock_file, ec);
  }
  return removed;
}

}  // namespace cudnnenv
