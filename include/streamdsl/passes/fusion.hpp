#pragma once
// Fusion: on each stream, a run of elementwise statements with no sync or
// step between them and one shape (a domain, or one size of chunks of it)
// becomes one kernel. This covers
// vertical fusion (a producer and its consumers) and horizontal fusion
// (independent statements) at once: every statement of an elementwise kernel
// touches only element i of each region it names, so evaluating the run's
// statements in order for each element is the program's meaning (chunks of
// one size of a buffer are equal or disjoint, so element i of one is never
// another element of the other). A kernel
// is issued where its run ends, so everything it depends on is issued first.
#include "../detail/dyn_array.hpp"
#include "../ir/accesses.hpp"
#include "../ir/program_view.hpp"
#include "../plan/plan_arrays.hpp"
#include "../plan/plan_types.hpp"

namespace streamdsl::passes {

struct kernel_partition {
  detail::dyn_array<kernel_info> kernels;        // in issue order
  detail::dyn_array<std::int32_t> stmts;         // statements, kernel by kernel
  detail::dyn_array<std::int32_t> issue_before;  // per kernel: the statement it is issued before
  detail::dyn_array<std::int32_t> kernel_of;     // per statement: its kernel, or -1
  // Per kernel of a multi-kernel launch (passes/join_launches.hpp), the
  // first and last statement its launch spans in program order (-1: launched
  // alone; both empty before joining). The launch's kernels run at once, so
  // the memory plan takes each of their accesses as spanning that window.
  // (Arrays of int32_t: a dyn_array of a struct of its own costs every unit
  // its instantiation.)
  detail::dyn_array<std::int32_t> window_first, window_last;
  // Per kernel (may be empty): 1 where it is a piece of a run split by
  // split_wide_runs and the next kernel of its stream continues that run.
  detail::dyn_array<std::int32_t> continues;
};

template <class = void>
constexpr kernel_partition fuse_runs(const ir::program_view& p, bool fuse = true) {
  kernel_partition out;
  out.kernel_of.assign(p.stmts.size(), -1);
  detail::dyn_array<detail::dyn_array<std::int32_t>> open(p.streams.size());
  detail::dyn_array<std::int32_t> open_domain(p.streams.size(), 0);
  detail::dyn_array<std::int32_t> open_parts(p.streams.size(), 1);
  const auto n = static_cast<std::int32_t>(p.stmts.size());

  auto close = [&](std::int32_t s, std::int32_t before) {
    auto& run = open[static_cast<std::size_t>(s)];
    if (run.empty()) return;
    const auto k = static_cast<std::int32_t>(out.kernels.size());
    out.kernels.push_back(
        {s, open_domain[static_cast<std::size_t>(s)], open_parts[static_cast<std::size_t>(s)],
         static_cast<std::int32_t>(out.stmts.size()), static_cast<std::int32_t>(run.size())});
    for (auto i : run) {
      out.stmts.push_back(i);
      out.kernel_of[static_cast<std::size_t>(i)] = k;
    }
    out.issue_before.push_back(before);
    run.clear();
  };

  for (std::int32_t i = 0; i < n; ++i) {
    const auto& s = p.stmts[i];
    if (s.kind != ir::stmt_kind::assign) {
      close(s.stream, i);
      continue;
    }
    const auto domain = p.buffers[s.target].domain;
    const auto parts = ir::target_of(p, s).parts;
    const auto at = static_cast<std::size_t>(s.stream);
    auto& run = open[at];
    if (!run.empty() && (!fuse || open_domain[at] != domain || open_parts[at] != parts)) close(s.stream, i);
    run.push_back(i);
    open_domain[at] = domain;
    open_parts[at] = parts;
  }
  // Close the remaining runs in the order their last statements were written:
  // sorted when they are few, else found by one pass over the statements (a
  // scan of the streams per run is quadratic when many streams end with work).
  detail::dyn_array<std::int32_t> left;
  for (std::int32_t s = 0; s < static_cast<std::int32_t>(p.streams.size()); ++s)
    if (!open[static_cast<std::size_t>(s)].empty()) left.push_back(s);
  auto last_of = [&](std::int32_t s) { return open[static_cast<std::size_t>(s)].back(); };
  if (left.size() * left.size() <= static_cast<std::size_t>(n)) {
    for (std::size_t a = 1; a < left.size(); ++a)
      for (std::size_t c = a; c > 0 && last_of(left[c]) < last_of(left[c - 1]); --c) {
        const auto x = left[c];
        left[c] = left[c - 1];
        left[c - 1] = x;
      }
    for (auto s : left) close(s, n);
  } else {
    for (std::int32_t i = 0; i < n; ++i) {
      const auto& run = open[static_cast<std::size_t>(p.stmts[i].stream)];
      if (!run.empty() && run.back() == i) close(p.stmts[i].stream, n);
    }
  }
  return out;
}

// Growth bound (passes/schedule.hpp's bounds_of): each assignment is in one
// kernel, so at most one kernel per assignment.
template <class = void>
constexpr plan_sizes fuse_runs_bound(plan_sizes z, const ir::program& written) {
  const auto assigns = ir::count_statements(written, ir::stmt_kind::assign);
  z.kernels = assigns;
  z.kernel_stmts = assigns;
  return z;
}

}  // namespace streamdsl::passes
