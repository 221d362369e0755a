#pragma once
// Matmuls on the GPU (ops/matmul.hpp, ir/step.hpp): each matmul step is one
// cublasLtMatmul on its slot's stream. Include this header in a unit whose
// program has a matmul, and link streamdsl::cublas (CUDA::cublasLt): the
// executor does not include cublasLt.h, so units and programs without
// matmuls neither parse it nor link the library (step_table.hpp has the
// interfaces the executor sees, and the static_assert naming this header).
//
// Layout: streamdsl's matrices are row-major, cuBLASLt's column-major. A
// row-major (r x c) matrix is the column-major (c x r) matrix with leading
// dimension c, its transpose; so c = op(a) op(b) (m x n, row-major) is
// computed as c^T = op(b)^T op(a)^T, column-major (n x m, ld n): cuBLASLt's
// A is our b and its B our a, each read as stored without a copy, and
// CUBLAS_OP_T exactly when the statement reads it transposed
// (statement::transposed: a b stored (k, n) is the column-major (n x k)
// matrix b^T already; one stored (n, k) is (k x n), op(b) itself). This is the
// usual swap, and every cuBLASLt algorithm takes column-major operands;
// CUBLASLT_ORDER_ROW layouts would rule out many of them.
//
// Types (ir::matmul_stores): float (CUBLAS_COMPUTE_32F: full float; with
// sd::tf32, CUBLAS_COMPUTE_32F_FAST_TF32),
// double (CUBLAS_COMPUTE_64F), __half and __nv_bfloat16 multiplied and added
// in float (CUBLAS_COMPUTE_32F), stored in their type or in float. alpha = 1
// and beta = 0 in the scale type, host pointers: c is written, never read
// (cuBLASLt does not read C when beta is 0).
//
// FP8 (ir::matmul_fp8_pair: e4m3 x e4m3, e4m3 x e5m2, e5m2 x e4m3) into
// __nv_bfloat16, __half or float: CUBLAS_COMPUTE_32F, float scale type, and
// the operands' scales as CUBLASLT_MATMUL_DESC_A_SCALE_POINTER (cuBLASLt's A:
// our b's scale) and B_SCALE_POINTER (our a's), device pointers to the 0-d
// float buffers, set again at each issue like the bias pointer. cuBLASLt's
// FP8 kernels need its "TN" layout: its A transposed, its B not; with the
// mapping above that is our b read transposed and our a not,
// `c = sd::matmul(a, sd::transpose(w))` (the front end refuses the others).
// Its FP8 requirements on the extents and pointers (k a multiple of 16 bytes
// of FP8, c's rows n * sizeof(c) a multiple of 16 bytes, every pointer
// 16-byte aligned) are checked when the program is bound: an sd::binding_error
// naming the statement before anything is issued. CUBLASLT_MATMUL_DESC_FAST_ACCUM
// is left off (cuBLASLt then accumulates in full float).
//
// An FP8 product (__nv_fp8_e4m3, or __nv_fp8_e5m2 with an e5m2 operand:
// ir::matmul_fp8_output) is cuBLASLt's FP8 D: D's layout of CUDA_R_8F_E4M3 /
// CUDA_R_8F_E5M2, the output scale (sd::output_scale) as
// CUBLASLT_MATMUL_DESC_D_SCALE_POINTER and the amax (sd::output_amax) as
// CUBLASLT_MATMUL_DESC_AMAX_D_POINTER (device pointers, set again at each
// issue; without them cuBLASLt's defaults: scale 1, no amax). cuBLASLt takes
// an FP8 D only with a 16-bit C type (its FP8 table), so C's layout is
// __nv_bfloat16 and C's pointer null (beta is 0: C is never read; as
// Transformer Engine calls it). The scales' and the amax's 16-byte alignment,
// and n * 1 byte a multiple of 16, are checked when bound as above. An empty
// product (m, n or k 0) writes amax 0, as the host.
//
// A folded epilogue (passes/matmul_epilogue.hpp: d = act(alpha (a b) +
// bias)) sets CUBLASLT_MATMUL_DESC_EPILOGUE (BIAS, RELU, RELU_BIAS, GELU,
// GELU_BIAS: ir::matmul_epilogue_name), the bias pointer (its type is D's,
// the descriptor's default) and alpha, computed in float before D is
// rounded once. The bias runs over c's columns: over the rows of cuBLASLt's
// column-major D = c^T (n x m), which is what its bias vector is (one value
// per row of D, length n). The bias pointer is set again at each issue (a
// binding may move the buffer; its alignment is part of matmul_shape).
//
// When the program is bound (cuda_executor::prepare, once per binding set;
// kept while the extents and the operands' alignments stay the same), each
// matmul gets its descriptor, three layouts and the heuristic's best
// algorithm for a workspace of at most matmul_workspace_limit bytes and the
// bound pointers' alignment (a temp's slot is 256-byte aligned); the
// executor then lays out, per stream slot, the most workspace its matmuls
// need after the temps' slots and CUB's storage in the run's workspace
// (256-byte aligned). A run allocates nothing for cuBLASLt and a captured
// graph replays the same workspace. The cuBLASLt handle is the executor's,
// made by the first program with a matmul it prepares.
//
// A batch (passes/batch_matmuls.hpp: independent matmuls of one shape as one
// step) is decided when bound (ir::matmul_batch_rule, strided_batch_of): one
// strided-batched call (CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT and
// STRIDED_BATCH_OFFSET on the three layouts, member 0's pointers) when each
// operand's members lie at one positive stride and each product is small
// enough to share the GPU; else each member's own call, in order on the
// batch's stream (lt_batch).
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "../../detail/dyn_array.hpp"
#include "../../detail/text.hpp"
#include "../../diag/error.hpp"
#include "../../ir/accesses.hpp"
#include "../../ir/render.hpp"
#include "../../plan/plan_view.hpp"
#include "../matmul_epilogue.hpp"
#include "cuda_handles.hpp"
#include "step_table.hpp"

