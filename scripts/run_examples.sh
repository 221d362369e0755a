#!/usr/bin/env bash
# Builds and runs the examples: each prints its plan, runs it on the host
# executor (no GPU needed) and fails if its results differ from plain C++.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j"$(nproc)" --target example_seed example_two_chains
ran=0
for ex in build/release/examples/example_*; do
  [ -x "$ex" ] || continue
  "$ex"
  ran=$((ran + 1))
done
[ "$ran" -gt 0 ] || { echo "no example binaries found under build/release/examples" >&2; exit 1; }
echo "== $ran examples ran and matched their references =="
