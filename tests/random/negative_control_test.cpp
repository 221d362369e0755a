// Negative control for the differential test: racy random programs
// scheduled with sd::unchecked (no sync insertion) must give wrong results on
// some runs in stress mode, or the comparison and the stress mode could not
// catch a missing sync either. Its own binary because it races on purpose.
#include <catch2/catch.hpp>
#include <iostream>
#include <streamdsl/streamdsl.hpp>

#include "host_run.hpp"

#if defined(__SANITIZE_THREAD__)
// ThreadSanitizer would (rightly) report the deliberate races; silenced in
// this binary only: test_random_differential runs with nothing silenced.
extern "C" const char* __tsan_default_suppressions() { return "race:host_detail\n"; }
#endif

namespace rt = streamdsl::random_test;

TEST_CASE("random programs: the differential test sees the races sd::unchecked leaves in",
          "[random][differential]") {
  sd::host_executor ex(sd::host_options{sd::stress{3, 50}, 0});
  int racy = 0, caught = 0, regional = 0,
      regional_caught = 0;  // regional: the first race is on a copy or chunk
  for (std::uint64_t seed = 1; racy < 40 && seed < 20000; ++seed) {
    auto g = rt::generate_program(seed);
    std::size_t largest = 0;
    for (auto n : g.inputs.extents) largest = n > largest ? n : largest;
    if (!g.racy || largest > 2000) continue;  // large ones only cost time here
    ++racy;
    g.opts = sd::unchecked;
    bool wrong = false;
    for (int attempt = 0; attempt < 3 && !wrong; ++attempt) wrong = !rt::run_and_compare(g, ex, seed).matches;
    caught += wrong;
    bool on_regions = false;
    for (auto i : {g.race.first, g.race.second}) {
      const auto& st = g.user.stmts[static_cast<std::size_t>(i)];
      const auto regions = rt::regions_of(g.user, st);
      on_regions = on_regions || st.kind == sd::ir::stmt_kind::step;
      for (const auto& r : regions.reads)
        on_regions = on_regions || (r.buffer == g.race.buffer && r.parts > 1);
      for (const auto& r : regions.writes)
        on_regions = on_regions || (r.buffer == g.race.buffer && r.parts > 1);
    }
    regional += on_regions;
    regional_caught += on_regions && wrong;
  }
  std::cout << "negative control: " << caught << " of " << racy
            << " racy programs gave a wrong result unsynchronised (" << regional_caught << " of " << regional
            << " whose first race is on a copy or a chunk)\n";
  CHECK(racy == 40);
  CHECK(caught > 0);
  CHECK(regional_caught > 0);
}
