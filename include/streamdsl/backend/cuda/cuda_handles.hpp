#pragma once
// CUDA handles with one owner each: destroyed when their owner is, moved and
// never copied, so a constructor that throws half way (a capture that fails,
// a push_back without memory) leaks no stream, event, graph or memory.
#include <cuda_runtime.h>

#include "cuda_error.hpp"

namespace streamdsl::cuda_detail {

// Owns one handle of type Handle (a pointer type); Destroy releases it.
template <class Handle, class Destroy>
class unique_handle {
 public:
  unique_handle() = default;
  explicit unique_handle(Handle h) noexcept : h_(h) {}
  unique_handle(unique_handle&& other) noexcept : h_(other.release()) {}
  unique_handle& operator=(unique_handle&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  unique_handle(const unique_handle&) = delete;
  unique_handle& operator=(const unique_handle&) = delete;
  ~unique_handle() { reset(); }

  Handle get() const noexcept { return h_; }
  explicit operator bool() const noexcept { return h_ != nullptr; }
  // Gives the handle up without destroying it.
  Handle release() noexcept {
    const Handle h = h_;
    h_ = nullptr;
    return h;
  }
  // Destroys the handle held, if any (a failure there is not reported: the
  // handle is gone either way), and holds `h`.
  void reset(Handle h = nullptr) noexcept {
    if (h_ != nullptr) (void)Destroy{}(h_);
    h_ = h;
  }

 private:
  Handle h_ = nullptr;
};

struct destroy_stream {
  cudaError_t operator()(cudaStream_t s) const noexcept { return cudaStreamDestroy(s); }
};
struct destroy_event {
  cudaError_t operator()(cudaEvent_t e) const noexcept { return cudaEventDestroy(e); }
};
struct destroy_graph {
  cudaError_t operator()(cudaGraph_t g) const noexcept { return cudaGraphDestroy(g); }
};
struct destroy_graph_exec {
  cudaError_t operator()(cudaGraphExec_t g) const noexcept { return cudaGraphExecDestroy(g); }
};
struct destroy_mem_pool {
  cudaError_t operator()(cudaMemPool_t p) const noexcept { return cudaMemPoolDestroy(p); }
};
struct free_device_memory {
  cudaError_t operator()(void* p) const noexcept { return cudaFree(p); }
};

using owned_stream = unique_handle<cudaStream_t, destroy_stream>;
using owned_event = unique_handle<cudaEvent_t, destroy_event>;
using owned_graph = unique_handle<cudaGraph_t, destroy_graph>;
using owned_graph_exec = unique_handle<cudaGraphExec_t, destroy_graph_exec>;
using owned_device_memory = unique_handle<void*, free_device_memory>;
using owned_mem_pool = unique_handle<cudaMemPool_t, destroy_mem_pool>;

// A new stream that does not synchronise with the legacy default stream.
inline owned_stream new_stream() {
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  return owned_stream(s);
}

// A new event for ordering only (no timing).
inline owned_event new_event() {
  cudaEvent_t e = nullptr;
  check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreateWithFlags");
  return owned_event(e);
}

// A new event that records a time (for timelines, backend/timeline.hpp).
inline owned_event new_timing_event() {
  cudaEvent_t e = nullptr;
  check(cudaEventCreateWithFlags(&e, cudaEventDefault), "cudaEventCreateWithFlags");
  return owned_event(e);
}

// A stream-ordered memory pool on `device` that keeps what is freed into it
// (release threshold: all of it) until it is destroyed: a run's workspace is
// then reused by the next run, as PyTorch's caching allocator reuses blocks,
// instead of being mapped again each time (13% of workload 5's time with the
// device's default pool, which releases at every synchronisation).
inline owned_mem_pool new_caching_pool(int device) {
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t pool = nullptr;
  check(cudaMemPoolCreate(&pool, &props), "cudaMemPoolCreate");
  owned_mem_pool owned(pool);
  unsigned long long keep = ~0ull;  // cuuint64_t (cuda.h): all of it
  check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep), "cudaMemPoolSetAttribute");
  return owned;
}

}  // namespace streamdsl::cuda_detail
