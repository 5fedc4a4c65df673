# Cross-compiling for Linux aarch64 (Grace Hopper, Jetson, sbsa nodes) with
# Debian's cross compiler and its multiarch arm64 libraries (dpkg
# --add-architecture arm64; scripts/install-deps.sh). Debian's cross gcc
# searches /usr/include/aarch64-linux-gnu and /usr/lib/aarch64-linux-gnu
# itself; CMake finds the arm64 libraries there by the compiler's library
# architecture.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# The programs run under qemu's user mode, with the arm64 loader and C
# library that libc6:arm64 installs in /lib/aarch64-linux-gnu.
find_program(QEMU_AARCH64 NAMES qemu-aarch64-static qemu-aarch64)
if(QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${QEMU_AARCH64})
endif()
# pkg-config (FindOpenSSL, FindCURL) reads the arm64 libraries' .pc files.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
