#pragma once
// Row groups: a run of consecutive ops of one stream, with no sync between
// them, made of reductions along the last axis of one product domain P
// (sd::max(x, cols), sd::sum(e, cols), ...: min, max, sum, mean, norm,
// argmax; scans stay alone) and kernels over P or over P's rows' domain, is
// marked as one group (plan_op::group) when it holds at least one reduction.
// The ops, their statements and the memory plan stay as they are: the host
// executor runs a group's ops one after another as before, so the semantics
// are the ops' own, and the CUDA executor runs the whole group as one kernel
// (backend/cuda/row_group.cuh: a block per row, the members one after
// another over that row, __syncthreads between them).
//
// That kernel runs member m of row r before member m + 1 of row r, but not
// before member m + 1 of another row; so a group holds only ops whose
// element of row r depends on row r alone:
//   - a reduction: along P's columns, over all of P (not a chunk), writing a
//     whole buffer over P's rows;
//   - a kernel over P (launched alone, not over chunks): its statements
//     write whole buffers over P;
//   - a kernel over P's rows: its statements write whole buffers over the
//     rows;
//   - every region a member reads is whole and over P, P's rows, P's columns
//     (a row read by every row: never written in a group, as members write
//     over P or its rows only) or 0-d (never written in a group either);
//     a kernel over the rows reads only the rows' buffers and 0-d ones;
//   - P's rows and columns are two domains (a square matrix's rank-1 value
//     reads as a row of it: element r of a column would be read by every row).
// Temps in workspace slots share a slot only within one domain and element
// size (memory_plan.hpp), so element r of a reused slot is row r's alone.
// Under sd::no_fusion and sd::as_written the pass does not run.
#include "../detail/dyn_array.hpp"
#include "../ir/accesses.hpp"
#include "../ir/describe.hpp"
#include "../ir/shape.hpp"
#include "../plan/plan_model.hpp"
#include "erase_statements.hpp"
#include "fuse_into_steps.hpp"

