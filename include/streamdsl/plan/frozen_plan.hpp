#pragma once
// A plan as a compile-time value. C++20 lets no allocation outlive a
// constant evaluation, so the growable plan model is copied into arrays. The
// passes run once: their result is frozen into arrays sized by upper bounds
// that the IR alone gives (plan_bounds), then that oversized value is
// shrunk to its exact sizes (a copy, no pass runs again).
#include "../detail/fixed_array.hpp"
#include "../detail/fixed_string.hpp"
#include "../diag/error_kind.hpp"
#include "../dsl/options.hpp"
#include "../passes/sync_insertion.hpp"
#include "plan_model.hpp"
#include "plan_view.hpp"

namespace streamdsl {

inline constexpr std::size_t error_capacity = 480;  // see diag::message_capacity

struct plan_sizes {
  std::size_t pool, buffers, params, streams, events, domains, nodes, stmts, reads;
  std::size_t ops, kernels, kernel_stmts, slots, notes;
  friend constexpr bool operator==(const plan_sizes&, const plan_sizes&) = default;
};

constexpr plan_sizes sizes_of(const plan_model& m) {
  const auto& p = m.ir;
  return {p.pool.size(),    p.buffers.size(),      p.params.size(), p.streams.size(), p.events.size(),
          p.domains.size(), p.nodes.size(),        p.stmts.size(),  p.reads.size(),   m.ops.size(),
          m.kernels.size(), m.kernel_stmts.size(), m.slots.size(),  m.notes.size()};
}

constexpr bool fits_within(const plan_sizes& a, const plan_sizes& b) {
  return a.pool <= b.pool && a.buffers <= b.buffers && a.params <= b.params && a.streams <= b.streams &&
         a.events <= b.events && a.domains <= b.domains && a.nodes <= b.nodes && a.stmts <= b.stmts &&
         a.reads <= b.reads && a.ops <= b.ops && a.kernels <= b.kernels && a.kernel_stmts <= b.kernel_stmts &&
         a.slots <= b.slots && a.notes <= b.notes;
}

// Upper bounds of every array of the plan the passes make from program `p`
// (as built, before any pass). The passes add no buffers, nodes or names of
// the user; they add events and statements (wait_stream lowers to a record
// and a wait; sd::automatic inserts at most passes::max_inserted_waits waits,
// and one record per wait), and notes, each about one
// statement (a removed or dropped sync, or a move, which merges two kernels),
// each at most note_capacity characters, interned into the name pool.
constexpr plan_sizes bounds_of(const ir::program& p, options o) {
  std::size_t assigns = 0, wait_streams = 0;
  for (const auto& s : p.stmts) {
    assigns += s.kind == ir::stmt_kind::assign ? 1 : 0;
    wait_streams += s.kind == ir::stmt_kind::wait_stream ? 1 : 0;
  }
  const std::size_t streams = p.streams.size();
  const std::size_t inserted = o.sync == sync_policy::automatic ? passes::max_inserted_waits(p) : 0;  // waits
  const std::size_t stmts = p.stmts.size() + wait_streams + 2 * inserted;
  const std::size_t events = p.events.size() + wait_streams + inserted;
  constexpr std::size_t event_name = 32;  // "wait_stream" or "auto_sync" and a number
  const std::size_t notes = stmts;
  return {p.pool.size() + event_name * (events - p.events.size()) + note_capacity * notes,
          p.buffers.size(),
          p.params.size(),
          streams,
          events,
          p.domains.size(),
          p.nodes.size(),
          stmts,
          p.reads.size(),
          stmts + 1 + 3 * streams,  // kernels, records and waits, entry and exit edges
          assigns,
          assigns,
          p.buffers.size(),
          notes};
}

template <plan_sizes Z>
struct frozen_plan {
  detail::fixed_array<char, Z.pool> pool{};
  detail::fixed_array<ir::buffer_info, Z.buffers> buffers{};
  detail::fixed_array<ir::param_info, Z.params> params{};
  detail::fixed_array<ir::stream_info, Z.streams> streams{};
  detail::fixed_array<ir::event_info, Z.events> events{};
  detail::fixed_array<ir::domain_info, Z.domains> domains{};
  detail::fixed_array<ir::expr_node, Z.nodes> nodes{};
  detail::fixed_array<ir::statement, Z.stmts> stmts{};
  detail::fixed_array<std::int32_t, Z.reads> reads{};
  detail::fixed_array<plan_op, Z.ops> ops{};
  detail::fixed_array<kernel_info, Z.kernels> kernels{};
  detail::fixed_array<std::int32_t, Z.kernel_stmts> kernel_stmts{};
  detail::fixed_array<std::int32_t, Z.buffers> storage{};
  detail::fixed_array<slot_info, Z.slots> slots{};
  detail::fixed_array<ir::name_ref, Z.notes> notes{};
  diag::error_kind error = diag::error_kind::none;
  detail::fixed_string<error_capacity> message{};
  plan_sizes used{};              // how much of each array holds the plan
  std::size_t storage_count = 0;  // used.buffers, or 0 for a program with an error (no storage planned)

