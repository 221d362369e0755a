// A square matrix's row reduction that reads its result as a row: later rows would read replaced values.
// expect: row_reduction_reads_the_buffer_it_writes<
// expect: statement #0 `v = sd::sum\(a \* v, k\)` on stream 'main' stores each row's sd::sum in 'v' while its expression reads 'v' as a row
// expect: `t = sd::sum\(\.\.\., k\); v = t;`
// expect-nvcc: row_reduction_reads_the_buffer_it_writes<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto k = p.domain("k");
  auto a = p.input<float>("a", k, k);
  auto v = p.inout<float>("v", k);
  v = sd::sum(a * v, k);
});