namespace streamdsl::passes {

namespace row_groups_detail {

enum class member : std::uint8_t { none, reduction, matrix_kernel, rows_kernel };

// Whether every region of `s` reads and writes rows of P as stated above.
template <class = void>
constexpr bool row_local(const ir::program_view& p, const ir::statement& s, std::int32_t product,
                         std::int32_t written, bool rows_only) {
  const auto& d = p.domains[static_cast<std::size_t>(product)];
  for (const auto& r : ir::reads_of(p, s)) {
    if (!ir::is_whole(r)) return false;
    const auto dom = p.buffers[static_cast<std::size_t>(r.buffer)].domain;
    const bool fits =
        rows_only ? dom == d.outer || dom < 0 : dom == product || dom == d.outer || dom == d.inner || dom < 0;
    if (!fits) return false;
  }
  for (const auto& w : ir::writes_of(p, s))
    if (!ir::is_whole(w) || p.buffers[static_cast<std::size_t>(w.buffer)].domain != written) return false;
  return true;
}

// What op `op` can be in a group over product domain `product` (-1: the
// product it would join over is its own, returned in `product`).
template <class = void>
constexpr member member_of(const plan_model& m, const ir::program_view& p, const plan_op& op,
                           std::int32_t& product) {
  if (op.kind == op_kind::step) {
    const auto& s = p.stmts[static_cast<std::size_t>(op.stmt)];
    if (ir::info(s.code).form != ir::step_form::reduction || s.axis < 0) return member::none;
    const auto shape = ir::shape_of_step(p, s);
    if (shape.parts != 1 || shape.domain < 0) return member::none;
    const auto& d = p.domains[static_cast<std::size_t>(shape.domain)];
    if (!ir::is_product(d) || d.inner != s.axis || d.inner == d.outer) return member::none;
    if (product >= 0 && product != shape.domain) return member::none;
    if (!row_local(p, s, shape.domain, d.outer, false)) return member::none;
    product = shape.domain;
    return member::reduction;
  }
  if (op.kind != op_kind::kernel) return member::none;
  const auto& k = m.kernels[static_cast<std::size_t>(op.kernel)];
  if (k.segments != 1 || k.parts != 1 || k.domain < 0) return member::none;
  const auto& kd = p.domains[static_cast<std::size_t>(k.domain)];
  member kind = member::none;
  if (ir::is_product(kd)) {
    if (kd.inner == kd.outer || (product >= 0 && product != k.domain)) return member::none;
    kind = member::matrix_kernel;
  } else {
    if (product < 0 || p.domains[static_cast<std::size_t>(product)].outer != k.domain) return member::none;
    kind = member::rows_kernel;
  }
  const auto over = kind == member::matrix_kernel ? k.domain : product;
  const auto stmts = m.kernel_stmts.data() + k.first;
  for (std::int32_t i = 0; i < k.count; ++i)
    if (!row_local(p, p.stmts[static_cast<std::size_t>(stmts[i])], over, k.domain,
                   kind == member::rows_kernel))
      return member::none;
  product = over;
  return kind;
}

}  // namespace row_groups_detail

// Matrix temps inside a row: a temp over a product domain P written whole by
// one elementwise statement W (`e = sd::exp(x - top)`) and read only by later
// statements of W's stream that are reductions along P's columns or
// statements over P (`total = sd::sum(e, cols); y = e / total`), one of them a
// reduction, is recomputed in each reader instead of stored (each load of it
// becomes W's expression, a cast where the types differ, as fuse_into_steps
// does), and W is removed with a note: the row group those readers form then
// reads the matrix, not a stored copy. As in fuse_into_steps, nothing after W
// may write what W's expression reads (but the last reader, which reads
// each element before it writes it), the readers read the temp whole and
// W's expression is over P. Runs on the IR, before fusion and placement.
template <class = void>
constexpr void inline_row_temps(plan_model& m) {
  auto& p = m.ir;
  if (!ir::has_product(p.domains)) return;
  const auto n = static_cast<std::int32_t>(p.stmts.size());
  detail::dyn_array<bool> drop(p.stmts.size(), false), redo(p.stmts.size(), false);
  detail::dyn_array<std::int32_t> writer(p.buffers.size(), -1), reader_last(p.buffers.size(), -1);
  detail::dyn_array<bool> fits(p.buffers.size(), true), reduced(p.buffers.size(), false);
  for (std::int32_t i = 0; i < n; ++i) {
    const auto& s = p.stmts[i];
    if (!ir::accesses_buffers(s.kind)) continue;
    const auto view = ir::view_of(p);
    for (const auto& w : ir::writes_of(view, s)) {
      if (p.buffers[w.buffer].kind != ir::access::temp) continue;
      auto& who = writer[w.buffer];
      const bool whole_assign = s.kind == ir::stmt_kind::assign && ir::is_whole(w);
      if (who != -1 || !whole_assign) fits[w.buffer] = false;
      who = i;
    }
    for (const auto& r : ir::reads_of(view, s)) {
      const auto t = r.buffer;
      if (p.buffers[t].kind != ir::access::temp) continue;
      const auto w = writer[t];
      const auto domain = p.buffers[t].domain;
      if (w < 0 || p.stmts[w].stream != s.stream || domain < 0 || !ir::is_product(p.domains[domain])) {
        fits[t] = false;
        continue;
      }
      if (s.kind == ir::stmt_kind::step && ir::info(s.code).form != ir::step_form::reduction) {
        fits[t] = false;  // a copy, scan, matmul or call: no expression to rewrite
        continue;
      }
      int loads = 0;
      if (!fuse_into_steps_detail::loads_whole(p, s.root, t, loads)) fits[t] = false;
      if (s.kind == ir::stmt_kind::step) {
        const bool along = ir::info(s.code).form == ir::step_form::reduction &&
                           s.axis == p.domains[domain].inner && ir::shape_of_step(view, s).domain == domain &&
                           ir::shape_of_step(view, s).parts == 1;
        if (!along) fits[t] = false;
        reduced[t] = reduced[t] || along;
      } else {
        const auto target = ir::target_of(view, s);
        if (!ir::is_whole(target) || p.buffers[target.buffer].domain != domain) fits[t] = false;
      }
      reader_last[t] = i;
    }
  }
  detail::dyn_array<bool> moves(p.buffers.size(), false);
  for (std::int32_t t = 0; t < static_cast<std::int32_t>(p.buffers.size()); ++t) {
    const auto w = writer[t], last = reader_last[t];
    if (!fits[t] || !reduced[t] || w < 0 || last <= w) continue;
    const auto& producer = p.stmts[w];
    if (p.nodes[static_cast<std::size_t>(producer.root)].domain != p.buffers[t].domain) continue;
    const auto view = ir::view_of(p);
    const auto reads = ir::reads_of(view, producer);
    bool stable = true;
    // Not when W reads another temp that could be recomputed (one level only:
    // each substitution then copies a tree that stays as it is).
    for (const auto& x : reads)
      stable = stable && x.buffer != t &&
               !(p.buffers[x.buffer].kind == ir::access::temp && fits[x.buffer] && reduced[x.buffer]);
    for (std::int32_t j = w + 1; j < n && stable; ++j) {
      if (j == last || !ir::accesses_buffers(p.stmts[j].kind) || drop[static_cast<std::size_t>(j)]) continue;
      for (const auto& out : ir::writes_of(view, p.stmts[j]))
        for (const auto& x : reads) stable = stable && !ir::overlaps(out, x);
    }
    if (!stable) continue;
    detail::text note;
    note << "row group: temp '" << view.buffer_name(t)
         << "' is recomputed in each of its readers, never stored (";
    ir::describe_statement(view, w, note);
    note << " removed)";
    m.note(note);
    moves[static_cast<std::size_t>(t)] = true;
    drop[static_cast<std::size_t>(w)] = true;
  }
  // Substituted only once every note is written (each quotes the program as written).
  for (std::int32_t t = 0; t < static_cast<std::int32_t>(p.buffers.size()); ++t) {
    if (!moves[static_cast<std::size_t>(t)]) continue;
    for (std::int32_t i = writer[t] + 1; i <= reader_last[t]; ++i) {
      const auto& s = p.stmts[i];
      if (!ir::accesses_buffers(s.kind)) continue;
      bool reads_t = false;
      for (const auto& r : ir::reads_of(ir::view_of(p), s)) reads_t = reads_t || r.buffer == t;
      if (!reads_t) continue;
      fuse_into_steps_detail::substitute(p, s.root, t, p.stmts[writer[t]].root);
      redo[static_cast<std::size_t>(i)] = true;
    }
  }
  // Each changed statement's accesses anew, once: its expression's reads, then its target.
  for (std::int32_t i = 0; i < n; ++i) {
    if (!redo[static_cast<std::size_t>(i)]) continue;
    auto& s = p.stmts[i];
    const auto target = ir::target_of(ir::view_of(p), s);
    s.accesses_first = static_cast<std::int32_t>(p.accesses.size());
    ir::collect_reads(p.nodes, s.root, p.accesses, p.accesses.size());
    s.reads_count = static_cast<std::int32_t>(p.accesses.size()) - s.accesses_first;
    p.accesses.push_back(target);
    s.writes_count = 1;
  }
  erase_statements(p, drop);
}

// Growth bound (passes/schedule.hpp's bounds_of): each changed statement
// lists its accesses anew once, its own and its producers' at most: at most
// the program's accesses again, and only in programs with a product domain.
// Its notes are counted by notes_bound (a note per removed statement).
template <class = void>
constexpr plan_sizes inline_row_temps_bound(plan_sizes z, const ir::program& p) {
  if (ir::has_product(p.domains)) z.accesses += z.accesses;
  return z;
}

template <class = void>
constexpr void join_row_groups(plan_model& m) {
  using namespace row_groups_detail;
  const auto p = ir::view_of(m.ir);
  if (!ir::has_product(p.domains)) return;
  const auto n = m.ops.size();
  std::size_t i = 0;
  while (i < n) {
    std::int32_t product = -1;
    const auto first = member_of(m, p, m.ops[i], product);
    if (first != member::reduction && first != member::matrix_kernel) {
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    int reductions = first == member::reduction ? 1 : 0;
    for (; j < n && m.ops[j].stream == m.ops[i].stream; ++j) {
      auto joined = product;
      const auto kind = member_of(m, p, m.ops[j], joined);
      if (kind == member::none) break;
      reductions += kind == member::reduction;
      product = joined;
    }
    if (reductions == 0 || j - i < 2) {
      ++i;
      continue;
    }
    m.ops[i].group = static_cast<std::int32_t>(j - i);
    for (std::size_t g = i + 1; g < j; ++g) m.ops[g].group = 0;
    i = j;
  }
}

// Growth bound (passes/schedule.hpp's bounds_of): none; the pass only marks ops.

}  // namespace streamdsl::passes
