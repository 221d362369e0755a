#include "program_generator.hpp"

#include <cmath>
#include <deque>
#include <memory>
#include <limits>
#include <sstream>
#include <stdexcept>

#include <streamdsl/detail/builder_state.hpp>
#include <streamdsl/ir/render.hpp>

namespace streamdsl::random_test {

namespace {

using detail::operand;

constexpr dtype host_dtypes[] = {dtype::boolean, dtype::int32, dtype::int64, dtype::float32, dtype::float64};

dtype random_dtype(rng& r) {
  const auto x = r.below(100);
  if (x < 35) return dtype::float32;
  if (x < 50) return dtype::float64;
  if (x < 70) return dtype::int32;
  if (x < 85) return dtype::int64;
  return dtype::boolean;
}

// A value of type t for an input, an output's initial contents or a param:
// mostly small and exact (so long chains stay finite and distinct), some
// arbitrary, a few edge cases (signed zero, infinities, extremes, NaN).
scalar random_value(rng& r, dtype t) {
  const auto x = r.below(100);
  switch (t) {
    case dtype::boolean: return scalar::of(r.chance(0.5));
    case dtype::int32:
      if (x < 4) {
        constexpr std::int32_t edges[] = {0, -1, std::numeric_limits<std::int32_t>::min(),
                                          std::numeric_limits<std::int32_t>::max()};
        return scalar::of(edges[r.below(4)]);
      }
      return scalar::of(static_cast<std::int32_t>(r.between(-20, 20)));
    case dtype::int64:
      if (x < 4) {
        constexpr std::int64_t edges[] = {0, -1, std::numeric_limits<std::int64_t>::min(),
                                          std::numeric_limits<std::int64_t>::max()};
        return scalar::of(edges[r.below(4)]);
      }
      return scalar::of(static_cast<std::int64_t>(r.between(-1000, 1000)));
    default: {
      double v;
      if (x < 65) {
        v = static_cast<double>(r.between(-32, 32)) / 8;
      } else if (x < 95) {
        v = static_cast<double>(r.next() >> 11) * 0x1.0p-53 * 8 - 4;
      } else {
        constexpr double edges[] = {-0.0, 1e30, -1e30, 1e-40, std::numeric_limits<double>::infinity(),
                                    std::numeric_limits<double>::quiet_NaN()};
        v = edges[r.below(6)];
      }
      return t == dtype::float32 ? scalar::of(static_cast<float>(v)) : scalar::of(v);
    }
  }
}

// What the generator does for a sync an access needs.
enum class sync_choice { fresh_record, reuse_record, wait_stream };

// Shared by both families: declarations are done, statements are appended
// through `emit_*` hooks that each family implements its own way.
class generator_base {
 public:
  generator_base(std::uint64_t seed) : r_(seed) {}
  virtual ~generator_base() = default;

 protected:
  virtual detail::builder_state& state() = 0;
  virtual void emit_record(std::int32_t stream, std::int32_t event) = 0;
  virtual void emit_wait(std::int32_t stream, std::int32_t event) = 0;
  virtual void emit_wait_stream(std::int32_t waiter, std::int32_t waited) = 0;

  void choose_policy(generated_program& g) {
    automatic_ = r_.chance(0.45);
    if (automatic_) {
      constexpr double keep[] = {0.0, 0.3, 0.6, 0.9};
      keep_probability_ = keep[r_.below(4)];
    }
    g.opts.sync = automatic_ ? sync_policy::automatic : sync_policy::checked;
    g.opts.fusion = !r_.chance(0.2);
    g.opts.placement = r_.chance(0.25) ? placement_policy::relaxed : placement_policy::strict;
  }

  std::size_t random_stream_count() {
    const auto x = r_.below(100);
    return x < 10 ? 1 : x < 45 ? 2 : x < 80 ? 3 : 4;
  }

  static std::size_t random_extent(rng& r) {
    constexpr std::size_t favourites[] = {1, 2, 3, 5, 8, 16, 17, 31, 32, 33, 64};
    return r.chance(0.6) ? favourites[r.below(11)] : static_cast<std::size_t>(r.between(1, 50));
  }

