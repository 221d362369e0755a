// Scheduling properties of random programs, checked without an executor:
// - the tester's own race model and passes::find_race agree on every program
//   as written;
// - sd::checked schedules every race-free program without error, and reports
//   a race for every racy one;
// - sd::automatic schedules every program, and find_race finds nothing in
//   the scheduled statements; on a race-free program it inserts nothing;
// - every plan orders every conflicting pair of memory accesses as program
//   order does (check_plan), under fusion, no_fusion, relaxed and as-written
//   placement;
// - under sd::as_written every statement runs on the stream it was written on;
// - every plan fits the bounds that sd::program sizes its arrays by.
#include <catch2/catch.hpp>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <streamdsl/streamdsl.hpp>

#include "plan_check.hpp"
#include "program_generator.hpp"
#include "run_settings.hpp"

namespace rt = streamdsl::random_test;

namespace {

struct tally {
  std::uint64_t programs = 0, checked = 0, automatic = 0, racy = 0, syncs_left_out = 0, schedules = 0,
                failures = 0;
  std::ostringstream report;                      // the first failures in full
  std::map<std::string, std::uint64_t> features;  // how many programs show each feature
};

// What a program exercises, so the summary shows the generator's reach.
void count_features(tally& t, const rt::generated_program& g, const sd::plan_model& m) {
  const auto& p = g.user;
  std::set<std::string> seen;
  std::vector<int> records(p.events.size(), 0);
  std::vector<int> writer_stream(p.buffers.size(), -1);
  std::set<int> streams, domains;
  std::vector<bool> whole_written(p.buffers.size(), false);
  std::vector<std::set<int>> chunk_writer_streams(p.buffers.size());
  std::vector<std::vector<std::pair<sd::ir::region, bool>>> chunk_accesses(
      p.buffers.size());  // region, writes
  for (const auto& s : p.stmts) {
    streams.insert(s.stream);
    if (s.kind == sd::ir::stmt_kind::record && ++records[static_cast<std::size_t>(s.event)] == 2)
      seen.insert("event re-recorded");
    if (s.kind == sd::ir::stmt_kind::wait_stream) seen.insert("wait_stream");
    if (s.kind != sd::ir::stmt_kind::assign && s.kind != sd::ir::stmt_kind::step) continue;
    const auto regions = rt::regions_of(p, s);
    const auto written = regions.writes.at(0);
    const auto& target = p.buffers[static_cast<std::size_t>(written.buffer)];
    if (s.kind == sd::ir::stmt_kind::step && sd::ir::info(s.code).form == sd::ir::step_form::call) {
      seen.insert(s.code == sd::ir::step_code::host_call ? "host call" : "call");
      for (const auto& r : regions.reads)
        if (r == written) seen.insert("call updating in place");
    } else if (s.kind == sd::ir::stmt_kind::step && s.code == sd::ir::step_code::matmul) {
      seen.insert("matmul");
    } else if (s.kind == sd::ir::stmt_kind::step && sd::ir::is_collective(s.code)) {
      seen.insert(
          std::string(sd::ir::info(s.code).spelling.data() + 4, sd::ir::info(s.code).spelling.size() - 4));
      if (regions.reads.at(0) == written) seen.insert("collective in place");
      if (written.parts > 1) seen.insert("collective of a chunk");
    } else if (s.kind == sd::ir::stmt_kind::step && s.code != sd::ir::step_code::copy) {
      const auto form = sd::ir::info(s.code).form;
      seen.insert(form == sd::ir::step_form::scan ? "scan" : "reduction");
      if (regions.reads.size() > 1) seen.insert("reduction or scan of a fused expression");
      if (written.parts > 1) seen.insert("scan into a chunk");
      if (s.code == sd::ir::step_code::argmax) seen.insert("argmax");
      if (s.axis >= 0)
        seen.insert(form == sd::ir::step_form::scan ? "scan along an axis" : "reduction along an axis");
    } else if (s.kind == sd::ir::stmt_kind::step) {
      seen.insert("copy");
      const auto& from = p.buffers[static_cast<std::size_t>(regions.reads.at(0).buffer)];
      if (from.domain != target.domain) seen.insert("copy across domains");
      if (regions.reads[0].parts > 1 || written.parts > 1) seen.insert("copy of a chunk");
      if (sd::ir::is_host(from.space))
        seen.insert(sd::ir::is_host(target.space) ? "copy host to host" : "copy from host memory");
      if (sd::ir::is_host(target.space) && !sd::ir::is_host(from.space)) seen.insert("copy to host memory");
      if (sd::ir::is_host(from.space) && regions.reads[0].parts > 1)
        seen.insert("copy from a chunk of host memory");
      if (from.space == sd::ir::memory_space::pageable || target.space == sd::ir::memory_space::pageable)
        seen.insert("copy of pageable memory");
    } else {
      domains.insert(target.domain);
      if (target.domain < 0) seen.insert("0-d target");
    }
    if (written.parts > 1) {
      seen.insert("chunk written");
      chunk_writer_streams[static_cast<std::size_t>(written.buffer)].insert(s.stream);
      if (chunk_writer_streams[static_cast<std::size_t>(written.buffer)].size() == 2)
        seen.insert("chunks of one buffer written on two streams");
    }
    for (const auto& r : regions.reads) {
      const auto b = static_cast<std::size_t>(r.buffer);
      const auto& info = p.buffers[b];
      if (info.kind == sd::ir::access::temp && writer_stream[b] >= 0 && writer_stream[b] != s.stream)
        seen.insert("temp read on another stream");
      if (r.buffer == s.target && info.kind == sd::ir::access::inout) seen.insert("inout read-modify-write");
      if (info.kind == sd::ir::access::temp && r.parts == 1 && !whole_written[b] && info.domain >= 0)
        seen.insert("temp written by chunks, read whole");
      if (s.kind == sd::ir::stmt_kind::assign && r.parts > 1 && r.part != written.part)
        seen.insert("chunk read at another part than written");
    }
    // Chunks of one buffer cut two ways that meet, one of them written.
    auto note_chunk = [&](const sd::ir::region& r, bool writes) {
      if (r.parts == 1) return;
      auto& list = chunk_accesses[static_cast<std::size_t>(r.buffer)];
      for (const auto& [x, x_writes] : list)
        if (x.parts != r.parts && rt::regions_meet(x, r) && (writes || x_writes))
          seen.insert("overlapping chunks");
      list.emplace_back(r, writes);
    };
    for (const auto& r : regions.reads) note_chunk(r, false);
    note_chunk(written, true);
    if (written.parts == 1) whole_written[static_cast<std::size_t>(written.buffer)] = true;
    writer_stream[static_cast<std::size_t>(written.buffer)] = s.stream;
  }
  for (const auto& n : p.nodes)
    if (n.code == sd::ir::op::param) seen.insert("param");
  // Rank-2 statements and the vectors they broadcast (ir/shape.hpp).
  const auto pv = sd::ir::view_of(p);
  for (const auto& s : p.stmts) {
    if (s.kind != sd::ir::stmt_kind::assign) continue;
    const auto over = p.buffers[static_cast<std::size_t>(s.target)].domain;
    if (over < 0 || !sd::ir::is_product(p.domains[static_cast<std::size_t>(over)])) continue;
    seen.insert("rank-2 statement");
    for (const auto& r : rt::regions_of(p, s).reads) {
      const auto from = p.buffers[static_cast<std::size_t>(r.buffer)].domain;
      const auto index = sd::ir::broadcast_of(pv.domains, from, over);
      if (index == sd::ir::load_index::row_vector) seen.insert("row broadcast");
      if (index == sd::ir::load_index::column_vector) seen.insert("column broadcast");
    }
  }
  if (streams.size() > 1) seen.insert("several streams");
  if (domains.size() > 1) seen.insert("several domains");
  const auto v = sd::view_of(m);
  std::vector<int> slot_users(v.slots.size(), 0);
  for (std::size_t b = 0; b < v.storage.size(); ++b) {
    if (v.storage[b] == sd::storage_register) seen.insert("register temp");
    if (v.storage[b] >= 0 && ++slot_users[static_cast<std::size_t>(v.storage[b])] == 2)
      seen.insert("slot reused");
  }
  if (!v.slots.empty()) seen.insert("workspace slot");
  for (const auto& s : v.ir.stmts)
    if (s.kind == sd::ir::stmt_kind::step && s.code == sd::ir::step_code::matmul &&
        (s.matmul_mode & sd::ir::matmul_epilogue_bits) != 0)
      seen.insert("matmul epilogue folded");
  for (const auto& s : v.ir.stmts)
    if (s.kind == sd::ir::stmt_kind::step && s.code == sd::ir::step_code::matmul &&
        sd::ir::matmul_batch_size(s) > 1)
      seen.insert("matmul batch");
  for (std::size_t k = 0; k < v.kernels.size(); ++k) {
    if (v.kernels[k].count > 1) seen.insert("fused kernel");
    if (v.kernels[k].parts > 1)
      seen.insert(v.kernels[k].count > 1 ? "fused chunked kernel" : "chunked kernel");
  }
  for (const auto& op : v.ops) {
    if (op.role == sd::sync_role::automatic) seen.insert("sync inserted");
    if (op.kind != sd::op_kind::kernel || v.kernels[static_cast<std::size_t>(op.kernel)].segments < 2)
      continue;
    seen.insert("multi-kernel launch");
    std::set<int> launch_domains;
    for (auto k = op.kernel; k < op.kernel + v.kernels[static_cast<std::size_t>(op.kernel)].segments; ++k)
      launch_domains.insert(v.kernels[static_cast<std::size_t>(k)].domain);
    if (launch_domains.size() > 1) seen.insert("launch over several domains");
  }
  if (v.has_note("regrouped out of program order")) seen.insert("statements regrouped for a launch");
  if (v.has_note("buffers per element: split into")) seen.insert("wide run split");
  if (v.has_note("and never stored")) seen.insert("producer moved into a reduction or scan");
  if (v.has_note("already implied")) seen.insert("redundant wait removed");
  // The typed family (the public API) reaches copies and chunks too.
  if (g.family == "typed" && seen.count("copy")) seen.insert("typed: copy");
  if (g.family == "typed" && seen.count("chunk written")) seen.insert("typed: chunk written");
  for (const auto& f : seen) ++t.features[f];
}

void fail(tally& t, const rt::generated_program& g, const std::string& what,
          const sd::plan_model* m = nullptr) {
  if (++t.failures > 5) return;
  t.report << "---- FAILED: " << what << "\n" << g.describe();
  if (m != nullptr) t.report << "plan:\n" << sd::dump(sd::view_of(*m)).view();
  t.report << '\n';
}

bool has_automatic_syncs(const sd::plan_model& m) {
  for (const auto& op : m.ops)
    if (op.role == sd::sync_role::automatic) return true;
  return false;
}

bool has_matmul_batch(const sd::plan_model& m) {
  for (const auto& s : m.ir.stmts)
    if (s.kind == sd::ir::stmt_kind::step && s.code == sd::ir::step_code::matmul &&
        sd::ir::matmul_batch_size(s) > 1)
      return true;
  return false;
}

// Under sd::as_written: whether each stream runs the user's statements
// (assignments and steps) on it, in the user's order, and no others
// (placement moved nothing).
bool nothing_moved(const sd::ir::program& user, const sd::plan_model& m) {
  auto assigns_on = [](const sd::ir::program& p, std::int32_t stream) {
    std::vector<std::string> out;
    for (const auto& s : p.stmts)
      if ((s.kind == sd::ir::stmt_kind::assign || s.kind == sd::ir::stmt_kind::step) && s.stream == stream)
        out.emplace_back(sd::ir::statement_text(sd::ir::view_of(p), s).view());
    return out;
  };
  for (std::int32_t s = 0; s < static_cast<std::int32_t>(user.streams.size()); ++s)
    if (assigns_on(user, s) != assigns_on(m.ir, s)) return false;
  return true;
}

std::string first_error(const sd::plan_model& m) {
  return m.ir.errors.empty() ? std::string() : std::string(m.ir.errors[0].message.view());
}

// Schedules g under `o` and checks what must hold for that policy.
void check_schedule(tally& t, const rt::generated_program& g, sd::options o) {
  ++t.schedules;
  const auto m = sd::passes::schedule(g.user, o);
  const std::string label = "schedule under " + rt::describe(o) + ": ";
  // sd::program freezes the passes' result into arrays sized by these bounds.
  if (!sd::fits_within(sd::sizes_of(m), sd::bounds_of(g.user, o)))
    return fail(t, g, label + "the plan outgrows bounds_of (passes/schedule.hpp)", &m);
  if (o.sync == sd::sync_policy::checked && g.racy) {
    if (m.ir.ok() || m.ir.errors[0].kind != sd::diag::error_kind::race)
      fail(t, g, label + "a racy program was not rejected with a race error");
    return;
  }
  if (!m.ir.ok()) return fail(t, g, label + "unexpected error: " + first_error(m));
  if (o.sync == sd::sync_policy::automatic) {
    if (const auto r = sd::passes::find_race(sd::ir::view_of(m.ir)); r.buffer >= 0)
      return fail(t, g,
                  label + "the scheduled statements still race: " +
                      std::string(sd::passes::describe_race(sd::ir::view_of(m.ir), r).view()),
                  &m);
    // A batch (passes/batch_matmuls.hpp) moves its members to one stream,
    // which may need syncs the written program did not.
    if (!g.racy && has_automatic_syncs(m) && !has_matmul_batch(m))
      return fail(t, g, label + "inserted syncs into a race-free program", &m);
  }
  if (o.placement == sd::placement_policy::as_written && !nothing_moved(g.user, m))
    return fail(t, g, label + "a statement moved to another stream under sd::as_written", &m);
  if (const auto problem = rt::check_plan(sd::view_of(m), g.user); !problem.empty())
    return fail(t, g, label + "unsound plan: " + problem, &m);
  // The dump and the graph of every plan (under ASan and UBSan this checks them too).
  if (sd::dump(sd::view_of(m)).size() == 0 || sd::dump_dot(sd::view_of(m)).size() == 0)
    return fail(t, g, label + "empty dump", &m);
}

}  // namespace

