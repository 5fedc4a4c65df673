#include <doctest/doctest.h>

#include "select/profile.hpp"
#include "select/project.hpp"
#include "support.hpp"
#include "util/text.hpp"

namespace cudnnenv {

TEST_SUITE("select/profile") {
  TEST_CASE("the built-in TensorFlow profiles: Windows to tf2.10, Linux to tf2.21, each with cuDNN and CUDA") {
    const auto tensorflow = [](std::vector<Profile> all) {
      std::erase_if(all, [](const Profile& each) { return !util::starts_with(each.name, "tf"); });
      return all;
    };
    auto windows_all = all_profiles(Os::windows, {});
    REQUIRE(windows_all);
    const auto windows = tensorflow(*windows_all);
    REQUIRE(windows.size() == 7);
    CHECK(windows.front().name == "tf2.4");
    CHECK(windows.back().name == "tf2.10");
    CHECK(windows.back().cudnn == "8.1");
    CHECK(windows.back().cuda == "11.2");
    auto linux_all = all_profiles(Os::linux, {});
    REQUIRE(linux_all);
    const auto linux = tensorflow(*linux_all);
    CHECK(linux.back().name == "tf2.21");
    CHECK(linux.back().cudnn == "9.3");
    auto tf2_5 = find_profile("tf2.5", Os::windows, {});
    REQUIRE(tf2_5);
    CHECK(tf2_5->framework == "TensorFlow 2.5");
    auto missing = find_profile("tf2.11", Os::windows, {});
    REQUIRE_FALSE(missing);
    CHECK(missing.error().message == "there is no profile 'tf2.11' for Windows");
  }

  TEST_CASE("the built-in PyTorch and JAX profiles: the cuDNN their pip builds pin, per CUDA variant") {
    auto torch = find_profile("torch2.8-cu128", Os::linux, {});
    REQUIRE(torch);
    CHECK(torch->framework == "PyTorch 2.8 (cu128)");
    CHECK(torch->cudnn == "9.10.2");
    CHECK(torch->cuda == "12.8");
    CHECK(find_profile("torch2.5-cu124", Os::windows, {}));
    CHECK(find_profile("torch2.8-cu128", Os::windows, {}).error().message ==
          "there is no profile 'torch2.8-cu128' for Windows");
    auto jax = find_profile("jax-cuda12", Os::linux, {});
    REQUIRE(jax);
    CHECK(jax->cudnn == "9.8");
    CHECK(jax->cuda == "12");
    CHECK_FALSE(find_profile("jax-cuda12", Os::windows, {}));
    // A name without its CUDA variant: each profile it starts.
    const auto variants = find_profile("torch2.5", Os::linux, {});
    CHECK(variants.error().message == "there is no profile 'torch2.5' for Linux");
    CHECK(variants.error().hint == "did you mean 'torch2.5-cu121' or 'torch2.5-cu124'?");
    CHECK(find_profile("torch2.11", Os::linux, {}).error().hint == "did you mean 'torch2.11-cu130'?");
    CHECK(find_profile("torch2.9", Os::linux, {}).error().hint ==
          "did you mean 'torch2.9-cu126', 'torch2.9-cu128' or 'torch2.9-cu130'?");
  }

  TEST_CASE("the user's profiles in config.toml, one replacing a built-in; a broken one is an error with its place") {
    test::write_binary("config.toml",
                       "default = \"9\"\n[profiles.mine]\ncudnn = \"9.1\"\ncuda = \"12.2\"\n"
                       "[profiles.mine.env]\nX = \"1\"\n[profiles.\"tf2.5\"]\ncudnn = \"8.9\"\n");
    REQUIRE(read_config("config.toml"));  // the config's own reader leaves [profiles] alone
    auto mine = find_profile("mine", host_platform().os, {"config.toml"});
    REQUIRE(mine);
    CHECK(mine->cudnn == "9.1");
    CHECK(mine->env == std::vector<std::pair<std::string, std::string>>{{"X", "1"}});
    auto replaced = find_profile("tf2.5", host_platform().os, {"config.toml"});
    REQUIRE(replaced);
    CHECK(replaced->cudnn == "8.9");

    test::write_binary("config.toml", "[profiles.bad]\ncuda = \"12\"\n");
    auto bad = all_profiles(host_platform().os, {"config.toml"});
    REQUIRE_FALSE(bad);
    CHECK(bad.error().message == "config.toml:1:1: profile 'bad' needs cudnn = \"<version>\"");
  }
}

}  // namespace cudnnenv