namespace streamdsl::cuda_detail {

struct matmul_header {};

// The most cuBLASLt workspace a matmul's algorithm may use (the heuristic
// picks among those that fit; the workspace laid out is what the chosen one
// needs). 32 MiB is what NVIDIA recommends for Hopper.
inline constexpr std::size_t matmul_workspace_limit = std::size_t{32} << 20;

struct destroy_lt_handle {
  cublasStatus_t operator()(cublasLtHandle_t h) const noexcept { return cublasLtDestroy(h); }
};
struct destroy_lt_matmul_desc {
  cublasStatus_t operator()(cublasLtMatmulDesc_t d) const noexcept { return cublasLtMatmulDescDestroy(d); }
};
struct destroy_lt_layout {
  cublasStatus_t operator()(cublasLtMatrixLayout_t l) const noexcept {
    return cublasLtMatrixLayoutDestroy(l);
  }
};
struct destroy_lt_preference {
  cublasStatus_t operator()(cublasLtMatmulPreference_t p) const noexcept {
    return cublasLtMatmulPreferenceDestroy(p);
  }
};
using owned_lt_handle = unique_handle<cublasLtHandle_t, destroy_lt_handle>;
using owned_lt_matmul_desc = unique_handle<cublasLtMatmulDesc_t, destroy_lt_matmul_desc>;
using owned_lt_layout = unique_handle<cublasLtMatrixLayout_t, destroy_lt_layout>;
using owned_lt_preference = unique_handle<cublasLtMatmulPreference_t, destroy_lt_preference>;

// The executor's cuBLASLt state.
struct lt_library final : matmul_library {
  owned_lt_handle handle;
};

// What a prepared matmul depends on besides its statement: the extents and
// the operands' alignment in bytes (at most 256).
struct matmul_shape {
  long long m = 0, n = 0, k = 0;
  std::uint32_t align_a = 256, align_b = 256, align_c = 256, align_bias = 256, align_scales = 256;
  constexpr bool operator==(const matmul_shape&) const = default;
};

// The largest power of two, at most 256, that divides the address (256 for
// null: a temp, in a 256-byte aligned slot, or an empty buffer).
inline std::uint32_t alignment_of(const void* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  if (a == 0) return 256;
  const auto low = a & (~a + 1);
  return low >= 256 ? 256u : static_cast<std::uint32_t>(low);
}

inline cudaDataType_t lt_data_type(dtype t) {
  switch (t) {
    case dtype::float64: return CUDA_R_64F;
    case dtype::float16: return CUDA_R_16F;
    case dtype::bfloat16: return CUDA_R_16BF;
    case dtype::float8_e4m3: return CUDA_R_8F_E4M3;
    case dtype::float8_e5m2: return CUDA_R_8F_E5M2;
    default: return CUDA_R_32F;  // float32: the front end lets no other type through
  }
}

// A product of no inner elements (k = 0) with an epilogue: each element is
// the epilogue of 0 (cuBLASLt is not asked: its layouts of no columns are refused).
template <class C>
__global__ void empty_product_epilogue(C* d, const C* bias, long long m, long long n, std::uint8_t mode,
                                       float alpha) {
  namespace element = detail::element;
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= m * n) return;
  float v = alpha * 0.0f;
  if (bias != nullptr) v += element::convert<float>(bias[i % n]);
  if (mode & ir::matmul_relu) v = element::unary(ir::op::relu, v);
  if (mode & ir::matmul_gelu_tanh) v = element::unary(ir::op::gelu_tanh, v);
  d[i] = element::convert<C>(v);
}