TEST_CASE("random programs: race model, sync insertion and plans", "[random]") {
  const auto settings = rt::settings_from_env(1000);
  tally t;
  for (std::uint64_t seed = settings.first_seed; seed < settings.first_seed + settings.programs; ++seed) {
    const auto g = rt::generate_program(seed);
    ++t.programs;
    if (!g.user.ok()) {
      fail(t, g,
           "the generated program has a front-end error: " + std::string(g.user.errors[0].message.view()));
      continue;
    }
    (g.opts.sync == sd::sync_policy::automatic ? t.automatic : t.checked) += 1;
    t.racy += g.racy;
    t.syncs_left_out += g.syncs_left_out;

    const auto library_race = sd::passes::find_race(sd::ir::view_of(g.user));
    if ((library_race.buffer >= 0) != g.racy) {
      fail(t, g,
           g.racy ? "find_race misses a race the tester's model sees"
                  : "find_race reports a race the tester's model does not see: " +
                        std::string(sd::passes::describe_race(sd::ir::view_of(g.user), library_race).view()));
      continue;
    }
    // The program's own options, then the same program under the others.
    check_schedule(t, g, g.opts);
    if (const auto m = sd::passes::schedule(g.user, g.opts); m.ir.ok()) count_features(t, g, m);
    for (auto sync : {sd::checked, sd::automatic})
      for (bool fusion : {true, false})
        for (auto placement : {sd::placement_policy::strict, sd::placement_policy::relaxed,
                               sd::placement_policy::as_written}) {
          sd::options o = sync;
          o.fusion = fusion;
          o.placement = placement;
          if (!(o == g.opts)) check_schedule(t, g, o);
        }
  }
  std::cout << "random programs: " << t.programs << " generated (" << t.checked << " checked, " << t.automatic
            << " automatic; " << t.racy << " race as written, " << t.syncs_left_out
            << " syncs left to the scheduler), " << t.schedules << " schedules checked, " << t.failures
            << " failures\n";
  std::cout << "programs with:";
  for (const auto& [feature, n] : t.features) std::cout << ' ' << feature << ' ' << n << ',';
  std::cout << '\n' << t.report.str();
  CHECK(t.failures == 0);
  // Every shape of copy the generators mean to make is made (a generator
  // change that stops making one would otherwise pass unnoticed).
  if (settings.programs >= 1000)
    for (const char* f : {"copy",
                          "copy of a chunk",
                          "copy across domains",
                          "copy from host memory",
                          "copy to host memory",
                          "copy host to host",
                          "copy from a chunk of host memory",
                          "copy of pageable memory",
                          "chunk written",
                          "typed: copy",
                          "typed: chunk written",
                          "multi-kernel launch",
                          "launch over several domains",
                          "statements regrouped for a launch",
                          "wide run split",
                          "reduction",
                          "scan",
                          "reduction or scan of a fused expression",
                          "scan into a chunk",
                          "argmax",
                          "rank-2 statement",
                          "row broadcast",
                          "column broadcast",
                          "reduction along an axis",
                          "scan along an axis",
                          "matmul",
                          "matmul epilogue folded",
                          "all_reduce",
                          "broadcast",
                          "reduce_scatter",
                          "all_gather",
                          "collective in place",
                          "collective of a chunk",
                          "matmul batch",
                          "call",
                          "host call",
                          "call updating in place"}) {
      INFO("feature: " << f);
      CHECK(t.features[f] > 0);
    }
}

