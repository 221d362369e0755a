#pragma once
// What both generator families share: random dtypes and values, the choice
// of sync policy, and the sync emission driven by the tester's order model.
// Internal to program_generator.cpp and typed_generator.cpp.
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <streamdsl/dsl/builder_state.hpp>

#include "program_generator.hpp"

namespace streamdsl::random_test::generator_detail {

using detail::operand;

// Every host dtype but bool, and the integer ones.
inline constexpr dtype numeric_dtypes[] = {dtype::int8,    dtype::int16,  dtype::int32,  dtype::int64,
                                           dtype::uint8,   dtype::uint16, dtype::uint32, dtype::uint64,
                                           dtype::float32, dtype::float64};
inline constexpr dtype integer_dtypes[] = {dtype::int8,  dtype::int16,  dtype::int32,  dtype::int64,
                                           dtype::uint8, dtype::uint16, dtype::uint32, dtype::uint64};

inline dtype random_dtype(rng& r) {
  const auto x = r.below(100);
  if (x < 30) return dtype::float32;
  if (x < 42) return dtype::float64;
  if (x < 57) return dtype::int32;
  if (x < 69) return dtype::int64;
  if (x < 87) return integer_dtypes[r.below(8)];  // the narrow and unsigned widths (and int32, int64 again)
  return dtype::boolean;
}

// An integer value of type T: its extremes and -1 (all ones) now and then,
// else small values around 0 (wrapped into an unsigned type).
template <class T>
scalar random_integer(rng& r, std::int64_t small) {
  if (r.below(100) < 6) {
    const T edges[] = {T(0), static_cast<T>(-1), std::numeric_limits<T>::min(),
                       std::numeric_limits<T>::max()};
    return scalar::of(edges[r.below(4)]);
  }
  return scalar::of(static_cast<T>(r.between(-small, small)));
}

// A value of type t for an input, an output's initial contents or a param:
// mostly small and exact (so long chains stay finite and distinct), some
// arbitrary, a few edge cases (signed zero, infinities, extremes, NaN).
inline scalar random_value(rng& r, dtype t) {
  const auto x = r.below(100);
  switch (t) {
    case dtype::boolean: return scalar::of(r.chance(0.5));
    case dtype::int8: return random_integer<std::int8_t>(r, 20);
    case dtype::int16: return random_integer<std::int16_t>(r, 300);
    case dtype::uint8: return random_integer<std::uint8_t>(r, 20);
    case dtype::uint16: return random_integer<std::uint16_t>(r, 300);
    case dtype::uint32: return random_integer<std::uint32_t>(r, 1000);
    case dtype::uint64: return random_integer<std::uint64_t>(r, 1000);
    case dtype::int32:
      if (x < 4) {
        constexpr std::int32_t edges[] = {0, -1, std::numeric_limits<std::int32_t>::min(),
                                          std::numeric_limits<std::int32_t>::max()};
        return scalar::of(edges[r.below(4)]);
      }
      return scalar::of(static_cast<std::int32_t>(r.between(-20, 20)));
    case dtype::int64:
      if (x < 4) {
        constexpr std::int64_t edges[] = {0, -1, std::numeric_limits<std::int64_t>::min(),
                                          std::numeric_limits<std::int64_t>::max()};
        return scalar::of(edges[r.below(4)]);
      }
      return scalar::of(static_cast<std::int64_t>(r.between(-1000, 1000)));
    default: {
      double v;
      if (x < 65) {
        v = static_cast<double>(r.between(-32, 32)) / 8;
      } else if (x < 95) {
        v = static_cast<double>(r.next() >> 11) * 0x1.0p-53 * 8 - 4;
      } else {
        constexpr double edges[] = {-0.0,
                                    1e30,
                                    -1e30,
                                    1e-40,
                                    std::numeric_limits<double>::infinity(),
                                    std::numeric_limits<double>::quiet_NaN()};
        v = edges[r.below(6)];
      }
      return t == dtype::float32 ? scalar::of(static_cast<float>(v)) : scalar::of(v);
    }
  }
}

// What the generator does for a sync an access needs.
enum class sync_choice { fresh_record, reuse_record, wait_stream };

// Shared by both families: declarations are done, statements are appended
// through `emit_*` hooks that each family implements its own way.
class generator_base {
 public:
  explicit generator_base(std::uint64_t seed) : r_(seed) {}
  virtual ~generator_base() = default;

