// A float expression stored in an int32_t buffer without sd::cast.
// expect: narrowing_assignment_needs_cast<
// expect: stores a float value in the int32_t buffer 'n'
// expect: write `n = sd::cast<int32_t>\(x \* 0.5\)`
// expect-nvcc: narrowing_assignment_needs_cast<
#include <cstdint>
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto n = p.output<std::int32_t>("n");
  n = x * 0.5f;
});
