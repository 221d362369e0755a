#pragma once
// CUDA failures as exceptions that name the CUDA call, and where known the
// statement and the stream slot it was issued for.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace streamdsl {

class cuda_error : public std::runtime_error {
 public:
  cuda_error(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

namespace cuda_detail {

inline void check(cudaError_t status, const char* call, const std::string& where = {}) {
  if (status == cudaSuccess) return;
  std::string msg = "streamdsl: ";
  msg += call;
  msg += " failed: ";
  msg += cudaGetErrorName(status);
  msg += " (";
  msg += cudaGetErrorString(status);
  msg += ')';
  if (!where.empty()) msg += " for " + where;
  throw cuda_error(status, msg);
}

}  // namespace cuda_detail
}  // namespace streamdsl
