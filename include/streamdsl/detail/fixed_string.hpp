#pragma once
// A string usable as a template argument: compile errors carry their message
// in one so that the compiler prints it (see diag/error.hpp).
#include <cstddef>

#include "string_view.hpp"

namespace streamdsl::detail {

template <std::size_t N>
struct fixed_string {
  char chars[N + 1]{};
  std::size_t length = 0;

  constexpr fixed_string() = default;
  constexpr fixed_string(const char (&s)[N + 1]) {  // NOLINT: implicit from literal
    for (std::size_t i = 0; i < N; ++i) chars[i] = s[i];
    length = N;
  }
  constexpr explicit fixed_string(detail::string_view s) {
    length = s.size() < N ? s.size() : N;
    for (std::size_t i = 0; i < length; ++i) chars[i] = s[i];
  }
  constexpr detail::string_view view() const { return {chars, length}; }
  constexpr bool empty() const { return length == 0; }
};

template <std::size_t N>
fixed_string(const char (&)[N]) -> fixed_string<N - 1>;

}  // namespace streamdsl::detail
