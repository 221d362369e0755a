#pragma once
// Batching: independent matmuls of one shape become one matmul step (a
// batch, ir::matmul_member_of), which the CUDA executor issues as one
// strided-batched cublasLtMatmul when the bound buffers allow it
// (backend/cuda/matmul.hpp) and the host executor as its members' loops.
// Measured on the H200 (docs/benchmarks.md, issue 14): 64 bf16 products of
// 512^3 as one strided-batched call ran 3.78x faster than the same products
// as a 4-stream graph, 1.65x at 1024^3, 1.54x at 256x4096x1024.
//
// Candidates: the matmuls ir::matmul_batchable admits (no epilogue, not
// FP8, three distinct buffers: a, b and c differ). A group's members have
// the same mode (transposes, TF32), the same operand and product types and
// the same domains (so the same extents once bound), and no buffer appears
// in two members.
//
// Independence, and why the contracted plan keeps its meaning: the members
// are placed at the first member's position, on its stream, as one
// statement; the others are removed. A matmul at position p joins the
// group whose first member is at f < p only when no statement in (f, p)
// conflicts with it (writes what it reads, or touches what it writes; per
// buffer, whatever the regions). Then every conflicting pair of statements
// keeps its program order: a moved member x (from p_x to its group's f_x <=
// p_x) and any y it conflicts with: if y comes first, y lies before f_x (the
// join rule), and if y is moved too it moves to f_y <= p_y < f_x; if y comes
// after, f_x <= p_x < p_y, and if y is moved its own conflicts (x among
// them) lie before f_y. So the members are an antichain of the data
// dependences (no path between two of them: a path's last step into a
// member would be a conflict inside its window), contracting an antichain
// keeps the dependences acyclic, and the program order of the contracted
// program is one of their linear extensions: its sequential meaning is the
// written program's. Syncs are not moved: sync insertion (which runs after
// this pass, under sd::automatic and, when a batch was made, under
// sd::checked too, keeping the user's records and waits) puts the waits
// the batch's reads need before it on its stream and records after it for
// every later reader or writer of its products on another stream. The
// plan stays one sequence in which each wait follows its record, so no
// stream waits for work issued after it (no deadlock: the host executor's
// threads and the GPU's streams run a linear extension of it).
//
// A program order scan, linear in statements (and in the distinct
// shapes open at once): per buffer the last statement that wrote it and the
// last that touched it; per shape key the open group (a later matmul of the
// key that cannot join starts the key's next group).
// Not under sd::as_written (nothing moves), sd::unchecked (no sync analysis
// to order the moved members) or sd::no_batching.
#include "../detail/dyn_array.hpp"
#include "../detail/text.hpp"
#include "../ir/accesses.hpp"
#include "../ir/render.hpp"
#include "../plan/plan_model.hpp"
#include "erase_statements.hpp"
#include "options.hpp"