inline constexpr float lt_one_f = 1.0f, lt_zero_f = 0.0f;
inline constexpr double lt_one_d = 1.0, lt_zero_d = 0.0;

// A cuBLASLt failure while a matmul is prepared: an sd::error naming the
// call, its status and the statement.
[[noreturn, gnu::cold]] inline void lt_prepare_failed(const plan_view& plan, std::size_t stmt,
                                                      const char* call, cublasStatus_t status,
                                                      const matmul_shape& shape) {
  detail::text msg;
  msg << "streamdsl: " << call << " failed: " << cublasLtGetStatusName(status) << " ("
      << cublasLtGetStatusString(status) << ") for ";
  ir::describe_statement(plan.ir, static_cast<std::int32_t>(stmt), msg);
  msg << " (m " << shape.m << ", n " << shape.n << ", k " << shape.k << ')';
  throw error(msg.view());
}

struct lt_matmul final : prepared_matmul {
  cublasLtHandle_t handle = nullptr;  // the executor's (lt_library)
  matmul_shape shape;
  std::int32_t a = -1, b = -1, c = -1;  // plan buffers
  std::size_t c_bytes = 0;
  bool wide_scale = false;  // double: alpha and beta are doubles
  // The folded epilogue (ir::matmul_epilogue_bits; 0: none), its bias buffer
  // (-1: none), its alpha: a param's index (-1: none), else this value.
  std::uint8_t epilogue = 0;
  dtype c_type = dtype::float32;
  std::int32_t bias = -1, alpha_param = -1;
  float alpha = 1.0f;
  std::int32_t scale_a = -1, scale_b = -1;  // FP8: our a's and b's scale buffers (-1: none)
  std::int32_t scale_d = -1, amax_d = -1;   // an FP8 product: its output scale and amax (-1: none)

  // alpha as the scale type (float: the epilogue is never folded for double).
  float alpha_of(const unsigned long long* params) const {
    if (alpha_param < 0) return alpha;
    double v;  // a floating param's bits are its value as a double (cuda_executor::param_bits)
    std::memcpy(&v, &params[alpha_param], sizeof v);
    return static_cast<float>(v);
  }
  owned_lt_matmul_desc op;
  owned_lt_layout a_layout, b_layout, c_layout;  // cuBLASLt's A (our b), B (our a), C and D (our c)
  owned_lt_layout d_layout;  // an FP8 product: D's (c_layout is then C's, __nv_bfloat16, never read)
  cublasLtMatrixLayout_t d_desc() const { return d_layout ? d_layout.get() : c_layout.get(); }

  // The FP8 scale and amax buffers (-1: none) and the attributes that point
  // cuBLASLt at them: its A is our b, so A's scale is b's.
  std::array<std::pair<std::int32_t, cublasLtMatmulDescAttributes_t>, 4> fp8_pointers() const {
    return {{{scale_b, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER},
             {scale_a, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER},
             {scale_d, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER},
             {amax_d, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER}}};
  }

  // An empty product's amax: 0 (as the host's), before the early returns below.
  bool zero_amax(void* const* ptrs, cudaStream_t stream, step_failure& failure) const {
    if (amax_d < 0) return true;
    const cudaError_t status = cudaMemsetAsync(ptrs[amax_d], 0, sizeof(float), stream);
    if (status == cudaSuccess) return true;
    failure = {"cudaMemsetAsync", cudaGetErrorName(status), cudaGetErrorString(status), status};
    return false;
  }
  cublasLtMatmulAlgo_t algo{};

