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

namespace streamdsl {

template <class Program>
class cuda_graph {
 public:
  cuda_graph(cuda_executor& executor, binding_list bindings) : executor_(&executor) {
    cuda_detail::check(cudaStreamCreateWithFlags(&capture_stream_, cudaStreamNonBlocking),
                       "cudaStreamCreateWithFlags");
    capture(bindings);
  }
  cuda_graph(const cuda_graph&) = delete;
  cuda_graph& operator=(const cuda_graph&) = delete;
  ~cuda_graph() {
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
    if (workspace_ != nullptr) cudaFree(workspace_);
    if (capture_stream_ != nullptr) cudaStreamDestroy(capture_stream_);
  }

  // One cudaGraphLaunch on the executor's main stream (or on `stream`).
  void launch() { launch(executor_->main_stream()); }
  void launch(cudaStream_t stream) { cuda_detail::check(cudaGraphLaunch(exec_, stream), "cudaGraphLaunch"); }

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
  void capture(binding_list bindings) {
    const auto& ready = executor_->prepare<Program>(bindings);
    const auto bytes = ready.workspace_bytes;
    if (bytes > workspace_bytes_) {
      if (workspace_ != nullptr)
        cuda_detail::check(cudaFree(workspace_), "cudaFree", "the graph's workspace");
      workspace_ = nullptr;
      cuda_detail::check(cudaMalloc(&workspace_, bytes), "cudaMalloc", "the graph's workspace");
      workspace_bytes_ = bytes;
    }
    cuda_detail::check(cudaStreamBeginCapture(capture_stream_, cudaStreamCaptureModeThreadLocal),
                       "cudaStreamBeginCapture");
    cudaGraph_t graph = nullptr;
    try {
      executor_->issue<Program>(ready, workspace_, capture_stream_);
    } catch (...) {
      cudaStreamEndCapture(capture_stream_, &graph);
      if (graph != nullptr) cudaGraphDestroy(graph);
      throw;
    }
    cuda_detail::check(cudaStreamEndCapture(capture_stream_, &graph), "cudaStreamEndCapture");
    if (exec_ != nullptr) {
      cudaGraphExecUpdateResultInfo info{};
      if (cudaGraphExecUpdate(exec_, graph, &info) == cudaSuccess) {
        ++updates_;
        cudaGraphDestroy(graph);
        return;
      }
      cudaGetLastError();
      cudaGraphExecDestroy(exec_);
      exec_ = nullptr;
    }
    const auto status = cudaGraphInstantiate(&exec_, graph, 0);
    cudaGraphDestroy(graph);
    cuda_detail::check(status, "cudaGraphInstantiate");
    ++instantiations_;
  }

  cuda_executor* executor_;
  cudaStream_t capture_stream_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  void* workspace_ = nullptr;
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
