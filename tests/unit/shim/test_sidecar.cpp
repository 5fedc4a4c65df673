#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include "sidecar.hpp"

namespace cudnnenv {

TEST_SUITE("shim/sidecar") {
  TEST_CASE("a sidecar is parsed in place: CRLF, comments, blanks") {
    char text[] = "# a comment\r\ncudnnenv = C:\\cudnnenv\\cudnnenv.exe\r\n\r\n  root =  C:\\libs  \r\npath = x y\0";
    shim::Sidecar sidecar;
    char error[256] = {};
    REQUIRE(shim::parse_sidecar(text, std::strlen(text), sidecar, error, sizeof error, "show"));
    CHECK(std::string(sidecar.cudnnenv) == "C:\\cudnnenv\\cudnnenv.exe");
    CHECK(std::string(sidecar.root) == "C:\\libs");
    CHECK(std::string(sidecar.path) == "x y");
    CHECK(std::string(sidecar.args).empty());
  }

  TEST_CASE("a bad sidecar says which line, or what is missing") {
    char error[256] = {};
    shim::Sidecar sidecar;
    char unknown[] = "path = /bin/true\ncolour = red\n\0";
    CHECK_FALSE(shim::parse_sidecar(unknown, std::strlen(unknown), sidecar, error, sizeof error, "show"));
    CHECK(std::string(error) ==
          "line 2: unknown key 'colour' (known: cudnnenv, root, state, audit, path, args, cudnn, runtime, "
          "nccl, tensorrt)");
    char no_tree[] = "path = /bin/true\n\0";
    CHECK_FALSE(shim::parse_sidecar(no_tree, std::strlen(no_tree), sidecar, error, sizeof error, "show"));
    CHECK(std::string(error) ==
          "no 'cudnnenv = ...' and 'root = ...' to select a tree: write it again: cudnnenv shim add show");
    // A sidecar from before there was one start: refused, with the command that writes it again.
    char fixed_pin[] = "cudnnenv = /c\nroot = /r\nlibrary_dir = /store/tree/lib\n\0";
    CHECK_FALSE(shim::parse_sidecar(fixed_pin, std::strlen(fixed_pin), sidecar, error, sizeof error, "show"));
    CHECK(std::string(error) ==
          "line 3: 'library_dir' is no longer read: a shim starts what 'cudnnenv exec' decides; write it again: "
          "cudnnenv shim add show");
    char pinned_without_path[] = "cudnnenv = /c\nroot = /r\ncudnn = 9.1\n\0";
    CHECK_FALSE(shim::parse_sidecar(pinned_without_path, std::strlen(pinned_without_path), sidecar, error, sizeof error,
                                    "show"));
    CHECK(std::string(error) == "'cudnn = ...' needs 'cudnnenv = ...', 'root = ...' and 'path = ...'");
    char runtime_alone[] = "cudnnenv = /c\nroot = /r\nruntime = rt12.1\n\0";
    CHECK_FALSE(shim::parse_sidecar(runtime_alone, std::strlen(runtime_alone), sidecar, error, sizeof error, "show"));
    CHECK(std::string(error) == "'runtime = ...' goes with 'cudnn = ...'");
  }

  TEST_CASE("a launcher's sidecar names the tree every start is pinned to") {
    char text[] = "cudnnenv = /opt/cudnnenv\nroot = /store\npath = /usr/bin/python3\ncudnn = tree 9.1 & é\n\0";
    shim::Sidecar sidecar;
    char error[256] = {};
    REQUIRE(shim::parse_sidecar(text, std::strlen(text), sidecar, error, sizeof error, "show"));
    CHECK(std::string(sidecar.cudnn) == "tree 9.1 & é");
    CHECK(std::string(sidecar.beside[1]).empty());
    CHECK(std::string(sidecar.path) == "/usr/bin/python3");
    char with_runtime[] = "cudnnenv = /c\nroot = /r\npath = /p\ncudnn = tf2.18\nruntime = cuda-12.4.1\n\0";
    REQUIRE(shim::parse_sidecar(with_runtime, std::strlen(with_runtime), sidecar, error, sizeof error, "show"));
    CHECK(std::string(sidecar.cudnn) == "tf2.18");
    CHECK(std::string(sidecar.beside[1]) == "cuda-12.4.1");
    CHECK(std::string(sidecar.beside[2]).empty());
    // A key per row of the component table beside cuDNN, its JSON key: exec's flag for it.
    char with_nccl[] = "cudnnenv = /c\nroot = /r\npath = /p\ncudnn = t\nnccl = nccl-2.26.2\n\0";
    REQUIRE(shim::parse_sidecar(with_nccl, std::strlen(with_nccl), sidecar, error, sizeof error, "show"));
    CHECK(std::string(sidecar.beside[1]).empty());
    CHECK(std::string(sidecar.beside[2]) == "nccl-2.26.2");
    CHECK(std::string(shim::k_beside_keys[2]) == "nccl");
    CHECK(std::string(shim::k_beside_flags[2]) == "--nccl");
    char unknown[] = "cudnnenv = /c\nroot = /r\nnvinfer = x\n\0";
    CHECK_FALSE(shim::parse_sidecar(unknown, std::strlen(unknown), sidecar, error, sizeof error, "show"));
    CHECK(std::string(error) ==
          "line 3: unknown key 'nvinfer' (known: cudnnenv, root, state, audit, path, args, cudnn, runtime, "
          "nccl, tensorrt)");
  }
}

}  // namespace cudnnenv
