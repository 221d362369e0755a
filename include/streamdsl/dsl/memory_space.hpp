#pragma once
// Memory-space tags for declarations: p.input<float, sd::pinned>("h").
// The space is part of a buffer handle's type (sd::buffer<T, access, space>)
// and of the IR (ir::buffer_info::space).
#include <concepts>

#include "../ir/memory_space.hpp"

namespace streamdsl {

struct device {  // the default: GPU memory
  static constexpr ir::memory_space value = ir::memory_space::device;
};
struct pinned {  // page-locked host memory (cudaMallocHost, cudaHostRegister)
  static constexpr ir::memory_space value = ir::memory_space::pinned;
};
struct pageable {  // any host memory (std::vector, new)
  static constexpr ir::memory_space value = ir::memory_space::pageable;
};

namespace detail {
template <class S>
concept memory_space_tag = std::same_as<S, device> || std::same_as<S, pinned> || std::same_as<S, pageable>;
}  // namespace detail

}  // namespace streamdsl
