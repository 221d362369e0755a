#pragma once
// Collectives on the GPU (ops/collective.hpp, ir/step.hpp): each collective
// step is one NCCL call (ncclAllReduce, ncclReduceScatter, ncclAllGather,
// ncclBroadcast) on its slot's stream, over the communicator bound to the
// executor (cuda_executor::bind_communicator: the caller's ncclComm_t).
// Include this header in a unit whose program has a collective, and link
// streamdsl::nccl: the executor does not include nccl.h, so units and
// programs without collectives neither parse it nor link the library
// (step_table.hpp has the interfaces the executor sees, and the
// static_assert naming this header).
//
// Types (ir::nccl_reduces): int8, uint8, int32, uint32, int64, uint64,
// __half, float, double and __nv_bfloat16 as NCCL's own (ncclFloat8e4m3/e5m2
// exist from NCCL 2.24, but streamdsl has no fp8 type). bool, int16_t and
// uint16_t have no NCCL type: all_gather and broadcast, which only move data,
// move them as bytes; the front end refuses reductions of them
// (ir::collective_supports). reduce_op maps to ncclSum, ncclProd, ncclMin,
// ncclMax and ncclAvg.
//
// In place (all_reduce and broadcast only, ir::runs_in_place) send and recv
// are the same pointer, NCCL's in-place form.
// Every call is stream-ordered like a kernel, so CUDA graphs capture it
// (NCCL supports capture of its collectives).
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>

#include "../../ir/dtype.hpp"
#include "../../ir/reduce_op.hpp"
#include "../../ir/step.hpp"
#include "nccl_communicator.hpp"
#include "step_table.hpp"

