#pragma once
#include "../../detail/require_cxx20.hpp"
#if STREAMDSL_CXX20  // else require_cxx20.hpp has said why
// sd::cuda_executor: runs a compiled program's plan on a GPU. The main slot
// is the caller's stream; side slots are the caller's streams (bind_stream)
// or come from the executor's pool. Kernels are the plan's fused kernels,
// instantiated at compile time; a launch of several (a multi-tensor launch,
// passes/join_launches.hpp) is one grid of segments (kernel_table.hpp).
// Records and waits are CUDA events; temps live in a stream-ordered
// workspace (from the executor's caching pool on the main stream, before
// the entry edge and freed after the exit edge), or in the caller's (run
// options: run_options.hpp, which also has the caller's events a run waits
// for and records). Steps run on their slot's stream: a copy is one
// cudaMemcpyAsync (cudaMemcpyDefault: between device, pinned and managed
// memory), a memcpy node in a captured graph; a reduction or scan is one
// CUB call (reductions.cuh, which a unit running such a program includes),
// its temporary storage in the run's workspace; a matmul is one
// cublasLtMatmul (matmul.hpp, likewise included by a unit running one), its
// descriptors and algorithm made when the program is bound and its cuBLASLt
// workspace per stream slot in the run's workspace; a host step (p.host_call)
// is one cudaLaunchHostFunc (host_steps.hpp), a host node in a captured graph,
// whose failures synchronize() reports. Kernels over chunks get each
// chunk's pointers offset on the host. run() is asynchronous like any CUDA
// call on the caller's stream. capture() records the whole program into a CUDA
// graph replayed with one cudaGraphLaunch. A run given sd::record_timeline(t)
// records a timing event before and after each kernel, step and row group on
// its stream, waits for the run's end and reads their times into t
// (timeline.hpp); a run without it records none.
//
// Compile time: nvcc's device pass (cicc, __CUDA_ARCH__ defined) compiles the
// kernels only, yet parses and instantiates all host code it is given. Of the
// executor it needs the class (user code calls it) and which kernels a run
// launches: the bodies of the host code, and the headers only they use, are
// for the host pass alone (#if !defined(__CUDA_ARCH__) below); in the device
// pass issue() only instantiates the program's kernels.
#include <cuda_runtime.h>

#include <concepts>
#include <cstdint>
#include <exception>

#include "../../detail/dyn_array.hpp"
#include "../../detail/owned_string.hpp"
#include "../../detail/string_view.hpp"
#include "../bindings.hpp"
#include "../invoke_call.hpp"
#include "cuda_error.hpp"
#include "cuda_handles.hpp"
#include "host_steps.hpp"
#include "kernel_table.hpp"
#include "run_options.hpp"
#include "step_table.hpp"

#if !defined(__CUDA_ARCH__)
#include <cstring>

#include "../../detail/fp8_bits.hpp"
#include "../../detail/half_bits.hpp"
#include "../../detail/text.hpp"
#include "../../ir/render.hpp"
#include "../collective_extents.hpp"
#include "../region_memory.hpp"
#include "../resolve_bindings.hpp"
#include "../workspace_request.hpp"
#if defined(STREAMDSL_NVTX)
#include <nvtx3/nvToolsExt.h>
#endif
#endif

