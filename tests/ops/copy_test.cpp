// sd::copy and x.chunk(i, k): the step statement, regions in race analysis,
// sync insertion, fusion and the memory plan, and both run on the host.
#include <catch2/catch.hpp>
#include <numeric>
#include <streamdsl/backend/host/host_executor.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>
#include <vector>

namespace {

using sd::diag::error_kind;

// The design's pipeline: chunks copied in on one stream, computed on main,
// copied out on a third; sd::automatic orders each chunk's three steps.
template <int K>
constexpr auto pipeline_body = [](sd::builder& p) {
  auto h_in = p.input<float>("h_in");
  auto h_out = p.output<float>("h_out");
  auto d_in = p.temp<float>("d_in");
  auto d_out = p.temp<float>("d_out");
  auto h2d = p.stream("h2d"), d2h = p.stream("d2h");
  for (int i = 0; i < K; ++i) {
    sd::with_stream(h2d, [&] { sd::copy(d_in.chunk(i, K), h_in.chunk(i, K)); });
    d_out.chunk(i, K) = d_in.chunk(i, K) * 2 + 1;
    sd::with_stream(d2h, [&] { sd::copy(h_out.chunk(i, K), d_out.chunk(i, K)); });
  }
};
constexpr auto pipeline4 = sd::program<sd::automatic>(pipeline_body<4>);

// The first error kind of a program built at run time and scheduled, or none.
template <class Body>
error_kind first_error(Body body, sd::options o = sd::checked) {
  sd::builder b;
  body(b);
  if (!b.ir().ok()) return b.ir().errors[0].kind;
  const auto m = sd::passes::schedule(static_cast<sd::builder&&>(b).ir(), o);
  return m.ir.ok() ? error_kind::none : m.ir.errors[0].kind;
}

template <class Body>
std::string first_message(Body body, sd::options o = sd::checked) {
  sd::builder b;
  body(b);
  if (!b.ir().ok()) return std::string(b.ir().errors[0].message.view());
  const auto m = sd::passes::schedule(static_cast<sd::builder&&>(b).ir(), o);
  return m.ir.ok() ? std::string() : std::string(m.ir.errors[0].message.view());
}

}  // namespace

TEST_CASE("copy pipeline: steps per stream, one kernel per chunk, syncs inserted", "[ops][copy]") {
  constexpr auto plan = pipeline4.plan();
  STATIC_REQUIRE(plan.step_count() == 8);
  STATIC_REQUIRE(plan.kernel_count() == 4);
  STATIC_REQUIRE(plan.kernel_count("main") == 4);
  // Each chunk: main waits for its copy in, d2h waits for its kernel; no
  // chunk waits for another's steps.
  STATIC_REQUIRE(plan.waits("main") == 4);
  STATIC_REQUIRE(plan.waits("d2h") == 4);
  STATIC_REQUIRE(plan.waits("h2d") == 0);
  const std::string text = pipeline4.to_string();
  CHECK(text.find("sd::copy(d_in.chunk(0, 4), h_in.chunk(0, 4));") != std::string::npos);
  CHECK(text.find("kernel k0 over 1/4 of n {") != std::string::npos);
  CHECK(text.find("d_out.chunk(3, 4) = d_in.chunk(3, 4) * 2 + 1;") != std::string::npos);
  CHECK(text.find("4 kernels, 8 steps,") != std::string::npos);
  CHECK(std::string(pipeline4.to_dot()).find("shape=box3d") != std::string::npos);
}

TEST_CASE("copy pipeline: runs on the host executor", "[ops][copy][host]") {
  std::vector<float> in(1000), out(1000, -1.0f);
  std::iota(in.begin(), in.end(), 0.0f);
  sd::host_executor ex;
  ex.run(pipeline4, sd::bind("h_in", in), sd::bind("h_out", out));
  for (std::size_t i = 0; i < in.size(); ++i) REQUIRE(out[i] == in[i] * 2 + 1);
  // Under stress (random delays before every op) too.
  sd::host_executor stressed(sd::stress{7});
  for (int run = 0; run < 20; ++run) {
    std::fill(out.begin(), out.end(), -1.0f);
    stressed.run(pipeline4, sd::bind("h_in", in), sd::bind("h_out", out));
    for (std::size_t i = 0; i < in.size(); ++i) REQUIRE(out[i] == in[i] * 2 + 1);
  }
}

