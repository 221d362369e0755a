#pragma once
// sd::cuda_executor_group: one process driving every local GPU. It holds one
// CUDA executor per device (rank r on devices[r]), each on a main stream of
// its own and bound to rank r's communicator (made with ncclCommInitAll, or
// the caller's), and runs one SPMD program on every rank with bindings that
// depend on the rank.
//
// Issue order: every rank's plan is issued by a thread of its own (rank 0 by
// the caller's), NCCL's "one device per thread" mode. The obvious single
// thread, which issues rank after rank with each collective inside
// ncclGroupStart/End, is wrong for plans: NCCL launches a grouped call only
// at ncclGroupEnd, so the kernels a plan issues after a collective on the same
// stream would run before it. With a thread per rank each collective is
// launched where the plan puts it, and the ranks meet only inside NCCL.
// (ncclGroupStart/End still groups the communicators' creation, inside
// ncclCommInitAll.)
//
// A run validates every rank's bindings before any rank issues anything
// (a rank that fails binding after another has issued a collective would
// leave that collective waiting on the GPU for ever), and checks that every
// collective has the same type and count on every rank (NCCL would hang or
// read out of bounds otherwise). run() returns once every rank has issued its
// run; synchronize() waits for the runs' ends.
#include <cuda_runtime.h>
#include <nccl.h>

#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "collectives.hpp"
#include "cuda_executor.hpp"
#include "nccl_communicator.hpp"

namespace streamdsl {

class cuda_executor_group {
 public:
  // Every visible device, one rank each.
  cuda_executor_group() : cuda_executor_group(all_devices()) {}
  // One rank per device of `devices` (rank r on devices[r]); the group makes
  // the communicators (ncclCommInitAll) and owns them.
  explicit cuda_executor_group(std::vector<int> devices) : devices_(std::move(devices)) {
    if (devices_.empty()) throw error("streamdsl: cuda_executor_group: no device to run on (no visible GPU)");
    std::vector<ncclComm_t> comms(devices_.size(), nullptr);
    cuda_detail::check_nccl(ncclCommInitAll(comms.data(), static_cast<int>(comms.size()), devices_.data()),
                            "ncclCommInitAll");
    for (auto c : comms) owned_.emplace_back(c);
    start(comms);
  }
  // The caller's communicators, comms[r] for rank r on devices[r] (not owned).
  cuda_executor_group(std::vector<int> devices, const std::vector<ncclComm_t>& comms)
      : devices_(std::move(devices)) {
    if (devices_.empty() || comms.size() != devices_.size())
      throw error("streamdsl: cuda_executor_group: give one communicator per device");
    start(comms);
  }
  cuda_executor_group(const cuda_executor_group&) = delete;
  cuda_executor_group& operator=(const cuda_executor_group&) = delete;
  ~cuda_executor_group() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
    for (std::size_t r = 0; r < ranks_.size(); ++r) {
      (void)cudaSetDevice(devices_[r]);
      (void)cudaStreamSynchronize(ranks_[r].stream);
      ranks_[r].executor.reset();
      (void)cudaStreamDestroy(ranks_[r].stream);
    }
  }

  int size() const { return static_cast<int>(devices_.size()); }
  int device(int rank) const { return devices_[static_cast<std::size_t>(rank)]; }
  cuda_executor& executor(int rank) { return *ranks_[static_cast<std::size_t>(rank)].executor; }
  ncclComm_t communicator(int rank) const { return ranks_[static_cast<std::size_t>(rank)].comm; }
  // Rank r's main stream (the group's), on device(r).
  cudaStream_t stream(int rank) const { return ranks_[static_cast<std::size_t>(rank)].stream; }

  // Runs `program` on every rank; bindings_of(rank) gives rank's bindings
  // (anything a binding_list is made from: std::vector<sd::binding>, ...).
  // Side slots of a rank's program run on its executor's pool streams, or on
  // streams bound with executor(r).bind_stream.
  template <class Program, class BindingsOf>
  void run(const Program&, BindingsOf&& bindings_of) {
    const std::size_t n = ranks_.size();
    using list_type = std::decay_t<decltype(bindings_of(0))>;
    std::vector<list_type> lists;
    lists.reserve(n);
    std::vector<const cuda_executor::prepared_run*> ready(n, nullptr);
    // Every rank validated first, on the caller's thread.
    for (std::size_t r = 0; r < n; ++r) {
      lists.push_back(bindings_of(static_cast<int>(r)));
      cuda_detail::check(cudaSetDevice(devices_[r]), "cudaSetDevice");
      ready[r] = &ranks_[r].executor->template prepare<Program>(
          binding_list(lists[r].data(), static_cast<std::size_t>(lists[r].size())));
    }
    check_same_collectives(Program::plan(), ready);
    for_each_rank([&](std::size_t r) {
      cuda_detail::check(cudaSetDevice(devices_[r]), "cudaSetDevice");
      ranks_[r].executor->template issue<Program, false>(*ready[r], ranks_[r].stream, {});
    });
  }