namespace streamdsl::cuda_detail {

struct collectives_header {};

// The NCCL type of `t` (ir::nccl_reduces says which types have one).
constexpr ncclDataType_t nccl_type_of(dtype t) {
  switch (t) {
    case dtype::int8: return ncclInt8;
    case dtype::uint8: return ncclUint8;
    case dtype::int32: return ncclInt32;
    case dtype::uint32: return ncclUint32;
    case dtype::int64: return ncclInt64;
    case dtype::uint64: return ncclUint64;
    case dtype::float16: return ncclFloat16;
    case dtype::bfloat16: return ncclBfloat16;
    case dtype::float32: return ncclFloat32;
    case dtype::float64: return ncclFloat64;
    default: return ncclUint8;  // moved as bytes (nccl_elements_of)
  }
}

// The type and count NCCL is given for `count` elements of type `t`: the
// type's own, or bytes for a type NCCL lacks (only data movement reaches it).
struct nccl_elements {
  ncclDataType_t type;
  std::size_t count;
};
constexpr nccl_elements nccl_elements_of(dtype t, std::size_t count) {
  return ir::nccl_reduces(t) ? nccl_elements{nccl_type_of(t), count}
                             : nccl_elements{ncclUint8, count * size_of(t)};
}

static_assert(nccl_elements_of(dtype::int16, 3).type == ncclUint8 &&
              nccl_elements_of(dtype::int16, 3).count == 6 &&
              nccl_elements_of(dtype::bfloat16, 3).type == ncclBfloat16 &&
              nccl_elements_of(dtype::bfloat16, 3).count == 3);

constexpr ncclRedOp_t nccl_op_of(ir::reduce_op op) {
  switch (op) {
    case ir::reduce_op::sum: return ncclSum;
    case ir::reduce_op::prod: return ncclProd;
    case ir::reduce_op::min: return ncclMin;
    case ir::reduce_op::max: return ncclMax;
    case ir::reduce_op::avg: return ncclAvg;
  }
  return ncclSum;
}

// What NCCL says of a failed call, as a step failure (the executor adds the
// statement and stream).
inline bool nccl_refused(ncclResult_t status, const char* call, ncclComm_t comm, step_failure& failure) {
  if (status == ncclSuccess || status == ncclInProgress) return true;
  failure.call = call;
  failure.name = ncclGetErrorString(status);
  const char* last = ncclGetLastError(comm);
  failure.text = last != nullptr && last[0] != '\0' ? last : "no further detail from ncclGetLastError";
  return false;
}

inline bool issue_collective(const collective_args& c, void* const* ptrs, ncclComm* comm, cudaStream_t s,
                             step_failure& failure) {
  const auto* send = static_cast<const char*>(ptrs[c.src]) + c.src_offset;
  auto* recv = static_cast<char*>(ptrs[c.dst]) + c.dst_offset;
  const auto e = nccl_elements_of(c.type, c.count);
  if (e.count == 0) return true;  // an empty region: nothing to issue
  switch (c.code) {
    case ir::step_code::all_reduce:
      return nccl_refused(ncclAllReduce(send, recv, e.count, e.type, nccl_op_of(c.op), comm, s),
                          "ncclAllReduce", comm, failure);
    case ir::step_code::reduce_scatter:
      return nccl_refused(ncclReduceScatter(send, recv, e.count, e.type, nccl_op_of(c.op), comm, s),
                          "ncclReduceScatter", comm, failure);
    case ir::step_code::all_gather:
      return nccl_refused(ncclAllGather(send, recv, e.count, e.type, comm, s), "ncclAllGather", comm,
                          failure);
    case ir::step_code::broadcast:
      return nccl_refused(ncclBroadcast(send, recv, e.count, e.type, c.root, comm, s), "ncclBroadcast", comm,
                          failure);
    default: break;
  }
  failure.call = "a collective";
  failure.name = "not a collective step";
  failure.text = "";
  return false;
}

inline void query_communicator(ncclComm* comm, int& size, int& rank, int& device) {
  const char* where = "the communicator bound to the executor";
  check_nccl(ncclCommCount(comm, &size), "ncclCommCount", comm, where);
  check_nccl(ncclCommUserRank(comm, &rank), "ncclCommUserRank", comm, where);
  check_nccl(ncclCommCuDevice(comm, &device), "ncclCommCuDevice", comm, where);
}

// The agreement of cuda_executor::bind_communicator: bind time only, so a
// plain cudaMalloc and a wait are fine here.
inline void gather_from_ranks(ncclComm* comm, cudaStream_t s, const long long* mine, long long* all,
                              std::size_t count) {
  int size = 0;
  check_nccl(ncclCommCount(comm, &size), "ncclCommCount", comm, "the communicator bound to the executor");
  const std::size_t bytes = count * sizeof(long long);
  long long* d = nullptr;
  check(cudaMalloc(&d, bytes * (1 + static_cast<std::size_t>(size))), "cudaMalloc",
        "the ranks' agreement on their collectives");
  struct freed {
    long long* p;
    ~freed() { (void)cudaFree(p); }
  } owner{d};
  const char* where = "the ranks' agreement on their collectives (cuda_executor::bind_communicator)";
  check(cudaMemcpyAsync(d, mine, bytes, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync", where);
  check_nccl(ncclAllGather(d, d + count, count, ncclInt64, comm, s), "ncclAllGather", comm, where);
  check(cudaMemcpyAsync(all, d + count, bytes * static_cast<std::size_t>(size), cudaMemcpyDeviceToHost, s),
        "cudaMemcpyAsync", where);
  check(cudaStreamSynchronize(s), "cudaStreamSynchronize", where);
}

template <class Program>
struct collective_entry {
  static bool issue(const collective_args& c, void* const* ptrs, ncclComm* comm, cudaStream_t s,
                    step_failure& failure) {
    return issue_collective(c, ptrs, comm, s, failure);
  }
  static void query(ncclComm* comm, int& size, int& rank, int& device) {
    query_communicator(comm, size, rank, device);
  }
  static void gather(ncclComm* comm, cudaStream_t s, const long long* mine, long long* all,
                     std::size_t count) {
    gather_from_ranks(comm, s, mine, all, count);
  }
};

}  // namespace streamdsl::cuda_detail
