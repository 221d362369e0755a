// expect-compiles: the seed program with its wait. The driver must compile
// this one cleanly, so a driver that fails every case cannot pass the suite.
#include <streamdsl/streamdsl.hpp>

constexpr auto seed = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto z = p.output<float>("z");
  auto side = p.stream("side");
  auto e = p.event("e");
  sd::with_stream(side, [&] {
    y = x + 1;
    e.record();
  });
  e.wait();
  z = y * 2;
});
static_assert(seed.plan().kernel_count() == 2);
