#include <doctest/doctest.h>

#include "probe/probe.hpp"
#include "probe/protocol.hpp"

namespace cudnnenv {

TEST_SUITE("probe/protocol") {
  TEST_CASE("key=value lines: in order, repeated keys kept, values trimmed, other lines skipped") {
    const auto pairs =
        probe_protocol::parse_key_values("gpu=NVIDIA H200\nnoise\nconv=a ok \r\nconv=b ok\n=x\nempty=\n");
    using Pairs = std::vector<std::pair<std::string, std::string>>;
    CHECK(pairs == Pairs{{"gpu", "NVIDIA H200"}, {"conv", "a ok"}, {"conv", "b ok"}, {"", "x"}, {"empty", ""}});
  }

  TEST_CASE("the load probe's report: version, CUDA runtime, the file mapped") {
    const auto report =
        parse_probe_output("cudnn_version=91900\ncudart_version=13000\nloaded_from=/opt/x/libcudnn.so.9\n");
    REQUIRE(report);
    CHECK(report->version_raw == 91900);
    REQUIRE(report->cudart_raw);
    CHECK(*report->cudart_raw == 13000);
    CHECK(report->loaded_from == "/opt/x/libcudnn.so.9");
  }

  TEST_CASE("a report without a version, or with a number that is not one, is no report") {
    CHECK_FALSE(parse_probe_output("loaded_from=/x\n"));
    CHECK_FALSE(parse_probe_output(""));
    CHECK_FALSE(parse_probe_output("cudnn_version=9x\n"));
    CHECK_FALSE(parse_probe_output("cudnn_version=-1\n"));
    CHECK_FALSE(parse_probe_output("cudnn_version=99999999999999999999999\n"));
    CHECK_FALSE(parse_probe_output("cudnn_version=8100\ncudart_version=\n"));
  }

  TEST_CASE("the CUDA runtime is optional: 7.x exports no cudnnGetCudartVersion") {
    const auto report = parse_probe_output("cudnn_version=7605\nloaded_from=C:\\x\\cudnn64_7.dll\n");
    REQUIRE(report);
    CHECK(report->version_raw == 7605);
    CHECK_FALSE(report->cudart_raw);
  }
}

}  // namespace cudnnenv
