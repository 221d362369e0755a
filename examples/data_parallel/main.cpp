// The data-parallel step (step.hpp) on the host executor's loopback ranks
// (sd::loopback_world: ranks as threads of this process, their collectives
// met in memory), on 1 and 2 ranks, checked against the sequential reference.
// example_data_parallel_gpu runs the same step on GPUs through NCCL.
#include <cmath>
#include <cstdio>
#include <streamdsl/backend/host/loopback.hpp>
#include <vector>

#include "step.hpp"

namespace {

constexpr std::size_t n = 10008;  // per rank: 4 buckets of 2502
constexpr float lr = 0.1f;

std::size_t run_ranks(int ranks) {
  std::vector<std::vector<float>> activations(static_cast<std::size_t>(ranks), std::vector<float>(n));
  std::vector<std::vector<float>> updated(static_cast<std::size_t>(ranks), std::vector<float>(n, NAN));
  std::vector<float> weights(n), want(n);
  std::vector<const float*> rows;
  for (std::size_t i = 0; i < n; ++i) weights[i] = data_parallel::weight_at(i);
  for (int r = 0; r < ranks; ++r) {
    auto& a = activations[static_cast<std::size_t>(r)];
    for (std::size_t i = 0; i < n; ++i) a[i] = data_parallel::activation_at(r, i);
    rows.push_back(a.data());
  }
  data_parallel::reference(n, ranks, lr, rows.data(), weights.data(), want.data());

  sd::loopback_world world(ranks);
  world.run(data_parallel::step, [&](int r) {
    const auto k = static_cast<std::size_t>(r);
    return std::vector<sd::binding>{
        sd::bind("activations", static_cast<const float*>(activations[k].data()), n),
        sd::bind("weights", static_cast<const float*>(weights.data()), n),
        sd::bind("updated", updated[k].data(), n), sd::bind("lr_over_ranks", lr / static_cast<float>(ranks))};
  });
  std::size_t bad = 0;
  for (int r = 0; r < ranks; ++r) {
    std::size_t rank_bad = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const float got = updated[static_cast<std::size_t>(r)][i];
      rank_bad += !(std::fabs(got - want[i]) <= 1e-5f * (1 + std::fabs(want[i])));
    }
    std::printf("  rank %d of %d (loopback): %zu of %zu weights differ from the reference\n", r, ranks,
                rank_bad, n);
    bad += rank_bad;
  }
  return bad;
}

}  // namespace

int main() {
  std::printf("%s", data_parallel::step.to_string().c_str());
  const std::size_t bad = run_ranks(1) + run_ranks(2);
  if (bad > 0) {
    std::printf("FAILED: %zu weights differ from the reference\n", bad);
    return 1;
  }
  std::printf("every rank's weights match the reference on 1 and 2 loopback ranks\n");
  return 0;
}