namespace streamdsl {

#if defined(__CUDA_ARCH__)
struct resolved_bindings;  // resolve_bindings.hpp, in the host pass
#endif

namespace cuda_detail {

// A step as issued: a copy's regions, as a buffer and a byte offset into it
// (temps' memory is known only per issue), and how many bytes; a reduction's
// or scan's CUB temporary storage, at an offset into the run's workspace
// (its regions are bound per issue by its function, step_table.hpp); a
// matmul's prepared cuBLASLt call (an index into prepared_run::matmuls) and
// its stream slot's cuBLASLt workspace, at temp_offset.
struct step_call {
  ir::step_code code = ir::step_code::copy;
  std::int32_t dst = -1, src = -1;  // plan buffers
  std::size_t dst_offset = 0, src_offset = 0, bytes = 0;
  std::size_t temp_offset = 0, temp_bytes = 0;
  std::size_t matmul = 0;
  // a call: its binding (an index into the bindings kept by prepare) and
  // its regions, [regions_first, + regions_count) of the run's call layouts
  std::size_t binding = 0, regions_first = 0, regions_count = 0, read_count = 0;
  std::size_t host_task = 0;   // a host step (p.host_call): its task in prepared_run::host_tasks
  collective_args collective;  // a collective: what NCCL is given (step_table.hpp)
};

#if defined(__CUDA_ARCH__)
// Used by the class and by cuda_graph.hpp: declared for the device pass (not
// inline, which nvcc would warn of), defined for the host pass below.
void check_caller_events(detail::array_view<cudaEvent_t> waits, detail::array_view<cudaEvent_t> records);
void* allocate_from_caller(const plan_view& plan, const workspace_allocator& allocator, std::size_t bytes,
                           cudaStream_t stream);
template <class Allocate>
void* allocate_workspace(const plan_view& plan, std::size_t bytes, const char* call, Allocate allocate);
#else
[[noreturn, gnu::cold, gnu::noinline]] inline void workspace_unavailable(const plan_view& plan,
                                                                         std::size_t bytes, const char* call,
                                                                         cudaError_t status) {
  (void)cudaGetLastError();  // not sticky: leave no trace for the caller's own checks
  using backend_detail::operator<<;
  detail::text where;
  where << backend_detail::workspace_request{plan, bytes};
  check(status, call, where.view());
  throw cuda_error(status, "streamdsl: workspace allocation failed");  // not reached: status is an error
}

// Allocates `bytes` of workspace with `allocate(&ptr)` (cudaMallocFromPoolAsync or
// cudaMalloc, named by `call`); a failure is a cuda_error naming the temps
// and the bytes asked for. Nothing of the run has been issued then.
template <class Allocate>
void* allocate_workspace(const plan_view& plan, std::size_t bytes, const char* call, Allocate allocate) {
  void* ptr = nullptr;
  const cudaError_t status = bytes == workspace_too_large ? cudaErrorMemoryAllocation : allocate(&ptr);
  if (status != cudaSuccess) workspace_unavailable(plan, bytes, call, status);
  return ptr;
}

// Refuses null events before anything is issued: CUDA would only say
// "invalid resource handle" half way through the run.
inline void check_caller_events(detail::array_view<cudaEvent_t> waits,
                                detail::array_view<cudaEvent_t> records) {
  auto check_list = [](detail::array_view<cudaEvent_t> list, const char* option) {
    for (std::size_t i = 0; i < list.size(); ++i)
      if (list[i] == nullptr)
        throw error((detail::text() << "streamdsl: " << option << ": event " << i + 1 << " of " << list.size()
                                    << " is null; pass events made with cudaEventCreate (or "
                                       "cudaEventCreateWithFlags); nothing was issued")
                        .view());
  };
  check_list(waits, "sd::after");
  check_list(records, "sd::then_record");
}

// "the caller's event 2 of 3 given to sd::after"
[[gnu::cold]] inline detail::text describe_caller_event(const char* option, std::size_t i, std::size_t n) {
  detail::text where;
  where << "the caller's event " << i + 1 << " of " << n << " given to " << option;
  return where;
}

// Takes `bytes` of workspace from the caller's allocator on `stream`; null or
// misaligned memory is an sd::error (what came back is given back), and the
// allocator's own exception passes through. Nothing of the run is issued yet.
inline void* allocate_from_caller(const plan_view& plan, const workspace_allocator& allocator,
                                  std::size_t bytes, cudaStream_t stream) {
  using backend_detail::operator<<;
  if (!allocator.usable())
    throw error(
        "streamdsl: sd::workspace_from(allocate, deallocate) was given a null function; pass both functions "
        "(or a resource: sd::workspace_from(resource))");
  if (bytes == workspace_too_large)
    throw error((detail::text() << "streamdsl: the caller's workspace allocator (sd::workspace_from) cannot "
                                   "be asked for "
                                << backend_detail::workspace_request{plan, bytes}
                                << "; bind smaller buffers, or split the work into several runs")
                    .view());
  void* ptr = allocator.allocate(bytes, stream);
  if (ptr == nullptr)
    throw error(
        (detail::text() << "streamdsl: the caller's workspace allocator (sd::workspace_from) returned "
                           "null for "
                        << backend_detail::workspace_request{plan, bytes}
                        << "; nothing was issued (free memory in the allocator's pool, or bind smaller "
                           "buffers)")
            .view());
  if (reinterpret_cast<std::uintptr_t>(ptr) % workspace_slot_alignment != 0) {
    allocator.deallocate(ptr, bytes, stream);
    throw error(
        (detail::text() << "streamdsl: the caller's workspace allocator (sd::workspace_from) returned "
                           "memory "
                        << reinterpret_cast<std::uintptr_t>(ptr) % workspace_slot_alignment
                        << " bytes past a " << workspace_slot_alignment << "-byte boundary for "
                        << backend_detail::workspace_request{plan, bytes}
                        << "; nothing was issued (the temps' slots are laid out from a "
                        << workspace_slot_alignment << "-byte boundary)")
            .view());
  }
  return ptr;
}

// "kernel k0 (`y = x + 1`) on stream 'main'", "launch of kernels k0 to k1
// (k0: `y = x + 1`; k1: `w = z * 2`) on stream 'main'", "statement #3 `sd::copy(d, x)`
// on stream 'h2d'", "the wait of the entry edge on stream 'side'".
[[gnu::cold]] inline detail::text describe_op(const plan_view& plan, std::size_t i) {
  const auto& op = plan.ops[i];
  detail::text where;
  if (op.stmt >= 0) {  // a step or a sync statement: it names its stream
    ir::describe_statement(plan.ir, op.stmt, where);
    return where;
  }
  if (op.kind == op_kind::kernel) {
    // A launch of several kernels (passes/join_launches.hpp) names each
    // segment's statements: "launch of kernels k0 to k2 (k0: `a = ...`; k1: ...)".
    const auto k = static_cast<std::size_t>(op.kernel);
    const auto segments = plan.segments_of(k);
    if (segments > 1)
      where << "launch of kernels k" << k << " to k" << k + segments - 1 << " (";
    else
      where << "kernel k" << k << " (";
    for (std::size_t g = k; g < k + segments; ++g) {
      if (segments > 1) where << (g == k ? "k" : "; k") << g << ": ";
      bool first = true;
      for (auto s : plan.kernel_statements(g)) {
        where << (first ? "`" : ", `") << ir::statement_text(plan.ir, plan.ir.stmts[s]).view() << '`';
        first = false;
      }
    }
    where << ')';
  } else {
    where << (op.kind == op_kind::record ? "the record of the " : "the wait of the ") << name_of(op.role)
          << " edge";
  }
  where << " on stream '" << plan.ir.stream_name(op.stream) << "'";
  return where;
}

// A collective's regions and NCCL's count per rank for one set of bindings:
// all_reduce and broadcast send the whole region, reduce_scatter receives its
// result region, all_gather sends its operand region.
inline collective_args collective_args_of(const plan_view& plan, const resolved_bindings& resolved,
                                          const ir::statement& s) {
  const auto& src = plan.ir.accesses[static_cast<std::size_t>(s.accesses_first)];
  const auto& dst = plan.ir.accesses[static_cast<std::size_t>(s.accesses_first + s.reads_count)];
  const auto from = backend_detail::span_of(plan, resolved, src);
  const auto to = backend_detail::span_of(plan, resolved, dst);
  collective_args c;
  c.code = s.code;
  c.type = plan.ir.buffers[static_cast<std::size_t>(src.buffer)].type;
  c.op = ir::collective_op_of(s);
  c.root = ir::collective_root_of(s);
  c.src = src.buffer;
  c.dst = dst.buffer;
  c.src_offset = from.offset;
  c.dst_offset = to.offset;
  const auto counts = backend_detail::counts_of(plan, resolved, s);
  c.count = s.code == ir::step_code::reduce_scatter ? counts.target : counts.source;
  return c;
}

// The steps of a plan, in op order, for one set of bindings.
inline void lay_out_steps(const plan_view& plan, const resolved_bindings& resolved, binding_list bindings,
                          detail::dyn_array<step_call>& out,
                          detail::dyn_array<backend_detail::call_layout>& call_regions) {
  out.clear();
  call_regions.clear();
  for (const auto& op : plan.ops) {
    if (op.kind != op_kind::step) continue;
    const auto& s = plan.ir.stmts[static_cast<std::size_t>(op.stmt)];
    step_call call;
    call.code = s.code;
    switch (ir::info(s.code).form) {
      case ir::step_form::reduction:
      case ir::step_form::scan:
      case ir::step_form::matmul: break;  // CUB's storage and the matmuls are laid out by prepare()
      case ir::step_form::call: {
        call.binding = static_cast<std::size_t>(resolved.call_target[static_cast<std::size_t>(s.event)] -
                                                bindings.begin());
        call.regions_first = call_regions.size();
        call.read_count = static_cast<std::size_t>(s.reads_count);
        for (const auto& l : backend_detail::lay_out_call(plan, resolved, s)) call_regions.push_back(l);
        call.regions_count = call_regions.size() - call.regions_first;
        break;
      }
      case ir::step_form::collective: call.collective = collective_args_of(plan, resolved, s); break;
      case ir::step_form::copy: {  // binding checked that both regions hold as many bytes
        const auto c = ir::copy_regions_of(plan.ir, s);
        const auto from = backend_detail::span_of(plan, resolved, c.src);
        const auto to = backend_detail::span_of(plan, resolved, c.dst);
        call.src = c.src.buffer;
        call.dst = c.dst.buffer;
        call.src_offset = from.offset;
        call.dst_offset = to.offset;
        call.bytes = to.bytes;
        break;
      }
    }
    out.push_back(call);
  }
}

// An NCCL call that failed at issue: an sd::error naming the call, NCCL's
// result and last error, and the statement and stream.
[[gnu::cold]] inline error nccl_step_failed(const plan_view& plan, std::size_t i,
                                            const step_failure& failure) {
  return error((detail::text() << "streamdsl: " << failure.call << " failed: " << failure.name << " ("
                               << failure.text << ") for " << describe_op(plan, i).view())
                   .view());
}

// Issues one step on stream `s`; `ptrs` are this issue's buffer pointers.
inline cudaError_t issue_step(const step_call& step, void* const* ptrs, cudaStream_t s, const char*& call) {
  switch (ir::info(step.code).form) {
    case ir::step_form::reduction:
    case ir::step_form::scan:
    case ir::step_form::matmul:
    case ir::step_form::collective:
    case ir::step_form::call: break;  // issued by its own function
    case ir::step_form::copy:
      call = "cudaMemcpyAsync";
      if (step.bytes == 0) return cudaSuccess;  // an empty chunk: nothing to issue
      return cudaMemcpyAsync(static_cast<char*>(ptrs[step.dst]) + step.dst_offset,
                             static_cast<const char*>(ptrs[step.src]) + step.src_offset, step.bytes,
                             cudaMemcpyDefault, s);
  }
  call = "a step";
  return cudaErrorInvalidValue;  // not reached: every step code has its case
}

#endif  // !defined(__CUDA_ARCH__)

}  // namespace cuda_detail

class cuda_executor {
 public:
  // `main` is the stream the program is launched on (the caller's).
  explicit cuda_executor(cudaStream_t main = nullptr);
  cuda_executor(const cuda_executor&) = delete;
  cuda_executor& operator=(const cuda_executor&) = delete;
  ~cuda_executor() {
    if (failures_ != nullptr) failures_->drop();
  }
  cudaStream_t main_stream() const { return main_; }
  // Waits for the work issued so far on the main stream (every run's end
  // joins it), then reports a host step's callable that threw (p.host_call):
  // an sd::error naming the step and its stream, the callable's exception
  // nested in it. The next run, capture or graph launch reports it too, and
  // so does the end of a timed run.
  void synchronize();
  // Throws the failure of a host step that threw since the last report, if
  // any, without waiting (what run() and a graph's launch() do first).
  void report_host_step_failures() {
    if (failures_ != nullptr) failures_->report();
  }
  // Runs the side slot named `slot` on the caller's stream `s` (two slots may
  // share one). The name is matched against each program's stream slots when
  // it runs; a program without such a slot ignores it. The main slot always
  // runs on the executor's main stream: binding "main" is refused.
  void bind_stream(detail::string_view slot, cudaStream_t s);
  long long max_blocks() const { return max_blocks_; }
  // The communicator the program's collectives run over (the caller's
  // ncclComm_t, not owned; its device must be this executor's). Checked when
  // a program with collectives is bound: its size against the collectives'
  // regions, and every collective's buffers in device memory. A program
  // without collectives ignores it.
  //
  // With `agree_across_ranks` (the default: one process per GPU, where no
  // rank sees the others' bindings), binding a program with collectives
  // also checks, through one small ncclAllGather and a wait on the main
  // stream, that every rank binds its collectives with the same types and
  // counts (else NCCL would hang or read out of bounds) and that no rank's
  // own checks failed; once per binding set, not per run. Every rank of the
  // communicator must then bind its program at the same point.
  // sd::cuda_executor_group turns it off: it compares its ranks itself.
  void bind_communicator(ncclComm* comm, bool agree_across_ranks = true) {
    comm_ = comm;
    agree_ = agree_across_ranks;
    cache_.plan_key = nullptr;  // checked again at the next run
  }
  ncclComm* communicator() const { return comm_; }

