#pragma once
// Multi-tensor launches: on a stream, the kernels fuse_runs made between two
// syncs (or steps) of that stream are joined into as few launches as their
// dependences allow, each kernel a segment of one grid (the executors give
// each segment blocks in proportion to its extent, as PyTorch's
// multi_tensor_apply does). Kernels of one shape that depend on each other
// become one segment (their statements in program order, evaluated per
// element as fusion does), so statements move across independent ones: an
// optimizer step over tensors of two sizes, written tensor by tensor,
// becomes one launch. A launch ends where a kernel depends on a segment of
// another shape (a 0-d value, or a whole buffer and its chunks), which must
// then finish first.
//
// Why joining needs no measured extents: segments share no written region,
// so one grid runs them in any order, and its blocks are split by extent at
// launch, so a large segment takes the grid it would have had alone and a
// small one stops paying a launch (bench/multi_tensor_adam.cu measures
// joined against separate launches). Independent kernels stay separate
// segments rather than one loop, and a wide run of independent parts is
// split into segments first (split_wide_runs.hpp): measured faster.
#include "../detail/dyn_array.hpp"
#include "../detail/text.hpp"
#include "../ir/accesses.hpp"
#include "../ir/program_view.hpp"
#include "../plan/plan_model.hpp"
#include "fusion.hpp"
#include "split_wide_runs.hpp"

