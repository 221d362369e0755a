// A CUDA translation unit that uses streamdsl: it compiles only as C++20.
#include <cstdio>
#include <streamdsl/streamdsl.hpp>

constexpr auto scale = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  y = x * 2;
});
static_assert(scale.plan().kernel_count() == 1);

int main() {
  std::printf("%s", scale.to_string().c_str());
  return 0;
}