  // Issues the program on the main stream; returns once everything is issued.
  // Run options (run_options.hpp) may stand among the bindings:
  // sd::after(events...), sd::then_record(events...), one workspace,
  // sd::workspace_from(allocator) or sd::workspace_in(data, bytes), and
  // sd::record_timeline(t), with which run() returns once the run has ended
  // and t holds its timeline.
  template <class Program, class... Args>
    requires requires {
      Program::plan();
    } &&((std::convertible_to<Args, binding> ||
          cuda_detail::run_option<Args>)&&...) void run(const Program& program, Args&&... args) {
      if constexpr (cuda_detail::binding_count<Args...> == sizeof...(Args)) {
        const binding list[sizeof...(Args) > 0 ? sizeof...(Args) : 1] = {
            binding(static_cast<Args&&>(args))...};
        run_bound(program, binding_list(list, sizeof...(Args)));
      } else {
        static_assert(cuda_detail::workspace_option_count<Args...> <= 1,
                      "streamdsl: run() was given two workspaces (sd::workspace_from, sd::workspace_in); the "
                      "temps of a run live in one: pass one of them");
        static_assert(backend_detail::timeline_request_count<Args...> <= 1,
                      "streamdsl: run() was given two timelines (sd::record_timeline); a run records one: "
                      "pass one of them");
        constexpr std::size_t n = cuda_detail::binding_count<Args...>;
        binding list[n > 0 ? n : 1];
        auto options = gather_options();
        cuda_detail::split_arguments(list, options, static_cast<Args&&>(args)...);
        run_with_options<Program>(binding_list(list, n), options.workspace, options.timing);
      }
    }

    // The same with the bindings in a list (std::vector<sd::binding>, ...),
    // and run options after it.
    template <class Program, class... Options>
      requires(cuda_detail::compiled_program<Program> && (cuda_detail::run_option<Options> && ...))
    void run(const Program& program, binding_list bindings, Options&&... options) {
      run_bound(program, bindings, static_cast<Options&&>(options)...);
    }
    template <class Program>
    void run_bound(const Program&, binding_list bindings) {
      report_host_step_failures();
      const auto& ready = prepare<Program>(bindings);
      if constexpr (cuda_detail::has_host_steps(Program::plan())) cache_.host_tasks.release_on(main_);
      issue<Program, false>(ready, main_, {});
    }
    template <class Program, class... Options>
      requires(sizeof...(Options) > 0 && (cuda_detail::run_option<Options> && ...))
    void run_bound(const Program&, binding_list bindings, Options&&... options) {
      static_assert(cuda_detail::workspace_option_count<Options...> <= 1,
                    "streamdsl: run() was given two workspaces (sd::workspace_from, sd::workspace_in); the "
                    "temps of a run live in one: pass one of them");
      static_assert(backend_detail::timeline_request_count<Options...> <= 1,
                    "streamdsl: run() was given two timelines (sd::record_timeline); a run records one: "
                    "pass one of them");
      auto gathered = gather_options();
      (gathered.add(options), ...);
      run_with_options<Program>(bindings, gathered.workspace, gathered.timing);
    }

    // Checks the caller's buffer for a run that needs `bytes` of workspace:
    // an sd::binding_error, before anything is issued, names what is wrong.
    void check_workspace_buffer(const plan_view& plan, const workspace_buffer& buffer, std::size_t bytes);

    // Around issue(): what the caller adds to one issue of a program.
    struct issue_options {
      detail::array_view<cudaEvent_t> waits;    // the main stream waits for these first
      detail::array_view<cudaEvent_t> records;  // recorded on the main stream last
      // cudaEventWaitExternal / cudaEventRecordExternal when issuing into a
      // graph's own capture: the events are the caller's, outside the graph.
      unsigned wait_flags = 0;
      unsigned record_flags = 0;
      void* workspace = nullptr;                       // given: neither allocated nor freed here
      const workspace_allocator* allocator = nullptr;  // else from this; null: the executor's pool
      // Timing events (sd::record_timeline), null when not timed: [0] the run's
      // start, [1] its end, [2 + 2i] and [3 + 2i] op i's start and end.
      const cuda_detail::owned_event* timing = nullptr;
    };

    // What a run needs, derived from the bindings once: runs that repeat the
    // same bindings (the common loop) skip validation and these allocations.
    struct prepared_run {
      const void* plan_key = nullptr;
      detail::dyn_array<binding> bindings;
      detail::dyn_array<void*> ptrs;                                // per buffer; slot temps filled per run
      detail::dyn_array<unsigned long long> params;                 // per param, as bit patterns
      detail::dyn_array<long long> extents;                         // per domain
      detail::dyn_array<std::size_t> slot_offsets;                  // per slot
      detail::dyn_array<std::int32_t> slot_buffers;                 // buffers living in slots
      detail::dyn_array<cuda_detail::step_call> steps;              // per step op, in op order
      detail::dyn_array<backend_detail::call_layout> call_regions;  // the calls' regions (step_call)
      // The matmuls' cuBLASLt calls, in op order (matmul.hpp); kept across
      // binding sets of one program, each remade only when its extents or
      // operands' alignment change.
      detail::dyn_array<cuda_detail::owned_matmul> matmuls;
      const void* matmuls_key = nullptr;  // the program they belong to
      std::size_t workspace_bytes = 0;
      // The host steps' tasks (host_steps.hpp), made for these bindings; a
      // captured graph holds them too.
      cuda_detail::host_tasks_ref host_tasks;
    };

    template <class Program>
    const prepared_run& prepare(binding_list bindings);

    // Asks CUB how much temporary storage each reduction and scan needs for
    // the bound extents and lays it out after the temps' slots.
    template <class Program>
    void lay_out_reduce_storage();

    // Prepares each matmul's cuBLASLt call for the bound extents (matmul.hpp)
    // and lays out, per stream slot, the cuBLASLt workspace its matmuls share
    // (they run one after another on its stream) after the rest.
    template <class Program>
    void lay_out_matmuls(const resolved_bindings& resolved);

    // Issues the ops of Program on `main` (the main slot's stream for this
    // issue); `options.workspace` null means stream-ordered allocation here.
    // Without the caller's options (CallerOptions false: no events, no
    // allocator), nothing of them is compiled.
    template <class Program, bool CallerOptions = true>
    void issue(const prepared_run& ready, cudaStream_t main, const issue_options& options);

    // Checks each bound buffer's memory against its declared space (run once
    // per distinct binding set, with the other checks, in prepare()):
    // device buffers need memory the kernels can reach (device or managed),
    // pinned ones page-locked host memory (for asynchronous copies), pageable
    // ones any host memory (pinned and managed too).
    static void check_memory_spaces(const plan_view& plan, const resolved_bindings& resolved);

    // Checks a program's collectives against the bound communicator (run with
    // the other checks, once per binding set): one is bound, its size fits
    // each reduce_scatter's and all_gather's regions, and each collective's
    // buffers are device memory. The errors name the statement, the buffer
    // and this rank.
    template <class Program>
    void check_collectives(const resolved_bindings& resolved);

    // The agreement of bind_communicator: this rank's collectives as a
    // digest (null `resolved`: this rank's checks failed), gathered from
    // every rank and compared; a binding_error names the ranks that differ.
    template <class Program>
    void agree_on_collectives(const resolved_bindings* resolved);

   private:
    // Options gathered into the executor's own event lists (no allocation once
    // they are large enough).
    cuda_detail::gathered_options gather_options() {
      waits_.clear();
      records_.clear();
      return {waits_, records_, {}};
    }

