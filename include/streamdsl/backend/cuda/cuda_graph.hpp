#pragma once
#include "../../detail/require_cxx20.hpp"
#if STREAMDSL_CXX20  // else require_cxx20.hpp has said why
// Graph mode: a bound program captured once into an instantiated CUDA graph
// and replayed with one cudaGraphLaunch. Rebinding buffers re-captures and
// updates the instantiated graph in place (cudaGraphExecUpdate), so node
// parameters change without a new instantiation when the shape is the same.
// Capture runs on a private stream, so the caller's stream may be the legacy
// default stream; the temp workspace is owned by the graph (from cudaMalloc or
// the caller's allocator), or is the caller's buffer. The caller's events
// (sd::after, sd::then_record) become external event nodes: each launch waits
// for their latest record before it and records them at its end. A timeline
// (sd::record_timeline) is not an option of capture: a graph is not timed op by op.
#include <cuda_runtime.h>

#include "cuda_executor.hpp"
#include "cuda_handles.hpp"

namespace streamdsl {

namespace cuda_detail {

// A graph's workspace: from cudaMalloc (freed with cudaFree) or from the
// caller's allocator (given back to it on the stream the graph was last
// launched on, so after that launch's work).
class graph_workspace {
 public:
  graph_workspace() = default;
  graph_workspace(void* ptr, std::size_t bytes, const workspace_allocator* allocator, cudaStream_t stream)
      : ptr_(ptr), bytes_(bytes), stream_(stream), from_caller_(allocator != nullptr) {
    if (allocator != nullptr) allocator_ = *allocator;
  }
  graph_workspace(graph_workspace&& other) noexcept { take(other); }
  graph_workspace& operator=(graph_workspace&& other) noexcept {
    if (this != &other) {
      reset();
      take(other);
    }
    return *this;
  }
  ~graph_workspace() { reset(); }

  void* get() const noexcept { return ptr_; }
  explicit operator bool() const noexcept { return ptr_ != nullptr; }
  void release_on(cudaStream_t stream) noexcept { stream_ = stream; }
  // A failure to free is not reported: the memory is the graph's no more either way.
  void reset() noexcept {
    if (ptr_ == nullptr) return;
    if (!from_caller_) {
      (void)cudaFree(ptr_);
    } else {
      try {
        allocator_.deallocate(ptr_, bytes_, stream_);
      } catch (...) {
      }
    }
    ptr_ = nullptr;
  }

 private:
  void take(graph_workspace& other) noexcept {
    ptr_ = other.ptr_;
    bytes_ = other.bytes_;
    stream_ = other.stream_;
    from_caller_ = other.from_caller_;
    allocator_ = other.allocator_;
    other.ptr_ = nullptr;
  }

  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  cudaStream_t stream_ = nullptr;
  bool from_caller_ = false;
  workspace_allocator allocator_{nullptr, nullptr};
};

// Whether some copy of the plan reads or writes a buffer declared
// sd::pageable: a graph cannot hold such a copy (CUDA copies pageable memory
// through a staging buffer, synchronously, and refuses it under capture).
constexpr bool copies_pageable_memory(const plan_view& plan) {
  for (const auto& s : plan.ir.stmts) {
    if (s.kind != ir::stmt_kind::step || s.code != ir::step_code::copy) continue;
    for (const auto& r : ir::reads_of(plan.ir, s))
      if (plan.ir.buffers[static_cast<std::size_t>(r.buffer)].space == ir::memory_space::pageable)
        return true;
    for (const auto& r : ir::writes_of(plan.ir, s))
      if (plan.ir.buffers[static_cast<std::size_t>(r.buffer)].space == ir::memory_space::pageable)
        return true;
  }
  return false;
}

}  // namespace cuda_detail

template <class Program>
class cuda_graph {
  static_assert(!cuda_detail::copies_pageable_memory(Program::plan()),
                "streamdsl: sd::capture of a program that copies pageable host memory (an sd::copy reads or "
                "writes a buffer declared sd::pageable): a CUDA graph cannot hold such a copy; declare the "
                "buffer sd::pinned and bind page-locked memory (cudaMallocHost or cudaHostRegister)");

