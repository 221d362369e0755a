#include "program_generator.hpp"

#include <cmath>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <streamdsl/ir/render.hpp>

#include "generator_base.hpp"

namespace streamdsl::random_test {

namespace {

using namespace generator_detail;

// --- the dynamic family ---------------------------------------------------------

class dynamic_generator : public generator_base {
 public:
  using generator_base::generator_base;
  using access = detail::builder_access;

  generated_program run(std::uint64_t seed) {
    generated_program g;
    g.seed = seed;
    g.family = "dynamic";
    choose_policy(g);
    declare(g);
    model_ = std::make_unique<order_model>(access::ir(b_).streams.size(), access::ir(b_).buffers.size());
    write_statements();
    finish(g);
    g.user = access::ir(b_);
    return g;
  }

 private:
  enum class want { numeric, boolean };

  detail::builder_state& state() override { return b_; }
  void emit_record(std::int32_t stream, std::int32_t event) override {
    const auto saved = access::current_stream(b_);
    access::current_stream(b_) = stream;
    access::record(b_, event);
    access::current_stream(b_) = saved;
  }
  void emit_wait(std::int32_t stream, std::int32_t event) override {
    const auto saved = access::current_stream(b_);
    access::current_stream(b_) = stream;
    access::wait(b_, event);
    access::current_stream(b_) = saved;
  }
  void emit_wait_stream(std::int32_t waiter, std::int32_t waited) override {
    access::wait_stream(b_, waiter, waited);
  }

  void declare(generated_program& g) {
    const auto streams = random_stream_count();
    for (std::size_t s = 1; s < streams; ++s) access::add_stream(b_, "s" + std::to_string(s));
    g.inputs.extents.push_back(random_extent(r_));
    const auto domains = 1 + r_.below(3);
    for (std::size_t d = 1; d < domains; ++d) {
      access::add_domain(b_, "d" + std::to_string(d));
      g.inputs.extents.push_back(random_extent(r_));
    }
    auto declare_buffers = [&](ir::access kind, const char* prefix, std::size_t lo, std::size_t hi) {
      const auto n = lo + r_.below(hi - lo + 1);
      for (std::size_t i = 0; i < n; ++i) {
        const auto domain = r_.chance(0.15) ? -1 : static_cast<std::int32_t>(r_.below(domains) * r_.below(2));
        access::add_buffer(b_, prefix + std::to_string(i), kind, random_dtype(r_), domain);
      }
    };
    declare_buffers(ir::access::input, "in", 1, 4);
    declare_buffers(ir::access::inout, "io", 0, 2);
    declare_buffers(ir::access::output, "out", 1, 4);
    declare_buffers(ir::access::temp, "t", 0, 6);
    const auto params = r_.below(3);
    for (std::size_t i = 0; i < params; ++i) {
      const auto t = random_dtype(r_);
      access::add_param(b_, "p" + std::to_string(i), t);
      g.inputs.params.push_back(random_value(r_, t));
    }
    const auto events = r_.below(streams > 4 ? 7 : 4);
    for (std::size_t i = 0; i < events; ++i) access::add_event(b_, "e" + std::to_string(i));
  }

  void write_statements() {
    const auto size = r_.below(100);
    const auto assigns = size < 3 ? r_.between(100, 200) : size < 13 ? r_.between(25, 60) : r_.between(2, 24);
    std::vector<std::int32_t> scopes;
    const auto streams = access::ir(b_).streams.size();
    for (std::int64_t done = 0; done < assigns;) {
      const auto current = scopes.empty() ? ir::main_stream : scopes.back();
      access::current_stream(b_) = current;
      const auto x = r_.below(100);
      if (x < 16 && scopes.size() < 3) {
        scopes.push_back(static_cast<std::int32_t>(r_.below(streams)));  // nested scope
      } else if (x < 26 && !scopes.empty()) {
        scopes.pop_back();
      } else if (x < 34) {
        random_sync(current);
      } else {
        assign(current);
        ++done;
      }
    }
  }

  bool readable(std::int32_t buffer) const {
    const auto kind = access::ir(b_).buffers[static_cast<std::size_t>(buffer)].kind;
    return kind == ir::access::input || kind == ir::access::inout || model_->written(buffer);
  }

  void assign(std::int32_t stream) {
    std::vector<std::int32_t> targets;
    for (std::int32_t i = 0; i < static_cast<std::int32_t>(access::ir(b_).buffers.size()); ++i)
      if (access::ir(b_).buffers[static_cast<std::size_t>(i)].kind != ir::access::input) targets.push_back(i);
    const auto target = r_.pick(targets);
    const auto& info = access::ir(b_).buffers[static_cast<std::size_t>(target)];
    model_->observe(access::ir(b_));
    operand value = expression(
        category_of(info.type) == dtype_category::boolean || r_.chance(0.1) ? want::boolean : want::numeric,
        static_cast<int>(r_.below(4)), info.domain, target);
    if (!assignable(info.type, value.type.type) || r_.chance(0.1))
      value = access::unary(b_, ir::op::cast, value, info.type, info.type);
    std::vector<std::int32_t> reads;
    loads_of(access::ir(b_), value.node, reads);
    order_before(stream, reads, target);
    access::current_stream(b_) = stream;
    access::assign(b_, ir::whole(target), value);
  }