    template <class Program>
    void run_with_options(binding_list bindings, const cuda_detail::workspace_choice& workspace,
                          timeline* timing) {
      constexpr plan_view plan = Program::plan();
      report_host_step_failures();
      cuda_detail::check_caller_events(waits_, records_);
      const auto& ready = prepare<Program>(bindings);
      if constexpr (cuda_detail::has_host_steps(plan)) cache_.host_tasks.release_on(main_);
      issue_options options;
      options.waits = waits_;
      options.records = records_;
      if (workspace.from == cuda_detail::workspace_choice::source::buffer) {
        check_workspace_buffer(plan, workspace.buffer, ready.workspace_bytes);
        options.workspace = workspace.buffer.data;
      } else if (workspace.from == cuda_detail::workspace_choice::source::allocator) {
        options.allocator = &workspace.allocator;
      }
      if (timing != nullptr) {
        prepare_timing_events(plan);
        options.timing = timing_events_.data();
      }
      issue<Program>(ready, main_, options);
      if (timing != nullptr) {
        read_timeline(plan, ready, *timing);
        report_host_step_failures();  // the run has ended: its host steps have run
      }
    }

    // Waits for a timed run's end and reads its events' times into `into`.
    void read_timeline(const plan_view& plan, const prepared_run& ready, timeline& into);

    static unsigned long long param_bits(dtype t, const binding& b);

    // Calls a call's callable with its regions placed for this issue.
    void issue_call(const plan_view& plan, std::int32_t stmt, const prepared_run& ready,
                    const cuda_detail::step_call& step, void* const* ptrs, cudaStream_t s) {
      call_args_.clear();
      for (std::size_t k = 0; k < step.regions_count; ++k) {
        const auto& l = ready.call_regions[step.regions_first + k];
        call_args_.push_back(l.region);
        call_args_[k].data = static_cast<char*>(ptrs[l.buffer]) + l.offset;
      }
      const binding& b = ready.bindings[step.binding];
      call_context context(b.name(), s, true, call_args_.data(), step.read_count,
                           step.regions_count - step.read_count);
      backend_detail::invoke_call(b, context, plan, stmt);
    }

    static bool same_bindings(const detail::dyn_array<binding>& a, binding_list b);

    // Makes the host steps' tasks for the bindings just laid out.
    void make_host_tasks(const plan_view& plan);

    void prepare_streams(const plan_view& plan, cudaStream_t main);

    // One event per record op, reused across runs (a wait captures the event's
    // state when it is issued, so re-recording later is safe).
    void prepare_events(const plan_view& plan);
    // Timing events for a timed run of `plan` (issue_options::timing), made
    // at the first timed run that needs them and reused.
    void prepare_timing_events(const plan_view& plan);

    cudaStream_t main_;
    ncclComm* comm_ = nullptr;  // bind_communicator: the caller's
    bool agree_ = true;         // bind_communicator's agree_across_ranks
    long long max_blocks_ = 0;
    long long sm_count_ = 0;  // a row group's grid (row_group.cuh)
    struct user_stream {
      detail::owned_string slot;
      cudaStream_t stream = nullptr;
    };
    // The pool run() workspaces come from, made at the first run that needs
    // one; it keeps freed memory for the next run (cuda_handles.hpp).
    cudaMemPool_t workspace_pool();

    detail::dyn_array<user_stream> user_streams_;
    detail::dyn_array<cuda_detail::owned_stream> pool_;
    int device_ = 0;
    cuda_detail::owned_mem_pool workspace_pool_;        // declared after the streams: destroyed first
    cuda_detail::owned_matmul_library matmul_library_;  // cuBLASLt's handle (matmul.hpp), when first needed
    detail::dyn_array<cudaStream_t> slot_streams_;      // per slot of the plan prepared last; not owned
    detail::dyn_array<cuda_detail::owned_event> events_;
    detail::dyn_array<cuda_detail::owned_event> timing_events_;  // none until a run is timed
    const void* streams_key_ = nullptr;
    cudaStream_t streams_main_ = nullptr;
    prepared_run cache_;
    detail::dyn_array<void*> ptrs_;
    detail::dyn_array<cudaEvent_t> waits_, records_;  // the run options' events, per run
    detail::dyn_array<call_region> call_args_;        // one call's regions, per issue
    cuda_detail::host_failures* failures_ = nullptr;  // what host steps threw; made with the first
    const void* checked_workspace_ = nullptr;         // the caller's workspace last found on the device
};

#if defined(__CUDA_ARCH__)
// The device pass: a run of Program launches its kernels; instantiating them
// is all this pass needs of it.
template <class Program, bool CallerOptions>
void cuda_executor::issue(const prepared_run&, cudaStream_t, const issue_options&) {
  (void)cuda_detail::launchers<Program>;
  if constexpr (cuda_detail::has_reduce_steps(Program::plan())) (void)cuda_detail::step_fns<Program>;
  if constexpr (cuda_detail::has_matmul_steps(Program::plan())) (void)cuda_detail::matmul_prepare<Program>;
  if constexpr (cuda_detail::has_collective_steps(Program::plan()))
    (void)cuda_detail::collectives_of<Program>;
  if constexpr (cuda_detail::group_count(Program::plan()) > 0) (void)cuda_detail::group_fns<Program>;
}
#else
inline cuda_executor::cuda_executor(cudaStream_t main) : main_(main) {
  int device = 0;
  cuda_detail::check(cudaGetDevice(&device), "cudaGetDevice");
  int max_grid = 0;
  cuda_detail::check(cudaDeviceGetAttribute(&max_grid, cudaDevAttrMaxGridDimX, device),
                     "cudaDeviceGetAttribute");
  // A full grid (one step per thread) streams at memcpy bandwidth; a grid
  // capped near the SM count does not (bench/tuning.cu).
  max_blocks_ = max_grid;
  int sms = 0;
  cuda_detail::check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
                     "cudaDeviceGetAttribute");
  sm_count_ = sms;
  device_ = device;
}

inline void cuda_executor::bind_stream(detail::string_view slot, cudaStream_t s) {
  if (slot == ir::main_stream_name)
    throw error(
        "streamdsl: bind_stream(\"main\", ...): the main slot runs on the executor's main stream, not on a "
        "bound one; pass that stream to the constructor (sd::cuda_executor ex(stream)), or launch a "
        "captured "
        "graph on it (graph.launch(stream))");
  user_streams_.push_back({detail::owned_string(slot), s});
  streams_key_ = nullptr;
}

inline void cuda_executor::check_workspace_buffer(const plan_view& plan, const workspace_buffer& buffer,
                                                  std::size_t bytes) {
  if (bytes == 0) return;
  using backend_detail::operator<<;
  const auto fail = [&](auto&& problem) {
    detail::text msg;
    msg << "streamdsl: bad workspace: the caller's buffer (sd::workspace_in) " << problem.view()
        << "; this run needs " << backend_detail::workspace_request{plan, bytes};
    const bool reduces = cuda_detail::has_reduce_steps(plan),
               multiplies = cuda_detail::has_matmul_steps(plan);
    const char* const counted =
        reduces && multiplies
            ? " (the temps' slots, CUB's storage for the reductions and scans and cuBLASLt's "
              "workspace for the matmuls)"
        : reduces    ? " (the temps' slots and CUB's storage for the reductions and scans)"
        : multiplies ? " (the temps' slots and cuBLASLt's workspace for the matmuls)"
                     : " (plan().workspace_bytes(extents) says how many a run needs)";
    if (bytes != workspace_too_large) msg << counted;
    throw binding_error(msg.view());
  };
  if (buffer.data == nullptr) fail(detail::text() << "is null");
  if (buffer.bytes < bytes)
    fail(detail::text() << "has " << buffer.bytes << " bytes, too few for "
                        << (bytes == workspace_too_large ? "a workspace whose size overflows"
                                                         : "the workspace"));
  if (reinterpret_cast<std::uintptr_t>(buffer.data) % workspace_slot_alignment != 0)
    fail(detail::text() << "starts "
                        << reinterpret_cast<std::uintptr_t>(buffer.data) % workspace_slot_alignment
                        << " bytes past a " << workspace_slot_alignment
                        << "-byte boundary; the temps' slots are laid out from one");
  if (buffer.data == checked_workspace_) return;  // checked for a previous run
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, buffer.data) != cudaSuccess) {
    (void)cudaGetLastError();
    attr.type = cudaMemoryTypeUnregistered;
  }
  if (attr.type == cudaMemoryTypeUnregistered ||
      (attr.type == cudaMemoryTypeHost && attr.devicePointer == nullptr))
    fail(detail::text() << "is host memory the GPU cannot reach; pass device memory (cudaMalloc, your "
                           "allocator's)");
  checked_workspace_ = buffer.data;
}

