#pragma once
// A constexpr string builder: messages and dumps are built at compile time
// (for static tests and error text) and at run time with the same code.
#include <cstdint>

#include "dyn_array.hpp"
#include "string_view.hpp"

namespace streamdsl::detail {

constexpr bool contains(string_view text, string_view part) { return text.find(part) != string_view::npos; }

// Every append is out of line and cold. At run time text is built only for
// error messages and dumps; inlined, each `<<` copied a length loop and the
// array's growth into its caller, and g++ -O2 compiled those copies again in
// every unit (a third of the code of a unit that runs a plan). Attributes do
// not change constant evaluation.
#define STREAMDSL_TEXT_APPEND [[gnu::cold, gnu::noinline]] constexpr text&

class text {
 public:
  STREAMDSL_TEXT_APPEND operator<<(string_view s) {
    chars_.append(s.data(), s.size());
    return *this;
  }
  STREAMDSL_TEXT_APPEND operator<<(const char* s) { return *this << string_view(s); }
  STREAMDSL_TEXT_APPEND operator<<(char c) {
    chars_.push_back(c);
    return *this;
  }
  STREAMDSL_TEXT_APPEND operator<<(long long v) {
    if (v < 0) {
      chars_.push_back('-');
      // Avoid overflow on the most negative value.
      return append_unsigned(static_cast<unsigned long long>(-(v + 1)) + 1);
    }
    return append_unsigned(static_cast<unsigned long long>(v));
  }
  constexpr text& operator<<(int v) { return *this << static_cast<long long>(v); }
  constexpr text& operator<<(long v) { return *this << static_cast<long long>(v); }
  constexpr text& operator<<(unsigned v) { return append_unsigned(v); }
  constexpr text& operator<<(unsigned long v) { return append_unsigned(v); }
  constexpr text& operator<<(unsigned long long v) { return append_unsigned(v); }
  STREAMDSL_TEXT_APPEND indent(int n) {
    for (int i = 0; i < n; ++i) chars_.push_back(' ');
    return *this;
  }

  constexpr string_view view() const { return {chars_.data(), chars_.size()}; }
  constexpr std::size_t size() const { return chars_.size(); }
  constexpr bool contains(string_view part) const { return detail::contains(view(), part); }
  template <class Out>
    requires requires(Out& out, const char* p, long n) { out.write(p, n); }
  friend Out& operator<<(Out& out, const text& t) { return out << t.view(); }

 private:
  STREAMDSL_TEXT_APPEND append_unsigned(unsigned long long v) {
    char buf[24]{};
    int n = 0;
    do {
      buf[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    while (n > 0) chars_.push_back(buf[--n]);
    return *this;
  }
  dyn_array<char> chars_;
};
#undef STREAMDSL_TEXT_APPEND

// Shortest-looking decimal for a literal: integers print without a point,
// other values with up to 9 significant digits (enough to round-trip float).
[[gnu::cold]] constexpr void append_number(text& out, double v) {
  if (v != v) {
    out << "nan";
    return;
  }
  if (v < 0) {
    out << '-';
    v = -v;
  }
  if (v > 1e300) {
    out << "inf";
    return;
  }
  if (v < 1e15 && static_cast<double>(static_cast<long long>(v)) == v) {
    out << static_cast<long long>(v);
    return;
  }
  int exp10 = 0;
  while (v >= 1e9) {
    v /= 10;
    ++exp10;
  }
  while (v < 1e8) {
    v *= 10;
    --exp10;
  }
  auto digits = static_cast<unsigned long long>(v + 0.5);
  if (digits >= 1000000000ULL) {
    digits /= 10;
    ++exp10;
  }
  char buf[9]{};
  for (int i = 8; i >= 0; --i) {
    buf[i] = static_cast<char>('0' + digits % 10);
    digits /= 10;
  }
  int last = 8;
  while (last > 0 && buf[last] == '0') --last;
  // value = 0.d1d2...d9 * 10^(exp10 + 9)
  const int point = exp10 + 9;  // digits before the decimal point
  if (point > 0 && point <= 15) {
    for (int i = 0; i < point; ++i) out << (i <= 8 ? buf[i] : '0');
    if (last >= point) {
      out << '.';
      for (int i = point; i <= last; ++i) out << buf[i];
    }
  } else if (point <= 0 && point > -6) {
    out << "0.";
    for (int i = 0; i < -point; ++i) out << '0';
    for (int i = 0; i <= last; ++i) out << buf[i];
  } else {
    out << buf[0];
    if (last > 0) {
      out << '.';
      for (int i = 1; i <= last; ++i) out << buf[i];
    }
    out << 'e' << (point - 1);
  }
}

}  // namespace streamdsl::detail