  bool issue(void* const* ptrs, const unsigned long long* params, cudaStream_t stream, void* workspace,
             step_failure& failure) const override {
    if (shape.m == 0 || shape.n == 0) return zero_amax(ptrs, stream, failure);  // c has no element
    if (shape.k == 0 && epilogue != 0) {
      launch_empty_product(ptrs, params, stream);
      const cudaError_t status = cudaPeekAtLastError();
      if (status == cudaSuccess) return true;
      (void)cudaGetLastError();
      failure = {"an empty matmul's epilogue kernel launch", cudaGetErrorName(status),
                 cudaGetErrorString(status), status};
      return false;
    }
    if (shape.k == 0) {
      // c = 0, each element a sum of no products (as on the host). cuBLASLt
      // is not asked: its layouts of no columns are refused (ld >= 1 and
      // rows), so prepare made none; all-zero bits are +0 in every floating type.
      const cudaError_t status = cudaMemsetAsync(ptrs[c], 0, c_bytes, stream);
      if (status == cudaSuccess) return zero_amax(ptrs, stream, failure);
      failure = {"cudaMemsetAsync", cudaGetErrorName(status), cudaGetErrorString(status), status};
      return false;
    }
    const float scale = alpha_of(params);
    const void* alpha = wide_scale ? static_cast<const void*>(&lt_one_d) : static_cast<const void*>(&scale);
    if (bias >= 0) {
      const void* bias_ptr = ptrs[bias];
      const cublasStatus_t set = cublasLtMatmulDescSetAttribute(op.get(), CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                                                &bias_ptr, sizeof bias_ptr);
      if (set != CUBLAS_STATUS_SUCCESS) {
        failure = {"cublasLtMatmulDescSetAttribute", cublasLtGetStatusName(set), cublasLtGetStatusString(set),
                   cudaSuccess};
        return false;
      }
    }
    // As the operands, the scales' and the amax's pointers may move between runs.
    for (const auto& [buffer, attribute] : fp8_pointers()) {
      if (buffer < 0) continue;
      const void* scale_ptr = ptrs[buffer];
      const cublasStatus_t set =
          cublasLtMatmulDescSetAttribute(op.get(), attribute, &scale_ptr, sizeof scale_ptr);
      if (set != CUBLAS_STATUS_SUCCESS) {
        failure = {"cublasLtMatmulDescSetAttribute", cublasLtGetStatusName(set), cublasLtGetStatusString(set),
                   cudaSuccess};
        return false;
      }
    }
    const void* beta =
        wide_scale ? static_cast<const void*>(&lt_zero_d) : static_cast<const void*>(&lt_zero_f);
    // An FP8 product: C is another type, never read (beta 0), so no pointer (Transformer Engine's call).
    void* const c_in = d_layout ? nullptr : ptrs[c];
    const cublasStatus_t status =
        cublasLtMatmul(handle, op.get(), alpha, ptrs[b], a_layout.get(), ptrs[a], b_layout.get(), beta, c_in,
                       c_layout.get(), ptrs[c], d_desc(), &algo, workspace, workspace_bytes, stream);
    if (status == CUBLAS_STATUS_SUCCESS) return true;
    failure = {"cublasLtMatmul", cublasLtGetStatusName(status), cublasLtGetStatusString(status), cudaSuccess};
    return false;
  }

  void launch_empty_product(void* const* ptrs, const unsigned long long* params, cudaStream_t stream) const {
    const long long count = shape.m * shape.n;
    const unsigned blocks = static_cast<unsigned>((count + 255) / 256);
    const float scale = alpha_of(params);
    const auto run = [&](auto* d) {
      using C = std::remove_pointer_t<decltype(d)>;
      empty_product_epilogue<C><<<blocks, 256, 0, stream>>>(
          d, bias >= 0 ? static_cast<const C*>(ptrs[bias]) : nullptr, shape.m, shape.n, epilogue, scale);
    };
    if (c_type == dtype::float16) return run(static_cast<__half*>(ptrs[c]));
    if (c_type == dtype::bfloat16) return run(static_cast<__nv_bfloat16*>(ptrs[c]));
    run(static_cast<float*>(ptrs[c]));
  }
};

// A literal alpha in the scale type: its value in c's type (as the
// consumer computed it), then widened to float.
inline float literal_alpha(const ir::expr_node& n, dtype c) {
  namespace epilogue = detail::matmul_epilogue;
  if (c == dtype::float16) return static_cast<float>(epilogue::literal_as<__half>(n));
  if (c == dtype::bfloat16) return static_cast<float>(epilogue::literal_as<__nv_bfloat16>(n));
  return epilogue::literal_as<float>(n);
}

// cuBLASLt's FP8 requirements on bound extents and pointers (see the top of
// this file): an sd::binding_error naming the statement, before any launch.
inline void check_fp8_binding(const plan_view& plan, std::size_t stmt, const matmul_shape& shape,
                              std::size_t c_size) {
  detail::text why;
  if (shape.k % 16 != 0)
    why << "k (bound to " << shape.k << ") to be a multiple of 16";
  else if ((shape.n * static_cast<long long>(c_size)) % 16 != 0)
    why << "the product's rows (n = " << shape.n << " elements of " << c_size
        << " bytes) to be a multiple of 16 bytes";
  else if (shape.align_a < 16 || shape.align_b < 16 || shape.align_c < 16)
    why << "every operand and the product 16-byte aligned (a " << shape.align_a << ", b " << shape.align_b
        << ", c " << shape.align_c << " bytes)";
  else if (shape.align_scales < 16)  // found on the H200: 4 or 8 give CUBLAS_STATUS_NOT_SUPPORTED
    why << "the scales (and an FP8 product's output scale and amax) 16-byte aligned";
  else
    return;
  detail::text msg;
  msg << "streamdsl: bad binding: ";
  ir::describe_statement(plan.ir, static_cast<std::int32_t>(stmt), msg);
  msg << " is an FP8 matmul, which cuBLASLt runs only with " << why.view() << " (m " << shape.m << ", n "
      << shape.n << ", k " << shape.k << "); pad the operands, or run it in a wider type";
  throw binding_error(msg.view());
}

