#pragma once
// CUDA failures as exceptions that name the CUDA call, and where known the
// statement and the stream slot it was issued for.
#include <cuda_runtime.h>

#include "../../detail/string_view.hpp"
#include "../../detail/text.hpp"
#include "../../diag/error.hpp"

namespace streamdsl {

class cuda_error : public error {
 public:
  cuda_error(cudaError_t code, detail::string_view what) : error(what), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

namespace cuda_detail {

inline void check(cudaError_t status, const char* call, detail::string_view where = {}) {
  if (status == cudaSuccess) return;
  detail::text msg;
  msg << "streamdsl: " << call << " failed: " << cudaGetErrorName(status) << " ("
      << cudaGetErrorString(status) << ')';
  if (!where.empty()) msg << " for " << where;
  throw cuda_error(status, msg.view());
}

}  // namespace cuda_detail
}  // namespace streamdsl
