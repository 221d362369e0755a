// A temp declared in host memory: temps live in the executor's device
// workspace, so the space parameter is refused with what to write instead.
// expect: a temp lives in the executor's device workspace and takes no memory space
// expect: p.output<float, sd::pinned>\("h"\)
// expect-nvcc: a temp lives in the executor's device workspace and takes no memory space
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto t = p.temp<float, sd::pinned>("t");
  auto y = p.output<float>("y");
  t = x + 1;
  y = t * 2;
});
