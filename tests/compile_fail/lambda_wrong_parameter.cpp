// The program lambda must take the builder (sd::builder&); this one takes an int.
// expect: the program lambda must take one sd::builder& parameter
// expect-nvcc: the program lambda must take one sd::builder& parameter
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](int) {});
