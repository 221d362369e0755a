#pragma once
// A row-major matrix product c = a · b issued through cuBLASLt by hand: the
// baseline the matmul benchmarks compare streamdsl with, in the same binary.
// Row-major (m, k) · (k, n) is column-major c^T = b^T · a^T, so cuBLASLt sees
// an (n, k) by (k, m) product with no transposes. The algorithm is
// cuBLASLt's first heuristic answer for the workspace given; an SM-count
// target (CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET) leaves SMs to other work.
// Options: float operands as TF32, and an epilogue (bias, relu, gelu) with
// its bias vector: one value per column of the row-major c, i.e. per row of
// cuBLASLt's column-major c^T, which is what its bias vector is.
// FP8 (raw_options::fp8): cuBLASLt's FP8 kernels take only its "TN" layout,
// so b is stored (n, k) row-major and read transposed (c = a · bᵀ, cuBLASLt's
// A transposed), the product has its own type (c_type), and a and b are
// scaled by device floats (A_SCALE_POINTER is b's, B_SCALE_POINTER a's).
// An FP8 product (c_type CUDA_R_8F_E4M3 / E5M2) is cuBLASLt's FP8 D: D of
// c_type with its scale and amax pointers, C a bf16 layout with no pointer
// (beta is 0), as Transformer Engine calls it.
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace bench {

inline void check_lt(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": cuBLASLt status " + std::to_string(static_cast<int>(s)));
}

struct lt_handle {
  cublasLtHandle_t h = nullptr;
  lt_handle() { check_lt(cublasLtCreate(&h), "cublasLtCreate"); }
  ~lt_handle() { cublasLtDestroy(h); }
  lt_handle(const lt_handle&) = delete;
};

struct raw_options {
  int sm_count_target = 0;  // 0: every SM
  bool tf32 = false;        // float operands on the tensor cores (CUBLAS_COMPUTE_32F_FAST_TF32)
  cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  const void* bias = nullptr;  // n elements of the product's type, for the *_BIAS epilogues
  int batch = 1;               // > 1: one strided-batched call over `batch` contiguous products
  // FP8 operands (the constructor's type: CUDA_R_8F_E4M3 or CUDA_R_8F_E5M2):
  // b stored (n, k), the product of c_type, float scales on the device (null: 1).
  bool fp8 = false;
  cudaDataType_t c_type = CUDA_R_16BF;
  const float* scale_a = nullptr;
  const float* scale_b = nullptr;
  const float* scale_d = nullptr;  // an FP8 product: D's scale (null: 1)
  float* amax_d = nullptr;         // an FP8 product: where the amax goes (null: none)
};

