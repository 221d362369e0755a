// `a = b` on two event handles (issue 11.4: it compiled and made `a` name b's
// event, so a's records and waits went to b).
// expect: an event handle cannot be assigned
// expect: call b.record\(\) and b.wait\(\) on the event you mean
// expect-nvcc: an event handle cannot be assigned
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto z = p.output<float>("z");
  auto side = p.stream("side");
  auto a = p.event("a");
  auto b = p.event("b");
  sd::with_stream(side, [&] {
    y = x + 1;
    a.record();
  });
  b = a;
  b.wait();
  z = y * 2;
});
