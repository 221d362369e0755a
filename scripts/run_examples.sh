#!/usr/bin/env bash
# Builds and runs the examples, printing each plan (and, once a backend runs
# them, their results).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j"$(nproc)" --target example_seed
for ex in build/release/example_*; do
  [ -x "$ex" ] || continue
  "$ex"
done
