#pragma once
// The pass pipeline: IR in, plan model out. Each step is its own header and
// can be run and tested alone.
//
// Every pass function is a template with no parameter of its own
// (`template <class = void>`): a unit compiles the passes only where a
// program is scheduled. Under nvcc, cicc treats each non-template constexpr
// function as device code to compile (with --expt-relaxed-constexpr it is
// __host__ __device__) even in units that schedule nothing: as plain
// functions the passes cost a 20-statement plan unit ~290M cicc
// instructions, 5% of its compile (docs/benchmarks.md, session 6).
#include "batch_matmuls.hpp"
#include "fuse_into_steps.hpp"
#include "fusion.hpp"
#include "join_launches.hpp"
#include "lower_to_ops.hpp"
#include "lower_wait_stream.hpp"
#include "matmul_epilogue.hpp"
#include "memory_plan.hpp"
#include "options.hpp"
#include "placement.hpp"
#include "races.hpp"
#include "redundant_waits.hpp"
#include "row_groups.hpp"
#include "sync_insertion.hpp"

namespace streamdsl::passes {

template <class = void>
constexpr plan_model schedule(ir::program p, options o) {
  plan_model m;
  m.ir = static_cast<ir::program&&>(p);
  if (!m.ir.ok()) return m;
  lower_wait_stream(m.ir);
  if (o.sync == sync_policy::checked) {
    const auto races = find_races(ir::view_of(m.ir));
    if (!races.empty()) {
      m.ir.fail(diag::error_kind::race, describe_races(ir::view_of(m.ir), races));
      return m;
    }
  }
  // Batches of independent matmuls (batch_matmuls.hpp): before sync
  // insertion, which orders them; under sd::checked it runs only when a
  // batch was made (the user's syncs stay; it adds what the moved members need).
  const bool batched = batches_matmuls(o) && batch_matmuls(m) > 0;
  if (o.sync == sync_policy::automatic || (batched && o.sync == sync_policy::checked)) insert_syncs(m.ir);
  if (o.fusion && o.placement != placement_policy::as_written) {
    fuse_into_steps(m);
    fold_matmul_epilogues(m);
    inline_row_temps(m);
  }
  place_work(m, o);
  remove_redundant_waits(m);
  auto parts = fuse_runs(ir::view_of(m.ir), o.fusion);
  if (o.fusion && o.join_launches)
    parts = join_launches(ir::view_of(m.ir), static_cast<passes::kernel_partition&&>(parts), &m);
  plan_memory(m, parts);
  lower_to_ops(m, parts);
  if (o.fusion && o.placement != placement_policy::as_written) join_row_groups(m);
  m.intern_notes();
  return m;
}

}  // namespace streamdsl::passes

namespace streamdsl {

// Upper bounds of every array of the plan schedule(p, o) makes: the sizes of
// program `p` as written, grown by each pass's own bound in pipeline order.
template <class = void>
constexpr plan_sizes bounds_of(const ir::program& p, options o) {
  auto z = sizes_of(p);
  z = passes::lower_wait_stream_bound(z, p);
  const bool batched = passes::batches_matmuls(o) && passes::count_matmul_batches(p) > 0;
  if (batched) z = passes::batch_matmuls_bound(z, p);
  // A batch has at most the waits its members had (each capped at one per other stream).
  if (o.sync == sync_policy::automatic || (batched && o.sync == sync_policy::checked))
    z = passes::insert_syncs_bound(z, p);
  if (o.fusion && o.placement != placement_policy::as_written) {
    z = passes::fuse_into_steps_bound(z, p);
    z = passes::fold_matmul_epilogues_bound(z, p);
    z = passes::inline_row_temps_bound(z, p);
  }
  z = passes::place_work_bound(z);
  z = passes::remove_redundant_waits_bound(z);
  z = passes::fuse_runs_bound(z, p);
  if (o.fusion && o.join_launches) z = passes::join_launches_bound(z);
  z = passes::plan_memory_bound(z);
  z = passes::lower_to_ops_bound(z);
  // join_row_groups adds nothing: it marks ops (plan_op::group).
  return notes_bound(z);
}

}  // namespace streamdsl
