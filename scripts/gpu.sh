#!/usr/bin/env bash
# On the GPU machine: build (unless a carried build/cuda exists), run the GPU
# tests, compute-sanitizer, the examples and the benchmarks; print a table.
# Results go to $OUT (or ./gpu-out). Usage: bash scripts/gpu.sh [--no-bench | --bench-only]
# (the two halves fit one device call each: tests, sanitizers and examples, then benchmarks).
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-gpu-out}"
mkdir -p "$out"
# A build made elsewhere travels as build/gpu (scripts/gpu_pack.sh); else build here.
build=build/gpu
status=()
nvidia-smi -L || true

if [ ! -x "$build/tests/test_cuda_executor" ]; then
  echo "== building (no carried build found) =="
  cmake --preset cuda >/dev/null && cmake --build --preset cuda -j"$(nproc)" || { echo "BUILD FAILED"; exit 1; }
  bash scripts/gpu_pack.sh
fi
# NVLink multicast stays off on the GPU machines (their rule); NCCL reads this.
export NCCL_NVLS_ENABLE=0
# Google Benchmark's shared library travels beside the binaries.
export LD_LIBRARY_PATH="$PWD/$build/lib:${LD_LIBRARY_PATH:-}"

if [ "${1:-}" != "--bench-only" ]; then
echo "== GPU tests =="
for t in "$build"/tests/test_*; do
  name=$(basename "$t")
  if "$t" >"$out/$name.log" 2>&1; then
    status+=("$name: passed ($(grep -Eo 'All tests passed.*|test cases:.*' "$out/$name.log" | tail -1))")
  else
    status+=("$name: FAILED")
    tail -30 "$out/$name.log"
  fi
done

# The two-rank collectives (hidden from the plain run above): 77 is "skipped", below two GPUs.
if [ -x "$build/tests/test_cuda_collectives" ]; then
  "$build/tests/test_cuda_collectives" "[two_ranks]" >"$out/test_cuda_collectives_two_ranks.log" 2>&1
  case $? in
    0) status+=("test_cuda_collectives [two_ranks]: passed") ;;
    77) status+=("test_cuda_collectives [two_ranks]: skipped ($(grep -m1 SKIPPED "$out/test_cuda_collectives_two_ranks.log"))") ;;
    *) status+=("test_cuda_collectives [two_ranks]: FAILED"); tail -30 "$out/test_cuda_collectives_two_ranks.log" ;;
  esac
fi

echo "== compute-sanitizer =="
# The executor, steps and chunks (copies between pinned host and device
# memory, chunked kernels), multi-segment launches, and reductions and scans
# (CUB's kernels and the executor's carving of their storage), and rank-2
# programs (kernels reading rows and columns, the block-per-row kernels), and
# matmuls (cuBLASLt's kernels in the executor's workspace, the memsets of k = 0), host
# steps (cudaLaunchHostFunc after copies to pinned memory), and FP8 (casts in fused
# kernels, a matmul reading device scales written by a kernel).
for tool in memcheck racecheck synccheck; do
  for t in test_cuda_executor test_cuda_steps test_cuda_launches test_cuda_reductions test_cuda_rows \
    test_cuda_calls test_cuda_host_calls test_cuda_matmul test_cuda_fp8; do
    if compute-sanitizer --tool "$tool" --error-exitcode 9 "$build/tests/$t" "[sanitize]" \
        >"$out/sanitizer_${t}_$tool.log" 2>&1; then
      status+=("compute-sanitizer $tool ($t): clean")
    else
      status+=("compute-sanitizer $tool ($t): ERRORS (see sanitizer_${t}_$tool.log)")
      tail -20 "$out/sanitizer_${t}_$tool.log"
    fi
  done
done

# A failed rebind must leave the graph replaying memory it still owns: only
# memcheck sees a replay of freed memory (the capture's own failure is an API
# error the test provokes, so API errors are not reported here).
if compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 "$build/tests/test_cuda_executor" \
    "[rebind]" >"$out/sanitizer_rebind.log" 2>&1; then
  status+=("compute-sanitizer memcheck [rebind]: clean")
else
  status+=("compute-sanitizer memcheck [rebind]: ERRORS (see sanitizer_rebind.log)")
  tail -20 "$out/sanitizer_rebind.log"
fi

