// The program lambda captures a variable: the compiler re-creates the lambda
// from its type, so it must not capture anything.
// expect: the program lambda must not capture anything
// expect-nvcc: the program lambda must not capture anything
#include <streamdsl/streamdsl.hpp>

int main() {
  constexpr float scale = 2.0f;
  constexpr auto bad = sd::program([scale](sd::builder& p) {
    auto x = p.input<float>("x");
    auto y = p.output<float>("y");
    y = x * scale;
  });
  (void)bad;
}
