#include <doctest/doctest.h>

TEST_CASE("outside") {}
