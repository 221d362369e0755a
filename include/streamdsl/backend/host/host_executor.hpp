#pragma once
#include "../../detail/require_cxx20.hpp"
#if STREAMDSL_CXX20  // else require_cxx20.hpp has said why
// sd::host_executor: runs any plan on the CPU. Each stream slot with work
// gets a thread (the caller's thread runs main) that issues the slot's
// operations in plan order: kernels evaluate their fused statements block by
// block, a record marks its occurrence done, a wait blocks until the record
// op it names is done, a step (a copy) runs on the thread (memcpy). Entry and exit edges are such records and
// waits, so `run` returns when main has passed its exit waits, i.e. all streams are done; results are then in
// the bound buffers.
//
//   sd::host_executor ex;
//   ex.run(seed, sd::bind("x", x), sd::bind("y", y), sd::bind("z", z));
//
// With sd::record_timeline(t) among the bindings, each stream's thread reads
// the monotonic clock around each kernel and step (timeline.hpp).
//
// Collectives (ops/collective.hpp) run over the communicator bound to the
// executor (bind_communicator; communicator.hpp says why there): one rank's
// executor per rank, e.g. the ranks of an sd::loopback_world (loopback.hpp).
#include <concepts>
#include <cstring>
#include <new>
#include <optional>

#include "../../plan/plan_view.hpp"
#include "../bindings.hpp"
#include "../collective_extents.hpp"
#include "../invoke_call.hpp"
#include "../region_memory.hpp"
#include "../resolve_bindings.hpp"
#include "../timeline.hpp"
#include "../workspace_request.hpp"
#include "communicator.hpp"
#include "grow_only_buffer.hpp"
#include "kernel_program.hpp"
#include "loop_table.hpp"
#include "posix_threads.hpp"
#include "reduce_scan.hpp"
#include "run_board.hpp"
#include "stress.hpp"
#include "thread_pools.hpp"

namespace streamdsl {

struct host_options {
  // Seeded random delays before every operation (see stress.hpp); off when empty.
  std::optional<stress> stress_mode;
  // Helper threads that share the blocks of large kernels (0: each kernel
  // runs on its stream's thread alone). Default: one per further core, up to 7.
  unsigned kernel_helpers = default_kernel_helpers();

