#pragma once
// A random-program generator the compiler can run: random_program<Seed> is a
// program lambda type (empty, default-constructible, constexpr call operator),
// so sd::program<random_program<Seed>::policy>(random_program<Seed>{}) is a
// compile-time plan that the CUDA executor can run. The same function also
// runs at run time (everything is constexpr, not consteval), which gives the
// reference its IR and lets a host test sweep thousands of seeds cheaply.
//
// Programs use the public API: float buffers in two domains and a 0-d one,
// an int32 input cast to float, a float param, 1 to 4 streams, 1 to 3 events
// (re-recorded), event waits and wait_stream, nested stream scopes, compound
// assignment and temps. Half the programs cut buffers into chunks
// (x.chunk(i, k), k = 2 or 4: their extents are multiples of 4), half copy
// buffers and chunks (sd::copy), and half of those copy to, from and between
// host memory (a pageable input and output, a pinned inout, which only copies
// touch). About a third declare rank-2 buffers over two more domains (rows
// and cols, kept small: the reference evaluates every element) and write
// statements over them that broadcast rows or columns (one of the two per
// statement) and 0-d values, row reductions into columns (sd::min, sd::max,
// sd::argmax along cols: exact in any order of combination) and integer row
// sums and scans (exact too: integer sums wrap, in any order). No
// transcendental functions: results must match the reference bit for bit on
// every backend. sd::checked programs get every sync
// they need (tracked with vector clocks); sd::automatic programs leave some
// out for the scheduler.
#include <cstdint>
#include <streamdsl/streamdsl.hpp>

namespace streamdsl::random_test::compiled {

// splitmix64, constexpr.
struct crng {
  std::uint64_t state;
  constexpr std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  constexpr int below(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }
  constexpr bool percent(int p) { return below(100) < p; }
};

// The options of a seed's program: drawn from their own stream of numbers.
constexpr options options_for(std::uint64_t seed) {
  crng r{seed * 7919 + 17};
  options o;
  o.sync = r.percent(40) ? sync_policy::automatic : sync_policy::checked;
  o.fusion = !r.percent(20);
  // One draw: a quarter relaxed, 15% as written, the rest strict.
  const int placement = r.below(100);
  o.placement = placement < 25   ? placement_policy::relaxed
                : placement < 40 ? placement_policy::as_written
                                 : placement_policy::strict;
  return o;
}

inline constexpr int max_streams = 4;
inline constexpr int max_events = 3;
inline constexpr int max_buffers = 32;  // a bit each in a statement's reads

// Which of issue 12's statements a seed's program uses: drawn from their
// own stream of numbers, so runtime_program can pick extents to match.
struct features {
  bool chunks = false, copies = false, host = false, reductions = false, rank2 = false;
};
constexpr features features_for(std::uint64_t seed) {
  crng r{seed * 104729 + 3};
  features f;
  f.chunks = r.percent(50);
  f.copies = r.percent(50);
  f.host = f.copies && r.percent(50);
  f.reductions = r.percent(40);  // issue 13: sd::min / sd::max into the 0-d output
  f.rank2 = r.percent(35);       // issue 13: rank-2 buffers, broadcasts, row reductions and scans
  return f;
}

// Vector clocks of the program as written: clock[s][t] is how many statements
// of stream t happen before the current point of stream s (clock[s][s] is s's
// own count); an access (t, k) is ordered before s's next statement when
// t == s or clock[s][t] >= k. Per buffer: its last write and, per stream, its
// last read since then (earlier accesses are ordered before those).
struct order_clocks {
  int streams = 1;
  int clock[max_streams][max_streams]{};
  int event_clock[max_events][max_streams]{};
  bool recorded[max_events]{};
  int write_stream[max_buffers]{};
  int write_index[max_buffers]{};  // 0: never written
  int read_index[max_buffers][max_streams]{};