TEST_CASE("copy: disjoint chunks on two streams are no race; overlapping ones are", "[ops][copy][races]") {
  auto halves = [](int a, int ka, int b, int kb) {
    return [=](sd::builder& p) {
      auto x = p.input<float>("x");
      auto y = p.output<float>("y");
      auto side = p.stream("side");
      sd::with_stream(side, [&] { y.chunk(a, ka) = x.chunk(a, ka) + 1; });
      y.chunk(b, kb) = x.chunk(b, kb) * 2;
    };
  };
  CHECK(first_error(halves(0, 2, 1, 2)) == error_kind::none);
  CHECK(first_error(halves(1, 4, 2, 4)) == error_kind::none);
  CHECK(first_error(halves(0, 2, 1, 4)) == error_kind::race);  // chunk 1 of 4 lies in half 0
  CHECK(first_error(halves(0, 3, 1, 2)) == error_kind::none);  // [0, 1/3) and [1/2, 1)
  CHECK(first_error(halves(1, 3, 1, 2)) == error_kind::race);  // [1/3, 2/3) meets [1/2, 1)
  const auto message = first_message(halves(0, 2, 1, 4));
  CHECK(message.find("race (write-after-write) on buffer 'y'") != std::string::npos);
  CHECK(message.find("`y.chunk(0, 2) = x.chunk(0, 2) + 1` on stream 'side'") != std::string::npos);
}

TEST_CASE("copy: a copy races like any statement, and sd::automatic syncs it", "[ops][copy][races]") {
  auto body = [](sd::builder& p) {
    auto x = p.input<float>("x");
    auto t = p.temp<float>("t");
    auto y = p.output<float>("y");
    auto side = p.stream("side");
    t = x + 1;
    sd::with_stream(side, [&] { sd::copy(y, t); });
  };
  CHECK(first_error(body) == error_kind::race);
  CHECK(first_message(body).find("`sd::copy(y, t)` on stream 'side' reads it") != std::string::npos);
  CHECK(first_error(body, sd::automatic) == error_kind::none);
}

TEST_CASE("copy: misuse is a compile error naming the statement", "[ops][copy][errors]") {
  CHECK(first_error([](sd::builder& p) {
          auto x = p.input<float>("x");
          auto y = p.output<double>("y");
          sd::copy(y, x);
        }) == error_kind::copy_mismatch);
  CHECK(first_message([](sd::builder& p) {
          auto x = p.input<float>("x");
          auto y = p.output<double>("y");
          sd::copy(y, x);
        })
            .find("statement #0 `sd::copy(y, x)` on stream 'main' copies float elements of `x` into `y`, "
                  "which holds double") != std::string::npos);
  CHECK(first_error([](sd::builder& p) {
          auto x = p.input<float>("x");
          auto y = p.output<float>("y");
          sd::copy(y.chunk(0, 2), x.chunk(0, 4));
        }) == error_kind::copy_mismatch);
  CHECK(first_error([](sd::builder& p) {
          auto y = p.inout<float>("y");
          sd::copy(y.chunk(1, 4), y.chunk(1, 4));
        }) == error_kind::copy_overlap);
  CHECK(first_error([](sd::builder& p) {
          auto y = p.inout<float>("y");
          sd::copy(y.chunk(0, 2), y.chunk(1, 2));  // disjoint halves of one buffer
        }) == error_kind::none);
  CHECK(first_error([](sd::builder& p) {
          auto x = p.input<float>("x");
          auto y = p.input<float>("y");
          sd::copy(y, x);
        }) == error_kind::write_to_input);
  CHECK(first_error([](sd::builder& p) {
          auto t = p.temp<float>("t");
          auto y = p.output<float>("y");
          sd::copy(y, t);
        }) == error_kind::temp_read_before_write);
}

TEST_CASE("chunk: misuse is a compile error naming the chunk", "[ops][chunk][errors]") {
  CHECK(first_error([](sd::builder& p) {
          auto x = p.input<float>("x");
          auto y = p.output<float>("y");
          y = x.chunk(4, 4);
        }) == error_kind::invalid_chunk);
  CHECK(first_message([](sd::builder& p) {
          auto x = p.input<float>("x");
          auto y = p.output<float>("y");
          y.chunk(0, 2) = x.chunk(2, 2);
        }).find("takes `x.chunk(2, 2)`, but a chunk is one of k >= 1 equal parts, numbered 0 to k - 1") !=
        std::string::npos);
  CHECK(first_error([](sd::builder& p) {
          auto s = p.input<float>("s", sd::scalar);
          auto y = p.output<float>("y");
          y = s.chunk(0, 1);
        }) == error_kind::invalid_chunk);
  CHECK(first_error([](sd::builder& p) {
          auto x = p.input<float>("x");
          auto y = p.output<float>("y");
          y.chunk(0, 2) = x.chunk(0, 2) + x.chunk(0, 4);
        }) == error_kind::chunk_mismatch);
  CHECK(first_error([](sd::builder& p) {
          auto x = p.input<float>("x");
          auto y = p.output<float>("y");
          y = x.chunk(0, 2);
        }) == error_kind::chunk_mismatch);
  CHECK(first_error([](sd::builder& p) {
          auto x = p.input<float>("x");
          auto y = p.output<float>("y");
          y.chunk(1, 2) = x.chunk(0, 2) * 2;  // another chunk of the same size
        }) == error_kind::none);
}

