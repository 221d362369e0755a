#pragma once
// Small helpers shared by the host executor tests.
#include <cstddef>
#include <memory>
#include <span>
#include <streamdsl/streamdsl.hpp>
#include <vector>

namespace host_test {

// std::vector<bool> has no bool array to bind; this does.
class bool_buffer {
 public:
  explicit bool_buffer(std::size_t n, bool value = false) : data_(new bool[n]), n_(n) {
    for (std::size_t i = 0; i < n; ++i) data_[i] = value;
  }
  bool& operator[](std::size_t i) { return data_[i]; }
  bool operator[](std::size_t i) const { return data_[i]; }
  std::span<bool> span() { return {data_.get(), n_}; }
  std::size_t size() const { return n_; }

 private:
  std::unique_ptr<bool[]> data_;
  std::size_t n_;
};

// first, first + step, first + 2 step, ...
template <class T>
std::vector<T> ramp(std::size_t n, T first, T step) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<T>(first + static_cast<T>(i) * step);
  return v;
}

}  // namespace host_test
