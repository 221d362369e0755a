#pragma once
// Params: host values bound at run time and broadcast into expressions.
#include "expr.hpp"

namespace streamdsl {

template <element_type T>
class param {
 public:
  using value_type = T;
  constexpr param(detail::builder_state* state, std::int32_t id) : state_(state), id_(id) {}

  constexpr std::int32_t id() const { return id_; }
  constexpr detail::builder_state* builder() const { return state_; }
  static constexpr typed static_type{dtype_v<T>, strength::scalar};
  constexpr detail::operand as_operand(detail::builder_state* s) const { return s->param(id_); }

 private:
  detail::builder_state* state_;
  std::int32_t id_;
};

}  // namespace streamdsl
