#pragma once
// Collectives on the host executor: ranks as threads of one process, each
// with its own sd::host_executor bound to its end of an sd::loopback_world.
// The program is one rank's work (SPMD); every rank runs it with bindings of
// its own, and its collectives meet the other ranks' there:
//
//   sd::loopback_world world(4);
//   world.run(step, [&](int rank) {
//     return std::vector<sd::binding>{sd::bind("x", x[rank]), sd::bind("g", g[rank])};
//   });
//
// run() starts every rank at once (rank 0 on the caller's thread), returns
// when every rank is done, and rethrows the first rank's failure: the rank
// that failed first, not the others that it stopped (sd::collective_aborted).
// bindings_of(rank) returns anything with data() and size() over
// sd::binding (a std::vector<sd::binding>, an array), alive while the rank
// runs. world.executor(rank) is rank's executor, bound to
// world.communicator(rank); threads of the caller's may run them instead of
// run() (each rank's executor.run on its own thread).
//
// What a collective does here (as NCCL does, ops/collective.hpp): when every
// rank has issued it, the last to arrive computes every rank's result, in
// rank order, rounding to the element type after each operation (avg: each
// rank's value times 1/ranks, then summed, as NCCL's premultiplied sum),
// integer sums and products wrapping around; min and max by `<`. The other
// ranks wait for it on the condition variable: a collective blocks its
// stream's thread until every rank has reached it, as on the GPU. Results
// of floating sums may differ from NCCL's in the last bits (NCCL adds in
// its ring's or tree's order).
//
// Checked before anything runs (binding_error, on every rank): a
// collective's extents against the world's size on each rank
// (backend/collective_extents.hpp) and, by the first rank's bindings, that
// every rank binds its collectives with the same extents (and runs the same
// plan). The loopback checks this on every run: the agreement is one barrier.
// A failing rank (a bad binding, a call that throws) aborts the world, so no
// rank waits for it for ever; the next run() starts clean (reset()).
#include <cstring>
#include <exception>
#include <type_traits>

#include "../../detail/dyn_array.hpp"
#include "../../detail/owned_string.hpp"
#include "../../detail/text.hpp"
#include "../../diag/error.hpp"
#include "communicator.hpp"
#include "host_executor.hpp"
#include "posix_threads.hpp"

namespace streamdsl {

// What a rank throws when another rank failed while it waited in a
// collective (or in the agreement before a run).
class collective_aborted : public error {
 public:
  using error::error;
};

class loopback_world;

// Rank r's end of a loopback_world: what rank r's executor is bound to.
class loopback_communicator final : public host_communicator {
 public:
  int rank() const noexcept override { return rank_; }
  int size() const noexcept override;
  void agree(const plan_view& plan, const host_detail::collective_call* calls, std::size_t count) override;
  void run(const host_detail::collective_call& call) override;
  void abort() noexcept override;

 private:
  friend class loopback_world;
  loopback_communicator(loopback_world* world, int rank) : world_(world), rank_(rank) {}
  loopback_world* world_;
  int rank_;
};

namespace host_detail {

// --- the arithmetic ------------------------------------------------------------

template <class T>
T combine(reduce_op op, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    switch (op) {  // sums and products wrap around (as unsigned arithmetic), as on the GPU
      case reduce_op::sum:
      case reduce_op::avg: return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
      case reduce_op::prod:
        return static_cast<T>(static_cast<U>(static_cast<std::uint64_t>(static_cast<U>(a)) *
                                             static_cast<std::uint64_t>(static_cast<U>(b))));
      case reduce_op::min: return b < a ? b : a;
      case reduce_op::max: return a < b ? b : a;
    }
    return a;
  } else if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case reduce_op::sum:
      case reduce_op::avg: return a + b;
      case reduce_op::prod: return a * b;
      case reduce_op::min: return b < a ? b : a;
      case reduce_op::max: return a < b ? b : a;
    }
    return a;
  } else {  // __half, __nv_bfloat16: in float, rounded to the type
    return T(combine<float>(op, static_cast<float>(a), static_cast<float>(b)));
  }
}

// avg's premultiplication: x * (1 / ranks) in the element type.
template <class T>
T scaled(T x, int ranks) {
  if constexpr (std::is_floating_point_v<T>)
    return x * (T(1) / static_cast<T>(ranks));
  else
    return T(static_cast<float>(x) * static_cast<float>(T(1.0f / static_cast<float>(ranks))));
}

// out[i] = op over ranks r of in[r][i], in rank order.
template <class T>
void fold(reduce_op op, std::byte* out, const std::byte* const* in, int ranks, std::size_t count) {
  T* result = reinterpret_cast<T*>(out);
  for (std::size_t i = 0; i < count; ++i) {
    T a = reinterpret_cast<const T*>(in[0])[i];
    if (op == reduce_op::avg) a = scaled(a, ranks);
    for (int r = 1; r < ranks; ++r) {
      T b = reinterpret_cast<const T*>(in[r])[i];
      if (op == reduce_op::avg) b = scaled(b, ranks);
      a = combine(op, a, b);
    }
    result[i] = a;
  }
}

