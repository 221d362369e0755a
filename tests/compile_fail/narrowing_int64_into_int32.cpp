// An int64_t expression stored in an int32_t buffer without sd::cast.
// expect: narrowing_assignment_needs_cast<
// expect: statement #0 `c = a \+ b` on stream 'main' stores an int64_t value in the int32_t buffer 'c'
// expect: write `c = sd::cast<int32_t>\(a \+ b\)`
// expect-nvcc: narrowing_assignment_needs_cast<
#include <cstdint>
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto a = p.input<std::int64_t>("a");
  auto b = p.input<std::int32_t>("b");
  auto c = p.output<std::int32_t>("c");
  c = a + b;
});
