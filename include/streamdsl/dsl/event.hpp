#pragma once
// Events: record() on the current stream; wait() makes the current stream wait
// for the latest preceding record in program order (re-recording rebinds).
#include "builder_state.hpp"

namespace streamdsl {

class event {
 public:
  constexpr event(detail::builder_state* state, std::int32_t id) : state_(state), id_(id) {}
  constexpr event(const event&) = default;

  // `a = b` would only make `a` name b's event (later records and waits on
  // `a` would use b), so it is refused with what to write.
  void operator=(const volatile event&) = delete;  // no implicit copy assignment: the template below says why
  template <class V>
  constexpr void operator=(const V&) {  // constexpr: nvcc instantiates it while running the lambda
    static_assert(
        !sizeof(V),
        "streamdsl: an event handle cannot be assigned: 'a = b' would only make 'a' name b's event; "
        "call b.record() and b.wait() on the event you mean, or declare another with p.event(\"name\")");
  }

  constexpr void record() const { detail::builder_access::record(*state_, id_); }
  constexpr void wait() const { detail::builder_access::wait(*state_, id_); }
  constexpr std::int32_t id() const { return id_; }

 private:
  detail::builder_state* state_;
  std::int32_t id_;
};

}  // namespace streamdsl
