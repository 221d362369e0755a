// A column and a row of a matrix do not broadcast to each other (no outer product).
// expect: elementwise_domains_differ<
// expect: combines `c` over domain 'rows' with `r` over domain 'cols'
// expect: and vectors over a rank-2 domain's rows or columns into it
// expect-nvcc: elementwise_domains_differ<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto rows = p.domain("rows");
  auto cols = p.domain("cols");
  auto c = p.input<float>("c", rows);
  auto r = p.input<float>("r", cols);
  auto y = p.output<float>("y", rows, cols);
  y = c + r;
});
