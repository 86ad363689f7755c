#!/usr/bin/env bash
# ab.sh - an A/B of the kernels that one call on a GPU machine can hold: this tree's kernels
# against another copy's (BASE), built side by side and timed alternately, twice over.
#
#   git archive REV kernels cli include base | (mkdir -p .dev/base && tar -x -C .dev/base)
#   OUT=/some/dir kernels/ab.sh .dev/base ["shape text" ["NVFLAGS;NVFLAGS..."]]
#
# (.dev/ ignored through .git/info/exclude and carried to the machine.) Runs this tree's
# self-test first (with SAN=1 also compute-sanitizer's memcheck, on --quick), then
# `bench kernels --only TEXT` (default "batch 256 k=4") for the base, this tree and this tree
# built with each NVFLAGS variant (tuning macros, see build_standalone.sh), in that order,
# twice. Writes $OUT/selftest.txt (and memcheck.txt); exits non-zero when a build or the
# self-test fails.
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] && [ -d "$1/kernels" ] || { echo "usage: $0 BASE_DIR [TEXT [VARIANTS]]" >&2; exit 2; }
base=$(cd "$1" && pwd) only=${2:-batch 256 k=4} variants=${3:-}
OUT=${OUT:-/tmp/pushdown-ab}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$OUT"

names=(base tree) flags=("" "")
IFS=';' read -ra extra <<< "$variants"
for v in "${extra[@]}"; do names+=("tree $v"); flags+=("$v"); done
for i in "${!names[@]}"; do # all builds at once: nvcc is slow, the machine's cores are not
  src=$PWD
  [ "$i" = 0 ] && src=$base
  (cd "$src" && NVFLAGS="${flags[$i]}" OUT="$work/$i" bash kernels/build_standalone.sh --no-run \
    >/dev/null 2>&1) &
done
wait
for i in "${!names[@]}"; do
  [ -x "$work/$i/pushdown-kernels" ] || { cat "$work/$i/build.txt"; echo "${names[$i]}: no build"; exit 1; }
done

rc=0
tree=$work/1/pushdown-kernels
timeout 120 "$tree" kernels-selftest >"$OUT/selftest.txt" 2>&1 || rc=1
grep -v '^ok ' "$OUT/selftest.txt"
if [ "${SAN:-}" = 1 ]; then
  timeout 150 compute-sanitizer --error-exitcode 9 "$tree" kernels-selftest --quick \
    >"$OUT/memcheck.txt" 2>&1 || rc=1
  echo "memcheck: $(grep 'ERROR SUMMARY' "$OUT/memcheck.txt")"
fi
for round in 1 2; do
  for i in "${!names[@]}"; do
    echo "== ${names[$i]} (round $round)"
    timeout 120 "$work/$i/pushdown-kernels" bench kernels --only "$only" | grep ' us '
  done
done
exit $rc
