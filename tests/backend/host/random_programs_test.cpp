// Random programs built at run time (random expression trees over every host
// element type, temps, 0-d buffers, params, literals, chunks x.chunk(i, k) and
// copies, several streams under sd::automatic, fusion on or off) run on the host executor, some in stress
// mode, and are compared element by element with a plain sequential
// interpreter of the IR that applies backend/element_ops.hpp node by node.
// This checks the executor's block evaluator (scratch columns, constants
// hoisted to the prologue, conversions, direct stores, registers, slots)
// against the meaning of each node.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <random>
#include <streamdsl/backend/host/host_executor.hpp>
#include <string>
#include <variant>

#include "host_test_support.hpp"

namespace {

namespace ir = sd::ir;
namespace element = sd::detail::element;
using sd::dtype;
using std::int32_t;
using std::int64_t;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr int program_count = 40;  // sanitizers are slow; the host preset runs the full count
#else
constexpr int program_count = 300;
#endif

constexpr dtype host_types[] = {dtype::boolean, dtype::int32, dtype::int64, dtype::float32, dtype::float64};

// --- the reference: one value of any host type --------------------------------
using value = std::variant<bool, int32_t, int64_t, float, double>;

template <class F>
value with_type(dtype t, F f) {
  switch (t) {
    case dtype::boolean: return f(bool{});
    case dtype::int32: return f(int32_t{});
    case dtype::int64: return f(int64_t{});
    case dtype::float32: return f(float{});
    case dtype::float64: return f(double{});
    default: break;
  }
  throw std::logic_error("no host type");
}

value convert(const value& v, dtype to) {
  return std::visit(
      [&](auto x) {
        return with_type(to, [&](auto tag) { return value(element::convert<decltype(tag)>(x)); });
      },
      v);
}

value apply_unary(ir::op code, const value& a) {
  return std::visit([&](auto x) { return value(element::unary(code, x)); }, a);
}
value apply_binary(ir::op code, const value& a, const value& b) {
  return std::visit(
      [&](auto x) {
        const auto y = std::get<decltype(x)>(b);
        if (ir::is_predicate(code)) return value(element::predicate(code, x, y));
        return value(element::arithmetic(code, x, y));
      },
      a);
}

struct reference {
  const sd::plan_view& plan;
  std::vector<std::vector<value>>& buffers;
  const std::vector<value>& params;

  value eval(std::int32_t id, std::size_t i) const {
    const auto& n = plan.ir.nodes[static_cast<std::size_t>(id)];
    switch (n.code) {
      case ir::op::load: {
        const auto& b = buffers[static_cast<std::size_t>(n.ref)];
        if (plan.ir.buffers[static_cast<std::size_t>(n.ref)].domain < 0) return b[0];  // 0-d: broadcast
        return b[static_cast<std::size_t>(n.part) * (b.size() / static_cast<std::size_t>(n.parts)) + i];
      }
      case ir::op::param: return params[static_cast<std::size_t>(n.ref)];
      case ir::op::literal:
        return with_type(n.type, [&](auto tag) {
          using T = decltype(tag);
          if constexpr (std::is_floating_point_v<T>)
            return value(static_cast<T>(n.fvalue));
          else if constexpr (std::is_same_v<T, bool>)
            return value(n.ivalue != 0);
          else
            return value(static_cast<T>(n.ivalue));
        });
      case ir::op::where: {
        const bool c = std::get<bool>(convert(eval(n.a, i), dtype::boolean));
        return convert(convert(eval(c ? n.b : n.c, i), n.compute), n.type);
      }
      default: break;
    }
    if (ir::arity(n.code) == 1) return convert(apply_unary(n.code, convert(eval(n.a, i), n.compute)), n.type);
    return convert(apply_binary(n.code, convert(eval(n.a, i), n.compute), convert(eval(n.b, i), n.compute)),
                   n.type);
  }

  // The elements [first, first + count) of a region of a buffer of n elements.
  static std::pair<std::size_t, std::size_t> elements(const ir::region& r, std::size_t n) {
    const auto count = n / static_cast<std::size_t>(r.parts);
    return {static_cast<std::size_t>(r.part) * count, count};
  }

