#pragma once
// The tester's own model of happens-before and races, written independently
// of passes/happens_before.hpp and passes/races.hpp (explicit predecessor
// sets instead of vector clocks) so that the two can check each other.
//
// It follows the builder's IR as it grows: observe() reads the statements
// appended since the last call. The generator asks it which streams hold an
// access that a new statement would race with, and emits syncs for them.
// Accesses are regions (a buffer, or x.chunk(i, k) of it): two accesses
// conflict only where their regions share an element, worked out here.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <streamdsl/ir/program.hpp>
#include <string>
#include <vector>

namespace streamdsl::random_test {

// A growable set of statement indices.
class index_set {
 public:
  void insert(std::size_t i) {
    if (i / 64 >= words_.size()) words_.resize(i / 64 + 1, 0);
    words_[i / 64] |= std::uint64_t{1} << (i % 64);
  }
  bool contains(std::size_t i) const {
    return i / 64 < words_.size() && ((words_[i / 64] >> (i % 64)) & 1) != 0;
  }
  void merge(const index_set& other) {
    if (other.words_.size() > words_.size()) words_.resize(other.words_.size(), 0);
    for (std::size_t k = 0; k < other.words_.size(); ++k) words_[k] |= other.words_[k];
  }

 private:
  std::vector<std::uint64_t> words_;
};

// The buffers an expression loads, read from the node array directly (not
// with ir::reads_of), again to stay independent of the library.
// Works on the growable IR and on a view (anything with `nodes`).
template <class Program>
void loads_of(const Program& p, std::int32_t node, std::vector<std::int32_t>& out) {
  const auto& n = p.nodes[static_cast<std::size_t>(node)];
  if (n.code == ir::op::load) {
    bool seen = false;
    for (auto b : out) seen = seen || b == n.ref;
    if (!seen) out.push_back(n.ref);
  }
  // A named array: nvcc's host code mangles a range-for over a braced list.
  const std::int32_t children[] = {n.a, n.b, n.c};
  for (auto child : children)
    if (child >= 0) loads_of(p, child, out);
}

// The regions an expression loads (a load node carries its chunk), each once.
template <class Program>
void regions_loaded(const Program& p, std::int32_t node, std::vector<ir::region>& out) {
  const auto& n = p.nodes[static_cast<std::size_t>(node)];
  if (n.code == ir::op::load) {
    const ir::region r{n.ref, n.part, n.parts};
    bool seen = false;
    for (const auto& x : out) seen = seen || x == r;
    if (!seen) out.push_back(r);
  }
  const std::int32_t children[] = {n.a, n.b, n.c};
  for (auto child : children)
    if (child >= 0) regions_loaded(p, child, out);
}

// Whether two regions share an element, worked out here (not with
// ir::overlaps): on a grid of a.parts * b.parts cells of the buffer, region
// a is the cells [a.part * b.parts, (a.part + 1) * b.parts), and b likewise.
inline bool regions_meet(const ir::region& a, const ir::region& b) {
  if (a.buffer != b.buffer) return false;
  const std::int64_t a_first = std::int64_t{a.part} * b.parts, a_end = a_first + b.parts;
  const std::int64_t b_first = std::int64_t{b.part} * a.parts, b_end = b_first + a.parts;
  return a_first < b_end && b_first < a_end;
}

// What one statement of the user's program reads and writes. An assignment's
// reads come from its expression; what it writes, and a step's regions, are
// only in the program's access list (the builder stored them as written; the
// generator checks that they are the regions it asked for).
struct statement_regions {
  std::vector<ir::region> reads, writes;
};
template <class Program>
statement_regions regions_of(const Program& p, const ir::statement& st) {
  statement_regions out;
  if (st.kind != ir::stmt_kind::assign && st.kind != ir::stmt_kind::step) return out;
  const auto first = static_cast<std::size_t>(st.accesses_first);
  const auto reads = static_cast<std::size_t>(st.reads_count);
  if (st.kind == ir::stmt_kind::assign || st.root >= 0)  // an assignment, a reduction or a scan
    regions_loaded(p, st.root, out.reads);
  else
    for (std::size_t k = 0; k < reads; ++k) out.reads.push_back(p.accesses[first + k]);
  for (std::size_t k = 0; k < static_cast<std::size_t>(st.writes_count); ++k)
    out.writes.push_back(p.accesses[first + reads + k]);
  return out;
}

// Which parts of a buffer hold values: a bit per 1/24 of it (24 is a multiple
// of every chunk count the generators use: 1, 2, 3, 4, 6, 8).
class coverage {
 public:
  static constexpr std::int32_t cells = 24;
  static std::uint32_t cells_of(const ir::region& r) {
    if (r.parts < 1 || cells % r.parts != 0 || r.part < 0 || r.part >= r.parts)
      throw std::logic_error("order model: chunk (" + std::to_string(r.part) + ", " +
                             std::to_string(r.parts) + ") is not on the tester's grid of 24ths");
    const auto width = cells / r.parts;
    return ((std::uint32_t{1} << width) - 1) << (r.part * width);
  }
  void add(const ir::region& r) { bits_ |= cells_of(r); }
  bool covers(const ir::region& r) const { return (bits_ & cells_of(r)) == cells_of(r); }