namespace streamdsl::passes {

// Segments per launch at most: bounds the arguments of a launch (a pointer
// per buffer of each segment) well inside CUDA's 32 KB of kernel parameters.
inline constexpr std::int32_t max_launch_segments = 64;

template <class = void>
constexpr kernel_partition join_launches(const ir::program_view& p, kernel_partition runs,
                                         plan_model* notes = nullptr) {
  const bool split = split_wide_runs(p, runs, notes);
  const auto kernels = static_cast<std::int32_t>(runs.kernels.size());
  const auto n = static_cast<std::int32_t>(p.stmts.size());
  auto closes = [&](std::int32_t k) {  // a sync, a step or the end follows kernel k on its stream
    if (split && runs.continues[static_cast<std::size_t>(k)] != 0) return false;
    const auto before = runs.issue_before[static_cast<std::size_t>(k)];
    return before >= n || p.stmts[before].kind != ir::stmt_kind::assign;
  };
  // Nothing to join unless some stream has two kernels between syncs (a
  // kernel followed by an assignment of another shape): never, in a
  // program of one shape.
  bool any_window = false;
  for (std::int32_t k = 0; k < kernels && !any_window; ++k) any_window = !closes(k);
  if (!any_window) return runs;
  auto statements = [&](std::int32_t k) {
    const auto& info = runs.kernels[static_cast<std::size_t>(k)];
    return detail::array_view<std::int32_t>{runs.stmts.data() + info.first,
                                            static_cast<std::size_t>(info.count)};
  };
  // launch_of[k]: the launch (numbered by its first kernel) kernel k joins;
  // parent: union-find over kernels, a segment being a set.
  detail::dyn_array<std::int32_t> launch_of(runs.kernels.size(), -1), parent(runs.kernels.size(), 0);
  for (std::int32_t k = 0; k < kernels; ++k) parent[static_cast<std::size_t>(k)] = k;
  // Each buffer's accesses by kernels in multi-kernel windows, newest first
  // (a list per buffer through `next`), with the launch that made them: four
  // integers each, {next, kernel, launch, writes}.
  detail::dyn_array<std::int32_t> accesses;
  detail::dyn_array<std::int32_t> newest(p.buffers.size(), -1);
  detail::dyn_array<std::int32_t> open(p.streams.size(), -1);          // per stream: its open launch
  detail::dyn_array<std::int32_t> open_segments(p.streams.size(), 0);  // and how many segments it has
  detail::dyn_array<std::int32_t> conflicts;
  auto add_conflicts = [&](const ir::region& r, bool writes, std::int32_t launch) {
    for (auto a = newest[static_cast<std::size_t>(r.buffer)]; a >= 0;
         a = accesses[static_cast<std::size_t>(a)]) {
      const auto* x = accesses.data() + a;
      if (x[2] != launch || !(writes || x[3] != 0)) continue;
      const auto root = find_root(parent, x[1]);
      bool seen = false;
      for (auto c : conflicts) seen = seen || c == root;
      if (!seen) conflicts.push_back(root);
    }
  };
  auto record = [&](const ir::region& r, bool writes, std::int32_t k, std::int32_t launch) {
    auto& head = newest[static_cast<std::size_t>(r.buffer)];
    const auto at = static_cast<std::int32_t>(accesses.size());
    accesses.push_back(head);
    accesses.push_back(k);
    accesses.push_back(launch);
    accesses.push_back(writes ? 1 : 0);
    head = at;
  };

  for (std::int32_t k = 0; k < kernels; ++k) {
    const auto& info = runs.kernels[static_cast<std::size_t>(k)];
    const auto s = static_cast<std::size_t>(info.stream);
    auto launch = open[s];
    if (launch < 0 && closes(k)) {  // alone between syncs (every kernel of a one-shape program)
      launch_of[static_cast<std::size_t>(k)] = k;
      continue;
    }
    // The segments of the open launch that kernel k depends on: one shape
    // with k, they merge with it; another, the launch ends before k.
    conflicts.clear();
    if (launch >= 0)
      for (auto i : statements(k)) {
        for (const auto& r : ir::reads_of(p, p.stmts[i])) add_conflicts(r, false, launch);
        for (const auto& r : ir::writes_of(p, p.stmts[i])) add_conflicts(r, true, launch);
      }
    bool joins = launch >= 0;
    for (auto c : conflicts) {
      const auto& x = runs.kernels[static_cast<std::size_t>(c)];
      joins = joins && x.domain == info.domain && x.parts == info.parts;
    }
    const auto segments = open_segments[s] + 1 - static_cast<std::int32_t>(conflicts.size());
    if (!joins || segments > max_launch_segments) {
      launch = k;
      open_segments[s] = 1;
    } else {
      for (auto c : conflicts) parent[static_cast<std::size_t>(c)] = k;
      open_segments[s] = segments;
    }
    open[s] = closes(k) ? -1 : launch;
    launch_of[static_cast<std::size_t>(k)] = launch;
    for (auto i : statements(k)) {
      for (const auto& r : ir::reads_of(p, p.stmts[i])) record(r, false, k, launch);
      for (const auto& r : ir::writes_of(p, p.stmts[i])) record(r, true, k, launch);
    }
  }

  // Emit each launch where its last kernel was issued (every kernel of it
  // is then issued, and nothing else on its stream came between). Its
  // segments come in order of their first statements, each segment's
  // kernels in stream order (their statements in program order) as one.
  kernel_partition out;
  out.kernel_of.assign(p.stmts.size(), -1);
  detail::dyn_array<std::int32_t> last_of(runs.kernels.size(), -1);  // per launch: its last kernel
  detail::dyn_array<bool> out_already(runs.kernels.size(), false);   // per segment (by root)
  for (std::int32_t k = 0; k < kernels; ++k)
    last_of[static_cast<std::size_t>(launch_of[static_cast<std::size_t>(k)])] = k;
  for (std::int32_t last = 0; last < kernels; ++last) {
    const auto launch = launch_of[static_cast<std::size_t>(last)];
    if (last_of[static_cast<std::size_t>(launch)] != last) continue;
    const auto first_out = static_cast<std::int32_t>(out.kernels.size());
    std::int32_t window_first = n, window_last = -1;
    bool moved = false;  // a segment joins kernels with others between them
    for (std::int32_t first = launch; first <= last; ++first) {
      const auto root = find_root(parent, first);
      if (launch_of[static_cast<std::size_t>(first)] != launch || out_already[static_cast<std::size_t>(root)])
        continue;  // another launch's, or its segment is out already
      out_already[static_cast<std::size_t>(root)] = true;
      const auto& head = runs.kernels[static_cast<std::size_t>(first)];
      kernel_info seg{
          head.stream, head.domain, head.parts, static_cast<std::int32_t>(out.stmts.size()), 0, 0};
      const auto kernel = static_cast<std::int32_t>(out.kernels.size());
      std::int32_t pieces = 0, previous = first - 1;
      for (std::int32_t k = first; k <= last; ++k) {
        if (launch_of[static_cast<std::size_t>(k)] != launch || find_root(parent, k) != root) continue;
        for (auto i : statements(k)) {
          out.stmts.push_back(i);
          out.kernel_of[static_cast<std::size_t>(i)] = kernel;
          if (i < window_first) window_first = i;
          if (i > window_last) window_last = i;
        }
        seg.count += runs.kernels[static_cast<std::size_t>(k)].count;
        // Moved: another kernel of this launch lies between two of this segment's.
        for (auto x = previous + 1; x < k && pieces > 0; ++x)
          moved = moved || launch_of[static_cast<std::size_t>(x)] == launch;
        ++pieces;
        previous = k;
      }
      out.kernels.push_back(seg);
      out.issue_before.push_back(runs.issue_before[static_cast<std::size_t>(last)]);
    }
    const auto count = static_cast<std::int32_t>(out.kernels.size()) - first_out;
    out.kernels[static_cast<std::size_t>(first_out)].segments = count;
    for (auto k = first_out; k < first_out + count; ++k) {
      out.window_first.push_back(count > 1 ? window_first : -1);
      out.window_last.push_back(count > 1 ? window_last : -1);
    }
    if (notes != nullptr && (count > 1 || moved)) {
      detail::text t;
      t << "fusion: " << count << (count == 1 ? " kernel" : " kernels") << " on stream '"
        << p.stream_name(runs.kernels[static_cast<std::size_t>(launch)].stream) << "' (statements #"
        << window_first << " to #" << window_last
        << ") run as one launch (they share no written region; its grid is split among them by extent)";
      if (moved)
        t << "; statements regrouped out of program order: a kernel joins the statements it depends on "
             "across independent ones";
      notes->note(t);
    }
  }
  return out;
}

// Growth bound (passes/schedule.hpp's bounds_of): still at most a kernel
// per assignment (split_wide_runs cuts a run into at most a kernel per
// statement), a note per launch of two or more kernels and one per run split.
template <class = void>
constexpr plan_sizes join_launches_bound(plan_sizes z) {
  const auto notes = z.kernels / 2 + 1 + z.kernels;
  z.notes += notes;
  z.pool += note_capacity * notes;
  return z;
}

}  // namespace streamdsl::passes
