// A domain named "n", the default domain's name (issue 11.2: it was accepted,
// and messages then read "domain 'n' ... domain 'n'" about two domains).
// expect: reserved_name<
// expect: reserved name 'n': the domain 'n' takes the name of the default domain
// expect: give the domain another name
// expect-nvcc: reserved_name<
// expect-nvcc: a declaration uses a reserved name
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto n = p.domain("n");
  auto x = p.input<float>("x", n);
  auto y = p.output<float>("y", n);
  y = x + 1;
});