  // Leaves: buffers of the statement's domain (or 0-d) that hold values.
  std::vector<std::int32_t> leaf_buffers(std::int32_t domain, bool boolean, std::int32_t target) const {
    std::vector<std::int32_t> out;
    for (std::int32_t i = 0; i < static_cast<std::int32_t>(access::ir(b_).buffers.size()); ++i) {
      const auto& info = access::ir(b_).buffers[static_cast<std::size_t>(i)];
      if ((info.domain == domain || info.domain < 0) && readable(i) &&
          (info.type == dtype::boolean) == boolean) {
        out.push_back(i);
        if (i == target) out.push_back(i);  // read-modify-write (inouts, x = x + 1) more often
      }
    }
    return out;
  }
  std::vector<std::int32_t> leaf_params(bool boolean) const {
    std::vector<std::int32_t> out;
    for (std::int32_t i = 0; i < static_cast<std::int32_t>(access::ir(b_).params.size()); ++i)
      if ((access::ir(b_).params[static_cast<std::size_t>(i)].type == dtype::boolean) == boolean)
        out.push_back(i);
    return out;
  }

  operand literal(bool boolean) {
    if (boolean) {
      const bool v = r_.chance(0.5);
      return access::literal(b_, dtype::boolean, v ? 1.0 : 0.0, v ? 1 : 0);
    }
    const auto x = r_.below(100);
    if (x < 35) {
      const auto v = r_.between(-8, 8);
      return access::literal(b_, dtype::int32, static_cast<double>(v), v);
    }
    if (x < 40) {
      const auto v = r_.between(-100000, 100000) * 100000;
      return access::literal(b_, dtype::int64, static_cast<double>(v), v);
    }
    // Floating literals as the front end makes them: a float literal holds a
    // float value, a double literal any double.
    if (x < 70) {
      const float v = static_cast<float>(r_.between(-40, 40)) / 8;
      return access::literal(b_, dtype::float32, static_cast<double>(v), static_cast<std::int64_t>(v));
    }
    const double v = r_.chance(0.5) ? static_cast<double>(r_.between(-40, 40)) / 8
                                    : static_cast<double>(r_.between(-1000, 1000)) / 7;
    return access::literal(b_, dtype::float64, v, static_cast<std::int64_t>(v));
  }

  operand leaf(want w, std::int32_t domain, std::int32_t target) {
    const bool boolean = w == want::boolean;
    const auto buffers = leaf_buffers(domain, boolean, target);
    const auto params = leaf_params(boolean);
    const auto x = r_.below(100);
    if (x < 65 && !buffers.empty()) return access::load(b_, ir::whole(r_.pick(buffers)));
    if (x < 80 && !params.empty()) return access::param(b_, r_.pick(params));
    return literal(boolean);
  }

  operand expression(want w, int depth, std::int32_t domain, std::int32_t target) {
    if (depth <= 0 || r_.chance(0.25)) return leaf(w, domain, target);
    return w == want::numeric ? numeric(depth, domain, target) : boolean(depth, domain, target);
  }

  operand numeric(int depth, std::int32_t domain, std::int32_t target) {
    const auto x = r_.below(100);
    auto sub = [&](want w) { return expression(w, depth - 1, domain, target); };
    if (x < 40) {
      constexpr ir::op codes[] = {ir::op::add, ir::op::sub, ir::op::mul,
                                  ir::op::div, ir::op::min, ir::op::max};
      return access::binary(b_, codes[r_.below(6)], sub(want::numeric), sub(want::numeric));
    }
    if (x < 50) {
      // A bool operand in arithmetic with a number promotes to the number's type.
      constexpr ir::op codes[] = {ir::op::add, ir::op::mul, ir::op::sub};
      const auto a = sub(want::numeric);
      const auto b = sub(want::boolean);
      return r_.chance(0.5) ? access::binary(b_, codes[r_.below(3)], a, b)
                            : access::binary(b_, codes[r_.below(3)], b, a);
    }
    if (x < 62) {
      constexpr ir::op codes[] = {ir::op::neg, ir::op::abs, ir::op::relu};
      const auto a = sub(want::numeric);
      return access::unary(b_, codes[r_.below(3)], a, a.type.type, a.type.type);
    }
    if (x < 74) {
      constexpr ir::op codes[] = {ir::op::exp, ir::op::log, ir::op::sqrt, ir::op::rsqrt,
                                  ir::op::sin, ir::op::cos, ir::op::tanh, ir::op::sigmoid};
      const auto a = sub(want::numeric);
      const auto t = category_of(a.type.type) == dtype_category::floating ? a.type.type : dtype::float32;
      return access::unary(b_, codes[r_.below(8)], a, t, t);
    }
    if (x < 84) {
      const auto t = host_dtypes[1 + r_.below(4)];
      return access::unary(b_, ir::op::cast, sub(r_.chance(0.3) ? want::boolean : want::numeric), t, t);
    }
    return where(sub(want::boolean), sub(want::numeric), sub(want::numeric));
  }

