// Minimal reproducers of bugs the random-program tester found, kept as
// regression tests once fixed.
#include <catch2/catch.hpp>
#include <streamdsl/backend/host/host_executor.hpp>
#include <streamdsl/streamdsl.hpp>
#include <vector>

#include "plan_check.hpp"

namespace {

// builder_state::where passed a domain where join_domain expects a node:
// where(c, 1.0f, 2.0f) read nodes[-1] (not a constant expression, so the
// program did not compile; out of bounds at run time), and a condition over
// another domain than the branches was not reported.
constexpr auto where_of_literals = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  y = sd::where(x > 0, 1.0f, 2.0f);
});

}  // namespace

TEST_CASE("found: where with two literal branches compiles", "[random][found]") {
  STATIC_REQUIRE(where_of_literals.plan().kernel_count() == 1);
}

TEST_CASE("found: where checks the condition's domain against the branches'", "[random][found]") {
  sd::builder b;
  auto m = b.domain("m");
  auto w = b.input<float>("w", m);
  auto x = b.input<float>("x");
  auto z = b.output<float>("z", m);
  z = sd::where(x > 0, w, w);  // condition over n, branches over m
  REQUIRE(!b.ir().errors.empty());
  CHECK(b.ir().errors[0].kind == sd::diag::error_kind::domain_mismatch);
  CHECK(b.ir().errors[0].message.contains("combines `x > 0` over domain 'n' with `w` over domain 'm'"));
}

namespace {
// A register temp whose column reused the freed input column of the
// instruction computing it, under another type (found by the random tester,
// seed 658): the host executor wrote the temp over its own input.
constexpr auto column_reuse = sd::program([](sd::builder& p) {
  auto c = p.inout<std::int64_t>("c");
  auto t = p.temp<double>("t");
  t = sd::cast<double>(sd::abs(c) / 1.0);
  c = sd::cast<std::int64_t>(t);
});
}  // namespace

TEST_CASE("found: a register temp does not overwrite its own input column", "[random][found]") {
  std::vector<std::int64_t> c = {-5, -721, 3};
  sd::host_executor ex;
  ex.run(column_reuse, sd::bind("c", c));
  CHECK(c == std::vector<std::int64_t>{5, 721, 3});
}

namespace {
// The memory plan let a temp follow another in a workspace slot when the new
// temp's first access came after the old one's last (found by the random
// tester: test_random_properties' long mode, seed 1326 among others, and its
// plan check). With chunks that is not enough: t3's chunk 1, written on
// another stream, is not ordered after anything on main, and in the shared
// slot it is t4's chunk 1, which main writes and reads.
constexpr auto chunk_slot_sharing = [](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto t4 = p.temp<float>("t4");
  auto t3 = p.temp<float>("t3");
  auto side = p.stream("side");
  auto done = p.event("done");
  t4.chunk(1, 2) = x.chunk(1, 2) + 1;
  t3.chunk(0, 2) = t4.chunk(1, 2) * 2;  // t4's last use, t3's first write
  sd::with_stream(side, [&] {
    t3.chunk(1, 2) = x.chunk(1, 2) * 3;  // disjoint from t3.chunk(0, 2): no race as written
    done.record();
  });
  done.wait();
  y = t3;
};
constexpr auto chunk_slot_program = sd::program<sd::checked | sd::no_fusion>(chunk_slot_sharing);
}  // namespace

// Fixed in passes/memory_plan.hpp: a slot is shared only when the new temp's
// first access on every stream follows the slot's earlier occupants.
TEST_CASE("found: a temp's chunk on another stream does not share memory with an earlier temp in its slot",
          "[random][found]") {
  sd::builder b;
  chunk_slot_sharing(b);
  const sd::ir::program user = b.ir();
  const auto m = sd::passes::schedule(static_cast<sd::builder&&>(b).ir(), sd::checked | sd::no_fusion);
  REQUIRE(m.ir.ok());
  CHECK(streamdsl::random_test::check_plan(sd::view_of(m), user).empty());
  // And the result: x = {1, 2, 3, 4} gives y = {(3 + 1) * 2, (4 + 1) * 2, 3 * 3, 4 * 3}.
  sd::host_executor ex(sd::stress{1, 50});
  int wrong = 0;
  for (int run = 0; run < 50; ++run) {
    std::vector<float> x = {1, 2, 3, 4}, y(4, 0.0f);
    ex.run(chunk_slot_program, sd::bind("x", x), sd::bind("y", y));
    wrong += y != std::vector<float>{8, 10, 9, 12};
  }
  CHECK(wrong == 0);
}
