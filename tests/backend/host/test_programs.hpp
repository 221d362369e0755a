#pragma once
// Programs used by several host executor tests.
#include <streamdsl/streamdsl.hpp>

namespace host_test {

// The README's seed program: y on a side stream, z on main after waiting for it.
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

// The second wait binds to the second record of e: main must see c.
constexpr auto rerecorded = sd::program([](sd::builder& p) {
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
  b = a * 2;
  sd::with_stream(side, [&] {
    c = x + 5;
    e.record();  // re-recording rebinds later waits
  });
  e.wait();
  d = c + b;
});

inline constexpr const char* stream_names[] = {"s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7"};
inline constexpr const char* buffer_names[] = {"y0", "y1", "y2", "y3", "y4", "y5", "y6", "y7"};
inline constexpr const char* event_names[] = {"e0", "e1", "e2", "e3", "e4", "e5", "e6", "e7"};

// Eight side streams each compute their own output; main joins them. All
// side streams run at once: each waits only for main's entry record.
constexpr auto many_streams = sd::program([](sd::builder& p) {
  auto x = p.input<std::int32_t>("x");
  auto z = p.output<std::int32_t>("z");
  z = x;
  for (int k = 0; k < 8; ++k) {
    auto s = p.stream(stream_names[k]);
    auto y = p.output<std::int32_t>(buffer_names[k]);
    auto e = p.event(event_names[k]);
    sd::with_stream(s, [&] {
      y = x * k + k;
      e.record();
    });
    e.wait();
    z += y;
  }
});

}  // namespace host_test
