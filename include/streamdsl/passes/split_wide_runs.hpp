#pragma once
// Wide runs: a fused kernel keeps, per element, a value of every buffer its
// statements touch in flight between its loads and its stores, and runs one
// step per thread over its grid. Measured on an H200 (bench/fusion_width.cu,
// docs/benchmarks.md "How wide a loop"), independent Adam-like tensors (4
// buffers each) run faster as a segment each of one launch than fused into
// one loop: 2 tensors 87% of memcpy bandwidth against 79%, 4 tensors 94%
// against 61%, 16 tensors 98% against 50%. But each piece is a loop
// of its own for the compiler, and splitting is constant evaluation every
// program that splits pays: at a limit of 8 the compile-time benchmark's
// one-domain programs of 50 and 200 statements split a run each and g++
// took 8-9% longer on them (nvcc's 200: +3.3%; +7.2% at 4). At 16 they do
// not split; loops of 9-16 buffers stay (61-80% of memcpy bandwidth where
// segments reach 88-94%: bench/fusion_width.cu). So a run touching more than
// `max_fused_buffers` buffers is cut into its independent parts (statements
// that share no buffer), packed in program order into as few pieces as that
// limit allows, of about equal numbers of buffers; join_launches then
// launches the pieces together. A run whose statements all share buffers (a
// chain) stays whole.
#include "../detail/dyn_array.hpp"
#include "../ir/accesses.hpp"
#include "../ir/program_view.hpp"
#include "../plan/plan_model.hpp"
#include "fusion.hpp"

namespace streamdsl::passes {

// Buffers (with a domain: a 0-d value is read once, not per element) a loop
// of independent parts keeps per element at most (see above for why 16).
inline constexpr std::int32_t max_fused_buffers = 16;

// The root of x's set in a union-find over `parent` (path halving); join_launches uses it too.
template <class = void>
constexpr std::int32_t find_root(detail::dyn_array<std::int32_t>& parent, std::int32_t x) {
  while (parent[static_cast<std::size_t>(x)] != x) {
    auto& up = parent[static_cast<std::size_t>(x)];
    up = parent[static_cast<std::size_t>(up)];
    x = up;
  }
  return x;
}

namespace split_detail {

// A union-find over a partition's statement positions: statements touching
// one buffer (with a domain) are one part, rooted at the earliest.
struct parts_of_runs {
  detail::dyn_array<std::int32_t> parent;  // per statement position
  detail::dyn_array<std::int32_t> owner;   // per buffer: a position touching it in the run looked at
  detail::dyn_array<std::int32_t> stamp;   // per buffer: the look `owner` is from
  std::int32_t look = -1;

