// A plan query in a static_assert that names no stream of the plan (a typo)
// stops the compile instead of counting zero.
// expect: plan_query_names_no_such_stream
// expect: seed\.plan\(\)\.waits\("mian"\)
// expect-nvcc: plan_query_names_no_such_stream
#include <streamdsl/streamdsl.hpp>

constexpr auto seed = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto side = p.stream("side");
  auto e = p.event("e");
  sd::with_stream(side, [&] {
    y = x + 1;
    e.record();
  });
  e.wait();
  y = y * 2;
});

static_assert(seed.plan().waits("mian") == 1);
