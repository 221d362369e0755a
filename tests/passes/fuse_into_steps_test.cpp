// fuse_into_steps alone: a temp whose only reader is a reduction or scan is
// computed inside it, unless something could change what its producer reads.
#include <catch2/catch.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>

namespace {

// The program after the pass: its statements' texts, one per line.
std::string fused(auto body) {
  sd::plan_model m;
  m.ir = sd::build_ir(body);
  sd::passes::fuse_into_steps(m);
  std::string out;
  for (const auto& s : m.ir.stmts)
    out += std::string(sd::ir::statement_text(sd::ir::view_of(m.ir), s).view()) + "\n";
  return out;
}

}  // namespace

TEST_CASE("fuse_into_steps: a producer read only by a reduction moves into it", "[passes][fuse_into_steps]") {
  CHECK(fused([](sd::builder& p) {
          auto x = p.input<float>("x");
          auto y = p.input<float>("y");
          auto t = p.temp<float>("t");
          auto s = p.output<float>("s", sd::scalar);
          t = x * y;
          s = sd::sum(t);
        }) == "s = sd::sum(x * y)\n");
}

TEST_CASE("fuse_into_steps: a type change becomes a cast, on any stream", "[passes][fuse_into_steps]") {
  CHECK(fused([](sd::builder& p) {
          auto x = p.input<float>("x");
          auto t = p.temp<double>("t");
          auto y = p.output<double>("y");
          auto side = p.stream("side");
          auto e = p.event("e");
          sd::with_stream(side, [&] {
            t = x + 1;
            e.record();
          });
          e.wait();
          y = sd::inclusive_sum(t * t);
        }) == "e.record()\ne.wait()\ny = sd::inclusive_sum(cast<double>(x + 1) * cast<double>(x + 1))\n");
}

TEST_CASE("fuse_into_steps: what must stay", "[passes][fuse_into_steps]") {
  // Another reader of the temp.
  CHECK(fused([](sd::builder& p) {
          auto x = p.input<float>("x");
          auto t = p.temp<float>("t");
          auto s = p.output<float>("s", sd::scalar);
          auto z = p.output<float>("z");
          t = x * 2;
          s = sd::sum(t);
          z = t + 1;
        }) == "t = x * 2\ns = sd::sum(t)\nz = t + 1\n");
  // What the producer reads is written before the step.
  CHECK(fused([](sd::builder& p) {
          auto x = p.inout<float>("x");
          auto t = p.temp<float>("t");
          auto s = p.output<float>("s", sd::scalar);
          t = x * 2;
          x = x + 1;
          s = sd::sum(t);
        }) == "t = x * 2\nx = x + 1\ns = sd::sum(t)\n");
  // A broadcast producer: the step would iterate one element instead of n.
  CHECK(fused([](sd::builder& p) {
          auto a = p.input<float>("a", sd::scalar);
          auto t = p.temp<float>("t");
          auto s = p.output<float>("s", sd::scalar);
          t = a * 2;
          s = sd::sum(t);
        }) == "t = a * 2\ns = sd::sum(t)\n");
  // A temp written by chunks, or read by a chunk.
  CHECK(fused([](sd::builder& p) {
          auto x = p.input<float>("x");
          auto t = p.temp<float>("t");
          auto s = p.output<float>("s", sd::scalar);
          t = x * 2;
          s = sd::sum(t.chunk(0, 2));
        }) == "t = x * 2\ns = sd::sum(t.chunk(0, 2))\n");
}

TEST_CASE("fuse_into_steps: the step may write what its producer reads", "[passes][fuse_into_steps]") {
  CHECK(fused([](sd::builder& p) {
          auto x = p.input<float>("x");
          auto s = p.inout<float>("s", sd::scalar);
          auto t = p.temp<float>("t");
          t = x * s;
          s = sd::max(t);
        }) == "s = sd::max(x * s)\n");
}

TEST_CASE("fuse_into_steps: the schedule notes it, and sd::as_written and no_fusion keep the producer",
          "[passes][fuse_into_steps]") {
  constexpr auto body = [](sd::builder& p) {
    auto x = p.input<float>("x");
    auto t = p.temp<float>("t");
    auto s = p.output<float>("s", sd::scalar);
    t = sd::exp(x);
    s = sd::sum(t);
  };
  constexpr auto plan = sd::program(body).plan();
  STATIC_REQUIRE(plan.kernel_count() == 0);
  STATIC_REQUIRE(plan.step_count() == 1);
  STATIC_REQUIRE(plan.has_note("fusion: temp 't' is computed inside statement #1 `s = sd::sum(t)`"));
  STATIC_REQUIRE(sd::program<sd::as_written>(body).plan().kernel_count() == 1);
  STATIC_REQUIRE(sd::program<sd::no_fusion>(body).plan().kernel_count() == 1);
}

TEST_CASE("fuse_into_steps: with two producers moved into one step, each note quotes the step as written",
          "[passes][fuse_into_steps]") {
  // The second note quoted the step with the first producer already inside
  // it (`s = sd::sum(x * 2 + t2)`), a statement the user never wrote.
  constexpr auto plan = sd::program([](sd::builder& p) {
                          auto x = p.input<float>("x");
                          auto y = p.input<float>("y");
                          auto t1 = p.temp<float>("t1");
                          auto t2 = p.temp<float>("t2");
                          auto s = p.output<float>("s", sd::scalar);
                          t1 = x * 2;
                          t2 = y * 3;
                          s = sd::sum(t1 + t2);
                        }).plan();
  STATIC_REQUIRE(plan.step_count() == 1);
  STATIC_REQUIRE(plan.kernel_count() == 0);
  STATIC_REQUIRE(plan.has_note("fusion: temp 't1' is computed inside statement #2 `s = sd::sum(t1 + t2)`"));
  STATIC_REQUIRE(plan.has_note("fusion: temp 't2' is computed inside statement #2 `s = sd::sum(t1 + t2)`"));
  STATIC_REQUIRE(!plan.has_note("x * 2 + t2"));
}
