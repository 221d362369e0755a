#pragma once
// The subset of std::string_view that streamdsl uses, without <string_view>:
// under nvcc each standard string header is parsed by cudafe++, cicc and the
// host compiler, and <string_view>, <string> and <stdexcept> together cost
// every translation unit that includes streamdsl about a second
// (docs/benchmarks.md, "Compile time"). Names the API takes are this type;
// it is built implicitly from a string literal, a std::string or a
// std::string_view (anything with data() and size() of chars), and prints to
// any std::ostream.
#include <concepts>
#include <cstddef>
#include <type_traits>

namespace streamdsl::detail {

// data() and size() of chars: std::string, std::string_view, std::span<const char>, ...
template <class S>
concept char_range = requires(const S& s, const char*& p, std::size_t& n) {
  p = s.data();
  n = s.size();
};

constexpr std::size_t length_of(const char* s) {
  std::size_t n = 0;
  while (s[n] != '\0') ++n;
  return n;
}

// Accessors always_inline: see dyn_array.hpp.
class string_view {
 public:
  constexpr string_view() = default;
  constexpr string_view(const char* s)
      : data_(s), size_(length_of(s)) {}  // NOLINT: implicit like std::string_view
  [[gnu::always_inline]] constexpr string_view(const char* s, std::size_t n) : data_(s), size_(n) {}
  template <char_range S>
    requires(!std::is_same_v<std::remove_cvref_t<S>, string_view>)
  constexpr string_view(const S& s)
      : data_(s.data()), size_(s.size()) {}  // NOLINT: implicit, as from std::string

  // To std::string, std::string_view, ...: std::string(name), explicitly
  // (an implicit conversion would make == with a std::string_view ambiguous).
  template <class S>
    requires(std::is_constructible_v<S, const char*, std::size_t> && !std::is_same_v<S, string_view>)
  constexpr explicit operator S() const { return S(data_, size_); }

  [[gnu::always_inline]] constexpr const char* data() const { return data_; }
  [[gnu::always_inline]] constexpr std::size_t size() const { return size_; }
  [[gnu::always_inline]] constexpr bool empty() const { return size_ == 0; }
  [[gnu::always_inline]] constexpr char operator[](std::size_t i) const { return data_[i]; }
  [[gnu::always_inline]] constexpr const char* begin() const { return data_; }
  [[gnu::always_inline]] constexpr const char* end() const { return data_ + size_; }
  // Clamped like std::string_view::substr, without its exception.
  constexpr string_view substr(std::size_t pos, std::size_t n = static_cast<std::size_t>(-1)) const {
    if (pos > size_) pos = size_;
    if (n > size_ - pos) n = size_ - pos;
    return {data_ + pos, n};
  }
  constexpr bool starts_with(string_view p) const { return p.size_ <= size_ && substr(0, p.size_) == p; }
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  // First position of `part`, npos when absent.
  constexpr std::size_t find(string_view part) const {
    if (part.size_ > size_) return npos;
    for (std::size_t i = 0; i + part.size_ <= size_; ++i)
      if (substr(i, part.size_) == part) return i;
    return npos;
  }

  friend constexpr bool operator==(string_view a, string_view b) {
    if (a.size_ != b.size_) return false;
    for (std::size_t i = 0; i < a.size_; ++i)
      if (a.data_[i] != b.data_[i]) return false;
    return true;
  }
  // Prints to a std::ostream (a template: no <ostream> here), padded to its
  // width() like std::string_view.
  template <class Out>
    requires requires(Out& out, const char* p, long n) {
      out.write(p, n);
      out.put(out.fill());
      out.width(0);
      out.flags() & Out::adjustfield;
    }
  friend Out& operator<<(Out& out, string_view s) {
    const auto size = static_cast<long>(s.size_);
    const auto width = static_cast<long>(out.width());
    const bool left = (out.flags() & Out::adjustfield) == Out::left;
    for (long i = size; !left && i < width; ++i) out.put(out.fill());
    out.write(s.data_, size);
    for (long i = size; left && i < width; ++i) out.put(out.fill());
    out.width(0);
    return out;
  }

 private:
  const char* data_ = "";
  std::size_t size_ = 0;
};

}  // namespace streamdsl::detail

namespace streamdsl {
// What the API takes names and gives text as (sd::string_view): from a
// literal, a std::string or a std::string_view; std::string(v) for a copy.
using string_view = detail::string_view;
}  // namespace streamdsl