  static unsigned default_kernel_helpers() {
    const unsigned cores = host_detail::available_cores();
    return cores > 8 ? 7 : (cores > 1 ? cores - 1 : 0);
  }
};

namespace host_detail {

constexpr bool is_half_type(dtype t) { return is_cuda_type(t); }  // __half, __nv_bfloat16, FP8

// Whether this build can evaluate every type the plan uses: the 16-bit float
// types need CUDA's headers (cuda_fp16.h, cuda_bf16.h) on the host.
constexpr bool host_can_run(const plan_view& plan) {
#ifdef STREAMDSL_HAS_HALF
  (void)plan;
  return true;
#else
  // One pass over the plan's types, not one per type: every unit that runs a
  // program evaluates this.
  for (const auto& b : plan.ir.buffers)
    if (is_half_type(b.type)) return false;
  for (const auto& q : plan.ir.params)
    if (is_half_type(q.type)) return false;
  for (const auto& n : plan.ir.nodes)
    if (is_half_type(n.type) || is_half_type(n.compute)) return false;
  return true;
#endif
}

[[noreturn, gnu::cold, gnu::noinline]] inline void reject_half_types(const plan_view& plan) {
  using backend_detail::operator<<;
  detail::text msg;
  msg << "streamdsl: bad binding: ";
  bool named = false;
  for (std::size_t b = 0; b < plan.ir.buffers.size() && !named; ++b)
    if (is_half_type(plan.ir.buffers[b].type)) {
      msg << backend_detail::buffer_description{plan, static_cast<std::int32_t>(b)};
      named = true;
    }
  for (std::size_t p = 0; p < plan.ir.params.size() && !named; ++p)
    if (is_half_type(plan.ir.params[p].type)) {
      msg << backend_detail::param_description{plan, static_cast<std::int32_t>(p)};
      named = true;
    }
  if (!named) msg << "an expression";
  msg << " uses __half, __nv_bfloat16 or an FP8 type, which the host executor evaluates only when CUDA's "
         "headers "
         "are included (compile with nvcc, or define STREAMDSL_WITH_CUDA_HEADERS and add CUDA's "
         "include directory); on the host without them use float or double";
  backend_detail::throw_with<binding_error>(msg);
}

inline void check_host_types(const plan_view& plan) {
  if (!host_can_run(plan)) reject_half_types(plan);
}

// A plan built at run time is trusted to come from passes::schedule; these
// are the properties the executor relies on to never deadlock or go out of range.
[[noreturn, gnu::cold, gnu::noinline]] inline void bad_plan_op(std::size_t i, const char* why) {
  detail::text msg;
  msg << "streamdsl: invalid plan: op #" << i << ' ' << why;
  backend_detail::throw_with<plan_error>(msg);
}

inline void check_plan(const plan_view& plan) {
  auto bad = [](std::size_t i, const char* why) { bad_plan_op(i, why); };
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    const auto& op = plan.ops[i];
    if (op.stream < 0 || static_cast<std::size_t>(op.stream) >= plan.stream_count())
      bad(i, "names no stream slot");
    if (op.kind == op_kind::kernel &&
        (op.kernel < 0 || static_cast<std::size_t>(op.kernel) >= plan.kernel_count() ||
         plan.segments_of(static_cast<std::size_t>(op.kernel)) < 1 ||
         static_cast<std::size_t>(op.kernel) + plan.segments_of(static_cast<std::size_t>(op.kernel)) >
             plan.kernel_count()))
      bad(i, "names no kernel (or a launch past the last kernel)");
    if (op.kind == op_kind::step &&
        (op.stmt < 0 || static_cast<std::size_t>(op.stmt) >= plan.ir.stmts.size() ||
         plan.ir.stmts[static_cast<std::size_t>(op.stmt)].kind != ir::stmt_kind::step))
      bad(i, "names no step statement");
    if (op.kind == op_kind::wait &&
        (op.waits_for < 0 || static_cast<std::size_t>(op.waits_for) >= i ||
         plan.ops[static_cast<std::size_t>(op.waits_for)].kind != op_kind::record))
      bad(i, "waits for something that is not an earlier record op");
  }
}

// A copy as the host runs it: memcpy(dst, src, bytes).
struct executor_test_access;  // tests inject failures through it

// A test hook called before each operation (see executor_test_access).
struct op_hook {
  virtual ~op_hook() = default;
  virtual void before(std::int32_t op) = 0;
};

// The owner of an op_hook (none by default).
class op_hook_slot {
 public:
  op_hook_slot() = default;
  op_hook_slot(const op_hook_slot&) = delete;
  op_hook_slot& operator=(const op_hook_slot&) = delete;
  ~op_hook_slot() { delete hook_; }
  void set(op_hook* hook) {
    delete hook_;
    hook_ = hook;
  }
  op_hook* get() const { return hook_; }

 private:
  op_hook* hook_ = nullptr;
};

}  // namespace host_detail

class host_executor {
 public:
  host_executor() : host_executor(host_options{}) {}
  explicit host_executor(stress s) : host_executor(host_options{s}) {}
  explicit host_executor(host_options o) : options_(o), team_(o.kernel_helpers) {}

