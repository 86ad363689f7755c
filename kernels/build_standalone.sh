#!/usr/bin/env bash
# build_standalone.sh - build the kernels (CUDA and CPU twins) with the CLI's self-test and
# benchmark straight through nvcc and gcc, for machines with a GPU but without meson or
# Jansson; then run both and keep their output.
#
#   OUT=/some/dir kernels/build_standalone.sh [--quick] [--no-run] [--sanitize]
#
# NVFLAGS adds nvcc options (the kernels' tuning macros: PD_SEGS_32, PD_CS_32, PD_SEGS_16,
# PD_CS_16, PD_UNROLL, PD_STATS_TARGET, PD_STATS_MINB, PD_RACE_MINB, PD_RACE_TARGET), to compare
# variants on one machine.
# Writes $OUT/build.txt, $OUT/gpu.txt (nvidia-smi), $OUT/selftest.txt, $OUT/bench.txt, and
# with --sanitize $OUT/memcheck.txt and $OUT/racecheck.txt (compute-sanitizer over the quick
# self-test). Each step has a time limit (a kernel that never ends must not hold the machine).
# Exits non-zero when the build, the self-test or a sanitizer fails.
set -euo pipefail
cd "$(dirname "$0")/.."

quick=()
run=1
sanitize=0
for a in "$@"; do
  case "$a" in
    --quick) quick=(--quick) ;;
    --no-run) run=0 ;;
    --sanitize) sanitize=1 ;;
    *) echo "usage: $0 [--quick] [--no-run] [--sanitize]" >&2; exit 2 ;;
  esac
done

OUT=${OUT:-/tmp/pushdown-kernels}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
CC=${CC:-gcc}
mkdir -p "$OUT"
obj=$(mktemp -d)
trap 'rm -rf "$obj"' EXIT

inc=(-Iinclude -I. -Ikernels)
cflags=(-std=c11 -O2 -Wall -Wextra -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
        -DPD_SHARED_DATA_DEFAULT=\"/nonexistent\")
{
  echo "nvcc: $("$NVCC" --version | tail -1)"
  for cu in device bitmask verify unfused; do # side by side: nvcc is slow, cores are not
    "$NVCC" -std=c++17 -O3 --fmad=false -gencode 'arch=compute_90,code=[sm_90,compute_90]' \
      ${NVFLAGS:-} "${inc[@]}" -c "kernels/$cu.cu" -o "$obj/$cu.cu.o" &
  done
  wait
  for c in kernels/philox.c kernels/bitmask.c kernels/verify.c base/error.c base/alloc.c \
           cli/kernels.c cli/util.c; do
    "$CC" "${cflags[@]}" "${inc[@]}" -Icli -c "$c" -o "$obj/$(echo "$c" | tr / _).o"
  done
  # the two subcommands, without the rest of the CLI (which needs the whole library)
  cat > "$obj/main.c" <<'MAIN'
#include <stdio.h>
#include <string.h>
#include "commands.h"
int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "kernels-selftest"))
    return pd_cli_kernels_selftest(argc - 1, argv + 1);
  if (argc > 1 && !strcmp(argv[1], "bench")) return pd_cli_bench(argc - 1, argv + 1);
  fprintf(stderr, "usage: %s kernels-selftest [--quick] | bench kernels [--quick]\n", argv[0]);
  return 2;
}
MAIN
  "$CC" "${cflags[@]}" -Icli -c "$obj/main.c" -o "$obj/main.o"
  "$NVCC" -o "$obj/pushdown-kernels" "$obj"/*.o -lm
  echo "built $obj/pushdown-kernels"
} 2>&1 | tee "$OUT/build.txt"
[ -x "$obj/pushdown-kernels" ] || exit 1
cp "$obj/pushdown-kernels" "$OUT/" 2>/dev/null || true
[ "$run" = 1 ] || exit 0

(nvidia-smi || echo "nvidia-smi: not available") > "$OUT/gpu.txt" 2>&1
rc=0
bin="$obj/pushdown-kernels"
timeout 120 "$bin" kernels-selftest "${quick[@]}" > "$OUT/selftest.txt" 2>&1 || rc=1
grep -v '^ok ' "$OUT/selftest.txt" || true
timeout 240 "$bin" bench kernels "${quick[@]}" > "$OUT/bench.txt" 2>&1 || rc=$((rc | 2))
cat "$OUT/bench.txt"
if [ "$sanitize" = 1 ]; then
  san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for tool in memcheck racecheck; do
    timeout 150 "$san" --tool "$tool" --error-exitcode 9 "$bin" kernels-selftest --quick \
      > "$OUT/$tool.txt" 2>&1 || rc=$((rc | 4))
    echo "$tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$tool.txt" | tail -1)"
  done
fi
exit $rc