  constexpr bool ordered(int s, int t, int k) const { return t == s || k == 0 || clock[s][t] >= k; }
  constexpr void join(int s, const int (&other)[max_streams]) {
    for (int t = 0; t < streams; ++t)
      if (other[t] > clock[s][t]) clock[s][t] = other[t];
  }
  // A stream s must sync with before it reads `reads` (a bit per buffer) and
  // writes `target` (-1: none); -1 when everything is ordered.
  constexpr int unordered_stream(int s, std::uint32_t reads, int target) const {
    for (int b = 0; b < max_buffers; ++b) {
      const bool read = (reads >> b) & 1u;
      if ((read || b == target) && !ordered(s, write_stream[b], write_index[b])) return write_stream[b];
      if (b == target)
        for (int t = 0; t < streams; ++t)
          if (!ordered(s, t, read_index[b][t])) return t;
    }
    return -1;
  }
  constexpr void statement(int s, std::uint32_t reads, int target) {
    const int k = ++clock[s][s];
    for (int b = 0; b < max_buffers; ++b)
      if ((reads >> b) & 1u) read_index[b][s] = k;
    write_stream[target] = s;
    write_index[target] = k;
    for (int t = 0; t < streams; ++t) read_index[target][t] = 0;
  }
  constexpr void record(int s, int e) {
    for (int t = 0; t < max_streams; ++t) event_clock[e][t] = clock[s][t];
    recorded[e] = true;
  }
  constexpr void wait(int s, int e) { join(s, event_clock[e]); }
  constexpr void wait_stream(int s, int t) { join(s, clock[t]); }
};

using fexpr = expr<float, strength::tensor>;

// The generator's state while it builds one program.
class program_writer {
 public:
  constexpr program_writer(builder& p, std::uint64_t seed)
      : p_(p),
        r_{seed},
        automatic_(options_for(seed).sync == sync_policy::automatic),
        features_(features_for(seed)),
        m_(p.domain("m")),
        x_(p.input<float>("x")),
        w_(p.input<float>("w")),
        s_(p.input<float>("s", streamdsl::scalar)),
        u_(p.input<float>("u", m_)),
        count_(p.input<std::int32_t>("count")),
        acc_(p.inout<float>("acc")),
        mv_(p.inout<float>("mv", m_)),
        y_(p.output<float>("y")),
        z_(p.output<float>("z")),
        total_(p.output<float>("total", streamdsl::scalar)),
        v_(p.output<float>("v", m_)),
        t_(p.temp<float>("t")),
        k_(p.temp<float>("k", m_)),
        h_in_(p.input<float, pageable>("h_in")),
        h_io_(p.inout<float, pinned>("h_io", m_)),
        h_out_(p.output<float, pageable>("h_out")),
        alpha_(p.param<float>("alpha")),
        streams_{p.main_stream(), p.stream("copy"), p.stream("compute"), p.stream("side")},
        events_{p.event("ready"), p.event("done"), p.event("again")} {
    const int x = r_.below(100);
    clocks_.streams = x < 10 ? 1 : x < 45 ? 2 : x < 80 ? 3 : 4;
    events_used_ = 1 + r_.below(max_events);
    keep_percent_ = automatic_ ? 30 * r_.below(4) : 100;
    // Rank-2 buffers after every other buffer (the other programs' ids and
    // draws stay as they were), over domains of their own: rows (2), cols
    // (3) and their product (4), which runtime_program gives extents.
    if (features_.rank2) {
      const domain rows = p.domain("rows");
      const domain cols = p.domain("cols");
      rows_ = rows.id;
      cols_ = cols.id;
      a_ = p.input<float>("a", rows, cols).id();
      ia_ = p.input<std::int32_t>("ia", rows, cols).id();
      col_in_ = p.input<float>("col_in", rows).id();
      row_in_ = p.input<float>("row_in", cols).id();
      icol_ = p.input<std::int32_t>("icol", rows).id();
      mo_ = p.output<float>("mo", rows, cols).id();
      mt_ = p.temp<float>("mt", rows, cols).id();
      cmax_ = p.output<float>("cmax", rows).id();
      ct_ = p.temp<float>("ct", rows).id();
      iscan_ = p.output<std::int64_t>("iscan", rows, cols).id();
      isum_ = p.output<std::int64_t>("isum", rows).id();
      iarg_ = p.output<std::int64_t>("iarg", rows).id();
      product_ = domain_of(a_);
    }
  }

