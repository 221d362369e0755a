#pragma once
// The conflict walk that race detection (find_races) and sync insertion
// (insert_syncs) share, so that a program sd::checked accepts is one that
// sd::automatic leaves as it is, and the reverse. Statements are visited in
// program order with live vector clocks. For an assignment, each other stream
// has at most one conflict that matters: its latest access that conflicts
// with the assignment (a write conflicts with everything, a read with writes)
// and is not ordered before it; a sync after that access orders every earlier
// one too (program order), for every buffer. Each conflict is then taken as
// ordered by such a sync: find_races lists it as a race (what that fix would
// also order is not reported again), insert_syncs inserts the wait.
//
// Accesses are to regions (ir/region.hpp): the table is kept per region
// accessed (whole buffers, and each distinct chunk), and an access gathers
// from every region that overlaps its own, so disjoint chunks never conflict
// and the latest access per stream is still the one that matters (per region).
// Each region lists only the streams that touched it, so a statement costs
// its accesses times the overlapping regions and the streams touching them,
// plus one clock row per statement: linear in statements x streams for a
// program without chunks.
#include <cstdint>

#include "../detail/dyn_array.hpp"
#include "../ir/program_view.hpp"
#include "../ir/region.hpp"
#include "vector_clocks.hpp"

namespace streamdsl::passes {

// The regions a program accesses, numbered: key b is the whole of buffer b,
// keys from buffers() on are the distinct chunks, listed per buffer.
class region_keys {
 public:
  constexpr region_keys(std::size_t buffers, detail::array_view<ir::region> accesses)
      : buffers_(buffers), first_chunk_(buffers, -1) {
    for (const auto& r : accesses)
      if (r.parts != 1 && find(r) < 0) {  // not whole (tested in place: this runs per access)
        chunks_.push_back(r);
        next_.push_back(first_chunk_[static_cast<std::size_t>(r.buffer)]);
        first_chunk_[static_cast<std::size_t>(r.buffer)] = static_cast<std::int32_t>(size() - 1);
      }
  }
  constexpr std::size_t size() const { return buffers_ + chunks_.size(); }
  constexpr bool any_chunks() const { return !chunks_.empty(); }
  constexpr std::int32_t key_of(const ir::region& r) const { return ir::is_whole(r) ? r.buffer : find(r); }
  // The regions that overlap r, key by key: the whole buffer's key
  // (r.buffer) first, then after key k the next chunk of it that meets r, or
  // -1. (A loop, not a callback: no closure type per caller to compile.)
  constexpr std::int32_t next_overlapping(const ir::region& r, std::int32_t k) const {
    k = k == r.buffer ? first_chunk_[static_cast<std::size_t>(r.buffer)] : next_[chunk_index(k)];
    while (k >= 0 && !ir::overlaps(chunks_[chunk_index(k)], r)) k = next_[chunk_index(k)];
    return k;
  }

 private:
  constexpr std::size_t chunk_index(std::int32_t key) const {
    return static_cast<std::size_t>(key) - buffers_;
  }
  constexpr std::int32_t find(const ir::region& r) const {
    for (auto k = first_chunk_[static_cast<std::size_t>(r.buffer)]; k >= 0; k = next_[chunk_index(k)])
      if (chunks_[chunk_index(k)] == r) return k;
    return -1;
  }
  std::size_t buffers_;
  detail::dyn_array<std::int32_t> first_chunk_;  // per buffer: its latest chunk key, -1 if none
  detail::dyn_array<ir::region> chunks_;
  detail::dyn_array<std::int32_t> next_;  // per chunk: the buffer's previous chunk key
};

// Per region key, the streams that accessed it, each with its latest read and
// write: a linked list through flat arrays (one entry per buffer and stream
// that met, not a buffers x streams table).
class stream_accesses {
 public:
  explicit constexpr stream_accesses(std::size_t keys) : head_(keys, -1) {}

