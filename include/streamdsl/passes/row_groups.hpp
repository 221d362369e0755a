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
#include "../ir/shape.hpp"
#include "../plan/plan_model.hpp"

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