  constexpr void write_program() {
    const int statements = 3 + r_.below(14);
    while (statements_ < statements) block(0, 0);
  }

 private:
  // Targets of assignments; copies may also write the host buffers.
  enum target_kind {
    to_acc,
    to_mv,
    to_y,
    to_z,
    to_total,
    to_v,
    to_t,
    to_k,
    target_count,
    to_h_io = target_count,
    to_h_out,
    copy_target_count
  };

  constexpr int id_of_target(int target) const {
    switch (target) {
      case to_acc: return acc_.id();
      case to_mv: return mv_.id();
      case to_y: return y_.id();
      case to_z: return z_.id();
      case to_total: return total_.id();
      case to_v: return v_.id();
      case to_t: return t_.id();
      case to_k: return k_.id();
      case to_h_io: return h_io_.id();
      default: return h_out_.id();
    }
  }
  constexpr int domain_of(int id) const {
    return detail::builder_access::ir(state()).buffers[static_cast<std::size_t>(id)].domain;
  }
  // Inputs and inouts hold the caller's data; outputs and temps the parts
  // written so far (a bit per quarter: chunks are halves or quarters).
  static constexpr unsigned quarters(int part, int parts) {
    return parts == 1 ? 0xFu : parts == 2 ? 0x3u << (2 * part) : 0x1u << part;
  }
  constexpr bool readable(int id, int part = 0, int parts = 1) const {
    const auto kind = detail::builder_access::ir(state()).buffers[static_cast<std::size_t>(id)].kind;
    const auto q = quarters(part, parts);
    return kind == ir::access::input || kind == ir::access::inout || (filled_[id] & q) == q;
  }
  constexpr bool on_host(int id) const {
    return ir::is_host(detail::builder_access::ir(state()).buffers[static_cast<std::size_t>(id)].space);
  }
  constexpr bool is_float(int id) const {
    return detail::builder_access::ir(state()).buffers[static_cast<std::size_t>(id)].type == dtype::float32;
  }
  constexpr int buffer_count() const {
    return static_cast<int>(detail::builder_access::ir(state()).buffers.size());
  }
  // The region of part `part` of `parts` of a buffer (checked by the builder).
  constexpr ir::region region_of(int id, int part, int parts) {
    return parts == 1 ? ir::whole(id) : detail::builder_access::chunk(state(), id, part, parts);
  }

  // Runs f with stream s current: in a (possibly nested) scope unless it is.
  template <class F>
  constexpr void in_stream(int s, F f) {
    if (detail::builder_access::current_stream(state()) == s)
      f();
    else
      with_stream(streams_[s], f);
  }

  // A random float leaf of `domain` or 0-d; its loads are added to `reads`.
  // In a chunked statement (parts_ > 1) a leaf of the domain is a chunk with
  // as many parts: mostly the statement's own part, sometimes another.
  constexpr fexpr leaf(int domain, std::uint32_t& reads) {
    const int part = parts_ > 1 && r_.percent(30) ? r_.below(parts_) : part_;
    int options[max_buffers]{};
    int n = 0;
    for (int id = 0; id < buffer_count(); ++id) {
      const int d = domain_of(id);
      // Over the rank-2 domain, the vectors this statement broadcasts too.
      const bool vector = domain == product_ && product_ >= 0 && d == broadcast_;
      if (is_float(id) && !on_host(id) && (d == domain || d < 0 || vector) &&
          (d < 0 ? readable(id) : readable(id, part, parts_)))
        options[n++] = id;
    }
    const int x = r_.below(100);
    if (x < 8) return fexpr{&state(), (alpha_ * 1.0f).node};  // the param, broadcast
    if (x < 16 && domain == count_domain()) {
      reads |= 1u << count_.id();
      if (parts_ > 1) return sd::cast<float>(count_.chunk(part, parts_));
      return sd::cast<float>(count_);
    }
    const int id = options[r_.below(n)];  // never empty: "s" is a 0-d input
    reads |= 1u << id;
    const auto r = domain_of(id) < 0 ? ir::whole(id) : region_of(id, part, parts_);
    return fexpr{&state(), detail::builder_access::load(state(), r).node};
  }
  constexpr int count_domain() const { return domain_of(count_.id()); }

