#pragma once
// The host executor's threads, kept across runs:
// - stream_threads: one thread per stream slot that has work, each running
//   its stream's operations in plan order;
// - kernel_team: helpers that take chunks of a large kernel, so one kernel
//   can use several cores (the stream's own thread always takes part, so a
//   kernel never waits for a busy helper).
#include <cstddef>
#include <exception>

#include "kernel_program.hpp"
#include "posix_threads.hpp"

namespace streamdsl::host_detail {

class stream_threads {
 public:
  // What a pool thread runs: task(context). It must not throw: it reports failures itself.
  using task_fn = void (*)(void*);

  stream_threads() = default;
  stream_threads(const stream_threads&) = delete;
  stream_threads& operator=(const stream_threads&) = delete;
  ~stream_threads() {
    for (worker* w : workers_) w->stop();
    for (worker* w : workers_) delete w;  // joins its thread
  }

  // Runs `task(context)` on pool thread `i` (started on first use); returns at once.
  void start(std::size_t i, task_fn task, void* context) {
    while (workers_.size() <= i) {
      worker* w = new worker;
      try {
        workers_.push_back(w);
      } catch (...) {
        w->stop();
        delete w;
        throw;
      }
    }
    workers_[i]->give(task, context);
  }

 private:
  class worker {
   public:
    worker() { thread_.start(this); }
    worker(const worker&) = delete;
    worker& operator=(const worker&) = delete;
    ~worker() { thread_.join(); }

    void give(task_fn task, void* context) {
      {
        holding lock(mutex_);
        changed_.wait(lock, [&] { return task_ == nullptr; });  // the previous run's task has fully ended
        task_ = task;
        context_ = context;
      }
      changed_.notify_all();
    }
    void stop() {
      {
        holding lock(mutex_);
        stop_ = true;
      }
      changed_.notify_all();
    }
    void thread_main() {
      holding lock(mutex_);
      for (;;) {
        changed_.wait(lock, [&] { return stop_ || task_ != nullptr; });
        if (stop_) return;
        lock.unlock();
        task_(context_);
        lock.lock();
        task_ = nullptr;
        changed_.notify_all();
      }
    }

   private:
    mutex mutex_;
    condition changed_;
    task_fn task_ = nullptr;
    void* context_ = nullptr;
    bool stop_ = false;
    thread thread_;  // started by the constructor's body, once the state above exists
  };
  detail::dyn_array<worker*> workers_;  // owned
};

class kernel_team {
 public:
  // Elements per chunk a helper takes at a time; kernels under two chunks run alone.
  static constexpr std::size_t chunk_elements = 64 * block_elements;

  explicit kernel_team(unsigned helpers) : helpers_(new thread[helpers]), helper_count_(helpers) {
    try {
      for (std::size_t i = 0; i < helper_count_; ++i) helpers_[i].start(this);
    } catch (...) {
      stop_helpers();
      delete[] helpers_;
      throw;
    }
  }
  kernel_team(const kernel_team&) = delete;
  kernel_team& operator=(const kernel_team&) = delete;
  ~kernel_team() {
    stop_helpers();
    delete[] helpers_;
  }

  std::size_t helpers() const { return helper_count_; }

  // Runs all of kernel k: the calling thread with `scratch`, plus idle helpers.
  void run(const kernel_program& k, scratch_buffer& scratch) {
    const std::size_t chunks = (k.extent + chunk_elements - 1) / chunk_elements;
    if (helper_count_ == 0 || chunks < 2) return run_elements(k, scratch, 0, k.extent);
    job j;
    j.kernel = &k;
    j.chunks = chunks;
    {
      holding lock(mutex_);
      queue_.push_back(&j);
    }
    work_.notify_all();
    const std::size_t mine = take_chunks(j, scratch);
    holding lock(mutex_);
    j.done += mine;
    withdraw(j);  // no helper joins from here on
    progress_.wait(lock, [&] { return j.done == j.chunks && j.active == 0; });
    if (j.error) std::rethrow_exception(j.error);
  }

  // A helper's life: take chunks of queued kernels until stopped.
  void thread_main() {
    scratch_buffer scratch;
    holding lock(mutex_);
    for (;;) {
      work_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      job& j = *queue_.front();
      ++j.active;
      lock.unlock();
      const std::size_t ran = take_chunks(j, scratch);
      lock.lock();
      j.done += ran;
      --j.active;
      withdraw(j);  // every chunk is taken: nobody else needs to look at it
      progress_.notify_all();
    }
  }

 private:
  struct job {
    const kernel_program* kernel = nullptr;
    std::size_t chunks = 0;
    std::size_t next = 0;  // the next chunk to take (atomic)
    std::size_t done = 0;  // chunks finished (under mutex_)
    int active = 0;        // helpers working on it (under mutex_)
    std::exception_ptr error;
  };

  // Runs chunks of j until none is left; returns how many this thread ran.
  std::size_t take_chunks(job& j, scratch_buffer& scratch) {
    std::size_t ran = 0;
    for (std::size_t c; (c = __atomic_fetch_add(&j.next, 1, __ATOMIC_RELAXED)) < j.chunks; ++ran) {
      const std::size_t first = c * chunk_elements;
      const std::size_t last =
          first + chunk_elements < j.kernel->extent ? first + chunk_elements : j.kernel->extent;
      try {
        run_elements(*j.kernel, scratch, first, last);
      } catch (...) {
        holding lock(mutex_);
        if (!j.error) j.error = std::current_exception();
      }
    }
    return ran;
  }

  void withdraw(job& j) {
    for (std::size_t i = 0; i < queue_.size(); ++i)
      if (queue_[i] == &j) {
        for (; i + 1 < queue_.size(); ++i) queue_[i] = queue_[i + 1];
        queue_.pop_back();
        return;
      }
  }

  void stop_helpers() {
    {
      holding lock(mutex_);
      stop_ = true;
    }
    work_.notify_all();
    for (std::size_t i = 0; i < helper_count_; ++i) helpers_[i].join();
  }

  mutex mutex_;
  condition work_, progress_;
  detail::dyn_array<job*> queue_;  // oldest first
  bool stop_ = false;
  // Started by the constructor's body, once the state above exists. An owned
  // array, not a std::vector: <vector> would be the executor header's
  // heaviest include.
  thread* helpers_;
  std::size_t helper_count_;
};

}  // namespace streamdsl::host_detail
