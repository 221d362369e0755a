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
#include "family.hpp"
#include "memory_space.hpp"
#include "param.hpp"
#include "stream.hpp"

namespace streamdsl {

class builder : private detail::builder_state {
 public:
  // Buffers bound by the caller at run time, in device memory unless a
  // space says otherwise: p.input<float, sd::pinned>("h"). Over one domain
  // (default "n"), none (sd::scalar: one element), or two: a rank-2 buffer
  // p.input<float>("a", rows, cols), row-major, bound with
  // sd::bind("a", data, rows, cols) (ir/shape.hpp; broadcasting by domain).
  template <element_type T, detail::memory_space_tag Space = device>
  constexpr streamdsl::input<T, Space> input(detail::string_view name, streamdsl::domain d = {},
                                             streamdsl::domain cols = detail::no_columns) {
    return {this,
            access::add_buffer(*this, name, ir::access::input, dtype_v<T>, shape(d, cols), Space::value)};
  }
  template <element_type T, detail::memory_space_tag Space = device>
  constexpr streamdsl::output<T, Space> output(detail::string_view name, streamdsl::domain d = {},
                                               streamdsl::domain cols = detail::no_columns) {
    return {this,
            access::add_buffer(*this, name, ir::access::output, dtype_v<T>, shape(d, cols), Space::value)};
  }
  template <element_type T, detail::memory_space_tag Space = device>
  constexpr streamdsl::inout<T, Space> inout(detail::string_view name, streamdsl::domain d = {},
                                             streamdsl::domain cols = detail::no_columns) {
    return {this,
            access::add_buffer(*this, name, ir::access::inout, dtype_v<T>, shape(d, cols), Space::value)};
  }
  // Program-owned: the compiler decides where (and whether) it is stored,
  // always in the executor's device workspace (see temps_live_on_the_device).
  template <element_type T, detail::memory_space_tag Space = device>
  constexpr streamdsl::temp<T> temp(detail::string_view name, streamdsl::domain d = {},
                                    streamdsl::domain cols = detail::no_columns) {
    temps_live_on_the_device<Space>();
    return {this, access::add_buffer(*this, name, ir::access::temp, dtype_v<T>, shape(d, cols))};
  }

