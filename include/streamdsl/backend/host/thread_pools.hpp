#pragma once
// The host executor's threads, kept across runs:
// - stream_threads: one thread per stream slot that has work, each running
//   its stream's operations in plan order;
// - kernel_team: helpers that take chunks of a large kernel, so one kernel
//   can use several cores (the stream's own thread always takes part, so a
//   kernel never waits for a busy helper).
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "kernel_program.hpp"

namespace streamdsl::host_detail {

class stream_threads {
 public:
  stream_threads() = default;
  stream_threads(const stream_threads&) = delete;
  stream_threads& operator=(const stream_threads&) = delete;
  ~stream_threads() {
    for (auto& w : workers_) {
      {
        std::lock_guard lock(w->mutex);
        w->stop = true;
      }
      w->changed.notify_all();
    }
    for (auto& w : workers_) w->thread.join();
  }

  // Runs `task` on pool thread `i` (started on first use); returns at once.
  // The task must not throw: it reports failures itself.
  void start(std::size_t i, std::function<void()> task) {
    while (workers_.size() <= i) workers_.push_back(std::make_unique<worker>());
    worker& w = *workers_[i];
    {
      std::unique_lock lock(w.mutex);
      w.changed.wait(lock, [&] { return !w.task; });  // the previous run's task has fully ended
      w.task = std::move(task);
    }
    w.changed.notify_all();
  }

 private:
  struct worker {
    std::mutex mutex;
    std::condition_variable changed;
    std::function<void()> task;
    bool stop = false;
    std::thread thread{[this] { loop(); }};

    void loop() {
      std::unique_lock lock(mutex);
      for (;;) {
        changed.wait(lock, [&] { return stop || task; });
        if (stop) return;
        lock.unlock();
        task();
        lock.lock();
        task = nullptr;
        changed.notify_all();
      }
    }
  };
  std::vector<std::unique_ptr<worker>> workers_;
};

class kernel_team {
 public:
  // Elements per chunk a helper takes at a time; kernels under two chunks run alone.
  static constexpr std::size_t chunk_elements = 64 * block_elements;

  explicit kernel_team(unsigned helpers) {
    for (unsigned i = 0; i < helpers; ++i) helpers_.emplace_back([this] { help(); });
  }
  kernel_team(const kernel_team&) = delete;
  kernel_team& operator=(const kernel_team&) = delete;
  ~kernel_team() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    work_.notify_all();
    for (auto& t : helpers_) t.join();
  }

  std::size_t helpers() const { return helpers_.size(); }

  // Runs all of kernel k: the calling thread with `scratch`, plus idle helpers.
  void run(const kernel_program& k, scratch_buffer& scratch) {
    const std::size_t chunks = (k.extent + chunk_elements - 1) / chunk_elements;
    if (helpers_.empty() || chunks < 2) return run_elements(k, scratch, 0, k.extent);
    job j;
    j.kernel = &k;
    j.chunks = chunks;
    {
      std::lock_guard lock(mutex_);
      queue_.push_back(&j);
    }
    work_.notify_all();
    const std::size_t mine = take_chunks(j, scratch);
    std::unique_lock lock(mutex_);
    j.done += mine;
    withdraw(j);  // no helper joins from here on
    progress_.wait(lock, [&] { return j.done == j.chunks && j.active == 0; });
    if (j.error) std::rethrow_exception(j.error);
  }

 private:
  struct job {
    const kernel_program* kernel = nullptr;
    std::size_t chunks = 0;
    std::atomic<std::size_t> next{0};
    std::size_t done = 0;  // chunks finished (under mutex_)
    int active = 0;        // helpers working on it (under mutex_)
    std::exception_ptr error;
  };

  // Runs chunks of j until none is left; returns how many this thread ran.
  std::size_t take_chunks(job& j, scratch_buffer& scratch) {
    std::size_t ran = 0;
    for (std::size_t c; (c = j.next.fetch_add(1)) < j.chunks; ++ran) {
      const std::size_t first = c * chunk_elements;
      try {
        run_elements(*j.kernel, scratch, first, std::min(first + chunk_elements, j.kernel->extent));
      } catch (...) {
        std::lock_guard lock(mutex_);
        if (!j.error) j.error = std::current_exception();
      }
    }
    return ran;
  }

  void withdraw(job& j) {
    const auto it = std::find(queue_.begin(), queue_.end(), &j);
    if (it != queue_.end()) queue_.erase(it);
  }

  void help() {
    scratch_buffer scratch;
    std::unique_lock lock(mutex_);
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

  std::mutex mutex_;
  std::condition_variable work_, progress_;
  std::deque<job*> queue_;
  bool stop_ = false;
  std::vector<std::thread> helpers_;
};

}  // namespace streamdsl::host_detail