// The types ir::collective_supports lets a reduction have.
inline void fold_any(dtype type, reduce_op op, std::byte* out, const std::byte* const* in, int ranks,
                     std::size_t count) {
  switch (type) {
    case dtype::int8: return fold<std::int8_t>(op, out, in, ranks, count);
    case dtype::int32: return fold<std::int32_t>(op, out, in, ranks, count);
    case dtype::int64: return fold<std::int64_t>(op, out, in, ranks, count);
    case dtype::uint8: return fold<std::uint8_t>(op, out, in, ranks, count);
    case dtype::uint32: return fold<std::uint32_t>(op, out, in, ranks, count);
    case dtype::uint64: return fold<std::uint64_t>(op, out, in, ranks, count);
    case dtype::float32: return fold<float>(op, out, in, ranks, count);
    case dtype::float64: return fold<double>(op, out, in, ranks, count);
#ifdef STREAMDSL_HAS_HALF
    case dtype::float16: return fold<__half>(op, out, in, ranks, count);
    case dtype::bfloat16: return fold<__nv_bfloat16>(op, out, in, ranks, count);
#else
    case dtype::float16:
    case dtype::bfloat16: break;  // the executor refused the plan before it ran
#endif
    case dtype::boolean:
    case dtype::int16:
    case dtype::uint16:
    case dtype::float8_e4m3:
    case dtype::float8_e5m2: break;  // refused at compile time (ir::collective_supports)
  }
  throw error("streamdsl loopback: internal error: a reduction of a type no collective reduces");
}

// Every rank's result of one collective, from every rank's call (calls[r]),
// through `scratch` (so that in-place calls and ranks bound to one memory
// read their sources before any target is written).
inline void perform(const collective_call* calls, int ranks, detail::dyn_array<std::byte>& scratch) {
  const auto& c0 = calls[0];
  const std::size_t element = size_of(c0.type);
  const std::size_t n = static_cast<std::size_t>(ranks);
  detail::dyn_array<const std::byte*> sources(n);
  for (std::size_t r = 0; r < n; ++r) sources[r] = calls[r].source;
  switch (c0.code) {
    case ir::step_code::all_reduce:
    case ir::step_code::reduce_scatter: {
      const std::size_t count = c0.source_count;
      scratch.resize(count * element);
      if (count > 0) fold_any(c0.type, c0.op, scratch.data(), sources.data(), ranks, count);
      const std::size_t part = c0.code == ir::step_code::all_reduce ? count : count / n;
      for (std::size_t r = 0; r < n; ++r)
        if (part > 0)
          std::memcpy(calls[r].target,
                      scratch.data() + (c0.code == ir::step_code::all_reduce ? 0 : r * part * element),
                      part * element);
      return;
    }
    case ir::step_code::all_gather: {
      const std::size_t bytes = c0.source_count * element;
      scratch.resize(n * bytes);
      for (std::size_t r = 0; r < n && bytes > 0; ++r)
        std::memcpy(scratch.data() + r * bytes, sources[r], bytes);
      for (std::size_t r = 0; r < n && bytes > 0; ++r)
        std::memcpy(calls[r].target, scratch.data(), n * bytes);
      return;
    }
    case ir::step_code::broadcast: {
      const std::size_t bytes = c0.source_count * element;
      scratch.resize(bytes);
      if (bytes > 0) std::memcpy(scratch.data(), sources[static_cast<std::size_t>(c0.root)], bytes);
      for (std::size_t r = 0; r < n && bytes > 0; ++r) std::memcpy(calls[r].target, scratch.data(), bytes);
      return;
    }
    default: break;
  }
  throw error("streamdsl loopback: internal error: not a collective step");
}

}  // namespace host_detail

class loopback_world {
 public:
  // `ranks` ranks, each with a host executor of `options` (by default no
  // kernel helper threads: the ranks already run side by side).
  explicit loopback_world(int ranks, host_options options = no_helpers())
      : size_(ranks > 0 ? ranks : throw error("streamdsl: loopback_world needs at least one rank")) {
    for (int r = 0; r < size_; ++r) communicators_.push_back(new loopback_communicator(this, r));
    for (int r = 0; r < size_; ++r) {
      executors_.push_back(new host_executor(options));
      executors_[static_cast<std::size_t>(r)]->bind_communicator(
          *communicators_[static_cast<std::size_t>(r)]);
    }
  }
  loopback_world(const loopback_world&) = delete;
  loopback_world& operator=(const loopback_world&) = delete;
  ~loopback_world() {
    for (auto* e : executors_) delete e;
    for (auto* c : communicators_) delete c;
  }