  // Families: `auto x = p.inputs<float>("x", 64)` declares x[0] ... x[63]
  // (a space and a domain, or rows and columns, as for one buffer); x[i] is
  // an sd::input<float>.
  template <element_type T, detail::memory_space_tag Space = device>
  constexpr family<streamdsl::input<T, Space>> inputs(detail::string_view name, std::int64_t count,
                                                      streamdsl::domain d = {},
                                                      streamdsl::domain cols = detail::no_columns) {
    return buffer_family<streamdsl::input<T, Space>>(name, count, shape(d, cols));
  }
  template <element_type T, detail::memory_space_tag Space = device>
  constexpr family<streamdsl::output<T, Space>> outputs(detail::string_view name, std::int64_t count,
                                                        streamdsl::domain d = {},
                                                        streamdsl::domain cols = detail::no_columns) {
    return buffer_family<streamdsl::output<T, Space>>(name, count, shape(d, cols));
  }
  template <element_type T, detail::memory_space_tag Space = device>
  constexpr family<streamdsl::inout<T, Space>> inouts(detail::string_view name, std::int64_t count,
                                                      streamdsl::domain d = {},
                                                      streamdsl::domain cols = detail::no_columns) {
    return buffer_family<streamdsl::inout<T, Space>>(name, count, shape(d, cols));
  }
  template <element_type T, detail::memory_space_tag Space = device>
  constexpr family<streamdsl::temp<T>> temps(detail::string_view name, std::int64_t count,
                                             streamdsl::domain d = {},
                                             streamdsl::domain cols = detail::no_columns) {
    temps_live_on_the_device<Space>();
    return buffer_family<streamdsl::temp<T>>(name, count, shape(d, cols));
  }
  constexpr family<streamdsl::stream> streams(detail::string_view name, std::int64_t count) {
    const auto first = access::add_stream_family(*this, name, count);
    return {this, access::family_of::streams, first,
            static_cast<std::int32_t>(access::ir(*this).streams.size()) - first};
  }
  constexpr family<streamdsl::event> events(detail::string_view name, std::int64_t count) {
    const auto first = access::add_event_family(*this, name, count);
    return {this, access::family_of::events, first,
            static_cast<std::int32_t>(access::ir(*this).events.size()) - first};
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

  // The user's own step on the current stream (ops/call.hpp):
  // p.call("name", sd::reads(x), sd::writes(y)), either list may be left out.
  template <class Reads, class Writes>
    requires(!Reads::writes && Writes::writes)  // sd::reads(...), sd::writes(...)
  constexpr void call(detail::string_view name, const Reads& reads, const Writes& writes) {
    access::call(*this, name, reads.regions, Reads::size, writes.regions, Writes::size);
  }
  template <class List>
    requires requires { List::writes; }
  constexpr void call(detail::string_view name, const List& list) {
    if constexpr (List::writes)
      access::call(*this, name, nullptr, 0, list.regions, List::size);
    else
      access::call(*this, name, list.regions, List::size, nullptr, 0);
  }

  // A host step on the current stream (ops/call.hpp): the callable runs on
  // the CPU in stream order, after the stream's earlier work and before its
  // later work (cudaLaunchHostFunc on the GPU), and lists host memory only:
  // p.host_call("log", sd::reads(h_loss)). Bound with sd::bind_call too.
  template <class Reads, class Writes>
    requires(!Reads::writes && Writes::writes)  // sd::reads(...), sd::writes(...)
  constexpr void host_call(detail::string_view name, const Reads& reads, const Writes& writes) {
    access::call(*this, name, reads.regions, Reads::size, writes.regions, Writes::size,
                 ir::step_code::host_call);
  }
  template <class List>
    requires requires { List::writes; }
  constexpr void host_call(detail::string_view name, const List& list) {
    if constexpr (List::writes)
      access::call(*this, name, nullptr, 0, list.regions, List::size, ir::step_code::host_call);
    else
      access::call(*this, name, list.regions, List::size, nullptr, 0, ir::step_code::host_call);
  }

  // The program written so far, errors included (ir().ok()); a builder used
  // at run time hands it to sd::passes::schedule(std::move(b).ir(), ...).
  constexpr const ir::program& ir() const& { return access::ir(*this); }
  constexpr ir::program ir() && { return static_cast<ir::program&&>(access::ir(*this)); }

 private:
  using access = detail::builder_access;
  friend struct detail::builder_access;

  // Temps are placed by the memory plan in the executor's workspace, which
  // is device memory: a host temp could only be reached by copies, and a
  // caller-bound pinned output does that job.
  template <class Space>
  static constexpr void temps_live_on_the_device() {
    static_assert(std::same_as<Space, device>,
                  "streamdsl: a temp lives in the executor's device workspace and takes no memory space; "
                  "for host memory declare a caller-bound buffer, e.g. p.output<float, sd::pinned>(\"h\"), "
                  "and fill it with sd::copy");
  }

  // The domain of a buffer declared over d, or over (d, cols).
  constexpr std::int32_t shape(streamdsl::domain d, streamdsl::domain cols) {
    return cols.id == detail::no_columns.id ? d.id : access::product_domain(*this, d.id, cols.id);
  }
  template <class Buffer>
  constexpr family<Buffer> buffer_family(detail::string_view name, std::int64_t count, std::int32_t domain) {
    using T = typename Buffer::value_type;
    const auto first =
        access::add_buffer_family(*this, name, count, Buffer::kind, dtype_v<T>, domain, Buffer::space);
    return {this, access::family_of::buffers, first, access::ir(*this).buffers[first].family_size};
  }
};

namespace detail {
constexpr builder_state& builder_access::state(builder& b) { return b; }
constexpr const builder_state& builder_access::state(const builder& b) { return b; }
}  // namespace detail

}  // namespace streamdsl
