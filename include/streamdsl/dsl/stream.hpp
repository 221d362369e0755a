#pragma once
// Stream slots and stream scopes. with_stream(s, f) makes s current while f
// runs; scopes nest and the innermost wins.
#include "builder_state.hpp"

namespace streamdsl {

class stream {
 public:
  constexpr stream(detail::builder_state* state, std::int32_t id) : state_(state), id_(id) {}
  constexpr stream(const stream&) = default;

  // `a = b` would only make `a` name b's stream (work issued on `a` would
  // go to b), so it is refused with what to write.
  void operator=(const volatile stream&) =
      delete;  // no implicit copy assignment: the template below says why
  template <class V>
  constexpr void operator=(const V&) {  // constexpr: nvcc instantiates it while running the lambda
    static_assert(
        !sizeof(V),
        "streamdsl: a stream handle cannot be assigned: 'a = b' would only make 'a' name b's stream; "
        "to order a after b's work write a.wait_stream(b), to issue work on b write "
        "sd::with_stream(b, [&] { ... })");
  }

  // This stream waits for all work issued so far on `other` (torch's wait_stream).
  constexpr void wait_stream(const stream& other) const {
    detail::builder_access::wait_stream(*state_, id_, other.id_);
  }

  constexpr std::int32_t id() const { return id_; }

 private:
  friend struct detail::builder_access;
  constexpr detail::builder_state* builder() const { return state_; }

  detail::builder_state* state_;
  std::int32_t id_;
};

template <class F>
constexpr void with_stream(const stream& s, F&& body) {
  auto& current = detail::builder_access::current_stream(*detail::builder_access::state_of(s));
  const auto outer = current;
  current = s.id();
  static_cast<F&&>(body)();
  current = outer;
}

}  // namespace streamdsl
