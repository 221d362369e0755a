#pragma once
// The data-parallel step of examples/data_parallel: one rank's work (SPMD:
// every rank runs this program on its own shard). The gradient of each
// bucket (a chunk of the shard) is an elementwise chain of the rank's
// activations and weights; as soon as a bucket is computed, stream "comm"
// all-reduces it (sum over ranks, in place) while main computes the next
// bucket. After the last bucket, main averages the summed gradient into the
// weights' update (an SGD step: updated = w - lr / ranks * g), which waits for every
// bucket's all-reduce: sd::automatic inserts each wait.
#include <cmath>
#include <cstddef>
#include <streamdsl/streamdsl.hpp>

namespace data_parallel {

inline constexpr int buckets = 4;

// The gradient of one element: a chain standing in for a backward pass.
template <class A, class W>
constexpr auto gradient(const A& a, const W& w) {
  auto z = a * w;
  return sd::tanh(z) * a + w * 0.01f;
}
inline float gradient_reference(float a, float w) { return std::tanh(a * w) * a + w * 0.01f; }

constexpr auto step = sd::program<sd::automatic>([](sd::builder& p) {
  auto a = p.input<float>("activations");
  auto w = p.input<float>("weights");
  auto updated = p.output<float>("updated");
  auto g = p.temp<float>("grad");
  auto lr_over_ranks = p.param<float>("lr_over_ranks");
  auto comm = p.stream("comm");
  for (int i = 0; i < buckets; ++i) {
    g.chunk(i, buckets) = gradient(a.chunk(i, buckets), w.chunk(i, buckets));
    sd::with_stream(comm, [&] { sd::all_reduce(g.chunk(i, buckets), sd::reduce_op::sum); });
  }
  updated = w - lr_over_ranks * g;
});

// The same step on one thread, rank after rank: what every rank's weights
// must be after it (all ranks start from the same weights).
inline void reference(std::size_t n, int ranks, float lr, const float* const* activations,
                      const float* weights, float* updated) {
  for (std::size_t i = 0; i < n; ++i) {
    float sum = 0;
    for (int r = 0; r < ranks; ++r) sum += gradient_reference(activations[r][i], weights[i]);
    updated[i] = weights[i] - lr / static_cast<float>(ranks) * sum;
  }
}

inline float activation_at(int rank, std::size_t i) {
  return static_cast<float>(static_cast<int>((i * 7 + static_cast<std::size_t>(rank) * 13) % 101) - 50) *
         0.02f;
}
inline float weight_at(std::size_t i) { return static_cast<float>(static_cast<int>(i % 37) - 18) * 0.05f; }

}  // namespace data_parallel
