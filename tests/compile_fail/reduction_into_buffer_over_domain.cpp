// A reduction's one value stored in a buffer over a domain.
// expect: reduction_result_needs_a_0d_buffer<
// expect: statement #0 `t = sd::sum\(x\)` on stream 'main' stores a reduction's one value in 't', a buffer over domain 'n'
// expect: declare one with sd::scalar
// expect-nvcc: reduction_result_needs_a_0d_buffer<
// expect-nvcc: a reduction's result is stored in a buffer over a domain
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto t = p.output<float>("t");
  t = sd::sum(x);
});
