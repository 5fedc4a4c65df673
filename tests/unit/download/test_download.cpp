#include <doctest/doctest.h>

#include "download/download.hpp"
#include "support.hpp"

namespace cudnnenv {

namespace {

const std::string k_sha(64, 'a');

std::string index_text(const std::string& rows) {
  return "cudnn_version\tplatform\tcuda_variant\tfilename\tsha256\tsize_bytes\turl\tsource\n" + rows;
}

}  // namespace

TEST_SUITE("download/download") {
  TEST_CASE("an archive list read from a file (CUDNNENV_INDEX)") {
    const std::string text = index_text(
        "9.1.0.70\tlinux-x86_64\tcuda12\tcudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz\t" + k_sha +
        "\t123\thttp://127.0.0.1:8000/a.tar.xz\tany further column\n"
        "# a comment\n\n"
        "8.1.0.77\twindows-x86_64\tcuda11.2\tcudnn-11.2-windows-x64-v8.1.0.77.zip\t\t?\thttps://example.org/b.zip\r\n");
    const auto archives = parse_index(text, "index.tsv");
    REQUIRE(archives);
    REQUIRE(archives->size() == 2);
    CHECK((*archives)[0].version == "9.1.0.70");
    CHECK((*archives)[0].cuda_variant == "cuda12");
    CHECK((*archives)[0].size == 123);
    CHECK((*archives)[0].url == "http://127.0.0.1:8000/a.tar.xz");
    CHECK((*archives)[1].sha256.empty());  // only --allow-unverified installs it
    CHECK((*archives)[1].size == 0);
    CHECK((*archives)[1].url == "https://example.org/b.zip");

    const auto error_of = [](const std::string& row) {
      return parse_index(index_text(row), "index.tsv").error().message;
    };
    CHECK(error_of("9.1\tlinux-x86_64\tcuda12\ta.tar.xz\n") == "index.tsv:2: 7 columns expected, found 4");
    CHECK(error_of("nine\tlinux-x86_64\tcuda12\ta.tar.xz\t\t1\thttp://x/a\n") ==
          "index.tsv:2: 'nine' is not a version");
    CHECK(error_of("9.1\tlinux-x86_64\tcuda12\t../a.tar.xz\t\t1\thttp://x/a\n") ==
          "index.tsv:2: the file name '../a.tar.xz' is not a plain file name");
    CHECK(error_of("9.1\tlinux-x86_64\tcuda12\ta.tar.xz\tABC\t1\thttp://x/a\n") ==
          "index.tsv:2: the SHA-256 must be 64 lower-case hex digits or empty");
    CHECK(error_of("9.1\tlinux-x86_64\tcuda12\ta.tar.xz\t\t12x\thttp://x/a\n") ==
          "index.tsv:2: the size '12x' is not a number of bytes");
    CHECK(error_of("9.1\tlinux-x86_64\tcuda12\ta.tar.xz\t\t1\tftp://x/a\n") ==
          "index.tsv:2: the URL must start with https://, http:// or file://");
    // A file on this machine (a site's share), spaces and all; checked by the index's SHA-256 as any download.
    // The entries point into the text, which outlives them here.
    const std::string local_text =
        index_text("9.1\tlinux-x86_64\tcuda12\ta.tar.xz\t\t1\tfile:///srv/cu dnn/a.tar.xz\n");
    const auto local = parse_index(local_text, "index.tsv");
    REQUIRE(local);
    CHECK(local->front().url == "file:///srv/cu dnn/a.tar.xz");
    CHECK(error_of("9.1\tlinux-x86_64\tcuda12\ta.tar.xz\t\t1\tfile:///srv/\"a\n") ==
          "index.tsv:2: the URL holds a quote or a control character");
    CHECK(error_of("9.1\tlinux-x86_64\tcuda12\ta.tar.xz\t\t1\thttp://x/a b\n") ==
          "index.tsv:2: the URL holds a space, a quote, a backslash or a control character");
  }

  TEST_CASE("a mirror replaces the list's host, whatever it is, never the path or the hash") {
    OfficialArchive archive{};
    archive.file_name = "a.tar.xz";
    archive.url = "https://developer.download.nvidia.com/compute/cudnn/redist/cudnn/linux-x86_64/a.tar.xz";
    CHECK(*archive_url(archive, "") == archive.url);
    CHECK(*archive_url(archive, "http://127.0.0.1:8000/mirror/") ==
          "http://127.0.0.1:8000/mirror/compute/cudnn/redist/cudnn/linux-x86_64/a.tar.xz");
    CHECK(*archive_url(archive, "https://m.example.org") ==
          "https://m.example.org/compute/cudnn/redist/cudnn/linux-x86_64/a.tar.xz");
    CHECK(archive_url(archive, "ftp://m.example.org").error().message ==
          "the mirror 'ftp://m.example.org' is neither an http:// or https:// URL nor a folder");
    CHECK(archive_url(archive, "https://m.example.org/a b").error().message ==
          "the mirror 'https://m.example.org/a b' is not a plain http:// or https:// URL");
    // A site's own list: its host is replaced as NVIDIA's is (where `mirror create` put the file); so is a
    // file:// folder's, and a host that only starts like NVIDIA's.
    archive.url = "https://cudnn.site.example/pub/cudnn/a.tar.xz";
    CHECK(*archive_url(archive, "") == archive.url);
    CHECK(*archive_url(archive, "https://m.example.org/") == "https://m.example.org/pub/cudnn/a.tar.xz");
    archive.url = "file:///srv/cudnn/a.tar.xz";
    CHECK(*archive_url(archive, "https://m.example.org") == "https://m.example.org/srv/cudnn/a.tar.xz");
    archive.url = "https://developer.download.nvidia.com.evil.example/a.tar.xz";
    CHECK(*archive_url(archive, "https://m.example.org") == "https://m.example.org/a.tar.xz");
    // A URL whose path does not end in the file's name, or leaves the mirror: no mirror holds it.
    archive.url = "https://cudnn.site.example/get?id=7";
    CHECK(archive_url(archive, "https://m.example.org").error().message ==
          "the list's URL 'https://cudnn.site.example/get?id=7' gives no plain path ending in a.tar.xz, so no mirror "
          "holds it");
    archive.url = "https://cudnn.site.example/pub/../../etc/a.tar.xz";
    CHECK(archive_url(archive, "https://m.example.org").error().message ==
          "the list's URL 'https://cudnn.site.example/pub/../../etc/a.tar.xz' gives no plain path ending in a.tar.xz, "
          "so no mirror holds it");
  }

  TEST_CASE("the helper's lines read back") {
    const TransferStart start{206, 1000, 9000};
    CHECK(format_transfer_start(start) == "cudnnenv-fetch status=206 offset=1000 length=9000\n");
    const auto again = parse_transfer_start("cudnnenv-fetch status=206 offset=1000 length=9000");
    REQUIRE(again);
    CHECK(again->status == 206);
    CHECK(again->offset == 1000);
    CHECK(again->length == 9000u);
    CHECK(parse_transfer_start(format_transfer_start(start))->length == 9000u);  // its own line, newline and all
    CHECK(!parse_transfer_start("cudnnenv-fetch status=200 offset=x"));
    CHECK(!parse_transfer_start("HTTP/1.1 200 OK"));
    CHECK(!parse_transfer_start("cudnnenv-fetch status=200 offset=0 length="));

    const TransferOutcome outcome{TransferFailure::http, 404, "The requested URL returned error: 404\nx",
                                  "http://h/a b"};
    const std::string line = format_transfer_outcome(outcome);
    CHECK(line == "failure=http status=404 url=http://h/a+b detail=The requested URL returned error: 404 x\n");
    const TransferOutcome read = parse_transfer_outcome(line);
    CHECK(read.failure == TransferFailure::http);
    CHECK(read.status == 404);
    CHECK(read.url == "http://h/a+b");
    CHECK(read.detail == "The requested URL returned error: 404 x");
    CHECK(parse_transfer_outcome("segfault").failure == TransferFailure::other);
    CHECK(parse_transfer_outcome("segfault").detail == "segfault");
  }

  TEST_CASE("the archive a version names: newest fit, then the CUDA toolkit found here") {
    const Platform windows{Os::windows, Arch::x86_64};
    const auto none = [](const CudaVersion&) { return false; };
    const auto only_11_2 = [](const CudaVersion& cuda) { return cuda.major == 11 && cuda.minor == 2; };
    const auto both = [](const CudaVersion&) { return true; };

    // 8.1.0.77 comes for CUDA 11.2 and 10.2 on Windows.
    const auto spec = *parse_spec("8.1");
    CHECK((*choose_archive(windows, spec, std::nullopt, only_11_2))->file_name ==
          "cudnn-11.2-windows-x64-v8.1.0.77.zip");
    CHECK((*choose_archive(windows, spec, CudaVersion{10, 2}, none))->file_name ==
          "cudnn-10.2-windows10-x64-v8.1.0.77.zip");
    const Error unclear = choose_archive(windows, spec, std::nullopt, none).error();
    CHECK(unclear.code == ExitCode::not_found);
    CHECK(unclear.message ==
          "cuDNN 8.1.0.77 comes for CUDA 11.2, 10.2, and no CUDA toolkit of these is installed here: say which");
    CHECK(unclear.hint ==
          "add --cuda with the CUDA version your framework was built for: 'cudnnenv install 8.1 --cuda 11.2', "
          "'cudnnenv install 8.1 --cuda 10.2'");
    // A lock looks at no toolkit (every machine resolves alike), and says nothing of this machine's.
    CHECK(choose_archive(windows, spec, std::nullopt, {}).error().message ==
          "cuDNN 8.1.0.77 comes for CUDA 11.2, 10.2, and the toolkits here do not choose for a lock: say which");
    CHECK(choose_archive(windows, spec, std::nullopt, both).error().message ==
          "cuDNN 8.1.0.77 comes for CUDA 11.2, 10.2, and 2 of their toolkits are here: say which");
    // Whole components: 8.1 never picks 8.10 (there is none), and 7.9 is not there at all.
    const Error missing = choose_archive(windows, *parse_spec("7.9"), std::nullopt, none).error();
    CHECK(missing.message == "no official cuDNN archive for windows-x86_64 matches '7.9'");
    CHECK(choose_archive(Platform{Os::windows, Arch::x86}, spec, std::nullopt, none).error().message ==
          "NVIDIA ships no cuDNN archive for Windows x86");
  }
}

}  // namespace cudnnenv