  int size() const { return size_; }
  host_executor& executor(int rank) { return *executors_[index(rank)]; }
  loopback_communicator& communicator(int rank) { return *communicators_[index(rank)]; }

  // Runs a compiled program (sd::program) on every rank: bindings_of(rank)
  // gives rank's bindings.
  template <class Program, class BindingsOf>
    requires requires { Program::plan(); }
  void run(const Program& program, BindingsOf&& bindings_of) {
    for_each_rank([&](int r) {
      const auto list = bindings_of(r);
      executor(r).run(program, binding_list(list.data(), static_cast<std::size_t>(list.size())));
    });
  }
  // Runs any plan (one scheduled at run time) on every rank.
  template <std::convertible_to<plan_view> Plan, class BindingsOf>
    requires(!requires { Plan::plan(); })
  void run(const Plan& plan, BindingsOf&& bindings_of) {
    for_each_rank([&](int r) {
      const auto list = bindings_of(r);
      executor(r).run(plan, binding_list(list.data(), static_cast<std::size_t>(list.size())));
    });
  }

  // Runs job(rank) for every rank at once (rank 0 on the caller's thread);
  // rethrows the failure of the lowest rank that failed by itself (else the
  // lowest rank's collective_aborted) once every rank has returned.
  template <class Job>
  void for_each_rank(const Job& job) {
    reset();
    struct rank_task {
      const Job* job;
      int rank;
      std::exception_ptr failure;
      void thread_main() {
        try {
          (*job)(rank);
        } catch (...) {
          failure = std::current_exception();
        }
      }
    };
    detail::dyn_array<rank_task> tasks(static_cast<std::size_t>(size_));
    for (int r = 0; r < size_; ++r) tasks[static_cast<std::size_t>(r)] = rank_task{&job, r, nullptr};
    {
      struct thread_array {  // joined (its threads' destructors) when it goes
        host_detail::thread* threads;
        ~thread_array() { delete[] threads; }
      } threads{new host_detail::thread[static_cast<std::size_t>(size_)]};
      for (int r = 1; r < size_; ++r) {
        try {
          threads.threads[r].start(&tasks[static_cast<std::size_t>(r)]);
        } catch (...) {  // no thread for a rank: the ranks started must not wait for it
          abort_all();
          tasks[static_cast<std::size_t>(r)].failure = std::current_exception();
          break;
        }
      }
      tasks[0].thread_main();
    }  // joins
    std::exception_ptr aborted;
    for (auto& t : tasks) {
      if (!t.failure) continue;
      try {
        std::rethrow_exception(t.failure);
      } catch (const collective_aborted&) {
        if (!aborted) aborted = t.failure;
      } catch (...) {
        throw;
      }
    }
    if (aborted) std::rethrow_exception(aborted);
  }

  // Forgets a failed run's abort and offers, so that the next run can meet.
  // run() calls it; call it between runs of your own threads after one
  // failed (never while a rank runs).
  void reset() {
    host_detail::holding lock(mutex_);
    aborted_ = false;
    arrived_ = 0;  // the offers of ranks that a failure stopped in the agreement
  }

 private:
  friend class loopback_communicator;

  static host_options no_helpers() {
    host_options o;
    o.kernel_helpers = 0;
    return o;
  }
  std::size_t index(int rank) const {
    if (rank < 0 || rank >= size_) {
      detail::text msg;
      msg << "streamdsl: loopback_world: rank " << rank << " is not a rank of a world of " << size_;
      throw error(msg.view());
    }
    return static_cast<std::size_t>(rank);
  }

  [[noreturn, gnu::cold]] void throw_aborted(int rank) {
    detail::text msg;
    msg << "streamdsl: loopback collective: rank " << rank << " of " << size_
        << " stopped waiting: another rank failed (loopback_world::run rethrows that rank's error)";
    throw collective_aborted(msg.view());
  }

