#pragma once
// Vector clocks over a statement list walked in program order, shared by
// happens_before (the analysis) and the conflict walk of find_races and
// insert_syncs (conflicts.hpp; insert_syncs builds the list it walks). A
// stream's live clock holds, per stream k, how many statements of k it is
// known to follow; each statement keeps the clock of its stream just
// before it. Rows are flat and copied with plain pointer loops: the table is
// statements x streams, the one quadratic-looking structure the passes keep,
// so its constant matters (N streams joined by one statement).
#include <cstdint>

#include "../detail/dyn_array.hpp"

namespace streamdsl::passes {

class vector_clocks {
 public:
  constexpr vector_clocks(std::size_t streams, std::size_t statements)
      : streams_(streams), live_(streams * streams, 0) {
    seq_.reserve(statements);
    stream_of_.reserve(statements);
    rows_.reserve(statements * streams);
  }

  // Appends a statement on `stream` and returns its index: its clock is the
  // stream's live clock, and the stream then counts it.
  constexpr std::int32_t append(std::int32_t stream) {
    const auto i = seq_.size();
    auto* mine = live_.data() + static_cast<std::size_t>(stream) * streams_;
    seq_.push_back(mine[stream]);
    stream_of_.push_back(stream);
    rows_.append(mine, streams_);
    ++mine[stream];
    return static_cast<std::int32_t>(i);
  }
  // Stream `stream` learns everything `clock` knows (a wait's effect).
  constexpr void join(std::int32_t stream, const std::int32_t* clock) {
    auto* mine = live_.data() + static_cast<std::size_t>(stream) * streams_;
    for (std::size_t k = 0; k < streams_; ++k)
      if (clock[k] > mine[k]) mine[k] = clock[k];
  }

  // Stream `stream` learns statement a and all a knew: the effect of a wait
  // bound to a record placed right after a on its stream. Race detection
  // takes a race as fixed this way, and sync insertion adds such a sync.
  constexpr void sync_after(std::int32_t stream, std::int32_t a) {
    join(stream, clock_of(a));
    auto& known = live_[static_cast<std::size_t>(stream) * streams_ + static_cast<std::size_t>(stream_of(a))];
    if (sequence(a) + 1 > known) known = sequence(a) + 1;
  }

  constexpr std::size_t streams() const { return streams_; }
  constexpr std::size_t size() const { return seq_.size(); }
  // The clock of statement i: its stream's knowledge just before it.
  constexpr const std::int32_t* clock_of(std::int32_t i) const {
    return rows_.data() + static_cast<std::size_t>(i) * streams_;
  }
  // What stream `s` knows now.
  constexpr const std::int32_t* live(std::int32_t s) const {
    return live_.data() + static_cast<std::size_t>(s) * streams_;
  }
  // Position of statement i in its stream's program order.
  constexpr std::int32_t sequence(std::int32_t i) const { return seq_[static_cast<std::size_t>(i)]; }
  constexpr std::int32_t stream_of(std::int32_t i) const { return stream_of_[static_cast<std::size_t>(i)]; }
  // Whether `clock` counts statement a.
  constexpr bool counts(const std::int32_t* clock, std::int32_t a) const {
    return clock[stream_of(a)] > sequence(a);
  }
  // Whether clock `a` is known to clock `b` (b >= a in every stream).
  constexpr bool covered(const std::int32_t* a, const std::int32_t* b) const {
    for (std::size_t k = 0; k < streams_; ++k)
      if (a[k] > b[k]) return false;
    return true;
  }

 private:
  std::size_t streams_;
  detail::dyn_array<std::int32_t> live_;  // [stream * streams + k]
  detail::dyn_array<std::int32_t> seq_;
  detail::dyn_array<std::int32_t> stream_of_;
  detail::dyn_array<std::int32_t> rows_;  // [statement * streams + k]
};

}  // namespace streamdsl::passes
