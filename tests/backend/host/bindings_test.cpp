// Bad bindings are rejected before anything runs, with a binding_error that
// names the buffer or param and says what is wrong; every output stays as it was.
#include <array>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <streamdsl/backend/host/host_executor.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "host_test_support.hpp"

namespace {

using Catch::Matchers::Contains;

constexpr auto program = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto x = p.input<float>("x");
  auto s = p.input<float>("s", sd::scalar);
  auto k = p.param<float>("k");
  auto y = p.output<float>("y");
  auto w = p.inout<float>("w");
  auto t = p.temp<float>("t");
  auto u = p.input<double>("u", m);
  auto v = p.output<double>("v", m);
  auto side = p.stream("side");
  t = x * k;
  y = t + s;
  w += y;
  sd::with_stream(side, [&] { v = u * 2; });
});

constexpr std::size_t n = 40, nm = 9;
constexpr float untouched = -123.0f;

// Caller memory with sentinel outputs, and the valid bindings for it.
struct fixture {
  std::vector<float> x = host_test::ramp<float>(n, 0.0f, 1.0f);
  float s = 2.0f;
  std::vector<float> y = std::vector<float>(n, untouched);
  std::vector<float> w = std::vector<float>(n, untouched);
  std::vector<double> u = host_test::ramp<double>(nm, 1.0, 1.0);
  std::vector<double> v = std::vector<double>(nm, untouched);

  // Every valid binding except those named in `leave_out`, plus `extra`.
  std::vector<sd::binding> bindings(std::initializer_list<std::string_view> leave_out = {},
                                    std::initializer_list<sd::binding> extra = {}) {
    std::vector<sd::binding> all{sd::bind("x", x), sd::bind("s", &s, 1), sd::bind("k", 3.0f),
                                 sd::bind("y", y), sd::bind("w", w),     sd::bind("u", u),
                                 sd::bind("v", v)};
    std::vector<sd::binding> out;
    for (auto& b : all) {
      bool skip = false;
      for (auto name : leave_out) skip = skip || b.name() == name;
      if (!skip) out.push_back(b);
    }
    out.insert(out.end(), extra);
    return out;
  }

  bool outputs_untouched() const {
    for (std::size_t i = 0; i < n; ++i)
      if (y[i] != untouched || w[i] != untouched) return false;
    for (std::size_t i = 0; i < nm; ++i)
      if (v[i] != untouched) return false;
    return true;
  }
};

// Runs with `bindings`, expects a binding_error whose message contains each of `parts`.
void expect_error(fixture& f, const std::vector<sd::binding>& bindings,
                  std::initializer_list<std::string> parts) {
  sd::host_executor ex;
  std::string message;
  try {
    ex.run(program, bindings);
  } catch (const sd::binding_error& e) {
    message = e.what();
  }
  INFO("message: " << message);
  REQUIRE(!message.empty());
  for (const auto& part : parts) CHECK_THAT(message, Contains(part));
  CHECK(f.outputs_untouched());
}

}  // namespace

TEST_CASE("valid bindings run (the fixture is right)", "[host][bindings]") {
  fixture f;
  sd::host_executor ex;
  ex.run(program, f.bindings());
  CHECK(f.y[4] == 4.0f * 3 + 2);
  CHECK(f.w[4] == untouched + f.y[4]);
  CHECK(f.v[8] == 18.0);
}

TEST_CASE("missing bindings name the buffer or param", "[host][bindings]") {
  fixture f;
  expect_error(f, f.bindings({"w"}), {"missing binding for inout buffer 'w' (float, domain 'n')"});
  expect_error(f, f.bindings({"k"}), {"missing binding for param 'k' (float)"});
  expect_error(f, f.bindings({"s"}), {"missing binding for input buffer 's' (float, 0-d)"});
}