  // --- the agreement before a run -------------------------------------------
  void agree(int rank, const plan_view& plan, const host_detail::collective_call* calls, std::size_t count) {
    host_detail::holding lock(mutex_);
    if (aborted_) throw_aborted(rank);
    if (arrived_ == 0) {
      offered_.assign(static_cast<std::size_t>(size_), nullptr);
      offered_count_.resize(static_cast<std::size_t>(size_));
      offered_ops_.resize(static_cast<std::size_t>(size_));
    }
    if (offered_[static_cast<std::size_t>(rank)] != nullptr) {  // calls is never null: count >= 1
      detail::text msg;
      msg << "streamdsl: bad binding: rank " << rank << " of " << size_
          << " started a run while another run of rank " << rank
          << " waits for the other ranks: two executors are bound to one communicator, or one rank runs "
             "twice; bind each executor to its own rank (loopback_world::executor(rank) is)";
      aborted_ = true;  // the ranks waiting would wait for ever
      changed_.notify_all();
      throw binding_error(msg.view());
    }
    offered_[static_cast<std::size_t>(rank)] = calls;
    offered_count_[static_cast<std::size_t>(rank)] = count;
    offered_ops_[static_cast<std::size_t>(rank)] = plan.ops.size();
    const auto generation = generation_;
    if (++arrived_ == size_) {
      verdict_ = detail::owned_string(compare(plan).view());
      slots_.clear();
      slots_.resize(plan.ops.size());
      arrived_ = 0;
      ++generation_;
      changed_.notify_all();
    } else {
      changed_.wait(lock, [&] { return generation_ != generation || aborted_; });
      if (generation_ == generation) throw_aborted(rank);
    }
    if (!verdict_.empty()) throw binding_error(verdict_.view());
  }

  // Every rank's collectives against rank 0's: "" when they agree.
  detail::text compare(const plan_view& plan) const {
    detail::text msg;
    const auto* first = offered_[0];
    for (std::size_t r = 1; r < static_cast<std::size_t>(size_) && msg.view().empty(); ++r) {
      if (offered_count_[r] != offered_count_[0] || offered_ops_[r] != offered_ops_[0]) {
        msg << "streamdsl: bad binding: rank " << r << " of " << size_
            << " runs another plan than rank 0 (its ops or collectives differ); every rank runs one program";
        break;
      }
      for (std::size_t k = 0; k < offered_count_[0]; ++k) {
        const auto& a = first[k];
        const auto& b = offered_[r][k];
        if (a.op_index != b.op_index || a.code != b.code || a.type != b.type || a.op != b.op ||
            a.root != b.root) {
          msg << "streamdsl: bad binding: rank " << r << " of " << size_
              << " runs another plan than rank 0 (its collectives differ); every rank runs one program";
          break;
        }
        const bool source = a.source_count != b.source_count;
        if (source || a.target_count != b.target_count) {
          const auto buffer = source ? a.source_buffer : a.target_buffer;
          msg << "streamdsl: bad binding: ";
          ir::describe_statement(plan.ir, a.stmt, msg);
          msg << ": " << backend_detail::buffer_description{plan, buffer} << " is bound with "
              << (source ? b.source_count : b.target_count) << " elements on rank " << r << " of " << size_
              << " and " << (source ? a.source_count : a.target_count)
              << " on rank 0; a collective moves as many elements on every rank, so bind "
              << backend_detail::quote{plan.ir.buffer_name(buffer)} << " with one extent on every rank";
          break;
        }
      }
    }
    return msg;
  }

  // --- one collective ---------------------------------------------------------
  void collective(int rank, const host_detail::collective_call& call) {
    host_detail::holding lock(mutex_);
    if (aborted_) throw_aborted(rank);
    auto& slot = slots_[static_cast<std::size_t>(call.op_index)];
    if (slot.calls.empty()) slot.calls.resize(static_cast<std::size_t>(size_));
    slot.calls[static_cast<std::size_t>(rank)] = call;
    if (++slot.arrived == size_) {
      host_detail::perform(slot.calls.data(), size_, scratch_);
      slot.done = true;
      changed_.notify_all();
      return;
    }
    changed_.wait(lock, [&] { return slot.done || aborted_; });
    if (!slot.done) throw_aborted(rank);
  }

  void abort_all() noexcept {
    host_detail::holding lock(mutex_);
    aborted_ = true;
    changed_.notify_all();
  }

  struct slot {
    int arrived = 0;
    bool done = false;
    detail::dyn_array<host_detail::collective_call> calls;  // per rank
  };

  int size_;
  detail::dyn_array<loopback_communicator*> communicators_;
  detail::dyn_array<host_executor*> executors_;
  host_detail::mutex mutex_;
  host_detail::condition changed_;
  bool aborted_ = false;
  // The agreement: each rank's offer, until the last rank compares them.
  int arrived_ = 0;
  std::uint64_t generation_ = 0;
  detail::dyn_array<const host_detail::collective_call*> offered_;
  detail::dyn_array<std::size_t> offered_count_, offered_ops_;
  detail::owned_string verdict_;
  // This run's collectives, by plan op.
  detail::dyn_array<slot> slots_;
  detail::dyn_array<std::byte> scratch_;
};

inline int loopback_communicator::size() const noexcept { return world_->size_; }
inline void loopback_communicator::agree(const plan_view& plan, const host_detail::collective_call* calls,
                                         std::size_t count) {
  world_->agree(rank_, plan, calls, count);
}
inline void loopback_communicator::run(const host_detail::collective_call& call) {
  world_->collective(rank_, call);
}
inline void loopback_communicator::abort() noexcept { world_->abort_all(); }

}  // namespace streamdsl
