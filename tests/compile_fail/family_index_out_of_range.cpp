// A family indexed one past its last member.
// expect: family_index_out_of_range<
// expect: x\[8\] is out of range: the input buffer family 'x' has 8 members, x\[0\] to x\[7\] \(indexed where statement #8 on stream 'main' is written\)
// expect-nvcc: family_index_out_of_range<
// expect-nvcc: a family of handles is indexed outside its members
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.inputs<float>("x", 8);
  auto y = p.outputs<float>("y", 8);
  for (int i = 0; i < 8; ++i) y[i] = x[i] * 2;
  auto last = x[8];
  y[0] = last + 1;
});