TEST_CASE("chunk: a temp read where its chunks cover it is written", "[ops][chunk][errors]") {
  auto body = [](int first_parts, int second_parts, bool both) {
    return [=](sd::builder& p) {
      auto x = p.input<float>("x");
      auto t = p.temp<float>("t");
      auto y = p.output<float>("y");
      for (int i = 0; i < first_parts; ++i) t.chunk(i, first_parts) = x.chunk(i, first_parts) + 1;
      if (both) t.chunk(1, second_parts) = x.chunk(1, second_parts);
      y = t;
    };
  };
  CHECK(first_error(body(4, 1, false)) == error_kind::none);  // four quarters cover it
  CHECK(first_error(body(1, 1, false)) == error_kind::none);
  CHECK(first_error([](sd::builder& p) {
          auto x = p.input<float>("x");
          auto t = p.temp<float>("t");
          auto y = p.output<float>("y");
          t.chunk(0, 2) = x.chunk(0, 2);
          t.chunk(2, 4) = x.chunk(2, 4);  // [1/2, 3/4): [3/4, 1) is unwritten
          y = t;
        }) == error_kind::temp_read_before_write);
  CHECK(first_error([](sd::builder& p) {
          auto x = p.input<float>("x");
          auto t = p.temp<float>("t");
          auto y = p.output<float>("y");
          t.chunk(1, 3) = x.chunk(1, 3);
          y.chunk(1, 3) = t.chunk(1, 3);  // reads only what was written
          y.chunk(0, 3) = x.chunk(0, 3);
          y.chunk(2, 3) = x.chunk(2, 3);
        }) == error_kind::none);
}

TEST_CASE("chunk: elementwise statements over chunks run on the host", "[ops][chunk][host]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto y = p.output<float>("y");
    auto t = p.temp<float>("t");
    auto side = p.stream("side");
    sd::with_stream(side, [&] { t.chunk(0, 2) = x.chunk(1, 2) * 10; });
    t.chunk(1, 2) = x.chunk(0, 2) + 1;
    auto e = p.event("e");
    sd::with_stream(side, [&] { e.record(); });
    e.wait();
    y = t - x;
  });
  // t's halves are written on two streams: a slot, not registers.
  STATIC_REQUIRE(prog.plan().slot_count() == 1);
  std::vector<float> x(10), y(10);
  std::iota(x.begin(), x.end(), 0.0f);
  sd::host_executor ex;
  ex.run(prog, sd::bind("x", x), sd::bind("y", y));
  for (std::size_t i = 0; i < 5; ++i) {
    CHECK(y[i] == x[i + 5] * 10 - x[i]);
    CHECK(y[i + 5] == x[i] + 1 - x[i + 5]);
  }
}

TEST_CASE("chunk and copy: binding errors before anything runs", "[ops][chunk][bindings]") {
  std::vector<float> in(1001, 1.0f), out(1001, -1.0f);
  sd::host_executor ex;
  try {
    ex.run(pipeline4, sd::bind("h_in", in), sd::bind("h_out", out));
    FAIL("no binding_error");
  } catch (const sd::binding_error& e) {
    const std::string what = e.what();
    CHECK(what.find("is split into 4 chunks (h_in.chunk(i, 4)), but its domain is bound to 1001 elements, "
                    "not a multiple of 4") != std::string::npos);
  }
  CHECK(out[0] == -1.0f);  // nothing ran

  constexpr auto across = sd::program([](sd::builder& p) {
    auto m = p.domain("m");
    auto x = p.input<float>("x");
    auto y = p.output<float>("y", m);
    sd::copy(y, x.chunk(1, 2));
  });
  std::vector<float> x(8), y(4), y_bad(5);
  std::iota(x.begin(), x.end(), 0.0f);
  ex.run(across, sd::bind("x", x), sd::bind("y", y));
  CHECK(y == std::vector<float>{4, 5, 6, 7});
  try {
    ex.run(across, sd::bind("x", x), sd::bind("y", y_bad));
    FAIL("no binding_error");
  } catch (const sd::binding_error& e) {
    CHECK(std::string(e.what()).find("`sd::copy(y, x.chunk(1, 2))` copies 4 elements into a region of 5") !=
          std::string::npos);
  }
}

TEST_CASE("copy: a temp filled by a copy lives in a workspace slot", "[ops][copy][memory]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto d = p.temp<float>("d");
    auto y = p.output<float>("y");
    sd::copy(d, x);
    y = d * 3;
  });
  STATIC_REQUIRE(prog.plan().slot_count() == 1);
  STATIC_REQUIRE(prog.plan().step_count() == 1);
  std::vector<float> x{1, 2, 3}, y(3);
  sd::host_executor ex;
  ex.run(prog, sd::bind("x", x), sd::bind("y", y));
  CHECK(y == std::vector<float>{3, 6, 9});
}
