// A double expression stored in a float buffer without sd::cast.
// expect: narrowing_assignment_needs_cast<
// expect: statement #0 `y = x \* 2` on stream 'main' stores a double value in the float buffer 'y'
// expect: write `y = sd::cast<float>\(x \* 2\)`
// expect-nvcc: narrowing_assignment_needs_cast<
// expect-nvcc: wrap the value in sd::cast<T>
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<double>("x");
  auto y = p.output<float>("y");
  y = x * 2;
});
