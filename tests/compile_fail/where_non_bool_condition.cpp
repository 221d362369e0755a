// where(c, a, b) with a float condition.
// expect: where_condition_must_be_bool<
// expect: the expression `where\(x, x, 0\)` in statement #0 on stream 'main' has a float condition
// expect: e\.g\. `where\(x != 0, \.\.\.\)`
// expect-nvcc: where_condition_must_be_bool<
// expect-nvcc: condition c of where\(c, a, b\) is not bool
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  y = sd::where(x, x, 0.0f);
});
