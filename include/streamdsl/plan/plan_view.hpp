#pragma once
// A read-only view of a plan with the queries tests and executors use:
// sd::program(...).plan() returns one, usable in static_assert.
#include "../detail/dyn_array.hpp"
#include "../detail/string_view.hpp"
#include "../detail/text.hpp"
#include "../diag/error.hpp"
#include "../ir/program_view.hpp"
#include "../ir/render.hpp"
#include "plan_arrays.hpp"
#include "plan_types.hpp"
#include "workspace_layout.hpp"

namespace streamdsl {

namespace detail {
// Not constexpr: a query in a static_assert that names no stream or buffer of
// the plan stops the compile here, with the function's name as the message.
[[noreturn, gnu::cold]] inline void plan_query_names_no_such_stream(detail::string_view name) {
  throw plan_error((text() << "streamdsl: plan query names no stream of the plan: '" << name << "'").view());
}
[[noreturn, gnu::cold]] inline void plan_query_names_no_such_buffer(detail::string_view name) {
  throw plan_error((text() << "streamdsl: plan query names no buffer of the plan: '" << name << "'").view());
}
[[noreturn, gnu::cold]] inline void plan_query_names_no_such_wait(detail::string_view stream, std::size_t n,
                                                                  std::size_t waits) {
  throw plan_error((text() << "streamdsl: plan query asks for wait " << n << " on stream '" << stream
                           << "', which has " << waits << " waits (counted from 0, edges left out)")
                       .view());
}
}  // namespace detail

struct plan_view {
  ir::program_view ir;
#define STREAMDSL_MEMBER(type, member) detail::array_view<type> member;
  STREAMDSL_PLAN_ARRAYS(STREAMDSL_MEMBER)
#undef STREAMDSL_MEMBER
  // The first error of a plan scheduled at run time (empty: the plan is
  // valid). A compile-time plan with an error does not compile at all.
  detail::string_view error{};

  constexpr bool valid() const { return error.empty(); }

  // --- lookups by name (-1 when absent) --------------------------------------
  constexpr std::int32_t stream_id(detail::string_view name) const {
    for (std::size_t s = 0; s < ir.streams.size(); ++s)
      if (ir.name(ir.streams[s].name) == name) return static_cast<std::int32_t>(s);
    return -1;
  }
  constexpr std::int32_t buffer_id(detail::string_view name) const {
    for (std::size_t b = 0; b < ir.buffers.size(); ++b)
      if (ir.name(ir.buffers[b].name) == name) return static_cast<std::int32_t>(b);
    return -1;
  }
  constexpr std::int32_t event_id(detail::string_view name) const {
    for (std::size_t e = 0; e < ir.events.size(); ++e)
      if (ir.name(ir.events[e].name) == name) return static_cast<std::int32_t>(e);
    return -1;
  }

  // The same, for queries that take a name: a misspelt name is an error
  // (a compile error in a static_assert), never a count of zero.
  constexpr std::int32_t known_stream(detail::string_view name) const {
    const auto s = stream_id(name);
    if (s < 0) detail::plan_query_names_no_such_stream(name);
    return s;
  }
  constexpr std::int32_t known_buffer(detail::string_view name) const {
    const auto b = buffer_id(name);
    if (b < 0) detail::plan_query_names_no_such_buffer(name);
    return b;
  }

