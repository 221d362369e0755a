// A program with a matmul, run on the CUDA executor, needs
// <streamdsl/backend/cuda/matmul.hpp>, which includes cublasLt.h: the
// executor does not include it (units without matmuls neither parse it nor
// link cuBLASLt), and says which header to add and what to link.
// needs: nvcc-only
// expect: this program has a matmul
// expect: #include <streamdsl/backend/cuda/matmul.hpp> in this file
// expect-nvcc: this program has a matmul
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/streamdsl.hpp>

constexpr auto product = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto n = p.domain("n2");
  auto a = p.input<float>("a", m, k);
  auto b = p.input<float>("b", k, n);
  auto c = p.output<float>("c", m, n);
  c = sd::matmul(a, b);
});

void run(sd::cuda_executor& ex, sd::binding_list bindings) { ex.run(product, bindings); }