  constexpr fexpr combine(const fexpr& a, const fexpr& b) {
    switch (r_.below(6)) {
      case 0: return a + b;
      case 1: return a - b;
      case 2: return a * b;
      case 3: return a / b;
      case 4: return sd::min(a, b);
      default: return sd::max(a, b);
    }
  }

  constexpr fexpr expression(int depth, int domain, std::uint32_t& reads) {
    if (depth <= 0) {
      const fexpr a = leaf(domain, reads);
      return r_.percent(30) ? a : combine(a, leaf(domain, reads));
    }
    const int x = r_.below(100);
    const fexpr a = expression(depth - 1, domain, reads);
    if (x < 35) return combine(a, expression(depth - 1, domain, reads));
    if (x < 50) return combine(a, leaf(domain, reads));
    if (x < 65) {
      switch (r_.below(5)) {
        case 0: return a + 0.25f;
        case 1: return a * 2.5;  // a weak double literal: stays float
        case 2: return 1.5f - a;
        case 3: return a / 3;
        default: return -a;
      }
    }
    if (x < 80) {
      switch (r_.below(3)) {
        case 0: return sd::abs(a);
        case 1: return sd::relu(a);
        default: return sd::sqrt(sd::abs(a));  // correctly rounded everywhere
      }
    }
    const fexpr b = expression(depth - 1, domain, reads);
    const fexpr c = leaf(domain, reads);
    switch (r_.below(3)) {
      case 0: return sd::where(a > b, c, 0.0f);
      case 1: return sd::where(a < 1 && b >= c, a, c);
      default: return sd::where(!(a == b), b, c);
    }
  }

  // Nested stream scopes, each a few statements, syncs and inner scopes.
  constexpr void block(int depth, int current) {
    const int n = 1 + r_.below(5);
    for (int i = 0; i < n; ++i) {
      const int x = r_.below(100);
      if (x < 20 && depth < 2) {
        const int s = r_.below(clocks_.streams);
        with_stream(streams_[s], [&] { block(depth + 1, s); });
      } else if (x < 30) {
        random_sync(current);
      } else if (x < 42 && features_.copies) {
        copy_statement(current);
      } else if (x < 50 && features_.reductions) {
        reduce_statement(current);
      } else if (x < 80 && features_.rank2) {
        matrix_statement(current);
      } else {
        statement(current);
      }
    }
  }

  constexpr void record(int s, int e) {
    in_stream(s, [&] { events_[e].record(); });
    clocks_.record(s, e);
  }
  constexpr void wait(int s, int e) {
    in_stream(s, [&] { events_[e].wait(); });
    clocks_.wait(s, e);
  }
  constexpr void wait_stream(int s, int t) {
    streams_[s].wait_stream(streams_[t]);
    clocks_.wait_stream(s, t);
  }

  // Orders stream t's work so far before s's next statement: a wait on an
  // event whose record already covers it, a fresh record and wait, or wait_stream.
  constexpr void sync_with(int s, int t, std::uint32_t reads, int target) {
    for (int e = 0; e < events_used_; ++e) {
      if (!clocks_.recorded[e] || !r_.percent(50)) continue;
      order_clocks trial = clocks_;
      trial.wait(s, e);
      if (trial.unordered_stream(s, reads, target) != t) {
        wait(s, e);
        return;
      }
    }
    if (r_.percent(65)) {
      const int e = r_.below(events_used_);
      record(t, e);  // may re-record: later waits bind to this record
      wait(s, e);
    } else {
      wait_stream(s, t);
    }
  }

