#pragma once
// Helpers for error text. A message travels to the user inside a template
// argument of fixed capacity, so long parts (statement and expression text)
// are shortened at a word boundary, and a message that would still not fit
// is cut at a word boundary with a visible " [...]" rather than mid-word.
#include <cstddef>

#include "../detail/string_view.hpp"
#include "../detail/text.hpp"

namespace streamdsl::diag {

// Characters of an error message that reach the compiler's output.
inline constexpr std::size_t message_capacity = 480;

// The position at which to cut `s` so that at most `limit` characters are
// kept: the last space at or before `limit` when there is one in its second
// half, else `limit` itself.
constexpr std::size_t word_boundary(detail::string_view s, std::size_t limit) {
  if (s.size() <= limit) return s.size();
  for (std::size_t i = limit; i > limit / 2; --i)
    if (s[i] == ' ') return i;
  return limit;
}

// Appends `s`, or its first words followed by "..." when it is longer than
// `max` characters (code in messages stays recognisable and short).
[[gnu::cold]] constexpr void append_elided(detail::text& out, detail::string_view s, std::size_t max) {
  if (s.size() <= max) {
    out << s;
    return;
  }
  const std::size_t keep = max > 4 ? max - 4 : 0;
  const std::size_t cut = word_boundary(s, keep);
  out << s.substr(0, cut) << (cut < s.size() && s[cut] == ' ' ? " ..." : "...");
}

// The message as it will be shown: unchanged when it fits, otherwise cut at
// a word boundary and marked " [...]".
[[gnu::cold]] constexpr detail::text fit_message(const detail::text& t) {
  if (t.size() <= message_capacity) return t;
  constexpr detail::string_view mark = " [...]";
  const auto v = t.view();
  detail::text out;
  out << v.substr(0, word_boundary(v, message_capacity - mark.size())) << mark;
  return out;
}

}  // namespace streamdsl::diag
