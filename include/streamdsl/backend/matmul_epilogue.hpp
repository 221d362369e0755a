#pragma once
// A folded matmul epilogue (passes/matmul_epilogue.hpp, ir/step.hpp) on one
// element, for both backends: the host applies it as the unfolded consumer
// would, in the product's type C with each operation rounded to C (so folding
// does not change its results); cuBLASLt applies the same operations in
// float (double for double) and rounds once.
#include <cstdint>

#include "../ir/expr_node.hpp"
#include "../ir/step.hpp"
#include "element_ops.hpp"

namespace streamdsl::detail::matmul_epilogue {

// A literal alpha's value in C: its value in its node's type (as a kernel
// reads it), converted to C as the consumer's multiply converted it. The
// pass folds integral literals only where a double holds them exactly.
template <class C>
C literal_as(const ir::expr_node& n) {
  if (category_of(n.type) != dtype_category::floating)
    return element::convert<C>(static_cast<double>(n.ivalue));
  if (n.type == dtype::float32) return element::convert<C>(static_cast<float>(n.fvalue));
  if (n.type == dtype::float64) return element::convert<C>(n.fvalue);
  // A 16-bit float literal is of C's type (the pass checks): rounded through
  // float, as kernel_program's literal_bytes rounds it.
  return element::convert<C>(static_cast<float>(n.fvalue));
}

// d = act(alpha * v + bias) for a product element v already rounded to C,
// in the order cuBLASLt applies them; `mode`'s epilogue bits say which.
template <class C>
C apply(std::uint8_t mode, C v, C alpha, C bias) {
  using M = element::math_t<C>;
  const auto round = [](M x) { return element::convert<C>(x); };
  if (mode & ir::matmul_alpha)
    v = round(element::arithmetic(ir::op::mul, element::convert<M>(alpha), element::convert<M>(v)));
  if (mode & ir::matmul_bias)
    v = round(element::arithmetic(ir::op::add, element::convert<M>(v), element::convert<M>(bias)));
  if (mode & ir::matmul_relu) v = round(element::unary(ir::op::relu, element::convert<M>(v)));
  if (mode & ir::matmul_gelu_tanh) v = round(element::unary(ir::op::gelu_tanh, element::convert<M>(v)));
  return v;
}

}  // namespace streamdsl::detail::matmul_epilogue
