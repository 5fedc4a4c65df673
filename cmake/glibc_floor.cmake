# The glibc floor: the shipped programs and modules that glibc loads (the
# probe, the download helper, selftest's loaders, the SPANK plugin) link
# against stand-ins of glibc's libraries that offer no symbol newer than
# CUDNNENV_GLIBC_FLOOR (cmake/glibc_floor.py), so that they start on every
# glibc from the floor up: RHEL 8 has 2.28, Ubuntu 22.04 2.35, this Debian
# 2.36. cudnnenv, the shim and the task prolog are static and need no floor.
# tests/lint/elf_floor.py checks the result.
set(CUDNNENV_GLIBC_FLOOR "2.28" CACHE STRING
    "the oldest glibc the Linux programs start on (empty: this machine's, as a plain link gives)")

if(CMAKE_SYSTEM_NAME STREQUAL "Linux" AND CUDNNENV_GLIBC_FLOOR AND NOT CUDNNENV_SANITIZE)
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  set(glibc_floor_dir ${CMAKE_BINARY_DIR}/glibc-${CUDNNENV_GLIBC_FLOOR})
  set(real_libraries "")
  foreach(name libc.so.6 libm.so.6)
    execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=${name} OUTPUT_VARIABLE path
                    OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
    list(APPEND real_libraries ${path})
  endforeach()
  # The dynamic loader: the one libc.so's linker script names.
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libc.so OUTPUT_VARIABLE libc_script
                  OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
  file(READ ${libc_script} libc_script_text)
  string(REGEX MATCH "AS_NEEDED \\( *([^ )]+)" _ "${libc_script_text}")
  list(APPEND real_libraries ${CMAKE_MATCH_1})
  add_custom_command(
    OUTPUT ${glibc_floor_dir}/libc.so
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/cmake/glibc_floor.py ${CMAKE_READELF} ${CMAKE_C_COMPILER}
            ${CUDNNENV_GLIBC_FLOOR} ${glibc_floor_dir} ${real_libraries}
    DEPENDS ${PROJECT_SOURCE_DIR}/cmake/glibc_floor.py
    COMMENT "Writing glibc ${CUDNNENV_GLIBC_FLOOR}'s stand-ins"
    VERBATIM)
  add_custom_target(cudnnenv_glibc_floor_stubs DEPENDS ${glibc_floor_dir}/libc.so)
  add_library(cudnnenv_glibc_floor OBJECT ${PROJECT_SOURCE_DIR}/cmake/glibc_floor.c)
endif()

# cudnnenv_glibc_floor(TARGET...): link each program or module to the floor.
function(cudnnenv_glibc_floor)
  if(NOT TARGET cudnnenv_glibc_floor_stubs)
    return()
  endif()
  foreach(target ${ARGN})
    add_dependencies(${target} cudnnenv_glibc_floor_stubs)
    target_link_options(${target} PRIVATE -L${glibc_floor_dir})
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "EXECUTABLE")
      target_sources(${target} PRIVATE $<TARGET_OBJECTS:cudnnenv_glibc_floor>)
      target_link_options(${target} PRIVATE -Wl,--wrap=main)
    endif()
  endforeach()
endfunction()
