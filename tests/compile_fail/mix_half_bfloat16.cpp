// __half and __nv_bfloat16 in one expression: neither represents the other.
// needs: cuda-headers
// expect: expression_mixes_incompatible_types<
// expect: the expression `h \+ b` in statement #0 on stream 'main' mixes __half and __nv_bfloat16
// expect: `sd::cast<float>\(h\)`
// expect-nvcc: expression_mixes_incompatible_types<
// expect-nvcc: __half and __nv_bfloat16
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto h = p.input<__half>("h");
  auto b = p.input<__nv_bfloat16>("b");
  auto y = p.output<float>("y");
  y = h + b;
});
