#pragma once
// The sequential reference of the random-program tester: the user's
// statements (the IR as written, before any pass) evaluated one by one in
// program order, element by element over the region each writes (the whole
// buffer or x.chunk(i, k)), copies element by element, ignoring streams and
// syncs. For a
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
#include <streamdsl/backend/reduce_ops.hpp>
#include <streamdsl/ir/program_view.hpp>
#include <streamdsl/ir/shape.hpp>
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
    for (const auto& s : p_.stmts) run(s);
  }
  // One statement (a collective is run_reference_ranks's: it needs every rank).
  void run(const ir::statement& s) {
    if (s.kind == ir::stmt_kind::assign) assign(s);
    if (s.kind == ir::stmt_kind::step) step(s);
  }

  // The elements a region covers, [first, first + count): the buffer's
  // extent cut into `parts` equal parts (the tester picks extents that are
  // multiples of every chunk count it uses; anything else is its own bug).
  struct span {
    std::size_t first, count;
  };
  span elements(std::int32_t buffer, std::int32_t part, std::int32_t parts) const {
    const auto n = extent_of(p_.buffers[static_cast<std::size_t>(buffer)].domain);
    const auto k = static_cast<std::size_t>(parts);
    if (parts < 1 || part < 0 || part >= parts || n % k != 0)
      throw std::logic_error("reference: chunk (" + std::to_string(part) + ", " + std::to_string(parts) +
                             ") of an extent of " + std::to_string(n));
    return {static_cast<std::size_t>(part) * (n / k), n / k};
  }

 private:
  std::size_t extent_of(std::int32_t domain) const {
    return domain < 0 ? 1 : in_.extents.at(static_cast<std::size_t>(domain));
  }

  // The region a statement writes: in the program's access list, after its reads.
  ir::region written_region(const ir::statement& s) const {
    return p_.accesses[static_cast<std::size_t>(s.accesses_first + s.reads_count)];
  }

  void assign(const ir::statement& s) {
    const auto r = written_region(s);
    if (r.buffer != s.target) throw std::logic_error("reference: the written region is not the target's");
    auto& target = buffers_.at(static_cast<std::size_t>(s.target));
    if (target.size() != extent_of(p_.buffers[static_cast<std::size_t>(s.target)].domain))
      throw std::logic_error("reference: target array has the wrong extent");
    const auto out = elements(r.buffer, r.part, r.parts);
    // Element i of the region written depends only on element i of each
    // region it reads (or element 0 of a 0-d buffer, or the element of a
    // row or column of a rank-2 target that i is in); two chunks of one
    // buffer with one chunk count are equal or disjoint, so writing as we go
    // is the statement's meaning.
    over_ = p_.buffers[static_cast<std::size_t>(s.target)].domain;
    for (std::size_t i = 0; i < out.count; ++i) target.set(out.first + i, eval(s.root, i));
  }

  // A reduction or scan: every value of its expression (over the
  // expression's shape for a reduction, the target's for a scan), converted
  // to the accumulation type, then folded in element order with the meaning
  // of backend/reduce_ops.hpp; the values are all read before anything is
  // written (a scan may read its own target). Along an axis each row is
  // folded on its own, a reduction's result stored at the row's index.
  void reduce_or_scan(const ir::statement& s) {
    const auto& root = p_.nodes[static_cast<std::size_t>(s.root)];
    const dtype acc = ir::accumulation_type(root.type);
    const dtype result = ir::step_result_type(s.code, root.type);
    const auto r = written_region(s);
    const bool scan = ir::info(s.code).form == ir::step_form::scan;
    const auto out = elements(r.buffer, r.part, r.parts);
    over_ = scan ? p_.buffers[static_cast<std::size_t>(r.buffer)].domain : root.domain;
    const std::size_t count = scan ? out.count
                              : root.domain < 0
                                  ? 1
                                  : extent_of(root.domain) / static_cast<std::size_t>(root.parts);
    std::vector<scalar> v(count);
    for (std::size_t i = 0; i < count; ++i) v[i] = eval(s.root, i).to(acc);
    const std::size_t length = s.axis >= 0 ? extent_of(s.axis) : count;  // of a row
    const std::size_t rows = s.axis >= 0 ? extent_of(p_.domains[static_cast<std::size_t>(over_)].outer) : 1;
    with_host_type(acc, [&](auto tag) {
      using A = typename decltype(tag)::type;
      for (std::size_t row = 0; row < rows; ++row)
        fold_row<A>(s, v, row * length, length, out.first, result, row);
      return 0;
    });
  }

  template <class A>
  void fold_row(const ir::statement& s, const std::vector<scalar>& values, std::size_t first,
                std::size_t count, std::size_t out_first, dtype result, std::size_t row) {
    using ir::step_code;
    namespace fold = detail::reduce;
    const auto r = written_region(s);
    auto& target = buffers_.at(static_cast<std::size_t>(r.buffer));
    const bool scan = ir::info(s.code).form == ir::step_form::scan;
    const std::vector<scalar> v(values.begin() + static_cast<std::ptrdiff_t>(first),
                                values.begin() + static_cast<std::ptrdiff_t>(first + count));
    {
      out_first += scan ? first : row;
      A sum = A(0), part = A(0);
      std::int64_t best = 0;
      for (std::size_t i = 0; i < count; ++i) {
        const A x = v[i].as<A>();
        if (scan) {
          const A before = sum;
          sum = i == 0 ? x : fold::combine(s.code, sum, x);
          target.set(out_first + i, scalar::of(s.code == step_code::exclusive_sum ? before : sum).to(result));
        } else if (s.code == step_code::argmax) {
          if (i == 0 || fold::replaces(x, sum)) {
            sum = x;
            best = static_cast<std::int64_t>(i);
          }
        } else if (s.code == step_code::min || s.code == step_code::max) {
          sum = i == 0 ? x : fold::combine(s.code, sum, x);
        } else {  // summation blocks from zero, each added to the total (reduce_ops.hpp)
          if (i % fold::summation_block == 0) part = A(0);
          part = fold::combine(s.code, part, fold::input(s.code, x));
          if (i % fold::summation_block == fold::summation_block - 1 || i + 1 == count)
            sum = fold::combine(s.code, sum, part);
        }
      }
      if (scan) return;
      if (count == 0 && (s.code == step_code::min || s.code == step_code::max || s.code == step_code::argmax))
        throw std::logic_error("reference: min, max or argmax of nothing (the bindings should refuse it)");
      const scalar value = s.code == step_code::argmax
                               ? scalar::of(best)
                               : scalar::of(fold::finish(s.code, sum, static_cast<long long>(count)));
      target.set(out_first, value.to(result));
    }
  }

  // c = op(a) op(b): each element's products added in k order in the
  // accumulation type, each product rounded first (backend/host/matmul.hpp).
  void matmul(const ir::statement& s) {
    const auto a = p_.accesses[static_cast<std::size_t>(s.accesses_first)].buffer;
    const auto b = p_.accesses[static_cast<std::size_t>(s.accesses_first + s.reads_count - 1)].buffer;
    const bool ta = (s.matmul_mode & ir::transpose_a) != 0, tb = (s.matmul_mode & ir::transpose_b) != 0;
    const auto& da = p_.domains[static_cast<std::size_t>(p_.buffers[static_cast<std::size_t>(a)].domain)];
    const auto& db = p_.domains[static_cast<std::size_t>(p_.buffers[static_cast<std::size_t>(b)].domain)];
    const std::size_t m = extent_of(ta ? da.inner : da.outer), k = extent_of(ta ? da.outer : da.inner);
    const std::size_t n = extent_of(tb ? db.outer : db.inner);
    const auto& x = buffers_.at(static_cast<std::size_t>(a));
    const auto& y = buffers_.at(static_cast<std::size_t>(b));
    auto& c = buffers_.at(static_cast<std::size_t>(s.target));
    std::vector<scalar> out(m * n);  // written after every read (the builder refuses c among a and b anyway)
    with_host_type(ir::matmul_accumulation_type(x.type()), [&](auto tag) {
      using A = typename decltype(tag)::type;
      for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
          A acc = A(0);
          for (std::size_t q = 0; q < k; ++q) {
            const A u = x.get(ta ? q * m + i : i * k + q).template as<A>();
            const A v = y.get(tb ? j * k + q : q * n + j).template as<A>();
            acc =
                detail::element::arithmetic(ir::op::add, acc, detail::element::arithmetic(ir::op::mul, u, v));
          }
          out[i * n + j] = scalar::of(acc).to(c.type());  // rounded once (ir::matmul_stores)
        }
      return 0;
    });
    for (std::size_t i = 0; i < out.size(); ++i) c.set(i, out[i]);
  }

  // The random tester's calls (program_generator.cpp, call; bound by
  // host_run.hpp): written region j gets read region j's elements reversed,
  // all of them read before any is written.
  void call(const ir::statement& s) {
    const auto first = static_cast<std::size_t>(s.accesses_first);
    std::vector<std::vector<scalar>> sources;
    for (std::int32_t j = 0; j < s.writes_count; ++j) {
      const auto src = p_.accesses[first + static_cast<std::size_t>(j)];
      const auto from = elements(src.buffer, src.part, src.parts);
      const auto& a = buffers_.at(static_cast<std::size_t>(src.buffer));
      std::vector<scalar> values;
      for (std::size_t i = 0; i < from.count; ++i) values.push_back(a.get(from.first + from.count - 1 - i));
      sources.push_back(std::move(values));
    }
    for (std::int32_t j = 0; j < s.writes_count; ++j) {
      const auto dst = p_.accesses[first + static_cast<std::size_t>(s.reads_count + j)];
      const auto to = elements(dst.buffer, dst.part, dst.parts);
      auto& b = buffers_.at(static_cast<std::size_t>(dst.buffer));
      if (to.count != sources[static_cast<std::size_t>(j)].size())
        throw std::logic_error("reference: a call between regions of different sizes");
      for (std::size_t i = 0; i < to.count; ++i) b.set(to.first + i, sources[static_cast<std::size_t>(j)][i]);
    }
  }

  // Steps: a copy moves the source region's elements to the destination's, in order.
  void step(const ir::statement& s) {
    if (ir::reads_expression(s.code)) return reduce_or_scan(s);
    if (s.code == ir::step_code::matmul) return matmul(s);
    if (ir::info(s.code).form == ir::step_form::call) return call(s);  // p.call, p.host_call
    if (ir::is_collective(s.code))
      throw std::logic_error("reference: a collective outside run_reference_ranks");
    if (s.code != ir::step_code::copy || s.reads_count != 1 || s.writes_count != 1)
      throw std::logic_error("reference: a step it does not know");
    const auto src = p_.accesses[static_cast<std::size_t>(s.accesses_first)];
    const auto dst = written_region(s);
    const auto from = elements(src.buffer, src.part, src.parts);
    const auto to = elements(dst.buffer, dst.part, dst.parts);
    if (from.count != to.count)
      throw std::logic_error("reference: a copy between regions of different sizes");
    const auto& a = buffers_.at(static_cast<std::size_t>(src.buffer));
    auto& b = buffers_.at(static_cast<std::size_t>(dst.buffer));
    if (a.type() != b.type()) throw std::logic_error("reference: a copy between element types");
    for (std::size_t i = 0; i < to.count; ++i) b.set(to.first + i, a.get(from.first + i));
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
      const auto domain = p_.buffers[static_cast<std::size_t>(n.ref)].domain;
      switch (ir::broadcast_of(p_.domains, domain, over_)) {
        case ir::load_index::scalar: return b.get(0).to(n.type);
        case ir::load_index::row_vector:
          return b.get(i % extent_of(p_.domains[static_cast<std::size_t>(over_)].inner)).to(n.type);
        case ir::load_index::column_vector:
          return b.get(i / extent_of(p_.domains[static_cast<std::size_t>(over_)].inner)).to(n.type);
        case ir::load_index::same: return b.get(elements(n.ref, n.part, n.parts).first + i).to(n.type);
        case ir::load_index::none: break;
      }
      throw std::logic_error("reference: a load that does not broadcast to its statement's domain");
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
  std::int32_t over_ = -1;  // the domain the current statement iterates
};

