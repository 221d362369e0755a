// The sequential reference on small programs whose results are worked out by
// hand, so that a wrong reference cannot make the differential test agree
// with a wrong executor.
#include "reference.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <streamdsl/streamdsl.hpp>

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
