#pragma once
// What the stream threads of one run share: which record operations have
// happened (each record op of the plan is one occurrence of its event, so a
// wait waits for exactly the record op the plan names), how many streams are
// still running, and the first failure. After a failure every wait gives up,
// so no thread blocks forever on a record that will never come.
#include <cstddef>
#include <exception>

#include "../../detail/dyn_array.hpp"
#include "posix_threads.hpp"

namespace streamdsl::host_detail {

class run_board {
 public:
  run_board(std::size_t ops, std::size_t streams) : recorded_(ops, 0), running_(streams) {}

  void record(std::size_t op) {
    holding lock(mutex_);
    recorded_[op] = 1;
    changed_.notify_all();
  }

  // Blocks until record op `op` has happened; false when the run failed first.
  bool wait_for(std::size_t op) {
    holding lock(mutex_);
    changed_.wait(lock, [&] { return recorded_[op] || failed_; });
    return !failed_;
  }

  void fail(std::exception_ptr error) {
    holding lock(mutex_);
    if (!error_) error_ = error;
    failed_ = true;
    changed_.notify_all();
  }

  bool failed() {
    holding lock(mutex_);
    return failed_;
  }

  void stream_done() {
    holding lock(mutex_);
    --running_;
    changed_.notify_all();  // under the lock: the board may be gone once the caller wakes
  }

  // Waits for every stream, then rethrows the first failure.
  void finish() {
    holding lock(mutex_);
    changed_.wait(lock, [&] { return running_ == 0; });
    if (error_) std::rethrow_exception(error_);
  }

 private:
  mutex mutex_;
  condition changed_;
  detail::dyn_array<unsigned char> recorded_;  // per op: whether it is a record that has happened
  std::size_t running_;
  bool failed_ = false;
  std::exception_ptr error_;
};

}  // namespace streamdsl::host_detail