 public:
  // Captures the program with `bindings`; throws (binding_error, cuda_error)
  // without leaking the capture stream, the workspace or a graph.
  cuda_graph(cuda_executor& executor, binding_list bindings) : cuda_graph(executor, bindings, {}, {}, {}) {}
  // With run options (run_options.hpp): the caller's events, copied into the
  // graph, and where its workspace comes from. They are fixed for the graph's life.
  cuda_graph(cuda_executor& executor, binding_list bindings, detail::array_view<cudaEvent_t> waits,
             detail::array_view<cudaEvent_t> records, const cuda_detail::workspace_choice& workspace)
      : executor_(&executor), workspace_from_(workspace) {
    cuda_detail::check_caller_events(waits, records);
    waits_.append(waits.data(), waits.size());
    records_.append(records.data(), records.size());
    capture_stream_ = cuda_detail::new_stream();
    capture(bindings);
  }
  // Movable (the moved-from graph can only be destroyed or assigned to), not copyable.
  cuda_graph(cuda_graph&&) noexcept = default;
  cuda_graph& operator=(cuda_graph&& other) noexcept {
    // The instantiated graph goes before the memory its nodes use.
    exec_ = static_cast<cuda_detail::owned_graph_exec&&>(other.exec_);
    workspace_ = static_cast<cuda_detail::graph_workspace&&>(other.workspace_);
    host_tasks_ = static_cast<cuda_detail::host_tasks_ref&&>(other.host_tasks_);
    capture_stream_ = static_cast<cuda_detail::owned_stream&&>(other.capture_stream_);
    executor_ = other.executor_;
    workspace_from_ = other.workspace_from_;
    waits_ = static_cast<detail::dyn_array<cudaEvent_t>&&>(other.waits_);
    records_ = static_cast<detail::dyn_array<cudaEvent_t>&&>(other.records_);
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
    executor_->report_host_step_failures();  // a host step that threw earlier (host_steps.hpp)
    cuda_detail::check(cudaGraphLaunch(exec_.get(), stream), "cudaGraphLaunch");
    workspace_.release_on(stream);  // a workspace given back is reused only after this launch
    if (host_tasks_) host_tasks_.release_on(stream);  // likewise the host steps' tasks
  }

  template <class... Bindings>
  void rebind(Bindings&&... bindings) {
    if constexpr ((cuda_detail::run_option<Bindings> || ...)) {
      static_assert(
          !(cuda_detail::run_option<Bindings> || ...),
          "streamdsl: rebind takes bindings only: a graph's events (sd::after, sd::then_record) and "
          "its workspace (sd::workspace_from, sd::workspace_in) are fixed when it is captured; "
          "capture a new graph (sd::capture) to change them");
    } else {
      const binding list[sizeof...(Bindings) > 0 ? sizeof...(Bindings) : 1] = {
          binding(static_cast<Bindings&&>(bindings))...};
      capture(binding_list(list, sizeof...(Bindings)));
    }
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
    executor_->report_host_step_failures();
    const auto& ready = executor_->prepare<Program>(bindings);
    const auto bytes = ready.workspace_bytes;
    using source = cuda_detail::workspace_choice::source;
    cuda_detail::graph_workspace grown;
    void* workspace = nullptr;
    if (workspace_from_.from == source::buffer) {
      executor_->check_workspace_buffer(plan, workspace_from_.buffer, bytes);
      workspace = workspace_from_.buffer.data;
    } else {
      if (bytes > workspace_bytes_) {
        const cudaStream_t main = executor_->main_stream();
        if (workspace_from_.from == source::allocator) {
          grown = cuda_detail::graph_workspace(
              cuda_detail::allocate_from_caller(plan, workspace_from_.allocator, bytes, main), bytes,
              &workspace_from_.allocator, main);
          // Stream-ordered memory is ready once `main` passes the allocation;
          // the graph may be launched on any stream: wait for it here, once.
          cuda_detail::check(cudaStreamSynchronize(main), "cudaStreamSynchronize",
                             "the graph's workspace from the caller's allocator");
        } else
          grown = cuda_detail::graph_workspace(
              cuda_detail::allocate_workspace(plan, bytes, "cudaMalloc",
                                              [&](void** p) { return cudaMalloc(p, bytes); }),
              bytes, nullptr, main);
      }
      workspace = grown ? grown.get() : workspace_.get();
    }
    cuda_executor::issue_options options;
    options.waits = waits_;
    options.records = records_;
    options.wait_flags = cudaEventWaitExternal;  // the caller's events are outside the graph
    options.record_flags = cudaEventRecordExternal;
    options.workspace = workspace;
    const cudaStream_t stream = capture_stream_.get();
    cuda_detail::check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal),
                       "cudaStreamBeginCapture");
    try {
      executor_->issue<Program>(ready, stream, options);
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
      workspace_ = static_cast<cuda_detail::graph_workspace&&>(grown);  // frees the old one
      workspace_bytes_ = bytes;
    }
    // The host nodes' tasks: held while the graph lives; the old ones go
    // after the last launch that used them.
    host_tasks_ = ready.host_tasks.share();
  }

  cuda_executor* executor_;
  cuda_detail::workspace_choice workspace_from_;
  detail::dyn_array<cudaEvent_t> waits_, records_;  // the caller's, waited for and recorded by each launch
  cuda_detail::owned_stream capture_stream_;
  cuda_detail::graph_workspace workspace_;
  cuda_detail::host_tasks_ref host_tasks_;  // the host nodes' user data (host_steps.hpp)
  cuda_detail::owned_graph_exec exec_;      // declared last: destroyed before the memory its nodes use
  std::size_t workspace_bytes_ = 0;
  int updates_ = 0;
  int instantiations_ = 0;
};

