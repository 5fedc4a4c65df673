#include <doctest/doctest.h>

#include "formats/archive_name.hpp"
#include "formats/version.hpp"

namespace cudnnenv {

TEST_SUITE("formats/version") {
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

  TEST_CASE("a version header cut after '#define CUDNN_MAJOR ' has no version") {
    CHECK_FALSE(parse_version_header("#define CUDNN_MAJOR "));
    CHECK_FALSE(parse_version_header("#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL "));
    CHECK_FALSE(
        parse_version_header("#define CUDNN_MAJOR 99999999999999\n#define CUDNN_MINOR 1\n"
                             "#define CUDNN_PATCHLEVEL 0\n"));
  }
}

}  // namespace cudnnenv
