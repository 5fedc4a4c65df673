#include <doctest/doctest.h>

#include "download/runtime.hpp"

namespace cudnnenv {

TEST_SUITE("download/runtime") {
  TEST_CASE("install PROFILE's runtime: the profile's release, else the newest of its major, else an error") {
    const std::vector<Version> known = {*parse_version("13.0.2"), *parse_version("12.8.1"), *parse_version("12.4.1"),
                                        *parse_version("11.8.0")};
    auto exact = runtime_release_for(*parse_cuda_version("12.4"), known, "PyTorch 2.5");
    REQUIRE(exact);
    CHECK(exact->release == "12.4.1");
    CHECK_FALSE(exact->newest_of_major);
    auto newest = runtime_release_for(*parse_cuda_version("11.2"), known, "TensorFlow 2.5");
    REQUIRE(newest);
    CHECK(newest->release == "11.8.0");
    CHECK(newest->newest_of_major);
    auto none = runtime_release_for(*parse_cuda_version("10.1"), known, "TensorFlow 2.2");
    REQUIRE_FALSE(none);
    CHECK(none.error().message == "no CUDA 10 release is known to install TensorFlow 2.2's runtime from");
    CHECK(none.error().hint ==
          "'cudnnenv list --available cuda' lists them; a release whose manifest is not pinned: 'cudnnenv install cuda "
          "10.1.N --allow-unverified'");
  }
}

}  // namespace cudnnenv
