#pragma once
// The meaning of each reduction and scan on accumulated values, shared by
// the host executor, the CUDA backend's CUB operators and the test
// reference (as element_ops.hpp is for elementwise ops). A is the
// accumulation type (ir::accumulation_type: int64_t, float or double):
// - sum, mean, norm and the scans add (int64_t wraps around; float and
//   double round each addition, no fma contraction); norm adds squares and
//   takes the square root at the end, mean divides by the element count at
//   the end (0 / 0 = NaN for an empty input);
// - min and max fold the elementwise sd::min / sd::max: a NaN is ignored
//   (the result is NaN only if every element is), -0 is below +0;
// - argmax is the index of the first element equal to max(x) in that order
//   (so x[argmax(x)] is max(x) bit for bit), 0 if every element is NaN.
// The order of additions is the backend's: a tree on the GPU; on the host
// (and in the random tester's reference) blocks of summation_block elements,
// each added up from zero in element order, and the block sums added in
// order, so the rounding error of a float sum of n elements is within
// (summation_block + n / summation_block) eps sum|x| rather than n eps sum|x|.
// Float results of the two agree within a bound, integers exactly.
#include "../ir/step.hpp"
#include "element_ops.hpp"

namespace streamdsl::detail::reduce {

inline constexpr std::size_t summation_block = 512;

// What an element contributes before it is combined.
template <class A>
STREAMDSL_HD A input(ir::step_code c, A v) {
  return c == ir::step_code::norm ? element::arithmetic(ir::op::mul, v, v) : v;
}

// Combines two partial results (associative; commutative up to rounding).
template <class A>
STREAMDSL_HD A combine(ir::step_code c, A a, A b) {
  switch (c) {
    case ir::step_code::min: return element::arithmetic(ir::op::min, a, b);
    case ir::step_code::max: return element::arithmetic(ir::op::max, a, b);
    default: return element::arithmetic(ir::op::add, a, b);
  }
}

// The result from the combined value of n elements.
template <class A>
STREAMDSL_HD A finish(ir::step_code c, A acc, long long n) {
  switch (c) {
    case ir::step_code::mean: return element::arithmetic(ir::op::div, acc, static_cast<A>(n));
    case ir::step_code::norm: return element::unary(ir::op::sqrt, acc);
    default: return acc;
  }
}

// argmax: whether v (at a later index) replaces the best so far.
template <class A>
STREAMDSL_HD bool replaces(A v, A best) {
  if constexpr (std::is_floating_point_v<A>) {
    if (v != v) return false;
    if (best != best) return true;
    if (v == best) return v == A(0) && std::signbit(best) && !std::signbit(v);  // +0 after -0
  }
  return best < v;
}

}  // namespace streamdsl::detail::reduce
