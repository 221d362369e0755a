// where(c, a, b) with a float branch and a double branch.
// expect: where_branches_have_different_types<
// expect: the expression `where\(x > 0, x, w\)` in statement #0 on stream 'main' has branches of different types \(float and double\)
// expect: e\.g\. `sd::cast<double>\(x\)`
// expect-nvcc: where_branches_have_different_types<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto w = p.input<double>("w");
  auto y = p.output<double>("y");
  y = sd::where(x > 0, x, w);
});