echo "== examples =="
for ex in "$build"/examples/example_*; do
  [ -x "$ex" ] || continue
  if "$ex" >"$out/$(basename "$ex").log" 2>&1; then status+=("$(basename "$ex"): ran"); else status+=("$(basename "$ex"): FAILED"); fi
done
# The copy pipeline's timeline on the GPU (docs/timeline.md), 4 MiB chunks:
# scripts/trace_to_png.py draws it (where matplotlib is) as docs/img/copy_pipeline_timeline.png.
if [ -x "$build/examples/example_copy_pipeline_gpu" ] &&
  "$build/examples/example_copy_pipeline_gpu" --trace "$out/copy_pipeline_timeline.json" --floats-per-chunk 1048576 \
    >"$out/copy_pipeline_timeline.log" 2>&1; then
  status+=("copy pipeline timeline: $out/copy_pipeline_timeline.json")
else
  status+=("copy pipeline timeline: FAILED (see copy_pipeline_timeline.log)")
fi
# The PyTorch extension (examples/torch_extension): built here by torch's JIT,
# checked against eager PyTorch on torch's current stream, timed beside
# torch.compile; exit 77 is "skipped" (no torch, no nvcc or no GPU).
python3 examples/torch_extension/run.py --json "$out/torch_extension.json" --build-dir build/torch_extension \
  >"$out/torch_extension.log" 2>&1
case $? in
  0) status+=("torch extension example: $(grep -E '^results' "$out/torch_extension.log")") ;;
  77) status+=("torch extension example: $(grep -E '^skipped' "$out/torch_extension.log")") ;;
  *) status+=("torch extension example: FAILED (see torch_extension.log)"); tail -20 "$out/torch_extension.log" ;;
esac

fi  # --bench-only

