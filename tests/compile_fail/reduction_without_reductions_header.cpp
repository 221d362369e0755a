// A program with a reduction or scan, run on the CUDA executor, needs
// <streamdsl/backend/cuda/reductions.cuh>, which includes CUB: the executor
// does not include it (CUB costs every nvcc unit ~3 s), and says which
// header to add.
// needs: nvcc-only
// expect: this program has a reduction or scan
// expect: #include <streamdsl/backend/cuda/reductions.cuh> in this file
// expect-nvcc: this program has a reduction or scan
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/streamdsl.hpp>

constexpr auto total = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto s = p.output<float>("s", sd::scalar);
  s = sd::sum(x);
});

void run(sd::cuda_executor& ex, sd::binding_list bindings) { ex.run(total, bindings); }
