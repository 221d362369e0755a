// The seed program of the design: y on a side stream, z on main after a wait.
// Prints the plan the compiler made of it.
#include <cstdio>
#include <streamdsl/streamdsl.hpp>

constexpr auto seed = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto z = p.output<float>("z");
  auto side = p.stream("side");
  auto e = p.event("e");
  sd::with_stream(side, [&] {
    y = x + 1;   // runs on the side stream
    e.record();  // record on the side stream
  });
  e.wait();  // the main stream waits for e
  z = y * 2;  // consumer on the main stream
});

static_assert(seed.plan().kernel_count() == 2);

int main() {
  std::printf("== seed ==\n%s", seed.to_string().c_str());
  return 0;
}