  // Statements in program order: an assignment over the region it writes
  // (the whole buffer or a chunk), a copy element by element.
  void run() const {
    for (const auto& s : plan.ir.stmts) {
      if (s.kind != ir::stmt_kind::assign && s.kind != ir::stmt_kind::step) continue;
      const auto first = static_cast<std::size_t>(s.accesses_first);
      const ir::region written = plan.ir.accesses[first + static_cast<std::size_t>(s.reads_count)];
      auto& out = buffers[static_cast<std::size_t>(written.buffer)];
      const auto [at, count] = elements(written, out.size());
      if (s.kind == ir::stmt_kind::step) {
        const ir::region read = plan.ir.accesses[first];
        const auto& in = buffers[static_cast<std::size_t>(read.buffer)];
        const auto from = elements(read, in.size()).first;
        for (std::size_t i = 0; i < count; ++i) out[at + i] = in[from + i];
        continue;
      }
      const auto& target = plan.ir.buffers[static_cast<std::size_t>(s.target)];
      for (std::size_t i = 0; i < count; ++i) out[at + i] = convert(eval(s.root, i), target.type);
    }
  }
};

// --- random programs ----------------------------------------------------------------
struct declared_buffer {
  std::int32_t id;
  ir::access kind;
  dtype type;
  std::int32_t domain;
};

class program_maker {
 public:
  // counts: per domain, the chunk counts its extent allows.
  program_maker(std::uint64_t seed, std::vector<std::vector<int>> counts)
      : rng_(seed), counts_(std::move(counts)) {}

  using access = sd::detail::builder_access;
  sd::detail::builder_state b;  // the engine: this maker writes IR without handles
  std::vector<declared_buffer> buffers;
  std::vector<std::int32_t> params;

  void make() {
    access::add_domain(b, name("m"));
    const int streams = pick(1, 3);
    for (int s = 1; s < streams; ++s) access::add_stream(b, name("s"));
    for (int k = pick(2, 4); k > 0; --k) declare(ir::access::input);
    for (int k = pick(2, 4); k > 0; --k) declare(ir::access::output);
    for (int k = pick(0, 2); k > 0; --k) declare(ir::access::inout);
    for (int k = pick(0, 3); k > 0; --k) declare(ir::access::temp);
    for (int k = pick(0, 3); k > 0; --k) params.push_back(access::add_param(b, name("p"), any_type()));
    for (int k = pick(3, 10); k > 0; --k) statement(streams);
  }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(int percent) { return pick(1, 100) <= percent; }
  dtype any_type() { return host_types[pick(0, 4)]; }
  std::string_view name(const char* prefix) {  // distinct names, numbered
    names_.push_back(prefix + std::to_string(names_.size()));
    return names_.back();
  }

  void declare(ir::access kind) {
    const int d = pick(0, 9);
    const std::int32_t domain = d < 6 ? 0 : (d < 8 ? 1 : -1);  // mostly n, some m, some 0-d
    const dtype type = any_type();
    buffers.push_back({access::add_buffer(b, name("b"), kind, type, domain), kind, type, domain});
  }

  void statement(int streams) {
    std::vector<const declared_buffer*> targets;
    for (const auto& x : buffers)
      if (x.kind != ir::access::input) targets.push_back(&x);
    const auto& t = *targets[static_cast<std::size_t>(pick(0, static_cast<int>(targets.size()) - 1))];
    access::current_stream(b) = pick(0, streams - 1);
    // Some statements write a chunk, x.chunk(i, k) with k dividing the extent.
    ir::region target = ir::whole(t.id);
    if (t.domain >= 0 && !counts_[static_cast<std::size_t>(t.domain)].empty() && chance(30)) {
      const auto& counts = counts_[static_cast<std::size_t>(t.domain)];
      const int k = counts[static_cast<std::size_t>(pick(0, static_cast<int>(counts.size()) - 1))];
      target = access::chunk(b, t.id, pick(0, k - 1), k);
    }
    if (chance(15) && copy(t, target)) return;
    part_ = target.part;
    parts_ = target.parts;
    auto e = expression(t.domain, pick(0, 4));
    parts_ = 1;
    if (!sd::assignable(t.type, e.type.type) || chance(15)) e = cast(e, t.type);
    access::assign(b, target, e);
    if (ir::is_whole(target)) written_.push_back(t.id);
  }

