#pragma once
// Prefix sums of an elementwise expression, on the current stream:
// `y = sd::inclusive_sum(x)` (y[i] = x[0] + ... + x[i]) and
// `y = sd::exclusive_sum(x)` (y[0] = 0, y[i] = x[0] + ... + x[i-1]), over a
// buffer or a chunk; the target has the expression's shape. Integers and
// bool sum to int64_t, floating types keep theirs (ir/step.hpp). On the GPU
// they run through cub::DeviceScan; on the host executor as a loop.
#include "reduce.hpp"

namespace streamdsl {

// sd::inclusive_sum(e, cols): each row of a rank-2 e along its last axis.
template <detail::node_like A>
constexpr detail::step_value inclusive_sum(const A& a) {
  return detail::make_step_value<ir::step_code::inclusive_sum>(a);
}
template <detail::node_like A>
constexpr detail::step_value inclusive_sum(const A& a, domain axis) {
  return detail::make_step_value<ir::step_code::inclusive_sum>(a, axis.id);
}
template <detail::node_like A>
constexpr detail::step_value exclusive_sum(const A& a) {
  return detail::make_step_value<ir::step_code::exclusive_sum>(a);
}
template <detail::node_like A>
constexpr detail::step_value exclusive_sum(const A& a, domain axis) {
  return detail::make_step_value<ir::step_code::exclusive_sum>(a, axis.id);
}

}  // namespace streamdsl