  struct entry {
    std::int32_t stream = -1;
    std::int32_t last_read = -1;
    std::int32_t last_write = -1;
    std::int32_t next = -1;
  };
  constexpr std::int32_t first(std::int32_t b) const { return head_[static_cast<std::size_t>(b)]; }
  constexpr const entry& operator[](std::int32_t e) const { return entries_[static_cast<std::size_t>(e)]; }

  constexpr void note(std::int32_t b, std::int32_t stream, std::int32_t i, bool writes) {
    auto e = first(b);
    while (e >= 0 && entries_[static_cast<std::size_t>(e)].stream != stream)
      e = entries_[static_cast<std::size_t>(e)].next;
    if (e < 0) {
      entries_.push_back({stream, -1, -1, first(b)});
      e = static_cast<std::int32_t>(entries_.size() - 1);
      head_[static_cast<std::size_t>(b)] = e;
    }
    auto& x = entries_[static_cast<std::size_t>(e)];
    (writes ? x.last_write : x.last_read) = i;
  }

 private:
  detail::dyn_array<std::int32_t> head_;
  detail::dyn_array<entry> entries_;
};

// An assignment's latest unordered conflict on one other stream.
struct conflict {
  std::int32_t access = -1;  // the earlier statement, on the other stream
  std::int32_t buffer = -1;  // the buffer both touch (the first in the assignment's reads, then its target)
  bool access_writes = false;
  bool writes = false;  // whether the statement writes `buffer`
};

// The order in which an assignment's conflicts are taken as synced: a sync
// for one may order another, which then needs none.
enum class sync_order {
  by_stream,     // ascending stream (insert_syncs: the order its waits are listed in)
  latest_first,  // latest access first (find_races: fewest races, each needing its own fix)
};

// Stable insertion sort: the lists are short (one entry per stream met), and
// the standard one needs <algorithm>.
template <class T, class Before>
constexpr void sort_few(detail::dyn_array<T>& a, Before before) {
  for (std::size_t i = 1; i < a.size(); ++i)
    for (std::size_t c = i; c > 0 && before(a[c], a[c - 1]); --c) {
      const auto x = a[c];
      a[c] = a[c - 1];
      a[c - 1] = x;
    }
}

class conflict_walker {
 public:
  // For `statements` statements over `buffers` buffers and `streams`
  // streams, accessing the regions listed in `accesses` (any order, repeats).
  constexpr conflict_walker(std::size_t buffers, std::size_t streams, std::size_t statements,
                            detail::array_view<ir::region> accesses)
      : clocks_(streams, statements),
        keys_(buffers, accesses),
        table_(keys_.size()),
        is_touched_(streams, false),
        head_(streams, -1) {}
  // For the statements of program `p`, walked in some order.
  constexpr conflict_walker(const ir::program_view& p, std::size_t statements)
      : conflict_walker(p.buffers.size(), p.streams.size(), statements, p.accesses) {}

  // The clocks of the walked list: the caller appends each statement (after
  // its assignment's syncs) and joins what its waits learn.
  constexpr vector_clocks& clocks() { return clocks_; }
  constexpr const vector_clocks& clocks() const { return clocks_; }