  // --- counts ---------------------------------------------------------------
  constexpr std::size_t stream_count() const { return ir.streams.size(); }
  constexpr std::size_t kernel_count() const { return kernels.size(); }
  constexpr std::size_t kernel_count(detail::string_view stream) const {
    std::size_t n = 0;
    const auto s = known_stream(stream);
    for (const auto& k : kernels) n += k.stream == s;
    return n;
  }
  // Records and waits on a stream, entry and exit edges not counted.
  constexpr std::size_t records(detail::string_view stream) const {
    return count_syncs(op_kind::record, stream);
  }
  constexpr std::size_t waits(detail::string_view stream) const { return count_syncs(op_kind::wait, stream); }
  constexpr std::size_t sync_count() const {
    std::size_t n = 0;
    for (const auto& op : ops) n += (op.kind == op_kind::record || op.kind == op_kind::wait) && !is_edge(op);
    return n;
  }
  // Steps (copies, ...) issued, on all streams.
  constexpr std::size_t step_count() const {
    std::size_t n = 0;
    for (const auto& op : ops) n += op.kind == op_kind::step;
    return n;
  }
  constexpr std::size_t edge_count(sync_role role) const {
    std::size_t n = 0;
    for (const auto& op : ops) n += op.kind == op_kind::wait && op.role == role;
    return n;
  }
  // Elementwise statements that run on a stream (after any moves).
  constexpr std::size_t statements(detail::string_view stream) const {
    std::size_t n = 0;
    const auto s = known_stream(stream);
    for (const auto& k : kernels)
      if (k.stream == s) n += static_cast<std::size_t>(k.count);
    return n;
  }
  // The kernels launch k covers (see kernel_info::segments): k, k + 1, ...
  constexpr std::size_t segments_of(std::size_t k) const {
    return static_cast<std::size_t>(kernels[k].segments);
  }
  // Launches issued (a kernel op each), on all streams.
  constexpr std::size_t launch_count() const {
    std::size_t n = 0;
    for (const auto& op : ops) n += op.kind == op_kind::kernel;
    return n;
  }
  constexpr detail::array_view<std::int32_t> kernel_statements(std::size_t k) const {
    return kernel_stmts.subspan(static_cast<std::size_t>(kernels[k].first),
                                static_cast<std::size_t>(kernels[k].count));
  }
  // The kernel that computes `buffer` (its last writer), or -1.
  constexpr std::int32_t kernel_writing(detail::string_view buffer) const {
    std::int32_t found = -1;
    const auto b = known_buffer(buffer);
    for (std::size_t k = 0; k < kernels.size(); ++k)
      for (auto i : kernel_statements(k))
        if (ir.stmts[i].target == b) found = static_cast<std::int32_t>(k);
    return found;
  }
  // Where a buffer lives: storage_bound, storage_register or a slot index.
  constexpr std::int32_t storage_of(detail::string_view buffer) const {
    return storage[static_cast<std::size_t>(known_buffer(buffer))];
  }
  constexpr std::size_t slot_count() const { return slots.size(); }
  // Whether any buffer, param or expression node has (or computes in) type t.
  constexpr bool uses_type(dtype t) const {
    for (const auto& b : ir.buffers)
      if (b.type == t) return true;
    for (const auto& q : ir.params)
      if (q.type == t) return true;
    for (const auto& n : ir.nodes)
      if (n.type == t || n.compute == t) return true;
    return false;
  }
  // Workspace bytes for temps, given each domain's extent (256-byte aligned
  // slots; workspace_layout.hpp), or workspace_too_large when they overflow.
  constexpr std::size_t workspace_bytes(detail::array_view<std::size_t> domain_extents) const {
    return lay_out_workspace(slots, domain_extents);
  }
  constexpr std::size_t note_count() const { return notes.size(); }
  constexpr detail::string_view note(std::size_t i) const { return ir.name(notes[i]); }
  constexpr bool has_note(detail::string_view part) const {
    for (const auto& n : notes)
      if (detail::contains(ir.name(n), part)) return true;
    return false;
  }

