#pragma once
// The host executor's matmul (ops/matmul.hpp): c = op(a) op(b) as loops,
// row by row of c: for each element the products are added in k order, in
// the accumulation type (ir::matmul_accumulation_type: float for the 16-bit
// float types), each product rounded before it is added (no fma), then the
// sum rounded to c's type. The random tester's reference adds in the same
// order, so they agree bit for bit; the GPU's cuBLAS adds in its own order.
// A folded epilogue (passes/matmul_epilogue.hpp) is then applied to each
// rounded element as the consumer it replaces would (backend/matmul_epilogue.hpp).
// FP8 operands (multiply_fp8) are decoded exactly to float (detail/fp8_bits.hpp),
// their products (exact in float) added in k order in float, the sum
// multiplied by scale_a * scale_b (the 0-d scale buffers' values, 1 without
// sd::scales) and rounded once to c's type. An FP8 product (multiply_fp8_out)
// is that float times the output scale (sd::output_scale; 1 without), rounded
// to c's format with saturation to its largest finite value
// (detail::float_to_fp8_bits: CUDA's satfinite, as cuBLASLt's FP8 D; NaN
// stays NaN), and sd::output_amax's buffer gets the largest |value| before the
// output scale (a float compared with fabs; NaN if any element is NaN).
#include <cmath>
#include <cstddef>
#include <cstring>

#include "../../detail/dyn_array.hpp"
#include "../../detail/fp8_bits.hpp"
#include "../../ir/accesses.hpp"
#include "../../plan/plan_view.hpp"
#include "../element_ops.hpp"
#include "../matmul_epilogue.hpp"
#include "../region_memory.hpp"
#include "../resolve_bindings.hpp"