  // Before a statement on `s` that reads `reads` and writes `target`: the
  // syncs it needs (all of them for sd::checked, some for sd::automatic).
  void order_before(std::int32_t s, const std::vector<std::int32_t>& reads, std::int32_t target) {
    std::vector<std::int32_t> skipped;
    for (;;) {
      model_->observe(state().ir);
      std::vector<std::int32_t> pending;
      for (auto t : model_->unordered_streams(s, reads, target)) {
        bool skip = false;
        for (auto k : skipped) skip = skip || k == t;
        if (!skip) pending.push_back(t);
      }
      if (pending.empty()) return;
      const auto t = r_.pick(pending);
      if (automatic_ && !r_.chance(keep_probability_)) {
        skipped.push_back(t);
        ++syncs_left_out_;
        continue;
      }
      sync_with(s, t, reads, target);
    }
  }

  void sync_with(std::int32_t s, std::int32_t t, const std::vector<std::int32_t>& reads, std::int32_t target) {
    auto& b = state();
    std::vector<std::int32_t> covering;  // events whose latest record already captured the accesses
    for (std::int32_t e = 0; e < static_cast<std::int32_t>(b.last_record.size()); ++e) {
      const auto rec = b.last_record[static_cast<std::size_t>(e)];
      if (rec >= 0 && b.ir.stmts[static_cast<std::size_t>(rec)].stream == t &&
          model_->record_covers(static_cast<std::size_t>(rec), s, reads, target, t))
        covering.push_back(e);
    }
    const auto events = static_cast<std::int32_t>(b.ir.events.size());
    sync_choice c = sync_choice::wait_stream;
    if (!covering.empty() && r_.chance(0.4))
      c = sync_choice::reuse_record;
    else if (events > 0 && r_.chance(0.7))
      c = sync_choice::fresh_record;
    switch (c) {
      case sync_choice::reuse_record: emit_wait(s, r_.pick(covering)); break;
      case sync_choice::fresh_record: {
        const auto e = static_cast<std::int32_t>(r_.below(static_cast<std::size_t>(events)));
        emit_record(t, e);  // may re-record an event: later waits bind to this record
        emit_wait(s, e);
        break;
      }
      case sync_choice::wait_stream: emit_wait_stream(s, t); break;
    }
  }

  // A sync nothing needs (yet): extra ordering, often redundant, sometimes
  // rebinding an event that a later sync then reuses.
  void random_sync(std::int32_t current) {
    auto& b = state();
    const auto streams = b.ir.streams.size();
    const auto events = b.ir.events.size();
    const auto x = r_.below(3);
    if (x == 0 && events > 0) {
      emit_record(current, static_cast<std::int32_t>(r_.below(events)));
    } else if (x == 1 && events > 0) {
      std::vector<std::int32_t> recorded;
      for (std::size_t e = 0; e < events; ++e)
        if (b.last_record[e] >= 0) recorded.push_back(static_cast<std::int32_t>(e));
      if (!recorded.empty()) emit_wait(current, r_.pick(recorded));
    } else {
      // wait_stream on itself is allowed (and a no-op); keep it rare.
      auto other = static_cast<std::int32_t>(r_.below(streams));
      if (other == current && streams > 1 && r_.chance(0.8)) other = (other + 1) % static_cast<std::int32_t>(streams);
      emit_wait_stream(current, other);
    }
  }

  void finish(generated_program& g) {
    model_->observe(state().ir);
    g.racy = model_->races() > 0;
    g.race = model_->first_race();
    g.syncs_left_out = syncs_left_out_;
    if (!automatic_ && g.racy) throw std::logic_error("generator: an sd::checked program races (generator bug)");
  }

  rng r_;
  bool automatic_ = false;
  double keep_probability_ = 1;
  std::size_t syncs_left_out_ = 0;
  std::unique_ptr<order_model> model_;
};

// --- the dynamic family ---------------------------------------------------------

class dynamic_generator : public generator_base {
 public:
  using generator_base::generator_base;

