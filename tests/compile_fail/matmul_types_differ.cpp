// sd::matmul of a float matrix by a double one: one type for both operands.
// expect: matmul_needs_one_floating_type<
// expect: multiplies 'a' \(float\) by 'b' \(double\); sd::matmul multiplies operands of one type
// expect: `t = sd::cast<double>\(a\)`
// expect-nvcc: matmul_needs_one_floating_type<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto a = p.input<float>("a", m, m);
  auto b = p.input<double>("b", m, m);
  auto c = p.output<double>("c", m, m);
  c = sd::matmul(a, b);
});
