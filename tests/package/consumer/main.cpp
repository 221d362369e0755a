// A user's program: a side stream with a temp, an event, a consumer on main.
// Its plan is checked at compile time and printed at run time.
#include <cstdio>
#include <streamdsl/streamdsl.hpp>

constexpr auto overlap = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto t = p.temp<float>("t");
  auto y = p.output<float>("y");
  auto z = p.output<float>("z");
  auto side = p.stream("side");
  auto done = p.event("done");
  sd::with_stream(side, [&] {
    t = sd::exp(x);
    y = t * 3;
    done.record();
  });
  done.wait();
  z = y + x;
});

static_assert(overlap.plan().kernel_count() == 2);
static_assert(overlap.plan().kernel_count("side") == 1);
static_assert(overlap.plan().waits("main") == 1);
static_assert(overlap.plan().storage_of("t") == sd::storage_register);

int main() {
  std::printf("%s", overlap.to_string().c_str());
  return 0;
}
