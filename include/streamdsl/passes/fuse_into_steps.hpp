#pragma once
// Fusion into reductions and scans: a temp computed by one elementwise
// statement and read by nothing but one reduction or scan becomes that
// step's input, so `t = x * y; s = sd::sum(t);` runs as `s = sd::sum(x * y)`:
// x and y are read once and t is never stored (the step's backends evaluate
// their expression per element: a transform iterator or a fused kernel on
// the GPU, a block loop on the host).
//
// The producer W (`t = e`) is moved into the step S when
//   - t is a temp that W writes whole, and no other statement writes it;
//   - S reads t whole (every load of it), and no other statement reads it;
//   - e is over t's domain (not a broadcast 0-d value: that would change the
//     shape the step iterates) and does not read t;
//   - nothing after W in program order writes a region e reads, so e gives
//     the same values at S as at W (writes before W are ordered before W in
//     a race-free program, hence before S).
// Streams do not matter: W happens before S (S reads what W wrote), so
// what W read is ordered before S too. Each load of t in S becomes e (a
// cast of e to t's type where they differ: the node is rewritten in place,
// no node is added); S's accesses are listed anew; W is removed with a note.
// Under sd::as_written (nothing moves) and sd::no_fusion the pass does not run.
#include "../detail/dyn_array.hpp"
#include "../detail/text.hpp"
#include "../ir/accesses.hpp"
#include "../ir/describe.hpp"
#include "../plan/plan_model.hpp"
#include "erase_statements.hpp"

