#pragma once
// Events: record() on the current stream; wait() makes the current stream wait
// for the latest preceding record in program order (re-recording rebinds).
#include "builder_state.hpp"

namespace streamdsl {

class event {
 public:
  constexpr event(detail::builder_state* state, std::int32_t id) : state_(state), id_(id) {}

  constexpr void record() const { state_->record(id_); }
  constexpr void wait() const { state_->wait(id_); }
  constexpr std::int32_t id() const { return id_; }

 private:
  detail::builder_state* state_;
  std::int32_t id_;
};

}  // namespace streamdsl