inline cublasLtEpilogue_t lt_epilogue(std::uint8_t mode) {
  const bool bias = (mode & ir::matmul_bias) != 0;
  if (mode & ir::matmul_relu) return bias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU;
  if (mode & ir::matmul_gelu_tanh) return bias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU;
  return bias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
}

// A strided batch: `count` products, each operand's member j at its member
// 0's address plus j strides (in elements; count 1: no batch).
struct lt_batch_layout {
  int count = 1;
  long long stride_a = 0, stride_b = 0, stride_c = 0;
  constexpr bool operator==(const lt_batch_layout&) const = default;
};

// The extents of statement s's products and the alignment of member x's
// bound pointers (256 for temps: their slots are 256-byte aligned).
inline matmul_shape matmul_shape_of(const plan_view& plan, const ir::statement& s, const ir::matmul_member& x,
                                    std::int32_t bias, const long long* extents, void* const* ptrs) {
  const auto& da =
      plan.ir.domains[static_cast<std::size_t>(plan.ir.buffers[static_cast<std::size_t>(x.a)].domain)];
  const auto& db =
      plan.ir.domains[static_cast<std::size_t>(plan.ir.buffers[static_cast<std::size_t>(x.b)].domain)];
  const bool ta = (s.matmul_mode & ir::transpose_a) != 0, tb = (s.matmul_mode & ir::transpose_b) != 0;
  auto extent = [&](std::int32_t d) { return extents[static_cast<std::size_t>(d)]; };
  matmul_shape shape;
  shape.m = extent(ta ? da.inner : da.outer);
  shape.k = extent(ta ? da.outer : da.inner);
  shape.n = extent(tb ? db.outer : db.inner);
  shape.align_a = alignment_of(ptrs[x.a]);
  shape.align_b = alignment_of(ptrs[x.b]);
  shape.align_c = alignment_of(ptrs[x.c]);
  if (bias >= 0) shape.align_bias = alignment_of(ptrs[bias]);
  return shape;
}

