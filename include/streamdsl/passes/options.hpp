#pragma once
// How a program is scheduled: sd::program<sd::automatic>(...),
// sd::program<sd::automatic | sd::relaxed>(...), sd::program<sd::as_written>(...).
#include <cstdint>

namespace streamdsl {

enum class sync_policy : std::uint8_t {
  checked,    // a cross-stream race is a compile error (default)
  automatic,  // the scheduler inserts the records and waits that order races
  unchecked,  // no race analysis: for experts and for testing the testers
};

enum class placement_policy : std::uint8_t {
  strict,      // work writing an output or inout stays on the user's stream
  relaxed,     // such work may move between streams when every result is unchanged
  as_written,  // every statement, temps too, stays on the user's stream (overlap
               // arranged on purpose, debugging a schedule)
};

struct options {
  sync_policy sync = sync_policy::checked;
  placement_policy placement = placement_policy::strict;
  bool fusion = true;  // false: one kernel per statement (a baseline for benchmarks)
  // false: each kernel its own launch, never a segment of a multi-tensor
  // launch (passes/join_launches.hpp; a baseline for benchmarks)
  bool join_launches = true;
  // false: every matmul its own cuBLASLt call, never a member of a batch
  // (passes/batch_matmuls.hpp; a baseline for benchmarks and tests)
  bool batching = true;

  friend constexpr bool operator==(const options&, const options&) = default;
};

// Combines options: each non-default field of either side wins.
constexpr options operator|(options a, options b) {
  options r = a;
  if (b.sync != sync_policy::checked) r.sync = b.sync;
  if (b.placement != placement_policy::strict) r.placement = b.placement;
  if (!b.fusion) r.fusion = false;
  if (!b.join_launches) r.join_launches = false;
  if (!b.batching) r.batching = false;
  return r;
}

inline constexpr options checked{};
inline constexpr options automatic{sync_policy::automatic};
inline constexpr options unchecked{sync_policy::unchecked};
inline constexpr options relaxed{sync_policy::checked, placement_policy::relaxed};
inline constexpr options no_fusion{sync_policy::checked, placement_policy::strict, false};
inline constexpr options as_written{sync_policy::checked, placement_policy::as_written};
inline constexpr options separate_launches{sync_policy::checked, placement_policy::strict, true, false};
inline constexpr options no_batching{sync_policy::checked, placement_policy::strict, true, true, false};

}  // namespace streamdsl
