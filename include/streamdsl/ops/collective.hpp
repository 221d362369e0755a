#pragma once
// Collectives (SPMD): the program is one rank's work, and every rank runs
// the same program, so every rank issues the same collectives in the same
// order by construction. Each is a step on the current stream that reads
// its source region and writes its target region, ordered, synced, placed
// and memory-planned like any step; on the GPU it is one NCCL call on that
// stream, on the host executor a loopback over in-process ranks
// (backend/host/loopback.hpp). Buffers or chunks, device memory only, one
// element type for source and target:
//
//   sd::all_reduce(x, sd::reduce_op::sum);        // in place: every rank's x becomes the sum of all x
//   y = sd::all_reduce(x, sd::reduce_op::max);    // into y (x's size)
//   y = sd::reduce_scatter(x, sd::reduce_op::sum);// y: x's extent / ranks elements; rank r gets part r
//   y = sd::all_gather(x);                        // y: ranks * x's extent; rank r's x at part r
//   sd::broadcast(x, 0);                          // in place: rank 0's x to every rank
//   y = sd::broadcast(x, 0);                      // into y
//   sd::all_reduce(g.chunk(i, k), sd::reduce_op::sum); // a bucket of a gradient
//
// Reduce ops (ir/reduce_op.hpp): sum, prod, min, max, avg as NCCL's; avg on
// floating types only, and the reducing collectives on the types NCCL
// reduces (not bool, int16_t, uint16_t: ir::collective_supports);
// all_gather and broadcast move any type. The extents a collective needs
// (divisible by the world's size, the same on every rank, a root below
// it) are checked when the program is bound to a communicator, before
// anything runs (sd::binding_error).
#include "../dsl/collective_value.hpp"
#include "../ir/reduce_op.hpp"
#include "call.hpp"  // detail::region_handle

namespace streamdsl {

namespace detail {
template <region_handle X>
constexpr collective_value make_collective(ir::step_code code, const X& x, reduce_op op, std::int32_t root) {
  return collective_value(builder_access::state_of(x), code, builder_access::region_of(x), op, root);
}
}  // namespace detail

// Every rank's x (or y) becomes op over all ranks' x; sum by default, as torch.distributed.
template <detail::region_handle X>
constexpr detail::collective_value all_reduce(const X& x, reduce_op op = reduce_op::sum) {
  return detail::make_collective(ir::step_code::all_reduce, x, op, 0);
}
// y = op over all ranks' x, cut into ranks parts: rank r's y is part r.
template <detail::region_handle X>
constexpr detail::collective_value reduce_scatter(const X& x, reduce_op op = reduce_op::sum) {
  return detail::make_collective(ir::step_code::reduce_scatter, x, op, 0);
}
// y = every rank's x, in rank order.
template <detail::region_handle X>
constexpr detail::collective_value all_gather(const X& x) {
  return detail::make_collective(ir::step_code::all_gather, x, reduce_op::sum, 0);
}
// Every rank's x (or y) becomes rank `root`'s x.
template <detail::region_handle X>
constexpr detail::collective_value broadcast(const X& x, int root) {
  return detail::make_collective(ir::step_code::broadcast, x, reduce_op::sum, root);
}

}  // namespace streamdsl