class raw_matmul {
 public:
  // type: the operands' and the product's; 16-bit types multiply in float.
  raw_matmul(cublasLtHandle_t handle, cudaDataType_t type, long long m, long long n, long long k,
             std::size_t workspace_bytes, raw_options o = {})
      : handle_(handle) {
    const cublasComputeType_t compute = type == CUDA_R_64F ? CUBLAS_COMPUTE_64F
                                        : o.tf32           ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                           : CUBLAS_COMPUTE_32F;
    const cudaDataType_t scale = type == CUDA_R_64F ? CUDA_R_64F : CUDA_R_32F;
    check_lt(cublasLtMatmulDescCreate(&op_, compute, scale), "cublasLtMatmulDescCreate");
    if (o.sm_count_target > 0)
      check_lt(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET, &o.sm_count_target,
                                              sizeof o.sm_count_target),
               "SM_COUNT_TARGET");
    if (o.epilogue != CUBLASLT_EPILOGUE_DEFAULT)
      check_lt(
          cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_EPILOGUE, &o.epilogue, sizeof o.epilogue),
          "EPILOGUE");
    if (o.bias != nullptr)
      check_lt(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &o.bias, sizeof o.bias),
               "BIAS_POINTER");
    if (o.fp8) {
      const cublasOperation_t t = CUBLAS_OP_T;
      check_lt(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t), "TRANSA");
      if (o.scale_b != nullptr)
        check_lt(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &o.scale_b,
                                                sizeof o.scale_b),
                 "A_SCALE_POINTER");
      if (o.scale_a != nullptr)
        check_lt(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &o.scale_a,
                                                sizeof o.scale_a),
                 "B_SCALE_POINTER");
      check_lt(cublasLtMatrixLayoutCreate(&a_, type, k, n, k),
               "layout b");  // cuBLASLt's A: b (n, k), transposed
      check_lt(cublasLtMatrixLayoutCreate(&b_, type, k, m, k), "layout a^T");  // cuBLASLt's B: a
      const bool fp8_d = o.c_type == CUDA_R_8F_E4M3 || o.c_type == CUDA_R_8F_E5M2;
      check_lt(cublasLtMatrixLayoutCreate(&c_, fp8_d ? CUDA_R_16BF : o.c_type, n, m, n), "layout c^T");
      if (fp8_d) check_lt(cublasLtMatrixLayoutCreate(&d_, o.c_type, n, m, n), "layout d^T");
      if (o.scale_d != nullptr)
        check_lt(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &o.scale_d,
                                                sizeof o.scale_d),
                 "D_SCALE_POINTER");
      if (o.amax_d != nullptr)
        check_lt(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, &o.amax_d,
                                                sizeof o.amax_d),
                 "AMAX_D_POINTER");
    } else {
      check_lt(cublasLtMatrixLayoutCreate(&a_, type, n, k, n), "layout b^T");  // cuBLASLt's A: b
      check_lt(cublasLtMatrixLayoutCreate(&b_, type, k, m, k), "layout a^T");  // cuBLASLt's B: a
      check_lt(cublasLtMatrixLayoutCreate(&c_, type, n, m, n), "layout c^T");
    }
    if (o.batch > 1) {
      batch(a_, o.batch, n * k);
      batch(b_, o.batch, k * m);
      batch(c_, o.batch, n * m);
    }
    cublasLtMatmulPreference_t pref = nullptr;
    check_lt(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
    check_lt(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                  &workspace_bytes, sizeof workspace_bytes),
             "MAX_WORKSPACE_BYTES");
    cublasLtMatmulHeuristicResult_t found{};
    int count = 0;
    check_lt(cublasLtMatmulAlgoGetHeuristic(handle, op_, a_, b_, c_, d_desc(), pref, 1, &found, &count),
             "cublasLtMatmulAlgoGetHeuristic");
    cublasLtMatmulPreferenceDestroy(pref);
    if (count == 0) throw std::runtime_error("cuBLASLt has no algorithm for this matmul");
    algo_ = found.algo;
    workspace_needed_ = found.workspaceSize;
    double_ = type == CUDA_R_64F;
  }
  ~raw_matmul() {
    if (d_ != nullptr) cublasLtMatrixLayoutDestroy(d_);
    cublasLtMatrixLayoutDestroy(c_);
    cublasLtMatrixLayoutDestroy(b_);
    cublasLtMatrixLayoutDestroy(a_);
    cublasLtMatmulDescDestroy(op_);
  }
  raw_matmul(const raw_matmul&) = delete;

  // The workspace the chosen algorithm uses (at most the limit given).
  std::size_t workspace_needed() const { return workspace_needed_; }

  void issue(const void* a, const void* b, void* c, void* workspace, std::size_t workspace_bytes,
             cudaStream_t s) const {
    const float one = 1, zero = 0;
    const double one_d = 1, zero_d = 0;
    const void* alpha = double_ ? static_cast<const void*>(&one_d) : &one;
    const void* beta = double_ ? static_cast<const void*>(&zero_d) : &zero;
    // An FP8 D: C is another type and never read (beta 0), so no pointer.
    check_lt(cublasLtMatmul(handle_, op_, alpha, b, a_, a, b_, beta, d_ != nullptr ? nullptr : c, c_, c,
                            d_desc(), &algo_, workspace, workspace_bytes, s),
             "cublasLtMatmul");
  }

 private:
  // Matrix i of a layout starts `stride` elements after matrix i - 1.
  static void batch(cublasLtMatrixLayout_t layout, int count, long long stride) {
    check_lt(
        cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count),
        "BATCH_COUNT");
    const std::int64_t offset = stride;
    check_lt(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &offset,
                                              sizeof offset),
             "STRIDED_BATCH_OFFSET");
  }

  cublasLtHandle_t handle_;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr;
  cublasLtMatrixLayout_t d_ = nullptr;  // an FP8 product's D (else D is C)
  cublasLtMatrixLayout_t d_desc() const { return d_ != nullptr ? d_ : c_; }
  cublasLtMatmulAlgo_t algo_{};
  std::size_t workspace_needed_ = 0;
  bool double_ = false;
};

}  // namespace bench