namespace streamdsl::host_detail {

// What a matmul op multiplies: c (m x n) = op(a) (m x k) op(b) (k x n),
// row-major; a transposed operand is stored the other way ((k x m), (n x k)).
struct host_matmul {
  const std::byte* a = nullptr;
  const std::byte* b = nullptr;
  std::byte* c = nullptr;
  std::size_t m = 0, n = 0, k = 0;
  bool ta = false, tb = false;
  void (*multiply)(const host_matmul&) = nullptr;  // multiply<T, C> of the operands' and c's types
  // The folded epilogue (ir::matmul_epilogue_bits of the mode; 0: none), its
  // bias (n elements of type C) and alpha: a literal's node, or a param's
  // value bytes (of type C).
  std::uint8_t epilogue = 0;
  const std::byte* bias = nullptr;
  ir::expr_node alpha_literal{};
  const unsigned char* alpha_param = nullptr;
  // FP8 operands: their formats, and the scales (sd::scales; null: 1).
  detail::fp8_format fa{}, fb{};
  const float* scale_a = nullptr;
  const float* scale_b = nullptr;
  // An FP8 product: its format, its scale (null: 1) and its amax (null: none).
  detail::fp8_format fc{};
  const float* scale_d = nullptr;
  float* amax_d = nullptr;
};

// The products of FP8 operands (either format in a and b), row by row of c:
// each element's products (exact in float) added in k order in float, the sum
// times scale_a * scale_b, handed to store(index in c, value).
template <class Store>
void fp8_products(const host_matmul& mm, Store store) {
  namespace element = detail::element;
  float va[256], vb[256];  // every FP8 value, decoded once
  for (int v = 0; v < 256; ++v) {
    va[v] = detail::fp8_bits_to_float(static_cast<std::uint8_t>(v), mm.fa);
    vb[v] = detail::fp8_bits_to_float(static_cast<std::uint8_t>(v), mm.fb);
  }
  const auto* a = reinterpret_cast<const std::uint8_t*>(mm.a);
  const auto* b = reinterpret_cast<const std::uint8_t*>(mm.b);
  const float scale = (mm.scale_a ? *mm.scale_a : 1.0f) * (mm.scale_b ? *mm.scale_b : 1.0f);
  detail::dyn_array<float> row(mm.n, 0.0f);
  for (std::size_t i = 0; i < mm.m; ++i) {
    for (std::size_t j = 0; j < mm.n; ++j) row[j] = 0.0f;
    for (std::size_t p = 0; p < mm.k; ++p) {
      const float x = va[mm.ta ? a[p * mm.m + i] : a[i * mm.k + p]];
      for (std::size_t j = 0; j < mm.n; ++j) {
        const float y = vb[mm.tb ? b[j * mm.k + p] : b[p * mm.n + j]];
        row[j] = element::arithmetic(ir::op::add, row[j], element::arithmetic(ir::op::mul, x, y));
      }
    }
    for (std::size_t j = 0; j < mm.n; ++j)
      store(i * mm.n + j, element::arithmetic(ir::op::mul, row[j], scale));
  }
}

// FP8 operands into C (__nv_bfloat16, __half or float): each value rounded once.
template <class C>
void multiply_fp8(const host_matmul& mm) {
  C* c = reinterpret_cast<C*>(mm.c);
  fp8_products(mm, [&](std::size_t at, float v) { c[at] = detail::element::convert<C>(v); });
}

// FP8 operands into an FP8 product (mm.fc): each value times the output
// scale, converted with saturation; the amax of the values before that scale.
inline void multiply_fp8_out(const host_matmul& mm) {
  auto* c = reinterpret_cast<std::uint8_t*>(mm.c);
  const float scale_d = mm.scale_d ? *mm.scale_d : 1.0f;
  float amax = 0.0f;
  fp8_products(mm, [&](std::size_t at, float v) {
    const float magnitude = v < 0 ? -v : v;
    if (!std::isnan(amax) && !(magnitude <= amax)) amax = magnitude;  // the first NaN stays
    c[at] = detail::float_to_fp8_bits(detail::element::arithmetic(ir::op::mul, v, scale_d), mm.fc);
  });
  if (mm.amax_d != nullptr) *mm.amax_d = amax;
}

// T: the operands' type; C: c's (T, or float for the 16-bit float types: ir::matmul_stores).
template <class T, class C>
void multiply(const host_matmul& mm) {
  namespace element = detail::element;
  using A = element::math_t<T>;  // float for __half and __nv_bfloat16: as ir::matmul_accumulation_type
  const T* a = reinterpret_cast<const T*>(mm.a);
  const T* b = reinterpret_cast<const T*>(mm.b);
  C* c = reinterpret_cast<C*>(mm.c);
  detail::dyn_array<A> row(mm.n, A(0));
  for (std::size_t i = 0; i < mm.m; ++i) {
    for (std::size_t j = 0; j < mm.n; ++j) row[j] = A(0);
    for (std::size_t p = 0; p < mm.k; ++p) {
      const A x = element::convert<A>(mm.ta ? a[p * mm.m + i] : a[i * mm.k + p]);
      for (std::size_t j = 0; j < mm.n; ++j) {
        const A y = element::convert<A>(mm.tb ? b[j * mm.k + p] : b[p * mm.n + j]);
        row[j] = element::arithmetic(ir::op::add, row[j], element::arithmetic(ir::op::mul, x, y));
      }
    }
    // Rounded once, from the accumulation type to c's (a float c of 16-bit operands keeps every bit).
    for (std::size_t j = 0; j < mm.n; ++j) c[i * mm.n + j] = element::convert<C>(row[j]);
    if (mm.epilogue == 0) continue;
    C alpha = C(1);
    if (mm.alpha_param != nullptr)
      std::memcpy(&alpha, mm.alpha_param, sizeof alpha);
    else if (mm.epilogue & ir::matmul_alpha)
      alpha = detail::matmul_epilogue::literal_as<C>(mm.alpha_literal);
    const C* bias = reinterpret_cast<const C*>(mm.bias);
    for (std::size_t j = 0; j < mm.n; ++j)
      c[i * mm.n + j] =
          detail::matmul_epilogue::apply<C>(mm.epilogue, c[i * mm.n + j], alpha, bias ? bias[j] : C(0));
  }
}

// The multiply of one type, for the types a program's matmuls use (none for
// most programs: they compile none of this), or every type. Half: CUDA's
// types (the 16-bit and the FP8 ones).
using multiply_fn = void (*)(const host_matmul&);
using multiply_finder = multiply_fn (*)(dtype, dtype);
template <bool Float, bool Double, bool Half>
multiply_fn multiply_for(dtype t, [[maybe_unused]] dtype out) {
  if constexpr (Float)
    if (t == dtype::float32) return &multiply<float, float>;
  if constexpr (Double)
    if (t == dtype::float64) return &multiply<double, double>;
#ifdef STREAMDSL_HAS_HALF
  if constexpr (Half) {
    const bool wide = out == dtype::float32;
    if (t == dtype::float16) return wide ? &multiply<__half, float> : &multiply<__half, __half>;
    if (t == dtype::bfloat16)
      return wide ? &multiply<__nv_bfloat16, float> : &multiply<__nv_bfloat16, __nv_bfloat16>;
    if (is_fp8(t) && is_fp8(out)) return &multiply_fp8_out;
    if (is_fp8(t))
      return out == dtype::float32   ? &multiply_fp8<float>
             : out == dtype::float16 ? &multiply_fp8<__half>
                                     : &multiply_fp8<__nv_bfloat16>;
  }
#endif
  return nullptr;
}

// Whether some matmul of the plan multiplies operands of type t.
constexpr bool multiplies(const plan_view& plan, dtype t) {
  for (const auto& s : plan.ir.stmts)
    if (s.kind == ir::stmt_kind::step && s.code == ir::step_code::matmul &&
        plan.ir.buffers[static_cast<std::size_t>(
                            plan.ir.accesses[static_cast<std::size_t>(s.accesses_first)].buffer)]
                .type == t)
      return true;
  return false;
}

// The operands, extents and multiply of a matmul statement's member j (a
// batch's, passes/batch_matmuls.hpp; 0 of a plain matmul).
inline host_matmul lay_out_matmul(const plan_view& plan, const resolved_bindings& bound,
                                  const detail::dyn_array<std::byte*>& memory, const ir::statement& s,
                                  multiply_finder multiplies, std::int32_t j = 0) {
  const auto operands = ir::matmul_operands_of(plan.ir, s);
  const auto member = ir::matmul_member_of(plan.ir, s, j);
  const auto a = member.a, b = member.b, target = member.c;
  auto extent = [&](std::int32_t d) { return bound.domain_extent[static_cast<std::size_t>(d)]; };
  const auto& da =
      plan.ir.domains[static_cast<std::size_t>(plan.ir.buffers[static_cast<std::size_t>(a)].domain)];
  const auto& db =
      plan.ir.domains[static_cast<std::size_t>(plan.ir.buffers[static_cast<std::size_t>(b)].domain)];
  host_matmul mm;
  mm.ta = (s.matmul_mode & ir::transpose_a) != 0;
  mm.tb = (s.matmul_mode & ir::transpose_b) != 0;
  mm.m = extent(mm.ta ? da.inner : da.outer);
  mm.k = extent(mm.ta ? da.outer : da.inner);
  mm.n = extent(mm.tb ? db.outer : db.inner);
  mm.a = memory[static_cast<std::size_t>(a)];
  mm.b = memory[static_cast<std::size_t>(b)];
  mm.c =
      backend_detail::bytes_of(plan, bound, ir::whole(target), memory[static_cast<std::size_t>(target)]).data;
  mm.epilogue = s.matmul_mode & ir::matmul_epilogue_bits;
  if (operands.bias >= 0) mm.bias = memory[static_cast<std::size_t>(operands.bias)];
  const auto format = [&](std::int32_t x) {
    return plan.ir.buffers[static_cast<std::size_t>(x)].type == dtype::float8_e5m2 ? detail::fp8_e5m2_format
                                                                                   : detail::fp8_e4m3_format;
  };
  mm.fa = format(a);
  mm.fb = format(b);
  mm.fc = format(target);
  if (operands.scale_a >= 0)
    mm.scale_a = reinterpret_cast<const float*>(memory[static_cast<std::size_t>(operands.scale_a)]);
  if (operands.scale_b >= 0)
    mm.scale_b = reinterpret_cast<const float*>(memory[static_cast<std::size_t>(operands.scale_b)]);
  if (operands.scale_d >= 0)
    mm.scale_d = reinterpret_cast<const float*>(memory[static_cast<std::size_t>(operands.scale_d)]);
  if (operands.amax_d >= 0)
    mm.amax_d = reinterpret_cast<float*>(memory[static_cast<std::size_t>(operands.amax_d)]);
  if (mm.epilogue & ir::matmul_alpha) {
    const auto& alpha = plan.ir.nodes[static_cast<std::size_t>(s.root)];
    if (alpha.code == ir::op::param)
      mm.alpha_param = bound.param_value[static_cast<std::size_t>(alpha.ref)]->value_bytes();
    else
      mm.alpha_literal = alpha;
  }
  mm.multiply = multiplies == nullptr ? nullptr
                                      : multiplies(plan.ir.buffers[static_cast<std::size_t>(a)].type,
                                                   plan.ir.buffers[static_cast<std::size_t>(target)].type);
  if (mm.multiply == nullptr)
    throw error("streamdsl host executor: internal error: a program's matmul lacks its multiply");
  return mm;
}

}  // namespace streamdsl::host_detail