  generated_program run(std::uint64_t seed) {
    generated_program g;
    g.seed = seed;
    g.family = "dynamic";
    choose_policy(g);
    declare(g);
    model_ = std::make_unique<order_model>(b_.ir.streams.size(), b_.ir.buffers.size());
    write_statements();
    finish(g);
    g.user = b_.ir;
    return g;
  }

 private:
  enum class want { numeric, boolean };

  detail::builder_state& state() override { return b_; }
  void emit_record(std::int32_t stream, std::int32_t event) override {
    const auto saved = b_.current_stream;
    b_.current_stream = stream;
    b_.record(event);
    b_.current_stream = saved;
  }
  void emit_wait(std::int32_t stream, std::int32_t event) override {
    const auto saved = b_.current_stream;
    b_.current_stream = stream;
    b_.wait(event);
    b_.current_stream = saved;
  }
  void emit_wait_stream(std::int32_t waiter, std::int32_t waited) override { b_.wait_stream(waiter, waited); }

  void declare(generated_program& g) {
    const auto streams = random_stream_count();
    for (std::size_t s = 1; s < streams; ++s) b_.add_stream(keep("s" + std::to_string(s)));
    g.inputs.extents.push_back(random_extent(r_));
    const auto domains = 1 + r_.below(3);
    for (std::size_t d = 1; d < domains; ++d) {
      b_.add_domain(keep("d" + std::to_string(d)));
      g.inputs.extents.push_back(random_extent(r_));
    }
    auto declare_buffers = [&](ir::access kind, const char* prefix, std::size_t lo, std::size_t hi) {
      const auto n = lo + r_.below(hi - lo + 1);
      for (std::size_t i = 0; i < n; ++i) {
        const auto domain = r_.chance(0.15) ? -1 : static_cast<std::int32_t>(r_.below(domains) * r_.below(2));
        b_.add_buffer(keep(prefix + std::to_string(i)), kind, random_dtype(r_), domain);
      }
    };
    declare_buffers(ir::access::input, "in", 1, 4);
    declare_buffers(ir::access::inout, "io", 0, 2);
    declare_buffers(ir::access::output, "out", 1, 4);
    declare_buffers(ir::access::temp, "t", 0, 4);
    const auto params = r_.below(3);
    for (std::size_t i = 0; i < params; ++i) {
      const auto t = random_dtype(r_);
      b_.add_param(keep("p" + std::to_string(i)), t);
      g.inputs.params.push_back(random_value(r_, t));
    }
    const auto events = r_.below(4);
    for (std::size_t i = 0; i < events; ++i) b_.add_event(keep("e" + std::to_string(i)));
  }

  // Names passed to the builder must outlive it: it keeps views of them to
  // reject duplicates.
  std::string_view keep(std::string s) { return names_.emplace_back(std::move(s)); }

  void write_statements() {
    const auto assigns = r_.chance(0.1) ? r_.between(25, 60) : r_.between(2, 24);
    std::vector<std::int32_t> scopes;
    const auto streams = b_.ir.streams.size();
    for (std::int64_t done = 0; done < assigns;) {
      const auto current = scopes.empty() ? ir::main_stream : scopes.back();
      b_.current_stream = current;
      const auto x = r_.below(100);
      if (x < 10 && scopes.size() < 3) {
        scopes.push_back(static_cast<std::int32_t>(r_.below(streams)));  // nested scope
      } else if (x < 20 && !scopes.empty()) {
        scopes.pop_back();
      } else if (x < 28) {
        random_sync(current);
      } else {
        assign(current);
        ++done;
      }
    }
  }

  bool readable(std::int32_t buffer) const {
    const auto kind = b_.ir.buffers[static_cast<std::size_t>(buffer)].kind;
    return kind == ir::access::input || kind == ir::access::inout || model_->written(buffer);
  }

