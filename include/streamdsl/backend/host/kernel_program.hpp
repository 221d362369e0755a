#pragma once
// Turns one fused kernel of a plan into instructions for the block loops of
// element_loops.hpp, and runs them over a range of elements. (Arrays are
// detail::dyn_array: the passes already instantiate it, and it is simpler
// for g++ to compile than std::vector.)
//
// Each expression node becomes one instruction writing a scratch column (a
// block of values of the node's type); children are first converted to the
// node's compute type, the result to the node's type. Loads read caller and
// workspace buffers in place. Values that do not change across the kernel
// (literals, params, 0-d buffers read by a kernel over a domain, and what is
// computed from them only) are evaluated once per thread, in the prologue.
// Register temps get a scratch column for the kernel's lifetime.
#include <cstddef>
#include <cstring>
#include <new>
#include <utility>

#include "../../detail/dyn_array.hpp"
#include "../../ir/accesses.hpp"
#include "../../plan/plan_view.hpp"
#include "element_loops.hpp"
#include "grow_only_buffer.hpp"

namespace streamdsl::host_detail {

struct kernel_program {
  detail::dyn_array<instruction> prologue;  // once per thread, before its first block
  detail::dyn_array<instruction> body;      // once per block
  std::size_t columns = 0;                  // scratch columns a thread needs
  std::size_t extent = 0;                   // elements of the kernel's domain
};

// Per-thread scratch: `columns` aligned columns of column_bytes each.
class scratch_buffer {
 public:
  std::byte* columns(std::size_t n) { return memory_.at_least(n * column_bytes); }

 private:
  grow_only_buffer<64> memory_;
};

// One scratch_buffer per stream slot, kept across runs; grows between runs only.
class scratch_buffers {
 public:
  scratch_buffers() = default;
  scratch_buffers(const scratch_buffers&) = delete;
  scratch_buffers& operator=(const scratch_buffers&) = delete;
  ~scratch_buffers() {
    for (scratch_buffer* b : buffers_) delete b;
  }
  std::size_t size() const { return buffers_.size(); }
  void push_back(scratch_buffer* owned) {
    try {
      buffers_.push_back(owned);
    } catch (...) {
      delete owned;
      throw;
    }
  }
  scratch_buffer* operator[](std::size_t i) const { return buffers_[i]; }

 private:
  detail::dyn_array<scratch_buffer*> buffers_;  // owned
};

// Runs elements [first, last) of a kernel with one thread's scratch.
inline void run_elements(const kernel_program& k, scratch_buffer& scratch, std::size_t first,
                         std::size_t last) {
  if (first >= last) return;
  std::byte* s = scratch.columns(k.columns);
  const block whole{s, 0, block_elements};
  for (const auto& in : k.prologue) in.run(in, whole);
  for (std::size_t start = first; start < last; start += block_elements) {
    const block blk{s, start, last - start < block_elements ? last - start : block_elements};
    for (const auto& in : k.body) in.run(in, blk);
  }
}

// The bytes of a literal's value in its node type.
inline void literal_bytes(const ir::expr_node& n, unsigned char* out) {
  auto put = [out](auto v) { std::memcpy(out, &v, sizeof v); };
  switch (n.type) {
    case dtype::boolean: return put(n.ivalue != 0);
    case dtype::int8: return put(static_cast<std::int8_t>(n.ivalue));
    case dtype::int16: return put(static_cast<std::int16_t>(n.ivalue));
    case dtype::int32: return put(static_cast<std::int32_t>(n.ivalue));
    case dtype::int64: return put(static_cast<std::int64_t>(n.ivalue));
    case dtype::uint8: return put(static_cast<std::uint8_t>(n.ivalue));
    case dtype::uint16: return put(static_cast<std::uint16_t>(n.ivalue));
    case dtype::uint32: return put(static_cast<std::uint32_t>(n.ivalue));
    case dtype::uint64: return put(static_cast<std::uint64_t>(n.ivalue));
    case dtype::float32: return put(static_cast<float>(n.fvalue));
    case dtype::float64: return put(n.fvalue);
#ifdef STREAMDSL_HAS_HALF
    case dtype::float16: return put(detail::element::convert<__half>(n.fvalue));
    case dtype::bfloat16: return put(detail::element::convert<__nv_bfloat16>(n.fvalue));
    case dtype::float8_e4m3: return put(detail::element::convert<__nv_fp8_e4m3>(n.fvalue));
    case dtype::float8_e5m2: return put(detail::element::convert<__nv_fp8_e5m2>(n.fvalue));
#else
    case dtype::float16:
    case dtype::bfloat16:
    case dtype::float8_e4m3:
    case dtype::float8_e5m2: break;
#endif
  }
  needs_cuda_headers("a literal of type ", n.type);
}

// Compiles the kernels of one plan for one run. `memory[b]` is where buffer b
// lives (caller memory or a workspace slot; nullptr for register temps);
// `params[p]` points at the bytes of param p's value.
//
// Scratch columns are reference counted: a node's value holds its column
// until the last parent has read it, and a value passed on unchanged (a cast
// to the same type) shares the column. Constant and register columns are
// pinned for the whole kernel.
class kernel_compiler {
 public:
  kernel_compiler(const plan_view& plan, loop_finder loops, detail::dyn_array<std::byte*> memory,
                  detail::dyn_array<const unsigned char*> params,
                  detail::array_view<std::size_t> domain_extent)
      : plan_(plan),
        loops_(loops),
        memory_(std::move(memory)),
        params_(std::move(params)),
        extents_(domain_extent),
        uses_(plan.ir.nodes.size(), 0),
        memo_(plan.ir.nodes.size()),
        register_column_(plan.ir.buffers.size(), -1),
        register_state_(plan.ir.buffers.size(), unwritten) {}

