#pragma once
// Stress mode: a seeded random delay before every operation of every stream,
// so that an ordering the plan does not enforce shows up as a wrong result
// instead of passing by luck of the thread schedule.
#include <sched.h>
#include <time.h>

#include <cstdint>

namespace streamdsl {

struct stress {
  std::uint64_t seed = 1;
  std::uint32_t max_delay_us = 20;  // each delay is uniform in [0, max_delay_us] microseconds
};

namespace host_detail {

// SplitMix64: small, fast, and good enough to decorrelate streams and runs.
constexpr std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// CLOCK_MONOTONIC in nanoseconds: the clock std::chrono::steady_clock reads on
// Linux, without <chrono> (it costs the executor's includers compile time).
inline std::uint64_t monotonic_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::uint64_t>(t.tv_sec) * 1000000000u + static_cast<std::uint64_t>(t.tv_nsec);
}

// The delays of one stream in one run: a pure function of (seed, run, stream).
class delay_source {
 public:
  delay_source(const stress& s, std::uint64_t run, std::uint64_t stream)
      : state_(mix(mix(s.seed) ^ mix(run * 0x632BE59BD9B4E019ull + stream))), max_us_(s.max_delay_us) {}

  // The next delay, uniform in [0, max_delay_us].
  std::uint64_t next_delay_us() {
    state_ = mix(state_);
    return state_ % (static_cast<std::uint64_t>(max_us_) + 1);
  }

  void pause() {
    const auto us = next_delay_us();
    if (us == 0) return;
    const std::uint64_t until = monotonic_ns() + us * 1000;
    // Short delays spin (a sleep lasts at least the timer slack, ~50 us);
    // yielding keeps other streams running on a machine with few cores.
    // (nanosleep and sched_yield: <thread> costs the executor's includers compile time.)
    if (us >= 200) {
      const timespec nap{static_cast<time_t>(us / 1000000), static_cast<long>(us % 1000000 * 1000)};
      nanosleep(&nap, nullptr);
    }
    while (monotonic_ns() < until) sched_yield();
  }

 private:
  std::uint64_t state_;
  std::uint32_t max_us_;
};

}  // namespace host_detail
}  // namespace streamdsl
