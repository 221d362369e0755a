// random_plan_dump FIRST COUNT: for each seed, the random program's IR as
// built and its plan under every combination of options (sync policy,
// placement, fusion), every statement's fields included. Not a test: a
// change meant to keep behaviour ("cheaper, same plans") is checked by
// building this against the headers before and after it and comparing the
// outputs, e.g.
//   git archive OLD include | tar -x -C /tmp/old
//   g++ -std=c++20 -O2 -I/tmp/old/include -Itests/random tests/random/plan_dump.cpp
//       tests/random/program_generator.cpp tests/random/typed_generator.cpp -o /tmp/dump_old
//   cmp <(/tmp/dump_old 1 20000) <(build/host/tests/random/random_plan_dump 1 20000)
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <streamdsl/passes/schedule.hpp>
#include <streamdsl/plan/to_string.hpp>

#include "program_generator.hpp"

namespace rt = streamdsl::random_test;
namespace sd = streamdsl;

namespace {

void raw(std::ostream& o, const sd::ir::program& p) {
  for (std::size_t i = 0; i < p.stmts.size(); ++i) {
    const auto& s = p.stmts[i];
    o << i << ": k" << int(s.kind) << " st" << s.stream << " t" << s.target << " r" << s.root << " e"
      << s.event << " o" << s.other << " b" << s.binds << " g" << s.origin << " a" << s.accesses_first << "/"
      << s.reads_count << "/" << s.writes_count << '\n';
  }
  o << "acc:";
  for (const auto& r : p.accesses) o << ' ' << r.buffer << '.' << r.part << '/' << r.parts;
  o << "\npool:" << std::string(p.pool.data(), p.pool.size()) << '\n';
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: random_plan_dump FIRST COUNT\n";
    return 2;
  }
  const std::uint64_t first = std::strtoull(argv[1], nullptr, 10),
                      count = std::strtoull(argv[2], nullptr, 10);
  for (std::uint64_t seed = first; seed < first + count; ++seed) {
    std::ostringstream o;
    auto g = rt::generate_program(seed);
    o << "=== seed " << seed << ' ' << g.family << '\n';
    raw(o, g.user);
    for (int sync = 0; sync < 3; ++sync)
      for (int pl = 0; pl < 3; ++pl)
        for (int fu = 0; fu < 2; ++fu) {
          sd::options opt{static_cast<sd::sync_policy>(sync), static_cast<sd::placement_policy>(pl), fu == 0};
          if (sync == 2 && g.racy) continue;  // sd::unchecked only for race-free programs
          auto m = sd::passes::schedule(g.user, opt);
          o << "--- opt " << sync << pl << fu << '\n';
          if (m.ir.ok()) {
            o << sd::dump(sd::view_of(m)).view() << '\n';
            raw(o, m.ir);
          } else {
            for (const auto& e : m.ir.errors) o << "error: " << e.message.view() << '\n';
          }
          const auto b = sd::bounds_of(g.user, opt);
          o << "fits " << sd::fits_within(sd::sizes_of(m), b) << '\n';
        }
    std::cout << o.str();
  }
}