  kernel_program compile(std::size_t k) {
    start_kernel(plan_.kernels[k].domain, plan_.kernels[k].parts);
    for (auto s : plan_.kernel_statements(k)) compile_statement(plan_.ir.stmts[static_cast<std::size_t>(s)]);
    program_.columns = refs_.size();
    return std::move(program_);
  }

  // A reduction's or scan's input: the values of the expression rooted at
  // `root` over 1/parts of `domain` (-1: one element), converted to `as`.
  // Each block's values are left in scratch column `values_column` of the
  // program, which the step then folds (backend/host/reduce_scan.hpp).
  kernel_program compile_values(std::int32_t root, std::int32_t domain, std::int32_t parts, dtype as,
                                std::int32_t& values_column) {
    start_kernel(domain, parts);
    count_uses(root);
    const value v = evaluate(root);
    const operand out = new_column(as);
    pin(out);
    instruction in;
    in.run = loop(convert_key(as, v.where.type));
    in.a = v.where;
    in.out = out;
    program_.body.push_back(in);
    read_done(root);
    for (auto n : touched_) memo_[static_cast<std::size_t>(n)] = {};
    program_.columns = refs_.size();
    values_column = out.column;
    return std::move(program_);
  }

 private:
  struct value {
    operand where;
    bool constant = false;  // the same in every block: computed in the prologue
    bool set = false;
  };
  enum register_state : unsigned char { unwritten, zeroed, written };
  static constexpr int pinned = -1;

  // --- columns ------------------------------------------------------------------
  // A constant column is written once, by the prologue, before any block:
  // it must never have been a body temporary, so it is always a fresh one.
  operand new_column(dtype t, bool for_constant = false) {
    std::int32_t c;
    if (!free_.empty() && !for_constant) {
      c = free_.back();
      free_.pop_back();
      refs_[static_cast<std::size_t>(c)] = 1;
    } else {
      c = static_cast<std::int32_t>(refs_.size());
      refs_.push_back(1);
    }
    return {false, t, c, nullptr};
  }
  int& refs(const operand& o) { return refs_[static_cast<std::size_t>(o.column)]; }
  bool counted(const operand& o) { return !o.in_memory && refs(o) != pinned; }
  void pin(const operand& o) { refs(o) = pinned; }
  void hold(const operand& o) {
    if (counted(o)) ++refs(o);
  }
  void drop(const operand& o) {
    if (counted(o) && --refs(o) == 0) free_.push_back(o.column);
  }

  void start_kernel(std::int32_t domain, std::int32_t parts) {
    program_ = {};
    domain_ = domain;
    program_.extent =
        domain < 0 ? 1 : extents_[static_cast<std::size_t>(domain)] / static_cast<std::size_t>(parts);
    refs_.clear();
    free_.clear();
    constants_.clear();
    for (auto b : registers_) {
      register_column_[static_cast<std::size_t>(b)] = -1;
      register_state_[static_cast<std::size_t>(b)] = unwritten;
    }
    registers_.clear();
  }

  // --- instructions -----------------------------------------------------------------
  loop_fn loop(const loop_key& k) {
    if (const loop_fn f = loops_(k)) return f;
    throw error("streamdsl host executor: internal error: the program's loop table lacks a loop");
  }

