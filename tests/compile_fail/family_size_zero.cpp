// A family declared with no members (a size computed as 0).
// expect: family_size_must_be_positive<
// expect: the stream family 'lanes' is declared with 0 members; a family has 1 to 1048576 members
// expect-nvcc: family_size_must_be_positive<
// expect-nvcc: a family is declared with fewer than one member
#include <streamdsl/streamdsl.hpp>

constexpr int chunks = 0;

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto lanes = p.streams("lanes", chunks);
  sd::with_stream(lanes[0], [&] { y = x + 1; });
});
