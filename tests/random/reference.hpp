#pragma once
// The sequential reference of the random-program tester: the user's
// statements (the IR as written, before any pass) evaluated one by one in
// program order, element by element, ignoring streams and syncs. For a
// race-free program (or one that sd::automatic makes race-free) every
// execution the plan allows gives this result, because happens-before orders
// every conflicting pair as program order does.
//
// Deliberately independent of the scheduler and the executors: no fusion, no
// memory plan, temps are ordinary arrays. Only the meaning of one op on one
// element comes from backend/element_ops.hpp, the definition every backend
// shares.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <streamdsl/ir/program_view.hpp>
#include <string>
#include <vector>

#include "values.hpp"

namespace streamdsl::random_test {

struct reference_inputs {
  std::vector<std::size_t> extents;  // per domain
  std::vector<scalar> params;        // per param, of the param's dtype
};

class reference_evaluator {
 public:
  reference_evaluator(const ir::program_view& program, const reference_inputs& inputs,
                      std::vector<typed_array>& buffers)
      : p_(program), in_(inputs), buffers_(buffers) {}

  // Runs every statement of the program in program order.
  void run() {
    for (const auto& s : p_.stmts)
      if (s.kind == ir::stmt_kind::assign) assign(s);
  }

 private:
  std::size_t extent_of(std::int32_t domain) const {
    return domain < 0 ? 1 : in_.extents.at(static_cast<std::size_t>(domain));
  }

  void assign(const ir::statement& s) {
    auto& target = buffers_.at(static_cast<std::size_t>(s.target));
    const std::size_t n = extent_of(p_.buffers[static_cast<std::size_t>(s.target)].domain);
    if (target.size() != n) throw std::logic_error("reference: target array has the wrong extent");
    // Element i of the target depends only on element i of what it reads (or
    // element 0 of a 0-d buffer), so writing as we go is the statement's meaning.
    for (std::size_t i = 0; i < n; ++i) target.set(i, eval(s.root, i));
  }

  // The value of node `id` at element i, of the node's result type.
  scalar eval(std::int32_t id, std::size_t i) const {
    const ir::expr_node& n = p_.nodes[static_cast<std::size_t>(id)];
    switch (ir::arity(n.code)) {
      case 0: return leaf(n, i);
      case 1: return unary(n, eval(n.a, i));
      case 2: return binary(n, eval(n.a, i), eval(n.b, i));
      default: return where(n, eval(n.a, i), eval(n.b, i), eval(n.c, i));
    }
  }

  scalar leaf(const ir::expr_node& n, std::size_t i) const {
    if (n.code == ir::op::load) {
      const auto& b = buffers_.at(static_cast<std::size_t>(n.ref));
      const bool broadcast = p_.buffers[static_cast<std::size_t>(n.ref)].domain < 0;
      return b.get(broadcast ? 0 : i).to(n.type);
    }
    if (n.code == ir::op::param) return in_.params.at(static_cast<std::size_t>(n.ref)).to(n.type);
    // A literal is a value of its node's type: integral and bool types take
    // the exact integral view, floating types the floating view.
    if (category_of(n.type) == dtype_category::floating) return scalar::of(n.fvalue).to(n.type);
    return scalar::of(n.ivalue).to(n.type);
  }

  static scalar unary(const ir::expr_node& n, const scalar& a) {
    return with_host_type(n.compute, [&](auto tag) {
      using T = typename decltype(tag)::type;
      return scalar::of(detail::element::unary<T>(n.code, a.as<T>())).to(n.type);
    });
  }

  static scalar binary(const ir::expr_node& n, const scalar& a, const scalar& b) {
    return with_host_type(n.compute, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T x = a.as<T>(), y = b.as<T>();
      if (ir::is_predicate(n.code)) return scalar::of(detail::element::predicate<T>(n.code, x, y)).to(n.type);
      return scalar::of(detail::element::arithmetic<T>(n.code, x, y)).to(n.type);
    });
  }

  static scalar where(const ir::expr_node& n, const scalar& c, const scalar& a, const scalar& b) {
    return (c.as<bool>() ? a : b).to(n.compute).to(n.type);
  }

  const ir::program_view& p_;
  const reference_inputs& in_;
  std::vector<typed_array>& buffers_;
};

// Runs the program on `buffers` (one array per buffer, temps included, each
// of its domain's extent; inputs, inouts and outputs hold the caller's data).
inline void run_reference(const ir::program_view& program, const reference_inputs& inputs,
                          std::vector<typed_array>& buffers) {
  if (buffers.size() != program.buffers.size()) throw std::logic_error("reference: one array per buffer");
  reference_evaluator(program, inputs, buffers).run();
}

}  // namespace streamdsl::random_test