  // Emits `in` writing a new column of type t. An instruction reading only
  // constants is itself constant: it goes to the prologue, once per kernel
  // (an identical one is shared).
  value emit(instruction in, dtype t, bool constant) {
    if (constant) {
      for (const auto& c : constants_)
        if (c.run == in.run && c.code == in.code && c.a == in.a && c.b == in.b && c.c == in.c &&
            c.out.type == t && std::memcmp(c.value, in.value, sizeof in.value) == 0)
          return {c.out, true, true};
      in.out = new_column(t, true);
      pin(in.out);
      program_.prologue.push_back(in);
      constants_.push_back(in);
      return {in.out, true, true};
    }
    in.out = new_column(t);
    program_.body.push_back(in);
    return {in.out, false, true};
  }

  // v as type t, held once more by the caller.
  value as_type(const value& v, dtype t) {
    if (v.where.type == t) {
      hold(v.where);
      return v;
    }
    instruction in;
    in.run = loop(convert_key(t, v.where.type));
    in.a = v.where;
    return emit(in, t, v.constant);
  }

  // --- statements -----------------------------------------------------------------
  // How many times each node of the statement's tree is read (the root once, by the store).
  void count_uses(std::int32_t root) {
    stack_.assign(1, root);
    touched_.assign(1, root);
    uses_[static_cast<std::size_t>(root)] = 1;
    while (!stack_.empty()) {
      const auto& n = plan_.ir.nodes[static_cast<std::size_t>(stack_.back())];
      stack_.pop_back();
      for (auto child : {n.a, n.b, n.c}) {
        if (child < 0) continue;
        if (uses_[static_cast<std::size_t>(child)]++ == 0) {
          stack_.push_back(child);
          touched_.push_back(child);
        }
      }
    }
  }

  void compile_statement(const ir::statement& s) {
    count_uses(s.root);
    store(ir::target_of(plan_.ir, s), evaluate(s.root));
    read_done(s.root);
    // A node shared with a later statement is evaluated again there: the
    // buffers it reads may have changed in between.
    for (auto n : touched_) memo_[static_cast<std::size_t>(n)] = {};
  }

  // A parent has read node's value.
  void read_done(std::int32_t node) {
    if (--uses_[static_cast<std::size_t>(node)] == 0) drop(memo_[static_cast<std::size_t>(node)].where);
  }

  operand register_of(std::int32_t b) {
    const auto type = plan_.ir.buffers[static_cast<std::size_t>(b)].type;
    auto& c = register_column_[static_cast<std::size_t>(b)];
    if (c < 0) {
      const auto o = new_column(type);
      pin(o);
      c = o.column;
      registers_.push_back(b);
    }
    return {false, type, c, nullptr};
  }

  // Where region r of a buffer in memory starts.
  std::byte* region_base(const ir::region& r) const {
    const auto& info = plan_.ir.buffers[static_cast<std::size_t>(r.buffer)];
    std::byte* base = memory_[static_cast<std::size_t>(r.buffer)];
    if (ir::is_whole(r)) return base;
    const auto extent = extents_[static_cast<std::size_t>(info.domain)];
    return base + ir::elements_of(r, extent).first * size_of(info.type);
  }

  void store(const ir::region& region, const value& r) {
    const auto target = region.buffer;
    const auto& info = plan_.ir.buffers[static_cast<std::size_t>(target)];
    const bool in_register = plan_.storage[static_cast<std::size_t>(target)] == storage_register;
    const operand dest =
        in_register ? register_of(target) : operand{true, info.type, -1, region_base(region)};
    if (in_register) register_state_[static_cast<std::size_t>(target)] = written;
    if (r.where == dest) return;
    // The instruction that computed the root can write the target itself:
    // every loop reads element i of its operands before writing element i.
    // Not when the target's column is one of that instruction's inputs under
    // another type (a register column can reuse an input's freed column):
    // elements of different widths would overlap.
    auto clashes = [&](const operand& in) {
      return !dest.in_memory && !in.in_memory && in.column == dest.column && in.type != dest.type;
    };
    if (counted(r.where) && refs(r.where) == 1 && r.where.type == dest.type && !program_.body.empty() &&
        program_.body.back().out == r.where && !clashes(program_.body.back().a) &&
        !clashes(program_.body.back().b) && !clashes(program_.body.back().c)) {
      program_.body.back().out = dest;
      return;
    }
    instruction in;
    in.run = loop(convert_key(dest.type, r.where.type));
    in.a = r.where;
    in.out = dest;
    program_.body.push_back(in);
  }

  value evaluate(std::int32_t id) {
    auto& memo = memo_[static_cast<std::size_t>(id)];
    if (!memo.set) memo = compute(plan_.ir.nodes[static_cast<std::size_t>(id)]);
    return memo;
  }

