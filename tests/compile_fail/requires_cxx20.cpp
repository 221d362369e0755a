// Compiled as C++17, streamdsl says once that it needs C++20, rather than
// failing hundreds of times inside its headers (concepts, constexpr
// allocation): the umbrella and the executor headers skip their contents.
// The only errors in a header are the #error (the rest are in this file,
// which uses what the skipped headers would have declared).
// std: c++17
// expect: error: #error "streamdsl needs C\+\+20: compile with -std=c\+\+20
// expect-nvcc: streamdsl needs C\+\+20: compile with -std=c\+\+20
// expect-not: \.(hpp|cuh)(:[0-9]+:[0-9]+|\([0-9]+\)): error: [^#]
#include <streamdsl/backend/host/host_executor.hpp>
#include <streamdsl/streamdsl.hpp>

constexpr auto seed = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  y = x + 1;
});