  // sd::copy into `target` from the same region of another buffer of its
  // type and domain; false when there is none.
  bool copy(const declared_buffer& t, ir::region target) {
    std::vector<std::int32_t> sources;
    for (const auto& x : buffers)
      if (x.id != t.id && x.type == t.type && x.domain == t.domain && readable(x)) sources.push_back(x.id);
    if (sources.empty()) return false;
    const auto from = sources[static_cast<std::size_t>(pick(0, static_cast<int>(sources.size()) - 1))];
    access::copy(b, target,
                 ir::is_whole(target) ? ir::whole(from) : access::chunk(b, from, target.part, target.parts));
    if (ir::is_whole(target)) written_.push_back(t.id);
    return true;
  }
  bool readable(const declared_buffer& x) const {
    // A temp is read once written whole (a temp read before any write is unspecified).
    return x.kind != ir::access::temp || std::find(written_.begin(), written_.end(), x.id) != written_.end();
  }

  sd::detail::operand cast(sd::detail::operand a, dtype to) {
    return access::unary(b, ir::op::cast, a, to, to);
  }
  sd::detail::operand as_bool(sd::detail::operand a) {
    if (a.type.type == dtype::boolean) return a;
    return access::binary(b, chance(50) ? ir::op::ne : ir::op::gt, a, access::literal(b, dtype::int32, 0, 0));
  }

  sd::detail::operand leaf(std::int32_t domain) {
    std::vector<std::int32_t> readable;
    for (const auto& x : buffers) {
      if (x.domain != domain && x.domain >= 0) continue;
      if (domain < 0 && x.domain >= 0) continue;
      if (!this->readable(x)) continue;
      readable.push_back(x.id);
    }
    const int r = pick(0, 9);
    if (r < 6 && !readable.empty()) {
      const auto id = readable[static_cast<std::size_t>(pick(0, static_cast<int>(readable.size()) - 1))];
      if (parts_ == 1 || buffers[static_cast<std::size_t>(id)].domain < 0)
        return access::load(b, ir::whole(id));
      // In a chunked statement: a chunk with as many parts, mostly the one written.
      return access::load(b, access::chunk(b, id, chance(60) ? part_ : pick(0, parts_ - 1), parts_));
    }
    if (r < 8 && !params.empty())
      return access::param(b, params[static_cast<std::size_t>(pick(0, static_cast<int>(params.size()) - 1))]);
    const dtype t = any_type();
    const double values[] = {0, 1, -1, 2.5, -3.25, 7, 100, 1e9, -0.5, 3};
    const double v = values[pick(0, 9)];
    if (t == dtype::boolean) return access::literal(b, t, v != 0, v != 0);
    if (sd::category_of(t) == sd::dtype_category::integral)
      return access::literal(b, t, std::trunc(v), static_cast<int64_t>(v));
    return access::literal(b, t, v, static_cast<int64_t>(v));
  }

