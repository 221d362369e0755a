#!/usr/bin/env bash
# On the GPU machine, issue 15's part alone, from a carried build (default
# build/gpu, as scripts/gpu_pack.sh makes it): the collectives' GPU tests (one
# rank; two ranks when two GPUs are visible, else reported skipped), the
# data_parallel example (one process driving the GPUs; one process per GPU
# started with torchrun's variables, as a launcher would; the loopback ranks),
# and workload 10's benchmark. Results go to $OUT (or ./gpu-out).
# Usage: bash scripts/gpu_collectives.sh [build dir]
set -u
cd "$(dirname "$0")/.."
g="${1:-build/gpu}"
out="${OUT:-gpu-out}"
mkdir -p "$out"
# NVLink multicast stays off on the GPU machines (their rule).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export LD_LIBRARY_PATH="$PWD/$g/lib:/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH:-}"
nvidia-smi -L
gpus=$(nvidia-smi -L | grep -c '^GPU ')
status=()
run() {  # name, command...: 0 passed, 77 skipped, else failed
  local name=$1
  shift
  timeout 300 "$@" >"$out/$name.log" 2>&1
  case $? in
    0) status+=("$name: passed") ;;
    77) status+=("$name: skipped ($(grep -m1 SKIPPED "$out/$name.log"))") ;;
    *) status+=("$name: FAILED"); tail -20 "$out/$name.log" ;;
  esac
}
run test_cuda_collectives "$g/tests/test_cuda_collectives"
run test_cuda_collectives_two_ranks "$g/tests/test_cuda_collectives" "[two_ranks]"
run example_group "$g/examples/example_data_parallel_gpu"
run example_loopback "$g/examples/example_data_parallel"
# One process per GPU, each given a launcher's variables (torchrun's).
ranks=$((gpus < 2 ? 1 : 2))
id="$out/data_parallel.ncclid"
rm -f "$id"
pids=()
for r in $(seq 0 $((ranks - 1))); do
  RANK=$r WORLD_SIZE=$ranks LOCAL_RANK=$r timeout 120 "$g/examples/example_data_parallel_gpu" --id-file "$id" \
    >"$out/example_process_$r.log" 2>&1 &
  pids+=($!)
done
ok=1
for p in "${pids[@]}"; do wait "$p" || ok=0; done
[ $ok = 1 ] && status+=("example, $ranks process(es): passed") || status+=("example, $ranks process(es): FAILED")
"$g/bench/bench_data_parallel" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_out="$out/bench_data_parallel.json" --benchmark_out_format=json >"$out/bench_data_parallel.log" 2>&1 \
  && status+=("data-parallel benchmark: ran") || status+=("data-parallel benchmark: FAILED")
python3 bench/report.py "$out/bench_data_parallel.json" | tee "$out/table_data_parallel.md"
printf '%s\n' "${status[@]}"