template <class Program>
const cuda_executor::prepared_run& cuda_executor::prepare(binding_list bindings) {
  constexpr plan_view plan = Program::plan();
  const void* key = &Program::storage;
  if (cache_.plan_key == key && same_bindings(cache_.bindings, bindings)) return cache_;
  cache_.plan_key = nullptr;  // stays invalid if validation throws
  resolved_bindings resolved;
  if constexpr (cuda_detail::has_collective_steps(plan)) {
    // Every rank takes part in the agreement, also one whose own checks
    // failed (it says so there), so that no rank waits in it for ever.
    std::exception_ptr failed;
    try {
      resolved = resolve_bindings<binding_checks_of(plan)>(plan, bindings);
      check_collectives<Program>(resolved);
      check_memory_spaces(plan, resolved);
    } catch (...) {
      if (comm_ == nullptr || !agree_) throw;
      failed = std::current_exception();
    }
    if (agree_) agree_on_collectives<Program>(failed ? nullptr : &resolved);
    if (failed) std::rethrow_exception(failed);
  } else {
    resolved = resolve_bindings<binding_checks_of(plan)>(plan, bindings);
    check_memory_spaces(plan, resolved);
  }
  cache_.bindings.assign(bindings.begin(), bindings.end());
  cache_.ptrs.assign(resolved.buffer_data.begin(), resolved.buffer_data.end());
  cache_.params.assign(plan.ir.params.size(), 0);
  for (std::size_t q = 0; q < cache_.params.size(); ++q)
    cache_.params[q] = param_bits(plan.ir.params[q].type, *resolved.param_value[q]);
  cache_.extents.assign(resolved.domain_extent.begin(), resolved.domain_extent.end());
  cache_.slot_offsets.assign(plan.slots.size(), 0);
  cache_.workspace_bytes = lay_out_workspace(plan.slots, resolved.domain_extent, cache_.slot_offsets.data());
  cache_.slot_buffers.clear();
  for (std::size_t b = 0; b < plan.storage.size(); ++b)
    if (plan.storage[b] >= 0) cache_.slot_buffers.push_back(static_cast<std::int32_t>(b));
  if constexpr (plan.step_count() > 0)
    cuda_detail::lay_out_steps(plan, resolved, bindings, cache_.steps, cache_.call_regions);
  if constexpr (cuda_detail::has_host_steps(plan))
    make_host_tasks(plan);
  else
    cache_.host_tasks.reset();
  if constexpr (cuda_detail::has_reduce_steps(plan)) lay_out_reduce_storage<Program>();
  if constexpr (cuda_detail::has_matmul_steps(plan)) lay_out_matmuls<Program>(resolved);
  cache_.plan_key = key;
  return cache_;
}

template <class Program>
void cuda_executor::lay_out_reduce_storage() {
  constexpr auto& fns = cuda_detail::step_fns<Program>;
  cuda_detail::launch_context ctx{cache_.ptrs.data(), cache_.params.data(), cache_.extents.data(),
                                  max_blocks_, sm_count_};
  std::size_t end = cache_.workspace_bytes;
  for (std::size_t j = 0; j < cache_.steps.size(); ++j) {
    if (fns[j] == nullptr) continue;
    auto& step = cache_.steps[j];
    std::size_t bytes = 0;
    cuda_detail::check(fns[j](ctx, main_, nullptr, bytes, true), "CUB's temporary storage query");
    if (end == workspace_too_large) continue;
    step.temp_offset =
        (end + workspace_slot_alignment - 1) / workspace_slot_alignment * workspace_slot_alignment;
    step.temp_bytes = bytes;
    end = bytes > workspace_too_large - 1 - step.temp_offset ? workspace_too_large : step.temp_offset + bytes;
  }
  cache_.workspace_bytes = end;
}

template <class Program>
void cuda_executor::lay_out_matmuls(const resolved_bindings& resolved) {
  constexpr plan_view plan = Program::plan();
  constexpr cuda_detail::prepare_matmul_fn prepare_matmul = cuda_detail::matmul_prepare<Program>;
  const void* key = &Program::storage;
  if (cache_.matmuls_key != key) {  // another program's: none is kept
    cache_.matmuls.clear();
    cache_.matmuls_key = key;
  }
  // Per stream slot, the most workspace one of its matmuls needs.
  detail::dyn_array<std::size_t> slot_bytes(plan.ir.streams.size(), 0);
  std::size_t j = 0, next = 0;
  for (const auto& op : plan.ops) {
    if (op.kind != op_kind::step) continue;
    auto& step = cache_.steps[j++];
    if (step.code != ir::step_code::matmul) continue;
    step.matmul = next;
    if (next == cache_.matmuls.size()) cache_.matmuls.push_back(cuda_detail::owned_matmul());
    auto& held = cache_.matmuls[next++];
    try {
      prepare_matmul(matmul_library_, held, plan, static_cast<std::size_t>(op.stmt), cache_.extents.data(),
                     resolved.buffer_data.data());
    } catch (...) {
      cache_.matmuls_key = nullptr;  // the list may be part made
      throw;
    }
    auto& need = slot_bytes[static_cast<std::size_t>(op.stream)];
    if (held.get()->workspace_bytes > need) need = held.get()->workspace_bytes;
  }
  // Each slot's region after the rest of the workspace, 256-byte aligned
  // (cuBLASLt's alignment for its workspace).
  detail::dyn_array<std::size_t> slot_offset(plan.ir.streams.size(), 0);
  std::size_t end = cache_.workspace_bytes;
  for (std::size_t s = 0; s < slot_bytes.size(); ++s) {
    if (slot_bytes[s] == 0 || end == workspace_too_large) continue;
    slot_offset[s] =
        (end + workspace_slot_alignment - 1) / workspace_slot_alignment * workspace_slot_alignment;
    end = slot_bytes[s] > workspace_too_large - 1 - slot_offset[s] ? workspace_too_large
                                                                   : slot_offset[s] + slot_bytes[s];
  }
  j = 0;
  for (const auto& op : plan.ops) {
    if (op.kind != op_kind::step) continue;
    auto& step = cache_.steps[j++];
    if (step.code != ir::step_code::matmul) continue;
    step.temp_offset = slot_offset[static_cast<std::size_t>(op.stream)];
    step.temp_bytes = cache_.matmuls[step.matmul].get()->workspace_bytes;
  }
  cache_.workspace_bytes = end;
}

