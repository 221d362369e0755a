#pragma once
// sd::builder: what the program lambda receives. It declares buffers, params,
// streams, events and domains; statements are written with the handles. The
// engine (builder_state) is a private base: its IR and current stream are
// not user API: handles, operators and the random program generators
// (tests/random/) reach it through detail::builder_access
// (dsl/builder_state.hpp). ir() hands the IR over for a builder used at run time.
#include "../detail/string_view.hpp"
#include "buffer.hpp"
#include "domain.hpp"
#include "event.hpp"
#include "param.hpp"
#include "stream.hpp"

namespace streamdsl {

class builder : private detail::builder_state {
 public:
  // Buffers bound by the caller at run time.
  template <element_type T>
  constexpr streamdsl::input<T> input(detail::string_view name, streamdsl::domain d = {}) {
    return {this, access::add_buffer(*this, name, ir::access::input, dtype_v<T>, d.id)};
  }
  template <element_type T>
  constexpr streamdsl::output<T> output(detail::string_view name, streamdsl::domain d = {}) {
    return {this, access::add_buffer(*this, name, ir::access::output, dtype_v<T>, d.id)};
  }
  template <element_type T>
  constexpr streamdsl::inout<T> inout(detail::string_view name, streamdsl::domain d = {}) {
    return {this, access::add_buffer(*this, name, ir::access::inout, dtype_v<T>, d.id)};
  }
  // Program-owned: the compiler decides where (and whether) it is stored.
  template <element_type T>
  constexpr streamdsl::temp<T> temp(detail::string_view name, streamdsl::domain d = {}) {
    return {this, access::add_buffer(*this, name, ir::access::temp, dtype_v<T>, d.id)};
  }
  template <element_type T>
  constexpr streamdsl::param<T> param(detail::string_view name) {
    return {this, access::add_param(*this, name, dtype_v<T>)};
  }

  constexpr streamdsl::stream stream(detail::string_view name) {
    return {this, access::add_stream(*this, name)};
  }
  // The stream the program is launched on.
  constexpr streamdsl::stream main_stream() { return {this, ir::main_stream}; }
  constexpr streamdsl::event event(detail::string_view name) {
    return {this, access::add_event(*this, name)};
  }
  // A further iteration domain; buffers default to domain "n".
  constexpr streamdsl::domain domain(detail::string_view name) {
    return streamdsl::domain(access::add_domain(*this, name));
  }

  // The program written so far, errors included (ir().ok()); a builder used
  // at run time hands it to sd::passes::schedule(std::move(b).ir(), ...).
  constexpr const ir::program& ir() const& { return access::ir(*this); }
  constexpr ir::program ir() && { return static_cast<ir::program&&>(access::ir(*this)); }

 private:
  using access = detail::builder_access;
  friend struct detail::builder_access;
};

namespace detail {
constexpr builder_state& builder_access::state(builder& b) { return b; }
constexpr const builder_state& builder_access::state(const builder& b) { return b; }
}  // namespace detail

}  // namespace streamdsl
