// The "typed" family: programs written through the public API, as users
// write them (sd::builder handles, expression templates, sd::with_stream with
// nested scopes, event and stream handles, compound assignment), with the
// structure chosen at run time. Element types are fixed by the C++ types
// (float computations over float, int32 and double inputs); the dynamic
// family covers the other dtypes.
#include <optional>
#include <streamdsl/streamdsl.hpp>

#include "generator_base.hpp"

namespace streamdsl::random_test {

namespace {

using namespace generator_detail;
using fexpr = expr<float, strength::tensor>;

class typed_generator : public generator_base {
 public:
  using generator_base::generator_base;

  generated_program run(std::uint64_t seed) {
    generated_program g;
    g.seed = seed;
    g.family = "typed";
    choose_policy(g);
    declare(g);
    model_ = std::make_unique<order_model>(b_.ir().streams.size(), b_.ir().buffers.size());
    const auto statements = r_.between(3, 30);
    while (statements_ < statements) block(0, ir::main_stream);
    finish(g);
    g.user = b_.ir();
    return g;
  }

 private:
  // Which float-valued handle a leaf is.
  enum class kind { in, io, out, tmp, in_int, in_double };
  struct leaf_ref {
    kind k;
    std::size_t i;
  };

  detail::builder_state& state() override { return detail::builder_access::state(b_); }
  void emit_record(std::int32_t stream, std::int32_t event) override {
    in_stream(stream, [&] { events_[static_cast<std::size_t>(event)].record(); });
  }
  void emit_wait(std::int32_t stream, std::int32_t event) override {
    in_stream(stream, [&] { events_[static_cast<std::size_t>(event)].wait(); });
  }
  void emit_wait_stream(std::int32_t waiter, std::int32_t waited) override {
    streams_[static_cast<std::size_t>(waiter)].wait_stream(streams_[static_cast<std::size_t>(waited)]);
  }
  // Runs f with `stream` current: in a nested scope unless it already is.
  template <class F>
  void in_stream(std::int32_t stream, F f) {
    if (detail::builder_access::current_stream(state()) == stream)
      f();
    else
      with_stream(streams_[static_cast<std::size_t>(stream)], f);
  }

  void declare(generated_program& g) {
    streams_.push_back(b_.main_stream());
    const auto streams = random_stream_count(4);
    constexpr const char* stream_names[] = {"", "copy", "compute", "side"};
    for (std::size_t s = 1; s < streams; ++s) streams_.push_back(b_.stream(stream_names[s]));
    constexpr const char* event_names[] = {"ready", "done", "again"};
    const auto events = 1 + r_.below(3);
    for (std::size_t e = 0; e < events; ++e) events_.push_back(b_.event(event_names[e]));
    g.inputs.extents.push_back(random_extent(r_));
    const auto m = b_.domain("m");
    g.inputs.extents.push_back(random_extent(r_));

    in_.push_back(b_.input<float>("x"));
    in_.push_back(b_.input<float>("w"));
    in_.push_back(b_.input<float>("s", sd::scalar));
    in_.push_back(b_.input<float>("u", m));
    io_.push_back(b_.inout<float>("acc"));
    io_.push_back(b_.inout<float>("mv", m));
    out_.push_back(b_.output<float>("y"));
    out_.push_back(b_.output<float>("z"));
    out_.push_back(b_.output<float>("total", sd::scalar));
    out_.push_back(b_.output<float>("v", m));
    tmp_.push_back(b_.temp<float>("t"));
    tmp_.push_back(b_.temp<float>("h"));
    tmp_.push_back(b_.temp<float>("k", m));
    in_int_.push_back(b_.input<std::int32_t>("count"));
    in_double_.push_back(b_.input<double>("scale", sd::scalar));
    alpha_.emplace(b_.param<float>("alpha"));
    g.inputs.params.push_back(random_value(r_, dtype::float32));
  }

  std::int32_t id_of(leaf_ref l) const {
    switch (l.k) {
      case kind::in: return in_[l.i].id();
      case kind::io: return io_[l.i].id();
      case kind::out: return out_[l.i].id();
      case kind::tmp: return tmp_[l.i].id();
      case kind::in_int: return in_int_[l.i].id();
      case kind::in_double: return in_double_[l.i].id();
    }
    return -1;
  }
  std::int32_t domain_of(leaf_ref l) const {
    return b_.ir().buffers[static_cast<std::size_t>(id_of(l))].domain;
  }
  bool readable(leaf_ref l) const {
    return l.k == kind::in || l.k == kind::io || l.k == kind::in_int || l.k == kind::in_double ||
           model_->written(ir::whole(id_of(l)));
  }

  // Calls f(handle) for a random float-valued leaf of the domain (or 0-d):
  // a float buffer, or an int32 / double input cast to float.
  template <class F>
  fexpr with_leaf(std::int32_t domain, F&& f) {
    std::vector<leaf_ref> options;
    auto add = [&](kind k, std::size_t n) {
      for (std::size_t i = 0; i < n; ++i) {
        const leaf_ref l{k, i};
        const auto d = domain_of(l);
        if ((d == domain || d < 0) && readable(l)) options.push_back(l);
      }
    };
    add(kind::in, in_.size());
    add(kind::io, io_.size());
    add(kind::out, out_.size());
    add(kind::tmp, tmp_.size());
    add(kind::in_int, in_int_.size());
    add(kind::in_double, in_double_.size());
    const auto l = r_.pick(options);  // never empty: "s" is a 0-d input
    switch (l.k) {
      case kind::in: return f(in_[l.i]);
      case kind::io: return f(io_[l.i]);
      case kind::out: return f(out_[l.i]);
      case kind::tmp: return f(tmp_[l.i]);
      case kind::in_int: return f(sd::cast<float>(in_int_[l.i]));
      case kind::in_double: return f(sd::cast<float>(in_double_[l.i]));
    }
    return f(in_[0]);
  }

