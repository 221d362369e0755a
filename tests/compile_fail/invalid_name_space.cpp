// A stream name with a space in it.
// expect: invalid_name<
// expect: invalid stream name 'copy engine' \(not an identifier\), declared right after the output buffer 'y'
// expect: letters, digits and '_'
// expect-nvcc: invalid_name<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto copy = p.stream("copy engine");
  sd::with_stream(copy, [&] { y = x + 1; });
});
