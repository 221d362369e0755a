// `a = b` on two param handles (issue 11.4: it compiled and made `a` name b's
// param, so the result silently used b).
// expect: a param handle cannot be assigned
// expect: where b's value is meant, or bind both params to the same value
// expect-nvcc: a param handle cannot be assigned
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto a = p.param<float>("a");
  auto b = p.param<float>("b");
  auto y = p.output<float>("y");
  a = b;
  y = x * a;
});