  constexpr std::int32_t root(std::int32_t x) { return find_root(parent, x); }
};

template <class = void>
constexpr std::int32_t accesses_of(const ir::program_view& p, const kernel_partition& runs,
                                   const kernel_info& k) {
  std::int32_t accesses = 0;
  for (auto j = k.first; j < k.first + k.count; ++j) {
    const auto& s = p.stmts[runs.stmts[static_cast<std::size_t>(j)]];
    accesses += s.reads_count + s.writes_count;
  }
  return accesses;
}

// Unites run k's statements into parts; returns how many buffers it touches.
template <class = void>
constexpr std::int32_t unite(const ir::program_view& p, const kernel_partition& runs, std::size_t k,
                             parts_of_runs& u) {
  const auto& info = runs.kernels[k];
  std::int32_t distinct = 0;
  ++u.look;
  for (auto j = info.first; j < info.first + info.count; ++j) u.parent[static_cast<std::size_t>(j)] = j;
  for (auto j = info.first; j < info.first + info.count; ++j) {
    const auto& s = p.stmts[runs.stmts[static_cast<std::size_t>(j)]];
    // Reads then the write: one list (accesses_first on).
    const auto regions = p.accesses.subspan(static_cast<std::size_t>(s.accesses_first),
                                            static_cast<std::size_t>(s.reads_count + s.writes_count));
    for (const auto& r : regions) {
      const auto b = static_cast<std::size_t>(r.buffer);
      if (p.buffers[r.buffer].domain < 0) continue;  // a 0-d value: read once, not per element
      if (u.stamp[b] != u.look) {
        u.stamp[b] = u.look;
        u.owner[b] = j;
        ++distinct;
        continue;
      }
      const auto x = u.root(u.owner[b]), y = u.root(j);
      if (x != y) u.parent[static_cast<std::size_t>(x > y ? x : y)] = x > y ? y : x;
    }
  }
  return distinct;
}

// Whether run k is wide and has two parts or more (its parts then in `u`).
template <class = void>
constexpr bool splits(const ir::program_view& p, const kernel_partition& runs, std::size_t k,
                      parts_of_runs& u) {
  const auto& info = runs.kernels[k];
  if (info.count < 2 || accesses_of(p, runs, info) <= max_fused_buffers ||
      unite(p, runs, k, u) <= max_fused_buffers)
    return false;
  for (auto j = info.first + 1; j < info.first + info.count; ++j)
    if (u.root(j) == j) return true;
  return false;
}

// Packs run k's parts, in order of their first statements, into pieces of at
// most `limit` buffers (`buffers` per part, by its root's offset in the run);
// `piece` gets each statement's piece. Returns the number of pieces.
template <class = void>
constexpr std::int32_t pack(const kernel_info& info, parts_of_runs& u,
                            const detail::dyn_array<std::int32_t>& buffers, std::int32_t limit,
                            detail::dyn_array<std::int32_t>& piece) {
  std::int32_t filled = 0, count = 0;
  for (std::int32_t j = 0; j < info.count; ++j) {
    const auto root = u.root(info.first + j) - info.first;
    if (root == j) {
      if (count == 0 || filled + buffers[static_cast<std::size_t>(j)] > limit) {
        ++count;
        filled = 0;
      }
      filled += buffers[static_cast<std::size_t>(j)];
    }
    piece[static_cast<std::size_t>(j)] = root == j ? count - 1 : piece[static_cast<std::size_t>(root)];
  }
  return count;
}

}  // namespace split_detail

// Splits `runs`' wide kernels in place. Pieces of one run keep its stream,
// shape and issue point; runs.continues marks each piece but the last (the
// next kernel of its stream continues its run, as join_launches needs to
// know). Returns whether anything was split.
template <class = void>
constexpr bool split_wide_runs(const ir::program_view& p, kernel_partition& runs,
                               plan_model* notes = nullptr) {
  const auto kernels = runs.kernels.size();
  // A run of no more accesses than the limit is not wide (most runs: this
  // loop is all a program pays).
  bool candidates = false;
  for (const auto& k : runs.kernels)
    candidates = candidates || (k.count > 1 && split_detail::accesses_of(p, runs, k) > max_fused_buffers);
  if (!candidates) return false;
  split_detail::parts_of_runs u{detail::dyn_array<std::int32_t>(runs.stmts.size(), 0),
                                detail::dyn_array<std::int32_t>(p.buffers.size(), -1),
                                detail::dyn_array<std::int32_t>(p.buffers.size(), -1)};
  bool any = false;
  for (std::size_t k = 0; k < kernels && !any; ++k) any = split_detail::splits(p, runs, k, u);
  if (!any) return false;

  kernel_partition out;
  out.kernel_of.assign(p.stmts.size(), -1);
  detail::dyn_array<std::int32_t> piece,
      buffers;  // per statement of the run: its piece; per part: its buffers
  for (std::size_t k = 0; k < kernels; ++k) {
    const auto info = runs.kernels[k];
    std::int32_t pieces = 1, distinct = 0;
    piece.assign(static_cast<std::size_t>(info.count), 0);
    if (split_detail::splits(p, runs, k, u)) {
      buffers.assign(static_cast<std::size_t>(info.count), 0);
      for (std::size_t b = 0; b < p.buffers.size(); ++b)
        if (u.stamp[b] == u.look) {
          ++buffers[static_cast<std::size_t>(u.root(u.owner[b]) - info.first)];
          ++distinct;
        }
      // As few pieces as the limit allows, then as even as that count allows
      // (16 tensors of 3 buffers: 4 pieces of 4, not 5, 5, 5 and 1).
      pieces = split_detail::pack(info, u, buffers, max_fused_buffers, piece);
      if (split_detail::pack(info, u, buffers, (distinct + pieces - 1) / pieces, piece) != pieces)
        split_detail::pack(info, u, buffers, max_fused_buffers, piece);
      if (notes != nullptr) {
        detail::text t;
        t << "fusion: the run of statements #" << runs.stmts[static_cast<std::size_t>(info.first)] << " to #"
          << runs.stmts[static_cast<std::size_t>(info.first + info.count - 1)] << " on stream '"
          << p.stream_name(info.stream) << "' touches " << distinct << " buffers per element: split into "
          << pieces << " kernels of independent statements, at most " << max_fused_buffers
          << " buffers each, launched together (faster than one loop: bench/fusion_width.cu)";
        notes->note(t);
      }
    }
    for (std::int32_t g = 0; g < pieces; ++g) {
      kernel_info part = info;
      part.first = static_cast<std::int32_t>(out.stmts.size());
      part.count = 0;
      for (std::int32_t j = 0; j < info.count; ++j) {
        if (piece[static_cast<std::size_t>(j)] != g) continue;
        const auto i = runs.stmts[static_cast<std::size_t>(info.first + j)];
        out.stmts.push_back(i);
        out.kernel_of[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(out.kernels.size());
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
