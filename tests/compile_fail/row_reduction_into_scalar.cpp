// A reduction along the last axis gives a column (one value per row): a 0-d target is refused.
// expect: row_reduction_result_needs_a_column<
// expect: statement #0 `m = sd::sum\(a, cols\)` on stream 'main' reduces each row of an expression over domain '\(rows, cols\)' to one value, a column over domain 'rows', and stores it in 'm', a 0-d buffer
// expect: p.temp<float>\("m", rows\)
// expect-nvcc: row_reduction_result_needs_a_column<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto rows = p.domain("rows");
  auto cols = p.domain("cols");
  auto a = p.input<float>("a", rows, cols);
  auto m = p.output<float>("m", sd::scalar);
  m = sd::sum(a, cols);
});