// Run options (run_options.hpp) may follow the list, or stand among the
// bindings of capture(): the graph's launches wait for and record the caller's
// events, and its workspace comes from the caller's allocator or buffer.
template <class Program, class... Options>
  requires(cuda_detail::run_option<Options>&&...)
cuda_graph<Program> capture_bound(cuda_executor& executor, const Program&, binding_list bindings,
                                  Options&&... options) {
  static_assert(backend_detail::timeline_request_count<Options...> == 0,
                "streamdsl: sd::capture with sd::record_timeline: a graph's launches replay its ops as one "
                "unit, which is not timed op by op; record the timeline of a run instead "
                "(ex.run(prog, ..., sd::record_timeline(t))), or profile the graph's launches with Nsight "
                "Systems");
  if constexpr (sizeof...(Options) == 0) {
    return cuda_graph<Program>(executor, bindings);
  } else {
    static_assert(cuda_detail::workspace_option_count<Options...> <= 1,
                  "streamdsl: capture() was given two workspaces (sd::workspace_from, sd::workspace_in); the "
                  "temps of a graph live in one: pass one of them");
    detail::dyn_array<cudaEvent_t> waits, records;
    cuda_detail::gathered_options gathered{waits, records, {}};
    (gathered.add(options), ...);
    return cuda_graph<Program>(executor, bindings, waits, records, gathered.workspace);
  }
}

template <class Program, class... Args>
  requires((std::convertible_to<Args, binding> || cuda_detail::run_option<Args>)&&...)
cuda_graph<Program> capture(cuda_executor& executor, const Program&, Args&&... args) {
  static_assert(backend_detail::timeline_request_count<Args...> == 0,
                "streamdsl: sd::capture with sd::record_timeline: a graph's launches replay its ops as one "
                "unit, which is not timed op by op; record the timeline of a run instead "
                "(ex.run(prog, ..., sd::record_timeline(t))), or profile the graph's launches with Nsight "
                "Systems");
  if constexpr (cuda_detail::binding_count<Args...> == sizeof...(Args)) {
    const binding list[sizeof...(Args) > 0 ? sizeof...(Args) : 1] = {binding(static_cast<Args&&>(args))...};
    return cuda_graph<Program>(executor, binding_list(list, sizeof...(Args)));
  } else {
    static_assert(cuda_detail::workspace_option_count<Args...> <= 1,
                  "streamdsl: capture() was given two workspaces (sd::workspace_from, sd::workspace_in); the "
                  "temps of a graph live in one: pass one of them");
    constexpr std::size_t n = cuda_detail::binding_count<Args...>;
    binding list[n > 0 ? n : 1];
    detail::dyn_array<cudaEvent_t> waits, records;
    cuda_detail::gathered_options gathered{waits, records, {}};
    cuda_detail::split_arguments(list, gathered, static_cast<Args&&>(args)...);
    return cuda_graph<Program>(executor, binding_list(list, n), waits, records, gathered.workspace);
  }
}

}  // namespace streamdsl
#endif  // STREAMDSL_CXX20
