// Memory spaces: the space is part of a buffer handle's type and of the IR;
// an elementwise statement over a host buffer is an error that says to copy
// first; the plan dump shows a host buffer's space.
#include <catch2/catch.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>
#include <type_traits>

namespace {

using sd::ir::access;
using sd::ir::memory_space;

constexpr auto spaces = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto h_in = p.input<float, sd::pinned>("h_in");
  auto h_out = p.output<double, sd::pageable>("h_out");
  auto h_io = p.inout<float, sd::pinned>("h_io");
  auto d = p.input<float, sd::device>("d");
  auto y = p.output<float>("y");
  y = x + d;
  (void)h_in, (void)h_out, (void)h_io;
});

// The first error of a run-time builder's program, after `body` wrote it.
template <class F>
sd::ir::error_record first_error(F body) {
  sd::builder b;
  body(b);
  REQUIRE(!b.ir().ok());
  return b.ir().errors[0];
}

}  // namespace

TEST_CASE("the space is part of a buffer handle's type; sd::input<T> and friends are device buffers",
          "[dsl][spaces]") {
  STATIC_REQUIRE(std::is_same_v<sd::input<float>, sd::buffer<float, access::input, sd::device>>);
  STATIC_REQUIRE(std::is_same_v<sd::output<int>, sd::buffer<int, access::output>>);
  STATIC_REQUIRE(std::is_same_v<sd::inout<float, sd::pinned>, sd::buffer<float, access::inout, sd::pinned>>);
  STATIC_REQUIRE(sd::input<float, sd::pageable>::space == memory_space::pageable);
  STATIC_REQUIRE(sd::temp<float>::space == memory_space::device);
  sd::builder b;
  STATIC_REQUIRE(std::is_same_v<decltype(b.input<float, sd::pinned>("h")), sd::input<float, sd::pinned>>);
  STATIC_REQUIRE(std::is_same_v<decltype(b.output<float>("y")), sd::output<float>>);
  STATIC_REQUIRE(!std::is_same_v<sd::input<float, sd::pinned>, sd::input<float>>);
}

TEST_CASE("the IR records each buffer's space", "[dsl][spaces]") {
  constexpr auto ir = spaces.plan().ir;
  STATIC_REQUIRE(ir.buffers[0].space == memory_space::device);
  STATIC_REQUIRE(ir.buffers[1].space == memory_space::pinned);
  STATIC_REQUIRE(ir.buffers[2].space == memory_space::pageable);
  STATIC_REQUIRE(ir.buffers[3].space == memory_space::pinned);
  STATIC_REQUIRE(ir.buffers[4].space == memory_space::device);
  STATIC_REQUIRE(sd::ir::is_host(memory_space::pinned) && sd::ir::is_host(memory_space::pageable));
  STATIC_REQUIRE(!sd::ir::is_host(memory_space::device));
}

TEST_CASE("the plan dump shows a buffer's space when it is not the device", "[dsl][spaces][dump]") {
  const std::string text = spaces.to_string();
  CHECK_THAT(text, Catch::Contains("\n    input float x[n]\n"));
  CHECK_THAT(text, Catch::Contains("\n    pinned input float h_in[n]\n"));
  CHECK_THAT(text, Catch::Contains("\n    pageable output double h_out[n]\n"));
  CHECK_THAT(text, Catch::Contains("\n    pinned inout float h_io[n]\n"));
  CHECK_THAT(text, Catch::Contains("\n    input float d[n]\n"));
  CHECK_THAT(text, !Catch::Contains("device"));
}

TEST_CASE("an elementwise statement that reads host memory is an error that says to copy first",
          "[dsl][spaces]") {
  const auto e = first_error([](sd::builder& p) {
    auto h = p.input<float, sd::pinned>("h");
    auto y = p.output<float>("y");
    y = h * 2;
  });
  CHECK(e.kind == sd::diag::error_kind::host_memory_in_expression);
  CHECK_THAT(
      std::string(e.message.view()),
      Catch::Equals("statement #0 `y = h * 2` on stream 'main' reads the input buffer 'h', which is in "
                    "pinned host memory, and elementwise statements run on the device; copy it to a "
                    "device buffer first with `sd::copy(d, h)` (d: e.g. p.temp<float>) and use d"));
}

TEST_CASE("an elementwise statement that writes host memory is an error that says to copy after",
          "[dsl][spaces]") {
  const auto e = first_error([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto side = p.stream("side");
    auto h = p.output<double, sd::pageable>("h_out");
    sd::with_stream(side, [&] { h = x + 1; });
  });
  CHECK(e.kind == sd::diag::error_kind::host_memory_in_expression);
  CHECK_THAT(
      std::string(e.message.view()),
      Catch::StartsWith("statement #0 `h_out = x + 1` on stream 'side' writes the output buffer 'h_out', "
                        "which is in pageable host memory") &&
          Catch::EndsWith("write a device buffer (e.g. p.temp<double>) and copy it with "
                          "`sd::copy(h_out, d)`"));
}

TEST_CASE("a host buffer anywhere in the expression is found; device buffers are fine", "[dsl][spaces]") {
  const auto e = first_error([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto h = p.inout<float, sd::pinned>("h");
    auto y = p.output<float>("y");
    y = x * 2;                      // fine
    y = sd::max(x, x + h * 3) + x;  // h deep inside
  });
  CHECK(e.kind == sd::diag::error_kind::host_memory_in_expression);
  CHECK(e.message.contains("statement #1 "));
  CHECK(e.message.contains("reads the inout buffer 'h', which is in pinned host memory"));

  sd::builder ok;
  auto x = ok.input<float>("x");
  auto h = ok.input<float, sd::pageable>("h");  // declared, not used by elementwise statements
  auto y = ok.output<float>("y");
  y = x * 2;
  (void)h;
  CHECK(ok.ir().ok());
}

TEST_CASE("the host memory check comes before the other statement checks", "[dsl][spaces]") {
  // Writing a host input is foremost a host-memory statement: the fix is a copy.
  const auto e = first_error([](sd::builder& p) {
    auto h = p.input<float, sd::pinned>("h");
    auto x = p.input<float>("x");
    h = x;
  });
  CHECK(e.kind == sd::diag::error_kind::host_memory_in_expression);
  CHECK(e.message.contains("writes the input buffer 'h', which is in pinned host memory"));
}