// Makes the cuBLASLt call of member x of statement `stmt` (its bias, for a
// plain matmul's epilogue: -1 for none) for `shape`, strided over `batch`.
// An FP8 matmul's scale buffers are the statement's (a batch has none:
// ir::matmul_batchable).
inline owned_matmul make_lt_matmul(owned_matmul_library& library, const plan_view& plan, std::size_t stmt,
                                   const ir::matmul_member& x, std::int32_t bias, const matmul_shape& shape,
                                   const lt_batch_layout& batch, void* const* ptrs) {
  const auto& s = plan.ir.stmts[stmt];
  const std::int32_t a = x.a, b = x.b, c = x.c;
  const auto& ba = plan.ir.buffers[static_cast<std::size_t>(a)];
  const auto& bb = plan.ir.buffers[static_cast<std::size_t>(b)];
  const auto& bc = plan.ir.buffers[static_cast<std::size_t>(c)];
  const bool ta = (s.matmul_mode & ir::transpose_a) != 0, tb = (s.matmul_mode & ir::transpose_b) != 0;
  const bool fp8 = is_fp8(ba.type);
  if (!library) {
    auto* lib = new lt_library;
    library.reset(lib);
    cublasLtHandle_t h = nullptr;
    const cublasStatus_t status = cublasLtCreate(&h);
    if (status != CUBLAS_STATUS_SUCCESS) {
      library.reset();
      lt_prepare_failed(plan, stmt, "cublasLtCreate", status, shape);
    }
    lib->handle.reset(h);
  }
  auto* mm = new lt_matmul;
  owned_matmul owned(mm);  // freed if a call below throws
  mm->handle = static_cast<lt_library*>(library.get())->handle.get();
  mm->shape = shape;
  mm->a = a;
  mm->b = b;
  mm->c = c;
  mm->c_bytes = static_cast<std::size_t>(shape.m) * static_cast<std::size_t>(shape.n) * size_of(bc.type);
  mm->wide_scale = ba.type == dtype::float64;
  mm->epilogue = s.matmul_mode & ir::matmul_epilogue_bits;
  mm->c_type = bc.type;
  mm->bias = bias;
  mm->scale_a = s.scale_a;
  mm->scale_b = s.scale_b;
  mm->scale_d = s.scale_d;
  mm->amax_d = s.amax_d;
  if (mm->epilogue & ir::matmul_alpha) {
    const auto& alpha = plan.ir.nodes[static_cast<std::size_t>(s.root)];
    if (alpha.code == ir::op::param)
      mm->alpha_param = alpha.ref;
    else
      mm->alpha = literal_alpha(alpha, bc.type);
  }
  if (shape.m == 0 || shape.n == 0 || shape.k == 0) return owned;  // no cuBLASLt call (lt_matmul::issue)
  const auto lt = [&](cublasStatus_t status, const char* call) {
    if (status != CUBLAS_STATUS_SUCCESS) lt_prepare_failed(plan, stmt, call, status, shape);
  };
  cublasLtMatmulDesc_t op = nullptr;
  const bool tf32 = (s.matmul_mode & ir::matmul_tf32) != 0;  // sd::tf32: float operands only
  lt(cublasLtMatmulDescCreate(&op,
                              mm->wide_scale ? CUBLAS_COMPUTE_64F
                              : tf32         ? CUBLAS_COMPUTE_32F_FAST_TF32
                                             : CUBLAS_COMPUTE_32F,
                              mm->wide_scale ? CUDA_R_64F : CUDA_R_32F),
     "cublasLtMatmulDescCreate");
  mm->op.reset(op);
  // c^T (n x m) = op(b)^T (n x k) op(a)^T (k x m), column-major. b stored
  // (k, n) row-major is the column-major (n x k) matrix b^T = op(b)^T: no
  // transpose; b stored (n, k) (read transposed) is the column-major (k x n)
  // matrix op(b): transposed. The same for a: cuBLASLt transposes an operand
  // exactly when the statement reads it transposed.
  const cublasOperation_t trans_a = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t trans_b = ta ? CUBLAS_OP_T : CUBLAS_OP_N;
  lt(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &trans_a, sizeof trans_a),
     "cublasLtMatmulDescSetAttribute");
  lt(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &trans_b, sizeof trans_b),
     "cublasLtMatmulDescSetAttribute");
  if (mm->epilogue != 0) {
    const cublasLtEpilogue_t epilogue = lt_epilogue(mm->epilogue);
    lt(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue),
       "cublasLtMatmulDescSetAttribute");
  }
  if (fp8) {
    // The scales' and the amax's pointers, set whenever the statement has
    // them so that the heuristic is asked for the call issue makes (issue sets
    // them again for each run); a temp's pointer is null until a run, so a
    // 256-byte aligned placeholder stands for it here (cuBLASLt dereferences
    // none of them before cublasLtMatmul).
    const auto placeholder = reinterpret_cast<const void*>(std::uintptr_t{256});
    for (const auto& [buffer, attribute] : mm->fp8_pointers()) {
      if (buffer < 0) continue;
      const void* ptr = ptrs[buffer] != nullptr ? ptrs[buffer] : placeholder;
      lt(cublasLtMatmulDescSetAttribute(op, attribute, &ptr, sizeof ptr), "cublasLtMatmulDescSetAttribute");
    }
  }
  if (mm->bias >= 0) {  // the heuristic reads the pointer's alignment; issue sets it for each run
    const void* bias_ptr = ptrs[mm->bias];
    lt(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias_ptr, sizeof bias_ptr),
       "cublasLtMatmulDescSetAttribute");
  }
  // Each operand's layout as stored, column-major: a row-major (r x c) buffer
  // is a column-major (c x r) matrix with leading dimension c.
  const auto u = [](long long x) { return static_cast<std::uint64_t>(x); };
  const long long m = shape.m, n = shape.n, k = shape.k;
  const auto layout = [&](owned_lt_layout& out, dtype t, long long rows, long long cols, long long stride) {
    cublasLtMatrixLayout_t l = nullptr;
    lt(cublasLtMatrixLayoutCreate(&l, lt_data_type(t), u(rows), u(cols), rows), "cublasLtMatrixLayoutCreate");
    out.reset(l);
    if (batch.count <= 1) return;
    // A strided batch (passes/batch_matmuls.hpp, ir::matmul_batch_rule): matrix j at j strides.
    const std::int32_t count = batch.count;
    const std::int64_t offset = stride;
    lt(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count),
       "cublasLtMatrixLayoutSetAttribute");
    lt(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &offset,
                                        sizeof offset),
       "cublasLtMatrixLayoutSetAttribute");
  };
  // b stored (n, k) when read transposed: column-major (k x n); else (k, n): (n x k).
  layout(mm->a_layout, bb.type, tb ? k : n, tb ? n : k, batch.stride_b);
  // a stored (k, m) when read transposed: column-major (m x k); else (m, k): (k x m).
  layout(mm->b_layout, ba.type, ta ? m : k, ta ? k : m, batch.stride_a);
  if (is_fp8(bc.type)) {  // an FP8 product: D of c's type, C of __nv_bfloat16 (cuBLASLt's FP8 table)
    layout(mm->c_layout, dtype::bfloat16, n, m, batch.stride_c);
    layout(mm->d_layout, bc.type, n, m, batch.stride_c);
  } else {
    layout(mm->c_layout, bc.type, n, m, batch.stride_c);  // c (m, n): column-major (n x m)
  }
  cublasLtMatmulPreference_t pref = nullptr;
  lt(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
  owned_lt_preference owned_pref(pref);
  const std::uint64_t limit = matmul_workspace_limit;
  lt(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &limit,
                                          sizeof limit),
     "cublasLtMatmulPreferenceSetAttribute");
  // The heuristic assumes 256-byte aligned operands unless told otherwise.
  const std::uint32_t align[] = {shape.align_b, shape.align_a, shape.align_c, shape.align_c};
  const cublasLtMatmulPreferenceAttributes_t align_attr[] = {
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
  for (int i = 0; i < 4; ++i)
    lt(cublasLtMatmulPreferenceSetAttribute(pref, align_attr[i], &align[i], sizeof align[i]),
       "cublasLtMatmulPreferenceSetAttribute");
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  lt(cublasLtMatmulAlgoGetHeuristic(mm->handle, op, mm->a_layout.get(), mm->b_layout.get(),
                                    mm->c_layout.get(), mm->d_desc(), pref, 1, &result, &found),
     "cublasLtMatmulAlgoGetHeuristic");
  if (found == 0) lt(CUBLAS_STATUS_NOT_SUPPORTED, "cublasLtMatmulAlgoGetHeuristic (no algorithm)");
  mm->algo = result.algo;
  mm->workspace_bytes = result.workspaceSize;
  return owned;
}

