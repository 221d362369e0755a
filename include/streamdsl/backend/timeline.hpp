#pragma once
// A run's timeline: when each kernel and step of a plan started and ended, on
// which stream slot. Both executors record one when a run is given the run
// option sd::record_timeline(t):
//
//   sd::timeline t;
//   ex.run(prog, sd::bind("x", x), sd::bind("y", y), sd::record_timeline(t));
//   std::ofstream("run.json") << sd::chrome_trace(t);  // chrome_trace.hpp
//
// The host executor reads the monotonic clock (the one std::chrono::
// steady_clock reads) on the thread that runs the op's stream slot; the CUDA
// executor records CUDA events around each op on its stream and reads their
// elapsed times once the run has ended. Records and waits are not timed (an
// event record takes no time on a stream; how long a stream waited shows as
// the gap before its next slice). Without the option nothing of this runs: no
// clock is read and no event is made.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../detail/dyn_array.hpp"
#include "../detail/owned_string.hpp"
#include "../detail/text.hpp"
#include "../ir/render.hpp"
#include "../plan/plan_view.hpp"

namespace streamdsl {

// One timed op: a kernel launch, a step, or (on the GPU) a row group's kernel.
struct timeline_slice {
  std::int32_t op = -1;          // its index in the plan's ops (a row group's first op)
  std::int32_t stream = 0;       // its stream slot: the lane it is drawn in
  std::int64_t start_ns = 0;     // from the run's start
  std::int64_t duration_ns = 0;  //
  std::size_t bytes = 0;         // the bytes a copy moves; 0 for the other ops
  detail::string_view kind;      // "kernel", "copy", "reduction", "scan", "matmul", "call", "row group"
  detail::owned_string name;     // the plan's text of the op (as in to_string())
};

class timeline {
 public:
  // The slices in plan op order (not time order).
  const detail::dyn_array<timeline_slice>& slices() const { return slices_; }
  // The lanes' names: the program's stream names, by slot ("main" first).
  const detail::dyn_array<detail::owned_string>& streams() const { return streams_; }
  // Which clock timed the run: "steady clock (sd::host_executor)" or "CUDA events (sd::cuda_executor)".
  detail::string_view clock() const { return clock_; }
  // From the run's start to its end (its last op on any stream, the exit edge).
  std::int64_t run_ns() const { return run_ns_; }
  bool empty() const { return slices_.empty(); }

  // --- filled by the executors: a timeline holds the last run recorded into it.
  // Clears it and names its lanes after the plan's streams.
  [[gnu::cold]] void begin(const plan_view& plan, detail::string_view clock) {
    slices_.clear();
    streams_.clear();
    for (std::int32_t s = 0; s < static_cast<std::int32_t>(plan.stream_count()); ++s)
      streams_.push_back(detail::owned_string(plan.ir.stream_name(s)));
    clock_ = clock;
    run_ns_ = 0;
  }
  // Adds op `op` of `plan` (a kernel or a step; with `group_size` > 1 a row
  // group of that many ops from it), named by the plan's text.
  [[gnu::cold]] void add(const plan_view& plan, std::size_t op, std::int64_t start_ns, std::int64_t end_ns,
                         std::size_t bytes, std::size_t group_size = 1) {
    const auto& o = plan.ops[op];
    timeline_slice slice;
    slice.op = static_cast<std::int32_t>(op);
    slice.stream = o.stream;
    slice.start_ns = start_ns;
    slice.duration_ns = end_ns > start_ns ? end_ns - start_ns : 0;
    slice.bytes = bytes;
    detail::text name;
    if (group_size > 1) {
      slice.kind = "row group";
      name << "row group of " << group_size << " ops: ";
      for (std::size_t g = op; g < op + group_size; ++g) {
        if (g > op) name << "; ";
        name_op(plan, g, name);
      }
    } else {
      slice.kind = o.kind == op_kind::kernel
                       ? detail::string_view("kernel")
                       : ir::name_of(ir::info(plan.ir.stmts[static_cast<std::size_t>(o.stmt)].code).form);
      name_op(plan, op, name);
    }
    slice.name = detail::owned_string(name.view());
    slices_.push_back(static_cast<timeline_slice&&>(slice));
  }
  void end(std::int64_t run_ns) { run_ns_ = run_ns; }

 private:
  // A kernel as "k3: y = x + 1" (a launch of several: "k3-k5: a = ...; b = ..."),
  // a step as its statement, "sd::copy(d.chunk(0, 4), h.chunk(0, 4))".
  [[gnu::cold]] static void name_op(const plan_view& plan, std::size_t op, detail::text& out) {
    const auto& o = plan.ops[op];
    if (o.kind != op_kind::kernel) {
      ir::render_statement(plan.ir, plan.ir.stmts[static_cast<std::size_t>(o.stmt)], out);
      return;
    }
    const auto k = static_cast<std::size_t>(o.kernel);
    const auto n = plan.segments_of(k);
    out << 'k' << k;
    if (n > 1) out << "-k" << k + n - 1;
    out << ": ";
    bool first = true;
    for (std::size_t g = k; g < k + n; ++g)
      for (auto s : plan.kernel_statements(g)) {
        if (!first) out << "; ";
        ir::render_statement(plan.ir, plan.ir.stmts[s], out);
        first = false;
      }
  }

  detail::dyn_array<timeline_slice> slices_;
  detail::dyn_array<detail::owned_string> streams_;
  detail::string_view clock_;
  std::int64_t run_ns_ = 0;
};

// The run option: record this run's timeline into `t` (which the run clears
// first). Not an option of sd::capture: a graph's launches are not timed op by op.
struct timeline_request {
  timeline* into = nullptr;
};
inline timeline_request record_timeline(timeline& t) { return {&t}; }

namespace backend_detail {
template <class T>
inline constexpr bool is_timeline_request = false;
template <>
inline constexpr bool is_timeline_request<timeline_request> = true;

template <class... Args>
inline constexpr std::size_t timeline_request_count =
    (std::size_t{0} + ... + (is_timeline_request<std::remove_cvref_t<Args>> ? 1 : 0));
}  // namespace backend_detail

}  // namespace streamdsl
