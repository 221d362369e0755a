#pragma once
// The tester's own model of happens-before and races, written independently
// of passes/happens_before.hpp and passes/races.hpp (explicit predecessor
// sets instead of vector clocks) so that the two can check each other.
//
// It follows the builder's IR as it grows: observe() reads the statements
// appended since the last call. The generator asks it which streams hold an
// access that a new statement would race with, and emits syncs for them.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <streamdsl/ir/program.hpp>
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

struct model_race {
  std::int32_t buffer = -1;
  std::int32_t first = -1, second = -1;  // statement indices in the builder's IR
};

class order_model {
 public:
  order_model(std::size_t streams, std::size_t buffers)
      : done_(streams), accesses_(buffers), written_(buffers, false) {}

  // Takes in the statements appended to `p` since the last call.
  void observe(const ir::program& p) {
    for (; next_ < p.stmts.size(); ++next_) step(p, next_);
  }

  // The streams other than `s` holding an access that conflicts with a
  // statement on `s` reading `reads` and writing `target`, and that is not
  // ordered before it.
  std::vector<std::int32_t> unordered_streams(std::int32_t s, const std::vector<std::int32_t>& reads,
                                              std::int32_t target) const {
    std::vector<std::int32_t> out;
    auto add = [&](std::int32_t t) {
      for (auto x : out)
        if (x == t) return;
      out.push_back(t);
    };
    for (const auto& a : conflicts(s, reads, target)) add(a.stream);
    return out;
  }

  // Whether record statement `record` captured every access on stream `t`
  // that a statement on `s` reading `reads` and writing `target` conflicts
  // with (so waiting for that record orders them all).
  bool record_covers(std::size_t record, std::int32_t s, const std::vector<std::int32_t>& reads,
                     std::int32_t target, std::int32_t t) const {
    for (const auto& a : conflicts(s, reads, target))
      if (a.stream == t && !captured_[record].contains(a.stmt)) return false;
    return true;
  }

  bool written(std::int32_t buffer) const { return written_[static_cast<std::size_t>(buffer)]; }
  // The first race among the observed statements (buffer -1: none).
  const model_race& first_race() const { return race_; }
  std::size_t races() const { return race_count_; }

 private:
  struct access {
    std::size_t stmt;
    std::int32_t stream;
    bool writes;
    std::int32_t buffer;
  };

  std::vector<access> conflicts(std::int32_t s, const std::vector<std::int32_t>& reads,
                                std::int32_t target) const {
    std::vector<access> out;
    const auto& known = done_[static_cast<std::size_t>(s)];
    auto scan = [&](std::int32_t b, bool writes) {
      for (const auto& a : accesses_[static_cast<std::size_t>(b)])
        if (a.stream != s && (writes || a.writes) && !known.contains(a.stmt)) out.push_back(a);
    };
    for (auto b : reads) scan(b, false);
    if (target >= 0) scan(target, true);
    return out;
  }

  void step(const ir::program& p, std::size_t i) {
    const auto& st = p.stmts[i];
    const auto s = static_cast<std::size_t>(st.stream);
    captured_.emplace_back();
    switch (st.kind) {
      case ir::stmt_kind::assign: {
        std::vector<std::int32_t> reads;
        loads_of(p, st.root, reads);
        const auto c = conflicts(st.stream, reads, st.target);
        if (!c.empty()) {
          if (race_.buffer < 0)
            race_ = {c.front().buffer, static_cast<std::int32_t>(c.front().stmt),
                     static_cast<std::int32_t>(i)};
          ++race_count_;
        }
        for (auto b : reads) accesses_[static_cast<std::size_t>(b)].push_back({i, st.stream, false, b});
        accesses_[static_cast<std::size_t>(st.target)].push_back({i, st.stream, true, st.target});
        written_[static_cast<std::size_t>(st.target)] = true;
        break;
      }
      case ir::stmt_kind::step: throw std::logic_error("order model: steps are not modelled");
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
  std::vector<bool> written_;
  std::size_t next_ = 0;
  model_race race_;
  std::size_t race_count_ = 0;
};

}  // namespace streamdsl::random_test
