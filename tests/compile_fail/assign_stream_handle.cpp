// `a = b` on two stream handles: it made `a` name b's stream, so work
// written in with_stream(a, ...) silently ran on b.
// expect: a stream handle cannot be assigned
// expect: to order a after b's work write a.wait_stream\(b\)
// expect-nvcc: a stream handle cannot be assigned
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto side = p.stream("side");
  auto other = p.stream("other");
  other = side;
  sd::with_stream(other, [&] { y = x + 1; });
});