  // Runs a compiled program (sd::program(...)) with sd::bind(...) arguments,
  // and sd::record_timeline(t) among them to time its ops (timeline.hpp).
  template <class Program, class... Args>
    requires requires {
      Program::plan();
    } &&((std::convertible_to<Args, binding> ||
          backend_detail::is_timeline_request<std::remove_cvref_t<Args>>)&&...) void run(const Program&,
                                                                                         Args&&... args) {
      static_assert(
          host_detail::host_can_run(Program::plan()),
          "streamdsl: this program uses __half, __nv_bfloat16 or an FP8 type, which the host executor "
          "evaluates only "
          "when CUDA's headers are included (compile with nvcc, or define STREAMDSL_WITH_CUDA_HEADERS and "
          "add CUDA's include directory); on the host without them use float or double");
      static_assert(backend_detail::timeline_request_count<Args...> <= 1,
                    "streamdsl: run() was given two timelines (sd::record_timeline); a run records one: "
                    "pass one of them");
      constexpr std::size_t n = sizeof...(Args) - backend_detail::timeline_request_count<Args...>;
      if constexpr (n == sizeof...(Args)) {
        const binding list[n > 0 ? n : 1] = {binding(static_cast<Args&&>(args))...};
        run_plan(Program::plan(), binding_list(list, n), loops_of<Program>(), steps_of<Program>(), nullptr);
      } else {
        binding list[n > 0 ? n : 1];
        timeline* into = nullptr;
        std::size_t next = 0;
        const auto one = [&]<class A>(A&& arg) {
          if constexpr (backend_detail::is_timeline_request<std::remove_cvref_t<A>>)
            into = arg.into;
          else
            list[next++] = binding(static_cast<A&&>(arg));
        };
        (one(static_cast<Args&&>(args)), ...);
        run_plan(Program::plan(), binding_list(list, n), loops_of<Program>(), steps_of<Program>(), into);
      }
    }

    template <class Program>
      requires requires { Program::plan(); }
    void run(const Program&, binding_list bindings, timeline_request timing = {}) {
      static_assert(host_detail::host_can_run(Program::plan()),
                    "streamdsl: this program uses __half, __nv_bfloat16 or an FP8 type, which the host "
                    "executor evaluates only "
                    "when CUDA's headers are included");
      run_plan(Program::plan(), bindings, loops_of<Program>(), steps_of<Program>(), timing.into);
    }

    // Runs any plan, e.g. one scheduled at run time. Bad bindings throw
    // binding_error before anything runs; a failure inside a stream is
    // rethrown here once every stream has stopped. One run at a time: calls
    // from several threads are serialised.
    // (A template, so that only a unit that calls it instantiates every loop
    // of every op in every type, host_detail::any_loop, and every reduction's code.)
    template <std::convertible_to<plan_view> Plan>
      requires(!requires { Plan::plan(); })
    void run(const Plan& plan, binding_list bindings, timeline_request timing = {}) {
      run_plan(plan, bindings, &host_detail::any_loop<>, host_detail::any_step_support, timing.into);
    }

    const host_options& options() const { return options_; }

    // The communicator this executor's collectives run over: this rank's end
    // of a world (sd::loopback_world::communicator(rank)); it must outlive
    // the runs that use it. Programs without collectives ignore it.
    void bind_communicator(host_communicator& c) { communicator_ = &c; }
    void unbind_communicator() { communicator_ = nullptr; }
    host_communicator* communicator() const { return communicator_; }

   private:
    friend struct host_detail::executor_test_access;

    // Only the loops the program uses (none for a program the static_assert
    // above rejects, so that it reports alone).
    template <class Program>
    static host_detail::loop_finder loops_of() {
      if constexpr (host_detail::host_can_run(Program::plan()))
        return &host_detail::program_loops<Program>::find;
      else
        return nullptr;
    }

    // Only the reduction and scan code the program uses (reduce_scan.hpp).
    template <class Program>
    static constexpr host_detail::step_support steps_of() {
      constexpr plan_view plan = Program::plan();
      auto support = host_detail::step_support_for<host_detail::accumulates_in(plan, dtype::int64),
                                                   host_detail::accumulates_in(plan, dtype::float32),
                                                   host_detail::accumulates_in(plan, dtype::float64),
                                                   host_detail::accumulates_in(plan, dtype::uint64)>();
      support.multiplies = host_detail::multiply_support < host_detail::multiplies(plan, dtype::float32),
      host_detail::multiplies(plan, dtype::float64),
      host_detail::multiplies(plan, dtype::float16) || host_detail::multiplies(plan, dtype::bfloat16) ||
          host_detail::multiplies(plan, dtype::float8_e4m3) ||
          host_detail::multiplies(plan, dtype::float8_e5m2) > ();
      return support;
    }

