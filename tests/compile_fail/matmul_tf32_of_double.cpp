// sd::tf32 asked of a double matmul: TF32 rounds float operands only.
// expect: matmul_needs_one_floating_type<
// expect: asks for sd::tf32 with double operands; sd::tf32 lets cuBLASLt round float operands to TF32
// expect-nvcc: matmul_needs_one_floating_type<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto a = p.input<double>("a", m, m);
  auto c = p.output<double>("c", m, m);
  c = sd::matmul(a, a, sd::tf32);
});
