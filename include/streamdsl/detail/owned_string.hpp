#pragma once
// A finished, null-terminated string that owns its characters: what
// to_string() and to_dot() return. It converts to std::string (or any string
// type built from a pointer and a length), prints to a std::ostream, and
// gives c_str() for printf, without <string> (see string_view.hpp for why).
#include <cstddef>
#include <type_traits>

#include "dyn_array.hpp"
#include "string_view.hpp"

namespace streamdsl::detail {

class owned_string {
 public:
  owned_string() = default;
  explicit owned_string(string_view s) {
    // At least 8, as dyn_array::append does: storage sized exactly to a
    // one-character name (sd::bind("x", ...)) made g++ 12 -O2 warn
    // (-Wstringop-overflow) of vector stores past it on a path never taken.
    chars_.reserve(s.size() + 1 < 8 ? 8 : s.size() + 1);
    chars_.append(s.data(), s.size());
    chars_.push_back('\0');
  }

  const char* c_str() const { return chars_.empty() ? "" : chars_.data(); }
  const char* data() const { return c_str(); }
  std::size_t size() const { return chars_.empty() ? 0 : chars_.size() - 1; }
  bool empty() const { return size() == 0; }
  string_view view() const { return {c_str(), size()}; }

  // Implicit to owning string types (std::string s = program.to_string()),
  // explicit to views (std::string_view, std::span), which would dangle when
  // made from a temporary without anyone writing a conversion.
  template <class S>
    requires(std::is_constructible_v<S, const char*, std::size_t> && !std::is_same_v<S, string_view>)
  explicit(std::is_trivially_copyable_v<S>) operator S() const { return S(c_str(), size()); }
  // A template, so that the right side matches exactly: with a plain
  // string_view parameter, == with a std::string_view would be ambiguous.
  template <class S>
    requires std::is_convertible_v<const S&, string_view>
  friend bool operator==(const owned_string& a, const S& b) { return a.view() == string_view(b); }
  template <class Out>
    requires requires(Out& out, const char* p, long n) { out.write(p, n); }
  friend Out& operator<<(Out& out, const owned_string& s) { return out << s.view(); }

 private:
  dyn_array<char> chars_;  // the characters, then '\0'; empty for "" (also when moved from)
};

}  // namespace streamdsl::detail

namespace streamdsl {
using owned_string = detail::owned_string;  // what to_string() and to_dot() return
}  // namespace streamdsl