  operand boolean(int depth, std::int32_t domain, std::int32_t target) {
    const auto x = r_.below(100);
    auto sub = [&](want w) { return expression(w, depth - 1, domain, target); };
    if (x < 45) {
      constexpr ir::op codes[] = {ir::op::lt, ir::op::le, ir::op::gt, ir::op::ge, ir::op::eq, ir::op::ne};
      return access::binary(b_, codes[r_.below(6)], sub(want::numeric), sub(want::numeric));
    }
    if (x < 62)
      return access::binary(b_, r_.chance(0.5) ? ir::op::logical_and : ir::op::logical_or, sub(want::boolean),
                            sub(want::boolean));
    if (x < 72)
      return access::unary(b_, ir::op::logical_not, sub(want::boolean), dtype::boolean, dtype::boolean);
    if (x < 80)
      return access::binary(b_, r_.chance(0.5) ? ir::op::min : ir::op::max, sub(want::boolean),
                            sub(want::boolean));
    if (x < 90) return access::unary(b_, ir::op::cast, sub(want::numeric), dtype::boolean, dtype::boolean);
    return where(sub(want::boolean), sub(want::boolean), sub(want::boolean));
  }

  // where(c, a, b) with one branch type: cast the second branch when the
  // builder's literal rule does not already make them agree.
  operand where(operand c, operand a, operand b) {
    dtype ta = a.type.type, tb = b.type.type;
    if (a.type.power == strength::literal && b.type.power != strength::literal &&
        category_of(ta) <= category_of(tb))
      ta = tb;
    if (b.type.power == strength::literal && a.type.power != strength::literal &&
        category_of(tb) <= category_of(ta))
      tb = ta;
    if (a.type.power == strength::literal && b.type.power == strength::literal) ta = tb = promote(ta, tb);
    if (ta != tb) b = access::unary(b_, ir::op::cast, b, ta, ta);
    return access::where(b_, c, a, b);
  }

  detail::builder_state b_;
};

}  // namespace

generated_program generate_program(std::uint64_t seed) {
  // One program in five through the public API.
  if (seed % 5 == 4) return generate_typed_program(seed);
  return dynamic_generator(seed).run(seed);
}

std::vector<typed_array> make_buffers(const generated_program& g, std::uint64_t seed) {
  rng r(seed ^ 0x5eed5eed5eed5eedull);
  std::vector<typed_array> out;
  for (const auto& b : g.user.buffers) {
    const auto n = b.domain < 0 ? 1 : g.inputs.extents.at(static_cast<std::size_t>(b.domain));
    auto& a = out.emplace_back(b.type, n);
    for (std::size_t i = 0; i < n; ++i) a.set(i, random_value(r, b.type));
  }
  return out;
}

std::string describe(const options& o) {
  std::string s = o.sync == sync_policy::automatic   ? "automatic"
                  : o.sync == sync_policy::unchecked ? "unchecked"
                                                     : "checked";
  if (!o.fusion) s += " | no_fusion";
  if (o.placement == placement_policy::relaxed) s += " | relaxed";
  if (o.placement == placement_policy::as_written) s += " | as_written";
  return s;
}

std::string generated_program::describe() const {
  std::ostringstream out;
  const auto v = ir::view_of(user);
  out << "// seed " << seed << ", " << family << " program, options " << random_test::describe(opts)
      << (racy ? ", races as written" : "") << "\n";
  out << "domains:";
  for (std::size_t d = 0; d < v.domains.size(); ++d)
    out << ' ' << v.domain_name(static_cast<std::int32_t>(d)) << '=' << inputs.extents.at(d);
  out << "\nstreams:";
  for (std::size_t s = 0; s < v.streams.size(); ++s)
    out << ' ' << v.stream_name(static_cast<std::int32_t>(s));
  out << "\nevents:";
  for (std::size_t e = 0; e < v.events.size(); ++e) out << ' ' << v.event_name(static_cast<std::int32_t>(e));
  out << '\n';
  for (std::size_t b = 0; b < v.buffers.size(); ++b) {
    const auto& info = v.buffers[b];
    out << ir::name_of(info.kind) << ' ' << name_of(info.type) << ' '
        << v.buffer_name(static_cast<std::int32_t>(b)) << '[' << v.domain_name(info.domain) << "]\n";
  }
  for (std::size_t p = 0; p < v.params.size(); ++p)
    out << "param " << name_of(v.params[p].type) << ' ' << v.name(v.params[p].name) << " = "
        << inputs.params.at(p).to_string() << '\n';
  for (std::size_t i = 0; i < v.stmts.size(); ++i) {
    out << '#' << i << " [" << v.stream_name(v.stmts[i].stream) << "] "
        << ir::statement_text(v, v.stmts[i]).view() << '\n';
  }
  if (race.buffer >= 0)
    out << "first race as written: buffer " << v.buffer_name(race.buffer) << ", #" << race.first << " and #"
        << race.second << '\n';
  return out.str();
}

}  // namespace streamdsl::random_test
