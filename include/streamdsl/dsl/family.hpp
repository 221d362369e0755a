#pragma once
// Families of handles: p.inputs<float>("x", 64) declares the buffers x[0] ...
// x[63] under one name, for loops that would otherwise need a table of
// generated names. x[i] is an ordinary handle of its kind; an index outside
// the family is a compile error naming the family. At run time a buffer
// family binds from one container (sd::bind("x", spans)), a member alone as
// "x[3]"; stream members bind as "s[3]" (cuda_executor::bind_stream).
#include <concepts>
#include <cstdint>
#include <type_traits>

#include "builder_state.hpp"

namespace streamdsl {

template <class Member>
class family {
 public:
  using member_type = Member;

  constexpr family(detail::builder_state* state, detail::builder_access::family_of what, std::int32_t first,
                   std::int32_t size)
      : state_(state), first_(first), size_(size), what_(what) {}

  // Any integer index; the range check is the builder's (a compile error
  // in sd::program), so a wrong index never reaches another family's member.
  template <std::integral I>
  constexpr Member operator[](I index) const {
    std::int64_t i = 0;
    if constexpr (std::is_signed_v<I>)
      i = static_cast<std::int64_t>(index);
    else
      i = index > static_cast<std::make_unsigned_t<std::int64_t>>(INT32_MAX)
              ? std::int64_t{INT32_MAX} + 1
              : static_cast<std::int64_t>(index);
    return Member(state_, detail::builder_access::family_member(*state_, what_, first_, size_, i));
  }

  constexpr std::int32_t size() const { return size_; }

 private:
  detail::builder_state* state_;
  std::int32_t first_;  // the id of member 0; members are consecutive
  std::int32_t size_;
  detail::builder_access::family_of what_;
};

}  // namespace streamdsl
