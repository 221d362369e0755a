// wait_binds_to in a static_assert asking for a wait the stream does not have
// stops the compile at a function named after the problem.
// expect: plan_query_names_no_such_wait
// expect: wait_binds_to\("main", 1\)
// expect-nvcc: plan_query_names_no_such_wait
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

static_assert(seed.plan().wait_binds_to("main", 1).view() == "record e on side");  // main has one wait: 0
