// p.host_call (ops/call.hpp): a host step, the user's callable run on the CPU
// in stream order. The step statement and its row (a call to the passes),
// its refusals (device memory, temps), its place in ordering and races, and
// what the host executor hands its callable. The CUDA executor's
// cudaLaunchHostFunc, graph replay and error reporting are tested in
// tests/backend/cuda/host_call_gpu_test.cu.
#include <catch2/catch.hpp>
#include <stdexcept>
#include <streamdsl/backend/host/host_executor.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>
#include <vector>

#include "first_error.hpp"

namespace {

using sd::diag::error_kind;

using op_test::first_error;
using op_test::first_message;

// t = x + 1 on the device; copied to pinned h; a host step halves h into
// pinned g; g comes back to the device and y = d * 3 after it.
constexpr auto round_trip = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto h = p.output<float, sd::pinned>("h");
  auto g = p.output<float, sd::pinned>("g");
  auto t = p.temp<float>("t");
  auto d = p.temp<float>("d");
  t = x + 1;
  sd::copy(h, t);
  p.host_call("halve", sd::reads(h), sd::writes(g));
  sd::copy(d, g);
  y = d * 3;
});

// The same with the host step on a side stream, ordered by events.
constexpr auto on_side = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto h = p.output<float, sd::pinned>("h");
  auto g = p.output<float, sd::pinned>("g");
  auto side = p.stream("side");
  auto filled = p.event("filled");
  auto done = p.event("done");
  sd::copy(h, x);
  filled.record();
  sd::with_stream(side, [&] {
    filled.wait();
    p.host_call("halve", sd::reads(h), sd::writes(g));
    done.record();
  });
  done.wait();
  auto d = p.temp<float>("d");
  sd::copy(d, g);
  y = d + 100;
});

void halve(sd::call_context& c) {
  const auto in = c.read<float>(0);
  const auto out = c.write<float>(0);
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = in[i] / 2;
}

std::string nested_message(const sd::error& outer) {
  try {
    std::rethrow_if_nested(outer);
  } catch (const std::exception& inner) {
    return inner.what();
  }
  return "(nothing nested)";
}

}  // namespace

TEST_CASE("a host step is a call step with its own code and spelling", "[host_call]") {
  constexpr auto plan = round_trip.plan();
  STATIC_REQUIRE(plan.ir.calls.size() == 1);
  STATIC_REQUIRE(sd::ir::info(sd::ir::step_code::host_call).form == sd::ir::step_form::call);
  STATIC_REQUIRE(sd::ir::info(sd::ir::step_code::host_call).spelling == "p.host_call");
  std::size_t host_steps = 0;
  for (const auto& s : plan.ir.stmts)
    host_steps += s.kind == sd::ir::stmt_kind::step && s.code == sd::ir::step_code::host_call;
  CHECK(host_steps == 1);
  const std::string dump = round_trip.to_string();
  CHECK(dump.find(R"(p.host_call("halve", sd::reads(h), sd::writes(g));)") != std::string::npos);
}

TEST_CASE("the host executor runs a host step in stream order with its regions", "[host_call]") {
  std::vector<float> x{1, 3, 5, 7}, y(4, -1), h(4, -1), g(4, -1);
  int calls = 0;
  sd::host_executor ex;
  ex.run(round_trip, sd::bind("x", x), sd::bind("y", y), sd::bind("h", h), sd::bind("g", g),
         sd::bind_call("halve", [&](sd::call_context& c) {
           ++calls;
           CHECK(c.name() == "halve");
           CHECK(!c.on_gpu());
           CHECK(c.stream().handle() == nullptr);
           REQUIRE(c.read_count() == 1);
           REQUIRE(c.write_count() == 1);
           CHECK(c.read<float>(0).data() == h.data());  // the caller's pinned buffer itself
           CHECK(c.write<float>(0).data() == g.data());
           halve(c);
         }));
  CHECK(calls == 1);
  CHECK(h == std::vector<float>{2, 4, 6, 8});
  CHECK(g == std::vector<float>{1, 2, 3, 4});
  CHECK(y == std::vector<float>{3, 6, 9, 12});
}

TEST_CASE("a host step on a side stream runs between the events around it, under stress", "[host_call]") {
  std::vector<float> x{2, 4, 6}, y(3), h(3), g(3);
  sd::host_executor ex(sd::stress{11});
  for (int run = 0; run < 20; ++run) {
    std::fill(g.begin(), g.end(), -1.0f);
    ex.run(on_side, sd::bind("x", x), sd::bind("y", y), sd::bind("h", h), sd::bind("g", g),
           sd::bind_call("halve", halve));
    CHECK(y == std::vector<float>{101, 102, 103});
  }
}