TEST_CASE("unknown names, temps and duplicates are rejected", "[host][bindings]") {
  fixture f;
  std::vector<float> q(n);
  expect_error(f, f.bindings({}, {sd::bind("q", q)}), {"unknown name 'q'", "'x'", "'k'"});
  expect_error(f, f.bindings({}, {sd::bind("t", q)}), {"'t' is a temp"});
  expect_error(f, f.bindings({}, {sd::bind("x", q)}), {"'x' is bound more than once"});
}

TEST_CASE("wrong element types are rejected", "[host][bindings]") {
  fixture f;
  std::vector<double> xd(n);
  expect_error(f, f.bindings({"x"}, {sd::bind("x", xd)}),
               {"input buffer 'x' (float, domain 'n') is bound to double data; bind float elements"});
  expect_error(f, f.bindings({"k"}, {sd::bind("k", 3.0)}), {"param 'k' (float) is bound to a double value"});
}

namespace {
constexpr auto narrow_program = sd::program([](sd::builder& p) {
  auto x = p.input<std::uint8_t>("x");
  auto k = p.param<std::int16_t>("k");
  auto y = p.output<std::int16_t>("y");
  y = x + k;
});
}  // namespace

TEST_CASE("integer widths and signedness must match the declaration", "[host][bindings][widths]") {
  std::vector<std::uint8_t> x(10, 7);
  std::vector<std::int8_t> x_signed(10);
  std::vector<std::int16_t> y(10);
  sd::host_executor ex;
  ex.run(narrow_program, sd::bind("x", x), sd::bind("k", std::int16_t{-300}), sd::bind("y", y));
  CHECK(y[3] == 7 + 212);  // a 0-d value is weak: x + k is uint8_t, and -300 wraps to 212 in it
  auto message_of = [&](auto&&... bindings) {
    try {
      ex.run(narrow_program, bindings...);
    } catch (const sd::binding_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK_THAT(
      message_of(sd::bind("x", x_signed), sd::bind("k", std::int16_t{1}), sd::bind("y", y)),
      Contains("input buffer 'x' (uint8_t, domain 'n') is bound to int8_t data; bind uint8_t elements"));
  CHECK_THAT(message_of(sd::bind("x", x), sd::bind("k", std::uint16_t{1}), sd::bind("y", y)),
             Contains("param 'k' (int16_t) is bound to a uint16_t value"));
}

TEST_CASE("null and misaligned pointers are rejected", "[host][bindings]") {
  fixture f;
  expect_error(f, f.bindings({"y"}, {sd::bind<float>("y", nullptr, n)}),
               {"output buffer 'y' (float, domain 'n') is bound to a null pointer with 40 elements"});
  alignas(8) static unsigned char raw[(n + 1) * sizeof(float)];
  float* odd = reinterpret_cast<float*>(raw + 1);  // never dereferenced: rejected first
  expect_error(f, f.bindings({"y"}, {sd::bind("y", odd, n)}),
               {"output buffer 'y'", "not aligned to 4 bytes"});
}

TEST_CASE("extents of one domain must agree; 0-d buffers hold one element", "[host][bindings]") {
  fixture f;
  std::vector<float> short_y(n - 1);
  expect_error(f, f.bindings({"y"}, {sd::bind("y", short_y)}),
               {"domain 'n' must have one extent", "'x' is bound to 40 elements and 'y' to 39"});
  std::vector<float> two(2);
  expect_error(f, f.bindings({"s"}, {sd::bind("s", two)}),
               {"input buffer 's' (float, 0-d) is bound to 2 elements"});
}

TEST_CASE("params and buffers are not interchangeable", "[host][bindings]") {
  fixture f;
  std::vector<float> kv(n);
  expect_error(f, f.bindings({"k"}, {sd::bind("k", kv)}), {"param 'k' (float) is bound to memory"});
  expect_error(f, f.bindings({"x"}, {sd::bind("x", 1.0f)}), {"input buffer 'x'", "bound to a single value"});
}

TEST_CASE("read-only memory for an output or inout is rejected", "[host][bindings]") {
  fixture f;
  const std::vector<float> frozen(n, untouched);
  expect_error(f, f.bindings({"y"}, {sd::bind("y", frozen)}),
               {"output buffer 'y' (float, domain 'n') is bound to read-only (const) memory"});
  expect_error(f, f.bindings({"w"}, {sd::bind("w", std::span<const float>(frozen))}),
               {"inout buffer 'w'", "read-only"});
}

TEST_CASE("a written buffer must not overlap another bound buffer", "[host][bindings]") {
  fixture f;
  expect_error(f, f.bindings({"w"}, {sd::bind("w", f.y)}), {"buffers 'y' and 'w' overlap in memory"});
  expect_error(f, f.bindings({"y"}, {sd::bind("y", f.x)}), {"overlap in memory"});
}

TEST_CASE("element counts whose bytes overflow or pass the address space are rejected", "[host][bindings]") {
  fixture f;
  // 2^62 doubles are 2^65 bytes, which wrap to 0 in std::size_t: accepted
  // once, overlap check included, and the run crashed.
  expect_error(
      f,
      f.bindings({"u", "v"}, {sd::bind("u", f.u.data(), 1ull << 62), sd::bind("v", f.v.data(), 1ull << 62)}),
      {"2 bad bindings",
       "input buffer 'u' (double, domain 'm') is bound to 4611686018427387904 elements of double, more "
       "bytes than the address space allows",
       "output buffer 'v' (double, domain 'm') is bound to 4611686018427387904 elements"});
  // 2^61 floats are 2^63 bytes: no wrap, but more than any object may have.
  expect_error(f, f.bindings({"x"}, {sd::bind("x", f.x.data(), 1ull << 61)}),
               {"input buffer 'x' (float, domain 'n') is bound to 2305843009213693952 elements of float"});
  // A count that fits but runs from its address past the end of memory.
  const auto* near_end = reinterpret_cast<const float*>(~std::uintptr_t{0} - 4095);  // never dereferenced
  expect_error(f, f.bindings({"x"}, {sd::bind("x", near_end, 2048)}),
               {"input buffer 'x'", "2048 elements at address", "run past the end of the address space"});
}

TEST_CASE("every problem is reported at once", "[host][bindings]") {
  fixture f;
  std::vector<double> xd(n);
  expect_error(f, f.bindings({"x", "k", "v"}, {sd::bind("x", xd)}),
               {"3 bad bindings", "'x'", "param 'k'", "output buffer 'v'"});
}

TEST_CASE("16-bit float types without CUDA's headers are a binding_error", "[host][bindings][half]") {
  // Declared through the builder's engine, which takes dtypes: __half itself is not
  // declared in this translation unit.
  using access = sd::detail::builder_access;
  sd::detail::builder_state b;
  const auto h = access::add_buffer(b, "h", sd::ir::access::input, sd::dtype::float16, 0);
  const auto y = access::add_buffer(b, "y", sd::ir::access::output, sd::dtype::float32, 0);
  access::assign(b, sd::ir::whole(y),
                 access::unary(b, sd::ir::op::cast, access::load(b, sd::ir::whole(h)), sd::dtype::float32,
                               sd::dtype::float32));
  auto model = sd::passes::schedule(static_cast<sd::ir::program&&>(access::ir(b)), sd::checked);
  REQUIRE(model.ir.ok());
  std::vector<float> ys(4, untouched);
  const std::vector<std::uint16_t> hs{0x3C00, 0x4000, 0xC000, 0x3800};  // 1, 2, -2, 0.5 as __half bits
  const std::vector<sd::binding> list{
      sd::binding::buffer("h", sd::dtype::float16, hs.data(), hs.size(), true), sd::bind("y", ys)};
  sd::host_executor ex;
#ifndef STREAMDSL_HAS_HALF
  CHECK_THROWS_WITH(
      ex.run(sd::view_of(model), list),
      Contains("input buffer 'h' (__half, domain 'n') uses __half, __nv_bfloat16 or an FP8 type") &&
          Contains("STREAMDSL_WITH_CUDA_HEADERS"));
  CHECK(ys[0] == untouched);
#else
  ex.run(sd::view_of(model), list);  // with CUDA's headers the host evaluates them
  CHECK(ys == std::vector<float>{1.0f, 2.0f, -2.0f, 0.5f});
#endif
}

namespace {
// A compiled program that uses __half without CUDA's headers (through the
// builder's engine, which takes dtypes). host_executor::run(program, ...) rejects it
// at compile time with a static_assert on host_can_run; a call cannot be
// compiled here, so this checks the predicate itself.
constexpr auto half_program = sd::program([](sd::builder& b) {
  using access = sd::detail::builder_access;
  auto& p = access::state(b);
  const auto h = access::add_buffer(p, "h", sd::ir::access::input, sd::dtype::float16, 0);
  auto y = b.output<float>("y");
  access::assign(p, sd::ir::whole(y.id()),
                 access::unary(p, sd::ir::op::cast, access::load(p, sd::ir::whole(h)), sd::dtype::float32,
                               sd::dtype::float32));
});
}  // namespace

TEST_CASE("a compiled program using 16-bit floats is rejected at compile time without CUDA's headers",
          "[host][bindings][half]") {
#ifndef STREAMDSL_HAS_HALF
  STATIC_REQUIRE(!sd::host_detail::host_can_run(half_program.plan()));
#else
  STATIC_REQUIRE(sd::host_detail::host_can_run(half_program.plan()));
#endif
  STATIC_REQUIRE(sd::host_detail::host_can_run(program.plan()));
}

TEST_CASE("a plan whose scheduling failed is refused before anything runs", "[host][bindings]") {
  sd::builder b;
  auto x = b.input<float>("x");
  auto y = b.output<float>("y");
  auto z = b.output<float>("z");
  auto side = b.stream("side");
  sd::with_stream(side, [&] { y = x + 1; });
  z = y * 2;  // a race under sd::checked
  const auto m = sd::passes::schedule(static_cast<sd::builder&&>(b).ir(), sd::checked);
  const auto plan = sd::view_of(m);
  REQUIRE(!plan.valid());
  std::vector<float> xs(4, 1.f), ys(4, -1.f), zs(4, -1.f);
  const sd::binding bindings[] = {sd::bind("x", xs), sd::bind("y", ys), sd::bind("z", zs)};
  sd::host_executor ex;
  REQUIRE_THROWS_WITH(ex.run(plan, bindings),
                      Catch::Contains("scheduling it failed") && Catch::Contains("race"));
  CHECK_THROWS_AS(ex.run(plan, bindings), sd::binding_error);  // as docs/host_executor.md says
  CHECK(ys == std::vector<float>(4, -1.f));
}

TEST_CASE("sd::bind takes any contiguous container", "[host][bindings]") {
  std::vector<float> v(4);
  const std::vector<float>& cv = v;
  float arr[3] = {};
  REQUIRE(sd::bind("x", v).size() == 4);
  REQUIRE(!sd::bind("x", v).read_only());
  REQUIRE(sd::bind("x", cv).read_only());
  REQUIRE(sd::bind("x", arr).size() == 3);
  REQUIRE(sd::bind("x", std::span<float>(v)).size() == 4);  // a temporary view is fine
  std::array<double, 2> a{};
  REQUIRE(sd::bind("x", a).type() == sd::dtype::float64);
  REQUIRE(sd::bind("x", std::span<const float>(v)).read_only());
  const std::vector<sd::binding> list = {sd::bind("x", v), sd::bind("k", 2.0f)};
  const sd::binding_list view = list;
  REQUIRE(view.size() == 2);
  REQUIRE(view[1].is_param());
  REQUIRE(view[0].name() == "x");
  // Only containers of bindings make a binding list (not a binding, not an int).
  STATIC_REQUIRE(!std::is_convertible_v<sd::binding, sd::binding_list>);
  STATIC_REQUIRE(!std::is_convertible_v<int, sd::binding_list>);
  STATIC_REQUIRE(!std::is_convertible_v<std::vector<float>, sd::binding_list>);
}
