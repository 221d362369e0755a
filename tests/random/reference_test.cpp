// The sequential reference on small programs whose results are worked out by
// hand, so that a wrong reference cannot make the differential test agree
// with a wrong executor.
#include "reference.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <streamdsl/streamdsl.hpp>

#include "order_model.hpp"

namespace rt = streamdsl::random_test;

namespace {

template <class T>
rt::typed_array array_of(std::initializer_list<T> values) {
  rt::typed_array a(sd::dtype_v<T>, values.size());
  std::size_t i = 0;
  for (auto v : values) a.set(i++, rt::scalar::of(v));
  return a;
}

template <class T>
T at(const rt::typed_array& a, std::size_t i) {
  return a.get(i).as<T>();
}

}  // namespace

TEST_CASE("reference: statements run in program order, streams ignored", "[random][reference]") {
  sd::builder b;
  auto x = b.input<float>("x");
  auto y = b.output<float>("y");
  auto z = b.output<float>("z");
  auto t = b.temp<float>("t");
  auto side = b.stream("side");
  auto e = b.event("e");
  sd::with_stream(side, [&] {
    t = x + 1;
    y = t * 2;
    e.record();
  });
  e.wait();
  z = y - x;
  y = y + 100;  // overwrites y after z read it
  std::vector<rt::typed_array> buffers{array_of<float>({1, 2, -3}), array_of<float>({0, 0, 0}),
                                       array_of<float>({9, 9, 9}), array_of<float>({0, 0, 0})};
  rt::run_reference(sd::ir::view_of(b.ir()), {{3}, {}}, buffers);
  CHECK(at<float>(buffers[1], 0) == 104);  // (1 + 1) * 2 + 100
  CHECK(at<float>(buffers[1], 2) == 96);   // (-3 + 1) * 2 + 100
  CHECK(at<float>(buffers[2], 0) == 3);    // 4 - 1
  CHECK(at<float>(buffers[2], 2) == -1);   // -4 - -3
}

TEST_CASE("reference: types, 0-d broadcast, params and integer edge cases", "[random][reference]") {
  sd::builder b;
  auto m = b.domain("m");
  auto i = b.input<std::int32_t>("i", m);
  auto s = b.inout<double>("s", sd::scalar);
  auto q = b.output<std::int32_t>("q", m);
  auto c = b.output<std::int64_t>("c", m);
  auto w = b.output<double>("w", m);
  auto k = b.param<std::int32_t>("k");
  q = i / k;                                         // k = 0: integer division by zero gives 0
  c = sd::cast<std::int64_t>(i) * 3;                 // int64
  s = s * 2;                                         // 0-d inout
  w = sd::where(i > 0, s, sd::cast<double>(i) / 4);  // 0-d broadcast into domain m
  const auto big = std::numeric_limits<std::int32_t>::min();
  std::vector<rt::typed_array> buffers{array_of<std::int32_t>({5, -6, big}), array_of<double>({1.5}),
                                       array_of<std::int32_t>({7, 7, 7}), array_of<std::int64_t>({0, 0, 0}),
                                       array_of<double>({0, 0, 0})};
  rt::run_reference(sd::ir::view_of(b.ir()), {{1, 3}, {rt::scalar::of(std::int32_t{0})}}, buffers);
  CHECK(at<std::int32_t>(buffers[2], 0) == 0);
  CHECK(at<std::int32_t>(buffers[2], 2) == 0);
  CHECK(at<std::int64_t>(buffers[3], 1) == -18);
  CHECK(at<std::int64_t>(buffers[3], 2) == std::int64_t{big} * 3);
  CHECK(at<double>(buffers[1], 0) == 3.0);
  CHECK(at<double>(buffers[4], 0) == 3.0);   // i > 0: s, already doubled
  CHECK(at<double>(buffers[4], 1) == -1.5);  // -6 / 4
}

TEST_CASE("reference: conversions saturate, weak literals keep float, NaNs compare equal",
          "[random][reference]") {
  sd::builder b;
  auto x = b.input<float>("x");
  auto n = b.output<std::int32_t>("n");
  auto y = b.output<float>("y");
  n = sd::cast<std::int32_t>(x * 1e10);  // the double literal is weak: float * float, then saturate
  y = x * 0.1;                           // float(0.1), not the double
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<rt::typed_array> buffers{array_of<float>({1, -1, nan}), array_of<std::int32_t>({0, 0, 0}),
                                       array_of<float>({0, 0, 0})};
  rt::run_reference(sd::ir::view_of(b.ir()), {{3}, {}}, buffers);
  CHECK(at<std::int32_t>(buffers[1], 0) == std::numeric_limits<std::int32_t>::max());
  CHECK(at<std::int32_t>(buffers[1], 1) == std::numeric_limits<std::int32_t>::min());
  CHECK(at<std::int32_t>(buffers[1], 2) == 0);  // NaN -> 0
  CHECK(at<float>(buffers[2], 0) == 1.0f * static_cast<float>(0.1));
  rt::typed_array other =
      array_of<float>({1.0f * static_cast<float>(0.1), -1.0f * static_cast<float>(0.1), -nan});
  CHECK(buffers[2].same_element_at(other, 0));
  CHECK(buffers[2].same_element_at(other, 2));  // NaN and -NaN: both NaN
  rt::typed_array zero = array_of<float>({-0.0f, 0, 0});
  CHECK(!zero.same_element_at(array_of<float>({0.0f, 0, 0}), 0));  // -0 and +0 differ by bits
}

