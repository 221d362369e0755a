// An all-reduce on the comm stream writes g while main reads it, with no event between them.
// expect: cross_stream_data_race<
// expect: race \(read-after-write\) on buffer 'g': statement #0 `sd::all_reduce\(g, sd::reduce_op::sum\)` on stream 'comm' writes it
// expect-nvcc: cross_stream_data_race<
// expect-nvcc: two streams access one buffer
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto g = p.inout<float>("g");
  auto y = p.output<float>("y");
  auto comm = p.stream("comm");
  sd::with_stream(comm, [&] { sd::all_reduce(g, sd::reduce_op::sum); });
  y = g * 2;
});