// Runs the program on `buffers` (one array per buffer, temps included, each
// of its domain's extent; inputs, inouts and outputs hold the caller's data).
inline void run_reference(const ir::program_view& program, const reference_inputs& inputs,
                          std::vector<typed_array>& buffers) {
  if (buffers.size() != program.buffers.size()) throw std::logic_error("reference: one array per buffer");
  reference_evaluator(program, inputs, buffers).run();
}

// One collective of every rank (ranks[r]: rank r's arrays) with the
// meaning of ops/collective.hpp as the loopback computes it: all_reduce and
// reduce_scatter combine element by element in rank order in the element
// type (sum and prod with the elementwise + and *, so integers wrap; min and
// max by `<`; avg as each value times 1/ranks, then summed), reduce_scatter
// giving rank r part r of the result; all_gather puts rank k's source at
// part k of every target; broadcast takes the root's. Every source is read
// before any target is written.
inline void reference_collective(const ir::program_view& p, const reference_inputs& inputs,
                                 std::vector<std::vector<typed_array>>& ranks, const ir::statement& s) {
  const auto source = p.accesses[static_cast<std::size_t>(s.accesses_first)];
  const auto target = p.accesses[static_cast<std::size_t>(s.accesses_first + 1)];
  reference_evaluator any(p, inputs, ranks[0]);
  const auto from = any.elements(source.buffer, source.part, source.parts);
  const auto to = any.elements(target.buffer, target.part, target.parts);
  const auto n = ranks.size();
  const auto expected_target = s.code == ir::step_code::reduce_scatter ? from.count / n
                               : s.code == ir::step_code::all_gather   ? from.count * n
                                                                       : from.count;
  if (to.count != expected_target || (s.code == ir::step_code::reduce_scatter && from.count % n != 0))
    throw std::logic_error("reference: a collective's target has the wrong size");
  const dtype type = p.buffers[static_cast<std::size_t>(source.buffer)].type;
  std::vector<scalar> combined(from.count);  // every rank's source combined (all ranks' for all_gather)
  std::vector<std::vector<scalar>> gathered(n);
  with_host_type(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto at = [&](std::size_t r, std::size_t i) {
      return ranks[r].at(static_cast<std::size_t>(source.buffer)).get(from.first + i).template as<T>();
    };
    for (std::size_t i = 0; i < from.count; ++i) {
      if (s.code == ir::step_code::all_gather) {
        for (std::size_t r = 0; r < n; ++r) gathered[r].push_back(scalar::of(at(r, i)));
        continue;
      }
      if (s.code == ir::step_code::broadcast) {
        combined[i] = scalar::of(at(static_cast<std::size_t>(ir::collective_root_of(s)), i));
        continue;
      }
      const auto op = ir::collective_op_of(s);
      const T inverse = static_cast<T>(1.0 / static_cast<double>(n));
      auto value = [&](std::size_t r) {
        return op == reduce_op::avg ? detail::element::arithmetic<T>(ir::op::mul, at(r, i), inverse)
                                    : at(r, i);
      };
      T acc = value(0);
      for (std::size_t r = 1; r < n; ++r) {
        const T x = value(r);
        switch (op) {
          case reduce_op::sum:
          case reduce_op::avg: acc = detail::element::arithmetic<T>(ir::op::add, acc, x); break;
          case reduce_op::prod: acc = detail::element::arithmetic<T>(ir::op::mul, acc, x); break;
          case reduce_op::min: acc = x < acc ? x : acc; break;
          case reduce_op::max: acc = acc < x ? x : acc; break;
        }
      }
      combined[i] = scalar::of(acc);
    }
    return 0;
  });
  for (std::size_t r = 0; r < n; ++r) {
    auto& out = ranks[r].at(static_cast<std::size_t>(target.buffer));
    for (std::size_t i = 0; i < to.count; ++i) {
      const scalar& v = s.code == ir::step_code::all_gather       ? gathered[i / from.count][i % from.count]
                        : s.code == ir::step_code::reduce_scatter ? combined[r * to.count + i]
                                                                  : combined[i];
      out.set(to.first + i, v.to(type));
    }
  }
}

// Every rank's run of an SPMD program (ranks[r]: rank r's arrays, as
// run_reference's), statement by statement in program order, each rank's
// statement in turn and a collective across the ranks.
inline void run_reference_ranks(const ir::program_view& program, const reference_inputs& inputs,
                                std::vector<std::vector<typed_array>>& ranks) {
  std::vector<reference_evaluator> evaluators;
  for (auto& arrays : ranks) {
    if (arrays.size() != program.buffers.size()) throw std::logic_error("reference: one array per buffer");
    evaluators.emplace_back(program, inputs, arrays);
  }
  for (const auto& s : program.stmts) {
    if (s.kind == ir::stmt_kind::step && ir::is_collective(s.code))
      reference_collective(program, inputs, ranks, s);
    else
      for (auto& e : evaluators) e.run(s);
  }
}

}  // namespace streamdsl::random_test
