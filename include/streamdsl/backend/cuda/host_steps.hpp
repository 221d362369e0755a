#pragma once
// Host steps on the GPU (p.host_call, ops/call.hpp): each is one
// cudaLaunchHostFunc on its step's stream (a host node in a captured graph),
// whose user data is a host_task: the callable, the step's regions (host
// memory, bound by the caller: the same for every issue of one binding set)
// and where to record what the callable throws. CUDA calls the function on a
// thread of its own, after the stream's earlier work and before its later
// work, so the tasks must outlive every issue and every graph replay that
// names them: they are made once per binding set (cuda_executor::prepare), in
// a reference-counted batch that the executor and each graph captured with it
// hold, and a holder lets go of it in stream order (host_tasks_ref: a host
// function after everything issued on the holder's last stream deletes it).
//
// A callable cannot throw through the CUDA runtime: the trampoline catches
// what it throws and records the first failure in the executor's
// host_failures; later host steps of the executor are skipped (their GPU
// neighbours still run) until the failure is reported, as an sd::error naming
// the step and its stream, at the executor's next synchronising point:
// cuda_executor::synchronize(), the end of a timed run, or the next run,
// capture or graph launch (docs/cuda_executor.md, "Host steps").
#include <cuda_runtime.h>

#include <cstddef>
#include <exception>

#include "../../detail/dyn_array.hpp"
#include "../../detail/owned_string.hpp"
#include "../../detail/text.hpp"
#include "../../diag/error.hpp"
#include "../../plan/plan_view.hpp"
#include "../bindings.hpp"
#include "../call_context.hpp"

namespace streamdsl::cuda_detail {

// Whether a plan holds a host step: a plan without any compiles none of this.
constexpr bool has_host_steps(const plan_view& p) {
  for (const auto& op : p.ops)
    if (op.kind == op_kind::step &&
        p.ir.stmts[static_cast<std::size_t>(op.stmt)].code == ir::step_code::host_call)
      return true;
  return false;
}

// The first failure of a host step, shared by an executor and its batches
// (reference-counted: a batch deleted after the executor still records into it).
class host_failures {
 public:
  static host_failures* make() { return new host_failures(); }
  void add_ref() { __atomic_fetch_add(&refs_, 1, __ATOMIC_RELAXED); }
  void drop() {
    if (__atomic_sub_fetch(&refs_, 1, __ATOMIC_ACQ_REL) == 0) delete this;
  }

  // Whether a failure waits to be reported.
  bool failed() const { return __atomic_load_n(&state_, __ATOMIC_ACQUIRE) == recorded; }