template <class Program, bool CallerOptions>
void cuda_executor::issue(const prepared_run& ready, cudaStream_t main, const issue_options& options) {
  constexpr plan_view plan = Program::plan();
  // What a plan has none of is not compiled (nvcc's host pass emits every
  // function a run may call).
  constexpr bool has_steps = plan.step_count() > 0, reduces = cuda_detail::has_reduce_steps(plan);
  constexpr bool multiplies = cuda_detail::has_matmul_steps(plan);
  constexpr bool host_steps = cuda_detail::has_host_steps(plan);
  // CUB's storage and cuBLASLt's workspace are in the workspace too.
  constexpr bool has_slots = plan.slot_count() > 0 || reduces || multiplies;
  prepare_streams(plan, main);
  prepare_events(plan);
  // A workspace allocated here is freed (stream-ordered, after everything
  // issued) also when an issue below fails and throws.
  struct owned_workspace {
    void* ptr = nullptr;
    std::size_t bytes = 0;
    cudaStream_t stream = nullptr;
    const workspace_allocator* allocator = nullptr;
    ~owned_workspace() {
      if (ptr != nullptr) give_back(false);  // already failing: the first error is reported
    }
    // Gives the workspace back once everything is issued; a failure throws.
    void release() { give_back(true); }
    void give_back(bool report) {
      void* const p = ptr;
      ptr = nullptr;
      if constexpr (CallerOptions) {
        if (allocator != nullptr) {
          try {
            allocator->deallocate(p, bytes, stream);
          } catch (...) {
            if (report) throw;
          }
          return;
        }
      }
      const cudaError_t status = cudaFreeAsync(p, stream);
      if (report) cuda_detail::check(status, "cudaFreeAsync", "the temp workspace");
    }
  } owned{nullptr, ready.workspace_bytes, main, options.allocator};
  void* ws = options.workspace;
  if constexpr (has_slots) {
    if (ws == nullptr && ready.workspace_bytes > 0) {
      if constexpr (CallerOptions) {
        if (options.allocator != nullptr)
          ws = cuda_detail::allocate_from_caller(plan, *options.allocator, ready.workspace_bytes, main);
      }
      if (ws == nullptr)  // no allocator of the caller's (allocate_from_caller throws, never gives none)
        ws = cuda_detail::allocate_workspace(
            plan, ready.workspace_bytes, "cudaMallocFromPoolAsync", [&](void** p) {
              return cudaMallocFromPoolAsync(p, ready.workspace_bytes, workspace_pool(), main);
            });
      owned.ptr = ws;
    }
  }
  // A failure part-way (a CUDA error, a callable that throws) leaves work on
  // side streams that main has not joined: main waits for each of them before
  // the workspace is freed on it (`owned`, destroyed after this).
  struct join_on_failure {
    const detail::dyn_array<cudaStream_t>& streams;
    cudaStream_t main;
    bool issued = false;
    ~join_on_failure() {
      if (issued) return;
      for (cudaStream_t s : streams) {
        cudaEvent_t e = nullptr;
        if (s == main || cudaEventCreateWithFlags(&e, cudaEventDisableTiming) != cudaSuccess) continue;
        if (cudaEventRecord(e, s) == cudaSuccess) (void)cudaStreamWaitEvent(main, e, 0);
        (void)cudaEventDestroy(e);
      }
    }
  } joined{slot_streams_, main};
  // The caller's events first: the entry edge, and every side stream with
  // it, come after them.
  if constexpr (CallerOptions)
    for (std::size_t i = 0; i < options.waits.size(); ++i) {
      const cudaError_t status = cudaStreamWaitEvent(main, options.waits[i], options.wait_flags);
      if (status != cudaSuccess)
        cuda_detail::check(status, "cudaStreamWaitEvent",
                           cuda_detail::describe_caller_event("sd::after", i, options.waits.size()).view());
    }
  // A timed run (sd::record_timeline): an event before and after each kernel,
  // step and row group on its stream; the run's start after the caller's
  // events, its end after the exit edge. Compiled out of a run without options.
  const cuda_detail::owned_event* timed = nullptr;
  if constexpr (CallerOptions) timed = options.timing;
  const auto mark = [&](std::size_t event, cudaStream_t s, std::size_t op) {
    const cudaError_t status = cudaEventRecord(timed[event].get(), s);
    if (status != cudaSuccess) {
      detail::text what;
      what << "the timeline's event " << (event % 2 == 0 ? "before " : "after ")
           << cuda_detail::describe_op(plan, op).view();
      cuda_detail::check(status, "cudaEventRecord", what.view());
    }
  };
  if (timed != nullptr)
    cuda_detail::check(cudaEventRecord(timed[0].get(), main), "cudaEventRecord", "the timeline's start");
  void* const* ptrs = ready.ptrs.data();
  if (!ready.slot_buffers.empty()) {  // temps in slots point into this run's workspace
    ptrs_.assign(ready.ptrs.begin(), ready.ptrs.end());
    for (auto b : ready.slot_buffers)
      ptrs_[static_cast<std::size_t>(b)] =
          static_cast<char*>(ws) +
          ready.slot_offsets[static_cast<std::size_t>(plan.storage[static_cast<std::size_t>(b)])];
    ptrs = ptrs_.data();
  }
  cuda_detail::launch_context ctx{ptrs, ready.params.data(), ready.extents.data(), max_blocks_, sm_count_};
  constexpr auto& launchers = cuda_detail::launchers<Program>;
  [[maybe_unused]] std::size_t next_step = 0;   // used when the plan has steps
  [[maybe_unused]] std::size_t next_group = 0;  // used when the plan has row groups
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    const auto& op = plan.ops[i];
    cudaStream_t s = slot_streams_[static_cast<std::size_t>(op.stream)];
    cudaError_t status = cudaSuccess;
    const char* call = "";
    if constexpr (cuda_detail::group_count(plan) > 0) {
      if (op.group > 1) {  // a row group (passes/row_groups.hpp): its ops as one kernel
        if (timed != nullptr) mark(2 + 2 * i, s, i);
        status = cuda_detail::group_fns<Program>[next_group++](ctx, s);
        if (status != cudaSuccess)
          cuda_detail::check(status, "a row group's kernel launch", cuda_detail::describe_op(plan, i).view());
        if (timed != nullptr) mark(3 + 2 * i, s, i);
        for (std::size_t g = i; g < i + static_cast<std::size_t>(op.group); ++g)
          next_step += plan.ops[g].kind == op_kind::step;
        i += static_cast<std::size_t>(op.group) - 1;
        continue;
      }
    }
    const bool timed_op = timed != nullptr && (op.kind == op_kind::kernel || op.kind == op_kind::step);
    if (timed_op) mark(2 + 2 * i, s, i);
    switch (op.kind) {
      case op_kind::kernel:
#if defined(STREAMDSL_NVTX)
        nvtxRangePushA(detail::owned_string(cuda_detail::describe_op(plan, i).view()).c_str());
#endif
        status = launchers[static_cast<std::size_t>(op.kernel)](ctx, s);
        call = "kernel launch";
#if defined(STREAMDSL_NVTX)
        nvtxRangePop();
#endif
        break;
      case op_kind::step:
        if constexpr (has_steps) {
          const auto& step = ready.steps[next_step];
          if constexpr (reduces) {
            if (const cuda_detail::step_fn f = cuda_detail::step_fns<Program>[next_step]) {
              std::size_t bytes = step.temp_bytes;
              status = f(ctx, s, step.temp_bytes > 0 ? static_cast<char*>(ws) + step.temp_offset : nullptr,
                         bytes, false);
              call = "a CUB reduction or scan";
              ++next_step;
              break;
            }
          }
          if constexpr (multiplies) {
            if (step.code == ir::step_code::matmul) {
              cuda_detail::step_failure failure;
              void* const workspace =
                  step.temp_bytes > 0 ? static_cast<char*>(ws) + step.temp_offset : nullptr;
              if (!ready.matmuls[step.matmul].get()->issue(ptrs, ready.params.data(), s, workspace,
                                                           failure)) {
                if (failure.cuda != cudaSuccess)
                  cuda_detail::check(failure.cuda, failure.call, cuda_detail::describe_op(plan, i).view());
                throw error((detail::text()
                             << "streamdsl: " << failure.call << " failed: " << failure.name << " ("
                             << failure.text << ") for " << cuda_detail::describe_op(plan, i).view())
                                .view());
              }
              ++next_step;
              break;
            }
          }
          if constexpr (cuda_detail::has_collective_steps(plan)) {
            if (ir::info(step.code).form == ir::step_form::collective) {
              cuda_detail::step_failure failure;
              if (!cuda_detail::collectives_of<Program>.issue(step.collective, ptrs, comm_, s, failure))
                throw cuda_detail::nccl_step_failed(plan, i, failure);
              ++next_step;
              break;
            }
          }
          if (host_steps && step.code == ir::step_code::host_call) {
            status = cudaLaunchHostFunc(s, cuda_detail::run_host_task,
                                        ready.host_tasks.get()->task(step.host_task));
            call = "cudaLaunchHostFunc";
          } else if (step.code == ir::step_code::call) {
            issue_call(plan, op.stmt, ready, step, ptrs, s);
            call = "a call's callable (a launch in it)";
            status = cudaPeekAtLastError();  // what the callable issued, not yet reported
            if (status != cudaSuccess) (void)cudaGetLastError();  // reported below: not left pending
          } else {
            status = cuda_detail::issue_step(step, ptrs, s, call);
          }
          ++next_step;
        }
        break;
      case op_kind::record:
        status = cudaEventRecord(events_[i].get(), s);
        call = "cudaEventRecord";
        break;
      case op_kind::wait:
        status = cudaStreamWaitEvent(s, events_[static_cast<std::size_t>(op.waits_for)].get(), 0);
        call = "cudaStreamWaitEvent";
        break;
    }
    if (status != cudaSuccess) cuda_detail::check(status, call, cuda_detail::describe_op(plan, i).view());
    if (timed_op) mark(3 + 2 * i, s, i);
  }
  if (timed != nullptr)
    cuda_detail::check(cudaEventRecord(timed[1].get(), main), "cudaEventRecord", "the timeline's end");
  joined.issued = true;
  // The caller's events last, after the exit edge: all of the run is before them.
  if constexpr (CallerOptions)
    for (std::size_t i = 0; i < options.records.size(); ++i) {
      const cudaError_t status = cudaEventRecordWithFlags(options.records[i], main, options.record_flags);
      if (status != cudaSuccess)
        cuda_detail::check(
            status, "cudaEventRecord",
            cuda_detail::describe_caller_event("sd::then_record", i, options.records.size()).view());
    }
  if (owned.ptr != nullptr) owned.release();
}

