// An empty buffer name.
// expect: invalid_name<
// expect: invalid output buffer name '' \(empty\), declared right after the input buffer 'x'
// expect-nvcc: invalid_name<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("");
  y = x + 1;
});
