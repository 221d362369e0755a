#pragma once
// Programs the plan tests share.
#include <streamdsl/streamdsl.hpp>

namespace plan_tests {

// The README's seed: y on side, then e recorded there and waited on main.
constexpr auto seed_body = [](sd::builder& p) {
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
};

// e is recorded twice on side; each wait on main binds to the latest record
// before it, so the two waits wait for different records.
constexpr auto rerecorded_body = [](sd::builder& p) {
  auto x = p.input<float>("x");
  auto a = p.output<float>("a");
  auto b = p.output<float>("b");
  auto c = p.output<float>("c");
  auto d = p.output<float>("d");
  auto side = p.stream("side");
  auto e = p.event("e");
  sd::with_stream(side, [&] {
    a = x + 1;
    e.record();
  });
  e.wait();
  c = a * 2;
  sd::with_stream(side, [&] {
    b = x * 3;
    e.record();
  });
  e.wait();
  d = b * 2;
};

// A param, a wait_stream and a temp in a workspace slot (read by two kernels).
constexpr auto scaled_body = [](sd::builder& p) {
  auto x = p.input<float>("x");
  auto alpha = p.param<float>("alpha");
  auto t = p.temp<float>("t");
  auto y = p.output<float>("y");
  auto z = p.output<float>("z");
  auto side = p.stream("side");
  t = x * alpha;
  side.wait_stream(p.main_stream());
  sd::with_stream(side, [&] { y = t + 1; });
  z = t * 2;
};

// A cross-stream race: an error under the default policy.
constexpr auto racy_body = [](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto z = p.output<float>("z");
  auto side = p.stream("side");
  sd::with_stream(side, [&] { y = x + 1; });
  z = y * 2;
};

// Six side streams each write an output, one statement on main joins them.
constexpr auto join_body = [](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto o1 = p.output<float>("o1");
  auto o2 = p.output<float>("o2");
  auto o3 = p.output<float>("o3");
  auto o4 = p.output<float>("o4");
  auto o5 = p.output<float>("o5");
  auto o6 = p.output<float>("o6");
  sd::with_stream(p.stream("s1"), [&] { o1 = x + 1; });
  sd::with_stream(p.stream("s2"), [&] { o2 = x + 2; });
  sd::with_stream(p.stream("s3"), [&] { o3 = x + 3; });
  sd::with_stream(p.stream("s4"), [&] { o4 = x + 4; });
  sd::with_stream(p.stream("s5"), [&] { o5 = x + 5; });
  sd::with_stream(p.stream("s6"), [&] { o6 = x + 6; });
  y = o1 + o2 + o3 + o4 + o5 + o6;
};

}  // namespace plan_tests