 protected:
  virtual detail::builder_state& state() = 0;
  virtual void emit_record(std::int32_t stream, std::int32_t event) = 0;
  virtual void emit_wait(std::int32_t stream, std::int32_t event) = 0;
  virtual void emit_wait_stream(std::int32_t waiter, std::int32_t waited) = 0;

  void choose_policy(generated_program& g) {
    automatic_ = r_.chance(0.45);
    if (automatic_) {
      constexpr double keep[] = {0.0, 0.3, 0.6, 0.9};
      keep_probability_ = keep[r_.below(4)];
    }
    g.opts.sync = automatic_ ? sync_policy::automatic : sync_policy::checked;
    g.opts.fusion = !r_.chance(0.2);
    // One draw, as before sd::as_written: a quarter relaxed, 15% as written, the rest strict.
    const auto placement = r_.below(100);
    g.opts.placement = placement < 25   ? placement_policy::relaxed
                       : placement < 40 ? placement_policy::as_written
                                        : placement_policy::strict;
  }

  // Mostly 2 to 4; a few programs have many streams, for sync insertion
  // and redundant-wait removal to work harder.
  std::size_t random_stream_count(std::size_t most = 8) {
    const auto x = r_.below(100);
    const std::size_t n = x < 10   ? 1
                          : x < 42 ? 2
                          : x < 74 ? 3
                          : x < 94 ? 4
                                   : static_cast<std::size_t>(r_.between(5, 8));
    return n < most ? n : most;
  }

  // Mostly small (fast, and edge-heavy: 1, powers of two and their
  // neighbours); a few cross the host executor's 512-element blocks, and a
  // rare one is large enough for it to split kernels among helper threads.
  static std::size_t random_extent(rng& r) {
    constexpr std::size_t favourites[] = {1, 2, 3, 5, 8, 16, 17, 31, 32, 33, 64};
    constexpr std::size_t blocks[] = {511, 512, 513, 1000, 1537};
    const auto x = r.below(1000);
    if (x < 2) return 70001;
    if (x < 40) return blocks[r.below(5)];
    return x < 600 ? favourites[r.below(11)] : static_cast<std::size_t>(r.between(1, 50));
  }

  // For programs with chunks: extents that are multiples of several chunk
  // counts (2, 3, 4, 6, 8), mostly small, some across the host executor's
  // blocks, a rare one large; some plain ones, where fewer counts divide.
  static std::size_t chunk_friendly_extent(rng& r) {
    constexpr std::size_t small[] = {2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 72, 96, 120};
    constexpr std::size_t blocks[] = {504, 528, 1032, 1536};
    const auto x = r.below(1000);
    if (x < 2) return 70008;
    if (x < 40) return blocks[r.below(4)];
    if (x < 700) return small[r.below(14)];
    if (x < 850) return 24 * static_cast<std::size_t>(r.between(1, 10));
    return random_extent(r);
  }

  // The chunk counts an extent allows (it must be a multiple of each).
  static std::vector<std::int32_t> chunk_counts_of(std::size_t extent) {
    std::vector<std::int32_t> out;
    for (std::int32_t k : {2, 3, 4, 6, 8})
      if (extent % static_cast<std::size_t>(k) == 0) out.push_back(k);
    return out;
  }

