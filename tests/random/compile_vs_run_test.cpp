// A plan built at compile time (sd::program, evaluated by the compiler) must
// be the plan the same passes build at run time (passes::schedule of
// sd::build_ir): the library takes different paths in the two (dyn_array
// grows 4x during constant evaluation, 2x at run time, through
// std::is_constant_evaluated()), and nothing may depend on them. Every array
// of the plan is compared field by field, not only its dump: the compile-time
// random programs (constexpr_generator.hpp) and the plan tests' programs.
#include <catch2/catch.hpp>
#include <cstdint>
#include <sstream>
#include <streamdsl/ir/render.hpp>
#include <string>
#include <utility>

#include "../plan/programs.hpp"
#include "constexpr_generator.hpp"

#ifndef STREAMDSL_CONSTEXPR_PLAN_SEEDS
#define STREAMDSL_CONSTEXPR_PLAN_SEEDS 24
#endif

namespace rt = streamdsl::random_test;

namespace {

// Every field of every array of a plan, as text.
std::string everything(const sd::plan_view& p) {
  std::ostringstream o;
  const auto& v = p.ir;
  o << "error " << std::string(p.error.data(), p.error.size()) << "\npool "
    << std::string(v.pool.data(), v.pool.size()) << "\nbuffers";
  for (const auto& b : v.buffers)
    o << ' ' << b.name.offset << ',' << b.name.length << ',' << int(b.kind) << ',' << int(b.type) << ','
      << int(b.space) << ',' << b.domain << ',' << b.family_index << ',' << b.family_size;
  o << "\nparams";
  for (const auto& q : v.params) o << ' ' << q.name.offset << ',' << q.name.length << ',' << int(q.type);
  o << "\nstreams";
  for (const auto& s : v.streams) o << ' ' << s.name.offset << ',' << s.name.length;
  o << "\nevents";
  for (const auto& e : v.events) o << ' ' << e.name.offset << ',' << e.name.length << ',' << int(e.role);
  o << "\ndomains";
  for (const auto& d : v.domains) o << ' ' << d.name.offset << ',' << d.name.length;
  // Expression nodes by what they render to: the order of a node's operands
  // in the array is the order the compiler evaluated them in, which g++
  // chooses differently in constant evaluation and at run time (function
  // arguments), so node and root indices are not compared.
  o << "\nnodes " << v.nodes.size() << "\nstmts";
  for (const auto& s : v.stmts) {
    sd::detail::text t;
    if (s.kind <= sd::ir::stmt_kind::step) sd::ir::render_statement(v, s, t);
    o << "\n  " << int(s.kind) << ',' << int(s.code) << ',' << s.stream << ',' << s.target << ',' << s.event
      << ',' << s.other << ',' << s.binds << ',' << s.origin << ',' << s.accesses_first << ','
      << s.reads_count << ',' << s.writes_count << " `" << std::string(t.view().data(), t.view().size())
      << '`';
  }
  o << "\naccesses";
  for (const auto& r : v.accesses) o << ' ' << r.buffer << ',' << r.part << ',' << r.parts;
  o << "\nops";
  for (const auto& x : p.ops)
    o << ' ' << int(x.kind) << ',' << int(x.role) << ',' << x.stream << ',' << x.kernel << ',' << x.event
      << ',' << x.waits_for << ',' << x.stmt;
  o << "\nkernels";
  for (const auto& k : p.kernels)
    o << ' ' << k.stream << ',' << k.domain << ',' << k.parts << ',' << k.first << ',' << k.count;
  o << "\nkernel_stmts";
  for (auto s : p.kernel_stmts) o << ' ' << s;
  o << "\nstorage";
  for (auto s : p.storage) o << ' ' << s;
  o << "\nslots";
  for (const auto& s : p.slots) o << ' ' << int(s.type) << ',' << s.domain;
  o << "\nnotes";
  for (const auto& n : p.notes) o << ' ' << n.offset << ',' << n.length;
  o << '\n';
  return o.str();
}

// Empty when the compile-time and the run-time plan of `F` under `O` agree.
template <class F, sd::options O>
std::string compare(const char* name) {
  constexpr auto compiled = sd::program<O>(F{});
  const auto at_run_time = sd::passes::schedule(sd::build_ir(F{}), O);
  const auto a = everything(compiled.plan());
  const auto b = everything(sd::view_of(at_run_time));
  if (a == b) return {};
  return std::string(name) + ": the compile-time plan differs from the run-time plan\ncompile time:\n" + a +
         "run time:\n" + b;
}

template <unsigned... I>
std::string compare_seeds(std::integer_sequence<unsigned, I...>) {
  std::string report;
  ((report += compare<rt::compiled::random_program<I>, rt::compiled::random_program<I>::policy>(
        ("seed " + std::to_string(I)).c_str())),
   ...);
  return report;
}

struct seed_program {
  constexpr void operator()(sd::builder& p) const { plan_tests::seed_body(p); }
};
struct rerecorded_program {
  constexpr void operator()(sd::builder& p) const { plan_tests::rerecorded_body(p); }
};
struct scaled_program {
  constexpr void operator()(sd::builder& p) const { plan_tests::scaled_body(p); }
};
struct join_program {
  constexpr void operator()(sd::builder& p) const { plan_tests::join_body(p); }
};

}  // namespace

TEST_CASE("a plan built at compile time is the plan built at run time", "[random][compiled][constexpr]") {
  std::string report;
  report += compare<seed_program, sd::checked>("seed_body");
  report += compare<seed_program, sd::automatic | sd::relaxed>("seed_body relaxed");
  report += compare<rerecorded_program, sd::automatic>("rerecorded_body");
  report += compare<scaled_program, sd::checked>("scaled_body");
  report += compare<scaled_program, sd::automatic | sd::no_fusion>("scaled_body no_fusion");
  report += compare<join_program, sd::automatic>("join_body");
  report += compare<join_program, sd::automatic | sd::as_written>("join_body as_written");
  report += compare_seeds(std::make_integer_sequence<unsigned, STREAMDSL_CONSTEXPR_PLAN_SEEDS>{});
  INFO(report);
  CHECK(report.empty());
}
