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

  TEST_CASE("--device: an index, all, or a list; anything else is refused") {
    using probe_protocol::parse_device_choice;
    const auto one = parse_device_choice("3");
    REQUIRE(one);
    CHECK(one->indices == std::vector<int>{3});
    CHECK_FALSE(one->all);
    CHECK_FALSE(one->sections);
    const auto all = parse_device_choice("all");
    REQUIRE(all);
    CHECK(all->all);
    CHECK(all->indices.empty());
    CHECK(all->sections);
    const auto list = parse_device_choice("0,2,5");
    REQUIRE(list);
    CHECK(list->indices == std::vector<int>{0, 2, 5});
    CHECK(list->sections);
    for (const char* bad :
         {"", "-1", "1,", ",1", "1,,2", "1,1", "x", "ALL", "1 ", " 1", "0x1", "1024", "2,9999999999"}) {
      CHECK_MESSAGE(!parse_device_choice(bad), bad);
    }
  }

  TEST_CASE("a report of several GPUs: the run's lines, then each GPU's after its device_begin") {
    const auto sections = probe_protocol::split_devices(
        "driver_cuda=13.0\ncudnn_load_ms=80.1\ndevice_begin=0\ngpu=NVIDIA H200\nconv_result=pass\n"
        "device_begin=2\ngpu_busy=GPU 2 is busy: it is in exclusive-process mode and another process holds it\n");
    CHECK(sections.run == "driver_cuda=13.0\ncudnn_load_ms=80.1\n");
    REQUIRE(sections.devices.size() == 2);
    CHECK(sections.devices[0].first == 0);
    CHECK(sections.devices[0].second == "gpu=NVIDIA H200\nconv_result=pass\n");
    CHECK(sections.devices[1].first == 2);
    const auto busy = probe_protocol::parse_gpu_report(sections.devices[1].second);
    CHECK(busy.gpu_busy ==
          std::optional<std::string>("GPU 2 is busy: it is in exclusive-process mode and another process holds it"));
    CHECK(busy.problems() == *busy.gpu_busy);
    CHECK(probe_protocol::split_devices("gpu=x\n").devices.empty());
  }
}

}  // namespace cudnnenv