  // Before a statement on `s` that reads `reads` and writes `writes`
  // (regions): the syncs it needs (all of them for sd::checked, some for
  // sd::automatic).
  void order_before(std::int32_t s, const std::vector<ir::region>& reads,
                    const std::vector<ir::region>& writes) {
    std::vector<std::int32_t> skipped;
    for (;;) {
      model_->observe(detail::builder_access::ir(state()));
      std::vector<std::int32_t> pending;
      for (auto t : model_->unordered_streams(s, reads, writes)) {
        bool skip = false;
        for (auto k : skipped) skip = skip || k == t;
        if (!skip) pending.push_back(t);
      }
      if (pending.empty()) return;
      const auto t = r_.pick(pending);
      if (automatic_ && !r_.chance(keep_probability_)) {
        skipped.push_back(t);
        ++syncs_left_out_;
        continue;
      }
      sync_with(s, t, reads, writes);
    }
  }

  void sync_with(std::int32_t s, std::int32_t t, const std::vector<ir::region>& reads,
                 const std::vector<ir::region>& writes) {
    auto& b = state();
    std::vector<std::int32_t> covering;  // events whose latest record already captured the accesses
    for (std::int32_t e = 0; e < static_cast<std::int32_t>(detail::builder_access::last_record(b).size());
         ++e) {
      const auto rec = detail::builder_access::last_record(b)[static_cast<std::size_t>(e)];
      if (rec >= 0 && detail::builder_access::ir(b).stmts[static_cast<std::size_t>(rec)].stream == t &&
          model_->record_covers(static_cast<std::size_t>(rec), s, reads, writes, t))
        covering.push_back(e);
    }
    const auto events = static_cast<std::int32_t>(detail::builder_access::ir(b).events.size());
    sync_choice c = sync_choice::wait_stream;
    if (!covering.empty() && r_.chance(0.4))
      c = sync_choice::reuse_record;
    else if (events > 0 && r_.chance(0.7))
      c = sync_choice::fresh_record;
    switch (c) {
      case sync_choice::reuse_record: emit_wait(s, r_.pick(covering)); break;
      case sync_choice::fresh_record: {
        const auto e = static_cast<std::int32_t>(r_.below(static_cast<std::size_t>(events)));
        emit_record(t, e);  // may re-record an event: later waits bind to this record
        emit_wait(s, e);
        break;
      }
      case sync_choice::wait_stream: emit_wait_stream(s, t); break;
    }
  }

  // A sync nothing needs (yet): extra ordering, often redundant, sometimes
  // rebinding an event that a later sync then reuses.
  void random_sync(std::int32_t current) {
    auto& b = state();
    const auto streams = detail::builder_access::ir(b).streams.size();
    const auto events = detail::builder_access::ir(b).events.size();
    const auto x = r_.below(3);
    if (x == 0 && events > 0) {
      emit_record(current, static_cast<std::int32_t>(r_.below(events)));
    } else if (x == 1 && events > 0) {
      std::vector<std::int32_t> recorded;
      for (std::size_t e = 0; e < events; ++e)
        if (detail::builder_access::last_record(b)[e] >= 0) recorded.push_back(static_cast<std::int32_t>(e));
      if (!recorded.empty()) emit_wait(current, r_.pick(recorded));
    } else {
      // wait_stream on itself is allowed (and a no-op); keep it rare.
      auto other = static_cast<std::int32_t>(r_.below(streams));
      if (other == current && streams > 1 && r_.chance(0.8))
        other = (other + 1) % static_cast<std::int32_t>(streams);
      emit_wait_stream(current, other);
    }
  }

  void finish(generated_program& g) {
    model_->observe(detail::builder_access::ir(state()));
    g.racy = model_->races() > 0;
    g.race = model_->first_race();
    g.syncs_left_out = syncs_left_out_;
    if (!automatic_ && g.racy)
      throw std::logic_error("generator: an sd::checked program races (generator bug)");
  }

  rng r_;
  bool automatic_ = false;
  double keep_probability_ = 1;
  std::size_t syncs_left_out_ = 0;
  std::unique_ptr<order_model> model_;
};

}  // namespace streamdsl::random_test::generator_detail
