// The README's program: its ```cpp block appears verbatim between the
// SNIPPET markers (check_snippets.py enforces it), so it compiles and runs.
// SNIPPET: readme
#include <cstdio>
#include <streamdsl/backend/host/host_executor.hpp>  // sd::host_executor, the CPU backend
#include <streamdsl/streamdsl.hpp>                   // the language, the passes and the plan
#include <vector>

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
  e.wait();   // the main stream waits for e
  z = y * 2;  // consumer on the main stream
});

static_assert(seed.plan().kernel_count() == 2);  // schedules are testable at compile time

int main() {
  std::puts(seed.to_string().c_str());  // the plan as text; seed.to_dot() for Graphviz
  std::vector<float> x = {1, 2, 3}, y(3), z(3);
  sd::host_executor ex;  // on a GPU: sd::cuda_executor, <streamdsl/backend/cuda/cuda_executor.hpp>
  ex.run(seed, sd::bind("x", x), sd::bind("y", y), sd::bind("z", z));
  std::printf("z = %g %g %g\n", z[0], z[1], z[2]);  // z = 4 6 8
}
// END SNIPPET
