// A scan whose target is over another domain than its input.
// expect: elementwise_domains_differ<
// expect: statement #0 `y = sd::inclusive_sum\(x\)` on stream 'main' writes an expression over domain 'n' to the buffer 'y' of domain 'm'
// expect-nvcc: elementwise_domains_differ<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto x = p.input<float>("x");
  auto y = p.output<float>("y", m);
  y = sd::inclusive_sum(x);
});
