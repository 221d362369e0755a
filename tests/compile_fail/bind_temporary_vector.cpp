// A temporary container would be freed before the executor uses its
// elements: sd::bind refuses it (a temporary std::span is fine).
// expect: sd::bind of a temporary container
// expect: bind a named container
// expect-nvcc: sd::bind of a temporary container
#include <streamdsl/backend/bindings.hpp>
#include <streamdsl/streamdsl.hpp>
#include <vector>

int main() {
  const auto b = sd::bind("x", std::vector<float>(16, 1.0f));
  return b.is_param() ? 1 : 0;
}