  // --- which record a wait binds to, and one stream's sequence -------------
  // (for tests and printing, never hot: cold, as the dump is)
  // Per op, the number that tells the records of one event apart: for the
  // k-th record of an event recorded more than once, k (from 1, in issue
  // order, which is program order); for a wait, the number of the record it
  // waits for; 0 for kernels, edges and the records and waits of an event
  // recorded once (nothing to tell apart). The dump prints "record e#2" and
  // "wait e#2" with it.
  [[gnu::cold]] constexpr detail::dyn_array<std::int32_t> record_numbers() const {
    detail::dyn_array<std::int32_t> number(ops.size(), 0);
    detail::dyn_array<std::int32_t> records_of_event(ir.events.size(), 0);
    for (std::size_t i = 0; i < ops.size(); ++i)
      if (ops[i].kind == op_kind::record && !is_edge(ops[i]))
        number[i] = ++records_of_event[static_cast<std::size_t>(ops[i].event)];
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].kind == op_kind::record && !is_edge(ops[i]) &&
          records_of_event[static_cast<std::size_t>(ops[i].event)] == 1)
        number[i] = 0;
      if (ops[i].kind == op_kind::wait && !is_edge(ops[i]))
        number[i] = number[static_cast<std::size_t>(ops[i].waits_for)];
    }
    return number;
  }
  // A record or wait as the sequence and the dump name it: "record e",
  // "wait e#2" (`number` from record_numbers()).
  [[gnu::cold]] constexpr void name_sync(const plan_op& op, std::int32_t number, detail::text& t) const {
    t << (op.kind == op_kind::record ? "record " : "wait ") << ir.event_name(op.event);
    if (number > 0) t << '#' << number;
  }
  // The kernels, records and waits of one stream in issue order, entry and
  // exit edges left out (as records() and waits() leave them out), e.g.
  // "wait e#1, k1, wait e#2, k2". Compare with .view() == "...".
  [[gnu::cold]] constexpr detail::text sequence(detail::string_view stream) const {
    const auto s = known_stream(stream);
    const auto number = record_numbers();
    detail::text t;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const auto& op = ops[i];
      if (op.stream != s || is_edge(op)) continue;
      if (t.size() > 0) t << ", ";
      if (op.kind == op_kind::kernel)
        t << 'k' << op.kernel;
      else if (op.kind == op_kind::step)
        ir::render_statement(ir, ir.stmts[op.stmt], t);
      else
        name_sync(op, number[i], t);
    }
    return t;
  }
  // The record the n-th wait on `stream` (from 0, edges left out) waits for,
  // e.g. "record e#2 on side".
  [[gnu::cold]] constexpr detail::text wait_binds_to(detail::string_view stream, std::size_t n) const {
    const auto s = known_stream(stream);
    const auto number = record_numbers();
    std::size_t seen = 0;
    for (const auto& op : ops) {
      if (op.kind != op_kind::wait || op.stream != s || is_edge(op) || seen++ != n) continue;
      const auto r = static_cast<std::size_t>(op.waits_for);
      detail::text t;
      name_sync(ops[r], number[r], t);
      t << " on " << ir.stream_name(ops[r].stream);
      return t;
    }
    detail::plan_query_names_no_such_wait(stream, n, seen);
  }

  static constexpr bool is_edge(const plan_op& op) {
    return op.role == sync_role::entry || op.role == sync_role::exit;
  }

 private:
  constexpr std::size_t count_syncs(op_kind kind, detail::string_view stream) const {
    std::size_t n = 0;
    const auto s = known_stream(stream);
    for (const auto& op : ops) n += op.kind == kind && op.stream == s && !is_edge(op);
    return n;
  }
};

// The sizes of a plan's arrays.
constexpr plan_sizes sizes_of(const plan_view& v) {
  plan_sizes z;
#define STREAMDSL_SIZE_IR(type, member) z.member = v.ir.member.size();
#define STREAMDSL_SIZE(type, member) z.member = v.member.size();
  STREAMDSL_PROGRAM_ARRAYS(STREAMDSL_SIZE_IR)
  STREAMDSL_PLAN_ARRAYS(STREAMDSL_SIZE)
#undef STREAMDSL_SIZE_IR
#undef STREAMDSL_SIZE
  return z;
}

}  // namespace streamdsl