  template <class A, class B>
  fexpr combine(const A& a, const B& b) {
    switch (r_.below(6)) {
      case 0: return a + b;
      case 1: return a - b;
      case 2: return a * b;
      case 3: return a / b;
      case 4: return sd::min(a, b);
      default: return sd::max(a, b);
    }
  }

  // A float expression over `domain` (0-d leaves broadcast).
  fexpr expression(int depth, std::int32_t domain) {
    if (depth <= 0)
      return with_leaf(domain, [&](const auto& a) {
        return with_leaf(domain, [&](const auto& b) { return combine(a, b); });
      });
    const auto x = r_.below(100);
    if (x < 30) {
      const auto a = expression(depth - 1, domain);
      return combine(a, expression(depth - 1, domain));
    }
    if (x < 45)
      return with_leaf(domain,
                       [&](const auto& leaf) { return combine(expression(depth - 1, domain), leaf); });
    if (x < 60) {
      const auto a = expression(depth - 1, domain);
      switch (r_.below(6)) {
        case 0: return a * *alpha_;
        case 1: return a + 0.25f;
        case 2: return a * 2.5;  // a weak double literal: stays float
        case 3: return 1.5f - a;
        case 4: return a / 3;
        default: return -a;
      }
    }
    if (x < 75) {
      const auto a = expression(depth - 1, domain);
      switch (r_.below(5)) {
        case 0: return sd::abs(a);
        case 1: return sd::relu(a);
        case 2: return sd::sigmoid(a);
        case 3: return sd::tanh(a);
        default: return sd::sqrt(sd::abs(a));
      }
    }
    const auto a = expression(depth - 1, domain);
    const auto b = expression(depth - 1, domain);
    const auto c = expression(depth - 1, domain);
    switch (r_.below(3)) {
      case 0: return sd::where(a > b, c, 0.0f);
      case 1: return sd::where(a < 1 && b >= c, a, c);
      default: return sd::where(!(a == b), b, c);
    }
  }

  // Nested stream scopes, each a few statements, syncs and inner scopes.
  void block(int depth, std::int32_t current) {
    const auto n = r_.between(1, 6);
    for (std::int64_t k = 0; k < n; ++k) {
      const auto x = r_.below(100);
      if (x < 18 && depth < 3) {
        const auto s = static_cast<std::int32_t>(r_.below(streams_.size()));
        sd::with_stream(streams_[static_cast<std::size_t>(s)], [&] { block(depth + 1, s); });
      } else if (x < 28) {
        random_sync(current);
      } else {
        statement(current);
      }
    }
  }

  void statement(std::int32_t current) {
    // Targets: outputs, inouts and temps.
    std::vector<leaf_ref> targets;
    for (std::size_t i = 0; i < io_.size(); ++i) targets.push_back({kind::io, i});
    for (std::size_t i = 0; i < out_.size(); ++i) targets.push_back({kind::out, i});
    for (std::size_t i = 0; i < tmp_.size(); ++i) targets.push_back({kind::tmp, i});
    const auto target = r_.pick(targets);
    const auto id = id_of(target);
    model_->observe(b_.ir());
    const auto value = expression(static_cast<int>(r_.below(3)), domain_of(target));
    // Compound assignment reads the target: only once it holds a value.
    const bool compound = readable(target) && r_.chance(0.3);
    std::vector<ir::region> reads;
    regions_loaded(b_.ir(), value.node, reads);
    if (compound) reads.push_back(ir::whole(id));
    order_before(current, reads, {ir::whole(id)});
    auto write = [&](auto& handle) {
      if (!compound) {
        handle = value;
        return;
      }
      switch (r_.below(4)) {
        case 0: handle += value; break;
        case 1: handle -= value; break;
        case 2: handle *= value; break;
        default: handle /= value; break;
      }
    };
    switch (target.k) {
      case kind::io: write(io_[target.i]); break;
      case kind::out: write(out_[target.i]); break;
      case kind::tmp: write(tmp_[target.i]); break;
      default: break;
    }
    if (b_.ir().stmts.back().stream != current)
      throw std::logic_error("typed generator: statement on the wrong stream");
    ++statements_;
  }

  sd::builder b_;
  std::vector<sd::stream> streams_;
  std::vector<sd::event> events_;
  std::vector<sd::input<float>> in_;
  std::vector<sd::inout<float>> io_;
  std::vector<sd::output<float>> out_;
  std::vector<sd::temp<float>> tmp_;
  std::vector<sd::input<std::int32_t>> in_int_;
  std::vector<sd::input<double>> in_double_;
  std::optional<sd::param<float>> alpha_;  // declared in declare(): handles are not assigned
  std::int64_t statements_ = 0;
};

}  // namespace

generated_program generate_typed_program(std::uint64_t seed) { return typed_generator(seed).run(seed); }

}  // namespace streamdsl::random_test
