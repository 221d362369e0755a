// One expression reads buffers of two different domains.
// expect: elementwise_domains_differ<
// expect: statement #0 on stream 'main' combines `x` over domain 'n' with `r` over domain 'rows'
// expect-nvcc: elementwise_domains_differ<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto rows = p.domain("rows");
  auto x = p.input<float>("x");
  auto r = p.input<float>("r", rows);
  auto y = p.output<float>("y");
  y = x + r;
});