TEST_CASE("a host step that throws stops the run: an sd::error names the step and its stream",
          "[host_call]") {
  std::vector<float> x{1, 2}, y(2, -1), h(2), g(2);
  sd::host_executor ex;
  try {
    ex.run(on_side, sd::bind("x", x), sd::bind("y", y), sd::bind("h", h), sd::bind("g", g),
           sd::bind_call("halve", [](sd::call_context&) { throw std::runtime_error("disk full"); }));
    FAIL("the callable's exception did not reach the caller");
  } catch (const sd::error& e) {
    CHECK(
        std::string(e.what()) ==
        "streamdsl: the callable bound to statement #3 `p.host_call(\"halve\", sd::reads(h), sd::writes(g))` "
        "on stream 'side' threw: disk full; no later step of this run was issued");
    CHECK(nested_message(e) == "disk full");
  }
  CHECK(y == std::vector<float>{-1, -1});  // main waits for the side stream: nothing after runs
  ex.run(on_side, sd::bind("x", x), sd::bind("y", y), sd::bind("h", h), sd::bind("g", g),
         sd::bind_call("halve", halve));
  CHECK(y == std::vector<float>{100.5f, 101});
}

TEST_CASE("a host step lists host memory only", "[host_call]") {
  // A device input read: copy it to a pinned buffer first.
  CHECK(first_error([](sd::builder& p) {
          auto x = p.input<float>("x");
          p.host_call("log", sd::reads(x));
        }) == error_kind::host_call_touches_device_memory);
  CHECK(
      first_message([](sd::builder& p) {
        auto x = p.input<float>("x");
        p.host_call("log", sd::reads(x));
      }) ==
      "statement #0 `p.host_call(\"log\", sd::reads(x))` on stream 'main' reads the input buffer 'x', which "
      "is in "
      "device memory; a host step runs on the CPU and must not touch device memory (nor call CUDA): copy it "
      "to a pinned buffer first with `sd::copy(h, x)` (h: e.g. p.output<float, sd::pinned>(\"h\")) and "
      "list h");
  // A temp lives in the device workspace: written by a host step, refused too.
  CHECK(first_message([](sd::builder& p) {
          auto t = p.temp<double>("t", sd::scalar);
          auto h = p.input<double, sd::pinned>("h", sd::scalar);
          p.host_call("fill", sd::reads(h), sd::writes(t));
        }) ==
        "statement #0 `p.host_call(\"fill\", sd::reads(h), sd::writes(t))` on stream 'main' writes the temp "
        "buffer "
        "'t', which is in device memory; a host step runs on the CPU and must not touch device memory (nor "
        "call CUDA): write a pinned buffer h (e.g. p.output<double, sd::pinned>(\"h\", sd::scalar)) in the "
        "host step and copy it to 't' after it with `sd::copy(t, h)`");
  // Pinned and pageable host buffers, chunks of them too, are fine.
  CHECK(first_error([](sd::builder& p) {
          auto a = p.input<float, sd::pinned>("a");
          auto b = p.inout<float, sd::pageable>("b");
          p.host_call("mix", sd::reads(a.chunk(0, 2), b), sd::writes(b));
        }) == error_kind::none);
  // One name is one binding: a call and a host step cannot share it; host steps can.
  CHECK(first_message([](sd::builder& p) {
          auto a = p.output<float, sd::pinned>("a");
          p.call("f", sd::writes(a));
          p.host_call("f", sd::reads(a));
        }) ==
        "duplicate name 'f': the host step 'f' reuses the name of the earlier call (p.call); each buffer, "
        "param, stream, event and domain needs its own name, because names bind them at run time");
  CHECK(first_error([](sd::builder& p) {
          auto a = p.output<float, sd::pinned>("a");
          p.host_call("f", sd::writes(a));
          p.host_call("f", sd::reads(a), sd::writes(a));
        }) == error_kind::none);
  // The call's own checks hold: an input is not written, a region is listed once.
  CHECK(first_error([](sd::builder& p) {
          auto a = p.input<float, sd::pinned>("a");
          p.host_call("f", sd::writes(a));
        }) == error_kind::write_to_input);
  CHECK(first_error([](sd::builder& p) {
          auto a = p.output<float, sd::pinned>("a");
          p.host_call("f", sd::writes(a, a.chunk(1, 2)));
        }) == error_kind::call_region_listed_twice);
}

TEST_CASE("host steps take part in races and sync insertion like calls", "[host_call]") {
  // main fills h; a host step on a side stream reads it unordered: a race.
  CHECK(first_error([](sd::builder& p) {
          auto x = p.input<float>("x");
          auto h = p.output<float, sd::pinned>("h");
          auto g = p.output<float, sd::pinned>("g");
          auto side = p.stream("side");
          sd::copy(h, x);
          sd::with_stream(side, [&] { p.host_call("f", sd::reads(h), sd::writes(g)); });
        }) == error_kind::race);
  // sd::automatic orders it.
  static constexpr auto prog = sd::program<sd::automatic>([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto y = p.output<float>("y");
    auto h = p.output<float, sd::pinned>("h");
    auto g = p.output<float, sd::pinned>("g");
    auto side = p.stream("side");
    sd::copy(h, x);
    sd::with_stream(side, [&] { p.host_call("halve", sd::reads(h), sd::writes(g)); });
    sd::copy(y, g);
  });
  std::vector<float> x{8, 16}, y(2), h(2), g(2);
  sd::host_executor ex(sd::stress{5});
  for (int run = 0; run < 20; ++run) {
    std::fill(y.begin(), y.end(), -1.0f);
    ex.run(prog, sd::bind("x", x), sd::bind("y", y), sd::bind("h", h), sd::bind("g", g),
           sd::bind_call("halve", halve));
    CHECK(y == std::vector<float>{4, 8});
  }
}