  sd::detail::operand expression(std::int32_t domain, int depth) {
    if (depth == 0) return leaf(domain);
    const int kind = pick(0, 9);
    if (kind < 3) {  // unary
      auto a = expression(domain, depth - 1);
      constexpr ir::op ops[] = {ir::op::neg,   ir::op::abs,    ir::op::relu,      ir::op::exp,
                                ir::op::log,   ir::op::sqrt,   ir::op::rsqrt,     ir::op::sin,
                                ir::op::cos,   ir::op::tanh,   ir::op::sigmoid,   ir::op::logical_not,
                                ir::op::cast,  ir::op::floor,  ir::op::ceil,      ir::op::round,
                                ir::op::erf,   ir::op::gelu,   ir::op::gelu_tanh, ir::op::exp2,
                                ir::op::log1p, ir::op::bit_not};
      const auto code = ops[pick(0, 21)];
      if (code == ir::op::cast) return cast(a, any_type());
      if (code == ir::op::logical_not)
        return access::unary(b, code, as_bool(a), dtype::boolean, dtype::boolean);
      if (code == ir::op::neg) {
        if (a.type.type == dtype::boolean) a = cast(a, dtype::int32);
        return access::unary(b, code, a, a.type.type, a.type.type);
      }
      if (code == ir::op::bit_not && sd::category_of(a.type.type) == sd::dtype_category::floating)
        a = cast(a, dtype::int64);
      if (code == ir::op::abs || code == ir::op::relu || code == ir::op::floor || code == ir::op::ceil ||
          code == ir::op::round || code == ir::op::bit_not)
        return access::unary(b, code, a, a.type.type, a.type.type);
      const dtype r =
          sd::category_of(a.type.type) == sd::dtype_category::floating ? a.type.type : dtype::float32;
      return access::unary(b, code, a, r, r);
    }
    if (kind < 8) {  // binary; a node may be used twice
      auto a = expression(domain, depth - 1);
      auto c = chance(15) ? a : expression(domain, depth - 1);
      constexpr ir::op ops[] = {
          ir::op::add,         ir::op::sub,        ir::op::mul, ir::op::div,  ir::op::min, ir::op::max,
          ir::op::lt,          ir::op::le,         ir::op::gt,  ir::op::ge,   ir::op::eq,  ir::op::ne,
          ir::op::logical_and, ir::op::logical_or, ir::op::mod, ir::op::fmod, ir::op::pow, ir::op::bit_and,
          ir::op::bit_or,      ir::op::bit_xor,    ir::op::shl, ir::op::shr};
      const auto code = ops[pick(0, 21)];
      if (code == ir::op::logical_and || code == ir::op::logical_or)
        return access::binary(b, code, as_bool(a), as_bool(c));
      const auto rule = ir::info(code).operands;
      if (rule == ir::operand_rule::numeric && sd::combine(a.type, c.type).type == dtype::boolean)
        a = cast(a, dtype::int32);
      // integers (and bools for & | ^) only: cast the others
      const auto accepts = [&](dtype t) {
        const auto k = sd::category_of(t);
        return k == sd::dtype_category::integral ||
               (rule == ir::operand_rule::integral && k == sd::dtype_category::boolean);
      };
      if (rule == ir::operand_rule::integral || rule == ir::operand_rule::integer) {
        if (!accepts(a.type.type)) a = cast(a, dtype::int32);
        if (!accepts(c.type.type)) c = cast(c, dtype::int64);
      }
      return access::binary(b, code, a, c);
    }
    auto cond = as_bool(expression(domain, depth - 1));
    auto x = expression(domain, depth - 1);
    auto y = expression(domain, depth - 1);
    if (y.type.type != x.type.type) y = cast(y, x.type.type);
    return access::where(b, cond, x, y);
  }

  std::mt19937_64 rng_;
  std::vector<std::vector<int>> counts_;
  std::deque<std::string> names_;
  std::vector<std::int32_t> written_;
  int part_ = 0, parts_ = 1;  // the chunk the statement being built writes
};

// Random contents for a buffer or param of type t, the same for executor and reference.
struct value_maker {
  std::mt19937_64 rng;
  value next(dtype t) {
    const int r = std::uniform_int_distribution<int>(0, 99)(rng);
    const double u = std::uniform_real_distribution<double>(-4, 4)(rng);
    return with_type(t, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, bool>)
        return value(r % 2 == 0);
      else if constexpr (std::is_integral_v<T>) {
        if (r == 0) return value(std::numeric_limits<T>::min());
        if (r == 1) return value(std::numeric_limits<T>::max());
        return value(static_cast<T>(std::lround(u * 25)));
      } else {
        if (r == 0) return value(std::numeric_limits<T>::quiet_NaN());
        if (r == 1) return value(T(0));
        return value(static_cast<T>(u));
      }
    });
  }
};

void store_bytes(const value& v, unsigned char* out) {
  std::visit([&](auto x) { std::memcpy(out, &x, sizeof x); }, v);
}

bool same(const value& a, const value& b) {
  return std::visit(
      [&](auto x) {
        const auto y = std::get<decltype(x)>(b);
        if constexpr (std::is_floating_point_v<decltype(x)>)
          if (std::isnan(x) && std::isnan(y)) return true;
        return std::memcmp(&x, &y, sizeof x) == 0;
      },
      a);
}

}  // namespace

