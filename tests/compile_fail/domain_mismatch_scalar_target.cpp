// An elementwise expression over domain n stored in a 0-d buffer: a 0-d
// buffer holds one element (use a reduction such as sd::sum to produce one).
// expect: elementwise_domains_differ<
// expect: statement #0 `s = x \* 2` on stream 'main' writes an expression over domain 'n' to the 0-d buffer 's'
// expect: declare 's' over domain 'n'
// expect-nvcc: elementwise_domains_differ<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto s = p.output<float>("s", sd::scalar);
  s = x * 2;
});
