// An int8_t value stored in a uint8_t buffer: uint8_t cannot hold it (negative values).
// expect: narrowing_assignment_needs_cast<
// expect: stores an int8_t value in the uint8_t buffer 'y'
// expect: `y = sd::cast<uint8_t>\(x\)`
// expect-nvcc: narrowing_assignment_needs_cast<
#include <cstdint>
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<std::int8_t>("x");
  auto y = p.output<std::uint8_t>("y");
  y = x;
});
