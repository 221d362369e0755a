// Negative control for stress mode: the seed program without its wait,
// compiled with sd::unchecked, reads y on main while the side stream writes
// it. Under stress some seed soon shows stale values of y in z, and they are
// recognisable: y starts at -1000, so a stale z element is exactly -2000.
// The same program with the wait is right under every one of those seeds.
#include <catch2/catch.hpp>
#include <streamdsl/backend/host/host_executor.hpp>

#include "host_test_support.hpp"

#if defined(__SANITIZE_THREAD__)
// This binary races on purpose; ThreadSanitizer would (rightly) report it.
// Its reports are silenced here only: the other host tests run the same
// executor code under ThreadSanitizer with nothing silenced.
extern "C" const char* __tsan_default_suppressions() { return "race:host_detail\n"; }
#endif

namespace {

template <bool WithWait>
constexpr auto seed = sd::program<sd::unchecked>([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto z = p.output<float>("z");
  auto side = p.stream("side");
  auto e = p.event("e");
  sd::with_stream(side, [&] {
    y = x + 1;
    e.record();
  });
  if constexpr (WithWait) e.wait();
  z = y * 2;
});

constexpr std::size_t n = 4096;
constexpr float y_before = -1000.0f;
constexpr std::uint64_t max_seeds = 200;

struct outcome {
  std::size_t stale = 0, right = 0, other = 0;
};

template <bool WithWait>
outcome run_once(std::uint64_t stress_seed) {
  const auto x = host_test::ramp<float>(n, 0.0f, 1.0f);
  std::vector<float> y(n, y_before), z(n, 0.0f);
  sd::host_executor ex(sd::stress{stress_seed, 50});
  ex.run(seed<WithWait>, sd::bind("x", x), sd::bind("y", y), sd::bind("z", z));
  outcome o;
  for (std::size_t i = 0; i < n; ++i) {
    if (z[i] == (x[i] + 1) * 2)
      ++o.right;
    else if (z[i] == y_before * 2)
      ++o.stale;
    else
      ++o.other;
  }
  return o;
}

}  // namespace

TEST_CASE("negative control: without the wait, stress mode shows the race", "[host][stress][negative]") {
  STATIC_REQUIRE(seed<false>.plan().waits("main") == 0);
  std::uint64_t found = 0;
  outcome o;
  for (std::uint64_t s = 1; s <= max_seeds && found == 0; ++s) {
    o = run_once<false>(s);
    CHECK(o.other == 0);  // each z element read y either before or after the side stream wrote it
    if (o.stale > 0) found = s;
  }
  INFO("first seed with stale reads: " << found << " (" << o.stale << " of " << n << " elements stale)");
  CHECK(found > 0);
}

TEST_CASE("positive control: with the wait, every seed is right", "[host][stress][negative]") {
  STATIC_REQUIRE(seed<true>.plan().waits("main") == 1);
  std::size_t wrong = 0;
  for (std::uint64_t s = 1; s <= 50; ++s) {
    const auto o = run_once<true>(s);
    wrong += o.stale + o.other;
  }
  CHECK(wrong == 0);
}
