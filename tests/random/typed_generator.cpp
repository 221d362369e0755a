// The "typed" family: programs written through the public API, as users
// write them (sd::builder handles, expression templates, sd::with_stream with
// nested scopes, event and stream handles, compound assignment), with the
// structure chosen at run time. Element types are fixed by the C++ types
// (float computations over float, int32 and double inputs; the int32 input
// through %, the bitwise operators and shifts first, now and then); the
// dynamic family covers the other dtypes.
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
    // Half the programs cut buffers into chunks (extents that several chunk
    // counts divide) and copy buffers and chunks.
    chunks_ = r_.chance(0.5);
    copies_ = r_.chance(0.5);
    auto extent = [&] { return chunks_ ? chunk_friendly_extent(r_) : random_extent(r_); };
    g.inputs.extents.push_back(extent());
    const auto m = b_.domain("m");
    g.inputs.extents.push_back(extent());
    extents_ = g.inputs.extents;
    for (auto n : g.inputs.extents)
      counts_.push_back(chunks_ ? chunk_counts_of(n) : std::vector<std::int32_t>{});

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
  bool readable(leaf_ref l) const { return readable(l, ir::whole(id_of(l))); }
  bool readable(leaf_ref l, const ir::region& r) const {
    return l.k == kind::in || l.k == kind::io || l.k == kind::in_int || l.k == kind::in_double ||
           model_->written(r);
  }

  // Calls f with the handle of l, or its chunk when r is one.
  template <class F>
  auto with_region(leaf_ref l, const ir::region& r, F&& f) {
    auto go = [&](const auto& h) {
      if (r.parts > 1) return f(h.chunk(r.part, r.parts));
      return f(h);
    };
    switch (l.k) {
      case kind::io: return go(io_[l.i]);
      case kind::out: return go(out_[l.i]);
      case kind::tmp: return go(tmp_[l.i]);
      case kind::in_int: return go(in_int_[l.i]);
      case kind::in_double: return go(in_double_[l.i]);
      default: return go(in_[l.i]);
    }
  }

  // Calls f(leaf) for a random float-valued leaf of the domain (or 0-d): a
  // float buffer, or an int32 / double input cast to float; in a chunked
  // statement (shape_parts_ > 1) a chunk of the buffer with that many parts
  // (the statement's own part most often), 0-d buffers whole.
  template <class F>
  fexpr with_leaf(std::int32_t domain, F&& f) {
    std::vector<std::pair<leaf_ref, ir::region>> options;
    auto add = [&](kind k, std::size_t n) {
      for (std::size_t i = 0; i < n; ++i) {
        const leaf_ref l{k, i};
        const auto d = domain_of(l);
        if (d != domain && d >= 0) continue;
        if (d < 0 || shape_parts_ == 1) {
          if (readable(l)) options.emplace_back(l, ir::whole(id_of(l)));
          continue;
        }
        for (std::int32_t part = 0; part < shape_parts_; ++part) {
          const ir::region r{id_of(l), part, shape_parts_};
          if (!readable(l, r)) continue;
          options.emplace_back(l, r);
          if (part == shape_part_) options.emplace_back(l, r);
        }
      }
    };
    add(kind::in, in_.size());
    add(kind::io, io_.size());
    add(kind::out, out_.size());
    add(kind::tmp, tmp_.size());
    add(kind::in_int, in_int_.size());
    add(kind::in_double, in_double_.size());
    if (prefer_.buffer >= 0 && r_.chance(0.4))
      for (const auto& o : options)
        if (o.second == prefer_)
          return with_region(o.first, o.second, [&](const auto& h) { return as_float(h, f); });
    const auto o = r_.pick(options);  // never empty: "s" is a 0-d input
    return with_region(o.first, o.second, [&](const auto& h) { return as_float(h, f); });
  }
  template <class H, class F>
  fexpr as_float(const H& h, F& f) {
    if constexpr (std::is_same_v<typename H::value_type, float>) {
      return f(h);
    } else if constexpr (std::is_same_v<typename H::value_type, std::int32_t>) {
      switch (r_.below(10)) {  // integer operators before the conversion
        case 0: return f(sd::cast<float>(h % 7));
        case 1: return f(sd::cast<float>((h << 3) ^ h));
        case 2: return f(sd::cast<float>((h >> 1) | (h & 12)));
        case 3: return f(sd::cast<float>(~h));
        case 4: return f(sd::cast<float>(sd::pow(h, 3) >> (h % 40)));
        default: return f(sd::cast<float>(h));
      }
    } else {
      return f(sd::cast<float>(h));
    }
  }

  template <class A, class B>
  fexpr combine(const A& a, const B& b) {
    switch (r_.below(8)) {
      case 0: return a + b;
      case 1: return a - b;
      case 2: return a * b;
      case 3: return a / b;
      case 4: return sd::min(a, b);
      case 5: return sd::fmod(a, b);
      case 6: return sd::pow(sd::abs(a), b);
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
      switch (r_.below(13)) {
        case 0: return sd::abs(a);
        case 1: return sd::relu(a);
        case 2: return sd::sigmoid(a);
        case 3: return sd::tanh(a);
        case 4: return sd::floor(a);
        case 5: return sd::ceil(a);
        case 6: return sd::round(a);
        case 7: return sd::erf(a);
        case 8: return sd::gelu(a);
        case 9: return sd::gelu_tanh(a);
        case 10: return sd::exp2(sd::min(a, 60.0f));
        case 11: return sd::log1p(sd::abs(a));
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
      } else if (x < 33 && chunks_) {
        pipeline(current);
      } else if (x < 43 && copies_) {
        copy_statement(current);
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
    const auto domain = domain_of(target);
    ir::region region = ir::whole(id);
    if (chunks_ && domain >= 0 && !counts_[static_cast<std::size_t>(domain)].empty() && r_.chance(0.4)) {
      const auto k = r_.pick(counts_[static_cast<std::size_t>(domain)]);
      region = {id, static_cast<std::int32_t>(r_.below(static_cast<std::size_t>(k))), k};
    }
    assign_to(current, target, region, static_cast<int>(r_.below(3)));
  }

  // target's region = a random expression (or, whole, a compound assignment).
  void assign_to(std::int32_t current, leaf_ref target, const ir::region& region, int depth) {
    const auto id = id_of(target);
    model_->observe(b_.ir());
    shape_parts_ = region.parts;
    shape_part_ = region.part;
    const auto value = expression(depth, domain_of(target));
    shape_parts_ = 1;
    // Compound assignment reads the target: only once it holds a value.
    const bool compound = region.parts == 1 && readable(target) && r_.chance(0.3);
    std::vector<ir::region> reads;
    regions_loaded(b_.ir(), value.node, reads);
    if (compound) reads.push_back(ir::whole(id));
    order_before(current, reads, {region});
    if (region.parts > 1) {
      with_region(target, region, [&](auto chunk) {
        if constexpr (requires { chunk = value; }) chunk = value;
      });
      if (b_.ir().stmts.back().stream != current || b_.ir().stmts.back().kind != ir::stmt_kind::assign)
        throw std::logic_error("typed generator: chunk statement not written");
      ++statements_;
      return;
    }
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

  // sd::copy(dst, src) on the current stream: dst a float region written
  // to, src a float region of the same size that holds values and does not
  // overlap it (`prefer` when it fits). False when there is none.
  bool copy_regions(std::int32_t current, leaf_ref dst_ref, const ir::region& dst,
                    std::pair<leaf_ref, ir::region> prefer = {{kind::in, 0}, {}}) {
    model_->observe(b_.ir());
    const auto size = extent_of(dst);
    std::vector<std::pair<leaf_ref, ir::region>> sources;
    auto fits = [&](leaf_ref l, const ir::region& r) {
      const auto d = domain_of(l), dd = domain_of(dst_ref);
      return extent_of(r) == size && readable(l, r) && !regions_meet(r, dst) &&
             !(d == dd && r.parts != dst.parts);
    };
    auto add = [&](kind k, std::size_t n) {
      for (std::size_t i = 0; i < n; ++i) {
        const leaf_ref l{k, i};
        const auto d = domain_of(l);
        if (fits(l, ir::whole(id_of(l)))) sources.emplace_back(l, ir::whole(id_of(l)));
        if (d >= 0)
          for (auto k2 : counts_[static_cast<std::size_t>(d)])
            for (std::int32_t part = 0; part < k2; ++part)
              if (fits(l, {id_of(l), part, k2})) sources.emplace_back(l, ir::region{id_of(l), part, k2});
      }
    };
    if (prefer.second.buffer >= 0 && fits(prefer.first, prefer.second) && r_.chance(0.8)) {
      sources.push_back(prefer);
    } else {
      add(kind::in, in_.size());
      add(kind::io, io_.size());
      add(kind::out, out_.size());
      add(kind::tmp, tmp_.size());
    }
    if (sources.empty()) return false;
    const auto src = r_.pick(sources);
    order_before(current, {src.second}, {dst});
    with_region(dst_ref, dst, [&](const auto& d) {
      with_region(src.first, src.second, [&](const auto& s) {
        if constexpr (requires { sd::copy(d, s); }) sd::copy(d, s);
      });
    });
    const auto& last = b_.ir().stmts.back();
    if (last.kind != ir::stmt_kind::step || last.stream != current)
      throw std::logic_error("typed generator: copy not written");
    ++statements_;
    return true;
  }
  std::size_t extent_of(const ir::region& r) const {
    const auto d = b_.ir().buffers[static_cast<std::size_t>(r.buffer)].domain;
    return (d < 0 ? 1 : extents_[static_cast<std::size_t>(d)]) / static_cast<std::size_t>(r.parts);
  }

  // A copy into a random region of a float output, inout or temp.
  void copy_statement(std::int32_t current) {
    std::vector<leaf_ref> targets;
    for (std::size_t i = 0; i < io_.size(); ++i) targets.push_back({kind::io, i});
    for (std::size_t i = 0; i < out_.size(); ++i) targets.push_back({kind::out, i});
    for (std::size_t i = 0; i < tmp_.size(); ++i) targets.push_back({kind::tmp, i});
    const auto target = r_.pick(targets);
    const auto d = domain_of(target);
    ir::region dst = ir::whole(id_of(target));
    if (d >= 0 && !counts_[static_cast<std::size_t>(d)].empty() && r_.chance(0.5)) {
      const auto k = r_.pick(counts_[static_cast<std::size_t>(d)]);
      dst = {dst.buffer, static_cast<std::int32_t>(r_.below(static_cast<std::size_t>(k))), k};
    }
    if (!copy_regions(current, target, dst)) statement(current);
  }

  // The design's pipeline over the k chunks of a domain: chunk i copied into
  // a temp on one stream, computed into another buffer on a second, copied
  // out on a third (each stage on a random stream).
  void pipeline(std::int32_t current) {
    const std::int32_t domain = r_.chance(0.5) ? 0 : 1;
    const auto& counts = counts_[static_cast<std::size_t>(domain)];
    if (counts.empty()) return statement(current);
    const auto k = r_.pick(counts);
    std::vector<leaf_ref> sources, middles, outs;
    auto add = [&](std::vector<leaf_ref>& to, kind kd, std::size_t n) {
      for (std::size_t i = 0; i < n; ++i)
        if (domain_of({kd, i}) == domain) to.push_back({kd, i});
    };
    add(sources, kind::in, in_.size());
    add(sources, kind::io, io_.size());
    add(middles, kind::tmp, tmp_.size());
    add(outs, kind::out, out_.size());
    add(outs, kind::io, io_.size());
    const auto src = r_.pick(sources);
    const auto staged = r_.pick(middles);
    auto computed = r_.pick(r_.chance(0.5) ? middles : outs);
    auto out = r_.pick(outs);
    if (id_of(out) == id_of(computed)) out = computed = outs[0];
    const std::int32_t s1 = static_cast<std::int32_t>(r_.below(streams_.size()));
    const std::int32_t s2 = r_.chance(0.5) ? current : static_cast<std::int32_t>(r_.below(streams_.size()));
    const std::int32_t s3 = static_cast<std::int32_t>(r_.below(streams_.size()));
    for (std::int32_t i = 0; i < k; ++i) {
      const ir::region from{id_of(src), i, k}, a{id_of(staged), i, k}, b{id_of(computed), i, k},
          to{id_of(out), i, k};
      in_stream(s1, [&] {
        if (!copy_regions(s1, staged, a, {src, from})) assign_to(s1, staged, a, 1);
      });
      prefer_ = a;
      in_stream(s2, [&] { assign_to(s2, computed, b, 1 + static_cast<int>(r_.below(2))); });
      prefer_ = {};
      if (id_of(out) != id_of(computed))
        in_stream(s3, [&] {
          if (!copy_regions(s3, out, to, {computed, b})) assign_to(s3, out, to, 1);
        });
    }
  }

  sd::builder b_;
  bool chunks_ = false, copies_ = false;
  std::vector<std::size_t> extents_;
  std::vector<std::vector<std::int32_t>>
      counts_;  // per domain: the chunk counts it allows (chunked programs)
  std::int32_t shape_parts_ = 1, shape_part_ = 0;  // the chunk the statement being built writes
  ir::region prefer_{};                            // a region leaves favour
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
