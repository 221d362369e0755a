#pragma once
// What sd::host_executor runs collectives over: a communicator, bound to the
// executor (not to a run's bindings), as the CUDA executor is bound to the
// caller's ncclComm_t (cuda_executor::bind_communicator):
//
//   sd::loopback_world world(2);            // ranks as threads of this process (loopback.hpp)
//   world.run(prog, [&](int rank) { return std::vector<sd::binding>{sd::bind("g", g[rank])}; });
//   // or by hand: world.executor(r) is bound to world.communicator(r), one thread per rank:
//   sd::host_executor ex;  ex.bind_communicator(world.communicator(r));  ex.run(prog, ...);
//
// Why on the executor: a communicator lives as long as the process group (it
// is made once, at start-up, and names this process's rank), while bindings
// change from run to run; an executor is one rank's (one device's, on the
// GPU), so it holds its rank's communicator, and a run checks its extents
// against it before anything runs. A program with a collective run on an
// executor with no communicator is a binding_error.
//
// host_communicator is the interface the executor calls; sd::loopback_communicator
// (loopback.hpp) implements it over in-process ranks. Another transport (MPI,
// sockets) is another implementation.
#include <cstddef>
#include <cstdint>

#include "../../ir/dtype.hpp"
#include "../../ir/reduce_op.hpp"
#include "../../ir/step.hpp"
#include "../../plan/plan_view.hpp"

namespace streamdsl {

namespace host_detail {
// One collective of one rank's run, laid out: its code, op, element type and
// root, where it reads and writes for this run, and where it is in the plan.
struct collective_call {
  ir::step_code code = ir::step_code::all_reduce;
  reduce_op op = reduce_op::sum;
  dtype type = dtype::float32;
  std::int32_t root = 0;
  std::int32_t op_index = -1;  // the plan op: which collective this is on every rank
  std::int32_t stmt = -1;      // its statement, for messages
  std::int32_t source_buffer = -1, target_buffer = -1;
  const std::byte* source = nullptr;
  std::byte* target = nullptr;
  std::size_t source_count = 0, target_count = 0;  // elements
};
}  // namespace host_detail

class host_communicator {
 public:
  virtual ~host_communicator() = default;
  virtual int rank() const noexcept = 0;
  virtual int size() const noexcept = 0;
  // Called by every rank before its run issues anything, with its plan and
  // its collectives (in plan order): returns once every rank has arrived, or
  // throws binding_error on every rank when they disagree (a buffer bound
  // with other extents on another rank, another plan).
  virtual void agree(const plan_view& plan, const host_detail::collective_call* calls, std::size_t count) = 0;
  // One collective: returns once every rank has issued it and this rank's
  // target holds the result.
  virtual void run(const host_detail::collective_call& call) = 0;
  // This rank failed (a bad binding, a throwing call, ...): every rank
  // waiting in agree or run stops waiting and throws, so no rank hangs.
  virtual void abort() noexcept = 0;
};

}  // namespace streamdsl
