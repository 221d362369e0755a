#pragma once
// What the stream threads of one run share: which record operations have
// happened (each record op of the plan is one occurrence of its event, so a
// wait waits for exactly the record op the plan names), how many streams are
// still running, and the first failure. After a failure every wait gives up,
// so no thread blocks forever on a record that will never come.
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <vector>

namespace streamdsl::host_detail {

class run_board {
 public:
  run_board(std::size_t ops, std::size_t streams) : recorded_(ops, false), running_(streams) {}

  void record(std::size_t op) {
    std::lock_guard lock(mutex_);
    recorded_[op] = true;
    changed_.notify_all();
  }

  // Blocks until record op `op` has happened; false when the run failed first.
  bool wait_for(std::size_t op) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return recorded_[op] || failed_; });
    return !failed_;
  }

  void fail(std::exception_ptr error) {
    std::lock_guard lock(mutex_);
    if (!error_) error_ = error;
    failed_ = true;
    changed_.notify_all();
  }

  bool failed() {
    std::lock_guard lock(mutex_);
    return failed_;
  }

  void stream_done() {
    std::lock_guard lock(mutex_);
    --running_;
    changed_.notify_all();  // under the lock: the board may be gone once the caller wakes
  }

  // Waits for every stream, then rethrows the first failure.
  void finish() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return running_ == 0; });
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<bool> recorded_;
  std::size_t running_;
  bool failed_ = false;
  std::exception_ptr error_;
};

}  // namespace streamdsl::host_detail
