// Arithmetic on an FP8 value: FP8 types only convert (sd::cast), as in PyTorch.
// needs: cuda-headers
// expect: fp8_values_only_convert<
// expect: applies \* to a __nv_fp8_e4m3 operand; FP8 values only convert
// expect: `sd::cast<float>\(q\)`
// expect-nvcc: fp8_values_only_convert<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto q = p.input<__nv_fp8_e4m3>("q");
  auto y = p.output<float>("y");
  y = sd::cast<float>(q * 2);
});
