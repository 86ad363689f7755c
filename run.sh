#!/usr/bin/env bash
# run.sh - the two commands of the README.
#   ./run.sh demo [--tokenizer T]   set up, build (release), run the demonstration
#   ./run.sh test                   set up, build, run every test, then again under ASan + UBSan
# Set-up installs what is missing with apt-get when root, otherwise prints the apt-get line.
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES="meson ninja-build pkg-config gcc g++ clang libjansson-dev libmimalloc-dev libcmocka-dev
libbenchmark-dev python3 python3-jsonschema ca-certificates"

setup() {
  local missing=()
  for p in $PACKAGES; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" = 0 ]; then
    echo "installing: ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "missing packages; run: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
}

build() { # dir, meson options... (TARGETS: what ninja builds; everything when unset)
  local dir=$1; shift
  [ -f "$dir/build.ninja" ] || meson setup "$dir" "$@" >/dev/null
  ninja -C "$dir" ${TARGETS:-} >/dev/null
}

# meson test, then one summary line "<suite>: N passed, N failed, N skipped"
run_tests() { # dir, label
  local dir=$1 label=$2 rc=0
  meson test -C "$dir" --print-errorlogs --num-processes 2 >"$dir/test-output.txt" 2>&1 || rc=$?
  grep -E '^ *[0-9]+/[0-9]+ ' "$dir/test-output.txt" || true
  if [ $rc -ne 0 ]; then sed -n '/^=* *[0-9]*\/[0-9]* .*FAIL/,/^===/p' "$dir/test-output.txt" | head -200; fi
  local ok fail skip
  ok=$(awk '/^Ok:/ {print $2}' "$dir/test-output.txt")
  fail=$(awk '/^Fail:/ {print $2}' "$dir/test-output.txt")
  skip=$(awk '/^Skipped:/ {print $2}' "$dir/test-output.txt")
  echo "$label: ${ok:-0} passed, ${fail:-0} failed, ${skip:-0} skipped"
  return $rc
}

# The CUDA kernels, compiled and linked with their CPU twins by kernels/build_standalone.sh,
# then the CPU half of their self-test (the GPU half needs a GPU). nvcc: the system's, else
# NVIDIA's wheels from PyPI (tools/cuda_wheels.py); with neither, one line says why it skipped.
cuda_check() {
  local nvcc
  if command -v nvcc >/dev/null 2>&1; then
    nvcc=$(command -v nvcc)
  elif python3 tools/cuda_wheels.py .cuda-tools >build-cuda.log 2>&1; then
    nvcc=$PWD/.cuda-tools/nvidia/cu13/bin/nvcc
  else
    echo "cuda: skipped ($(tail -1 build-cuda.log))"
    return 0
  fi
  if ! OUT=build-cuda NVCC=$nvcc bash kernels/build_standalone.sh --no-run >/dev/null 2>&1 ||
     grep -q -i -E 'warning|error' build-cuda/build.txt; then
    cat build-cuda/build.txt
    echo "cuda: the kernels do not build cleanly"
    return 1
  fi
  if ! build-cuda/pushdown-kernels kernels-selftest --quick >build-cuda/selftest.txt 2>&1; then
    grep -v '^ok ' build-cuda/selftest.txt
    echo "cuda: the kernels' self-test failed"
    return 1
  fi
  local n
  n=$(grep -c '^ok ' build-cuda/selftest.txt)
  echo "cuda: kernels built ($(head -1 build-cuda/build.txt)); self-test: $n checks ok," \
    "$(tail -1 build-cuda/selftest.txt)"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
  demo)
    setup
    # built for this machine (its instruction set, link-time optimization: MaskBench's TBM p99 a few
    # percent lower, README "Measuring"), and only the CLI and the fallback vocabulary: with LTO every
    # test program relinks the library
    TARGETS="cli/pushdown tools/tokenizer.json" \
      build build-release --buildtype=release -Db_lto=true -Dc_args=-march=native
    exec ./build-release/cli/pushdown demo "$@"
    ;;
  test)
    setup
    start=$(date +%s)
    build build
    rc=0
    run_tests build "tests" || rc=1
    # the same suite under AddressSanitizer + UndefinedBehaviorSanitizer (CUDA off: host code only)
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
    build build-asan -Db_sanitize=address,undefined -Db_lundef=false -Dcuda=disabled -Dbench=disabled -Dmimalloc=disabled
    run_tests build-asan "asan+ubsan" || rc=1
    cuda_check || rc=1
    p=$(grep -hE '^Ok:' build/test-output.txt build-asan/test-output.txt | awk '{s+=$2} END {print s+0}')
    f=$(grep -hE '^Fail:' build/test-output.txt build-asan/test-output.txt | awk '{s+=$2} END {print s+0}')
    echo "test command took $(( $(date +%s) - start )) s"
    echo "all: $p passed, $f failed"
    exit $rc
    ;;
  *)
    echo "usage: ./run.sh demo [--tokenizer T] | ./run.sh test" >&2
    exit 2
    ;;
esac
