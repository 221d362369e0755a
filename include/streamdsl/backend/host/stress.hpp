#pragma once
// Stress mode: a seeded random delay before every operation of every stream,
// so that an ordering the plan does not enforce shows up as a wrong result
// instead of passing by luck of the thread schedule.
#include <chrono>
#include <cstdint>
#include <thread>

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
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
    // Short delays spin (a sleep lasts at least the timer slack, ~50 us);
    // yielding keeps other streams running on a machine with few cores.
    if (us >= 200) std::this_thread::sleep_until(until);
    while (std::chrono::steady_clock::now() < until) std::this_thread::yield();
  }

 private:
  std::uint64_t state_;
  std::uint32_t max_us_;
};

}  // namespace host_detail
}  // namespace streamdsl
