#pragma once
// sd::bind for thrust::device_vector, whose data() is a thrust::device_ptr
// (CUDA builds only). Containers whose data() is a pointer, cuda::std::span
// among them, take the plain overloads in bindings.hpp.
#include <thrust/device_vector.h>

#include <cstddef>

#include "../../detail/string_view.hpp"
#include "../bindings.hpp"

namespace streamdsl {

template <element_type T, class Alloc>
binding bind(detail::string_view name, thrust::device_vector<T, Alloc>& data) {
  return bind<T>(name, thrust::raw_pointer_cast(data.data()), data.size());
}

template <element_type T, class Alloc>
binding bind(detail::string_view name, const thrust::device_vector<T, Alloc>& data) {
  return bind<const T>(name, thrust::raw_pointer_cast(data.data()), data.size());
}

// A temporary device_vector would be freed before the kernels run.
template <element_type T, class Alloc>
binding bind(detail::string_view name, thrust::device_vector<T, Alloc>&& data) = delete;

}  // namespace streamdsl