  void assign(std::int32_t stream) {
    std::vector<std::int32_t> targets;
    for (std::int32_t i = 0; i < static_cast<std::int32_t>(b_.ir.buffers.size()); ++i)
      if (b_.ir.buffers[static_cast<std::size_t>(i)].kind != ir::access::input) targets.push_back(i);
    const auto target = r_.pick(targets);
    const auto& info = b_.ir.buffers[static_cast<std::size_t>(target)];
    model_->observe(b_.ir);
    operand value = expression(category_of(info.type) == dtype_category::boolean || r_.chance(0.1) ? want::boolean : want::numeric,
                               static_cast<int>(r_.below(4)), info.domain, target);
    if (!assignable(info.type, value.type.type) || r_.chance(0.1))
      value = b_.unary(ir::op::cast, value, info.type, info.type);
    std::vector<std::int32_t> reads;
    loads_of(b_.ir, value.node, reads);
    order_before(stream, reads, target);
    b_.current_stream = stream;
    b_.assign(target, value);
  }

  // Leaves: buffers of the statement's domain (or 0-d) that hold values.
  std::vector<std::int32_t> leaf_buffers(std::int32_t domain, bool boolean, std::int32_t target) const {
    std::vector<std::int32_t> out;
    for (std::int32_t i = 0; i < static_cast<std::int32_t>(b_.ir.buffers.size()); ++i) {
      const auto& info = b_.ir.buffers[static_cast<std::size_t>(i)];
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
    for (std::int32_t i = 0; i < static_cast<std::int32_t>(b_.ir.params.size()); ++i)
      if ((b_.ir.params[static_cast<std::size_t>(i)].type == dtype::boolean) == boolean) out.push_back(i);
    return out;
  }

  operand literal(bool boolean) {
    if (boolean) {
      const bool v = r_.chance(0.5);
      return b_.literal(dtype::boolean, v ? 1.0 : 0.0, v ? 1 : 0);
    }
    const auto x = r_.below(100);
    if (x < 35) {
      const auto v = r_.between(-8, 8);
      return b_.literal(dtype::int32, static_cast<double>(v), v);
    }
    if (x < 40) {
      const auto v = r_.between(-100000, 100000) * 100000;
      return b_.literal(dtype::int64, static_cast<double>(v), v);
    }
    // Floating literals as the front end makes them: a float literal holds a
    // float value, a double literal any double.
    if (x < 70) {
      const float v = static_cast<float>(r_.between(-40, 40)) / 8;
      return b_.literal(dtype::float32, static_cast<double>(v), static_cast<std::int64_t>(v));
    }
    const double v = r_.chance(0.5) ? static_cast<double>(r_.between(-40, 40)) / 8
                                    : static_cast<double>(r_.between(-1000, 1000)) / 7;
    return b_.literal(dtype::float64, v, static_cast<std::int64_t>(v));
  }

  operand leaf(want w, std::int32_t domain, std::int32_t target) {
    const bool boolean = w == want::boolean;
    const auto buffers = leaf_buffers(domain, boolean, target);
    const auto params = leaf_params(boolean);
    const auto x = r_.below(100);
    if (x < 65 && !buffers.empty()) return b_.load(r_.pick(buffers));
    if (x < 80 && !params.empty()) return b_.param(r_.pick(params));
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
      constexpr ir::op codes[] = {ir::op::add, ir::op::sub, ir::op::mul, ir::op::div, ir::op::min, ir::op::max};
      return b_.binary(codes[r_.below(6)], sub(want::numeric), sub(want::numeric));
    }
    if (x < 50) {
      // A bool operand in arithmetic with a number promotes to the number's type.
      constexpr ir::op codes[] = {ir::op::add, ir::op::mul, ir::op::sub};
      const auto a = sub(want::numeric);
      const auto b = sub(want::boolean);
      return r_.chance(0.5) ? b_.binary(codes[r_.below(3)], a, b) : b_.binary(codes[r_.below(3)], b, a);
    }
    if (x < 62) {
      constexpr ir::op codes[] = {ir::op::neg, ir::op::abs, ir::op::relu};
      const auto a = sub(want::numeric);
      return b_.unary(codes[r_.below(3)], a, a.type.type, a.type.type);
    }
    if (x < 74) {
      constexpr ir::op codes[] = {ir::op::exp, ir::op::log, ir::op::sqrt, ir::op::rsqrt,
                                  ir::op::sin, ir::op::cos, ir::op::tanh, ir::op::sigmoid};
      const auto a = sub(want::numeric);
      const auto t = category_of(a.type.type) == dtype_category::floating ? a.type.type : dtype::float32;
      return b_.unary(codes[r_.below(8)], a, t, t);
    }
    if (x < 84) {
      const auto t = host_dtypes[1 + r_.below(4)];
      return b_.unary(ir::op::cast, sub(r_.chance(0.3) ? want::boolean : want::numeric), t, t);
    }
    return where(sub(want::boolean), sub(want::numeric), sub(want::numeric));
  }

