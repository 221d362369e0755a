// A stream named "main", the main stream's name (it was reported as a
// duplicate of a declaration the user never wrote).
// expect: reserved_name<
// expect: reserved name 'main': the stream 'main' takes the name of the main stream \(p.main_stream\(\)
// expect-not: duplicate
// expect-nvcc: reserved_name<
// expect-nvcc: a declaration uses a reserved name
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto side = p.stream("main");
  sd::with_stream(side, [&] { y = x + 1; });
});
