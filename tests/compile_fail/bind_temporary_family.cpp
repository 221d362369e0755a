// A temporary container of containers bound as a family: the members'
// memory would be freed before the executor uses it. A temporary container
// of spans or of (pointer, extent) pairs is fine (the pointers are copied).
// expect: sd::bind of a temporary container of containers
// expect: bind a named container, or a container of spans of them
// expect-nvcc: sd::bind of a temporary container of containers
#include <streamdsl/backend/bindings.hpp>
#include <streamdsl/streamdsl.hpp>
#include <vector>

int main() {
  const auto b = sd::bind("x", std::vector<std::vector<float>>(4, std::vector<float>(16)));
  return b.is_family() ? 0 : 1;
}