TEST_CASE("random programs: the plan check catches the races sd::unchecked leaves in", "[random]") {
  // Without this the check above could pass by checking nothing.
  int racy_seen = 0;
  for (std::uint64_t seed = 1; racy_seen < 20 && seed < 5000; ++seed) {
    const auto g = rt::generate_program(seed);
    if (!g.racy) continue;
    ++racy_seen;
    const auto m = sd::passes::schedule(g.user, sd::unchecked);
    REQUIRE(m.ir.ok());
    INFO(g.describe() << sd::dump(sd::view_of(m)).view());
    CHECK(!rt::check_plan(sd::view_of(m), g.user).empty());
  }
  CHECK(racy_seen == 20);
}

TEST_CASE("random programs: the plan check follows copies and chunks", "[random]") {
  // Unsynchronised (sd::unchecked) plans of small programs: the check must
  // see a copy's race, and a race between chunks exactly when they meet.
  auto problem = [](auto body, sd::options o) {
    sd::builder b;
    body(b);
    const sd::ir::program user = b.ir();
    const auto m = sd::passes::schedule(static_cast<sd::builder&&>(b).ir(), o);
    REQUIRE(m.ir.ok());
    return rt::check_plan(sd::view_of(m), user);
  };
  auto copy_on_side = [](sd::builder& p) {
    auto x = p.input<float>("x");
    auto t = p.temp<float>("t");
    auto y = p.output<float>("y");
    auto side = p.stream("side");
    t = x + 1;
    sd::with_stream(side, [&] { sd::copy(y, t); });
  };
  CHECK(problem(copy_on_side, sd::unchecked).find("user statements #0 (writes 't') and #1 (reads 't')") !=
        std::string::npos);
  CHECK(problem(copy_on_side, sd::automatic).empty());
  auto chunks = [](int a, int ka, int b, int kb) {
    return [=](sd::builder& p) {
      auto x = p.input<float>("x");
      auto y = p.output<float>("y");
      auto side = p.stream("side");
      sd::with_stream(side, [&] { y.chunk(a, ka) = x.chunk(a, ka) + 1; });
      y.chunk(b, kb) = x.chunk(b, kb) * 2;
      y.chunk(1 - a, 2) = x.chunk(1 - a, 2);  // races too wherever it meets the side's chunk
    };
  };
  CHECK(problem(chunks(0, 2, 1, 2), sd::unchecked).empty());
  CHECK(problem(chunks(0, 3, 1, 2), sd::unchecked).empty());   // [0, 1/3) and [1/2, 1)
  CHECK(!problem(chunks(0, 2, 1, 4), sd::unchecked).empty());  // quarter 1 lies in half 0
  CHECK(!problem(chunks(1, 3, 1, 2), sd::unchecked).empty());  // [1/3, 2/3) meets [1/2, 1)
  CHECK(problem(chunks(1, 3, 1, 2), sd::automatic).empty());
}
