// An elementwise statement writes a buffer declared in pageable host memory,
// on a side stream: the result must be written to a device buffer and copied.
// expect: host_memory_in_elementwise_statement<
// expect: statement #0 `h_out = sqrt\(x\)` on stream 'side' writes the output buffer 'h_out', which is in pageable host memory
// expect: write a device buffer \(e.g. p.temp<double>\) and copy it with `sd::copy\(h_out, d\)`
// expect-nvcc: host_memory_in_elementwise_statement<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<double>("x");
  auto h_out = p.output<double, sd::pageable>("h_out");
  auto side = p.stream("side");
  sd::with_stream(side, [&] { h_out = sd::sqrt(x); });
});
