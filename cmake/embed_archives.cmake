# Turns the official-archive table (TSV: version, platform, cuda_variant,
# filename, sha256, size_bytes, url, ...) into C++ initialisers.
# Usage: cmake -DINPUT=<tsv> -DOUTPUT=<inc> -P embed_archives.cmake
file(STRINGS "${INPUT}" lines)
list(POP_FRONT lines)  # the header row
set(out "// Generated from ${INPUT}; do not edit.\n")
foreach(line IN LISTS lines)
  # A regex rather than a CMake list: later columns hold ';' and '['.
  if(NOT line MATCHES "^([^\t]*)\t([^\t]*)\t([^\t]*)\t([^\t]*)\t([0-9a-f]+)\t([^\t]*)\t(https://[^\t\"\\]*)")
    continue()
  endif()
  set(version "${CMAKE_MATCH_1}")
  set(platform "${CMAKE_MATCH_2}")
  set(variant "${CMAKE_MATCH_3}")
  set(name "${CMAKE_MATCH_4}")
  set(sha "${CMAKE_MATCH_5}")
  set(size "${CMAKE_MATCH_6}")
  set(url "${CMAKE_MATCH_7}")
  if(NOT size MATCHES "^[0-9]+$")
    set(size 0)
  endif()
  string(APPEND out "{\"${version}\", \"${platform}\", \"${variant}\", \"${name}\", \"${sha}\", ${size}ULL, \"${url}\"},\n")
endforeach()
file(WRITE "${OUTPUT}.tmp" "${out}")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
