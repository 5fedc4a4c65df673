#include <doctest/doctest.h>

TEST_SUITE("store") {
  TEST_CASE("x") {}
}

TEST_SUITE("store/store") {}
