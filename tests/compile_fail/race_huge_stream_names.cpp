// Stream names so long that even the shortest form of the race message does
// not fit: the message is cut at a word boundary (here the last space before
// the second 200-character name) and ends in " [...]".
// expect: cross_stream_data_race<
// expect: race \(read-after-write\) on buffer 'y': statement #0 `y = x \+ 1` on stream '(producer)+' writes it
// expect: writes it and statement #1 `z = y \* 2` on stream \[\.\.\.\]("|\}), [0-9]+
// expect-nvcc: cross_stream_data_race<
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto z = p.output<float>("z");
  auto producer = p.stream(  // "producer" 25 times
      "producer"
      "producer"
      "producer"
      "producer"
      "producer"
      "producer"
      "producer"
      "producer"
      "producer"
      "producer"
      "producer"
      "producer"
      "producer"
      "producer"
      "producer"
      "producer"
      "producer"
      "producer"
      "producer"
      "producer"
      "producer"
      "producer"
      "producer"
      "producer"
      "producer");
  auto consumer = p.stream(  // "consumer" 25 times
      "consumer"
      "consumer"
      "consumer"
      "consumer"
      "consumer"
      "consumer"
      "consumer"
      "consumer"
      "consumer"
      "consumer"
      "consumer"
      "consumer"
      "consumer"
      "consumer"
      "consumer"
      "consumer"
      "consumer"
      "consumer"
      "consumer"
      "consumer"
      "consumer"
      "consumer"
      "consumer"
      "consumer"
      "consumer");
  sd::with_stream(producer, [&] { y = x + 1; });
  sd::with_stream(consumer, [&] { z = y * 2; });
});