  // Finds the conflicts of a statement on `stream`, about to be appended,
  // that reads `reads` and writes `writes` (regions): per other stream,
  // ascending, its latest conflicting access not ordered before the statement.
  constexpr const detail::dyn_array<conflict>& find(std::int32_t stream,
                                                    const detail::array_view<ir::region>& reads,
                                                    const detail::array_view<ir::region>& writes) {
    found_.clear();
    if (keys_.any_chunks()) {
      for (const auto& r : reads)
        for (auto k = r.buffer; k >= 0; k = keys_.next_overlapping(r, k)) gather(k, r.buffer, stream, false);
      for (const auto& r : writes)
        for (auto k = r.buffer; k >= 0; k = keys_.next_overlapping(r, k)) gather(k, r.buffer, stream, true);
    } else {  // whole buffers only: a region's key is its buffer (no call per access)
      for (const auto& r : reads) gather(r.buffer, r.buffer, stream, false);
      for (const auto& r : writes) gather(r.buffer, r.buffer, stream, true);
    }
    // Streams in ascending order: sort the few, or scan them all when many.
    if (touched_.size() * touched_.size() <= clocks_.streams()) {
      sort_few(touched_, [](std::int32_t a, std::int32_t b) { return a < b; });
    } else {
      touched_.clear();
      for (std::int32_t t = 0; t < static_cast<std::int32_t>(clocks_.streams()); ++t)
        if (is_touched_[static_cast<std::size_t>(t)]) touched_.push_back(t);
    }
    for (auto t : touched_) {
      // All candidates are on t, so the latest is unordered if any is. On a
      // tie the first gathered wins (chains run newest first).
      const candidate* latest = nullptr;
      for (auto c = head_[static_cast<std::size_t>(t)]; c >= 0;
           c = candidates_[static_cast<std::size_t>(c)].next) {
        const auto& x = candidates_[static_cast<std::size_t>(c)];
        if (!latest || x.access >= latest->access) latest = &x;
      }
      head_[static_cast<std::size_t>(t)] = -1;
      is_touched_[static_cast<std::size_t>(t)] = false;
      if (clocks_.counts(clocks_.live(stream), latest->access)) continue;
      found_.push_back({latest->access, latest->buffer, table_[latest->entry].last_write == latest->access,
                        latest->writes});
    }
    touched_.clear();
    candidates_.clear();
    return found_;
  }

  // Takes the conflicts find() found as synced, in `order`: each one that
  // the syncs taken before it leave unordered is passed to `take` (which may
  // append the wait it inserts), then the stream learns it (sync_after).
  template <class Take>
  constexpr void sync(std::int32_t stream, sync_order order, Take take) {
    if (order == sync_order::latest_first)
      sort_few(found_, [](const conflict& a, const conflict& b) { return a.access > b.access; });
    for (const auto& c : found_) {
      if (clocks_.counts(clocks_.live(stream), c.access)) continue;
      take(c);
      clocks_.sync_after(stream, c.access);
    }
  }

  // Records the accesses of statement `at` (its index in the walked list).
  constexpr void note(std::int32_t stream, const detail::array_view<ir::region>& reads,
                      const detail::array_view<ir::region>& writes, std::int32_t at) {
    const bool chunks = keys_.any_chunks();
    for (const auto& r : reads) table_.note(chunks ? keys_.key_of(r) : r.buffer, stream, at, false);
    for (const auto& r : writes) table_.note(chunks ? keys_.key_of(r) : r.buffer, stream, at, true);
  }

 private:
  struct candidate {
    std::int32_t access = -1;
    std::int32_t buffer = -1;
    std::int32_t entry = -1;  // in table_: the buffer's record for the access's stream
    bool writes = false;
    std::int32_t next = -1;  // the stream's previous candidate
  };

  // Lists, under each other stream, its accesses to region `key` (of buffer
  // b) that an access of the statement conflicts with: its latest write, and
  // its latest read when the statement writes there.
  constexpr void gather(std::int32_t key, std::int32_t b, std::int32_t self, bool writes) {
    for (auto e = table_.first(key); e >= 0; e = table_[e].next) {
      const auto& x = table_[e];
      if (x.stream == self) continue;
      const std::int32_t accesses[2] = {x.last_write, writes ? x.last_read : -1};
      for (auto a : accesses) {
        if (a < 0) continue;
        const auto t = static_cast<std::size_t>(x.stream);
        if (!is_touched_[t]) {
          touched_.push_back(x.stream);
          is_touched_[t] = true;
        }
        candidates_.push_back({a, b, e, writes, head_[t]});
        head_[t] = static_cast<std::int32_t>(candidates_.size() - 1);
      }
    }
  }

  vector_clocks clocks_;  // per walked statement
  region_keys keys_;
  stream_accesses table_;
  detail::dyn_array<bool> is_touched_;    // per stream: listed in touched_
  detail::dyn_array<std::int32_t> head_;  // per stream: its latest candidate, -1 if none
  detail::dyn_array<std::int32_t> touched_;
  detail::dyn_array<candidate> candidates_;
  detail::dyn_array<conflict> found_;
};

}  // namespace streamdsl::passes