    void run_plan(const plan_view& plan, binding_list bindings, host_detail::loop_finder loops,
                  host_detail::step_support support, timeline* timing) {
      host_detail::holding serial(run_mutex_);
      // A rank that fails, before its run or in it, releases the other ranks
      // from the collectives they wait in (host_communicator::abort).
      collectives_ = ir::has_collective(plan.ir.stmts) ? communicator_ : nullptr;
      try {
        run_checked(plan, bindings, loops, support, timing);
      } catch (...) {
        if (collectives_ != nullptr) collectives_->abort();
        throw;
      }
    }

    void run_checked(const plan_view& plan, binding_list bindings, host_detail::loop_finder loops,
                     host_detail::step_support support, timeline* timing) {
      host_detail::check_plan(plan);
      host_detail::check_host_types(plan);
      const resolved_bindings bound = resolve_bindings(plan, bindings);
      auto memory = place_buffers(plan, bound);
      detail::dyn_array<const unsigned char*> params(plan.ir.params.size());
      for (std::size_t p = 0; p < params.size(); ++p) params[p] = bound.param_value[p]->value_bytes();
      host_detail::kernel_compiler compiler(plan, loops, memory, std::move(params),
                                            detail::array_view<std::size_t>(bound.domain_extent));
      auto kernels = compile_kernels(plan, compiler);  // then the steps' programs
      const auto steps = lay_out_steps(plan, {plan, bound, memory, compiler, loops, support.folds, kernels},
                                       support.lay_out, support.multiplies);
      if (ir::has_collective(plan.ir.stmts)) agree_on_collectives(plan, bound, steps);
      execute(plan, kernels, steps, timing);
    }

    // Before anything runs: a communicator is bound, this rank's extents fit
    // the world (backend/collective_extents.hpp), and every rank agrees on
    // them (the communicator compares the ranks' collectives).
    void agree_on_collectives(const plan_view& plan, const resolved_bindings& bound,
                              const detail::dyn_array<host_detail::host_step>& steps) {
      if (communicator_ == nullptr) no_communicator(plan);
      backend_detail::check_collective_extents(plan, bound, communicator_->rank(), communicator_->size());
      detail::dyn_array<host_detail::collective_call> calls;
      for (std::size_t i = 0; i < plan.ops.size(); ++i)
        if (plan.ops[i].kind == op_kind::step && ir::is_collective(steps[i].code))
          calls.push_back(steps[i].collective);
      communicator_->agree(plan, calls.data(), calls.size());
    }
    [[noreturn, gnu::cold, gnu::noinline]] static void no_communicator(const plan_view& plan) {
      detail::text msg;
      msg << "streamdsl: bad binding: ";
      for (std::size_t i = 0; i < plan.ir.stmts.size(); ++i)
        if (plan.ir.stmts[i].kind == ir::stmt_kind::step && ir::is_collective(plan.ir.stmts[i].code)) {
          ir::describe_statement(plan.ir, static_cast<std::int32_t>(i), msg);
          break;
        }
      msg << " is a collective, and this host executor has no communicator to run it over; bind one with "
             "ex.bind_communicator(world.communicator(rank)), or run the program on every rank with "
             "sd::loopback_world::run (<streamdsl/backend/host/loopback.hpp>)";
      backend_detail::throw_with<binding_error>(msg);
    }