  // Waits for every rank's runs to end.
  void synchronize() {
    for (std::size_t r = 0; r < ranks_.size(); ++r) {
      cuda_detail::check(cudaSetDevice(devices_[r]), "cudaSetDevice");
      cuda_detail::check(cudaStreamSynchronize(ranks_[r].stream), "cudaStreamSynchronize",
                         "a rank's main stream (cuda_executor_group::synchronize)");
    }
  }

  // Runs f(rank) for every rank at once, each on its rank's thread (rank 0
  // on the caller's), and rethrows the first rank's exception after all end.
  void for_each_rank(const std::function<void(std::size_t)>& f) {
    const std::size_t n = ranks_.size();
    std::vector<std::exception_ptr> failures(n);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = &f;
      job_failures_ = &failures;
      pending_ = n - 1;
      ++generation_;
    }
    wake_.notify_all();
    try {
      f(0);
    } catch (...) {
      failures[0] = std::current_exception();
    }
    {
      std::unique_lock<std::mutex> lock(mutex_);
      done_.wait(lock, [&] { return pending_ == 0; });
      job_ = nullptr;
    }
    for (auto& e : failures)
      if (e) std::rethrow_exception(e);
  }

  static std::vector<int> all_devices() {
    int count = 0;
    cuda_detail::check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
    std::vector<int> out;
    for (int d = 0; d < count; ++d) out.push_back(d);
    return out;
  }

 private:
  struct rank_state {
    cudaStream_t stream = nullptr;
    ncclComm_t comm = nullptr;
    std::unique_ptr<cuda_executor> executor;
  };

  void start(const std::vector<ncclComm_t>& comms) {
    ranks_.resize(devices_.size());
    for (std::size_t r = 0; r < devices_.size(); ++r) {
      cuda_detail::check(cudaSetDevice(devices_[r]), "cudaSetDevice");
      cuda_detail::check(cudaStreamCreateWithFlags(&ranks_[r].stream, cudaStreamNonBlocking),
                         "cudaStreamCreateWithFlags");
      ranks_[r].comm = comms[r];
      ranks_[r].executor = std::make_unique<cuda_executor>(ranks_[r].stream);
      // The group compares its ranks' collectives itself (check_same_collectives):
      // the executors' own agreement would wait for one rank on the other's thread.
      ranks_[r].executor->bind_communicator(comms[r], false);
    }
    for (std::size_t r = 1; r < devices_.size(); ++r) threads_.emplace_back([this, r] { worker(r); });
  }

  void worker(std::size_t rank) {
    std::size_t seen = 0;
    for (;;) {
      const std::function<void(std::size_t)>* job = nullptr;
      std::vector<std::exception_ptr>* failures = nullptr;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) return;
        seen = generation_;
        job = job_;
        failures = job_failures_;
      }
      try {
        (*job)(rank);
      } catch (...) {
        (*failures)[rank] = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (--pending_ == 0) done_.notify_one();
      }
    }
  }

  // Every collective step must move the same type and count on every rank.
  static void check_same_collectives(const plan_view& plan,
                                     const std::vector<const cuda_executor::prepared_run*>& ready) {
    const auto& first = ready[0]->steps;
    for (std::size_t r = 1; r < ready.size(); ++r) {
      const auto& steps = ready[r]->steps;
      std::size_t j = 0;
      for (const auto& op : plan.ops) {
        if (op.kind != op_kind::step) continue;
        const auto& a = first[j].collective;
        const auto& b = steps[j].collective;
        ++j;
        if (ir::info(plan.ir.stmts[static_cast<std::size_t>(op.stmt)].code).form != ir::step_form::collective)
          continue;
        if (a.count == b.count && a.type == b.type) continue;
        detail::text where;
        ir::describe_statement(plan.ir, op.stmt, where);
        throw binding_error((detail::text() << "streamdsl: " << where.view() << " moves " << a.count
                                            << " elements on rank 0 but " << b.count << " on rank " << r
                                            << "; a collective's buffers must have the same extents on every "
                                               "rank (bind the same sizes); nothing was issued")
                                .view());
      }
    }
  }

  std::vector<int> devices_;
  std::vector<nccl_communicator> owned_;
  std::vector<rank_state> ranks_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(std::size_t)>* job_ = nullptr;
  std::vector<std::exception_ptr>* job_failures_ = nullptr;
  std::size_t pending_ = 0, generation_ = 0;
  bool stopping_ = false;
};

}  // namespace streamdsl
