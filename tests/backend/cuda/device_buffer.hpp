#pragma once
// Device memory for tests: upload from and download to std::vector.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace gpu_test {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// std::vector<bool> has no bool array: bool buffers come back as bytes.
template <class T>
using host_t = std::conditional_t<std::is_same_v<T, bool>, unsigned char, T>;

template <class T>
class device_buffer {
 public:
  explicit device_buffer(std::size_t n) : n_(n) {
    check(cudaMalloc(&ptr_, (n ? n : 1) * sizeof(T)), "cudaMalloc");
  }
  explicit device_buffer(const std::vector<host_t<T>>& host) : device_buffer(host.size()) { upload(host); }
  ~device_buffer() { cudaFree(ptr_); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  void upload(const std::vector<host_t<T>>& host) {
    check(cudaMemcpy(ptr_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "upload");
  }
  std::vector<host_t<T>> download() const {
    std::vector<host_t<T>> host(n_);
    check(cudaDeviceSynchronize(), "sync before download");
    check(cudaMemcpy(host.data(), ptr_, n_ * sizeof(T), cudaMemcpyDeviceToHost), "download");
    return host;
  }
  T* get() { return ptr_; }
  const T* cget() const { return ptr_; }
  std::size_t size() const { return n_; }

 private:
  T* ptr_ = nullptr;
  std::size_t n_;
};

}  // namespace gpu_test
