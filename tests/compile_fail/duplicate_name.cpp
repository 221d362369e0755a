// Two buffers declared with one name.
// expect: duplicate_name<
// expect: duplicate name 'x': the output buffer 'x' reuses the name of the earlier input buffer
// expect-nvcc: duplicate_name<
// expect-nvcc: two declarations use the same name
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("x");
  y = x + 1;
});
