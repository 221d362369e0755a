// p.call (ops/call.hpp): the step statement, its checks and messages, its
// place in ordering, fusion and the memory plan, the binding of callables
// (sd::bind_call) and what the host executor hands them (call_context).
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

// t = x + 1 on main; a call scales t into y on a side stream; main waits
// and a second call updates y in place.
constexpr auto two_calls = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto t = p.temp<float>("t");
  auto side = p.stream("side");
  auto e = p.event("e");
  t = x + 1;
  side.wait_stream(p.main_stream());
  sd::with_stream(side, [&] {
    p.call("scale", sd::reads(t), sd::writes(y));
    e.record();
  });
  e.wait();
  p.call("bump", sd::reads(y), sd::writes(y));
});

void times_ten(sd::call_context& c) {
  const auto in = c.read<float>(0);
  const auto out = c.write<float>(0);
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = in[i] * 10;
}

}  // namespace

TEST_CASE("a call is a step with its regions and its name", "[call]") {
  constexpr auto plan = two_calls.plan();
  STATIC_REQUIRE(plan.ir.calls.size() == 2);
  STATIC_REQUIRE(plan.step_count() == 2);
  const std::string dump = two_calls.to_string();
  CHECK(dump.find(R"(p.call("scale", sd::reads(t), sd::writes(y));)") != std::string::npos);
  CHECK(dump.find(R"(p.call("bump", sd::reads(y), sd::writes(y));)") != std::string::npos);
  // t is written by a kernel and read by a call: it lives in a workspace slot, not a register.
  CHECK(plan.storage_of("t") >= 0);
}

TEST_CASE("the host executor runs calls in stream order with their regions", "[call]") {
  std::vector<float> x{1, 2, 3, 4}, y(4, -1);
  int bumps = 0;
  sd::host_executor ex;
  ex.run(two_calls, sd::bind("x", x), sd::bind("y", y), sd::bind_call("scale", times_ten),
         sd::bind_call("bump", [&](sd::call_context& c) {
           ++bumps;
           CHECK(c.name() == "bump");
           CHECK(!c.on_gpu());
           CHECK(c.stream().handle() == nullptr);
           REQUIRE(c.read_count() == 1);
           REQUIRE(c.write_count() == 1);
           const auto in = c.read<float>(0);
           const auto out = c.write<float>(0);
           CHECK(in.data() == out.data());  // one buffer, read and written in place
           for (std::size_t i = 0; i < in.size(); ++i) out[i] = in[i] + 0.5f;
         }));
  CHECK(bumps == 1);
  CHECK(y == std::vector<float>{20.5f, 30.5f, 40.5f, 50.5f});
}

TEST_CASE("a call sees chunks and rank-2 shapes as listed", "[call]") {
  static constexpr auto prog = sd::program([](sd::builder& p) {
    auto r = p.domain("r");
    auto c = p.domain("c");
    auto m = p.inout<double>("m", r, c);
    auto v = p.inout<int>("v");
    p.call("f", sd::reads(m, v.chunk(1, 2)), sd::writes(v.chunk(0, 2)));
    p.call("g", sd::writes(m));
  });
  std::vector<double> m(6, 1.0);
  std::vector<int> v{1, 2, 3, 4, 5, 6};
  sd::host_executor ex;
  ex.run(prog, sd::bind("m", m, 2, 3), sd::bind("v", v),
         sd::bind_call("f",
                       [](sd::call_context& c) {
                         const auto mm = c.read<double>(0);
                         CHECK(mm.rows() == 2);
                         CHECK(mm.cols() == 3);
                         CHECK(mm.size() == 6);
                         const auto hi = c.read<int>(1);
                         const auto lo = c.write<int>(0);
                         REQUIRE(hi.size() == 3);
                         REQUIRE(lo.size() == 3);
                         CHECK(hi.data() == lo.data() + 3);
                         for (std::size_t i = 0; i < 3; ++i) lo[i] = hi[i] * 2;
                       }),
         sd::bind_call("g", [](sd::call_context& c) {
           CHECK(c.read_count() == 0);
           for (auto& e : c.write<double>(0)) e = 7;
         }));
  CHECK(v == std::vector<int>{8, 10, 12, 4, 5, 6});
  CHECK(m == std::vector<double>(6, 7.0));
}