    // Per op: what a step op does (nothing for the other ops). A switch over
    // the step forms with no default: a new one does not compile until it
    // has its case here and in run_stream.
    static detail::dyn_array<host_detail::host_step> lay_out_steps(
        const plan_view& plan, const host_detail::step_layout_context& c,
        void (*lay_out_reduce_or_scan)(host_detail::host_step&, const ir::statement&,
                                       const host_detail::step_layout_context&),
        host_detail::multiply_finder multiplies) {
      detail::dyn_array<host_detail::host_step> steps(plan.ops.size());
      for (std::size_t i = 0; i < plan.ops.size(); ++i) {
        if (plan.ops[i].kind != op_kind::step) continue;
        const auto& s = plan.ir.stmts[static_cast<std::size_t>(plan.ops[i].stmt)];
        auto& step = steps[i];
        step.code = s.code;
        switch (ir::info(s.code).form) {
          case ir::step_form::copy: {
            const auto cp = ir::copy_regions_of(plan.ir, s);
            const auto to = backend_detail::bytes_of(plan, c.bound, cp.dst,
                                                     c.memory[static_cast<std::size_t>(cp.dst.buffer)]);
            const auto from = backend_detail::bytes_of(plan, c.bound, cp.src,
                                                       c.memory[static_cast<std::size_t>(cp.src.buffer)]);
            step.dst = to.data;
            step.src = from.data;
            step.bytes = to.bytes;
            break;
          }
          case ir::step_form::reduction:
          case ir::step_form::scan:
            if (lay_out_reduce_or_scan == nullptr)
              throw error(
                  "streamdsl host executor: internal error: a program with reductions lacks their code");
            lay_out_reduce_or_scan(step, s, c);
            break;
          case ir::step_form::matmul:
            step.matmul = host_detail::lay_out_matmul(plan, c.bound, c.memory, s, multiplies);
            step.batch.clear();
            for (std::int32_t j = 1; j < ir::matmul_batch_size(s); ++j)
              step.batch.push_back(host_detail::lay_out_matmul(plan, c.bound, c.memory, s, multiplies, j));
            break;
          case ir::step_form::collective: {
            const auto first = static_cast<std::size_t>(s.accesses_first);
            const auto& source = plan.ir.accesses[first];
            const auto& target = plan.ir.accesses[first + 1];
            const auto from = backend_detail::bytes_of(plan, c.bound, source,
                                                       c.memory[static_cast<std::size_t>(source.buffer)]);
            const auto to = backend_detail::bytes_of(plan, c.bound, target,
                                                     c.memory[static_cast<std::size_t>(target.buffer)]);
            const auto element = size_of(plan.ir.buffers[static_cast<std::size_t>(source.buffer)].type);
            auto& call = step.collective;
            call.code = s.code;
            call.op = ir::collective_op_of(s);
            call.type = plan.ir.buffers[static_cast<std::size_t>(source.buffer)].type;
            call.root = ir::collective_root_of(s);
            call.op_index = static_cast<std::int32_t>(i);
            call.stmt = plan.ops[i].stmt;
            call.source_buffer = source.buffer;
            call.target_buffer = target.buffer;
            call.source = from.data;
            call.target = to.data;
            call.source_count = from.bytes / element;
            call.target_count = to.bytes / element;
            break;
          }
          case ir::step_form::call:
            step.call = c.bound.call_target[static_cast<std::size_t>(s.event)];
            step.read_count = static_cast<std::size_t>(s.reads_count);
            for (auto& l : backend_detail::lay_out_call(plan, c.bound, s)) {
              l.region.data = c.memory[static_cast<std::size_t>(l.buffer)] + l.offset;
              step.regions.push_back(l.region);
            }
            break;
        }
      }
      return steps;
    }

    // Where each buffer lives for this run: caller memory, a workspace slot,
    // or nowhere (register temps live in each kernel's scratch).
    detail::dyn_array<std::byte*> place_buffers(const plan_view& plan, const resolved_bindings& bound) {
      detail::dyn_array<std::size_t> offset(plan.slots.size());
      const std::size_t total = lay_out_workspace(plan.slots, bound.domain_extent, offset.data());
      std::byte* workspace = nullptr;
      try {
        if (total == workspace_too_large) throw std::bad_alloc();
        workspace = workspace_.at_least(total);
      } catch (const std::bad_alloc&) {
        backend_detail::throw_workspace_unavailable(plan, total);
      }
      // Fresh workspace reads as zeros: a temp read before it is written gives
      // the same answer on every run.
      if (total) std::memset(workspace, 0, total);
      detail::dyn_array<std::byte*> memory(plan.ir.buffers.size());
      for (std::size_t b = 0; b < memory.size(); ++b) {
        const auto where = plan.storage[b];
        if (where == storage_bound)
          memory[b] = static_cast<std::byte*>(bound.buffer_data[b]);
        else if (where >= 0)
          memory[b] = workspace + offset[static_cast<std::size_t>(where)];
      }
      return memory;
    }

    detail::dyn_array<host_detail::kernel_program> compile_kernels(const plan_view& plan,
                                                                   host_detail::kernel_compiler& compiler) {
      detail::dyn_array<host_detail::kernel_program> kernels;
      kernels.reserve(plan.kernel_count());
      for (std::size_t k = 0; k < plan.kernel_count(); ++k) kernels.push_back(compiler.compile(k));
      return kernels;
    }

