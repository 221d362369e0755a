// a = sd::matmul(a, b): the product cannot overwrite an operand it reads.
// expect: matmul_result_is_an_operand<
// expect: statement #0 `a = sd::matmul\(a, b\)` on stream 'main' stores the product in 'a', which it also multiplies
// expect: `t = sd::matmul\(\.\.\.\); a = t;`
// expect-nvcc: matmul_result_is_an_operand<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto a = p.inout<float>("a", m, m);
  auto b = p.input<float>("b", m, m);
  a = sd::matmul(a, b);
});
