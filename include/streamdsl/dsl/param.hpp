#pragma once
// Params: host values bound at run time and broadcast into expressions.
#include "expr.hpp"

namespace streamdsl {

template <element_type T>
class param {
 public:
  using value_type = T;
  constexpr param(detail::builder_state* state, std::int32_t id) : state_(state), id_(id) {}
  constexpr param(const param&) = default;

  // A handle names a param; its value is bound at run time. `a = b` would
  // only make `a` name b's param, so it is refused with what to write.
  void operator=(const volatile param&) = delete;  // no implicit copy assignment: the template below says why
  template <class V>
  constexpr void operator=(const V&) {  // constexpr: nvcc instantiates it while running the lambda
    static_assert(!sizeof(V),
                  "streamdsl: a param handle cannot be assigned: a param's value is bound at run time "
                  "(sd::bind(\"a\", 2.0f)), and 'a = b' would only make 'a' name b's param; write 'b' where "
                  "b's value is meant, or bind both params to the same value");
  }

  constexpr std::int32_t id() const { return id_; }
  static constexpr typed static_type{dtype_v<T>, strength::scalar};

 private:
  friend struct detail::builder_access;
  constexpr detail::builder_state* builder() const { return state_; }
  constexpr detail::operand as_operand(detail::builder_state* s) const {
    return detail::builder_access::param(*s, id_);
  }

  detail::builder_state* state_;
  std::int32_t id_;
};

}  // namespace streamdsl
