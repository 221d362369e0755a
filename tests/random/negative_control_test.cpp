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
  int racy = 0, caught = 0;
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
  }
  std::cout << "negative control: " << caught << " of " << racy
            << " racy programs gave a wrong result unsynchronised\n";
  CHECK(racy == 40);
  CHECK(caught > 0);
}
