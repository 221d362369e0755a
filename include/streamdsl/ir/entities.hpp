#pragma once
// The named things of a program: buffers, params, streams, events, domains.
#include <cstdint>

#include "../detail/string_view.hpp"
#include "dtype.hpp"
#include "memory_space.hpp"

namespace streamdsl::ir {

// A name stored in the program's character pool (names outlive the lambda
// that spelled them, so they are copied).
struct name_ref {
  std::int32_t offset = 0;
  std::int32_t length = 0;
};

enum class access : std::uint8_t { input, output, inout, temp };

constexpr detail::string_view name_of(access a) {
  switch (a) {
    case access::input: return "input";
    case access::output: return "output";
    case access::inout: return "inout";
    case access::temp: return "temp";
  }
  return "?";
}

struct buffer_info {
  name_ref name;
  access kind = access::input;
  dtype type = dtype::float32;
  memory_space space = memory_space::device;  // beside the other bytes: no padding
  std::int32_t domain = 0;  // -1: a 0-d buffer (one element, broadcast when read); rank 2: a product domain
  // A member of a family (p.inputs<T>("x", k)) is called x[i]; the members
  // of one family are declared one after another, so x[0] is buffer id - i.
  std::int32_t family_index = -1;  // i, or -1: not a member of a family
  std::int32_t family_size = 0;    // k, or 0
};

struct param_info {
  name_ref name;
  dtype type = dtype::float32;
};

struct stream_info {
  name_ref name;
};

// Who made an event: the user, the lowering of s.wait_stream(t), or
// sd::automatic's sync insertion.
enum class event_role : std::uint8_t { user, wait_stream, automatic };

struct event_info {
  name_ref name;
  event_role role = event_role::user;
};

// A step of the user's own (p.call("name", ...)): its callable is bound by
// name when the program runs (sd::bind_call). Statements that name the same
// call share one entry.
struct call_info {
  name_ref name;
};

// A domain: a plain one (p.domain("rows")), or the product of two plain
// ones, which rank-2 buffers are over (ir/shape.hpp).
struct domain_info {
  name_ref name;
  std::int32_t outer = -1;  // a product's: its rows' domain (-1: a plain domain)
  std::int32_t inner = -1;  // a product's: its columns' domain, the last axis
};

inline constexpr std::int32_t main_stream = 0;
inline constexpr std::int32_t default_domain = 0;
// Their names, reserved: a declaration cannot take them (the main stream's in
// every namespace, the default domain's among domains).
inline constexpr detail::string_view main_stream_name = "main";
inline constexpr detail::string_view default_domain_name = "n";

}  // namespace streamdsl::ir
