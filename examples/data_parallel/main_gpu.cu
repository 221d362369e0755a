// The data-parallel step (step.hpp) on GPUs through NCCL, checked against the
// sequential reference. Two ways to run it:
//   example_data_parallel_gpu            one process drives the GPUs
//       (sd::cuda_executor_group): the step on 1 rank, then on every visible
//       GPU when there are several;
//   mpirun -np 2 example_data_parallel_gpu --id-file /shared/dp.id
//   torchrun --nproc-per-node 2 --no-python example_data_parallel_gpu --id-file /shared/dp.id
//       one process per GPU: each learns its rank from the launcher
//       (sd::launcher_rank), rank 0 makes the NCCL unique id and hands it to
//       the others through the file (docs/collectives.md), each binds its
//       communicator to its own sd::cuda_executor.
// Without a GPU it says so and exits 0 (example_data_parallel runs the same
// step on the host executor's loopback ranks).
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <streamdsl/backend/cuda/collectives.hpp>
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/backend/cuda/executor_group.hpp>
#include <streamdsl/backend/cuda/nccl_communicator.hpp>
#include <string>
#include <vector>

#include "step.hpp"

namespace {

using data_parallel::activation_at;
using data_parallel::weight_at;

constexpr std::size_t n = (std::size_t{1} << 20) + 12;  // per rank: 4 equal buckets, not a power of 2
constexpr float lr = 0.1f;

void cuda(cudaError_t e, const char* what) { sd::cuda_detail::check(e, what); }

// One rank's device buffers.
struct rank_buffers {
  float *activations = nullptr, *weights = nullptr, *updated = nullptr;
  explicit rank_buffers(int rank) {
    std::vector<float> a(n), w(n);
    for (std::size_t i = 0; i < n; ++i) {
      a[i] = activation_at(rank, i);
      w[i] = weight_at(i);
    }
    cuda(cudaMalloc(&activations, n * sizeof(float)), "cudaMalloc");
    cuda(cudaMalloc(&weights, n * sizeof(float)), "cudaMalloc");
    cuda(cudaMalloc(&updated, n * sizeof(float)), "cudaMalloc");
    cuda(cudaMemcpy(activations, a.data(), n * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    cuda(cudaMemcpy(weights, w.data(), n * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    cuda(cudaMemset(updated, 0xff, n * sizeof(float)), "cudaMemset");  // NaN: unwritten fails
  }
  ~rank_buffers() {
    cudaFree(activations);
    cudaFree(weights);
    cudaFree(updated);
  }
  std::vector<sd::binding> bindings(int ranks) const {
    return {sd::bind("activations", static_cast<const float*>(activations), n),
            sd::bind("weights", static_cast<const float*>(weights), n), sd::bind("updated", updated, n),
            sd::bind("lr_over_ranks", lr / static_cast<float>(ranks))};
  }
};

// Compares a rank's updated weights with the reference; returns the mismatches.
std::size_t check_rank(int rank, int ranks, const float* updated_on_device) {
  std::vector<std::vector<float>> a(static_cast<std::size_t>(ranks), std::vector<float>(n));
  std::vector<const float*> rows;
  for (int r = 0; r < ranks; ++r) {
    for (std::size_t i = 0; i < n; ++i) a[static_cast<std::size_t>(r)][i] = activation_at(r, i);
    rows.push_back(a[static_cast<std::size_t>(r)].data());
  }
  std::vector<float> w(n), want(n), got(n);
  for (std::size_t i = 0; i < n; ++i) w[i] = weight_at(i);
  data_parallel::reference(n, ranks, lr, rows.data(), w.data(), want.data());
  cuda(cudaMemcpy(got.data(), updated_on_device, n * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i)
    bad += !(std::fabs(got[i] - want[i]) <= 1e-5f * (1 + std::fabs(want[i])));
  std::printf("  rank %d of %d: %zu of %zu weights differ from the reference\n", rank, ranks, bad, n);
  return bad;
}

// One process driving `devices`.
std::size_t run_group(std::vector<int> devices) {
  sd::cuda_executor_group group(devices);
  const int ranks = group.size();
  std::printf("one process, %d rank%s (sd::cuda_executor_group):\n", ranks, ranks > 1 ? "s" : "");
  std::vector<std::unique_ptr<rank_buffers>> buffers;
  for (int r = 0; r < ranks; ++r) {
    cuda(cudaSetDevice(group.device(r)), "cudaSetDevice");
    buffers.push_back(std::make_unique<rank_buffers>(r));
  }
  group.run(data_parallel::step,
            [&](int r) { return buffers[static_cast<std::size_t>(r)]->bindings(ranks); });
  group.synchronize();
  std::size_t bad = 0;
  for (int r = 0; r < ranks; ++r) {
    cuda(cudaSetDevice(group.device(r)), "cudaSetDevice");
    bad += check_rank(r, ranks, buffers[static_cast<std::size_t>(r)]->updated);
  }
  return bad;
}

// One process per GPU, started by a launcher.
std::size_t run_process(const char* id_file) {
  const auto me = sd::launcher_rank::from_environment();
  int devices = 0;
  cuda(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
  cuda(cudaSetDevice(me.local_rank % devices), "cudaSetDevice");
  std::printf("rank %d of %d (launcher: %s), GPU %d:\n", me.rank, me.size, me.launcher,
              me.local_rank % devices);
  const auto id = sd::nccl_unique_id::exchange_through_file(id_file, me.rank);
  auto comm = sd::nccl_communicator::init_rank(me.size, id.id, me.rank);
  cudaStream_t stream = nullptr;
  cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  std::size_t bad = 0;
  {
    rank_buffers buffers(me.rank);
    sd::cuda_executor ex(stream);
    ex.bind_communicator(comm);
    const auto bound = buffers.bindings(me.size);
    ex.run(data_parallel::step, sd::binding_list(bound.data(), bound.size()));
    cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    bad = check_rank(me.rank, me.size, buffers.updated);
  }
  cudaStreamDestroy(stream);
  if (me.rank == 0) std::remove(id_file);
  return bad;
}

}  // namespace

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no GPU: nothing run here (example_data_parallel runs the step on loopback ranks)\n");
    return 0;
  }
  std::printf("%s", data_parallel::step.to_string().c_str());
  std::size_t bad = 0;
  if (argc == 3 && std::strcmp(argv[1], "--id-file") == 0) {
    bad = run_process(argv[2]);
  } else {
    bad += run_group({0});
    if (devices > 1) {
      std::vector<int> all;
      for (int d = 0; d < devices; ++d) all.push_back(d);
      bad += run_group(all);
    } else {
      std::printf("one GPU: the 2-rank run is left out (it needs 2 GPUs)\n");
    }
  }
  if (bad > 0) {
    std::printf("FAILED: %zu weights differ from the reference\n", bad);
    return 1;
  }
  std::printf("every rank's weights match the reference\n");
  return 0;
}
