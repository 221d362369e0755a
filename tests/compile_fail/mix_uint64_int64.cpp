// uint64_t + int64_t buffers: no integer type holds both (PyTorch refuses the promotion too).
// expect: expression_mixes_incompatible_types<
// expect: the expression `u \+ i` in statement #0 on stream 'main' mixes uint64_t and int64_t, which cannot represent each other
// expect: `sd::cast<int64_t>\(u\)`
// expect-nvcc: expression_mixes_incompatible_types<
#include <cstdint>
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto u = p.input<std::uint64_t>("u");
  auto i = p.input<std::int64_t>("i");
  auto y = p.output<std::int64_t>("y");
  y = u + i;
});
