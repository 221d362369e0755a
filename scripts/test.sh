#!/usr/bin/env bash
# Runs every test: when nvcc is present, the CUDA build first (GPU tests,
# examples and benchmarks compiled with -Werror; GPU tests run on a GPU and
# report "skipped" without one); then the host suite (g++, -Werror; with nvcc
# present also the header and compile-fail checks under nvcc) and the
# sanitizer builds (ASan+UBSan, TSan). Each step's ctest summary and the
# random testers' totals are repeated at the end. STREAMDSL_QUICK=1 runs the
# host preset only.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
jobs=$(nproc)
start=$SECONDS
summary=()

# Formatting is checked, not claimed: every C++ file follows .clang-format.
bash scripts/check_format.sh
summary+=("format: clang-format-14 check passed")

# ctest, with its "N% tests passed ..." line kept for the summary.
run_ctest() {
  local label=$1 log
  shift
  log=$(mktemp)
  ctest "$@" 2>&1 | tee "$log"
  local status=${PIPESTATUS[0]}
  summary+=("$label: $(grep -E '[0-9]+% tests passed' "$log" | tail -1)$(grep -q 'Skipped' "$log" && echo " ($(grep -c '(Skipped)' "$log") skipped)"; true)")
  rm -f "$log"
  return "$status"
}

# The random testers' totals ("random programs: 1000 run, 0 mismatches ...").
# ctest shows only failing tests' output, but keeps every test's in the build's
# LastTest.log: print them from there, and keep them for the summary.
random_totals() {
  local label=$1 log=build/$1/Testing/Temporary/LastTest.log line
  [ -f "$log" ] || return 0
  while IFS= read -r line; do
    echo "$line"
    summary+=("$label: $line")
  done < <(grep -E '^random programs: ' "$log")
}

run_preset() {
  echo "== preset $1 =="
  cmake --preset "$1" >/dev/null
  cmake --build --preset "$1" -j"$jobs"
  run_ctest "$1" --preset "$1" -j"$jobs"
  random_totals "$1"
  echo "== preset $1 done at $((SECONDS - start)) s =="
}

if [ "${STREAMDSL_QUICK:-0}" != 1 ]; then
  if [ -x /usr/local/cuda/bin/nvcc ]; then
    echo "== preset cuda (CUDA targets only; the host suite runs below) =="
    cmake --preset cuda >/dev/null
    # One benchmark per kind of operation is compiled here (elementwise,
    # copies, reductions, matmul); scripts/gpu.sh builds and runs them all.
    # The rest stay out to keep this job under 40 minutes on 2 cores.
    cmake --build --preset cuda -j"$jobs" --target cuda_tests bench_workloads bench_copy_compute bench_reductions bench_matmul cuda_examples
    run_ctest "cuda (GPU tests)" --preset cuda -L gpu
    random_totals cuda
    echo "== preset cuda done at $((SECONDS - start)) s =="
  else
    summary+=("cuda: SKIPPED (no nvcc on this machine)")
    echo "== preset cuda: SKIPPED (no nvcc on this machine) =="
  fi
fi
run_preset host
if [ "${STREAMDSL_QUICK:-0}" != 1 ]; then
  run_preset asan
  run_preset tsan
fi
echo "== summary =="
printf '  %s\n' "${summary[@]}"
echo "== all test presets passed in $((SECONDS - start)) s =="
