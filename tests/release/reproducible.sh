#!/usr/bin/env bash
# Reproducible (#60): the same sources, copied into another folder and built
# again there later by scripts/release.sh alone (its dist-linux-x86_64
# preset), give the same SHA256SUMS as DIST, byte for byte. The Windows and
# aarch64 programs are packed from the test command's builds (build/mingw,
# build/dist-linux-aarch64), not built a second time: those builds do not fit
# the test command's 30 minutes on two cores. They take the same flags and
# the same packing; CUDNNENV_REPRODUCE_ALL=1 builds Windows again too, and
# `bash scripts/release.sh --out DIR` in two folders compares all three.
source "$(dirname "$0")/lib.sh" "$@"
repo=$(cd "$E2E_DIR/../.." && pwd)
SOURCE_DATE_EPOCH=$(git -C "$repo" log -1 --format=%ct)
export SOURCE_DATE_EPOCH
mkdir "other folder"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard | xargs -0 tar -cf - --no-recursion) |
  tar -xf - -C "other folder"
windows=(--windows-build "$repo/build/mingw")
[ "${CUDNNENV_REPRODUCE_ALL:-0}" = 1 ] && windows=()
(cd "other folder" &&
  bash scripts/release.sh "${windows[@]}" --aarch64-build "$repo/build/dist-linux-aarch64" --out "$WORK/dist2") \
  > release.out 2>&1 ||
  fail "scripts/release.sh in another folder: $(tail -30 release.out)"
diff "$DIST/SHA256SUMS" dist2/SHA256SUMS > sums.diff || fail "two builds differ: $(cat sums.diff)"
pass "a second build in another folder, later: the same SHA256SUMS ($(wc -l < dist2/SHA256SUMS) files; $([ ${#windows[@]} = 0 ] && echo "aarch64's" || echo "Windows' and aarch64's") packed again from one build)"
