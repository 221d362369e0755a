#!/usr/bin/env bash
# Gathers what the GPU machine needs from build/cuda into build/gpu (small
# enough to travel): GPU test binaries, examples, the benchmark and its library.
set -euo pipefail
cd "$(dirname "$0")/.."
src=build/cuda
dst=build/gpu
rm -rf "$dst"
mkdir -p "$dst/tests" "$dst/examples" "$dst/bench" "$dst/lib"
for t in "$src"/tests/test_cuda_* "$src"/tests/backend/cuda/test_cuda_*; do [ -x "$t" ] && cp "$t" "$dst/tests/"; done
for e in "$src"/examples/example_*; do [ -x "$e" ] && cp "$e" "$dst/examples/"; done
for b in bench_workloads bench_copy_compute bench_multi_tensor_adam bench_fusion_width bench_reductions bench_tuning bench_calls bench_matmul bench_matmul_concurrency bench_offload_matmul bench_row_softmax bench_data_parallel; do [ -x "$src/bench/$b" ] && cp "$src/bench/$b" "$dst/bench/"; done
cp -L "$src"/lib/* "$dst/lib/" 2>/dev/null || true
# Symbols are not needed there, and the carry is limited to 64 MiB.
strip --strip-unneeded "$dst"/tests/* "$dst"/examples/* "$dst"/bench/* 2>/dev/null || true
du -sh "$dst"