template <class Program>
void cuda_executor::check_collectives(const resolved_bindings& resolved) {
  constexpr plan_view plan = Program::plan();
  using backend_detail::operator<<;
  const auto statement = [&](std::int32_t stmt) {
    detail::text where;
    ir::describe_statement(plan.ir, stmt, where);
    return where;
  };
  if (comm_ == nullptr) {
    for (const auto& op : plan.ops)
      if (op.kind == op_kind::step &&
          ir::info(plan.ir.stmts[static_cast<std::size_t>(op.stmt)].code).form == ir::step_form::collective)
        throw binding_error((detail::text() << "streamdsl: " << statement(op.stmt).view()
                                            << " is a collective, but no communicator is bound to this "
                                               "executor; bind the rank's ncclComm_t first "
                                               "(ex.bind_communicator(comm)); nothing was issued")
                                .view());
  }
  int size = 0, rank = 0, device = 0;
  cuda_detail::collectives_of<Program>.query(comm_, size, rank, device);
  // NCCL launches on the communicator's device: the executor's streams,
  // events and workspace are on its own.
  if (device != device_)
    throw binding_error((detail::text() << "streamdsl: the communicator bound to this executor (rank " << rank
                                        << " of " << size << ") is on device " << device
                                        << ", but the executor runs on device " << device_
                                        << "; bind the communicator made on the executor's device (make the "
                                           "executor after cudaSetDevice of the rank's GPU)")
                            .view());
  backend_detail::problem_list problems;
  for (const auto& op : plan.ops) {
    if (op.kind != op_kind::step) continue;
    const auto& s = plan.ir.stmts[static_cast<std::size_t>(op.stmt)];
    if (ir::info(s.code).form != ir::step_form::collective) continue;
    const auto c = cuda_detail::collective_args_of(plan, resolved, s);
    // NCCL reads and writes device memory only (the front end refuses
    // buffers declared in host memory; this catches host memory bound to a
    // device buffer, with the rank).
    for (const auto b : {c.src, c.dst}) {
      const void* data = resolved.buffer_data[static_cast<std::size_t>(b)];
      if (data == nullptr || resolved.buffer_count[static_cast<std::size_t>(b)] == 0)
        continue;  // a temp, or empty
      cudaPointerAttributes attr{};
      if (cudaPointerGetAttributes(&attr, data) != cudaSuccess) {
        (void)cudaGetLastError();  // not sticky: leave no trace for the caller's own checks
        attr.type = cudaMemoryTypeUnregistered;
      }
      if (attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged) continue;
      problems.add() << statement(op.stmt).view() << " on " << backend_detail::rank_of_world{rank, size}
                     << ": " << backend_detail::buffer_description{plan, b} << " is bound to "
                     << (attr.type == cudaMemoryTypeHost ? "pinned host memory" : "pageable host memory")
                     << "; NCCL reads and writes device memory only: bind device memory (cudaMalloc) to it";
      if (c.src == c.dst) break;
    }
  }
  problems.throw_if_any();
  // The extents against the communicator's size (shared with the host's loopback).
  backend_detail::check_collective_extents(plan, resolved, rank, size);
}

template <class Program>
void cuda_executor::agree_on_collectives(const resolved_bindings* resolved) {
  constexpr plan_view plan = Program::plan();
  int size = 0, rank = 0, device = 0;
  cuda_detail::collectives_of<Program>.query(comm_, size, rank, device);
  if (size == 1) return;
  // [failed, collectives, a hash of their codes, ops, roots and types, a hash of their counts]
  constexpr std::size_t digest = 4;
  long long mine[digest] = {resolved == nullptr ? 1 : 0, 0, 0, 0};
  auto mix = [](long long& h, unsigned long long v) {
    h = static_cast<long long>((static_cast<unsigned long long>(h) ^ v) * 1099511628211ull);
  };
  if (resolved != nullptr)
    for (const auto& s : plan.ir.stmts) {
      if (s.kind != ir::stmt_kind::step || !ir::is_collective(s.code)) continue;
      const auto c = cuda_detail::collective_args_of(plan, *resolved, s);
      ++mine[1];
      mix(mine[2], static_cast<unsigned long long>(c.code) << 48 |
                       static_cast<unsigned long long>(c.op) << 40 |
                       static_cast<unsigned long long>(c.type) << 32 | static_cast<unsigned>(c.root));
      mix(mine[3], c.count);
    }
  detail::dyn_array<long long> all(digest * static_cast<std::size_t>(size), 0);
  cuda_detail::collectives_of<Program>.gather(comm_, main_, mine, all.data(), digest);
  if (resolved == nullptr) return;  // this rank's own error follows
  backend_detail::problem_list problems;
  for (int q = 0; q < size; ++q) {
    const long long* theirs = all.data() + digest * static_cast<std::size_t>(q);
    if (theirs[0] != 0)
      problems.add()
          << "rank " << q << " of " << size
          << " failed its own checks of this program's bindings (its error says which); this rank (" << rank
          << ") issued nothing";
    else if (theirs[1] != mine[1] || theirs[2] != mine[2])
      problems.add() << "rank " << q << " of " << size
                     << " runs other collectives (codes, ops, roots or types) "
                     << "than rank " << rank << ": every rank must run the same program";
    else if (theirs[3] != mine[3])
      problems.add() << "rank " << q << " of " << size
                     << " binds its collectives with other extents than rank " << rank
                     << "; a collective's buffers must have the same extents on every rank";
  }
  problems.throw_if_any();
}

inline void cuda_executor::check_memory_spaces(const plan_view& plan, const resolved_bindings& resolved) {
  using backend_detail::operator<<;
  backend_detail::problem_list problems;
  for (std::size_t b = 0; b < resolved.buffer_data.size(); ++b) {
    // An empty buffer is never read or written: its pointer may be anything
    // (null, or one past the end of a tensor list's allocation).
    if (resolved.buffer_data[b] == nullptr || resolved.buffer_count[b] == 0) continue;
    cudaPointerAttributes attr{};
    if (cudaPointerGetAttributes(&attr, resolved.buffer_data[b]) != cudaSuccess) {
      (void)cudaGetLastError();  // not sticky: leave no trace for the caller's own checks
      attr.type = cudaMemoryTypeUnregistered;
    }
    const auto space = plan.ir.buffers[b].space;
    const bool on_device = attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged;
    const bool ok = space == ir::memory_space::device   ? on_device
                    : space == ir::memory_space::pinned ? attr.type == cudaMemoryTypeHost
                                                        : attr.type != cudaMemoryTypeDevice;
    if (ok) continue;
    const backend_detail::buffer_description what{plan, static_cast<std::int32_t>(b)};
    const auto name = plan.ir.buffer_name(static_cast<std::int32_t>(b));
    auto& line = problems.add() << what << " is bound to "
                                << (attr.type == cudaMemoryTypeDevice    ? "device memory"
                                    : attr.type == cudaMemoryTypeHost    ? "pinned host memory"
                                    : attr.type == cudaMemoryTypeManaged ? "managed memory"
                                                                         : "pageable host memory")
                                << ", but ";
    if (space == ir::memory_space::device)
      line << "it is declared in device memory, where kernels read and write it; bind device memory "
              "(cudaMalloc, thrust::device_vector), or declare it in host memory (sd::pinned) and copy "
              "it to a device buffer with sd::copy";
    else if (space == ir::memory_space::pinned && attr.type != cudaMemoryTypeDevice)
      line << "it is declared sd::pinned, so that copies of it are asynchronous; allocate it with "
              "cudaMallocHost, or page-lock it with cudaHostRegister, or declare it sd::pageable";
    else
      line << "it is declared in " << ir::memory_name(space) << "; bind "
           << (space == ir::memory_space::pinned ? "page-locked host memory (cudaMallocHost)" : "host memory")
           << ", or declare it in device memory (p." << ir::name_of(plan.ir.buffers[b].kind) << "<"
           << name_of(plan.ir.buffers[b].type) << ">(\"" << name << "\"))";
  }
  problems.throw_if_any();
}