// A batch (passes/batch_matmuls.hpp) as prepared for one binding: one
// strided-batched call (layout.count > 1), or each member's own call in
// order on the batch's stream, as ir::matmul_batch_rule decides.
struct lt_batch final : prepared_matmul {
  detail::dyn_array<matmul_shape> shapes;  // per member: what its preparation depends on
  lt_batch_layout layout;
  detail::dyn_array<owned_matmul> parts;

  bool issue(void* const* ptrs, const unsigned long long* params, cudaStream_t stream, void* workspace,
             step_failure& failure) const override {
    for (const auto& part : parts)
      if (!part.get()->issue(ptrs, params, stream, workspace, failure)) return false;
    return true;
  }
};

// The strided batch a batch's bound members make (ir::matmul_batch_rule),
// or count 1 when they make none.
inline lt_batch_layout strided_batch_of(const plan_view& plan, const ir::statement& s,
                                        const matmul_shape& shape, void* const* ptrs) {
  const std::int32_t count = ir::matmul_batch_size(s);
  if (!ir::matmul_batch_pays(shape.m, shape.n, shape.k)) return {};
  const auto x0 = ir::matmul_member_of(plan.ir, s, 0);
  const auto size = [&](std::int32_t buffer) {
    return static_cast<long long>(size_of(plan.ir.buffers[static_cast<std::size_t>(buffer)].type));
  };
  const auto address = [&](std::int32_t buffer) { return reinterpret_cast<std::uintptr_t>(ptrs[buffer]); };
  // The stride in elements from member 0 to member 1 of one operand, 0 when
  // it is none (a temp, misaligned to its type, or not after member 0).
  const auto stride_of = [&](std::int32_t first, std::int32_t second) -> long long {
    if (ptrs[first] == nullptr || ptrs[second] == nullptr || address(second) <= address(first)) return 0;
    const auto bytes = address(second) - address(first);
    const auto elem = static_cast<std::uintptr_t>(size(first));
    return bytes % elem == 0 ? static_cast<long long>(bytes / elem) : 0;
  };
  const auto x1 = ir::matmul_member_of(plan.ir, s, 1);
  lt_batch_layout l;
  l.count = count;
  l.stride_a = stride_of(x0.a, x1.a);
  l.stride_b = stride_of(x0.b, x1.b);
  l.stride_c = stride_of(x0.c, x1.c);
  if (l.stride_a == 0 || l.stride_b == 0 || l.stride_c < shape.m * shape.n) return {};
  for (std::int32_t j = 1; j < count; ++j) {
    const auto x = ir::matmul_member_of(plan.ir, s, j);
    const auto at = [&](std::int32_t first, std::int32_t member, long long stride) {
      return ptrs[member] != nullptr &&
             address(member) == address(first) + static_cast<std::uintptr_t>(j) *
                                                     static_cast<std::uintptr_t>(stride) *
                                                     static_cast<std::uintptr_t>(size(first));
    };
    if (!at(x0.a, x.a, l.stride_a) || !at(x0.b, x.b, l.stride_b) || !at(x0.c, x.c, l.stride_c)) return {};
  }
  return l;
}

