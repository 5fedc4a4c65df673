#include <doctest/doctest.h>

#include "formats/archive_name.hpp"

namespace cudnnenv {

TEST_SUITE("formats/archive_name") {
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
