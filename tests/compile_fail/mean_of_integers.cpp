// sd::mean of an integer expression: refused without a cast, as in PyTorch.
// expect: reduction_of_integers_needs_a_cast<
// expect: statement #0 `m = sd::mean\(k \+ 1\)` on stream 'main': sd::mean of an int32_t expression has no exact integer result
// expect: `sd::mean\(sd::cast<double>\(k \+ 1\)\)`
// expect-nvcc: reduction_of_integers_needs_a_cast<
// expect-nvcc: sd::mean or sd::norm of an integer expression
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto k = p.input<std::int32_t>("k");
  auto m = p.output<double>("m", sd::scalar);
  m = sd::mean(k + 1);
});
