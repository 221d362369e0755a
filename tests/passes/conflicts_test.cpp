// The conflict walk alone (passes/conflicts.hpp), which find_races and
// insert_syncs share, and vector_clocks::sync_after.
#include <catch2/catch.hpp>
#include <streamdsl/streamdsl.hpp>

namespace {

using sd::passes::conflict_walker;
using sd::passes::sync_order;

constexpr std::int32_t no_reads[1] = {-1};
struct none {
  constexpr const std::int32_t* begin() const { return no_reads; }
  constexpr const std::int32_t* end() const { return no_reads; }
};

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
  conflict_walker w(3, 3, 8);
  auto& c = w.clocks();
  w.note(1, none{}, 0, 0);
  c.append(1);  // #0
  c.append(1);  // #1 record
  c.append(2);  // #2 wait
  c.join(2, c.clock_of(1));
  w.note(2, none{}, 1, 3);
  c.append(2);  // #3
  const std::int32_t reads[2] = {0, 1};
  const auto& found = w.find(0, reads, 2);
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
    conflict_walker w(1, 2, 4);
    auto& c = w.clocks();
    w.note(1, none{}, 0, 0);
    c.append(1);  // #0 on 1 writes b0
    c.append(1);  // #1 record on 1
    c.append(0);  // #2 wait on main for #1
    c.join(0, c.clock_of(1));
    const std::int32_t reads[1] = {0};
    return w.find(0, reads, 0).size();  // main reads and writes b0
  }();
  STATIC_REQUIRE(found == 0);
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