    using kernel_list = detail::dyn_array<host_detail::kernel_program>;
    using step_list = detail::dyn_array<host_detail::host_step>;

    void execute(const plan_view& plan, const kernel_list& kernels, const step_list& steps,
                 timeline* timing) {
      detail::dyn_array<detail::dyn_array<std::int32_t>> ops_of(plan.stream_count());
      for (std::size_t i = 0; i < plan.ops.size(); ++i)
        ops_of[static_cast<std::size_t>(plan.ops[i].stream)].push_back(static_cast<std::int32_t>(i));
      while (scratch_.size() < ops_of.size()) scratch_.push_back(new host_detail::scratch_buffer);

      std::size_t side_streams = 0;
      for (std::size_t s = 1; s < ops_of.size(); ++s) side_streams += !ops_of[s].empty();
      const std::uint64_t run_index = runs_++;
      host_detail::run_board board(plan.ops.size(), side_streams);
      // Timed: each op's start and end (clock readings), written by its stream's
      // thread only and read here once every stream is done.
      std::uint64_t* times = nullptr;
      std::uint64_t origin = 0;
      if (timing != nullptr) {
        timing->begin(plan, "steady clock (sd::host_executor)");
        op_times_.assign(2 * plan.ops.size(), 0);
        times = op_times_.data();
        origin = host_detail::monotonic_ns();
      }
      detail::dyn_array<stream_task> tasks(
          ops_of.size(), stream_task{this, &plan, &kernels, &steps, &board, 0, nullptr, run_index, times});
      std::size_t started = 0;
      try {
        for (std::size_t s = 1; s < ops_of.size(); ++s) {
          if (ops_of[s].empty()) continue;
          tasks[s].stream = s;
          tasks[s].ops = &ops_of[s];
          threads_.start(started, &run_side_stream, &tasks[s]);
          ++started;
        }
      } catch (...) {  // no thread for a stream: stop the ones running, count the rest as done
        board.fail(std::current_exception());
        for (; started < side_streams; ++started) board.stream_done();
      }
      run_stream(plan, kernels, steps, board, 0, ops_of[0], run_index,
                 times);  // main, on the caller's thread
      board.finish();
      if (timing != nullptr) record_times(plan, steps, origin, *timing);
    }

    // The timed ops (kernels and steps) into `timing`, from the run's start.
    [[gnu::cold]] void record_times(const plan_view& plan, const step_list& steps, std::uint64_t origin,
                                    timeline& timing) const {
      std::uint64_t last = origin;
      for (std::size_t i = 0; i < plan.ops.size(); ++i) {
        const std::uint64_t start = op_times_[2 * i], end = op_times_[2 * i + 1];
        last = end > last ? end : last;
        const auto kind = plan.ops[i].kind;
        if (kind != op_kind::kernel && kind != op_kind::step) continue;
        const std::size_t bytes =
            kind == op_kind::step && ir::info(steps[i].code).form == ir::step_form::copy ? steps[i].bytes : 0;
        timing.add(plan, i, static_cast<std::int64_t>(start - origin),
                   static_cast<std::int64_t>(end - origin), bytes);
      }
      timing.end(static_cast<std::int64_t>(last - origin));
    }

    // What a side stream's pool thread runs.
    struct stream_task {
      host_executor* executor;
      const plan_view* plan;
      const kernel_list* kernels;
      const step_list* steps;
      host_detail::run_board* board;
      std::size_t stream;
      const detail::dyn_array<std::int32_t>* ops;
      std::uint64_t run_index;
      std::uint64_t* times;  // null: not timed
    };
    static void run_side_stream(void* context) {
      const stream_task& t = *static_cast<const stream_task*>(context);
      t.executor->run_stream(*t.plan, *t.kernels, *t.steps, *t.board, t.stream, *t.ops, t.run_index, t.times);
      t.board->stream_done();
    }

