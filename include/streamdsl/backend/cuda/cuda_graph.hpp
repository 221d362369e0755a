#pragma once
#include "../../detail/require_cxx20.hpp"
#if STREAMDSL_CXX20  // else require_cxx20.hpp has said why
// Graph mode: a bound program captured once into an instantiated CUDA graph
// and replayed with one cudaGraphLaunch. Rebinding buffers re-captures and
// updates the instantiated graph in place (cudaGraphExecUpdate), so node
// parameters change without a new instantiation when the shape is the same.
// Capture runs on a private stream, so the caller's stream may be the legacy
// default stream; the temp workspace is owned by the graph.
#include <cuda_runtime.h>

#include "cuda_executor.hpp"
#include "cuda_handles.hpp"

namespace streamdsl {

template <class Program>
class cuda_graph {
 public:
  // Captures the program with `bindings`; throws (binding_error, cuda_error)
  // without leaking the capture stream, the workspace or a graph.
  cuda_graph(cuda_executor& executor, binding_list bindings)
      : executor_(&executor), capture_stream_(cuda_detail::new_stream()) {
    capture(bindings);
  }
  // Movable (the moved-from graph can only be destroyed or assigned to), not copyable.
  cuda_graph(cuda_graph&&) noexcept = default;
  cuda_graph& operator=(cuda_graph&& other) noexcept {
    // The instantiated graph goes before the memory its nodes use.
    exec_ = static_cast<cuda_detail::owned_graph_exec&&>(other.exec_);
    workspace_ = static_cast<cuda_detail::owned_device_memory&&>(other.workspace_);
    capture_stream_ = static_cast<cuda_detail::owned_stream&&>(other.capture_stream_);
    executor_ = other.executor_;
    workspace_bytes_ = other.workspace_bytes_;
    updates_ = other.updates_;
    instantiations_ = other.instantiations_;
    other.workspace_bytes_ = 0;
    return *this;
  }

  // One cudaGraphLaunch on the executor's main stream (or on `stream`).
  void launch() { launch(executor_->main_stream()); }
  void launch(cudaStream_t stream) {
    if (!exec_)
      throw error("streamdsl: launch of an sd::cuda_graph that was moved from; launch the one it moved to");
    cuda_detail::check(cudaGraphLaunch(exec_.get(), stream), "cudaGraphLaunch");
  }

  template <class... Bindings>
  void rebind(Bindings&&... bindings) {
    const binding list[sizeof...(Bindings) > 0 ? sizeof...(Bindings) : 1] = {
        binding(static_cast<Bindings&&>(bindings))...};
    capture(binding_list(list, sizeof...(Bindings)));
  }

  // How many times the instantiated graph was updated in place / rebuilt.
  int updates() const { return updates_; }
  int instantiations() const { return instantiations_; }

 private:
  // Strong guarantee: if a rebind throws (a binding, the allocation, the
  // capture or the instantiation), the graph keeps its previous bindings,
  // workspace and instantiated graph, and launch() replays them. A larger
  // workspace is adopted, and the old one freed, only once the graph uses it.
  void capture(binding_list bindings) {
    if (!capture_stream_) throw error("streamdsl: rebind of an sd::cuda_graph that was moved from");
    constexpr plan_view plan = Program::plan();
    const auto& ready = executor_->prepare<Program>(bindings);
    const auto bytes = ready.workspace_bytes;
    cuda_detail::owned_device_memory grown;
    if (bytes > workspace_bytes_)
      grown.reset(cuda_detail::allocate_workspace(plan, bytes, "cudaMalloc",
                                                  [&](void** p) { return cudaMalloc(p, bytes); }));
    void* const workspace = grown ? grown.get() : workspace_.get();
    const cudaStream_t stream = capture_stream_.get();
    cuda_detail::check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal),
                       "cudaStreamBeginCapture");
    try {
      executor_->issue<Program>(ready, workspace, stream);
    } catch (...) {
      cudaGraph_t partial = nullptr;
      (void)cudaStreamEndCapture(stream, &partial);  // already failing: the first error is reported
      cuda_detail::owned_graph discarded(partial);
      throw;
    }
    cudaGraph_t captured = nullptr;
    cuda_detail::check(cudaStreamEndCapture(stream, &captured), "cudaStreamEndCapture");
    const cuda_detail::owned_graph graph(captured);
    cudaGraphExecUpdateResultInfo info{};
    if (exec_ && cudaGraphExecUpdate(exec_.get(), graph.get(), &info) == cudaSuccess) {
      ++updates_;
    } else {
      (void)cudaGetLastError();  // a failed update is answered by a new instantiation
      cudaGraphExec_t instantiated = nullptr;
      cuda_detail::check(cudaGraphInstantiate(&instantiated, graph.get(), 0), "cudaGraphInstantiate");
      exec_.reset(instantiated);
      ++instantiations_;
    }
    if (grown) {
      workspace_ = static_cast<cuda_detail::owned_device_memory&&>(grown);  // frees the old one
      workspace_bytes_ = bytes;
    }
  }

  cuda_executor* executor_;
  cuda_detail::owned_stream capture_stream_;
  cuda_detail::owned_device_memory workspace_;
  cuda_detail::owned_graph_exec exec_;  // declared last: destroyed before the memory its nodes use
  std::size_t workspace_bytes_ = 0;
  int updates_ = 0;
  int instantiations_ = 0;
};

template <class Program>
cuda_graph<Program> capture_bound(cuda_executor& executor, const Program&, binding_list bindings) {
  return cuda_graph<Program>(executor, bindings);
}

template <class Program, class... Bindings>
cuda_graph<Program> capture(cuda_executor& executor, const Program&, Bindings&&... bindings) {
  const binding list[sizeof...(Bindings) > 0 ? sizeof...(Bindings) : 1] = {
      binding(static_cast<Bindings&&>(bindings))...};
  return cuda_graph<Program>(executor, binding_list(list, sizeof...(Bindings)));
}

}  // namespace streamdsl
#endif  // STREAMDSL_CXX20
