#pragma once
// sd::builder: what the program lambda receives. It declares buffers, params,
// streams, events and domains; statements are written with the handles.
#include "../detail/string_view.hpp"
#include "buffer.hpp"
#include "domain.hpp"
#include "event.hpp"
#include "param.hpp"
#include "stream.hpp"

namespace streamdsl {

class builder : public detail::builder_state {
 public:
  // Buffers bound by the caller at run time.
  template <element_type T>
  constexpr streamdsl::input<T> input(detail::string_view name, streamdsl::domain d = {}) {
    return {this, add_buffer(name, ir::access::input, dtype_v<T>, d.id)};
  }
  template <element_type T>
  constexpr streamdsl::output<T> output(detail::string_view name, streamdsl::domain d = {}) {
    return {this, add_buffer(name, ir::access::output, dtype_v<T>, d.id)};
  }
  template <element_type T>
  constexpr streamdsl::inout<T> inout(detail::string_view name, streamdsl::domain d = {}) {
    return {this, add_buffer(name, ir::access::inout, dtype_v<T>, d.id)};
  }
  // Program-owned: the compiler decides where (and whether) it is stored.
  template <element_type T>
  constexpr streamdsl::temp<T> temp(detail::string_view name, streamdsl::domain d = {}) {
    return {this, add_buffer(name, ir::access::temp, dtype_v<T>, d.id)};
  }
  template <element_type T>
  constexpr streamdsl::param<T> param(detail::string_view name) {
    return {this, add_param(name, dtype_v<T>)};
  }

  constexpr streamdsl::stream stream(detail::string_view name) { return {this, add_stream(name)}; }
  // The stream the program is launched on.
  constexpr streamdsl::stream main_stream() { return {this, ir::main_stream}; }
  constexpr streamdsl::event event(detail::string_view name) { return {this, add_event(name)}; }
  // A further iteration domain; buffers default to domain "n".
  constexpr streamdsl::domain domain(detail::string_view name) { return {add_domain(name)}; }
};

}  // namespace streamdsl
