#pragma once
// sd::bind for device containers: cuda::std::span and thrust::device_vector
// (CUDA builds only; the plain overloads in bindings.hpp take raw pointers).
#include <thrust/device_vector.h>

#include <cstddef>
#include <cuda/std/span>
#include <string_view>

#include "../bindings.hpp"

namespace streamdsl {

template <element_type T, std::size_t Extent>
binding bind(std::string_view name, cuda::std::span<T, Extent> data) {
  return bind<T>(name, data.data(), data.size());
}

template <element_type T, class Alloc>
binding bind(std::string_view name, thrust::device_vector<T, Alloc>& data) {
  return bind<T>(name, thrust::raw_pointer_cast(data.data()), data.size());
}

template <element_type T, class Alloc>
binding bind(std::string_view name, const thrust::device_vector<T, Alloc>& data) {
  return bind<const T>(name, thrust::raw_pointer_cast(data.data()), data.size());
}

// A temporary device_vector would be freed before the kernels run.
template <element_type T, class Alloc>
binding bind(std::string_view name, thrust::device_vector<T, Alloc>&& data) = delete;

}  // namespace streamdsl
