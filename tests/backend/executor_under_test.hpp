#pragma once
// The executor a semantic test runs on: one test source, two backends. A g++
// build runs sd::host_executor; an nvcc build (__CUDACC__) runs
// sd::cuda_executor, copying each bound host buffer to device memory first
// and the writable ones back after the run; buffers the program declares in
// host memory stay where they are (page-locked with cudaHostRegister for the
// run when declared sd::pinned). Tests bind host memory exactly as they would
// for the host executor:
//   backend_test::executor ex;
//   ex.run(program, sd::bind("x", x), sd::bind("y", y));
#include <cstddef>
#include <span>
#include <streamdsl/streamdsl.hpp>
#include <type_traits>
#include <vector>
#if defined(__CUDACC__)
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#else
#include <streamdsl/backend/host/host_executor.hpp>
#endif

namespace backend_test {

#if defined(__CUDACC__)
inline constexpr bool on_gpu = true;
inline constexpr const char* backend_name = "cuda_executor";
#else
inline constexpr bool on_gpu = false;
inline constexpr const char* backend_name = "host_executor";
#endif

// Relative tolerance for results of transcendental functions (exp, log, sin,
// cos, tanh, sigmoid, rsqrt): the device's implementations differ from the
// host's libm by a few ulps, everything else must match exactly.
template <class T>
constexpr double transcendental_tolerance() {
  const bool is_float = sizeof(T) == 4;
  if (on_gpu) return is_float ? 1e-5 : 1e-13;
  return is_float ? 1e-6 : 1e-14;
}

#if defined(__CUDACC__)

// Device copies of host buffers for one run; freed when it ends.
class device_copies {
 public:
  device_copies(std::span<const sd::binding> host, const sd::plan_view& plan) : host_(host) {
    for (const auto& b : host) {
      const auto id = b.is_param() ? -1 : plan.buffer_id(b.name());
      const auto space =
          id < 0 ? sd::ir::memory_space::device : plan.ir.buffers[static_cast<std::size_t>(id)].space;
      if (b.is_param() || sd::ir::is_host(space)) {
        if (space == sd::ir::memory_space::pinned && b.size() > 0) {
          void* p = const_cast<void*>(b.data());
          sd::cuda_detail::check(
              cudaHostRegister(p, b.size() * sd::size_of(b.type()), cudaHostRegisterDefault),
              "cudaHostRegister");
          registered_.push_back(p);
        }
        device_.push_back(b);
        memory_.push_back(nullptr);
        continue;
      }
      const std::size_t bytes = b.size() * sd::size_of(b.type());
      void* d = nullptr;
      sd::cuda_detail::check(cudaMalloc(&d, bytes > 0 ? bytes : 1), "cudaMalloc");
      memory_.push_back(d);
      if (bytes > 0)
        sd::cuda_detail::check(cudaMemcpy(d, b.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
      // A null host pointer (an empty buffer) stays null on the device too.
      void* at = b.data() ? d : nullptr;
      device_.push_back(b.is_matrix() ? sd::binding::matrix(b.name(), b.type(), at, b.size(), b.read_only(),
                                                            b.rows(), b.cols())
                                      : sd::binding::buffer(b.name(), b.type(), at, b.size(), b.read_only()));
    }
  }
  ~device_copies() {
    for (void* d : memory_) cudaFree(d);
    for (void* p : registered_) cudaHostUnregister(p);
  }
  device_copies(const device_copies&) = delete;
  device_copies& operator=(const device_copies&) = delete;

  std::span<const sd::binding> bindings() const { return device_; }

  // Waits for the device and copies every writable buffer back to the host.
  void copy_back() const {
    sd::cuda_detail::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    for (std::size_t k = 0; k < host_.size(); ++k) {
      const auto& b = host_[k];
      if (memory_[k] == nullptr || b.read_only() || b.size() == 0) continue;  // params, host memory
      sd::cuda_detail::check(
          cudaMemcpy(b.mutable_data(), memory_[k], b.size() * sd::size_of(b.type()), cudaMemcpyDeviceToHost),
          "cudaMemcpy");
    }
  }

 private:
  std::span<const sd::binding> host_;
  std::vector<sd::binding> device_;
  std::vector<void*> memory_;      // null: a param, or host memory bound as it is
  std::vector<void*> registered_;  // host memory page-locked for the run
};

#endif

// Runs compiled programs on this build's backend; like the executors, one
// object runs any number of programs any number of times.
class executor {
 public:
  template <class Program, class... Bindings>
    requires(std::is_constructible_v<sd::binding, Bindings&&>&&...)
  void run(const Program& program, Bindings&&... bindings) {
    const sd::binding list[] = {sd::binding(static_cast<Bindings&&>(bindings))...};
    run(program, std::span<const sd::binding>(list, sizeof...(Bindings)));
  }

  // Synchronous: when it returns, the host buffers hold the results.
  template <class Program>
  void run(const Program& program, std::span<const sd::binding> bindings) {
#if defined(__CUDACC__)
    const device_copies device(bindings, program.plan());
    executor_.run_bound(program, device.bindings());
    device.copy_back();
#else
    executor_.run(program, bindings);
#endif
  }

 private:
#if defined(__CUDACC__)
  sd::cuda_executor executor_;
#else
  sd::host_executor executor_;
#endif
};

}  // namespace backend_test