TEST_CASE("reference: chunked statements and copies, in program order", "[random][reference]") {
  sd::builder b;
  auto x = b.input<float>("x");
  auto y = b.output<float>("y");
  auto t = b.temp<float>("t");
  auto m = b.domain("m");
  auto z = b.output<float>("z", m);
  auto side = b.stream("side");
  t.chunk(1, 2) = x.chunk(0, 2) * 10;                                 // t[2], t[3] = x[0] * 10, x[1] * 10
  sd::with_stream(side, [&] { t.chunk(0, 2) = x.chunk(1, 2) + 1; });  // t[0], t[1] = x[2] + 1, x[3] + 1
  y = t + x;                                                          // written chunk by chunk, read whole
  sd::copy(z, y.chunk(1, 4));                                         // z (one element, domain m) = y[1]
  y.chunk(3, 4) = y.chunk(0, 4) * 2;                                  // y[3] = y[0] * 2
  sd::copy(y.chunk(0, 2), y.chunk(1, 2));                             // y[0], y[1] = y[2], y[3]
  REQUIRE(b.ir().ok());
  std::vector<rt::typed_array> buffers{array_of<float>({1, 2, 3, 4}), array_of<float>({0, 0, 0, 0}),
                                       array_of<float>({-1, -1, -1, -1}), array_of<float>({0})};
  rt::run_reference(sd::ir::view_of(b.ir()), {{4, 1}, {}}, buffers);
  // t = {4, 5, 10, 20}; y = t + x = {5, 7, 13, 24}; z = 7; y[3] = 10; y[0..1] = y[2..3].
  CHECK(at<float>(buffers[2], 0) == 4);
  CHECK(at<float>(buffers[2], 3) == 20);
  CHECK(at<float>(buffers[3], 0) == 7);
  CHECK(at<float>(buffers[1], 0) == 13);
  CHECK(at<float>(buffers[1], 1) == 10);
  CHECK(at<float>(buffers[1], 2) == 13);
  CHECK(at<float>(buffers[1], 3) == 10);
}

TEST_CASE("reference: a chunk count that does not divide the extent is the tester's own bug",
          "[random][reference]") {
  sd::builder b;
  auto x = b.input<float>("x");
  auto y = b.output<float>("y");
  y.chunk(0, 2) = x.chunk(1, 2);
  std::vector<rt::typed_array> buffers{array_of<float>({1, 2, 3}), array_of<float>({0, 0, 0})};
  CHECK_THROWS_AS(rt::run_reference(sd::ir::view_of(b.ir()), {{3}, {}}, buffers), std::logic_error);
}

TEST_CASE("order model: chunks conflict exactly where they share elements", "[random][reference]") {
  const sd::ir::region half0{0, 0, 2}, half1{0, 1, 2}, third1{0, 1, 3}, quarter1{0, 1, 4}, eighth3{0, 3, 8};
  CHECK(!rt::regions_meet(half0, half1));
  CHECK(rt::regions_meet(half0, third1));  // [1/3, 2/3) meets [0, 1/2)
  CHECK(rt::regions_meet(half1, third1));
  CHECK(rt::regions_meet(half0, quarter1));
  CHECK(!rt::regions_meet(half1, quarter1));
  CHECK(rt::regions_meet(quarter1, eighth3));  // [3/8, 4/8) lies in [1/4, 2/4)
  CHECK(!rt::regions_meet(third1, sd::ir::region{0, 0, 3}));
  CHECK(!rt::regions_meet(half0, sd::ir::region{1, 0, 2}));  // another buffer
  CHECK(rt::regions_meet(sd::ir::whole(0), eighth3));

  rt::coverage c;
  c.add({0, 1, 2});
  CHECK(c.covers({0, 2, 4}));
  CHECK(!c.covers(sd::ir::whole(0)));
  c.add({0, 0, 3});
  CHECK(!c.covers({0, 1, 3}));  // [1/3, 1/2) is still unwritten
  c.add({0, 2, 8});             // [2/8, 3/8)
  c.add({0, 3, 8});             // [3/8, 4/8)
  CHECK(c.covers(sd::ir::whole(0)));
  CHECK_THROWS_AS(c.add({0, 0, 5}), std::logic_error);  // off the tester's grid

  // The model: disjoint halves written on two streams do not race; a third that meets one does.
  sd::builder b;
  auto x = b.input<float>("x");
  auto y = b.output<float>("y");
  auto side = b.stream("side");
  sd::with_stream(side, [&] { y.chunk(0, 2) = x.chunk(0, 2) + 1; });
  y.chunk(1, 2) = x.chunk(1, 2);
  rt::order_model model(2, 2);
  model.observe(b.ir());
  CHECK(model.races() == 0);
  CHECK(model.unordered_streams(0, {}, {sd::ir::region{1, 0, 3}}) == std::vector<std::int32_t>{1});
  CHECK(model.unordered_streams(0, {}, {sd::ir::region{1, 2, 3}}).empty());  // only main's half 1
  CHECK(model.unordered_streams(0, {sd::ir::region{1, 1, 2}}, {}).empty());
  CHECK(model.written({1, 1, 4}));
  sd::copy(y.chunk(1, 3), x.chunk(1, 3));  // on main: meets side's half 0
  model.observe(b.ir());
  CHECK(model.races() == 1);
  CHECK(model.first_race().buffer == 1);
  CHECK(model.first_race().first == 0);
  CHECK(model.first_race().second == 2);
}