  // The plan: the first `used` elements of each array.
  constexpr plan_view view() const {
    const auto& n = used;
    return {{{pool.data(), n.pool},
             {buffers.data(), n.buffers},
             {params.data(), n.params},
             {streams.data(), n.streams},
             {events.data(), n.events},
             {domains.data(), n.domains},
             {nodes.data(), n.nodes},
             {stmts.data(), n.stmts},
             {reads.data(), n.reads}},
            {ops.data(), n.ops},
            {kernels.data(), n.kernels},
            {kernel_stmts.data(), n.kernel_stmts},
            {storage.data(), storage_count},
            {slots.data(), n.slots},
            {notes.data(), n.notes},
            {}};
  }
};

namespace detail {
template <class T, std::size_t N>
constexpr void copy_into(fixed_array<T, N>& to, detail::array_view<T> from) {
  for (std::size_t i = 0; i < from.size(); ++i) to[i] = from[i];
}

// Not constexpr: reaching it stops the compile with its name in the error.
inline void streamdsl_internal_error_plan_exceeds_its_bounds() {}
}  // namespace detail

// A plan (as a view) in arrays of sizes Z, which must hold it.
template <plan_sizes Z>
constexpr frozen_plan<Z> freeze(const plan_view& v, diag::error_kind error, detail::string_view message) {
  frozen_plan<Z> f;
  const auto& p = v.ir;
  f.used = {p.pool.size(),    p.buffers.size(),      p.params.size(), p.streams.size(), p.events.size(),
            p.domains.size(), p.nodes.size(),        p.stmts.size(),  p.reads.size(),   v.ops.size(),
            v.kernels.size(), v.kernel_stmts.size(), v.slots.size(),  v.notes.size()};
  if (!fits_within(f.used, Z)) detail::streamdsl_internal_error_plan_exceeds_its_bounds();
  f.storage_count = v.storage.size();
  detail::copy_into(f.pool, p.pool);
  detail::copy_into(f.buffers, p.buffers);
  detail::copy_into(f.params, p.params);
  detail::copy_into(f.streams, p.streams);
  detail::copy_into(f.events, p.events);
  detail::copy_into(f.domains, p.domains);
  detail::copy_into(f.nodes, p.nodes);
  detail::copy_into(f.stmts, p.stmts);
  detail::copy_into(f.reads, p.reads);
  detail::copy_into(f.ops, v.ops);
  detail::copy_into(f.kernels, v.kernels);
  detail::copy_into(f.kernel_stmts, v.kernel_stmts);
  detail::copy_into(f.storage, v.storage);
  detail::copy_into(f.slots, v.slots);
  detail::copy_into(f.notes, v.notes);
  f.error = error;
  f.message = detail::fixed_string<error_capacity>(message);
  return f;
}

// The plan model, frozen.
template <plan_sizes Z>
constexpr frozen_plan<Z> freeze(const plan_model& m) {
  const bool failed = !m.ir.errors.empty();
  return freeze<Z>(view_of(m), failed ? m.ir.errors.front().kind : diag::error_kind::none,
                   failed ? m.ir.errors.front().message.view() : detail::string_view{});
}

// The same plan in arrays of its exact sizes Z (== big.used): a copy, no pass runs.
template <plan_sizes Z, plan_sizes B>
constexpr frozen_plan<Z> shrink(const frozen_plan<B>& big) {
  return freeze<Z>(big.view(), big.error, big.message.view());
}

}  // namespace streamdsl
