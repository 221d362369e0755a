#pragma once
// Where a buffer's memory lives. Elementwise statements run on the device,
// so they touch device buffers only; host buffers (pinned or pageable) are
// reached by copies. The executors check bindings against the space.
#include <cstdint>

#include "../detail/string_view.hpp"

namespace streamdsl::ir {

enum class memory_space : std::uint8_t {
  device,    // GPU memory (cudaMalloc, managed memory); the default
  pinned,    // page-locked host memory (cudaMallocHost, cudaHostRegister): asynchronous copies
  pageable,  // any host memory (std::vector, new): copies through a staging buffer
};

constexpr bool is_host(memory_space s) { return s != memory_space::device; }

constexpr detail::string_view name_of(memory_space s) {
  switch (s) {
    case memory_space::device: return "device";
    case memory_space::pinned: return "pinned";
    case memory_space::pageable: return "pageable";
  }
  return "?";
}

// What the plan dump writes before a buffer's declaration: nothing for the
// default, so that dumps of device-only programs read as before.
constexpr detail::string_view space_prefix(memory_space s) {
  return s == memory_space::device ? "" : s == memory_space::pinned ? "pinned " : "pageable ";
}

// "pinned host memory": how messages name a space.
constexpr detail::string_view memory_name(memory_space s) {
  switch (s) {
    case memory_space::device: return "device memory";
    case memory_space::pinned: return "pinned host memory";
    case memory_space::pageable: return "pageable host memory";
  }
  return "?";
}

}  // namespace streamdsl::ir
