#pragma once
// The host executor's part of the reductions and scans (ops/reduce.hpp,
// ops/scan.hpp): the step's expression runs block by block as a kernel
// program leaving its values, in the accumulation type, in one scratch
// column (kernel_compiler::compile_values); this file folds them in order
// with the meaning of backend/reduce_ops.hpp and stores the result through
// the plan's conversion loops (accumulated -> result -> target type).
#include <cstddef>
#include <cstdint>

#include "../../ir/accesses.hpp"
#include "../../plan/plan_view.hpp"
#include "../reduce_ops.hpp"
#include "../region_memory.hpp"
#include "../resolve_bindings.hpp"
#include "communicator.hpp"
#include "kernel_program.hpp"
#include "matmul.hpp"

namespace streamdsl::host_detail {

// What a step op does on the host: a copy, or a reduction or scan.
struct host_step {
  // a copy
  std::byte* dst = nullptr;
  const std::byte* src = nullptr;
  std::size_t bytes = 0;
  // a reduction or scan
  ir::step_code code = ir::step_code::copy;
  std::size_t values = 0;  // its input's program (block by block into values_column) in the kernel list
  std::int32_t values_column = -1;
  ir::step_types types{};
  std::size_t count = 0;       // elements reduced or scanned
  std::size_t rows = 1;        // along the last axis (ir::statement::axis): the rows; else 1
  std::size_t row_length = 0;  // elements per row (a whole-buffer step: count)
  std::byte* out = nullptr;    // the target region's first element
  loop_fn to_result = nullptr, to_target = nullptr;
  void (*fold)(const host_step&, const kernel_program&, std::byte*) = nullptr;  // run<A> of its type
  // a matmul
  host_matmul matmul{};
  detail::dyn_array<host_matmul> batch;  // a batch's members after the first (passes/batch_matmuls.hpp)
  // a call: its binding and its regions, placed (backend/call_context.hpp)
  const binding* call = nullptr;
  detail::dyn_array<call_region> regions;
  std::size_t read_count = 0;
  // a collective (communicator.hpp)
  collective_call collective{};
};

inline loop_fn find_loop(loop_finder loops, const loop_key& k) {
  if (const loop_fn f = loops(k)) return f;
  throw error("streamdsl host executor: internal error: the program's loop table lacks a loop");
}

namespace reduce_scan_detail {

template <class T>
T* column(const block& blk, std::int32_t c) {
  return reinterpret_cast<T*>(blk.scratch + static_cast<std::size_t>(c) * column_bytes);
}

// Stores `count` finished values from column `from` (type types.finished)
// at element `start` of the target: into the result type, then the target's.
inline void store(const host_step& st, const kernel_program& k, const block& blk, std::int32_t from) {
  const auto result_column = static_cast<std::int32_t>(k.columns) + 1;
  instruction to_result;
  to_result.a = {false, st.types.finished, from, nullptr};
  to_result.out = {false, st.types.result, result_column, nullptr};
  st.to_result(to_result, blk);
  instruction to_target;
  to_target.a = to_result.out;
  to_target.out = {true, st.types.target, -1, st.out};
  st.to_target(to_target, blk);
}

// Folds `st.count` values, row by row: `st.rows` rows of `st.row_length`
// (a whole-buffer step is one row). Sums add summation blocks from each
// row's start (reduce_ops.hpp); a reduction stores one value per row, a
// scan every element.
template <class A>
void run(const host_step& st, const kernel_program& k, std::byte* scratch) {
  using ir::step_code;
  const auto acc_column = static_cast<std::int32_t>(k.columns);
  const block whole{scratch, 0, block_elements};
  for (const auto& in : k.prologue) in.run(in, whole);
  const bool scan = ir::info(st.code).form == ir::step_form::scan;
  const std::size_t length = st.row_length;
  auto finish_row = [&](std::size_t row, A acc, long long best) {
    const block one{scratch, row, 1};
    if (st.code == step_code::argmax)
      *column<std::int64_t>(one, acc_column) = best;
    else
      *column<A>(one, acc_column) = detail::reduce::finish(st.code, acc, static_cast<long long>(length));
    store(st, k, one, acc_column);
  };
  if (length == 0) {  // rows of nothing: a sum is 0, a mean NaN (min, max, argmax were refused)
    if (!scan)
      for (std::size_t row = 0; row < st.rows; ++row) finish_row(row, A(0), 0);
    return;
  }
  A acc = A(0), part = A(0);
  long long best = 0;           // argmax
  std::size_t row = 0, at = 0;  // the element's row, and its index in the row
  for (std::size_t start = 0; start < st.count; start += block_elements) {
    const block blk{scratch, start, st.count - start < block_elements ? st.count - start : block_elements};
    for (const auto& in : k.body) in.run(in, blk);
    const A* v = column<A>(blk, st.values_column);
    A* out = column<A>(blk, acc_column);
    for (std::size_t i = 0; i < blk.count; ++i) {
      const bool first = at == 0;
      switch (st.code) {
        case step_code::inclusive_sum:
          acc = first ? v[i] : detail::reduce::combine(st.code, acc, v[i]);
          out[i] = acc;
          break;
        case step_code::exclusive_sum:
          out[i] = first ? A(0) : acc;
          acc = first ? v[i] : detail::reduce::combine(st.code, acc, v[i]);
          break;
        case step_code::min:
        case step_code::max: acc = first ? v[i] : detail::reduce::combine(st.code, acc, v[i]); break;
        case step_code::argmax:
          if (first || detail::reduce::replaces(v[i], acc)) {
            acc = v[i];
            best = static_cast<long long>(at);
          }
          break;
        default: {  // sums: each summation block from zero, then into the row's total
          const bool block_start = at % detail::reduce::summation_block == 0;
          part = detail::reduce::combine(st.code, block_start ? A(0) : part,
                                         detail::reduce::input(st.code, v[i]));
          if ((at + 1) % detail::reduce::summation_block == 0 || at + 1 == length)
            acc = detail::reduce::combine(st.code, at < detail::reduce::summation_block ? A(0) : acc, part);
          break;
        }
      }
      if (++at == length) {
        if (!scan) {
          // finish_row writes the accumulated column's first element: after a
          // scan's block, never during one (scans store below).
          finish_row(row, acc, best);
        }
        at = 0;
        ++row;
      }
    }
    if (scan) store(st, k, blk, acc_column);
  }
}

}  // namespace reduce_scan_detail

// The fold of a reduction or scan for one accumulation type, and the code
// that lays its step out: a program known at compile time instantiates only
// what its steps need (nothing for most programs: this code cost a unit
// that runs a 20-statement program 11% more g++ code generation), a plan
// known at run time all of it.
using fold_fn = void (*)(const host_step&, const kernel_program&, std::byte*);
using fold_finder = fold_fn (*)(dtype accumulated);

template <bool Int64, bool Float, bool Double, bool Uint64 = false>
fold_fn fold_for(dtype accumulated) {
  if constexpr (Int64)
    if (accumulated == dtype::int64) return &reduce_scan_detail::run<std::int64_t>;
  if constexpr (Uint64)
    if (accumulated == dtype::uint64) return &reduce_scan_detail::run<std::uint64_t>;
  if constexpr (Float)
    if (accumulated == dtype::float32) return &reduce_scan_detail::run<float>;
  if constexpr (Double)
    if (accumulated == dtype::float64) return &reduce_scan_detail::run<double>;
  return nullptr;
}

// What a step op of a reduction or scan needs at run time: its expression's
// program (appended to `programs`), types, element count, target, the
// conversion loops and the fold.
struct step_layout_context {
  const plan_view& plan;
  const resolved_bindings& bound;
  const detail::dyn_array<std::byte*>& memory;
  kernel_compiler& compiler;
  loop_finder loops;
  fold_finder folds;
  detail::dyn_array<kernel_program>& programs;
};
inline void lay_out_reduce_or_scan(host_step& step, const ir::statement& s, const step_layout_context& c) {
  const auto shape = ir::shape_of_step(c.plan.ir, s);
  step.types = ir::step_types_of(c.plan.ir, s);
  const detail::array_view<std::size_t> extents(c.bound.domain_extent);
  step.count = ir::element_count(shape, extents);
  step.rows = 1;
  step.row_length = step.count;
  if (s.axis >= 0) {
    step.rows =
        extents[static_cast<std::size_t>(c.plan.ir.domains[static_cast<std::size_t>(shape.domain)].outer)];
    step.row_length = extents[static_cast<std::size_t>(s.axis)];
  }
  step.values = c.programs.size();
  c.programs.push_back(c.compiler.compile_values(s.root, shape.domain, shape.parts, step.types.accumulated,
                                                 step.values_column));
  const auto target = ir::target_of(c.plan.ir, s);
  step.out =
      backend_detail::bytes_of(c.plan, c.bound, target, c.memory[static_cast<std::size_t>(target.buffer)])
          .data;
  step.to_result = find_loop(c.loops, convert_key(step.types.result, step.types.finished));
  step.to_target = find_loop(c.loops, convert_key(step.types.target, step.types.result));
  step.fold = c.folds(step.types.accumulated);
  if (step.fold == nullptr)
    throw error("streamdsl host executor: internal error: the program's folds lack a reduction's");
}

// The reduction and scan support of one program (compile time) or of any plan.
struct step_support {
  fold_finder folds = nullptr;
  void (*lay_out)(host_step&, const ir::statement&, const step_layout_context&) = nullptr;
  multiply_finder multiplies = nullptr;  // matmul.hpp
};
inline constexpr step_support any_step_support{&fold_for<true, true, true, true>, &lay_out_reduce_or_scan,
                                               &multiply_for<true, true, true>};

template <bool Float, bool Double, bool Half>
constexpr multiply_finder multiply_support() {
  if constexpr (Float || Double || Half)
    return &multiply_for<Float, Double, Half>;
  else
    return nullptr;
}

// Whether some reduction or scan of the plan accumulates in type t.
constexpr bool accumulates_in(const plan_view& plan, dtype t) {
  for (const auto& s : plan.ir.stmts)
    if (s.kind == ir::stmt_kind::step && ir::reads_expression(s.code) &&
        ir::accumulation_type(plan.ir.nodes[static_cast<std::size_t>(s.root)].type) == t)
      return true;
  return false;
}

template <bool Int64, bool Float, bool Double, bool Uint64>
constexpr step_support step_support_for() {
  if constexpr (Int64 || Float || Double || Uint64)
    return {&fold_for<Int64, Float, Double, Uint64>, &lay_out_reduce_or_scan};
  else
    return {};
}

// Runs a reduction or scan with one thread's scratch.
inline void run_reduce_or_scan(const host_step& st, const kernel_program& values, scratch_buffer& scratch) {
  st.fold(st, values, scratch.columns(values.columns + 2));  // + the accumulated and the result column
}

}  // namespace streamdsl::host_detail
