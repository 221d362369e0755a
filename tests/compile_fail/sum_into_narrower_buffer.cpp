// The int64_t sum of int32_t values stored in an int32_t buffer.
// expect: narrowing_assignment_needs_cast<
// expect: statement #0 `s = sd::sum\(k\)` on stream 'main' stores sd::sum's int64_t result in the int32_t buffer 's', which can lose information; declare 's' as int64_t
// expect-nvcc: narrowing_assignment_needs_cast<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto k = p.input<std::int32_t>("k");
  auto s = p.output<std::int32_t>("s", sd::scalar);
  s = sd::sum(k);
});
