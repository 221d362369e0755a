// `a = b` on two domains: it made `a` name b's domain, so buffers declared
// over `a` afterwards silently belonged to b.
// expect: a domain cannot be assigned
// expect: declare buffers over b directly
// expect-nvcc: a domain cannot be assigned
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto k = p.domain("k");
  k = m;
  auto x = p.input<float>("x", k);
  auto y = p.output<float>("y", k);
  y = x + 1;
});
