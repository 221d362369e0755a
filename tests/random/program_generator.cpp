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
    // One program in five has collectives (ops/collective.hpp), run on a
    // loopback world of two ranks (host_run.hpp). Drawn from a generator of
    // its own: the other programs' draws, and so the programs, stay as they were.
    collectives_ = rng(seed ^ 0xc011ec71e5ull).chance(0.2);
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
    // About half the programs cut buffers into chunks; their extents are
    // chosen so that several chunk counts divide them.
    chunks_ = r_.chance(0.5);
    copies_ = r_.chance(0.5);
    // Some programs with copies keep buffers in host memory (pinned or
    // pageable), which only copies may touch.
    spaces_ = copies_ && r_.chance(0.6);
    auto extent = [&] { return chunks_ ? chunk_friendly_extent(r_) : random_extent(r_); };
    g.inputs.extents.push_back(extent());
    const auto domains = 1 + r_.below(3);
    for (std::size_t d = 1; d < domains; ++d) {
      access::add_domain(b_, "d" + std::to_string(d));
      g.inputs.extents.push_back(extent());
    }
    // Some programs have rank-2 buffers over the product of two domains (one
    // domain twice: a square matrix), kept small: the reference evaluates
    // every element.
    if (r_.chance(0.3)) {
      const auto outer = static_cast<std::int32_t>(r_.below(domains));
      // Square ones often: sd::matmul's operands and product share their one domain.
      const auto inner = r_.chance(0.4) ? outer : static_cast<std::int32_t>(r_.below(domains));
      auto& rows = g.inputs.extents[static_cast<std::size_t>(outer)];
      auto& cols = g.inputs.extents[static_cast<std::size_t>(inner)];
      if (outer == inner && rows > 150) rows = 1 + rows % 150;
      if (outer != inner && rows * cols > 20000) rows = 1 + 20000 / cols;
      product_ = access::product_domain(b_, outer, inner);
      g.inputs.extents.push_back(rows * cols);
    }
    extents_ = g.inputs.extents;
    for (auto n : extents_) counts_.push_back(chunks_ ? chunk_counts_of(n) : std::vector<std::int32_t>{});
    if (product_ >= 0) counts_[static_cast<std::size_t>(product_)].clear();  // rank-2 buffers have no chunks
    constexpr std::int32_t counts[] = {2, 3, 4, 6, 8};
    favourite_count_ = counts[r_.below(5)];
    auto declare_buffers = [&](ir::access kind, const char* prefix, std::size_t lo, std::size_t hi) {
      const auto n = lo + r_.below(hi - lo + 1);
      for (std::size_t i = 0; i < n; ++i) {
        const auto domain = r_.chance(0.15) ? -1
                            : product_ >= 0 && r_.chance(0.35)
                                ? product_
                                : static_cast<std::int32_t>(r_.below(domains) * r_.below(2));
        // Copies need two buffers of one element type: programs with copies
        // draw from fewer types.
        const auto type = copies_ && r_.chance(0.5) ? dtype::float32 : random_dtype(r_);
        // The first buffer of each kind stays on the device, so that every
        // program has somewhere to assign to.
        auto space = ir::memory_space::device;
        if (spaces_ && i > 0 && kind != ir::access::temp && r_.chance(0.4))
          space = r_.chance(0.5) ? ir::memory_space::pinned : ir::memory_space::pageable;
        access::add_buffer(b_, prefix + std::to_string(i), kind, type, domain, space);
      }
    };
    // A few programs have many buffers, so that runs touch more buffers than
    // one loop keeps (passes/split_wide_runs.hpp cuts such runs).
    wide_ = r_.chance(0.1);
    // Some programs reduce and scan (ops/reduce.hpp, ops/scan.hpp).
    steps_ = r_.chance(product_ >= 0 ? 0.6 : 0.35);
    calls_ = r_.chance(0.3);
    const std::size_t wide = wide_ ? 3 : 1;
    declare_buffers(ir::access::input, "in", 1, 4 * wide);
    declare_buffers(ir::access::inout, "io", 0, 2 * wide);
    declare_buffers(ir::access::output, "out", 1, 4 * wide);
    declare_buffers(ir::access::temp, "t", 0, 6 * wide);
    if (collectives_) {
      // For sd::reduce_scatter and sd::all_gather on collective_ranks = 2
      // ranks: a domain twice as long as domain 0 (its extent is set below),
      // an inout and an output over it, and an inout over domain 0, of one
      // type the reductions take.
      gathered_ = access::add_domain(b_, "gathered");
      g.inputs.extents.push_back(0);
      extents_.push_back(0);
      counts_.emplace_back();  // whole buffers only
      gathered_type_ = r_.chance(0.5) ? dtype::float32 : dtype::int32;
      access::add_buffer(b_, "ga", ir::access::inout, gathered_type_, gathered_);
      access::add_buffer(b_, "gat", ir::access::output, gathered_type_, gathered_);
      access::add_buffer(b_, "gs", ir::access::inout, gathered_type_, 0);
    }
    // Some programs with matmuls have several float matrices, so that two
    // matmuls of one shape over six distinct buffers (a batch,
    // passes/batch_matmuls.hpp; twin() below) can be drawn.
    if (steps_ && product_ >= 0 && r_.chance(0.3)) {
      for (int i = 0; i < 4; ++i)
        access::add_buffer(b_, "mi" + std::to_string(i), ir::access::input, dtype::float32, product_,
                           ir::memory_space::device);
      for (int i = 0; i < 3; ++i)
        access::add_buffer(b_, "mo" + std::to_string(i), i == 2 ? ir::access::temp : ir::access::output,
                           dtype::float32, product_, ir::memory_space::device);
    }
    // A domain is as long as the buffers bound to it: one with only temps
    // is empty (its statements do nothing, and copies from it are empty too).
    // A rank-2 buffer bound gives its rows and columns their extents, and a
    // product domain's extent is theirs multiplied.
    const auto& all = access::ir(b_).domains;
    for (std::size_t d = 0; d < domains; ++d) {
      bool bound = false;
      for (const auto& b : access::ir(b_).buffers) {
        const auto over = static_cast<std::int32_t>(d);
        const bool in_product = b.domain >= 0 && (all[static_cast<std::size_t>(b.domain)].outer == over ||
                                                  all[static_cast<std::size_t>(b.domain)].inner == over);
        bound = bound || ((b.domain == over || in_product) && b.kind != ir::access::temp);
      }
      if (!bound) {
        g.inputs.extents[d] = extents_[d] = 0;
        if (chunks_) counts_[d] = chunk_counts_of(0);
      }
    }
    if (product_ >= 0) {
      const auto& p = all[static_cast<std::size_t>(product_)];
      g.inputs.extents[static_cast<std::size_t>(product_)] = extents_[static_cast<std::size_t>(product_)] =
          extents_[static_cast<std::size_t>(p.outer)] * extents_[static_cast<std::size_t>(p.inner)];
    }
    if (gathered_ >= 0)
      g.inputs.extents[static_cast<std::size_t>(gathered_)] = extents_[static_cast<std::size_t>(gathered_)] =
          2 * extents_[0];
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
    for (; done_ < assigns;) {
      const auto current = scopes.empty() ? ir::main_stream : scopes.back();
      access::current_stream(b_) = current;
      const auto x = r_.below(100);
      if (x < 16 && scopes.size() < 3) {
        scopes.push_back(random_stream());  // nested scope
      } else if (x < 26 && !scopes.empty()) {
        scopes.pop_back();
      } else if (x < 34) {
        random_sync(current);
      } else if (x < 42 && chunks_) {
        chunk_loop(current);
      } else if (x < 45 && wide_) {
        tensor_loop(current);
      } else if (x < 50 && steps_ && (r_.chance(0.7) ? reduce_or_scan(current) : matmul(current))) {
      } else if (x < 54 && copies_) {
        const auto dst = random_target(chunks_ && r_.chance(0.4), spaces_ && r_.chance(0.5));
        if (!copy(current, dst) && !on_host(dst.buffer)) assign(current, dst);
      } else if (x >= 54 && x < 60 && collectives_ &&
                 (r_.chance(0.35) ? scatter_or_gather(current)
                                  : collective(current, random_target(chunks_ && r_.chance(0.4))))) {
      } else if (x >= 90 && x < 94 && calls_) {
        // Now and then a host step (p.host_call) over host buffers only.
        const bool host = spaces_ && r_.chance(0.4);
        if (!call(current, random_target(chunks_ && r_.chance(0.4), host), host))
          assign(current, random_target(false));
      } else if (x >= 94 && matmul(current)) {
      } else {
        assign(current, random_target(chunks_ && r_.chance(0.4)));
      }
    }
  }

  std::int32_t random_stream() { return static_cast<std::int32_t>(r_.below(access::ir(b_).streams.size())); }

  // --- regions --------------------------------------------------------------------
  const ir::buffer_info& info_of(std::int32_t buffer) const {
    return access::ir(b_).buffers[static_cast<std::size_t>(buffer)];
  }
  std::size_t extent_of(std::int32_t buffer) const {
    const auto d = info_of(buffer).domain;
    return d < 0 ? 1 : extents_[static_cast<std::size_t>(d)];
  }
  const std::vector<std::int32_t>& counts_of(std::int32_t buffer) const {
    static const std::vector<std::int32_t> none;
    const auto d = info_of(buffer).domain;
    return d < 0 ? none : counts_[static_cast<std::size_t>(d)];
  }
  std::size_t size_of_region(const ir::region& r) const {
    return extent_of(r.buffer) / static_cast<std::size_t>(r.parts);
  }
  // A chunk count for a buffer: the program's favourite most often (so that
  // chunks line up into pipelines), any other it allows sometimes, 1 (the
  // whole buffer) when none divides its extent.
  std::int32_t chunk_count_for(std::int32_t buffer) {
    const auto& counts = counts_of(buffer);
    if (counts.empty()) return 1;
    for (auto k : counts)
      if (k == favourite_count_ && r_.chance(0.6)) return k;
    return r_.pick(counts);
  }
  // Host memory (sd::pinned, sd::pageable): only copies may read or write it.
  bool on_host(std::int32_t buffer) const { return ir::is_host(info_of(buffer).space); }

  // A random region to write: a whole buffer, or (chunked) a chunk of one;
  // in host memory only when `host` (the target of a copy).
  ir::region random_target(bool chunked, bool host = false) {
    std::vector<std::int32_t> targets;
    for (std::int32_t i = 0; i < static_cast<std::int32_t>(access::ir(b_).buffers.size()); ++i)
      if (info_of(i).kind != ir::access::input && (!chunked || !counts_of(i).empty()) && on_host(i) == host)
        targets.push_back(i);
    if (targets.empty()) return random_target(false);
    const auto target = r_.pick(targets);
    if (!chunked) return ir::whole(target);
    const auto k = chunk_count_for(target);
    return chunk(target, static_cast<std::int32_t>(r_.below(static_cast<std::size_t>(k))), k);
  }
  ir::region chunk(std::int32_t buffer, std::int32_t part, std::int32_t parts) {
    if (parts == 1) return ir::whole(buffer);
    return access::chunk(b_, buffer, part, parts);
  }

  bool readable(const ir::region& r) const {
    const auto kind = info_of(r.buffer).kind;
    return kind == ir::access::input || kind == ir::access::inout || model_->written(r);
  }

  // The builder stores a statement's regions; the tester's model reads them
  // from there, so check they are the ones the generator meant.
  void check_written_as_meant(const std::vector<ir::region>& reads, const ir::region& written) const {
    const auto& p = access::ir(b_);
    const auto regions = regions_of(p, p.stmts.back());
    bool same =
        regions.writes.size() == 1 && regions.writes[0] == written && regions.reads.size() == reads.size();
    for (const auto& r : reads) {
      bool found = false;
      for (const auto& x : regions.reads) found = found || x == r;
      same = same && found;
    }
    if (!same) throw std::logic_error("generator: the builder stored other regions than the statement's");
  }

  // --- statements -----------------------------------------------------------------
  // `target` = a random expression over its shape (the target's domain and
  // chunk count; `prefer`, when set, is a region the leaves favour).
  void assign(std::int32_t stream, ir::region target, ir::region prefer = {},
              const std::vector<std::int32_t>* only = nullptr) {
    const auto& info = info_of(target.buffer);
    model_->observe(access::ir(b_));
    const shape sh{info.domain, target, prefer, only, vector_domain(info.domain)};
    operand value = expression(
        category_of(info.type) == dtype_category::boolean || r_.chance(0.1) ? want::boolean : want::numeric,
        static_cast<int>(r_.below(4)), sh);
    if (!assignable(info.type, value.type.type) || r_.chance(0.1))
      value = access::unary(b_, ir::op::cast, value, info.type, info.type);
    std::vector<ir::region> reads;
    regions_loaded(access::ir(b_), value.node, reads);
    order_before(stream, reads, {target});
    access::current_stream(b_) = stream;
    access::assign(b_, target, value);
    check_written_as_meant(reads, target);
    ++done_;
  }

  // A reduction of a random numeric expression into a 0-d buffer, or a scan
  // of one into a region (`s = sd::sum(x * y)`, `y.chunk(1, 4) =
  // sd::exclusive_sum(...)`); false when the chosen target cannot hold the
  // result (then nothing is written).
  bool reduce_or_scan(std::int32_t stream) {
    using ir::step_code;
    model_->observe(access::ir(b_));
    const bool scan = r_.chance(0.4);
    ir::region target;
    shape sh{};
    std::int32_t axis = -1;  // along the last axis of a rank-2 expression
    const auto* rank2 = product_ >= 0 ? &access::ir(b_).domains[static_cast<std::size_t>(product_)] : nullptr;
    if (scan) {
      target = random_target(chunks_ && r_.chance(0.4));
      const auto domain = info_of(target.buffer).domain;
      sh = {domain, target, {}, nullptr, vector_domain(domain)};
      if (domain >= 0 && domain == product_ && r_.chance(0.6)) axis = rank2->inner;
    } else if (rank2 != nullptr && r_.chance(0.5)) {  // each row into a column
      std::vector<std::int32_t> columns;
      for (std::int32_t i = 0; i < static_cast<std::int32_t>(access::ir(b_).buffers.size()); ++i)
        if (!on_host(i) && info_of(i).domain == rank2->outer && info_of(i).kind != ir::access::input)
          columns.push_back(i);
      if (columns.empty()) return false;
      target = ir::whole(r_.pick(columns));
      axis = rank2->inner;
      sh = {product_, ir::whole(target.buffer), {}, nullptr, vector_domain(product_)};
    } else {
      std::vector<std::int32_t> scalars, shaped;
      for (std::int32_t i = 0; i < static_cast<std::int32_t>(access::ir(b_).buffers.size()); ++i) {
        if (on_host(i)) continue;
        if (info_of(i).domain < 0 && info_of(i).kind != ir::access::input) scalars.push_back(i);
        if (info_of(i).domain >= 0) shaped.push_back(i);
      }
      if (scalars.empty()) return false;
      target = ir::whole(r_.pick(scalars));
      // The shape reduced: a buffer's domain, whole or cut like one of its chunks.
      const auto like = shaped.empty() ? target.buffer : r_.pick(shaped);
      const auto k = chunks_ && r_.chance(0.5) ? chunk_count_for(like) : 1;
      sh = {info_of(like).domain,
            {like, static_cast<std::int32_t>(r_.below(static_cast<std::size_t>(k))), k},
            {},
            nullptr};
    }
    operand value =
        expression(r_.chance(0.15) ? want::boolean : want::numeric, static_cast<int>(r_.below(4)), sh);
    // Along an axis, and a scan into a rank-2 target, need a rank-2 expression.
    if ((axis >= 0 || (scan && sh.domain >= 0 && sh.domain == product_)) && !over_product(value))
      return false;
    const auto& root = access::ir(b_).nodes[static_cast<std::size_t>(value.node)];
    const bool empty = axis >= 0
                           ? extents_[static_cast<std::size_t>(axis)] == 0 &&
                                 extents_[static_cast<std::size_t>(
                                     access::ir(b_).domains[static_cast<std::size_t>(root.domain)].outer)] > 0
                           : root.domain >= 0 && extents_[static_cast<std::size_t>(root.domain)] == 0;
    constexpr step_code reductions[] = {step_code::sum,  step_code::min,  step_code::max,
                                        step_code::mean, step_code::norm, step_code::argmax};
    auto code = scan ? (r_.chance(0.5) ? step_code::inclusive_sum : step_code::exclusive_sum)
                     : reductions[r_.below(6)];
    if (!scan && empty && code != step_code::mean && code != step_code::norm) code = step_code::sum;
    if (ir::info(code).result == ir::step_result::floating &&
        category_of(value.type.type) != dtype_category::floating) {
      const auto t = r_.chance(0.5) ? dtype::float32 : dtype::float64;
      value = access::unary(b_, ir::op::cast, value, t, t);
    }
    const auto result = ir::step_result_type(code, value.type.type);
    if (!assignable(info_of(target.buffer).type, result)) return false;
    std::vector<ir::region> reads;
    regions_loaded(access::ir(b_), value.node, reads);
    // Each row's result stored while a square matrix's statement reads the
    // target as a row: refused (row_reduction_reads_its_target).
    if (axis >= 0 && !scan && info_of(target.buffer).domain == axis)
      for (const auto& r : reads)
        if (r.buffer == target.buffer) return false;
    order_before(stream, reads, {target});
    access::current_stream(b_) = stream;
    access::reduce_or_scan(b_, code, target, value, axis);
    check_written_as_meant(reads, target);
    ++done_;
    return true;
  }

  // c = sd::matmul(a, b) over a square product domain (the only shape whose
  // product has a domain of the program), each operand maybe transposed;
  // false when there are no operands of the target's type.
  bool matmul(std::int32_t stream) {
    if (product_ < 0) return false;
    const auto& d = access::ir(b_).domains[static_cast<std::size_t>(product_)];
    if (d.outer != d.inner) return false;
    model_->observe(access::ir(b_));
    std::vector<std::int32_t> targets;
    for (std::int32_t i = 0; i < static_cast<std::int32_t>(access::ir(b_).buffers.size()); ++i)
      if (info_of(i).domain == product_ && !on_host(i) && info_of(i).kind != ir::access::input &&
          ir::matmul_supports(info_of(i).type))
        targets.push_back(i);
    if (targets.empty()) return false;
    const auto c = r_.pick(targets);
    std::vector<std::int32_t> operands;
    for (std::int32_t i = 0; i < static_cast<std::int32_t>(access::ir(b_).buffers.size()); ++i)
      if (i != c && info_of(i).domain == product_ && !on_host(i) && info_of(i).type == info_of(c).type &&
          readable(ir::whole(i)))
        operands.push_back(i);
    if (operands.empty()) return false;
    const auto a = r_.pick(operands), b = r_.pick(operands);
    std::vector<ir::region> reads{ir::whole(a)};
    if (b != a) reads.push_back(ir::whole(b));
    order_before(stream, reads, {ir::whole(c)});
    access::current_stream(b_) = stream;
    const auto mode = static_cast<std::uint8_t>(r_.below(4));
    access::matmul(b_, ir::whole(c), a, b, mode);
    check_written_as_meant(reads, ir::whole(c));
    ++done_;
    if (r_.chance(0.7))
      epilogue(stream, c);
    else if (r_.chance(0.5))
      twin(random_stream(), c, a, b, mode);
    return true;
  }

  // Right after c0 = sd::matmul(a0, b0): another matmul of its type and mode
  // over buffers none of which it touches, on `stream`: what
  // passes/batch_matmuls.hpp makes a batch of (when independent).
  void twin(std::int32_t stream, std::int32_t c0, std::int32_t a0, std::int32_t b0, std::uint8_t mode) {
    const auto& p = access::ir(b_);
    const auto fresh = [&](std::int32_t i) {
      return i != c0 && i != a0 && i != b0 && info_of(i).domain == product_ && !on_host(i) &&
             info_of(i).type == info_of(c0).type;
    };
    std::vector<std::int32_t> targets;
    for (std::int32_t i = 0; i < static_cast<std::int32_t>(p.buffers.size()); ++i)
      if (fresh(i) && info_of(i).kind != ir::access::input) targets.push_back(i);
    if (targets.empty()) return;
    const auto c = r_.pick(targets);
    std::vector<std::int32_t> operands;
    for (std::int32_t i = 0; i < static_cast<std::int32_t>(p.buffers.size()); ++i)
      if (i != c && fresh(i) && readable(ir::whole(i))) operands.push_back(i);
    if (operands.size() < 2) return;
    const auto a = r_.pick(operands);
    auto b = r_.pick(operands);
    if (b == a) b = operands[0] == a ? operands[1] : operands[0];
    const std::vector<ir::region> reads{ir::whole(a), ir::whole(b)};
    order_before(stream, reads, {ir::whole(c)});
    access::current_stream(b_) = stream;
    access::matmul(b_, ir::whole(c), a, b, mode);
    check_written_as_meant(reads, ir::whole(c));
    ++done_;
  }

  // c = act(alpha * c + bias) right after c = sd::matmul(a, b), each part
  // maybe left out: what passes/matmul_epilogue.hpp folds into the matmul
  // (when no sync comes between them and the types allow), so that the
  // folded epilogue is compared with the reference's consumer.
  void epilogue(std::int32_t stream, std::int32_t c) {
    model_->observe(access::ir(b_));
    const auto t = info_of(c).type;
    const auto cols = access::ir(b_).domains[static_cast<std::size_t>(product_)].inner;
    operand value = access::load(b_, ir::whole(c));
    if (r_.chance(0.5)) {  // alpha: a param of c's type, or a float literal
      std::vector<std::int32_t> params;
      for (std::int32_t i = 0; i < static_cast<std::int32_t>(access::ir(b_).params.size()); ++i)
        if (access::ir(b_).params[static_cast<std::size_t>(i)].type == t) params.push_back(i);
      const auto alpha =
          !params.empty() && r_.chance(0.5)
              ? access::param(b_, r_.pick(params))
              : access::literal(b_, dtype::float32, static_cast<double>(r_.between(-20, 20)) / 8, 0);
      value = r_.chance(0.5) ? access::binary(b_, ir::op::mul, alpha, value)
                             : access::binary(b_, ir::op::mul, value, alpha);
    }
    std::vector<std::int32_t> biases;
    for (std::int32_t i = 0; i < static_cast<std::int32_t>(access::ir(b_).buffers.size()); ++i)
      if (info_of(i).domain == cols && info_of(i).type == t && !on_host(i) && readable(ir::whole(i)))
        biases.push_back(i);
    if (!biases.empty() && r_.chance(0.7)) {
      const auto bias = access::load(b_, ir::whole(r_.pick(biases)));
      value = r_.chance(0.5) ? access::binary(b_, ir::op::add, value, bias)
                             : access::binary(b_, ir::op::add, bias, value);
    }
    const auto x = r_.below(3);
    if (x < 2) value = access::unary(b_, x == 0 ? ir::op::relu : ir::op::gelu_tanh, value, t, t);
    if (value.type.type != t) value = access::unary(b_, ir::op::cast, value, t, t);
    std::vector<ir::region> reads;
    regions_loaded(access::ir(b_), value.node, reads);
    order_before(stream, reads, {ir::whole(c)});
    access::current_stream(b_) = stream;
    access::assign(b_, ir::whole(c), value);
    check_written_as_meant(reads, ir::whole(c));
    ++done_;
  }

  // Makes `value` a rank-2 expression (over product_) when it is a row, a
  // column or 0-d: combined by max with a rank-2 buffer in its type; false
  // when no rank-2 buffer holds values.
  bool over_product(operand& value) {
    if (access::ir(b_).nodes[static_cast<std::size_t>(value.node)].domain == product_) return true;
    std::vector<std::int32_t> matrices;
    for (std::int32_t i = 0; i < static_cast<std::int32_t>(access::ir(b_).buffers.size()); ++i)
      if (info_of(i).domain == product_ && !on_host(i) && readable(ir::whole(i))) matrices.push_back(i);
    if (matrices.empty()) return false;
    const auto t = value.type.type;
    const auto m = access::unary(b_, ir::op::cast, access::load(b_, r_.pick(matrices)), t, t);
    value = access::binary(b_, ir::op::max, value, m);
    return true;
  }

  // sd::copy(dst, src) from a region of the same element type and size that
  // holds values and does not overlap dst (in another domain too, when the
  // sizes agree); false when there is none. `prefer` is taken when it fits.
  bool copy(std::int32_t stream, ir::region dst, ir::region prefer = {}) {
    model_->observe(access::ir(b_));
    const auto& to = info_of(dst.buffer);
    const auto size = size_of_region(dst);
    auto fits = [&](const ir::region& r) {
      const auto& from = info_of(r.buffer);
      return from.type == to.type && size_of_region(r) == size && readable(r) && !regions_meet(r, dst) &&
             !(from.domain == to.domain && r.parts != dst.parts);
    };
    std::vector<ir::region> sources;
    const bool preferred = prefer.buffer >= 0 && fits(prefer) && r_.chance(0.8);
    if (preferred) sources.push_back(prefer);
    for (std::int32_t b = 0; !preferred && b < static_cast<std::int32_t>(access::ir(b_).buffers.size());
         ++b) {
      if (fits(ir::whole(b))) sources.push_back(ir::whole(b));
      for (auto k : counts_of(b))
        for (std::int32_t part = 0; part < k; ++part)
          if (fits({b, part, k})) sources.push_back({b, part, k});
    }
    if (sources.empty()) return false;
    auto src = r_.pick(sources);
    src = chunk(src.buffer, src.part, src.parts);
    order_before(stream, {src}, {dst});
    access::current_stream(b_) = stream;
    access::copy(b_, dst, src);
    check_written_as_meant({src}, dst);
    ++done_;
    return true;
  }

  // A collective writing dst (ops/collective.hpp): sd::all_reduce with a
  // random op (avg only of floating types), in place or from a region of
  // dst's type and size that holds values and does not meet it, or
  // sd::broadcast from rank 0 or 1. false when dst is in host memory, of a
  // type no all_reduce reduces, or has no source.
  bool collective(std::int32_t stream, ir::region dst) {
    model_->observe(access::ir(b_));
    const auto& to = info_of(dst.buffer);
    if (on_host(dst.buffer)) return false;
    const bool broadcast = r_.chance(0.3);
    if (!broadcast && !ir::nccl_reduces(to.type)) return false;
    ir::region src = dst;
    if (!readable(dst) || r_.chance(0.5)) {
      const auto size = size_of_region(dst);
      auto fits = [&](const ir::region& r) {
        const auto& from = info_of(r.buffer);
        return from.type == to.type && size_of_region(r) == size && readable(r) && !regions_meet(r, dst) &&
               !on_host(r.buffer) && !(from.domain == to.domain && r.parts != dst.parts);
      };
      std::vector<ir::region> sources;
      for (std::int32_t b = 0; b < static_cast<std::int32_t>(access::ir(b_).buffers.size()); ++b) {
        if (fits(ir::whole(b))) sources.push_back(ir::whole(b));
        for (auto k : counts_of(b))
          for (std::int32_t part = 0; part < k; ++part)
            if (fits({b, part, k})) sources.push_back({b, part, k});
      }
      if (sources.empty()) {
        if (!readable(dst)) return false;
      } else {
        src = r_.pick(sources);
        src = chunk(src.buffer, src.part, src.parts);
      }
    }
    constexpr reduce_op ops[] = {reduce_op::sum, reduce_op::prod, reduce_op::min, reduce_op::max,
                                 reduce_op::avg};
    auto op = ops[r_.below(category_of(to.type) == dtype_category::floating ? 5 : 4)];
    order_before(stream, {src}, {dst});
    access::current_stream(b_) = stream;
    access::collective(b_, broadcast ? ir::step_code::broadcast : ir::step_code::all_reduce, dst, src, op,
                       broadcast ? static_cast<std::int32_t>(r_.below(2)) : 0);
    ++done_;
    return true;
  }

  // y = sd::reduce_scatter(x, op) from a buffer over `gathered` into one over
  // domain 0 (half as long), or y = sd::all_gather(x) the other way, whole
  // buffers of gathered_type_; false when no source holds values yet.
  bool scatter_or_gather(std::int32_t stream) {
    model_->observe(access::ir(b_));
    const bool scatter = r_.chance(0.5);
    const auto from = scatter ? gathered_ : 0, to = scatter ? 0 : gathered_;
    std::vector<std::int32_t> targets, sources;
    for (std::int32_t b = 0; b < static_cast<std::int32_t>(access::ir(b_).buffers.size()); ++b) {
      const auto& info = info_of(b);
      if (on_host(b) || info.type != gathered_type_) continue;
      if (info.domain == to && info.kind != ir::access::input) targets.push_back(b);
      if (info.domain == from && readable(ir::whole(b))) sources.push_back(b);
    }
    if (targets.empty() || sources.empty()) return false;
    const auto dst = r_.pick(targets), src = r_.pick(sources);
    constexpr reduce_op ops[] = {reduce_op::sum, reduce_op::prod, reduce_op::min, reduce_op::max,
                                 reduce_op::avg};
    const auto op = ops[r_.below(category_of(gathered_type_) == dtype_category::floating ? 5 : 4)];
    order_before(stream, {ir::whole(src)}, {ir::whole(dst)});
    access::current_stream(b_) = stream;
    access::collective(b_, scatter ? ir::step_code::reduce_scatter : ir::step_code::all_gather,
                       ir::whole(dst), ir::whole(src), op, 0);
    ++done_;
    return true;
  }

  // p.call("rev" or "rev2", sd::reads(r0, ..), sd::writes(w0, ..)) with the
  // tester's meaning (reference.hpp, call): each written region wj gets the
  // elements of rj in reverse order, rj of wj's type and size (wj itself
  // for an update in place); a further read only orders. false when dst has
  // no source. `host`: a host step ("hrev", p.host_call) over host buffers
  // only; false when dst is not in host memory.
  bool call(std::int32_t stream, ir::region dst, bool host = false) {
    if (host && !on_host(dst.buffer)) return false;
    model_->observe(access::ir(b_));
    std::vector<ir::region> writes{dst}, reads;
    auto meets_any = [&](const ir::region& r, const std::vector<ir::region>& list) {
      for (const auto& x : list)
        if (regions_meet(r, x)) return true;
      return false;
    };
    // A second write now and then: a region of another buffer, in no other list.
    if (r_.chance(0.3)) {
      const auto w = random_target(chunks_ && r_.chance(0.4), host);
      if (!meets_any(w, writes) && on_host(w.buffer) == host) writes.push_back(w);
    }
    // A read that overlaps a written region without being it would hand the
    // callable two views of one memory (plan_check.hpp refuses that).
    auto meets_a_write = [&](const ir::region& r) {
      for (const auto& x : writes)
        if (regions_meet(r, x) && !(r == x)) return true;
      return false;
    };
    for (const auto& w : writes) {
      const auto& to = info_of(w.buffer);
      auto fits = [&](const ir::region& r) {
        return info_of(r.buffer).type == to.type && size_of_region(r) == size_of_region(w) && readable(r) &&
               !meets_any(r, reads) && !(info_of(r.buffer).domain == to.domain && r.parts != w.parts) &&
               (!host || on_host(r.buffer)) && !meets_a_write(r);
      };
      if (readable(w) && !meets_any(w, reads) && r_.chance(0.4)) {
        reads.push_back(w);  // in place
        continue;
      }
      std::vector<ir::region> sources;
      for (std::int32_t b = 0; b < static_cast<std::int32_t>(access::ir(b_).buffers.size()); ++b) {
        if (fits(ir::whole(b))) sources.push_back(ir::whole(b));
        for (auto k : counts_of(b))
          for (std::int32_t part = 0; part < k; ++part)
            if (fits({b, part, k})) sources.push_back({b, part, k});
      }
      if (sources.empty()) return false;
      const auto src = r_.pick(sources);
      reads.push_back(chunk(src.buffer, src.part, src.parts));
    }
    if (r_.chance(0.3)) {  // a read that only orders
      const auto b = static_cast<std::int32_t>(r_.below(access::ir(b_).buffers.size()));
      if (readable(ir::whole(b)) && !meets_any(ir::whole(b), reads) && (!host || on_host(b)) &&
          !meets_a_write(ir::whole(b)))
        reads.push_back(ir::whole(b));
    }
    order_before(stream, reads, writes);
    access::current_stream(b_) = stream;
    if (host)
      access::call(b_, r_.chance(0.5) ? "hrev" : "hrev2", reads.data(), reads.size(), writes.data(),
                   writes.size(), ir::step_code::host_call);
    else
      access::call(b_, r_.chance(0.5) ? "rev" : "rev2", reads.data(), reads.size(), writes.data(),
                   writes.size());
    const auto& p = access::ir(b_);
    const auto stored = regions_of(p, p.stmts.back());
    if (stored.reads.size() != reads.size() || stored.writes.size() != writes.size())
      throw std::logic_error("generator: the builder stored other regions than the call's");
    ++done_;
    return true;
  }

  // A pipeline over the k chunks of a domain: for each chunk in turn, one to
  // three stages, each writing chunk i of its own buffer (by a copy or an
  // assignment that favours the previous stage's chunk), each stage on its
  // own stream or, now and then, on another one per chunk. Temps among the
  // stages are written chunk by chunk and later read whole.
  // An optimizer-like loop: several tensors (disjoint pairs of buffers of
  // one domain), each updated by one or two statements over its own pair in
  // a row, as an optimizer step is written tensor by tensor. In programs with
  // many buffers the run touches more buffers than one loop keeps, so the
  // scheduler splits it (passes/split_wide_runs.hpp).
  void tensor_loop(std::int32_t current) {
    const auto d = static_cast<std::int32_t>(r_.below(extents_.size()));
    std::vector<std::int32_t> writable, others;
    for (std::int32_t b = 0; b < static_cast<std::int32_t>(access::ir(b_).buffers.size()); ++b) {
      const auto& info = info_of(b);
      if (info.domain != d || on_host(b) || info.type == dtype::boolean) continue;
      (info.kind == ir::access::input ? others : writable).push_back(b);
    }
    r_.shuffle(writable);
    r_.shuffle(others);
    for (std::size_t t = 0; !writable.empty(); ++t) {
      std::vector<std::int32_t> pair{writable.back()};
      writable.pop_back();
      auto& pool = !others.empty() ? others : writable;
      if (!pool.empty()) {
        pair.push_back(pool.back());
        pool.pop_back();
      }
      const auto updates = 1 + r_.below(2);
      for (std::size_t u = 0; u < updates; ++u)
        assign(current, ir::whole(pair[0]), ir::whole(pair.back()), &pair);
    }
  }

  void chunk_loop(std::int32_t current) {
    std::vector<std::int32_t> domains;
    for (std::int32_t d = 0; d < static_cast<std::int32_t>(counts_.size()); ++d)
      if (!counts_[static_cast<std::size_t>(d)].empty()) domains.push_back(d);
    if (domains.empty()) return assign(current, random_target(false));
    const auto d = r_.pick(domains);
    std::vector<std::int32_t> candidates, temps;
    for (std::int32_t b = 0; b < static_cast<std::int32_t>(access::ir(b_).buffers.size()); ++b)
      if (info_of(b).domain == d && info_of(b).kind != ir::access::input) {
        candidates.push_back(b);
        if (info_of(b).kind == ir::access::temp) temps.push_back(b);
      }
    if (candidates.empty()) return assign(current, random_target(false));
    const auto& counts = counts_[static_cast<std::size_t>(d)];
    std::int32_t k = r_.pick(counts);
    for (auto c : counts)
      if (c == favourite_count_ && r_.chance(0.6)) k = c;
    struct stage {
      std::int32_t buffer, stream;
      bool by_copy;
    };
    std::vector<stage> stages;
    const auto n = 1 + r_.below(3);
    for (std::size_t j = 0; j < n; ++j) {
      const auto buffer = !temps.empty() && r_.chance(0.6) ? r_.pick(temps) : r_.pick(candidates);
      stages.push_back({buffer, r_.chance(0.3) ? current : random_stream(),
                        on_host(buffer) || (copies_ && r_.chance(0.5))});
    }
    const bool reverse = r_.chance(0.2);
    for (std::int32_t step = 0; step < k; ++step) {
      const auto i = reverse ? k - 1 - step : step;
      ir::region previous{};
      for (const auto& st : stages) {
        const auto stream = r_.chance(0.2) ? random_stream() : st.stream;
        const auto dst = chunk(st.buffer, i, k);
        // A stage in host memory is a copy or nothing.
        if (st.by_copy && copy(stream, dst, previous)) {
          previous = dst;
        } else if (!on_host(st.buffer)) {
          assign(stream, dst, previous);
          previous = dst;
        }
      }
    }
    // Often, a statement that reads a stage's buffer whole (a temp filled
    // chunk by chunk is read whole only now), on some stream.
    if (r_.chance(0.8)) {
      const auto read = ir::whole(r_.pick(stages).buffer);
      std::vector<std::int32_t> targets;
      for (auto b : candidates)
        if (b != read.buffer) targets.push_back(b);
      if (targets.empty()) return;
      const auto dst = ir::whole(r_.pick(targets));
      const auto stream = r_.chance(0.5) ? current : random_stream();
      const bool copied =
          (copies_ && r_.chance(0.3)) || on_host(dst.buffer) ? copy(stream, dst, read) : false;
      if (!copied && !on_host(dst.buffer)) assign(stream, dst, read);
    }
  }

  // The shape a statement iterates (its target's domain, cut like its
  // target), and a region its leaves favour.
  struct shape {
    std::int32_t domain;
    ir::region target;
    ir::region prefer;
    const std::vector<std::int32_t>* only = nullptr;  // when set, the buffers leaves may load
    // Over a rank-2 domain: the rows' or the columns' domain, whose vectors
    // leaves may broadcast (one of the two: a row and a column make no shape).
    std::int32_t vectors = ir::no_shape;
  };
  // The vectors a statement over `domain` may broadcast (none unless rank-2).
  std::int32_t vector_domain(std::int32_t domain) {
    if (domain < 0 || domain != product_) return ir::no_shape;
    const auto& d = access::ir(b_).domains[static_cast<std::size_t>(domain)];
    return r_.chance(0.5) ? d.outer : d.inner;
  }

  // Leaves: regions of buffers of the statement's domain, cut like its
  // target (or 0-d buffers, whole), that hold values.
  std::vector<ir::region> leaf_regions(const shape& sh, bool boolean) const {
    std::vector<ir::region> out;
    const auto parts = sh.target.parts;
    for (std::int32_t i = 0; i < static_cast<std::int32_t>(access::ir(b_).buffers.size()); ++i) {
      const auto& info = info_of(i);
      if ((info.type == dtype::boolean) != boolean ||
          !(info.domain == sh.domain || info.domain < 0 || info.domain == sh.vectors) || on_host(i))
        continue;
      if (sh.only != nullptr) {
        bool allowed = false;
        for (auto b : *sh.only) allowed = allowed || b == i;
        if (!allowed) continue;
      }
      if (info.domain < 0 || parts == 1) {
        if (readable(ir::whole(i))) out.push_back(ir::whole(i));
        if (i == sh.target.buffer && readable(ir::whole(i)))
          out.push_back(ir::whole(i));  // x = x + 1 more often
        continue;
      }
      for (std::int32_t part = 0; part < parts; ++part) {
        const ir::region r{i, part, parts};
        if (!readable(r)) continue;
        out.push_back(r);
        if (part == sh.target.part) out.push_back(r);  // the same chunk more often
        if (r == sh.target) out.push_back(r);          // read-modify-write of the chunk
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

  operand leaf(want w, const shape& sh) {
    const bool boolean = w == want::boolean;
    const auto regions = leaf_regions(sh, boolean);
    const auto params = leaf_params(boolean);
    const auto x = r_.below(100);
    if (x < 40 && sh.prefer.buffer >= 0 && (info_of(sh.prefer.buffer).type == dtype::boolean) == boolean &&
        readable(sh.prefer) && !on_host(sh.prefer.buffer))
      return access::load(b_, sh.prefer);
    if (x < 65 && !regions.empty()) {
      const auto r = r_.pick(regions);
      return access::load(b_, chunk(r.buffer, r.part, r.parts));
    }
    if (x < 80 && !params.empty()) return access::param(b_, r_.pick(params));
    return literal(boolean);
  }

  operand expression(want w, int depth, const shape& sh) {
    if (depth <= 0 || r_.chance(0.25)) return leaf(w, sh);
    return w == want::numeric ? numeric(depth, sh) : boolean(depth, sh);
  }

  // access::binary, casting b to a's type first where the two cannot
  // combine (uint64_t and a signed integer: the front end refuses them).
  operand binary(ir::op code, operand a, operand b) {
    if (!combinable(a.type, b.type)) b = access::unary(b_, ir::op::cast, b, a.type.type, a.type.type);
    return access::binary(b_, code, a, b);
  }

  // An operand of an integer type (or bool, where `bool_too`): another one is cast to a random integer type.
  operand integral(operand a, bool bool_too = false) {
    const auto c = category_of(a.type.type);
    if (c == dtype_category::integral || (bool_too && c == dtype_category::boolean)) return a;
    const auto t = integer_dtypes[r_.below(8)];
    return access::unary(b_, ir::op::cast, a, t, t);
  }

  operand numeric(int depth, const shape& sh) {
    const auto x = r_.below(100);
    auto sub = [&](want w) { return expression(w, depth - 1, sh); };
    if (x < 32) {
      constexpr ir::op codes[] = {ir::op::add, ir::op::sub, ir::op::mul,
                                  ir::op::div, ir::op::min, ir::op::max};
      return binary(codes[r_.below(6)], sub(want::numeric), sub(want::numeric));
    }
    if (x < 40) {
      // A bool operand in arithmetic with a number promotes to the number's type.
      constexpr ir::op codes[] = {ir::op::add, ir::op::mul, ir::op::sub};
      const auto a = sub(want::numeric);
      const auto b = sub(want::boolean);
      return r_.chance(0.5) ? access::binary(b_, codes[r_.below(3)], a, b)
                            : access::binary(b_, codes[r_.below(3)], b, a);
    }
    if (x < 50) {
      // %, fmod, pow, the bitwise operators and shifts (integers only where the op says so)
      constexpr ir::op codes[] = {ir::op::mod,    ir::op::fmod,    ir::op::pow, ir::op::bit_and,
                                  ir::op::bit_or, ir::op::bit_xor, ir::op::shl, ir::op::shr};
      const auto code = codes[r_.below(8)];
      auto a = sub(want::numeric);
      auto b = sub(want::numeric);
      if (ir::info(code).operands != ir::operand_rule::numeric) {
        a = integral(a);
        b = integral(b);
      }
      return binary(code, a, b);
    }
    if (x < 60) {
      constexpr ir::op codes[] = {ir::op::neg,  ir::op::abs,   ir::op::relu,   ir::op::floor,
                                  ir::op::ceil, ir::op::round, ir::op::bit_not};
      const auto code = codes[r_.below(7)];
      auto a = sub(want::numeric);
      if (code == ir::op::bit_not) a = integral(a);
      return access::unary(b_, code, a, a.type.type, a.type.type);
    }
    if (x < 72) {
      constexpr ir::op codes[] = {ir::op::exp,  ir::op::log,  ir::op::sqrt,      ir::op::rsqrt,
                                  ir::op::sin,  ir::op::cos,  ir::op::tanh,      ir::op::sigmoid,
                                  ir::op::erf,  ir::op::gelu, ir::op::gelu_tanh, ir::op::exp2,
                                  ir::op::log1p};
      const auto a = sub(want::numeric);
      const auto t = category_of(a.type.type) == dtype_category::floating ? a.type.type : dtype::float32;
      return access::unary(b_, codes[r_.below(13)], a, t, t);
    }
    if (x < 84) {
      const auto t = numeric_dtypes[r_.below(10)];
      return access::unary(b_, ir::op::cast, sub(r_.chance(0.3) ? want::boolean : want::numeric), t, t);
    }
    return where(sub(want::boolean), sub(want::numeric), sub(want::numeric));
  }

  operand boolean(int depth, const shape& sh) {
    const auto x = r_.below(100);
    auto sub = [&](want w) { return expression(w, depth - 1, sh); };
    if (x < 45) {
      constexpr ir::op codes[] = {ir::op::lt, ir::op::le, ir::op::gt, ir::op::ge, ir::op::eq, ir::op::ne};
      return binary(codes[r_.below(6)], sub(want::numeric), sub(want::numeric));
    }
    if (x < 62)
      return access::binary(b_, r_.chance(0.5) ? ir::op::logical_and : ir::op::logical_or, sub(want::boolean),
                            sub(want::boolean));
    if (x < 70)
      return access::unary(b_, ir::op::logical_not, sub(want::boolean), dtype::boolean, dtype::boolean);
    if (x < 76)
      return access::binary(b_, r_.chance(0.5) ? ir::op::min : ir::op::max, sub(want::boolean),
                            sub(want::boolean));
    if (x < 82) {  // bitwise operators of bools are logical
      constexpr ir::op codes[] = {ir::op::bit_and, ir::op::bit_or, ir::op::bit_xor};
      if (r_.chance(0.25))
        return access::unary(b_, ir::op::bit_not, sub(want::boolean), dtype::boolean, dtype::boolean);
      return access::binary(b_, codes[r_.below(3)], sub(want::boolean), sub(want::boolean));
    }
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
  bool chunks_ = false, copies_ = false, spaces_ = false, wide_ = false, steps_ = false, calls_ = false,
       collectives_ = false;
  std::int32_t product_ = -1;   // the domain of rank-2 buffers, or -1 (none)
  std::int32_t gathered_ = -1;  // twice domain 0's extent, for reduce_scatter and all_gather, or -1
  dtype gathered_type_ = dtype::float32;
  std::vector<std::size_t> extents_;  // per domain
  std::vector<std::vector<std::int32_t>>
      counts_;  // per domain: the chunk counts it allows (chunked programs)
  std::int32_t favourite_count_ = 2;
  std::int64_t done_ = 0;  // assignments and copies written
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
        << v.buffer_name(static_cast<std::int32_t>(b)) << '[' << v.domain_name(info.domain) << ']';
    if (ir::is_host(info.space)) {
      const auto space = ir::memory_name(info.space);
      out << " in " << std::string_view(space.data(), space.size());
    }
    out << '\n';
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