TEST_CASE("random programs match a sequential interpreter of their IR", "[host][random]") {
  int ran = 0, rejected = 0, mismatches = 0, with_steps = 0, with_chunks = 0;
  for (int index = 0; index < program_count; ++index) {
    const std::vector<std::size_t> extents{
        static_cast<std::size_t>(std::vector<int>{1, 5, 300, 513, 1100, 24}[index % 6]),
        static_cast<std::size_t>(index % 7 + 1)};
    std::vector<std::vector<int>> counts(2);
    for (std::size_t d = 0; d < 2; ++d)
      for (int k : {2, 3, 4, 8})
        if (extents[d] % static_cast<std::size_t>(k) == 0) counts[d].push_back(k);
    program_maker maker(static_cast<std::uint64_t>(index) * 7919 + 1, counts);
    maker.make();
    if (!program_maker::access::ir(maker.b)
             .ok()) {  // the generator aims for valid programs; count what slips through
      ++rejected;
      continue;
    }
    const sd::options options = index % 3 == 0 ? (sd::automatic | sd::no_fusion) : sd::automatic;
    auto model = sd::passes::schedule(std::move(program_maker::access::ir(maker.b)), options);
    REQUIRE(model.ir.ok());
    const auto plan = sd::view_of(model);
    with_steps += plan.step_count() > 0;
    for (const auto& k : plan.kernels) with_chunks += k.parts > 1;

    value_maker values{std::mt19937_64(static_cast<std::uint64_t>(index))};
    // Caller memory (bytes) and the reference's values, with the same contents.
    std::vector<std::vector<unsigned char>> memory(plan.ir.buffers.size());
    std::vector<std::vector<value>> expected(plan.ir.buffers.size());
    std::vector<sd::binding> bindings;
    for (std::size_t id = 0; id < plan.ir.buffers.size(); ++id) {
      const auto& info = plan.ir.buffers[id];
      const std::size_t n = info.domain < 0 ? 1 : extents[static_cast<std::size_t>(info.domain)];
      const auto size = sd::size_of(info.type);
      memory[id].resize(n * size + 8);
      for (std::size_t i = 0; i < n; ++i) {
        expected[id].push_back(values.next(info.type));
        store_bytes(expected[id].back(), memory[id].data() + i * size);
      }
      if (info.kind != ir::access::temp)
        bindings.push_back(sd::binding::buffer(plan.ir.buffer_name(static_cast<std::int32_t>(id)), info.type,
                                               memory[id].data(), n, false));
    }
    std::vector<value> params;
    for (const auto& p : plan.ir.params) {
      params.push_back(values.next(p.type));
      unsigned char bytes[8]{};
      store_bytes(params.back(), bytes);
      bindings.push_back(sd::binding::param(plan.ir.name(p.name), p.type, bytes));
    }

    const reference ref{plan, expected, params};
    ref.run();
    if (index % 4 == 1) {
      sd::host_executor ex(sd::stress{static_cast<std::uint64_t>(index), 10});
      ex.run(plan, bindings);
    } else {
      sd::host_executor ex;
      ex.run(plan, bindings);
    }
    ++ran;

    for (std::size_t id = 0; id < plan.ir.buffers.size(); ++id) {
      const auto& info = plan.ir.buffers[id];
      if (info.kind == ir::access::temp || info.kind == ir::access::input) continue;
      for (std::size_t i = 0; i < expected[id].size(); ++i) {
        const value got = with_type(info.type, [&](auto tag) {
          decltype(tag) x;
          std::memcpy(&x, memory[id].data() + i * sd::size_of(info.type), sizeof x);
          return value(x);
        });
        if (!same(got, expected[id][i])) {
          if (mismatches++ < 3) {
            UNSCOPED_INFO("program #" << index << ", buffer '"
                                      << plan.ir.buffer_name(static_cast<std::int32_t>(id)) << "', element "
                                      << i << "\n"
                                      << std::string(sd::dump(plan).view()));
          }
          break;
        }
      }
    }
  }
  CHECK(mismatches == 0);
  CHECK(rejected * 10 < program_count);    // the generator must not skip much
  CHECK(with_steps * 10 > program_count);  // copies and chunked kernels are covered
  CHECK(with_chunks * 20 > program_count);
  CHECK(ran + rejected == program_count);
}