inline void prepare_lt_batch(owned_matmul_library& library, owned_matmul& held, const plan_view& plan,
                             std::size_t stmt, const long long* extents, void* const* ptrs) {
  const auto& s = plan.ir.stmts[stmt];
  const std::int32_t count = ir::matmul_batch_size(s);
  detail::dyn_array<matmul_shape> shapes;
  for (std::int32_t j = 0; j < count; ++j)
    shapes.push_back(matmul_shape_of(plan, s, ir::matmul_member_of(plan.ir, s, j), -1, extents, ptrs));
  const lt_batch_layout layout = strided_batch_of(plan, s, shapes[0], ptrs);
  if (held) {  // as prepared before: the same extents, alignments and strides
    const auto* was = static_cast<const lt_batch*>(held.get());
    bool same = was->layout == layout && was->shapes.size() == shapes.size();
    for (std::size_t j = 0; same && j < shapes.size(); ++j) same = was->shapes[j] == shapes[j];
    if (same) return;
  }
  auto* batch = new lt_batch;
  owned_matmul owned(batch);
  batch->layout = layout;
  if (layout.count > 1) {  // one call: the heuristic is told the members' smallest alignments
    matmul_shape shape = shapes[0];
    for (const auto& x : shapes) {
      shape.align_a = x.align_a < shape.align_a ? x.align_a : shape.align_a;
      shape.align_b = x.align_b < shape.align_b ? x.align_b : shape.align_b;
      shape.align_c = x.align_c < shape.align_c ? x.align_c : shape.align_c;
    }
    try {
      batch->parts.push_back(
          make_lt_matmul(library, plan, stmt, ir::matmul_member_of(plan.ir, s, 0), -1, shape, layout, ptrs));
    } catch (const error&) {
      // cuBLASLt refused the strided batch (no algorithm for it, say): the
      // members' own calls below, whose failures are reported as a matmul's.
      if (!library) throw;  // no handle: nothing else can run either
    }
  }
  if (batch->parts.empty())
    for (std::int32_t j = 0; j < count; ++j)
      batch->parts.push_back(make_lt_matmul(library, plan, stmt, ir::matmul_member_of(plan.ir, s, j), -1,
                                            shapes[static_cast<std::size_t>(j)], {}, ptrs));
  for (const auto& part : batch->parts)
    if (part.get()->workspace_bytes > batch->workspace_bytes)
      batch->workspace_bytes = part.get()->workspace_bytes;
  batch->shapes = static_cast<detail::dyn_array<matmul_shape>&&>(shapes);
  held = static_cast<owned_matmul&&>(owned);
}

inline void prepare_lt_matmul(owned_matmul_library& library, owned_matmul& held, const plan_view& plan,
                              std::size_t stmt, const long long* extents, void* const* ptrs) {
  const auto& s = plan.ir.stmts[stmt];
  if (ir::matmul_batch_size(s) > 1) return prepare_lt_batch(library, held, plan, stmt, extents, ptrs);
  // One read when both operands are one buffer (sd::matmul(x, sd::transpose(x))).
  const auto operands = ir::matmul_operands_of(plan.ir, s);
  const auto x = ir::matmul_member_of(plan.ir, s, 0);
  matmul_shape shape = matmul_shape_of(plan, s, x, operands.bias, extents, ptrs);
  for (const auto scale : {operands.scale_a, operands.scale_b, operands.scale_d, operands.amax_d})
    if (scale >= 0 && alignment_of(ptrs[scale]) < shape.align_scales)
      shape.align_scales = alignment_of(ptrs[scale]);
  const auto& ba = plan.ir.buffers[static_cast<std::size_t>(x.a)];
  if (is_fp8(ba.type))
    check_fp8_binding(plan, stmt, shape, size_of(plan.ir.buffers[static_cast<std::size_t>(x.c)].type));
  if (held && static_cast<const lt_matmul*>(held.get())->shape == shape) return;  // as prepared before
  held = make_lt_matmul(library, plan, stmt, x, operands.bias, shape, {}, ptrs);
}

template <class Program>
struct matmul_entry {
  static void prepare(owned_matmul_library& library, owned_matmul& held, const plan_view& plan,
                      std::size_t stmt, const long long* extents, void* const* ptrs) {
    prepare_lt_matmul(library, held, plan, stmt, extents, ptrs);
  }
};

}  // namespace streamdsl::cuda_detail
