#pragma once
// Programs that copy between host and device memory themselves (sd::copy)
// keep their host-side buffers where the caller put them. host_array is such
// a buffer: pinned (cudaMallocHost) in a CUDA build with a GPU present, so the
// GPU's copies are asynchronous DMA that overlap with kernels; plain memory
// otherwise. run_in_place runs a program on such bindings: on the GPU it
// stages only the buffers not named in `host_side` in device memory (as
// run_anywhere does with all of them), on the CPU it runs them as they are.
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <new>
#include <span>
#include <streamdsl/backend/host/host_executor.hpp>
#include <streamdsl/streamdsl.hpp>
#include <vector>
#if defined(__CUDACC__)
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#endif

namespace example {

inline bool gpu_present() {
#if defined(__CUDACC__)
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) return true;
  cudaGetLastError();  // no device: clear the error, run on the CPU
#endif
  return false;
}

template <class T>
class host_array {
 public:
  explicit host_array(std::size_t n) : n_(n) {
#if defined(__CUDACC__)
    if (gpu_present()) {
      void* p = nullptr;
      sd::cuda_detail::check(cudaMallocHost(&p, n * sizeof(T) > 0 ? n * sizeof(T) : 1), "cudaMallocHost");
      data_ = static_cast<T*>(p);
      pinned_ = true;
    }
#endif
    if (data_ == nullptr) {
      data_ = static_cast<T*>(std::malloc(n * sizeof(T) > 0 ? n * sizeof(T) : 1));
      if (data_ == nullptr) throw std::bad_alloc();
    }
    for (std::size_t i = 0; i < n; ++i) data_[i] = T{};
  }
  ~host_array() {
#if defined(__CUDACC__)
    if (pinned_) {
      cudaFreeHost(data_);
      return;
    }
#endif
    std::free(data_);
  }
  host_array(const host_array&) = delete;
  host_array& operator=(const host_array&) = delete;

  std::size_t size() const { return n_; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  std::span<T> span() { return {data_, n_}; }
  std::span<const T> span() const { return {data_, n_}; }
  bool pinned() const { return pinned_; }

 private:
  T* data_ = nullptr;
  std::size_t n_ = 0;
  bool pinned_ = false;
};

// Runs `program` once on the GPU when one is present, else on the host
// executor (in stress mode when `stress` is set), recording its timeline into
// `timing` when given. Returns where it ran.
template <class Program>
const char* run_in_place(const Program& program, std::span<const sd::binding> bindings,
                         std::initializer_list<const char*> host_side, const sd::stress* stress = nullptr,
                         sd::timeline* timing = nullptr) {
#if defined(__CUDACC__)
  if (gpu_present()) {
    auto stays = [&](const sd::binding& b) {
      for (const char* name : host_side)
        if (b.name() == sd::detail::string_view(name)) return true;
      return false;
    };
    std::vector<sd::binding> device;
    std::vector<void*> staged(bindings.size(), nullptr);
    for (std::size_t i = 0; i < bindings.size(); ++i) {
      const auto& b = bindings[i];
      if (b.is_param() || b.is_call() || stays(b)) {  // values and callables travel as they are
        device.push_back(b);
        continue;
      }
      const std::size_t bytes = b.size() * sd::size_of(b.type());
      sd::cuda_detail::check(cudaMalloc(&staged[i], bytes > 0 ? bytes : 1), "cudaMalloc");
      sd::cuda_detail::check(cudaMemcpy(staged[i], b.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
      device.push_back(sd::binding::buffer(b.name(), b.type(), staged[i], b.size(), b.read_only()));
    }
    sd::cuda_executor executor;
    if (timing != nullptr) {
      executor.run_bound(program, device, sd::record_timeline(*timing));
    } else {
      executor.run_bound(program, device);
    }
    executor.synchronize();  // reports a host step (p.host_call) that threw
    sd::cuda_detail::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    for (std::size_t i = 0; i < bindings.size(); ++i) {
      if (staged[i] == nullptr) continue;
      const auto& b = bindings[i];
      if (!b.read_only())
        sd::cuda_detail::check(
            cudaMemcpy(b.mutable_data(), staged[i], b.size() * sd::size_of(b.type()), cudaMemcpyDeviceToHost),
            "cudaMemcpy");
      cudaFree(staged[i]);
    }
    return "the GPU (sd::cuda_executor)";
  }
#endif
  (void)host_side;
  sd::host_options options;
  if (stress != nullptr) options.stress_mode = *stress;
  sd::host_executor executor(options);
  executor.run(program.plan(), bindings,
               timing != nullptr ? sd::record_timeline(*timing) : sd::timeline_request{});
  return stress != nullptr ? "the CPU (sd::host_executor, stress mode)" : "the CPU (sd::host_executor)";
}

}  // namespace example
