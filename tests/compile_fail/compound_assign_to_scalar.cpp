// `s += x` into a 0-d buffer: an elementwise statement over n into one element; the message points to
// sd::sum.
// expect: elementwise_domains_differ<
// expect: writes an expression over domain 'n' to the 0-d buffer 's', which holds one element
// expect: or reduce the expression into it: `s = sd::sum\(...\)`
// expect-nvcc: elementwise_domains_differ<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto s = p.inout<float>("s", sd::scalar);
  s += x;
});