  operand boolean(int depth, std::int32_t domain, std::int32_t target) {
    const auto x = r_.below(100);
    auto sub = [&](want w) { return expression(w, depth - 1, domain, target); };
    if (x < 45) {
      constexpr ir::op codes[] = {ir::op::lt, ir::op::le, ir::op::gt, ir::op::ge, ir::op::eq, ir::op::ne};
      return b_.binary(codes[r_.below(6)], sub(want::numeric), sub(want::numeric));
    }
    if (x < 62) return b_.binary(r_.chance(0.5) ? ir::op::logical_and : ir::op::logical_or, sub(want::boolean), sub(want::boolean));
    if (x < 72) return b_.unary(ir::op::logical_not, sub(want::boolean), dtype::boolean, dtype::boolean);
    if (x < 80) return b_.binary(r_.chance(0.5) ? ir::op::min : ir::op::max, sub(want::boolean), sub(want::boolean));
    if (x < 90) return b_.unary(ir::op::cast, sub(want::numeric), dtype::boolean, dtype::boolean);
    return where(sub(want::boolean), sub(want::boolean), sub(want::boolean));
  }

  // where(c, a, b) with one branch type: cast the second branch when the
  // builder's literal rule does not already make them agree.
  operand where(operand c, operand a, operand b) {
    dtype ta = a.type.type, tb = b.type.type;
    if (a.type.power == strength::literal && b.type.power != strength::literal && category_of(ta) <= category_of(tb)) ta = tb;
    if (b.type.power == strength::literal && a.type.power != strength::literal && category_of(tb) <= category_of(ta)) tb = ta;
    if (a.type.power == strength::literal && b.type.power == strength::literal) ta = tb = promote(ta, tb);
    if (ta != tb) b = b_.unary(ir::op::cast, b, ta, ta);
    return b_.where(c, a, b);
  }

  detail::builder_state b_;
  std::deque<std::string> names_;
};

}  // namespace

generated_program generate_program(std::uint64_t seed) {
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
  std::string s = o.sync == sync_policy::automatic ? "automatic" : o.sync == sync_policy::unchecked ? "unchecked" : "checked";
  if (!o.fusion) s += " | no_fusion";
  if (o.placement == placement_policy::relaxed) s += " | relaxed";
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
  for (std::size_t s = 0; s < v.streams.size(); ++s) out << ' ' << v.stream_name(static_cast<std::int32_t>(s));
  out << "\nevents:";
  for (std::size_t e = 0; e < v.events.size(); ++e) out << ' ' << v.event_name(static_cast<std::int32_t>(e));
  out << '\n';
  for (std::size_t b = 0; b < v.buffers.size(); ++b) {
    const auto& info = v.buffers[b];
    out << ir::name_of(info.kind) << ' ' << name_of(info.type) << ' ' << v.buffer_name(static_cast<std::int32_t>(b))
        << '[' << v.domain_name(info.domain) << "]\n";
  }
  for (std::size_t p = 0; p < v.params.size(); ++p)
    out << "param " << name_of(v.params[p].type) << ' ' << v.name(v.params[p].name) << " = "
        << inputs.params.at(p).to_string() << '\n';
  for (std::size_t i = 0; i < v.stmts.size(); ++i) {
    out << '#' << i << " [" << v.stream_name(v.stmts[i].stream) << "] " << ir::statement_text(v, v.stmts[i]).view()
        << '\n';
  }
  if (race.buffer >= 0)
    out << "first race as written: buffer " << v.buffer_name(race.buffer) << ", #" << race.first << " and #"
        << race.second << '\n';
  return out.str();
}

}  // namespace streamdsl::random_test