namespace streamdsl::passes {

namespace fuse_into_steps_detail {

// Whether every load of `buffer` under `root` reads it whole, counting them.
template <class = void>
constexpr bool loads_whole(const ir::program& p, std::int32_t root, std::int32_t buffer, int& loads) {
  detail::dyn_array<std::int32_t> stack{root};
  while (!stack.empty()) {
    const auto& n = p.nodes[static_cast<std::size_t>(stack.back())];
    stack.pop_back();
    if (n.code == ir::op::load && n.ref == buffer) {
      if (n.parts != 1) return false;
      ++loads;
    }
    if (n.a >= 0) stack.push_back(n.a);
    if (n.b >= 0) stack.push_back(n.b);
    if (n.c >= 0) stack.push_back(n.c);
  }
  return true;
}

// Rewrites each load of `buffer` under `root` into the producer's value.
template <class = void>
constexpr void substitute(ir::program& p, std::int32_t root, std::int32_t buffer, std::int32_t value) {
  const auto type = p.buffers[static_cast<std::size_t>(buffer)].type;
  detail::dyn_array<std::int32_t> stack{root};
  while (!stack.empty()) {
    const auto id = stack.back();
    stack.pop_back();
    auto& n = p.nodes[static_cast<std::size_t>(id)];
    if (n.code == ir::op::load && n.ref == buffer) {
      const auto& v = p.nodes[static_cast<std::size_t>(value)];
      if (v.type == type) {
        n = v;  // the producer's node, sharing its operands
      } else {
        ir::expr_node cast{};
        cast.code = ir::op::cast;
        cast.type = cast.compute = type;
        cast.a = value;
        cast.domain = v.domain;
        cast.parts = v.parts;
        n = cast;
      }
      continue;
    }
    if (n.a >= 0) stack.push_back(n.a);
    if (n.b >= 0) stack.push_back(n.b);
    if (n.c >= 0) stack.push_back(n.c);
  }
}

}  // namespace fuse_into_steps_detail

template <class = void>
constexpr void fuse_into_steps(plan_model& m) {
  using namespace fuse_into_steps_detail;
  auto& p = m.ir;
  const auto n = static_cast<std::int32_t>(p.stmts.size());
  bool any = false;
  for (const auto& s : p.stmts) any = any || (s.kind == ir::stmt_kind::step && ir::reads_expression(s.code));
  if (!any) return;  // the common case: nothing to scan

  // Per temp: its one writer (an assign writing it whole) and its one
  // reader, or -2 when there are several (or another kind of access).
  detail::dyn_array<std::int32_t> writer(p.buffers.size(), -1), reader(p.buffers.size(), -1);
  auto note_access = [](std::int32_t& who, std::int32_t i, bool fits) { who = who == -1 && fits ? i : -2; };
  for (std::int32_t i = 0; i < n; ++i) {
    const auto& s = p.stmts[i];
    if (!ir::accesses_buffers(s.kind)) continue;
    const auto view = ir::view_of(p);
    for (const auto& r : ir::reads_of(view, s))
      if (p.buffers[r.buffer].kind == ir::access::temp)
        note_access(reader[r.buffer], i, s.kind == ir::stmt_kind::step && ir::reads_expression(s.code));
    for (const auto& r : ir::writes_of(view, s))
      if (p.buffers[r.buffer].kind == ir::access::temp)
        note_access(writer[r.buffer], i, s.kind == ir::stmt_kind::assign && ir::is_whole(r));
  }

  detail::dyn_array<bool> drop(p.stmts.size(), false);
  detail::dyn_array<bool> fused(p.stmts.size(), false);  // per step: some producer moved into it
  // The temps whose producers move, substituted only once every note is
  // written, so that each note quotes the step as the user wrote it.
  detail::dyn_array<bool> moves(p.buffers.size(), false);
  for (std::int32_t t = 0; t < static_cast<std::int32_t>(p.buffers.size()); ++t) {
    const auto w = writer[t], r = reader[t];
    if (w < 0 || r < 0 || w >= r) continue;
    const auto& producer = p.stmts[w];
    const auto& value = p.nodes[static_cast<std::size_t>(producer.root)];
    int loads = 0;
    if (value.domain != p.buffers[t].domain || !loads_whole(p, p.stmts[r].root, t, loads)) continue;
    const auto view = ir::view_of(p);
    const auto reads = ir::reads_of(view, producer);
    bool stable = true;
    for (const auto& x : reads) stable = stable && x.buffer != t;
    // The step itself may write what the producer reads (`t = s * x;
    // s = sd::sum(t)`): it reads every value before it writes.
    for (std::int32_t j = w + 1; j < n && stable; ++j) {
      if (j == r || !ir::accesses_buffers(p.stmts[j].kind) || drop[static_cast<std::size_t>(j)]) continue;
      for (const auto& out : ir::writes_of(view, p.stmts[j]))
        for (const auto& x : reads) stable = stable && !ir::overlaps(out, x);
    }
    if (!stable) continue;

    detail::text note;
    note << "fusion: temp '" << view.buffer_name(t) << "' is computed inside ";
    ir::describe_statement(view, r, note);
    note << " and never stored (";
    ir::describe_statement(view, w, note);
    note << " moved into it: its only reader)";
    m.note(note);
    moves[static_cast<std::size_t>(t)] = true;
    drop[static_cast<std::size_t>(w)] = true;
    fused[static_cast<std::size_t>(r)] = true;
  }
  for (std::int32_t t = 0; t < static_cast<std::int32_t>(p.buffers.size()); ++t)
    if (moves[static_cast<std::size_t>(t)])
      substitute(p, p.stmts[reader[t]].root, t, p.stmts[writer[t]].root);
  // Each fused step's accesses anew, once: its expression's reads, then its target.
  for (std::int32_t r = 0; r < n; ++r) {
    if (!fused[static_cast<std::size_t>(r)]) continue;
    auto& step = p.stmts[r];
    const auto target = ir::target_of(ir::view_of(p), step);
    step.accesses_first = static_cast<std::int32_t>(p.accesses.size());
    ir::collect_reads(p.nodes, step.root, p.accesses, p.accesses.size());
    step.reads_count = static_cast<std::int32_t>(p.accesses.size()) - step.accesses_first;
    p.accesses.push_back(target);
  }
  erase_statements(p, drop);
}

// Growth bound (passes/schedule.hpp's bounds_of): each fused step lists its
// accesses anew once, its own and its producers' at most (each producer
// moves into one step): at most the program's accesses again, and only in programs with a reduction
// or scan. Its notes are counted by notes_bound (a note per removed statement).
template <class = void>
constexpr plan_sizes fuse_into_steps_bound(plan_sizes z, const ir::program& p) {
  bool any = false;
  for (const auto& s : p.stmts) any = any || (s.kind == ir::stmt_kind::step && ir::reads_expression(s.code));
  if (any) z.accesses += z.accesses;
  return z;
}

}  // namespace streamdsl::passes
