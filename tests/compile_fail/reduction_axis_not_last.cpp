// A reduction along a rank-2 expression's first axis: only the last one (each row) is supported.
// expect: reduction_axis_must_be_the_last_axis<
// expect: statement #0 `m = sd::max\(a, rows\)` on stream 'main' runs sd::max along domain 'rows', but its expression is over domain '\(rows, cols\)', whose last axis is 'cols'
// expect: write `sd::max\(\.\.\., cols\)`
// expect-nvcc: reduction_axis_must_be_the_last_axis<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto rows = p.domain("rows");
  auto cols = p.domain("cols");
  auto a = p.input<float>("a", rows, cols);
  auto m = p.output<float>("m", cols);
  m = sd::max(a, rows);
});
