#pragma once
// Run-time values of the random-program tester: one element of any host
// dtype (`scalar`) and one buffer's elements (`typed_array`), with the
// NaN-aware bitwise comparison the differential test uses.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <span>
#include <stdexcept>
#include <streamdsl/ir/dtype.hpp>
#include <string>
#include <type_traits>
#include <vector>
#ifdef STREAMDSL_HAS_HALF  // streamdsl only declares the 16-bit float types
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif
#include <streamdsl/backend/element_ops.hpp>
#include <streamdsl/ir/dtype.hpp>

namespace streamdsl::random_test {

template <class T>
struct type_tag {
  using type = T;
};

// Calls f(type_tag<T>{}) with the C++ type of a host dtype. __half,
// __nv_bfloat16 and the FP8 types have no host type without the CUDA headers;
// the generator never produces them.
template <class F>
decltype(auto) with_host_type(dtype t, F&& f) {
  switch (t) {
    case dtype::boolean: return f(type_tag<bool>{});
    case dtype::int8: return f(type_tag<std::int8_t>{});
    case dtype::int16: return f(type_tag<std::int16_t>{});
    case dtype::int32: return f(type_tag<std::int32_t>{});
    case dtype::int64: return f(type_tag<std::int64_t>{});
    case dtype::uint8: return f(type_tag<std::uint8_t>{});
    case dtype::uint16: return f(type_tag<std::uint16_t>{});
    case dtype::uint32: return f(type_tag<std::uint32_t>{});
    case dtype::uint64: return f(type_tag<std::uint64_t>{});
    case dtype::float32: return f(type_tag<float>{});
    case dtype::float64: return f(type_tag<double>{});
    case dtype::float16:
    case dtype::bfloat16:
    case dtype::float8_e4m3:
    case dtype::float8_e5m2: break;
  }
  throw std::logic_error("random-program tester: dtype " + std::string(name_of(t)) + " has no host type");
}

// One element of a known dtype.
class scalar {
 public:
  scalar() = default;
  template <class T>
  static scalar of(T v) {
    scalar s;
    s.type_ = dtype_v<T>;
    std::memcpy(s.bytes_, &v, sizeof(T));
    return s;
  }
  dtype type() const { return type_; }

  // The value converted to T with the shared per-element conversion rules.
  template <class To>
  To as() const {
    return with_host_type(type_, [&](auto tag) {
      using From = typename decltype(tag)::type;
      From v;
      std::memcpy(&v, bytes_, sizeof(From));
      return detail::element::convert<To>(v);
    });
  }
  // The same value converted to another dtype.
  scalar to(dtype t) const {
    return with_host_type(t, [&](auto tag) { return of(as<typename decltype(tag)::type>()); });
  }
  std::string to_string() const;

 private:
  dtype type_ = dtype::float32;
  alignas(8) unsigned char bytes_[8] = {};
};

// Whether two elements of one dtype are the same: bit for bit, except that
// any two NaNs match (which NaN an operation returns is not specified).
template <class T>
bool same_element(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a != a && b != b) return true;
    return std::memcmp(&a, &b, sizeof(T)) == 0;
  } else {
    return a == b;
  }
}

inline std::string scalar::to_string() const {
  return with_host_type(type_, [&](auto tag) -> std::string {
    using T = typename decltype(tag)::type;
    const T v = as<T>();
    if constexpr (std::is_same_v<T, bool>) {
      return v ? "true" : "false";
    } else if constexpr (std::is_floating_point_v<T>) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.17g", static_cast<double>(v));
      return buf;
    } else {
      return std::to_string(v);
    }
  });
}

// The elements of one buffer, stored as raw bytes so that any dtype (bool
// included, which std::vector cannot hand out as a span) binds as a span.
class typed_array {
 public:
  typed_array() = default;
  typed_array(dtype type, std::size_t n)
      : type_(type), size_(n), words_((n * size_of(type) + 7) / 8 + 1, 0) {}

  dtype type() const { return type_; }
  std::size_t size() const { return size_; }

  scalar get(std::size_t i) const {
    return with_host_type(type_, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T v;
      std::memcpy(&v, bytes() + i * sizeof(T), sizeof(T));
      return scalar::of(v);
    });
  }
  // Stores v converted to this array's dtype.
  void set(std::size_t i, const scalar& v) {
    with_host_type(type_, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T x = v.as<T>();
      std::memcpy(bytes() + i * sizeof(T), &x, sizeof(T));
    });
  }

  template <class T>
  std::span<T> span() {
    if (dtype_v<T> != type_) throw std::logic_error("typed_array: span of the wrong type");
    return {reinterpret_cast<T*>(words_.data()), size_};
  }

  bool same_element_at(const typed_array& other, std::size_t i) const {
    return with_host_type(type_, [&](auto tag) {
      using T = typename decltype(tag)::type;
      return same_element(get(i).as<T>(), other.get(i).as<T>());
    });
  }

 private:
  unsigned char* bytes() { return reinterpret_cast<unsigned char*>(words_.data()); }
  const unsigned char* bytes() const { return reinterpret_cast<const unsigned char*>(words_.data()); }

  dtype type_ = dtype::float32;
  std::size_t size_ = 0;
  std::vector<std::uint64_t> words_;  // 8-byte aligned storage, one spare word so data() is never null
};

}  // namespace streamdsl::random_test
