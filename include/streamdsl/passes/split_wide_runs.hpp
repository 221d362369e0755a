#pragma once
// Wide runs: a fused kernel keeps, per element, a value of every buffer its
// statements touch in registers between its loads and its stores. A run over
// many independent tensors (an optimizer step over 16 tensors of one size on
// one stream: 64 buffers) spills and runs at half the memory bandwidth
// (docs/benchmarks.md, workload 6), while the same work as one segment per
// tensor of one launch runs at full bandwidth. So a run touching more than
// `max_fused_buffers` buffers is cut into its independent parts (statements
// that share no buffer), packed in program order into as few pieces as that
// limit allows, of about equal numbers of buffers; join_launches then launches the pieces together. A run
// whose statements all share buffers (a chain) stays whole.
#include "../detail/dyn_array.hpp"
#include "../ir/accesses.hpp"
#include "../ir/program_view.hpp"
#include "../plan/plan_model.hpp"
#include "fusion.hpp"

namespace streamdsl::passes {

// Buffers (with a domain: a 0-d value is read once, not per element) a fused
// loop keeps per element at most; measured in bench/fusion_width.cu.
inline constexpr std::int32_t max_fused_buffers = 16;

namespace split_detail {

constexpr std::int32_t root_of(detail::dyn_array<std::int32_t>& parent, std::int32_t x) {
  while (parent[static_cast<std::size_t>(x)] != x) {
    auto& up = parent[static_cast<std::size_t>(x)];
    up = parent[static_cast<std::size_t>(up)];
    x = up;
  }
  return x;
}

}  // namespace split_detail

// Splits `runs`' wide kernels in place. Pieces of one run keep its stream,
// shape and issue point; runs.continues marks each piece but the last (the
// next kernel of its stream continues its run, as join_launches needs to
// know). Returns whether anything was split.
template <class = void>
constexpr bool split_wide_runs(const ir::program_view& p, kernel_partition& runs,
                               plan_model* notes = nullptr) {
  using split_detail::root_of;
  const auto kernels = runs.kernels.size();
  // Cheap test first: a run of fewer accesses than the limit is not wide.
  std::size_t wide = 0;
  for (const auto& k : runs.kernels) {
    if (k.count < 2) continue;
    std::int32_t accesses = 0;
    for (auto j = k.first; j < k.first + k.count; ++j) {
      const auto& s = p.stmts[runs.stmts[static_cast<std::size_t>(j)]];
      accesses += s.reads_count + s.writes_count;
    }
    wide += accesses > max_fused_buffers;
  }
  if (wide == 0) return false;

  // Per buffer: the statement (position in the run) that first touched it
  // in the run being looked at (stamped by run), for a union-find over the
  // run's statements.
  detail::dyn_array<std::int32_t> owner(p.buffers.size(), -1), stamp(p.buffers.size(), -1);
  detail::dyn_array<std::int32_t> parent, group_of, buffers_of;
  kernel_partition out;
  out.kernel_of.assign(p.stmts.size(), -1);
  for (std::size_t k = 0; k < kernels; ++k) {
    const auto info = runs.kernels[k];
    const auto* stmts = runs.stmts.data() + info.first;
    const auto n = info.count;
    parent.assign(static_cast<std::size_t>(n), 0);
    for (std::int32_t j = 0; j < n; ++j) parent[static_cast<std::size_t>(j)] = j;
    std::int32_t distinct = 0;
    auto touch = [&](const ir::region& r, std::int32_t j) {
      const auto b = static_cast<std::size_t>(r.buffer);
      if (p.buffers[r.buffer].domain < 0) return;
      if (stamp[b] != static_cast<std::int32_t>(k)) {
        stamp[b] = static_cast<std::int32_t>(k);
        owner[b] = j;
        ++distinct;
        return;
      }
      const auto a = root_of(parent, owner[b]), c = root_of(parent, j);
      if (a != c)
        parent[static_cast<std::size_t>(a > c ? a : c)] = a > c ? c : a;  // the earlier statement roots
    };
    if (n >= 2)
      for (std::int32_t j = 0; j < n; ++j) {
        const auto& s = p.stmts[stmts[j]];
        for (const auto& r : ir::reads_of(p, s)) touch(r, j);
        for (const auto& r : ir::writes_of(p, s)) touch(r, j);
      }
    // Pack the independent parts, in order of their first statements, into
    // pieces of at most max_fused_buffers buffers.
    std::int32_t pieces = 1;
    group_of.assign(static_cast<std::size_t>(n), 0);
    if (distinct > max_fused_buffers) {
      buffers_of.assign(static_cast<std::size_t>(n), 0);  // per root: its buffers
      for (std::size_t b = 0; b < p.buffers.size(); ++b)
        if (stamp[b] == static_cast<std::int32_t>(k))
          ++buffers_of[static_cast<std::size_t>(root_of(parent, owner[b]))];
      // Greedy packing in program order under a limit of buffers per piece.
      auto pack = [&](std::int32_t limit) {
        std::int32_t filled = 0, count = 0;
        for (std::int32_t j = 0; j < n; ++j) {
          const auto root = root_of(parent, j);
          if (root != j) {
            group_of[static_cast<std::size_t>(j)] = group_of[static_cast<std::size_t>(root)];
            continue;
          }
          const auto size = buffers_of[static_cast<std::size_t>(j)];
          if (count == 0 || filled + size > limit) {
            ++count;
            filled = 0;
          }
          filled += size;
          group_of[static_cast<std::size_t>(j)] = count - 1;
        }
        return count;
      };
      // As few pieces as the limit allows, then as even as that count allows
      // (16 tensors of 3 buffers: 4 pieces of 4, not 5, 5, 5 and 1).
      pieces = pack(max_fused_buffers);
      if (pack((distinct + pieces - 1) / pieces) != pieces) pack(max_fused_buffers);
    }
    if (pieces > 1 && notes != nullptr) {
      detail::text t;
      t << "fusion: the run of statements #" << stmts[0] << " to #" << stmts[n - 1] << " on stream '"
        << p.stream_name(info.stream) << "' touches " << distinct << " buffers per element: split into "
        << pieces << " kernels of independent statements, at most " << max_fused_buffers
        << " buffers each, launched together (a wider loop spills registers)";
      notes->note(t);
    }
    for (std::int32_t g = 0; g < pieces; ++g) {
      const auto piece = static_cast<std::int32_t>(out.kernels.size());
      kernel_info part = info;
      part.first = static_cast<std::int32_t>(out.stmts.size());
      part.count = 0;
      for (std::int32_t j = 0; j < n; ++j) {
        if (group_of[static_cast<std::size_t>(j)] != g) continue;
        out.stmts.push_back(stmts[j]);
        out.kernel_of[static_cast<std::size_t>(stmts[j])] = piece;
        ++part.count;
      }
      out.kernels.push_back(part);
      out.issue_before.push_back(runs.issue_before[k]);
      out.continues.push_back(g + 1 < pieces ? 1 : 0);
    }
  }
  runs = static_cast<kernel_partition&&>(out);
  return true;
}

}  // namespace streamdsl::passes