if [ "${1:-}" != "--no-bench" ]; then
  echo "== kernel tuning =="
  [ -x "$build/bench/bench_tuning" ] && "$build/bench/bench_tuning" | tee "$out/tuning.log"
  echo "== benchmarks =="
  "$build/bench/bench_workloads" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
    --benchmark_out="$out/bench.json" --benchmark_out_format=json >"$out/bench.log" 2>&1 \
    && status+=("benchmarks: ran") || status+=("benchmarks: FAILED")
  # The same workloads under PyTorch (eager, torch.compile, reduce-overhead),
  # same sizes and timing, same JSON: report.py's last table puts them side by side.
  python3 bench/torch_compare.py --out "$out/torch_compare.json" >"$out/torch_compare.log" 2>&1 \
    && status+=("PyTorch workloads: $(tail -1 "$out/torch_compare.log")") \
    || status+=("PyTorch workloads: FAILED (see torch_compare.log)")
  # Workload 5, the copy/compute pipeline over 1 GiB of pinned memory; each
  # benchmark checks its results, and wrong ones make it fail (see its log).
  "$build/bench/bench_copy_compute" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
    --benchmark_out="$out/bench_copy_compute.json" --benchmark_out_format=json >"$out/bench_copy_compute.log" 2>&1 \
    && status+=("copy/compute benchmark: ran") || status+=("copy/compute benchmark: FAILED")
  # Issue 17's workload: an Adam step over 64 tensors; PyTorch's fused Adam beside it.
  "$build/bench/bench_multi_tensor_adam" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
    --benchmark_out="$out/bench_adam.json" --benchmark_out_format=json >"$out/bench_adam.log" 2>&1 \
    && status+=("multi-tensor Adam benchmark: ran") || status+=("multi-tensor Adam benchmark: FAILED")
  # How wide a fused loop may be (passes::max_fused_buffers).
  "$build/bench/bench_fusion_width" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    --benchmark_out="$out/bench_width.json" --benchmark_out_format=json >"$out/bench_width.log" 2>&1 \
    && status+=("fusion width benchmark: ran") || status+=("fusion width benchmark: FAILED")
  # Workload 9 (issue 13): reductions and scans against raw CUB.
  "$build/bench/bench_reductions" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
    --benchmark_out="$out/bench_reductions.json" --benchmark_out_format=json >"$out/bench_reductions.log" 2>&1 \
    && status+=("reductions benchmark: ran") || status+=("reductions benchmark: FAILED")
  # Issue 14: the user's own steps (p.call) against the same calls issued directly.
  "$build/bench/bench_calls" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
    --benchmark_out="$out/bench_calls.json" --benchmark_out_format=json >"$out/bench_calls.log" 2>&1 \
    && status+=("calls benchmark: ran") || status+=("calls benchmark: FAILED")
  # Issue 14: matmuls through cuBLASLt against raw cublasLtMatmul (prints the ratios at its end).
  "$build/bench/bench_matmul" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
    --benchmark_out="$out/bench_matmul.json" --benchmark_out_format=json >"$out/bench_matmul.log" 2>&1 \
    && status+=("matmul benchmark: ran") || status+=("matmul benchmark: FAILED")
  # Workloads 7 and 7b (issue 14): matmul concurrency against raw cuBLASLt calls and graphs.
  "$build/bench/bench_matmul_concurrency" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    --benchmark_out="$out/bench_matmul_concurrency.json" --benchmark_out_format=json \
    >"$out/bench_matmul_concurrency.log" 2>&1 \
    && status+=("matmul concurrency benchmark: ran") || status+=("matmul concurrency benchmark: FAILED")
  # Workload 6 with matmul layers (issue 14): activations offloaded and prefetched behind matmuls.
  "$build/bench/bench_offload_matmul" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    --benchmark_out="$out/bench_offload_matmul.json" --benchmark_out_format=json \
    >"$out/bench_offload_matmul.log" 2>&1 \
    && status+=("offload matmul benchmark: ran") || status+=("offload matmul benchmark: FAILED")
  # Workload 10 (issue 15): the data-parallel step, every visible GPU a rank
  # (NVLink multicast off, as the machines' rule asks).
  NCCL_NVLS_ENABLE=0 "$build/bench/bench_data_parallel" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
    --benchmark_out="$out/bench_data_parallel.json" --benchmark_out_format=json >"$out/bench_data_parallel.log" 2>&1 \
    && status+=("data-parallel benchmark: ran") || status+=("data-parallel benchmark: FAILED")
  # Workload 9's row softmax (issue 13) against a hand-written one and the
  # memcpy bound; PyTorch's softmax and torch.compile on this GPU beside it.
  "$build/bench/bench_row_softmax" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
    --benchmark_out="$out/bench_row_softmax.json" --benchmark_out_format=json >"$out/bench_row_softmax.log" 2>&1 \
    && status+=("row softmax benchmark: ran") || status+=("row softmax benchmark: FAILED")
  python3 bench/row_softmax_torch.py --json "$out/torch_row_softmax.json" >"$out/torch_row_softmax.log" 2>&1 \
    && status+=("PyTorch row softmax: $(tr '\n' ';' <"$out/torch_row_softmax.log")") \
    || status+=("PyTorch row softmax: FAILED (see torch_row_softmax.log)")
  # PyTorch's side of workloads 7b, 7 and 6 (matmuls), same GPU and shapes.
  python3 bench/torch_matmul.py --json "$out/torch_matmul.json" >"$out/torch_matmul.log" 2>&1 \
    && status+=("PyTorch matmul workloads: ran") || status+=("PyTorch matmul workloads: FAILED (see torch_matmul.log)")
  if python3 -c 'import torch' 2>/dev/null; then
    python3 bench/torch_adam.py >"$out/torch_adam.json" 2>"$out/torch_adam.log" \
      && status+=("PyTorch Adam: ran") || status+=("PyTorch Adam: FAILED (see torch_adam.log)")
  else
    status+=("PyTorch Adam: skipped (no torch)")
  fi
  python3 bench/report.py "$out/bench.json" "$out/bench_copy_compute.json" "$out/bench_adam.json" \
    "$out/bench_width.json" "$out/bench_reductions.json" "$out/bench_calls.json" "$out/bench_matmul.json" \
    "$out/bench_matmul_concurrency.json" "$out/bench_offload_matmul.json" "$out/bench_data_parallel.json" "$out/torch_adam.json" "$out/bench_row_softmax.json" "$out/torch_row_softmax.json" "$out/torch_compare.json" \
    "$out/torch_matmul.json" | tee "$out/table.md"
  # The plots of docs/benchmarks.md from the same JSON (matplotlib is on the GPU machine).
  python3 bench/plots.py --bench "$out/bench.json" --torch "$out/torch_compare.json" --out "$out/img" >/dev/null \
    && status+=("plots: $out/img") || status+=("plots: FAILED (no matplotlib?)")
fi

echo
echo "== summary =="
printf '%s\n' "${status[@]}"
