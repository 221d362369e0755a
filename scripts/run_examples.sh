#!/usr/bin/env bash
# Builds and runs the examples: each prints its plan, runs it and fails if its
# results differ from plain C++. With nvcc present the CUDA build is used and
# the example_*_gpu binaries run on the GPU when there is one (else they are
# only built); the others run on the host executor.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
if [ -x /usr/local/cuda/bin/nvcc ]; then
  preset=cuda
  cmake --preset cuda >/dev/null
  cmake --build --preset cuda -j"$(nproc)" --target cuda_examples
else
  preset=release
  cmake --preset release >/dev/null
  cmake --build --preset release -j"$(nproc)" --target example_seed example_two_chains example_copy_pipeline \
    example_offload_prefetch example_optimizer_step example_softmax_layernorm example_row_softmax \
    example_user_kernel example_matmul_streams example_data_parallel
fi
# example_<name>_gpu is example_<name> built by nvcc: without a GPU it would
# run the same program on the CPU again, so it is only built (nvcc compiled it).
have_gpu=0
nvidia-smi -L 2>/dev/null | grep -q '^GPU ' && have_gpu=1
ran=0
for ex in build/$preset/examples/example_*; do
  [ -x "$ex" ] || continue
  name=$(basename "$ex")
  if [ "${name%_gpu}" != "$name" ] && [ "$have_gpu" = 0 ]; then
    echo "== $name built by nvcc, not run: no GPU (${name%_gpu} runs the same program on the CPU) =="
    continue
  fi
  "$ex"
  ran=$((ran + 1))
done
[ "$ran" -gt 0 ] || { echo "no example binaries found under build/$preset/examples" >&2; exit 1; }
echo "== $ran examples ran and matched their references =="
