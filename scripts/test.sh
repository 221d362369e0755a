#!/usr/bin/env bash
# Runs every test: the host suite (g++, -Werror; with nvcc present also the
# header and compile-fail checks under nvcc), the sanitizer builds (ASan+UBSan,
# TSan) and, when nvcc is present, the CUDA build (GPU tests, examples and
# benchmarks compiled with -Werror; GPU tests report "skipped" without a GPU).
# STREAMDSL_QUICK=1 runs the host preset only.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
jobs=$(nproc)
start=$SECONDS

run_preset() {
  echo "== preset $1 =="
  cmake --preset "$1" >/dev/null
  cmake --build --preset "$1" -j"$jobs"
  ctest --preset "$1" -j"$jobs" "${@:2}"
  echo "== preset $1 done at $((SECONDS - start)) s =="
}

run_preset host
if [ "${STREAMDSL_QUICK:-0}" != 1 ]; then
  run_preset asan
  run_preset tsan
  if [ -x /usr/local/cuda/bin/nvcc ]; then
    echo "== preset cuda (CUDA targets only; the host suite ran above) =="
    cmake --preset cuda >/dev/null
    cmake --build --preset cuda -j"$jobs" --target cuda_tests bench_workloads bench_tuning cuda_examples
    ctest --preset cuda -L gpu
    echo "== preset cuda done at $((SECONDS - start)) s =="
  else
    echo "== preset cuda: SKIPPED (no nvcc on this machine) =="
  fi
fi
echo "== all test presets passed in $((SECONDS - start)) s =="
