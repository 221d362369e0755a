// Freezing a plan into arrays and shrinking it to its exact sizes, and the
// growth bounds that size the arrays before the passes run.
#include <catch2/catch.hpp>

#include "programs.hpp"

namespace {
using scaled = decltype(sd::program(plan_tests::scaled_body));
using automatic_rerecorded = decltype(sd::program<sd::automatic>(plan_tests::rerecorded_body));

constexpr sd::plan_sizes scheduled_sizes(const sd::ir::program& p, sd::options o) {
  return sd::sizes_of(sd::passes::schedule(p, o));
}
}  // namespace

TEST_CASE("a program keeps its plan at the exact sizes the passes produce", "[plan][freeze]") {
  STATIC_REQUIRE(scaled::sizes == scheduled_sizes(sd::build_ir(plan_tests::scaled_body), {}));
  STATIC_REQUIRE(scaled::storage.used == scaled::sizes);
  STATIC_REQUIRE(scaled::sizes.params == 1);
  STATIC_REQUIRE(scaled::sizes.storage == scaled::sizes.buffers);  // one entry per buffer
  STATIC_REQUIRE(automatic_rerecorded::sizes ==
                 scheduled_sizes(sd::build_ir(plan_tests::rerecorded_body), sd::automatic));
}

TEST_CASE("freeze and shrink copy every array: the frozen plan dumps as the model does", "[plan][freeze]") {
  constexpr auto same_dump = [] {
    const auto ir = sd::build_ir(plan_tests::scaled_body);
    const auto model = sd::passes::schedule(ir, {});
    constexpr auto bounds = sd::bounds_of(sd::build_ir(plan_tests::scaled_body), {});
    const auto big = sd::freeze<bounds>(model);
    const auto small = sd::shrink<scaled::sizes>(big);
    const auto expected = sd::dump(sd::view_of(model));
    return sd::dump(big.view()).view() == expected.view() &&
           sd::dump(small.view()).view() == expected.view() && sd::sizes_of(small.view()) == scaled::sizes &&
           small.view().ir.params.size() == 1;
  };
  STATIC_REQUIRE(same_dump());
}

// sd::program keeps the passes' result with its name pool packed eight
// characters to a word (the pool's bound reserves every possible note; a
// compile-time cost): shrinking it must give the same plan as the plain copy.
TEST_CASE("a packed pool shrinks to the same plan as a plain one", "[plan][freeze]") {
  constexpr auto same_plan = [] {
    const auto model = sd::passes::schedule(sd::build_ir(plan_tests::scaled_body), {});
    constexpr auto bounds = sd::bounds_of(sd::build_ir(plan_tests::scaled_body), {});
    const auto plain = sd::shrink<scaled::sizes>(sd::freeze<bounds>(model));
    const auto packed = sd::shrink<scaled::sizes>(sd::freeze<bounds, true>(model));
    const auto expected = sd::dump(sd::view_of(model));
    return sd::dump(packed.view()).view() == expected.view() &&
           sd::dump(plain.view()).view() == expected.view() && packed.view().ir.pool.size() > 8 &&
           sd::detail::string_view(packed.pool.data(), packed.used.pool) ==
               sd::detail::string_view(plain.pool.data(), plain.used.pool);
  };
  STATIC_REQUIRE(same_plan());
  constexpr auto round_trip = [] {
    sd::detail::packed_chars<17> p;
    const char text[] = "any\xff\x80 chars, 0-d";  // high bytes too: packed as unsigned
    for (std::size_t i = 0; i < 17; ++i) p.put(i, text[i]);
    for (std::size_t i = 0; i < 17; ++i)
      if (p.get(i) != text[i]) return false;
    return true;
  };
  STATIC_REQUIRE(round_trip());
  STATIC_REQUIRE(scaled::storage.pool.size() == scaled::sizes.pool);  // what a program keeps is plain chars
}