  // A sync nothing needs (yet): extra, often redundant ordering.
  constexpr void random_sync(int current) {
    const int x = r_.below(3);
    const int e = r_.below(events_used_);
    if (x == 0) {
      record(current, e);
    } else if (x == 1 && clocks_.recorded[e]) {
      wait(current, e);
    } else {
      wait_stream(current, r_.below(clocks_.streams));
    }
  }

  // Every sync an sd::checked program needs before `current` reads `reads`
  // and writes `target` (whole buffers: chunks are ordered as if they were
  // their buffers, which only adds syncs); some for sd::automatic.
  constexpr void order_before(int current, std::uint32_t reads, int target) {
    bool skipped[max_streams]{};
    for (int t = clocks_.unordered_stream(current, reads, target); t >= 0 && !skipped[t];
         t = clocks_.unordered_stream(current, reads, target)) {
      if (r_.percent(keep_percent_))
        sync_with(current, t, reads, target);
      else
        skipped[t] = true;  // left to the scheduler; later accesses may still race with t
    }
  }

  constexpr void statement(int current) {
    const int target = r_.below(target_count);
    const int id = id_of_target(target);
    // In chunked programs, some statements write a chunk of their target.
    if (features_.chunks && domain_of(id) >= 0 && r_.percent(40)) {
      parts_ = r_.percent(50) ? 2 : 4;
      part_ = r_.below(parts_);
    }
    const int part = part_, parts = parts_;
    std::uint32_t reads = 0;
    const fexpr value = expression(r_.below(3), domain_of(id), reads);
    parts_ = 1;
    part_ = 0;
    const bool compound = readable(id, part, parts) && r_.percent(30);
    if (compound) reads |= 1u << id;
    order_before(current, reads, id);
    const int op = compound ? r_.below(4) : -1;
    in_stream(current, [&] {
      switch (target) {
        case to_acc: assign(acc_, value, op, part, parts); break;
        case to_mv: assign(mv_, value, op, part, parts); break;
        case to_y: assign(y_, value, op, part, parts); break;
        case to_z: assign(z_, value, op, part, parts); break;
        case to_total: assign(total_, value, op, part, parts); break;
        case to_v: assign(v_, value, op, part, parts); break;
        case to_t: assign(t_, value, op, part, parts); break;
        default: assign(k_, value, op, part, parts); break;
      }
    });
    clocks_.statement(current, reads, id);
    filled_[id] |= quarters(part, parts);
    ++statements_;
  }

  // sd::copy(dst, src): dst a whole buffer or chunk of a target (the host
  // buffers too), src a float region of the same size that holds values and
  // does not overlap it (same domain, same chunk count). Nothing when no
  // source fits.
  constexpr void copy_statement(int current) {
    const int target = r_.below(features_.host ? copy_target_count : target_count);
    const int dst = id_of_target(target);
    const int domain = domain_of(dst);
    const int parts = features_.chunks && domain >= 0 && r_.percent(50) ? (r_.percent(50) ? 2 : 4) : 1;
    const int part = r_.below(parts);
    int sources[max_buffers * 4][2]{};  // (buffer, part)
    int n = 0;
    for (int id = 0; id < buffer_count(); ++id) {
      if (!is_float(id) || domain_of(id) != domain || (on_host(id) && !features_.host)) continue;
      for (int j = 0; j < parts; ++j)
        if (readable(id, j, parts) && !(id == dst && j == part)) {
          sources[n][0] = id;
          sources[n++][1] = j;
        }
    }
    if (n == 0) return;
    const int pick = r_.below(n);
    const int src = sources[pick][0],
              src_part = sources[pick][1];  // not a structured binding: lambdas capture them
    const std::uint32_t reads = 1u << src;
    order_before(current, reads, dst);
    in_stream(current, [&] {
      detail::builder_access::copy(state(), region_of(dst, part, parts), region_of(src, src_part, parts));
    });
    clocks_.statement(current, reads, dst);
    filled_[dst] |= quarters(part, parts);
    ++statements_;
  }

