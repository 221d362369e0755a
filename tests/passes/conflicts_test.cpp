// The conflict walk alone (passes/conflicts.hpp), which find_races and
// insert_syncs share, and vector_clocks::sync_after.
#include <catch2/catch.hpp>
#include <streamdsl/streamdsl.hpp>

namespace {

using sd::passes::conflict_walker;
using sd::passes::sync_order;

using sd::ir::region;
using regions = sd::detail::array_view<region>;
constexpr regions none{};
constexpr region whole(std::int32_t b) { return sd::ir::whole(b); }

// Streams 0 (main), 1, 2; buffers 0, 1, 2.
// #0 on 1 writes b0; #1 record on 1; #2 wait on 2 for #1; #3 on 2 writes b1;
// then main reads b0 and b1 and writes b2: its conflicts are #0 on stream 1
// and #3 on stream 2, and #3 already knows #0.
struct taken {
  std::size_t found = 0;
  std::int32_t first_access = -1, first_buffer = -1, second_access = -1;
  bool first_access_writes = false, first_writes = true;
  std::size_t synced = 0;
  std::int32_t synced_first = -1;
  bool main_knows_0 = false, main_knows_3 = false;
};

constexpr taken walk(sync_order order) {
  conflict_walker w(3, 3, 8, none);
  auto& c = w.clocks();
  const region b0[] = {whole(0)}, b1[] = {whole(1)}, b2[] = {whole(2)};
  w.note(1, none, b0, 0);
  c.append(1);  // #0
  c.append(1);  // #1 record
  c.append(2);  // #2 wait
  c.join(2, c.clock_of(1));
  w.note(2, none, b1, 3);
  c.append(2);  // #3
  const region reads[2] = {whole(0), whole(1)};
  const auto& found = w.find(0, reads, b2);
  taken t;
  t.found = found.size();
  t.first_access = found[0].access;
  t.first_buffer = found[0].buffer;
  t.first_access_writes = found[0].access_writes;
  t.first_writes = found[0].writes;
  t.second_access = found[1].access;
  w.sync(0, order, [&](const sd::passes::conflict& x) {
    if (t.synced++ == 0) t.synced_first = x.access;
  });
  t.main_knows_0 = c.counts(c.live(0), 0);
  t.main_knows_3 = c.counts(c.live(0), 3);
  return t;
}

}  // namespace

TEST_CASE("conflicts: the latest unordered conflicting access on each other stream, by stream",
          "[passes][conflicts]") {
  constexpr auto t = walk(sync_order::by_stream);
  STATIC_REQUIRE(t.found == 2);
  STATIC_REQUIRE(t.first_access == 0);
  STATIC_REQUIRE(t.first_buffer == 0);
  STATIC_REQUIRE(t.first_access_writes);
  STATIC_REQUIRE(!t.first_writes);
  STATIC_REQUIRE(t.second_access == 3);
}

TEST_CASE("conflicts: by stream, a sync for stream 1 does not order stream 2's later access",
          "[passes][conflicts]") {
  constexpr auto t = walk(sync_order::by_stream);
  STATIC_REQUIRE(t.synced == 2);
  STATIC_REQUIRE(t.synced_first == 0);
  STATIC_REQUIRE((t.main_knows_0 && t.main_knows_3));
}

TEST_CASE("conflicts: latest first, the sync for #3 orders #0 too, which needs none", "[passes][conflicts]") {
  constexpr auto t = walk(sync_order::latest_first);
  STATIC_REQUIRE(t.synced == 1);
  STATIC_REQUIRE(t.synced_first == 3);
  STATIC_REQUIRE((t.main_knows_0 && t.main_knows_3));
}

TEST_CASE("conflicts: an access ordered by a wait is no conflict", "[passes][conflicts]") {
  constexpr auto found = [] {
    conflict_walker w(1, 2, 4, none);
    auto& c = w.clocks();
    const region b0[] = {whole(0)};
    w.note(1, none, b0, 0);
    c.append(1);  // #0 on 1 writes b0
    c.append(1);  // #1 record on 1
    c.append(0);  // #2 wait on main for #1
    c.join(0, c.clock_of(1));
    return w.find(0, b0, b0).size();  // main reads and writes b0
  }();
  STATIC_REQUIRE(found == 0);
}

// Stream 1 writes chunk 0 of 4 of b0 (#0) and chunk 1 of 2 (#1); main then
// accesses the region given, unordered: the conflicts are the overlapping ones.
constexpr std::size_t chunk_conflicts(region on_main, bool main_writes) {
  const region listed[] = {{0, 0, 4}, {0, 1, 2}, on_main};
  conflict_walker w(1, 2, 4, listed);
  auto& c = w.clocks();
  const region first[] = {listed[0]}, second[] = {listed[1]}, mine[] = {on_main};
  w.note(1, none, first, 0);
  c.append(1);
  w.note(1, none, second, 1);
  c.append(1);
  const auto& found = main_writes ? w.find(0, none, mine) : w.find(0, mine, none);
  return found.size() == 1 ? static_cast<std::size_t>(found[0].access) + 1 : 0;  // 1 + the access, or 0
}

TEST_CASE("conflicts: regions conflict only where they overlap", "[passes][conflicts][regions]") {
  STATIC_REQUIRE(chunk_conflicts({0, 1, 4}, true) == 0);   // chunk 1 of 4 meets neither
  STATIC_REQUIRE(chunk_conflicts({0, 0, 4}, false) == 1);  // the same chunk: #0
  STATIC_REQUIRE(chunk_conflicts({0, 0, 2}, true) == 1);   // half 0 holds chunk 0 of 4: #0
  STATIC_REQUIRE(chunk_conflicts({0, 3, 4}, false) == 2);  // chunk 3 of 4 lies in half 1: #1
  STATIC_REQUIRE(chunk_conflicts(whole(0), false) == 2);   // the whole buffer: the latest, #1
}

TEST_CASE("vector_clocks: sync_after teaches a stream the access and all it knew", "[passes][conflicts]") {
  constexpr auto knows = [] {
    sd::passes::vector_clocks c(3, 4);
    c.append(2);  // #0 on 2
    c.append(2);  // #1 record on 2
    c.append(1);  // #2 wait on 1 for #1
    c.join(1, c.clock_of(1));
    c.append(1);  // #3 on 1
    c.sync_after(0, 3);
    // main now knows #3 (and #2 before it) on 1, and #0 on 2 through #3's
    // clock; stream 2 learns nothing.
    return c.counts(c.live(0), 3) && c.counts(c.live(0), 2) && c.counts(c.live(0), 0) &&
           !c.counts(c.live(2), 3);
  }();
  STATIC_REQUIRE(knows);
}