    void run_stream(const plan_view& plan, const kernel_list& kernels, const step_list& steps,
                    host_detail::run_board& board, std::size_t stream,
                    const detail::dyn_array<std::int32_t>& ops, std::uint64_t run_index,
                    std::uint64_t* times) {
      std::optional<host_detail::delay_source> delays;
      if (options_.stress_mode) delays.emplace(*options_.stress_mode, run_index, stream);
      host_detail::scratch_buffer& scratch = *scratch_[stream];
      try {
        for (const auto i : ops) {
          if (board.failed()) return;
          if (delays) delays->pause();
          if (host_detail::op_hook* hook = before_op_.get()) hook->before(i);
          const plan_op& op = plan.ops[static_cast<std::size_t>(i)];
          if (times != nullptr) times[2 * i] = host_detail::monotonic_ns();  // after any stress delay
          switch (op.kind) {
            case op_kind::kernel: {
              // A launch's kernels are independent: any order is one a GPU may
              // take. Under stress they run last to first, so that a plan
              // whose launch hides a dependence gives a wrong result.
              const auto k = static_cast<std::size_t>(op.kernel);
              const auto n = plan.segments_of(k);
              for (std::size_t g = 0; g < n; ++g) team_.run(kernels[delays ? k + n - 1 - g : k + g], scratch);
              break;
            }
            case op_kind::step: {
              const auto& st = steps[static_cast<std::size_t>(i)];
              switch (ir::info(st.code).form) {
                case ir::step_form::copy:
                  if (st.bytes > 0) std::memcpy(st.dst, st.src, st.bytes);
                  break;
                case ir::step_form::reduction:
                case ir::step_form::scan:
                  host_detail::run_reduce_or_scan(st, kernels[st.values], scratch);
                  break;
                case ir::step_form::matmul:  // a batch: its members in order
                  st.matmul.multiply(st.matmul);
                  for (const auto& member : st.batch) member.multiply(member);
                  break;
                case ir::step_form::collective: communicator_->run(st.collective); break;
                case ir::step_form::call: {
                  call_context context(st.call->name(), nullptr, false, st.regions.data(), st.read_count,
                                       st.regions.size() - st.read_count);
                  backend_detail::invoke_call(*st.call, context, plan, op.stmt);
                  break;
                }
              }
              break;
            }
            case op_kind::record: board.record(static_cast<std::size_t>(i)); break;
            case op_kind::wait:
              if (!board.wait_for(static_cast<std::size_t>(op.waits_for))) return;
              break;
          }
          if (times != nullptr) times[2 * i + 1] = host_detail::monotonic_ns();
        }
      } catch (...) {
        board.fail(std::current_exception());
        // At once, not when the run returns: this rank's other streams may
        // wait in collectives that other ranks will now never reach.
        if (collectives_ != nullptr) collectives_->abort();
      }
    }

    host_options options_;
    host_communicator* communicator_ = nullptr;  // bind_communicator
    host_communicator* collectives_ = nullptr;   // this run's: the communicator when the plan has collectives
    host_detail::mutex run_mutex_;
    std::uint64_t runs_ = 0;
    host_detail::grow_only_buffer<workspace_slot_alignment> workspace_;  // temps in slots
    host_detail::scratch_buffers scratch_;                               // per stream slot
    detail::dyn_array<std::uint64_t> op_times_;                          // a timed run's clock readings
    host_detail::op_hook_slot before_op_;                                // test hook: may throw
    // Declared last: their threads stop before the state above goes away.
    host_detail::kernel_team team_;
    host_detail::stream_threads threads_;
};

namespace host_detail {
// For tests: makes every stream call `hook(op index)` before each operation
// (a hook that throws simulates a failure inside a stream).
struct executor_test_access {
  template <class Hook>
  static void set_before_op(host_executor& ex, Hook hook) {
    if constexpr (std::is_null_pointer_v<Hook>) {
      ex.before_op_.set(nullptr);
    } else {
      struct holder : op_hook {
        explicit holder(Hook h) : hook(static_cast<Hook&&>(h)) {}
        void before(std::int32_t op) override { hook(op); }
        Hook hook;
      };
      ex.before_op_.set(new holder(static_cast<Hook&&>(hook)));
    }
  }
};
}  // namespace host_detail

}  // namespace streamdsl
#endif  // STREAMDSL_CXX20
