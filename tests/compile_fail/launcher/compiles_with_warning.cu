// Compiles, with one warning: through streamdsl-nvcc-errors, nvcc's output and
// exit status must stay exactly as they are.
#include <streamdsl/streamdsl.hpp>

constexpr auto seed = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  y = x + 1;
});

int unused_here() {
  int never_read = 0;  // the warning: declared but never referenced
  return seed.plan().kernel_count();
}