  // The node's value, held once (by the memo).
  value compute(const ir::expr_node& n) {
    switch (ir::kind_of(n.code)) {
      case ir::op_kind::load: return load({n.ref, n.part, n.parts});
      case ir::op_kind::param: {
        instruction in;
        in.run = loop(fill_key(n.type));
        std::memcpy(in.value, params_[static_cast<std::size_t>(n.ref)], size_of(n.type));
        return emit(in, n.type, true);
      }
      case ir::op_kind::literal: {
        instruction in;
        in.run = loop(fill_key(n.type));
        literal_bytes(n, in.value);
        return emit(in, n.type, true);
      }
      case ir::op_kind::convert: {  // the conversion to the compute type is the operation
        const value a = evaluate(n.a);
        const value c = as_type(a, operand_type(n, 0));
        read_done(n.a);
        const value r = as_type(c, n.type);
        drop(c.where);
        return r;
      }
      default: break;
    }
    const std::int32_t operands[] = {n.a, n.b, n.c};
    input in[3]{};
    const int count = ir::arity(n.code);
    for (int i = 0; i < count; ++i) in[i] = operand_of(operands[i], operand_type(n, i));
    return apply(loop(operation_key(n)), n, produced_type(n), {in, static_cast<std::size_t>(count)});
  }

  value load(const ir::region& r) {
    const auto b = r.buffer;
    const auto& info = plan_.ir.buffers[static_cast<std::size_t>(b)];
    if (plan_.storage[static_cast<std::size_t>(b)] == storage_register) {
      const operand col = register_of(b);
      auto& state = register_state_[static_cast<std::size_t>(b)];
      if (state == unwritten) {  // read before any write in this kernel: zeros, like fresh workspace
        instruction in;
        in.run = loop(fill_key(info.type));
        in.out = col;
        program_.body.push_back(in);
        state = zeroed;
      }
      return {col, false, true};
    }
    std::byte* base = region_base(r);
    switch (ir::broadcast_of(plan_.ir.domains, info.domain, domain_)) {
      case ir::load_index::scalar: {  // a 0-d buffer read over a domain: broadcast
        instruction in;
        in.run = loop(broadcast_key(info.type));
        in.a = {true, info.type, -1, base};
        return emit(in, info.type, true);
      }
      case ir::load_index::row_vector:
      case ir::load_index::column_vector: {  // a row or column of a rank-2 kernel
        instruction in;
        const bool row =
            ir::broadcast_of(plan_.ir.domains, info.domain, domain_) == ir::load_index::row_vector;
        in.run = loop(gather_key(info.type, row));
        in.a = {true, info.type, -1, base};
        const std::size_t cols =
            extents_[static_cast<std::size_t>(plan_.ir.domains[static_cast<std::size_t>(domain_)].inner)];
        std::memcpy(in.value, &cols, sizeof cols);
        return emit(in, info.type, false);
      }
      default: return {{true, info.type, -1, base}, false, true};
    }
  }

  struct input {
    std::int32_t node;
    value converted;
  };
  input operand_of(std::int32_t node, dtype t) { return {node, as_type(evaluate(node), t)}; }

  // Emits the node's operation over `inputs`, releases them, and converts the
  // result (of type `produced`) to the node's type.
  value apply(loop_fn run, const ir::expr_node& n, dtype produced, detail::array_view<input> inputs) {
    instruction in;
    in.run = run;
    in.code = n.code;
    operand* slots[] = {&in.a, &in.b, &in.c};
    bool constant = true;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      *slots[i] = inputs[i].converted.where;
      constant = constant && inputs[i].converted.constant;
    }
    const value result = emit(in, produced, constant);
    for (const auto& i : inputs) {
      drop(i.converted.where);
      read_done(i.node);
    }
    const value typed = as_type(result, n.type);
    drop(result.where);
    return typed;
  }

  const plan_view& plan_;
  loop_finder loops_;
  detail::dyn_array<std::byte*> memory_;
  detail::dyn_array<const unsigned char*> params_;
  detail::array_view<std::size_t> extents_;  // per domain

  kernel_program program_;
  std::int32_t domain_ = 0;
  detail::dyn_array<int> refs_;  // per column: readers still to come, or pinned
  detail::dyn_array<std::int32_t> free_;
  detail::dyn_array<instruction> constants_;  // prologue instructions, for sharing
  detail::dyn_array<int> uses_;
  detail::dyn_array<value> memo_;
  detail::dyn_array<std::int32_t> stack_, touched_;
  detail::dyn_array<std::int32_t> register_column_;
  detail::dyn_array<register_state> register_state_;
  detail::dyn_array<std::int32_t> registers_;
};

}  // namespace streamdsl::host_detail
