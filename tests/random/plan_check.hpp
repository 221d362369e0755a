#pragma once
// Checks a scheduled plan without running it: every pair of conflicting
// memory accesses in the plan is ordered, in program order, by the plan's own
// happens-before (stream order of ops, record -> wait edges, entry and exit
// edges; the kernels of one launch run at once). Accesses are regions (whole buffers or chunks, by kernels
// and by steps such as copies); two conflict only where they share elements. Memory is what an executor
// touches: a bound buffer, a workspace slot (so two temps sharing a slot conflict), or a register temp (which
// must stay inside one kernel, or, for a temp used chunk by chunk, each chunk inside one kernel and each
// kernel on one chunk of one size: every kernel's registers hold its own chunk). This is stronger than
// running find_race on the scheduled statements: it checks the ops the executors follow, after fusion and
// memory planning, and it is written independently of the passes.
#include <cstdint>
#include <sstream>
#include <streamdsl/ir/render.hpp>
#include <streamdsl/plan/plan_view.hpp>
#include <string>
#include <vector>

#include "order_model.hpp"

namespace streamdsl::random_test {

// A matmul with a folded epilogue (passes/matmul_epilogue.hpp): the user's
// next statement on the user matmul `origin`'s stream, which it absorbed
// (the caller checks what that is); user.stmts.size() when there is none.
inline std::size_t folded_consumer(const ir::program& user, std::int32_t origin) {
  const auto stream = user.stmts[static_cast<std::size_t>(origin)].stream;
  std::size_t next = static_cast<std::size_t>(origin) + 1;
  while (next < user.stmts.size() && user.stmts[next].stream != stream) ++next;
  return next;
}
inline bool is_folded_matmul(const ir::statement& s) {
  return s.kind == ir::stmt_kind::step && s.code == ir::step_code::matmul &&
         (s.matmul_mode & ir::matmul_epilogue_bits) != 0;
}

// A reduction or scan may have run its producer inside it
// (passes/fuse_into_steps.hpp): the user's program with every temp whose
// writing statement the plan no longer runs replaced, in each expression
// that loads it, by that statement's expression (cast to the temp's type
// where they differ). Written here again, to compare statement texts.
inline ir::program with_inlined_producers(const ir::program& user, const plan_view& v) {
  std::vector<bool> present(user.stmts.size(), false);
  for (const auto& s : v.ir.stmts)
    if (s.origin >= 0 && static_cast<std::size_t>(s.origin) < user.stmts.size()) {
      present[static_cast<std::size_t>(s.origin)] = true;
      // A folded epilogue's consumer is not inlined anywhere: the matmul writes its target.
      const auto consumer = is_folded_matmul(s) ? folded_consumer(user, s.origin) : user.stmts.size();
      if (consumer < user.stmts.size()) present[consumer] = true;
    }
  ir::program out = user;
  for (std::size_t i = 0; i < user.stmts.size(); ++i) {
    const auto& w = user.stmts[i];
    if (w.kind != ir::stmt_kind::assign || present[i]) continue;
    const auto& temp = user.buffers[static_cast<std::size_t>(w.target)];
    if (temp.kind != ir::access::temp) continue;
    const auto value = user.nodes[static_cast<std::size_t>(w.root)];
    for (auto& n : out.nodes) {
      if (n.code != ir::op::load || n.ref != w.target) continue;
      if (value.type == temp.type) {
        n = value;
      } else {
        ir::expr_node cast{};
        cast.code = ir::op::cast;
        cast.type = cast.compute = temp.type;
        cast.a = w.root;
        n = cast;
      }
    }
  }
  return out;
}

// Empty when the plan is sound; otherwise what is wrong, naming ops and
// statements.
inline std::string check_plan(const plan_view& v, const ir::program& user) {
  std::ostringstream err;
  const auto& ops = v.ops;
  const auto n_ops = ops.size();
  const auto user_view = ir::view_of(user);
  const auto expanded = with_inlined_producers(user, v);
  const auto expanded_view = ir::view_of(expanded);

  // --- structure -------------------------------------------------------------
  std::vector<int> kernel_seen(v.kernels.size(), 0);
  std::vector<std::size_t> op_of_kernel(v.kernels.size(), 0);
  for (std::size_t i = 0; i < n_ops; ++i) {
    const auto& op = ops[i];
    if (op.stream < 0 || static_cast<std::size_t>(op.stream) >= v.ir.streams.size()) {
      err << "op " << i << " has stream " << op.stream << " out of range\n";
      return err.str();
    }
    if (op.kind == op_kind::kernel) {
      if (op.kernel < 0 || static_cast<std::size_t>(op.kernel) >= v.kernels.size()) {
        err << "op " << i << " names kernel " << op.kernel << " out of range\n";
        return err.str();
      }
      // A launch: kernels op.kernel ... op.kernel + segments - 1, the first naming their count.
      const auto first = static_cast<std::size_t>(op.kernel);
      const auto segments = v.kernels[first].segments;
      if (segments < 1 || first + static_cast<std::size_t>(segments) > v.kernels.size()) {
        err << "op " << i << " launches " << segments << " kernels from k" << op.kernel << ", out of range\n";
        return err.str();
      }
      for (auto k = first; k < first + static_cast<std::size_t>(segments); ++k) {
        ++kernel_seen[k];
        op_of_kernel[k] = i;
        if (v.kernels[k].stream != op.stream)
          err << "op " << i << " issues kernel k" << k << " on another stream than the kernel's\n";
        if (k > first && v.kernels[k].segments != 0)
          err << "kernel k" << k << " is a segment of op " << i << "'s launch but counts segments itself\n";
      }
    } else if (op.kind == op_kind::wait) {
      if (op.waits_for < 0 || static_cast<std::size_t>(op.waits_for) >= i ||
          ops[static_cast<std::size_t>(op.waits_for)].kind != op_kind::record) {
        err << "wait op " << i << " waits for op " << op.waits_for << ", which is not an earlier record\n";
        return err.str();
      }
    }
  }
  for (std::size_t k = 0; k < kernel_seen.size(); ++k)
    if (kernel_seen[k] != 1) err << "kernel k" << k << " is issued " << kernel_seen[k] << " times\n";
  if (!err.str().empty()) return err.str();

  // --- happens-before over ops ----------------------------------------------------
  std::vector<index_set> before(n_ops);                  // ops that happen before op i
  std::vector<index_set> frontier(v.ir.streams.size());  // per stream: ops before its next op
  std::int64_t entry_record = -1;
  for (std::size_t i = 0; i < n_ops; ++i) {
    const auto& op = ops[i];
    auto& f = frontier[static_cast<std::size_t>(op.stream)];
    before[i] = f;
    if (op.kind == op_kind::wait) {
      const auto r = static_cast<std::size_t>(op.waits_for);
      f.merge(before[r]);
      f.insert(r);
    }
    if (op.kind == op_kind::record && op.role == sync_role::entry)
      entry_record = static_cast<std::int64_t>(i);
    f.insert(i);
  }

  // --- accesses of the plan's statements (kernels and steps) ------------------------
  struct access {
    std::int32_t origin;    // position in the user's program
    std::size_t op;         // the kernel or step op
    std::int64_t kernel;    // its kernel (-1 for a step): a launch's kernels run at once
    std::int32_t position;  // index of the statement inside its kernel (0 for a step)
    std::int64_t location;  // memory: bound buffer b -> b, slot s -> -(s + 1) - 1'000'000
    ir::region where;       // the region of its buffer
    bool writes;
    std::int32_t scheduled;  // position in the scheduled program (after placement moves)
  };
  std::vector<access> accesses;
  std::vector<int> user_seen(user.stmts.size(), 0);
  struct register_use {
    std::int64_t kernel;
    ir::region r;
  };
  std::vector<std::vector<register_use>> register_uses(v.ir.buffers.size());
  // Statement `idx` of the scheduled program, run by op `op` (kernel k, or
  // k = -1 for a step): checked against the user's statement it claims to
  // be, its accesses recorded.
  auto take = [&](std::int32_t idx, std::size_t op, std::int64_t k, std::int32_t position) {
    const auto& s = v.ir.stmts[static_cast<std::size_t>(idx)];
    const auto wanted = k >= 0 ? ir::stmt_kind::assign : ir::stmt_kind::step;
    if (s.kind != wanted || s.origin < 0 || static_cast<std::size_t>(s.origin) >= user.stmts.size()) {
      err << "op " << op << " runs statement " << idx << " that is no " << (k >= 0 ? "assignment" : "step")
          << " of the user's program\n";
      return false;
    }
    const auto& u = user.stmts[static_cast<std::size_t>(s.origin)];
    const auto& x = expanded.stmts[static_cast<std::size_t>(s.origin)];
    // A matmul with a folded epilogue (passes/matmul_epilogue.hpp) claims the
    // user's matmul and the user's next statement on its stream, an
    // assignment the plan no longer runs, whose target it writes; what it
    // computes is the differential test's to check.
    ir::statement claimed = s;
    // A batch (passes/batch_matmuls.hpp) claims, member by member, a user
    // matmul of the member's buffers and mode (the first member: the user's
    // statement it stands at); its accesses count as that first member's.
    // (An FP8 product's amax is a second write, not a member: ir::matmul_batch_size.)
    const bool batch =
        s.kind == ir::stmt_kind::step && s.code == ir::step_code::matmul && ir::matmul_batch_size(s) > 1;
    for (std::int32_t j = 0; batch && j < ir::matmul_batch_size(s); ++j) {
      const auto x = ir::matmul_member_of(v.ir, s, j);
      std::size_t found = user.stmts.size();
      for (std::size_t i = 0; i < user.stmts.size() && found == user.stmts.size(); ++i) {
        const auto& w = user.stmts[i];
        if (w.kind != ir::stmt_kind::step || w.code != ir::step_code::matmul ||
            w.matmul_mode != s.matmul_mode || user_seen[i] != 0)
          continue;
        const auto y = ir::matmul_member_of(user_view, w, 0);
        if (y.a == x.a && y.b == x.b && y.c == x.c) found = i;
      }
      if (found == user.stmts.size() || (j == 0 && found != static_cast<std::size_t>(s.origin))) {
        err << "op " << op << " batch `" << ir::statement_text(v.ir, s).view() << "`: member " << j
            << " claims no user matmul (or the first member not its origin #" << s.origin << ")\n";
        return false;
      }
      ++user_seen[found];
    }
    if (batch) {
      // Checked member by member above.
    } else if (is_folded_matmul(s)) {
      if ((s.matmul_mode & ir::matmul_bias) != 0) --claimed.reads_count;
      claimed.matmul_mode = static_cast<std::uint8_t>(s.matmul_mode & ~ir::matmul_epilogue_bits);
      claimed.root = -1;
      claimed.target = u.target;
      const auto next = folded_consumer(user, s.origin);
      if (next == user.stmts.size() || user.stmts[next].kind != ir::stmt_kind::assign ||
          user.stmts[next].target != s.target) {
        err << "op " << op << " statement `" << ir::statement_text(v.ir, s).view()
            << "` folds no assignment of its target after user statement #" << s.origin << "\n";
        return false;
      }
      ++user_seen[next];
    }
    if (!batch && (u.kind != s.kind ||
                   ir::statement_text(v.ir, claimed).view() != ir::statement_text(expanded_view, x).view())) {
      err << "op " << op << " statement `" << ir::statement_text(v.ir, s).view()
          << "` claims to be user statement #" << s.origin << ", which differs\n";
      return false;
    }
    if (!batch) ++user_seen[static_cast<std::size_t>(s.origin)];
    if (s.stream != ops[op].stream)
      err << "statement #" << s.origin << " runs in op " << op << " of another stream\n";
    const auto regions = regions_of(v.ir, s);
    if (k >= 0) {
      const auto& info = v.kernels[static_cast<std::size_t>(k)];
      if (v.ir.buffers[static_cast<std::size_t>(s.target)].domain != info.domain)
        err << "statement #" << s.origin << " writes a buffer of another domain than its kernel k" << k
            << "'s\n";
      if (regions.writes.size() != 1 || regions.writes[0].parts != info.parts)
        err << "statement #" << s.origin << " writes another chunk count than its kernel k" << k
            << " iterates\n";
    }
    auto add = [&](const ir::region& r, bool writes) {
      const auto b = r.buffer;
      const auto where = v.storage[static_cast<std::size_t>(b)];
      std::int64_t location = b;
      if (where == storage_register) {
        if (k < 0) err << "register temp '" << v.ir.buffer_name(b) << "' is accessed by a step\n";
        auto& uses = register_uses[static_cast<std::size_t>(b)];
        for (const auto& u : uses) {
          const bool same_kernel = u.kernel == k;
          const bool same_chunk = u.r.part == r.part && u.r.parts == r.parts;
          // Another kernel may only hold another chunk of the same size.
          const bool chunked_apart = !same_kernel && u.r.parts == r.parts && r.parts > 1 && !same_chunk;
          if (same_kernel ? !same_chunk : !chunked_apart) {
            err << "register temp '" << v.ir.buffer_name(b) << "' is used in kernels k" << u.kernel
                << " and k" << k << " (not one chunk per kernel)\n";
            break;
          }
        }
        uses.push_back({k, r});
      } else if (where >= 0) {
        const auto& slot = v.slots[static_cast<std::size_t>(where)];
        const auto& bi = v.ir.buffers[static_cast<std::size_t>(b)];
        if (slot.domain != bi.domain || size_of(slot.type) != size_of(bi.type))
          err << "temp '" << v.ir.buffer_name(b) << "' sits in slot " << where
              << " of another domain or element size\n";
        location = -1'000'000 - where;
      } else if (v.ir.buffers[static_cast<std::size_t>(b)].kind == ir::access::temp) {
        err << "temp '" << v.ir.buffer_name(b) << "' is bound by the caller\n";
      }
      accesses.push_back({s.origin, op, k, position, location, r, writes, idx});
    };
    for (const auto& r : regions.reads) add(r, false);
    for (const auto& r : regions.writes) add(r, true);
    return true;
  };
  for (std::size_t k = 0; k < v.kernels.size(); ++k) {
    std::int32_t position = 0;
    for (auto idx : v.kernel_statements(k))
      if (!take(idx, op_of_kernel[k], static_cast<std::int64_t>(k), position++)) return err.str();
  }
  for (std::size_t i = 0; i < n_ops; ++i)
    if (ops[i].kind == op_kind::step) {
      if (ops[i].stmt < 0 || static_cast<std::size_t>(ops[i].stmt) >= v.ir.stmts.size()) {
        err << "step op " << i << " names statement " << ops[i].stmt << " out of range\n";
        return err.str();
      }
      if (!take(ops[i].stmt, i, -1, 0)) return err.str();
    }
  for (std::size_t i = 0; i < user.stmts.size(); ++i) {
    const auto& u = user.stmts[i];
    if (u.kind != ir::stmt_kind::assign && u.kind != ir::stmt_kind::step) continue;
    const auto written = regions_of(user, u).writes;
    const bool temp = user.buffers[static_cast<std::size_t>(written.at(0).buffer)].kind == ir::access::temp;
    if (user_seen[i] > 1 || (!temp && user_seen[i] != 1))
      err << "user statement #" << i << " `" << ir::statement_text(user_view, u).view() << "` appears "
          << user_seen[i] << " times in the plan's kernels and steps\n";
  }
  if (!err.str().empty()) return err.str();

  // --- a copy's source and destination never share memory (a copy is one
  // memcpy; the memory plan must not put them in one slot where they meet).
  // A reduction or scan may read what it writes: it reads every element
  // before writing the one it computes (`y = sd::inclusive_sum(y)`). ----
  // A matmul likewise reads its operands while it writes its product, and a
  // call gets its regions as separate memory (but a region it lists in both
  // lists, updated in place, is one), and so does a collective (its source
  // and target are one region only in place).
  auto is_copy = [&](std::size_t op) {
    if (ops[op].kind != op_kind::step) return false;
    const auto code = v.ir.stmts[static_cast<std::size_t>(ops[op].stmt)].code;
    return code == ir::step_code::copy || code == ir::step_code::matmul ||
           ir::info(code).form == ir::step_form::call || ir::is_collective(code);
  };
  for (std::size_t x = 0; x < accesses.size(); ++x)
    for (std::size_t y = 0; y < accesses.size(); ++y) {
      const auto& a = accesses[x];
      const auto& b = accesses[y];
      if (a.op != b.op || !is_copy(a.op) || a.writes || !b.writes || a.location != b.location) continue;
      if (a.where == b.where) continue;  // a call's region updated in place
      ir::region other = b.where;
      other.buffer = a.where.buffer;
      if (regions_meet(a.where, other)) {
        err << "user statement #" << a.origin << " copies '" << v.ir.buffer_name(a.where.buffer) << "' into '"
            << v.ir.buffer_name(b.where.buffer) << "' over memory they share\n";
        return err.str();
      }
    }

  // --- every conflicting pair ordered as in program order ------------------------------
  for (std::size_t x = 0; x < accesses.size(); ++x)
    for (std::size_t y = 0; y < accesses.size(); ++y) {
      const auto& a = accesses[x];
      const auto& b = accesses[y];
      // One buffer's accesses keep the user's order (placement moves preserve
      // it); two temps sharing a slot must not overlap, in the order the
      // scheduled program gives them (a move may put a later temp first).
      const bool same_buffer = a.where.buffer == b.where.buffer;
      const bool earlier = same_buffer ? a.origin < b.origin : a.scheduled < b.scheduled;
      if (!earlier || a.location != b.location || !(a.writes || b.writes)) continue;
      // Regions of one buffer, or of two temps in one slot (each laid out
      // over the slot as over its own buffer), meet only where they share a
      // fraction of the extent.
      ir::region other = b.where;
      other.buffer = a.where.buffer;
      if (!regions_meet(a.where, other)) continue;
      // One launch orders only the statements of one of its kernels (segments run at once).
      const bool ordered =
          a.op == b.op ? a.kernel == b.kernel && a.position < b.position : before[b.op].contains(a.op);
      if (!ordered) {
        err << "user statements #" << a.origin << " (" << (a.writes ? "writes" : "reads") << " '"
            << v.ir.buffer_name(a.where.buffer) << "') and #" << b.origin << " ("
            << (b.writes ? "writes" : "reads") << " '" << v.ir.buffer_name(b.where.buffer) << "')";
        if (a.location < 0 && !same_buffer) err << " share workspace slot " << (-1'000'000 - a.location);
        err << ": op " << b.op << " (stream " << v.ir.stream_name(ops[b.op].stream)
            << ") is not ordered after op " << a.op << " (stream " << v.ir.stream_name(ops[a.op].stream)
            << ")\n";
        return err.str();
      }
    }

  // --- the caller's view: work starts after entry and ends before exit ------------------
  for (std::size_t i = 0; i < n_ops; ++i) {
    if ((ops[i].kind != op_kind::kernel && ops[i].kind != op_kind::step) || ops[i].stream == ir::main_stream)
      continue;
    if (entry_record < 0 || !before[i].contains(static_cast<std::size_t>(entry_record)))
      err << "kernel or step op " << i << " on stream " << v.ir.stream_name(ops[i].stream)
          << " is not after the entry edge\n";
  }
  const auto& at_exit = frontier[ir::main_stream];
  for (std::size_t i = 0; i < n_ops; ++i)
    if ((ops[i].kind == op_kind::kernel || ops[i].kind == op_kind::step) && !at_exit.contains(i))
      err << "kernel or step op " << i << " on stream " << v.ir.stream_name(ops[i].stream)
          << " is not before the exit edge\n";
  return err.str();
}

}  // namespace streamdsl::random_test
