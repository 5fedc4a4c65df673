#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "util/json.hpp"

namespace cudnnenv {

namespace {

// `keys` members "k0": 0 .. in one object; or, with `separator` ',', the
// same strings and numbers as one array (what every parser reads in linear
// time: the baseline for this machine's caches and allocator).
std::string object_of(std::size_t keys, char separator = ':') {
  std::string text = separator == ':' ? "{" : "[";
  for (std::size_t i = 0; i < keys; ++i) {
    text += (i ? ",\"k" : "\"k") + std::to_string(i) + "\"" + separator + std::to_string(i);
  }
  return text + (separator == ':' ? "}" : "]");
}

// `keys` members of one object whose keys all have one std::hash (libstdc++'s
// MurmurHash64A, whatever its seed): each key is 17 pairs of 8-byte words,
// each pair (a, a) or (b, b), where mix(b) is mix(a) with bit 63 flipped, so
// the state after the first word of a pair differs only in bit 63 and the
// second word cancels it. `a` is found so that `b` is ASCII too.
std::string colliding_object_of(std::size_t keys, std::string* first_two = nullptr) {
  constexpr std::uint64_t m = 0xc6a4a7935bd1e995ULL;
  std::uint64_t inverse = m;  // m^-1 mod 2^64, by Newton's iteration
  for (int i = 0; i < 6; ++i) inverse *= 2 - m * inverse;
  const auto mix = [&](std::uint64_t k) {
    k *= m;
    k ^= k >> 47;
    return k * m;
  };
  const auto unmix = [&](std::uint64_t y) {
    y *= inverse;
    y ^= y >> 47;
    return y * inverse;
  };
  // Byte ranges in which the partner's bytes stay ASCII (the difference's bytes are 00 00 43 e6 64 1a 58 71).
  constexpr unsigned char low[8] = {0x61, 0x61, 0x20, 0x1a, 0x01, 0x20, 0x20, 0x01};
  constexpr unsigned char high[8] = {0x7a, 0x7a, 0x3c, 0x7e, 0x1a, 0x65, 0x27, 0x0e};
  std::uint64_t seed = 1;
  std::string one;
  std::string other;
  for (;;) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    std::uint64_t a = 0;
    for (int i = 0; i < 8; ++i) {
      const auto byte = static_cast<std::uint64_t>(low[i] + (seed >> (8 * i)) % (high[i] - low[i] + 1));
      a |= byte << (8 * i);
    }
    const std::uint64_t b = unmix(mix(a) ^ (std::uint64_t{1} << 63));
    bool ascii = true;
    for (int i = 0; i < 8; ++i) {
      const auto byte = (b >> (8 * i)) & 0xff;
      ascii = ascii && byte > 0 && byte < 0x80;
    }
    if (!ascii) continue;
    for (int i = 0; i < 16; ++i) {
      one += static_cast<char>((a >> (8 * (i % 8))) & 0xff);
      other += static_cast<char>((b >> (8 * (i % 8))) & 0xff);
    }
    break;
  }
  const auto key = [&](std::size_t index) {
    std::string text;
    for (int bit = 0; bit < 17; ++bit) text += (index >> bit & 1) ? other : one;
    return text;
  };
  if (first_two) *first_two = key(0) + '\n' + key(1);
  const auto escaped = [](const std::string& text) {
    std::string out;
    for (const char c : text) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += c;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        const char* digits = "0123456789abcdef";
        out += std::string("\\u00") + digits[(c >> 4) & 0xf] + digits[c & 0xf];
      } else {
        out += c;
      }
    }
    return out;
  };
  std::string text = "{";
  for (std::size_t i = 0; i < keys; ++i) {
    text += (i ? ",\"" : "\"") + escaped(key(i)) + "\":" + std::to_string(i);
  }
  return text + "}";
}

// The fastest of five parses of `text`, in seconds.
double parse_seconds(const std::string& text) {
  double best = 1e9;
  for (int round = 0; round < 5; ++round) {
    const auto start = std::chrono::steady_clock::now();
    const Json json = parse_json(text);
    REQUIRE_FALSE(json.is_discarded());
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

}  // namespace

TEST_SUITE("util/json") {
  TEST_CASE("parse_json keeps the text's key order, nested too; a repeated key keeps its place and its last value") {
    const Json json = parse_json(R"({"b": 1, "a": {"z": [1, {"y": null, "x": true}], "c": "s"}, "b": 2})");
    REQUIRE(json.is_object());
    CHECK(json.dump() == R"({"b":2,"a":{"z":[1,{"y":null,"x":true}],"c":"s"}})");
    CHECK(parse_json("[1, 2.5, -3, \"\\u00e9\"]").dump() == "[1,2.5,-3,\"\xC3\xA9\"]");
    CHECK(parse_json("7").dump() == "7");
  }

  TEST_CASE("parse_json: what is not JSON is discarded, never thrown") {
    for (const char* text : {"", "{", "{\"a\":}", "[1,]", "{\"a\" 1}", "nul", "{} {}", "\"\\ud800\""}) {
      CAPTURE(text);
      CHECK(parse_json(text).is_discarded());
    }
  }

  TEST_CASE("parse_json takes time linear in the keys of one object: 10x the keys, not 100x the time") {
    // nlohmann's ordered parse searched every earlier key: 10x the keys took 100x the time. Here 10x the
    // values of an array, which every parser reads in linear time, takes 7-19x the time (caches, the
    // allocator, a test running beside this one on two cores), as does 10x the keys now: the check sits
    // between the two behaviours, and the message gives the array's figure from the same run.
    const std::string small = object_of(20000);
    const std::string large = object_of(200000);
    const double ratio = parse_seconds(large) / parse_seconds(small);
    const double linear = parse_seconds(object_of(200000, ',')) / parse_seconds(object_of(20000, ','));
    MESSAGE("10x the keys of one object: " << ratio << "x the time; 10x the values of an array: " << linear << "x");
    CHECK(ratio < 40);
    const Json json = parse_json(large);
    CHECK(json.size() == 200000);
    CHECK(json.begin().key() == "k0");
    CHECK(json.back() == 199999);
  }

  TEST_CASE("parse_json: keys crafted to share one std::hash are read in n log n time, not quadratic") {
    // A table over libstdc++'s hash (its seed is fixed) probed every earlier key for each such key:
    // 10x the keys took 100x the time. Sorting the members costs about 13x for 10x; the check leaves
    // room for two busy cores, as the test above.
    std::string pair;
    const std::string small = colliding_object_of(2000, &pair);
    const std::string first = pair.substr(0, pair.find('\n'));
    const std::string second = pair.substr(pair.find('\n') + 1);
    REQUIRE(first != second);
    REQUIRE(std::hash<std::string_view>{}(first) == std::hash<std::string_view>{}(second));  // the keys collide here
    const std::string large = colliding_object_of(20000);
    const double ratio = parse_seconds(large) / parse_seconds(small);
    MESSAGE("10x the keys of one hash: " << ratio << "x the time");
    CHECK(ratio < 25);
    const Json json = parse_json(large);
    CHECK(json.size() == 20000);
    CHECK(json.back() == 19999);
  }
}

}  // namespace cudnnenv