namespace streamdsl::passes {

namespace batch_matmuls_detail {

// A matmul's group: its first member, and the members in program order
// (linked through `next`).
struct group {
  std::int32_t first = -1, last = -1, count = 0;
  std::int32_t mode = 0, a_type = 0, c_type = 0, a_domain = -1, b_domain = -1, c_domain = -1;
};

// The groups of program p: per statement its group (-1: none) and the next
// member of its group (-1: the last); groups of one member are dropped.
struct grouping {
  detail::dyn_array<group> groups;
  detail::dyn_array<std::int32_t> group_of, next;
  std::size_t batches = 0;  // groups of two or more members
};

template <class = void>
constexpr grouping find_groups(const ir::program& p) {
  const auto v = ir::view_of(p);
  const auto n = static_cast<std::int32_t>(p.stmts.size());
  grouping g;
  if (!ir::has_matmul(p.stmts)) return g;  // the common case: nothing allocated, nothing to scan
  g.group_of = detail::dyn_array<std::int32_t>(p.stmts.size(), -1);
  g.next = detail::dyn_array<std::int32_t>(p.stmts.size(), -1);
  detail::dyn_array<std::int32_t> last_write(p.buffers.size(), -1), last_touch(p.buffers.size(), -1);
  detail::dyn_array<std::int32_t> member_of(p.buffers.size(), -1);  // the group using the buffer
  detail::dyn_array<std::int32_t> open;                             // per key, its open group
  for (std::int32_t i = 0; i < n; ++i) {
    const auto& s = p.stmts[static_cast<std::size_t>(i)];
    if (s.kind > ir::stmt_kind::step) continue;
    if (ir::matmul_batchable(v, s)) {
      const auto o = ir::matmul_operands_of(v, s);
      const auto c = s.target;
      const auto& ba = p.buffers[static_cast<std::size_t>(o.a)];
      group key;
      key.mode = s.matmul_mode;
      key.a_type = static_cast<std::int32_t>(ba.type);
      key.c_type = static_cast<std::int32_t>(p.buffers[static_cast<std::size_t>(c)].type);
      key.a_domain = ba.domain;
      key.b_domain = p.buffers[static_cast<std::size_t>(o.b)].domain;
      key.c_domain = p.buffers[static_cast<std::size_t>(c)].domain;
      const bool same_b_type = p.buffers[static_cast<std::size_t>(o.b)].type == ba.type;
      // The latest conflicting statement before i.
      std::int32_t bound = last_touch[static_cast<std::size_t>(c)];
      if (last_write[static_cast<std::size_t>(o.a)] > bound)
        bound = last_write[static_cast<std::size_t>(o.a)];
      if (last_write[static_cast<std::size_t>(o.b)] > bound)
        bound = last_write[static_cast<std::size_t>(o.b)];
      std::size_t slot = open.size();
      for (std::size_t k = 0; k < open.size(); ++k) {
        const auto& h = g.groups[static_cast<std::size_t>(open[k])];
        if (h.mode == key.mode && h.a_type == key.a_type && h.c_type == key.c_type &&
            h.a_domain == key.a_domain && h.b_domain == key.b_domain && h.c_domain == key.c_domain) {
          slot = k;
          break;
        }
      }
      bool joined = false;
      if (slot < open.size() && same_b_type) {
        const auto gid = open[slot];
        auto& h = g.groups[static_cast<std::size_t>(gid)];
        const bool shares = member_of[static_cast<std::size_t>(o.a)] == gid ||
                            member_of[static_cast<std::size_t>(o.b)] == gid ||
                            member_of[static_cast<std::size_t>(c)] == gid;
        if (bound < h.first && !shares) {
          g.next[static_cast<std::size_t>(h.last)] = i;
          h.last = i;
          ++h.count;
          g.group_of[static_cast<std::size_t>(i)] = gid;
          joined = true;
        }
      }
      if (!joined && same_b_type) {
        const auto gid = static_cast<std::int32_t>(g.groups.size());
        key.first = key.last = i;
        key.count = 1;
        g.groups.push_back(key);
        g.group_of[static_cast<std::size_t>(i)] = gid;
        if (slot < open.size())
          open[slot] = gid;
        else
          open.push_back(gid);
      }
      if (g.group_of[static_cast<std::size_t>(i)] >= 0) {
        const auto gid = g.group_of[static_cast<std::size_t>(i)];
        member_of[static_cast<std::size_t>(o.a)] = gid;
        member_of[static_cast<std::size_t>(o.b)] = gid;
        member_of[static_cast<std::size_t>(c)] = gid;
      }
    }
    for (const auto& r : ir::reads_of(v, s)) last_touch[static_cast<std::size_t>(r.buffer)] = i;
    for (const auto& r : ir::writes_of(v, s)) {
      last_touch[static_cast<std::size_t>(r.buffer)] = i;
      last_write[static_cast<std::size_t>(r.buffer)] = i;
    }
  }
  for (std::int32_t i = 0; i < n; ++i) {
    const auto gid = g.group_of[static_cast<std::size_t>(i)];
    if (gid >= 0 && g.groups[static_cast<std::size_t>(gid)].count < 2)
      g.group_of[static_cast<std::size_t>(i)] = -1;
  }
  for (const auto& h : g.groups) g.batches += h.count >= 2;
  return g;
}

}  // namespace batch_matmuls_detail

// Whether schedule runs batch_matmuls under options o.
template <class = void>
constexpr bool batches_matmuls(options o) {
  return o.batching && o.sync != sync_policy::unchecked && o.placement != placement_policy::as_written;
}

// How many batches batch_matmuls makes of program p (0: it changes nothing).
template <class = void>
constexpr std::size_t count_matmul_batches(const ir::program& p) {
  return batch_matmuls_detail::find_groups(p).batches;
}

// Contracts each group into its first member; returns how many batches it
// made. A note per batch names its members, its stream and the rule that
// decides, once bound, how it runs (ir::matmul_batch_rule).
template <class = void>
constexpr std::size_t batch_matmuls(plan_model& m) {
  using namespace batch_matmuls_detail;
  auto& p = m.ir;
  const auto g = find_groups(p);
  if (g.batches == 0) return 0;
  detail::dyn_array<bool> drop(p.stmts.size(), false);
  for (std::size_t gi = 0; gi < g.groups.size(); ++gi) {
    const auto& h = g.groups[gi];
    if (h.count < 2) continue;
    const auto view = ir::view_of(p);
    const auto member = [&](std::int32_t i, detail::text& out) {
      const auto& s = p.stmts[static_cast<std::size_t>(i)];
      out << '#' << (s.origin >= 0 ? s.origin : i) << " `" << ir::statement_text(view, s).view() << '`';
    };
    detail::text note;
    note << "batch: " << h.count << " independent matmuls (";
    member(h.first, note);
    note << " ... ";
    member(h.last, note);
    note << ") as one step on stream '" << view.stream_name(p.stmts[static_cast<std::size_t>(h.first)].stream)
         << "'; rule: " << ir::matmul_batch_rule;
    m.note(note);
    // The first member's accesses anew: (a_j, b_j) pairs, then c_j.
    const auto first_access = static_cast<std::int32_t>(p.accesses.size());
    for (std::int32_t j = h.first; j >= 0; j = g.next[static_cast<std::size_t>(j)]) {
      const auto o = ir::matmul_operands_of(ir::view_of(p), p.stmts[static_cast<std::size_t>(j)]);
      p.accesses.push_back(ir::whole(o.a));
      p.accesses.push_back(ir::whole(o.b));
    }
    for (std::int32_t j = h.first; j >= 0; j = g.next[static_cast<std::size_t>(j)]) {
      p.accesses.push_back(ir::whole(p.stmts[static_cast<std::size_t>(j)].target));
      if (j != h.first) drop[static_cast<std::size_t>(j)] = true;
    }
    auto& head = p.stmts[static_cast<std::size_t>(h.first)];
    head.accesses_first = first_access;
    head.reads_count = 2 * h.count;
    head.writes_count = h.count;
  }
  erase_statements(p, drop);
  return g.batches;
}

// Growth bound (passes/schedule.hpp's bounds_of): each batch lists its
// members' accesses anew (three per member), and only in programs it
// batches. Its notes are counted by notes_bound (a note per batch, which
// removes a statement at least).
template <class = void>
constexpr plan_sizes batch_matmuls_bound(plan_sizes z, const ir::program& p) {
  if (!ir::has_matmul(p.stmts)) return z;
  std::size_t matmuls = 0;
  for (const auto& s : p.stmts) matmuls += s.kind == ir::stmt_kind::step && s.code == ir::step_code::matmul;
  z.accesses += 3 * matmuls;
  return z;
}

}  // namespace streamdsl::passes
