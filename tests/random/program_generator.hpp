#pragma once
// The seeded random-program generator. Programs are generated at run time
// (the builder and the passes are constexpr functions, usable while the test
// runs), so thousands of programs cost no compile time.
//
// Two families:
// - "dynamic": the builder engine (builder_state, through detail::builder_access) with run-time dtypes (bool,
//   int32, int64, float, double), several domains, 0-d buffers, params,
//   inouts, temps, events (re-recorded), wait_stream, and statements on
//   random streams;
// - "typed": the public API (sd::builder handles, expression templates,
//   sd::with_stream with nested scopes, compound assignment) with structure
//   chosen at run time.
// sd::checked programs get every sync they need (chosen at random among a
// fresh record + wait, a wait on an earlier record that covers the access,
// and wait_stream); sd::automatic programs keep only some of them and leave
// the rest to the scheduler.
#include <cstdint>
#include <streamdsl/ir/program.hpp>
#include <streamdsl/passes/options.hpp>
#include <string>
#include <vector>

#include "order_model.hpp"
#include "reference.hpp"
#include "values.hpp"

namespace streamdsl::random_test {

// splitmix64: small, fast and the same on every platform (the standard
// distributions are not), so a seed names one program everywhere.
class rng {
 public:
  explicit rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n); n > 0.
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
  // Uniform in [lo, hi].
  std::int64_t between(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  bool chance(double p) { return static_cast<double>(next() >> 11) * 0x1.0p-53 < p; }
  template <class C>
  auto& pick(C& c) {
    return c[below(c.size())];
  }
  template <class C>
  void shuffle(C& c) {  // Fisher-Yates, with this generator's draws
    for (std::size_t i = c.size(); i > 1; --i) {
      const auto j = below(i);
      auto x = c[i - 1];
      c[i - 1] = c[j];
      c[j] = x;
    }
  }

 private:
  std::uint64_t state_;
};

struct generated_program {
  std::uint64_t seed = 0;
  std::string family;  // "dynamic" or "typed"
  options opts;
  ir::program user;                // the statements as written, before any pass
  reference_inputs inputs;         // domain extents and param values
  bool racy = false;               // whether the program as written races (the tester's own model)
  model_race race;                 // the first such race
  std::size_t syncs_left_out = 0;  // syncs an sd::automatic program leaves to the scheduler

  // The program as text: options, declarations, statements with their streams.
  std::string describe() const;
};

generated_program generate_program(std::uint64_t seed);
// The typed family alone (generate_program picks it for one seed in five).
generated_program generate_typed_program(std::uint64_t seed);

// The caller's arrays for one run: every buffer of its domain's extent,
// inputs, inouts and outputs filled with values drawn from `seed` (temps too,
// so nothing reads memory the test did not set).
std::vector<typed_array> make_buffers(const generated_program& g, std::uint64_t seed);

// The text of an options value: "automatic | no_fusion | relaxed" (or "| as_written").
std::string describe(const options& o);

}  // namespace streamdsl::random_test