  // total = sd::min(e) or sd::max(e) over domain n or m (or over one
  // element, when e reads only 0-d values): exact whatever the order of
  // combination, so the GPU's result is compared bit for bit like the rest.
  constexpr void reduce_statement(int current) {
    const int id = total_.id();
    const int domain = r_.percent(70) ? 0 : m_.id;
    std::uint32_t reads = 0;
    const fexpr value = expression(r_.below(3), domain, reads);
    order_before(current, reads, id);
    const bool low = r_.percent(50);
    in_stream(current, [&] {
      if (low)
        total_ = streamdsl::min(value);
      else
        total_ = streamdsl::max(value);
    });
    clocks_.statement(current, reads, id);
    filled_[id] |= quarters(0, 1);
    ++statements_;
  }

  // Rank-2 statements (features_.rank2): an elementwise statement over the
  // matrix (broadcasting rows or columns), one over the columns' vectors, a
  // row reduction into a column (min, max, argmax), or an integer row sum
  // or scan.
  constexpr void matrix_statement(int current) {
    const int kind = r_.below(100);
    // Each statement broadcasts rows or columns, not both (a row and a
    // column combined alone have no shape).
    broadcast_ = r_.percent(50) ? rows_ : cols_;
    std::uint32_t reads = 0;
    if (kind < 20) {  // over the rows' vectors: a column
      const int id = r_.percent(50) ? cmax_ : ct_;
      const fexpr value = expression(r_.below(3), rows_, reads);
      const bool compound = readable(id) && r_.percent(30);
      if (compound) reads |= 1u << id;
      order_before(current, reads, id);
      const int op = compound ? r_.below(4) : -1;
      in_stream(current, [&] {
        if (id == cmax_) {
          output<float> h(&state(), id);
          assign(h, value, op, 0, 1);
        } else {
          temp<float> h(&state(), id);
          assign(h, value, op, 0, 1);
        }
      });
      finish(current, reads, id);
      return;
    }
    if (kind <
        80) {  // a row reduction of a rank-2 expression, or an elementwise statement over rows and cols
      const fexpr value = matrix_expression(r_.below(3), reads);
      if (kind < 50) {
        const int id = r_.percent(50) ? mo_ : mt_;
        const bool compound = readable(id) && r_.percent(30);
        if (compound) reads |= 1u << id;
        order_before(current, reads, id);
        const int op = compound ? r_.below(4) : -1;
        in_stream(current, [&] {
          if (id == mo_) {
            output<float> h(&state(), id);
            assign(h, value, op, 0, 1);
          } else {
            temp<float> h(&state(), id);
            assign(h, value, op, 0, 1);
          }
        });
        finish(current, reads, id);
        return;
      }
      const int which = r_.below(3);  // min, max, argmax
      const int id = which == 2 ? iarg_ : r_.percent(50) ? cmax_ : ct_;
      order_before(current, reads, id);
      const domain cols(cols_);
      in_stream(current, [&] {
        if (which == 2) {
          output<std::int64_t> h(&state(), id);
          h = streamdsl::argmax(value, cols);
        } else if (id == cmax_) {
          output<float> h(&state(), id);
          h = which == 0 ? streamdsl::min(value, cols) : streamdsl::max(value, cols);
        } else {
          temp<float> h(&state(), id);
          h = which == 0 ? streamdsl::min(value, cols) : streamdsl::max(value, cols);
        }
      });
      finish(current, reads, id);
      return;
    }
    // Integer sums along cols: of ia, ia with the column icol, or ia scaled.
    const input<std::int32_t> ia(&state(), ia_), icol(&state(), icol_);
    const int shape = r_.below(3);
    reads |= 1u << ia_;
    if (shape == 1) reads |= 1u << icol_;
    const int which = r_.below(3);  // sum, inclusive_sum, exclusive_sum
    const int id = which == 0 ? isum_ : iscan_;
    order_before(current, reads, id);
    const domain cols(cols_);
    in_stream(current, [&] {
      output<std::int64_t> h(&state(), id);
      const auto value = shape == 0 ? ia * 1 : shape == 1 ? ia - icol : ia * 3 + 1;
      if (which == 0)
        h = streamdsl::sum(value, cols);
      else if (which == 1)
        h = streamdsl::inclusive_sum(value, cols);
      else
        h = streamdsl::exclusive_sum(value, cols);
    });
    finish(current, reads, id);
  }

