// sd::matmul(a, b) whose inner domains differ: checked by domain at compile time.
// expect: matmul_shapes_do_not_match<
// expect: statement #0 `c = sd::matmul\(a, b\)` on stream 'main' multiplies a matrix over \(m, k\) by one over \(m, k\): the first's columns and the second's rows must be one domain
// expect: sd::transpose
// expect-nvcc: matmul_shapes_do_not_match<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  auto a = p.input<float>("a", m, k);
  auto b = p.input<float>("b", m, k);
  auto c = p.output<float>("c", m, m);
  c = sd::matmul(a, b);
});
