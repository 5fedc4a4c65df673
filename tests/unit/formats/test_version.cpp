#include <doctest/doctest.h>

#include "formats/archive_name.hpp"
#include "formats/version.hpp"

namespace cudnnenv {

TEST_SUITE("version") {
  TEST_CASE("versions parse with 2 to 4 numeric fields") {
    CHECK(parse_version("8.1")->str() == "8.1.0");
    CHECK(parse_version("8.1.0.77")->str() == "8.1.0.77");
    CHECK(parse_version("8.1.0.77")->build == 77);
    CHECK_FALSE(parse_version("8"));
    CHECK_FALSE(parse_version("8.x"));
    CHECK_FALSE(parse_version("8.1.0.77.1"));
    CHECK_FALSE(parse_version("8..1"));
  }

  TEST_CASE("versions order numerically, not as text") {
    CHECK(*parse_version("8.10.0") > *parse_version("8.9.7"));
    CHECK(*parse_version("9.1.0") > *parse_version("8.9.7.29"));
    CHECK(*parse_version("8.1.0.77") > *parse_version("8.1.0"));
  }

  TEST_CASE("header macros give the version, for 7.x cudnn.h and 8.x/9.x cudnn_version.h") {
    const char* seven =
        "#define CUDNN_MAJOR 7\n#define CUDNN_MINOR 6\n#define CUDNN_PATCHLEVEL 5\n"
        "#define CUDNN_VERSION (CUDNN_MAJOR * 1000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)\n";
    CHECK(parse_version_header(seven)->str() == "7.6.5");
    const char* nine =
        "#ifndef CUDNN_VERSION_H\n#define CUDNN_MAJOR_FAKE 1\n#define  CUDNN_MAJOR\t9\n"
        "#define CUDNN_MINOR 10\n#define CUDNN_PATCHLEVEL 2\n";
    CHECK(parse_version_header(nine)->str() == "9.10.2");
    CHECK_FALSE(parse_version_header("#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n"));
  }

  TEST_CASE("cudnnGetVersion values decode per major") {
    CHECK(decode_cudnn_version(7605).str() == "7.6.5");
    CHECK(decode_cudnn_version(8005).str() == "8.0.5");
    CHECK(decode_cudnn_version(8907).str() == "8.9.7");
    CHECK(decode_cudnn_version(90100).str() == "9.1.0");
    CHECK(decode_cudnn_version(91002).str() == "9.10.2");
    CHECK(encode_cudnn_version(*parse_version("8.1.0")) == 8100);
    CHECK(encode_cudnn_version(*parse_version("9.19.0")) == 91900);
  }

  TEST_CASE("cudart versions decode as major*1000 + minor*10") {
    CHECK(decode_cudart_version(11080).str() == "11.8");
    CHECK(decode_cudart_version(12020).str() == "12.2");
    CHECK(decode_cudart_version(13000).str() == "13.0");
  }
}

TEST_SUITE("archive_name") {
  TEST_CASE("legacy Windows zip names carry CUDA, version and build") {
    const auto name = parse_archive_name("cudnn-11.2-windows-x64-v8.1.0.77.zip");
    CHECK(name.stem == "cudnn-11.2-windows-x64-v8.1.0.77");
    CHECK(name.version->str() == "8.1.0.77");
    CHECK(name.cuda->str() == "11.2");
    CHECK(name.platform == Platform{Os::windows, Arch::x86_64});
  }

  TEST_CASE("archive-style names, Windows and Linux") {
    const auto windows = parse_archive_name("cudnn-windows-x86_64-8.9.7.29_cuda12-archive.zip");
    CHECK(windows.stem == "cudnn-windows-x86_64-8.9.7.29_cuda12-archive");
    CHECK(windows.version->str() == "8.9.7.29");
    CHECK(windows.cuda->str() == "12");
    CHECK(windows.platform == Platform{Os::windows, Arch::x86_64});
    const auto linux = parse_archive_name("cudnn-linux-sbsa-9.1.0.70_cuda12-archive.tar.xz");
    CHECK(linux.stem == "cudnn-linux-sbsa-9.1.0.70_cuda12-archive");
    CHECK(linux.platform == Platform{Os::linux, Arch::arm64});
    CHECK(parse_archive_name("cudnn-10.2-linux-x64-v7.6.5.32.tgz").version->str() == "7.6.5.32");
  }

  TEST_CASE("wheel names carry the CUDA major and the platform tag") {
    const auto wheel = parse_archive_name("nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux2014_x86_64.whl");
    CHECK(wheel.wheel);
    CHECK(wheel.version->str() == "9.1.0.70");
    CHECK(wheel.cuda->str() == "12");
    CHECK(wheel.platform == Platform{Os::linux, Arch::x86_64});
    CHECK(parse_archive_name("nvidia_cudnn_cu11-8.9.4.25-py3-none-win_amd64.whl").platform ==
          Platform{Os::windows, Arch::x86_64});
  }

  TEST_CASE("other names give only the stem; wheel metadata fills in") {
    auto name = parse_archive_name("my-cudnn-copy.whl");
    CHECK(name.stem == "my-cudnn-copy");
    CHECK_FALSE(name.version);
    CHECK_FALSE(name.cuda);
    apply_wheel_metadata("Metadata-Version: 2.1\nName: nvidia-cudnn-cu13\nVersion: 9.13.0.50\n\nName: ignored\n", name);
    CHECK(name.cuda->str() == "13");
    CHECK(name.version->str() == "9.13.0.50");
  }
}

}  // namespace cudnnenv
