// std::array owns its elements (though trivially copyable): a temporary one
// would be gone before the executor uses it, so sd::bind refuses it. Only a
// temporary span (a view with an extent) may be bound.
// expect: sd::bind of a temporary container
// expect-nvcc: sd::bind of a temporary container
#include <array>
#include <streamdsl/backend/bindings.hpp>
#include <streamdsl/streamdsl.hpp>

int main() {
  const auto b = sd::bind("x", std::array<float, 4>{1, 2, 3, 4});
  return b.is_param() ? 1 : 0;
}
