#pragma once
// Mutex, condition variable and thread for the host executor, straight on
// POSIX threads: <thread>, <mutex> and <condition_variable> (which bring
// <chrono> along) and <functional> cost every translation unit that includes
// the executor about half a second of g++ time; <pthread.h> costs nothing
// measurable. Thread sanitizers intercept these calls like std::thread's.
// No <unistd.h>: it declares read, write, pipe, sleep... in every file that
// includes the executor, where a user's `constexpr auto pipe = ...` collides.
#include <pthread.h>
#if !defined(CPU_COUNT)  // no sched_getaffinity (not glibc): sysconf it is
#include <unistd.h>
#endif

#include "../../diag/error.hpp"

namespace streamdsl::host_detail {

// Cores this process may run on (at least 1).
inline unsigned available_cores() {
#if defined(CPU_COUNT)  // glibc's <sched.h>, which <pthread.h> includes
  cpu_set_t set;
  CPU_ZERO(&set);
  const int n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
#else
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
#endif
  return n > 0 ? static_cast<unsigned>(n) : 1;
}

class mutex {
 public:
  mutex() = default;
  mutex(const mutex&) = delete;
  mutex& operator=(const mutex&) = delete;
  ~mutex() { pthread_mutex_destroy(&m_); }

  void lock() { pthread_mutex_lock(&m_); }
  void unlock() { pthread_mutex_unlock(&m_); }

 private:
  friend class condition;
  pthread_mutex_t m_ = PTHREAD_MUTEX_INITIALIZER;
};

// Holds a mutex for a scope; unlock() and lock() let go of it for a while.
class holding {
 public:
  explicit holding(mutex& m) : m_(m) { m_.lock(); }
  holding(const holding&) = delete;
  holding& operator=(const holding&) = delete;
  ~holding() {
    if (held_) m_.unlock();
  }
  void unlock() {
    m_.unlock();
    held_ = false;
  }
  void lock() {
    m_.lock();
    held_ = true;
  }

 private:
  friend class condition;
  mutex& m_;
  bool held_ = true;
};

class condition {
 public:
  condition() = default;
  condition(const condition&) = delete;
  condition& operator=(const condition&) = delete;
  ~condition() { pthread_cond_destroy(&c_); }

  // Blocks, with `lock` held, until ready() holds.
  template <class Ready>
  void wait(holding& lock, Ready ready) {
    while (!ready()) pthread_cond_wait(&c_, &lock.m_.m_);
  }
  void notify_all() { pthread_cond_broadcast(&c_); }

 private:
  pthread_cond_t c_ = PTHREAD_COND_INITIALIZER;
};

// A thread running object->thread_main(); joined by join() or the destructor.
class thread {
 public:
  thread() = default;
  thread(const thread&) = delete;
  thread& operator=(const thread&) = delete;
  ~thread() { join(); }

  template <class T>
  void start(T* object) {
    if (pthread_create(&id_, nullptr, &enter<T>, object) != 0)
      throw error("streamdsl host executor: cannot start a thread");
    started_ = true;
  }
  void join() {
    if (started_) pthread_join(id_, nullptr);
    started_ = false;
  }

 private:
  template <class T>
  static void* enter(void* object) {
    static_cast<T*>(object)->thread_main();
    return nullptr;
  }
  pthread_t id_{};
  bool started_ = false;
};

}  // namespace streamdsl::host_detail