inline unsigned long long cuda_executor::param_bits(dtype t, const binding& b) {
  const unsigned char* v = b.value_bytes();
  double d = 0;  // a floating value, widened (exactly)
  // An integer: its value as a long long (a uint64_t's bits unchanged); the
  // kernel converts it back to the param's type (fused_kernel.cuh, from_bits).
  const auto integer = [v]<class I>(I x) {
    std::memcpy(&x, v, sizeof x);
    return static_cast<unsigned long long>(static_cast<long long>(x));
  };
  switch (t) {
    case dtype::boolean: return v[0] != 0 ? 1 : 0;
    case dtype::int8: return integer(std::int8_t{});
    case dtype::int16: return integer(std::int16_t{});
    case dtype::int32: return integer(std::int32_t{});
    case dtype::int64: return integer(std::int64_t{});
    case dtype::uint8: return integer(std::uint8_t{});
    case dtype::uint16: return integer(std::uint16_t{});
    case dtype::uint32: return integer(std::uint32_t{});
    case dtype::uint64: return integer(std::uint64_t{});
    case dtype::float32: {
      float x;
      std::memcpy(&x, v, sizeof x);
      d = x;
      break;
    }
    case dtype::float64: std::memcpy(&d, v, sizeof d); break;
    case dtype::float8_e4m3:
    case dtype::float8_e5m2: {  // FP8: from their bits
      std::uint8_t raw;
      std::memcpy(&raw, v, sizeof raw);
      d = t == dtype::float8_e4m3 ? detail::fp8_e4m3_bits_to_float(raw) : detail::fp8_e5m2_bits_to_float(raw);
      break;
    }
    default: {  // 16-bit floats: from their bits
      std::uint16_t raw;
      std::memcpy(&raw, v, sizeof raw);
      d = t == dtype::float16 ? detail::half_bits_to_float(raw) : detail::bfloat16_bits_to_float(raw);
      break;
    }
  }
  unsigned long long bits;
  std::memcpy(&bits, &d, sizeof bits);
  return bits;
}

inline bool cuda_executor::same_bindings(const detail::dyn_array<binding>& a, binding_list b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto &x = a[i], &y = b[i];
    if (x.name() != y.name() || x.type() != y.type() || x.is_param() != y.is_param() ||
        x.is_call() != y.is_call() || x.is_family() != y.is_family() || x.read_only() != y.read_only() ||
        x.size() != y.size())
      return false;
    if (x.is_family()) {  // same member count (size()): compare the members
      for (std::size_t m = 0; m < x.size(); ++m)
        if (x.members()[m].data != y.members()[m].data || x.members()[m].count != y.members()[m].count)
          return false;
      continue;
    }
    if (x.is_param() ? std::memcmp(x.value_bytes(), y.value_bytes(), size_of(x.type())) != 0
                     : x.data() != y.data())
      return false;
  }
  return true;
}

inline void cuda_executor::synchronize() {
  cuda_detail::check(cudaStreamSynchronize(main_), "cudaStreamSynchronize", "the executor's main stream");
  report_host_step_failures();
}

inline void cuda_executor::make_host_tasks(const plan_view& plan) {
  if (failures_ == nullptr) failures_ = cuda_detail::host_failures::make();
  // Host functions of earlier runs may still be pending: the old batch goes
  // after them (host_tasks_ref), and these are new.
  cache_.host_tasks = cuda_detail::host_tasks_ref(new cuda_detail::host_tasks(failures_));
  auto& batch = *cache_.host_tasks.get();
  std::size_t j = 0;
  for (const auto& op : plan.ops) {
    if (op.kind != op_kind::step) continue;
    auto& step = cache_.steps[j++];
    if (step.code != ir::step_code::host_call) continue;
    step.host_task = batch.size();
    auto& task = batch.add();
    const binding& b = cache_.bindings[step.binding];
    task.callable = b.callable();
    task.name = detail::owned_string(b.name());
    detail::text where;
    ir::describe_statement(plan.ir, op.stmt, where);
    task.where = detail::owned_string(where.view());
    task.read_count = step.read_count;
    // Host memory, the caller's: the same pointers for every issue of these bindings.
    for (std::size_t k = 0; k < step.regions_count; ++k) {
      const auto& l = cache_.call_regions[step.regions_first + k];
      task.regions.push_back(l.region);
      task.regions[k].data = static_cast<char*>(cache_.ptrs[static_cast<std::size_t>(l.buffer)]) + l.offset;
    }
  }
}

inline void cuda_executor::prepare_streams(const plan_view& plan, cudaStream_t main) {
  if (streams_key_ == plan.ops.data() && streams_main_ == main) return;  // same plan, same streams
  streams_key_ = nullptr;
  slot_streams_.assign(plan.ir.streams.size(), main);
  std::size_t next_pool = 0;
  for (std::size_t s = 1; s < plan.ir.streams.size(); ++s) {
    const auto name = plan.ir.stream_name(static_cast<std::int32_t>(s));
    bool bound = false;
    for (const auto& user : user_streams_)
      if (user.slot.view() == name) {
        slot_streams_[s] = user.stream;
        bound = true;
      }
    if (bound) continue;
    if (next_pool == pool_.size()) pool_.push_back(cuda_detail::new_stream());
    slot_streams_[s] = pool_[next_pool++].get();
  }
  streams_key_ = plan.ops.data();
  streams_main_ = main;
}

inline void cuda_executor::prepare_events(const plan_view& plan) {
  while (events_.size() < plan.ops.size()) events_.push_back(cuda_detail::new_event());
}

inline void cuda_executor::prepare_timing_events(const plan_view& plan) {
  while (timing_events_.size() < 2 + 2 * plan.ops.size())
    timing_events_.push_back(cuda_detail::new_timing_event());
}

inline void cuda_executor::read_timeline(const plan_view& plan, const prepared_run& ready, timeline& into) {
  cuda_detail::check(cudaEventSynchronize(timing_events_[1].get()), "cudaEventSynchronize",
                     "the end of a timed run (sd::record_timeline)");
  // Event times are read as milliseconds from the run's start event (about
  // half a microsecond of resolution), kept as nanoseconds.
  const auto since_start = [&](std::size_t event) {
    float ms = 0;
    cuda_detail::check(cudaEventElapsedTime(&ms, timing_events_[0].get(), timing_events_[event].get()),
                       "cudaEventElapsedTime", "a timed run's events (sd::record_timeline)");
    return static_cast<std::int64_t>(static_cast<double>(ms) * 1e6 + 0.5);
  };
  into.begin(plan, "CUDA events (sd::cuda_executor)");
  std::size_t next_step = 0;  // ready.steps holds the step ops in op order
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    const auto& op = plan.ops[i];
    if (op.group > 1) {  // one kernel: one slice
      const auto n = static_cast<std::size_t>(op.group);
      into.add(plan, i, since_start(2 + 2 * i), since_start(3 + 2 * i), 0, n);
      for (std::size_t g = i; g < i + n; ++g) next_step += plan.ops[g].kind == op_kind::step;
      i += n - 1;
      continue;
    }
    if (op.kind != op_kind::kernel && op.kind != op_kind::step) continue;
    std::size_t bytes = 0;
    if (op.kind == op_kind::step) {
      const auto& step = ready.steps[next_step++];
      if (step.code == ir::step_code::copy) bytes = step.bytes;
      // A collective: the bytes NCCL is given per rank (its count, step_table.hpp).
      if (ir::is_collective(step.code)) bytes = step.collective.count * size_of(step.collective.type);
    }
    into.add(plan, i, since_start(2 + 2 * i), since_start(3 + 2 * i), bytes);
  }
  into.end(since_start(1));
}

inline cudaMemPool_t cuda_executor::workspace_pool() {
  if (!workspace_pool_) workspace_pool_ = cuda_detail::new_caching_pool(device_);
  return workspace_pool_.get();
}
#endif  // !defined(__CUDA_ARCH__)

}  // namespace streamdsl
#endif  // STREAMDSL_CXX20