TEST_CASE("a call's binding problems are reported before anything runs", "[call]") {
  std::vector<float> x{1, 2}, y(2, -1);
  sd::host_executor ex;
  bool ran = false;
  auto runs = [&](sd::call_context&) { ran = true; };
  const auto message = [&](auto... extra) {
    try {
      ex.run(two_calls, sd::bind("x", x), sd::bind("y", y), extra...);
    } catch (const sd::binding_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const auto missing = message(sd::bind_call("scale", runs));
  CHECK(missing.find("missing binding for call 'bump' (statement #5 `p.call(\"bump\", sd::reads(y), "
                     "sd::writes(y))` on stream 'main'); bind its callable: sd::bind_call(\"bump\"") !=
        std::string::npos);
  const auto unknown =
      message(sd::bind_call("scale", runs), sd::bind_call("bump", runs), sd::bind_call("bumpp", runs));
  CHECK(unknown.find("sd::bind_call('bumpp', ...): the program has no call called that (its calls: 'scale', "
                     "'bump')") != std::string::npos);
  const auto memory = message(sd::bind_call("scale", runs), sd::bind("bump", x));
  CHECK(memory.find("'bump' is a call (statement #5") != std::string::npos);
  CHECK(memory.find("missing binding for call 'bump'") == std::string::npos);
  const auto as_buffer =
      message(sd::bind_call("scale", runs), sd::bind_call("bump", runs), sd::bind_call("y", runs));
  CHECK(as_buffer.find("'y' is bound more than once") != std::string::npos);
  const auto misspelt =
      message(sd::bind_call("scale", runs), sd::bind_call("bump", runs), sd::bind("scal", x));
  CHECK(misspelt.find("unknown name 'scal': the program has no buffer or param called that (it binds 'x', "
                      "'y'; its calls, bound with sd::bind_call: 'scale', 'bump')") != std::string::npos);
  CHECK(!ran);
  CHECK(y == std::vector<float>{-1, -1});
}

// The exception a callable threw, nested in the executor's sd::error.
static std::string nested_message(const sd::error& outer) {
  try {
    std::rethrow_if_nested(outer);
  } catch (const std::exception& inner) {
    return inner.what();
  }
  return "(nothing nested)";
}

TEST_CASE("a callable reading a region as the wrong type throws, naming the call", "[call]") {
  std::vector<float> x{1, 2}, y(2, -1);
  sd::host_executor ex;
  const auto failure = [&](auto bump) {
    try {
      ex.run(two_calls, sd::bind("x", x), sd::bind("y", y), sd::bind_call("scale", times_ten),
             sd::bind_call("bump", bump));
    } catch (const sd::error& e) {
      CHECK(std::string(e.what()).starts_with(
          "streamdsl: the callable bound to statement #5 `p.call(\"bump\", sd::reads(y), sd::writes(y))` on "
          "stream 'main' threw: streamdsl: call 'bump': "));
      return nested_message(e);
    }
    return std::string();
  };
  CHECK(failure([](sd::call_context& c) { (void)c.read<double>(0); }) ==
        "streamdsl: call 'bump': read<double>(0) reads 'y' as double, but its elements are float; use "
        "read<float>(0)");
  CHECK(failure([](sd::call_context& c) { (void)c.write<float>(1); }) ==
        "streamdsl: call 'bump': write<float>(1) names no region: the call lists 1 in sd::writes");
}

TEST_CASE("a callable that throws stops the run: an sd::error names the step, nothing later runs", "[call]") {
  std::vector<float> x{1, 2}, y(2, -1);
  int bumps = 0;
  sd::host_executor ex;
  struct user_failure {};
  const auto run_with = [&](auto scale) {
    ex.run(two_calls, sd::bind("x", x), sd::bind("y", y), sd::bind_call("scale", scale),
           sd::bind_call("bump", [&](sd::call_context&) { ++bumps; }));
  };
  try {
    run_with([](sd::call_context&) { throw std::runtime_error("device out of coffee"); });
    FAIL("the callable's exception did not reach the caller");
  } catch (const sd::error& e) {
    CHECK(std::string(e.what()) ==
          "streamdsl: the callable bound to statement #2 `p.call(\"scale\", sd::reads(t), sd::writes(y))` on "
          "stream 'side' threw: device out of coffee; no later step of this run was issued");
    CHECK(nested_message(e) == "device out of coffee");
  }
  CHECK(bumps == 0);  // main waits for the side stream's event: the later call never runs
  CHECK(y == std::vector<float>{-1, -1});
  // Anything thrown, not only std::exception; the nested exception keeps its type.
  try {
    run_with([](sd::call_context&) { throw user_failure{}; });
    FAIL("the callable's exception did not reach the caller");
  } catch (const sd::error& e) {
    CHECK(std::string(e.what()).find("threw: an exception that is not a std::exception") !=
          std::string::npos);
    CHECK_THROWS_AS(std::rethrow_if_nested(e), user_failure);
  }
  CHECK(bumps == 0);
  // The executor runs again afterwards.
  run_with(times_ten);
  CHECK(bumps == 1);
  CHECK(y == std::vector<float>{20, 30});
}

TEST_CASE("calls take part in races, temps and inputs like any statement", "[call]") {
  // A call on a side stream reading what main wrote, unordered: a race.
  CHECK(first_error([](sd::builder& p) {
          auto x = p.input<float>("x");
          auto y = p.output<float>("y");
          auto t = p.temp<float>("t");
          auto side = p.stream("side");
          t = x * 2;
          sd::with_stream(side, [&] { p.call("f", sd::reads(t), sd::writes(y)); });
        }) == error_kind::race);
  CHECK(first_error([](sd::builder& p) {
          auto x = p.input<float>("x");
          p.call("f", sd::writes(x));
        }) == error_kind::write_to_input);
  CHECK(first_error([](sd::builder& p) {
          auto y = p.output<float>("y");
          auto t = p.temp<float>("t");
          p.call("f", sd::reads(t), sd::writes(y));
        }) == error_kind::temp_read_before_write);
  // A temp a call writes may be read afterwards.
  CHECK(first_error([](sd::builder& p) {
          auto y = p.output<float>("y");
          auto t = p.temp<float>("t");
          p.call("f", sd::writes(t));
          y = t + 1;
        }) == error_kind::none);
  CHECK(first_error([](sd::builder& p) {
          auto y = p.output<float>("y");
          p.call("f", sd::writes(y, y.chunk(1, 4)));
        }) == error_kind::call_region_listed_twice);
  CHECK(first_message([](sd::builder& p) {
          auto x = p.input<float>("x");
          auto y = p.output<float>("y");
          p.call("f", sd::reads(x.chunk(0, 2), x), sd::writes(y));
        }) ==
        "statement #0 `p.call(\"f\", sd::reads(x.chunk(0, 2), x), sd::writes(y))` on stream 'main' lists "
        "`x` in sd::reads where an earlier region of that list overlaps it; list each region once (a "
        "region the call both reads and writes goes in sd::reads and in sd::writes once each)");
  // A call's name is a binding's: it cannot be a buffer's too; the same call twice is one call.
  CHECK(first_error([](sd::builder& p) {
          auto y = p.output<float>("y");
          p.call("y", sd::writes(y));
        }) == error_kind::duplicate_name);
  CHECK(first_error([](sd::builder& p) {
          auto y = p.output<float>("y");
          p.call("f", sd::writes(y));
          p.call("f", sd::reads(y), sd::writes(y));
        }) == error_kind::none);
}

TEST_CASE("sd::automatic orders calls on several streams", "[call]") {
  static constexpr auto prog = sd::program<sd::automatic>([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto y = p.output<float>("y");
    auto a = p.temp<float>("a");
    auto side = p.stream("side");
    a = x + 1;
    sd::with_stream(side, [&] { p.call("double_it", sd::reads(a), sd::writes(a)); });
    y = a * 3;
  });
  std::vector<float> x{1, 2, 3}, y(3);
  sd::host_executor ex(sd::stress{7});
  for (int run = 0; run < 20; ++run) {
    ex.run(prog, sd::bind("x", x), sd::bind("y", y), sd::bind_call("double_it", [](sd::call_context& c) {
             const auto in = c.read<float>(0);
             const auto out = c.write<float>(0);
             for (std::size_t i = 0; i < in.size(); ++i) out[i] = in[i] * 2;
           }));
    CHECK(y == std::vector<float>{12, 18, 24});
  }
}

TEST_CASE("a call's edge cases: an empty matrix keeps its rows, a null function is refused", "[call]") {
  static constexpr auto prog = sd::program([](sd::builder& p) {
    auto r = p.domain("r");
    auto c = p.domain("c");
    auto m = p.inout<float>("m", r, c);
    p.call("f", sd::writes(m));
  });
  std::vector<float> none;
  std::size_t rows = 99, cols = 99, size = 99;
  sd::host_executor ex;
  ex.run(prog, sd::bind("m", none, 5, 0), sd::bind_call("f", [&](sd::call_context& ctx) {
           const auto w = ctx.write<float>(0);
           rows = w.rows();
           cols = w.cols();
           size = w.size();
         }));
  CHECK(rows == 5);
  CHECK(cols == 0);
  CHECK(size == 0);
  void (*null_fn)(sd::call_context&) = nullptr;
  std::string what;
  try {
    ex.run(prog, sd::bind("m", none, 5, 0), sd::bind_call("f", null_fn));
  } catch (const sd::binding_error& e) {
    what = e.what();
  }
  CHECK(what.find("sd::bind_call('f', ...) is given a null function pointer") != std::string::npos);
}
