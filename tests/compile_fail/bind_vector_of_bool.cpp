// std::vector<bool> packs its bits: there is no bool array to bind, and
// sd::bind says so instead of listing candidates.
// expect: sd::bind takes a pointer and a count, a C array, a contiguous container
// expect: std::vector<bool> packs its bits and has no bool array
// expect-nvcc: std::vector<bool> packs its bits and has no bool array
#include <streamdsl/backend/bindings.hpp>
#include <streamdsl/streamdsl.hpp>
#include <vector>

int main() {
  std::vector<bool> flags(8);
  const auto b = sd::bind("flags", flags);
  return b.is_param() ? 1 : 0;
}