  // A float expression over rows and cols: a random expression over the
  // product domain (matrices, the vectors broadcast_ names, 0-d values, the
  // param), combined with a matrix when it has none.
  constexpr fexpr matrix_expression(int depth, std::uint32_t& reads) {
    const fexpr value = expression(depth, product_, reads);
    if (detail::builder_access::ir(state()).nodes[static_cast<std::size_t>(value.node)].domain == product_)
      return value;
    const int id = readable(mo_) && r_.percent(30) ? mo_ : a_;
    reads |= 1u << id;
    return combine(value, fexpr{&state(), detail::builder_access::load(state(), ir::whole(id)).node});
  }

  constexpr void finish(int current, std::uint32_t reads, int id) {
    clocks_.statement(current, reads, id);
    filled_[id] |= quarters(0, 1);
    ++statements_;
  }

  template <class Handle>
  static constexpr void assign(Handle& h, const fexpr& value, int op, int part, int parts) {
    if (parts > 1) {
      auto c = h.chunk(part, parts);
      switch (op) {
        case 0: c += value; break;
        case 1: c -= value; break;
        case 2: c *= value; break;
        case 3: c /= value; break;
        default: c = value; break;
      }
      return;
    }
    switch (op) {
      case 0: h += value; break;
      case 1: h -= value; break;
      case 2: h *= value; break;
      case 3: h /= value; break;
      default: h = value; break;
    }
  }

  // The engine under the builder: the IR so far and the current stream.
  constexpr detail::builder_state& state() const { return detail::builder_access::state(p_); }

  builder& p_;
  crng r_;
  bool automatic_;
  features features_;
  int part_ = 0, parts_ = 1;  // the chunk the statement being written writes
  // Rank-2 (features_.rank2; -1 otherwise): the domains, the buffers, and
  // the vectors' domain (rows_ or cols_) the statement being written broadcasts.
  int rows_ = -1, cols_ = -1, product_ = -1, broadcast_ = -1;
  int a_ = -1, ia_ = -1, col_in_ = -1, row_in_ = -1, icol_ = -1, mo_ = -1, mt_ = -1, cmax_ = -1, ct_ = -1,
      iscan_ = -1, isum_ = -1, iarg_ = -1;
  unsigned filled_[max_buffers]{};  // quarters written, per buffer
  int keep_percent_ = 100;
  int events_used_ = 1;
  int statements_ = 0;
  order_clocks clocks_;
  domain m_;
  input<float> x_, w_, s_, u_;
  input<std::int32_t> count_;
  inout<float> acc_, mv_;
  output<float> y_, z_, total_, v_;
  temp<float> t_, k_;
  input<float, pageable> h_in_;
  inout<float, pinned> h_io_;
  output<float, pageable> h_out_;
  param<float> alpha_;
  stream streams_[max_streams];
  event events_[max_events];
};

// Builds the program of one seed (at compile time or at run time).
constexpr void write_random_program(builder& p, std::uint64_t seed) {
  program_writer(p, seed).write_program();
}

// The program lambda type of one seed.
template <unsigned Seed>
struct random_program {
  static constexpr options policy = options_for(Seed);
  constexpr void operator()(builder& p) const { write_random_program(p, Seed); }
};

}  // namespace streamdsl::random_test::compiled