  // On CUDA's host-function thread: keeps the first failure, drops later ones.
  void record(const detail::owned_string& where, const char* cause) noexcept {
    int expected = none;
    if (!__atomic_compare_exchange_n(&state_, &expected, writing, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      return;
    try {
      error_ = std::current_exception();
      message_ = detail::owned_string(
          (detail::text() << "streamdsl: the callable bound to " << where.view() << " threw: " << cause
                          << "; later host steps of this executor were skipped until this report (the GPU "
                             "work issued around them ran)")
              .view());
    } catch (...) {  // out of memory: the failure is still reported, without the details
    }
    __atomic_store_n(&state_, recorded, __ATOMIC_RELEASE);
  }

  // Throws the recorded failure as an sd::error with the callable's
  // exception nested in it, and clears it (host steps run again).
  void report() {
    if (!failed()) return;
    std::exception_ptr cause = error_;
    detail::owned_string message = static_cast<detail::owned_string&&>(message_);
    error_ = nullptr;
    message_ = detail::owned_string();
    __atomic_store_n(&state_, none, __ATOMIC_RELEASE);
    const char* text = message.empty() ? "streamdsl: a host step's callable threw" : message.c_str();
    if (!cause) throw error(text);
    try {
      std::rethrow_exception(cause);
    } catch (...) {
      std::throw_with_nested(error(text));
    }
  }

 private:
  host_failures() = default;
  static constexpr int none = 0, writing = 1, recorded = 2;
  int state_ = none;
  long refs_ = 1;
  std::exception_ptr error_;
  detail::owned_string message_;
};

// One host step as its host function sees it.
struct host_task {
  detail::shared_callable callable;
  detail::owned_string name;   // the call's, for call_context::name()
  detail::owned_string where;  // "statement #3 `p.host_call(...)` on stream 'side'"
  detail::dyn_array<call_region> regions;
  std::size_t read_count = 0;
  host_failures* failures = nullptr;
};

// The host function of every host step.
inline void CUDART_CB run_host_task(void* data) {
  auto& task = *static_cast<host_task*>(data);
  if (task.failures->failed()) return;  // skipped until the failure is reported
  try {
    call_context context(task.name.view(), nullptr, false, task.regions.data(), task.read_count,
                         task.regions.size() - task.read_count);
    task.callable(context);
  } catch (const std::exception& e) {
    task.failures->record(task.where, e.what());
  } catch (...) {
    task.failures->record(task.where, "an exception that is not a std::exception");
  }
}

// The host tasks of one binding set: their addresses are fixed once made.
class host_tasks {
 public:
  explicit host_tasks(host_failures* failures) : failures_(failures) { failures_->add_ref(); }
  host_tasks(const host_tasks&) = delete;
  host_tasks& operator=(const host_tasks&) = delete;
  ~host_tasks() {
    for (auto* t : tasks_) delete t;
    failures_->drop();
  }
  host_task& add() {
    tasks_.push_back(nullptr);
    tasks_[tasks_.size() - 1] = new host_task();
    tasks_[tasks_.size() - 1]->failures = failures_;
    return *tasks_[tasks_.size() - 1];
  }
  std::size_t size() const { return tasks_.size(); }
  host_task* task(std::size_t i) const { return tasks_[i]; }
  void add_ref() { __atomic_fetch_add(&refs_, 1, __ATOMIC_RELAXED); }
  void drop() {
    if (__atomic_sub_fetch(&refs_, 1, __ATOMIC_ACQ_REL) == 0) delete this;
  }

 private:
  detail::dyn_array<host_task*> tasks_;
  host_failures* failures_;
  long refs_ = 1;
};

// A holder's reference to a batch, let go of in stream order when it is
// replaced (rebinding, another program): after the work issued so far on the
// stream it was last issued on (release_on), so that a host function still
// to run finds its task. When the holder is destroyed, after the device's
// work (see the destructor). Move-only.
class host_tasks_ref {
 public:
  host_tasks_ref() = default;
  explicit host_tasks_ref(host_tasks* batch) : batch_(batch) {}  // adopts a reference
  host_tasks_ref(host_tasks_ref&& o) noexcept : batch_(o.batch_), stream_(o.stream_), issued_(o.issued_) {
    o.batch_ = nullptr;
  }
  host_tasks_ref& operator=(host_tasks_ref&& o) noexcept {
    if (this != &o) {
      reset();
      batch_ = o.batch_;
      stream_ = o.stream_;
      issued_ = o.issued_;
      o.batch_ = nullptr;
    }
    return *this;
  }
  // The holder goes (an executor, a graph): its last stream may be gone
  // too (the caller's, destroyed first), so no work is issued on it; when
  // its tasks were issued, the device's work is waited for instead.
  ~host_tasks_ref() {
    host_tasks* const b = batch_;
    batch_ = nullptr;
    if (b == nullptr) return;
    if (issued_ && cudaDeviceSynchronize() != cudaSuccess) (void)cudaGetLastError();
    b->drop();
  }

  // Another reference to the same batch, not yet issued anywhere.
  host_tasks_ref share() const {
    if (batch_ != nullptr) batch_->add_ref();
    return host_tasks_ref(batch_);
  }
  host_tasks* get() const { return batch_; }
  explicit operator bool() const { return batch_ != nullptr; }
  // Its tasks were issued (or a graph holding them launched) on `stream`.
  void release_on(cudaStream_t stream) {
    stream_ = stream;
    issued_ = true;
  }
  // Lets go: deleted by a host function after the last stream's work, or at
  // once when never issued or when that stream takes no more work.
  void reset() noexcept {
    host_tasks* const b = batch_;
    batch_ = nullptr;
    if (b == nullptr) return;
    if (issued_ && cudaLaunchHostFunc(
                       stream_, [](void* p) { static_cast<host_tasks*>(p)->drop(); }, b) == cudaSuccess)
      return;
    if (issued_) (void)cudaGetLastError();  // not sticky: leave no trace for the caller's own checks
    b->drop();
  }

 private:
  host_tasks* batch_ = nullptr;
  cudaStream_t stream_ = nullptr;
  bool issued_ = false;
};

}  // namespace streamdsl::cuda_detail