 private:
  std::uint32_t bits_ = 0;
};

struct model_race {
  std::int32_t buffer = -1;
  std::int32_t first = -1, second = -1;  // statement indices in the builder's IR
};

class order_model {
 public:
  order_model(std::size_t streams, std::size_t buffers)
      : done_(streams), accesses_(buffers), written_(buffers) {}

  // Takes in the statements appended to `p` since the last call.
  void observe(const ir::program& p) {
    for (; next_ < p.stmts.size(); ++next_) step(p, next_);
  }

  // The streams other than `s` holding an access that conflicts with a
  // statement on `s` reading `reads` and writing `writes` (regions that
  // share an element, one of the two accesses a write), and that is not
  // ordered before it.
  std::vector<std::int32_t> unordered_streams(std::int32_t s, const std::vector<ir::region>& reads,
                                              const std::vector<ir::region>& writes) const {
    std::vector<std::int32_t> out;
    auto add = [&](std::int32_t t) {
      for (auto x : out)
        if (x == t) return;
      out.push_back(t);
    };
    for (const auto& a : conflicts(s, reads, writes)) add(a.stream);
    return out;
  }

  // Whether record statement `record` captured every access on stream `t`
  // that such a statement conflicts with (so waiting for that record orders
  // them all).
  bool record_covers(std::size_t record, std::int32_t s, const std::vector<ir::region>& reads,
                     const std::vector<ir::region>& writes, std::int32_t t) const {
    for (const auto& a : conflicts(s, reads, writes))
      if (a.stream == t && !captured_[record].contains(a.stmt)) return false;
    return true;
  }

  // Whether statements so far wrote every element of region r.
  bool written(const ir::region& r) const { return written_[static_cast<std::size_t>(r.buffer)].covers(r); }
  // The first race among the observed statements (buffer -1: none).
  const model_race& first_race() const { return race_; }
  std::size_t races() const { return race_count_; }

 private:
  struct access {
    std::size_t stmt;
    std::int32_t stream;
    bool writes;
    ir::region where;
  };

  std::vector<access> conflicts(std::int32_t s, const std::vector<ir::region>& reads,
                                const std::vector<ir::region>& writes) const {
    std::vector<access> out;
    const auto& known = done_[static_cast<std::size_t>(s)];
    auto scan = [&](const ir::region& r, bool writing) {
      for (const auto& a : accesses_[static_cast<std::size_t>(r.buffer)])
        if (a.stream != s && (writing || a.writes) && !known.contains(a.stmt) && regions_meet(a.where, r))
          out.push_back(a);
    };
    for (const auto& r : reads) scan(r, false);
    for (const auto& r : writes) scan(r, true);
    return out;
  }

  void step(const ir::program& p, std::size_t i) {
    const auto& st = p.stmts[i];
    const auto s = static_cast<std::size_t>(st.stream);
    captured_.emplace_back();
    switch (st.kind) {
      case ir::stmt_kind::assign:
      case ir::stmt_kind::step: {
        const auto regions = regions_of(p, st);
        const auto c = conflicts(st.stream, regions.reads, regions.writes);
        if (!c.empty()) {
          if (race_.buffer < 0)
            race_ = {c.front().where.buffer, static_cast<std::int32_t>(c.front().stmt),
                     static_cast<std::int32_t>(i)};
          ++race_count_;
        }
        for (const auto& r : regions.reads)
          accesses_[static_cast<std::size_t>(r.buffer)].push_back({i, st.stream, false, r});
        for (const auto& r : regions.writes) {
          accesses_[static_cast<std::size_t>(r.buffer)].push_back({i, st.stream, true, r});
          written_[static_cast<std::size_t>(r.buffer)].add(r);
        }
        break;
      }
      case ir::stmt_kind::record:
        // What a wait on this record will learn: the stream's work so far.
        captured_[i] = done_[s];
        captured_[i].insert(i);
        break;
      case ir::stmt_kind::wait:
        if (st.binds >= 0) done_[s].merge(captured_[static_cast<std::size_t>(st.binds)]);
        break;
      case ir::stmt_kind::wait_stream:
        // Every statement issued on the other stream so far is in its own set.
        done_[s].merge(done_[static_cast<std::size_t>(st.other)]);
        break;
    }
    done_[s].insert(i);
  }

  std::vector<index_set> done_;                // per stream: statements that happen before its next statement
  std::vector<index_set> captured_;            // per record statement: what a wait on it learns
  std::vector<std::vector<access>> accesses_;  // per buffer, in program order
  std::vector<coverage> written_;              // per buffer: the elements written so far
  std::size_t next_ = 0;
  model_race race_;
  std::size_t race_count_ = 0;
};

}  // namespace streamdsl::random_test