TEST_CASE("a plan with an error is frozen with its message and no storage", "[plan][freeze]") {
  const auto model = sd::passes::schedule(sd::build_ir(plan_tests::racy_body), {});
  constexpr auto bounds = sd::bounds_of(sd::build_ir(plan_tests::racy_body), {});
  const auto frozen = sd::freeze<bounds>(model);
  CHECK(frozen.error == sd::diag::error_kind::race);
  CHECK(frozen.message.view().find("race (read-after-write) on buffer 'y'") == 0);
  CHECK(frozen.used.storage == 0);
  CHECK(frozen.view().storage.empty());
  CHECK(frozen.view().ir.buffers.size() == 3);
}

TEST_CASE("each pass stays within the growth it declares", "[plan][bounds]") {
  constexpr auto check = [] {
    const auto written = sd::build_ir(plan_tests::scaled_body);
    auto p = written;
    const auto before = sd::sizes_of(p);
    sd::passes::lower_wait_stream(p);
    const auto bound = sd::passes::lower_wait_stream_bound(before, written);
    // one wait_stream: exactly one statement and one event more
    const auto after = sd::sizes_of(p);
    return sd::fits_within(after, bound) && after.stmts == before.stmts + 1 && bound.stmts == after.stmts &&
           after.events == before.events + 1 && bound.events == after.events;
  };
  STATIC_REQUIRE(check());
  constexpr auto check_automatic = [] {
    const auto written = sd::build_ir(plan_tests::racy_body);
    auto p = written;
    sd::passes::lower_wait_stream(p);
    const auto before = sd::sizes_of(p);
    sd::passes::insert_syncs(p);
    // two assignments, two streams: at most a wait and a record before each
    const auto bound = sd::passes::insert_syncs_bound(before, written);
    return sd::fits_within(sd::sizes_of(p), bound) && bound.stmts == before.stmts + 4 &&
           sd::sizes_of(p).stmts == before.stmts + 2;
  };
  STATIC_REQUIRE(check_automatic());
}

TEST_CASE("bounds_of holds every plan the passes make", "[plan][bounds]") {
  STATIC_REQUIRE(sd::fits_within(scaled::sizes, sd::bounds_of(sd::build_ir(plan_tests::scaled_body), {})));
  STATIC_REQUIRE(sd::fits_within(automatic_rerecorded::sizes,
                                 sd::bounds_of(sd::build_ir(plan_tests::rerecorded_body), sd::automatic)));
  // sd::automatic may insert syncs, the default policy none.
  constexpr auto written = sd::sizes_of(sd::build_ir(plan_tests::racy_body));
  constexpr auto automatic = sd::bounds_of(sd::build_ir(plan_tests::racy_body), sd::automatic);
  constexpr auto checked = sd::bounds_of(sd::build_ir(plan_tests::racy_body), {});
  STATIC_REQUIRE(automatic.stmts > written.stmts);
  STATIC_REQUIRE(checked.stmts == written.stmts);
  STATIC_REQUIRE(!sd::fits_within(automatic, checked));
}

TEST_CASE("sd::automatic's bound grows with the conflicting pairs, not streams x statements",
          "[plan][bounds]") {
  // Each producer may need a wait for the one statement reading its output,
  // the join one per producer: 12 waits (each with a new event and a record),
  // where one wait per other stream before each of the 7 assignments is 42.
  constexpr auto written = sd::sizes_of(sd::build_ir(plan_tests::join_body));
  constexpr auto bound = sd::bounds_of(sd::build_ir(plan_tests::join_body), sd::automatic);
  STATIC_REQUIRE(bound.events - written.events == 12);
  STATIC_REQUIRE(bound.stmts - written.stmts == 24);
  using join = decltype(sd::program<sd::automatic>(plan_tests::join_body));
  STATIC_REQUIRE(sd::fits_within(join::sizes, bound));
  STATIC_REQUIRE(join::plan().waits("main") == 6);
}
