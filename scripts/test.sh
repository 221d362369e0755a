#!/usr/bin/env bash
# Runs every test: the host suite (g++, -Werror), the sanitizer builds and,
# when nvcc is present, the header and compile-fail checks under nvcc.
# GPU tests report "skipped" on a machine without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
jobs=$(nproc)

run_preset() {
  echo "== preset $1 =="
  cmake --preset "$1" >/dev/null
  cmake --build --preset "$1" -j"$jobs"
  ctest --preset "$1" -j"$jobs"
}

run_preset host
if [ "${STREAMDSL_QUICK:-0}" != 1 ]; then
  run_preset asan
  run_preset tsan
fi
echo "== all test presets passed =="
