// expect-compiles: an integer value stored in a floating buffer needs no
// sd::cast (as in PyTorch's out=), although float holds integers exactly only
// up to 2^24 (16777217 is stored as 16777216): docs/concepts.md, "Values and
// types". Narrowing within a category still needs a cast
// (narrowing_int64_into_int32.cpp, narrowing_double_into_float.cpp), and so
// does a floating value into an integer buffer (narrowing_float_into_int32.cpp).
#include <cstdint>
#include <streamdsl/streamdsl.hpp>

constexpr auto stores = sd::program([](sd::builder& p) {
  auto i = p.input<std::int64_t>("i");
  auto k = p.input<std::int32_t>("k");
  auto f = p.output<float>("f");
  auto d = p.output<double>("d");
  f = i;
  d = k + i;
});
static_assert(stores.plan().kernel_count() == 1);
