// A broadcast from rank -1: ranks are numbered from 0.
// expect: broadcast_root_is_negative<
// expect: `sd::broadcast\(w, -1\)` on stream 'main' broadcasts from root rank -1
// expect-nvcc: broadcast_root_is_negative<
// expect-nvcc: sd::broadcast\(x, root\) with a negative root rank
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto w = p.inout<float>("w");
  sd::broadcast(w, -1);
});
