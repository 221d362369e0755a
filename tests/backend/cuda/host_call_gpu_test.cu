// Host steps on the GPU (p.host_call, ops/call.hpp; backend/cuda/host_steps.hpp):
// each is a cudaLaunchHostFunc on its stream, run after the copy that fills
// its pinned buffer and before the work after it, without blocking the
// thread that issues the run; a captured graph replays it as a host node on
// every launch; a callable that throws is reported by the executor's next
// synchronising point as an sd::error naming the step and its stream.
#include <cuda_runtime.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstddef>
#include <stdexcept>
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/backend/cuda/cuda_graph.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>
#include <thread>
#include <vector>

#include "device_buffer.hpp"

using gpu_test::device_buffer;

namespace {

// Page-locked host memory (cudaMallocHost) for sd::pinned buffers.
template <class T>
class pinned_buffer {
 public:
  explicit pinned_buffer(std::size_t n) : n_(n) {
    gpu_test::check(cudaMallocHost(&ptr_, (n ? n : 1) * sizeof(T)), "cudaMallocHost");
  }
  ~pinned_buffer() { cudaFreeHost(ptr_); }
  pinned_buffer(const pinned_buffer&) = delete;
  pinned_buffer& operator=(const pinned_buffer&) = delete;
  T* get() { return ptr_; }
  T& operator[](std::size_t i) { return ptr_[i]; }

 private:
  T* ptr_ = nullptr;
  std::size_t n_;
};

// t = x * 2 + 1 on the device, copied to pinned h on main; on a side stream
// a host step reads h and writes pinned g; g comes back to the device and
// y = d - 1 on main after it.
constexpr auto round_trip = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto h = p.output<float, sd::pinned>("h");
  auto g = p.output<float, sd::pinned>("g");
  auto t = p.temp<float>("t");
  auto d = p.temp<float>("d");
  auto side = p.stream("side");
  auto filled = p.event("filled");
  auto done = p.event("done");
  t = x * 2 + 1;
  sd::copy(h, t);
  filled.record();
  sd::with_stream(side, [&] {
    filled.wait();
    p.host_call("consume", sd::reads(h), sd::writes(g));
    done.record();
  });
  done.wait();
  sd::copy(d, g);
  y = d - 1;
});

// Two host steps on main: the first may throw; the second counts its runs.
constexpr auto two_host_steps = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto h = p.output<float, sd::pinned>("h");
  sd::copy(h, x);
  p.host_call("first", sd::reads(h));
  p.host_call("second", sd::reads(h));
});

float value_at(std::size_t i) { return static_cast<float>(static_cast<int>(i % 101) - 50) * 0.25f; }

// g = h * 3, checking h holds what the copy before it wrote (x * 2 + 1).
void consume(sd::call_context& c, const std::vector<float>& x, std::atomic<int>& bad) {
  const auto h = c.read<float>(0);
  const auto g = c.write<float>(0);
  for (std::size_t i = 0; i < h.size(); ++i) {
    if (h[i] != x[i] * 2 + 1) ++bad;
    g[i] = h[i] * 3;
  }
}

std::string nested_message(const sd::error& outer) {
  try {
    std::rethrow_if_nested(outer);
  } catch (const std::exception& inner) {
    return inner.what();
  }
  return "(nothing nested)";
}

}  // namespace

// Whether run() returned before the host step ran is checked only outside
// compute-sanitizer, which serialises the work it watches (run() may then
// return only after the host function).
static void host_step_in_stream_order(bool check_async) {
  for (std::size_t n : {std::size_t{1}, std::size_t{4099}, std::size_t{1} << 22}) {
    std::vector<float> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = value_at(i);
    device_buffer<float> dx(x), dy(n);
    pinned_buffer<float> h(n), g(n);
    std::atomic<int> bad{0}, runs{0};
    std::atomic<bool> run_returned{false};
    // Read after ex.synchronize(): the callable runs on CUDA's thread, and
    // Catch2's checks are made on the test's thread only.
    bool saw_run_return = false, on_gpu = true, stream_null = false, named = false;
    sd::cuda_executor ex;
    ex.run(round_trip, sd::bind("x", dx.cget(), n), sd::bind("y", dy.get(), n), sd::bind("h", h.get(), n),
           sd::bind("g", g.get(), n), sd::bind_call("consume", [&](sd::call_context& c) {
             on_gpu = c.on_gpu();
             stream_null = c.stream().handle() == nullptr;
             named = c.name() == "consume";
             // run() returned before this ran: it did not block on the host step.
             const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
             while (check_async && !run_returned.load() && std::chrono::steady_clock::now() < until)
               std::this_thread::yield();
             saw_run_return = run_returned.load();
             ++runs;
             consume(c, x, bad);
           }));
    run_returned = true;
    ex.synchronize();
    CHECK(runs.load() == 1);
    if (check_async) CHECK(saw_run_return);
    CHECK(!on_gpu);
    CHECK(stream_null);
    CHECK(named);
    CHECK(bad.load() == 0);
    const auto y = dy.download();
    for (std::size_t i = 0; i < n; ++i) REQUIRE(y[i] == (x[i] * 2 + 1) * 3 - 1);
  }
}

TEST_CASE("a host step runs in stream order between a copy to pinned memory and a kernel",
          "[cuda][host_call][sanitize]") {
  host_step_in_stream_order(false);
}

TEST_CASE("run() returns before its host step runs", "[cuda][host_call]") { host_step_in_stream_order(true); }

TEST_CASE("a captured graph replays its host steps on every launch", "[cuda][host_call][graph][sanitize]") {
  const std::size_t n = 5000;
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = value_at(i);
  device_buffer<float> dx(x), dy(n);
  pinned_buffer<float> h(n), g(n);
  std::atomic<int> bad{0}, runs{0};
  sd::cuda_executor ex;
  auto graph = sd::capture(ex, round_trip, sd::bind("x", dx.cget(), n), sd::bind("y", dy.get(), n),
                           sd::bind("h", h.get(), n), sd::bind("g", g.get(), n),
                           sd::bind_call("consume", [&](sd::call_context& c) {
                             ++runs;
                             consume(c, x, bad);
                           }));
  gpu_test::check(cudaDeviceSynchronize(), "sync after capture");
  CHECK(runs.load() == 0);  // a host node runs when the graph is launched, not when it is captured
  for (int launch = 1; launch <= 3; ++launch) {
    for (auto& v : x) v += 1;
    dx.upload(x);
    graph.launch();
    ex.synchronize();
    CHECK(runs.load() == launch);
    CHECK(bad.load() == 0);
    const auto y = dy.download();
    for (std::size_t i = 0; i < n; ++i) REQUIRE(y[i] == (x[i] * 2 + 1) * 3 - 1);
  }
  // Rebinding re-captures: the new host node reads the new buffers; the old
  // tasks stay alive until the launches that used them are done.
  pinned_buffer<float> h2(n), g2(n);
  std::atomic<int> elsewhere{0};
  graph.rebind(sd::bind("x", dx.cget(), n), sd::bind("y", dy.get(), n), sd::bind("h", h2.get(), n),
               sd::bind("g", g2.get(), n), sd::bind_call("consume", [&](sd::call_context& c) {
                 if (c.read<float>(0).data() != h2.get()) ++elsewhere;
                 ++runs;
                 consume(c, x, bad);
               }));
  graph.launch();
  ex.synchronize();
  CHECK(runs.load() == 4);
  CHECK(elsewhere.load() == 0);
  CHECK(bad.load() == 0);
  CHECK(g2[7] == (x[7] * 2 + 1) * 3);
}

TEST_CASE("a host step that throws is reported by the executor's next synchronising point",
          "[cuda][host_call][sanitize]") {
  const std::size_t n = 1000;
  std::vector<float> x(n, 1.0f);
  device_buffer<float> dx(x);
  pinned_buffer<float> h(n);
  std::atomic<int> seconds{0};
  bool throw_now = true;
  sd::cuda_executor ex;
  const auto run = [&] {
    ex.run(two_host_steps, sd::bind("x", dx.cget(), n), sd::bind("h", h.get(), n),
           sd::bind_call("first",
                         [&](sd::call_context&) {
                           if (throw_now) throw std::runtime_error("checkpoint disk full");
                         }),
           sd::bind_call("second", [&](sd::call_context&) { ++seconds; }));
  };
  const std::string expected =
      "streamdsl: the callable bound to statement #1 `p.host_call(\"first\", sd::reads(h))` on stream 'main' "
      "threw: checkpoint disk full; later host steps of this executor were skipped until this report (the "
      "GPU "
      "work issued around them ran)";
  // synchronize() waits and reports it.
  run();  // returns: the host step has not run yet, or threw on CUDA's thread
  try {
    ex.synchronize();
    FAIL("the host step's exception was not reported");
  } catch (const sd::error& e) {
    CHECK(std::string(e.what()) == expected);
    CHECK(nested_message(e) == "checkpoint disk full");
  }
  CHECK(seconds.load() == 0);  // the later host step was skipped
  ex.synchronize();            // reported once
  // Without synchronize(): the next run reports it before issuing anything.
  run();
  gpu_test::check(cudaStreamSynchronize(ex.main_stream()), "cudaStreamSynchronize");
  throw_now = false;
  try {
    run();
    FAIL("the host step's exception was not reported");
  } catch (const sd::error& e) {
    CHECK(std::string(e.what()) == expected);
  }
  ex.synchronize();
  CHECK(seconds.load() == 0);  // nothing of the reporting run was issued
  // Reported: host steps run again.
  run();
  ex.synchronize();
  CHECK(seconds.load() == 1);
}

TEST_CASE("a host step that throws in a graph replay is reported too", "[cuda][host_call][graph][sanitize]") {
  const std::size_t n = 64;
  std::vector<float> x(n, 2.0f);
  device_buffer<float> dx(x);
  pinned_buffer<float> h(n);
  std::atomic<int> seconds{0}, launches{0};
  sd::cuda_executor ex;
  auto graph = sd::capture(ex, two_host_steps, sd::bind("x", dx.cget(), n), sd::bind("h", h.get(), n),
                           sd::bind_call("first",
                                         [&](sd::call_context&) {
                                           if (++launches == 2) throw std::runtime_error("second replay");
                                         }),
                           sd::bind_call("second", [&](sd::call_context&) { ++seconds; }));
  graph.launch();
  ex.synchronize();
  CHECK(seconds.load() == 1);
  graph.launch();
  CHECK_THROWS_WITH(ex.synchronize(), Catch::Contains("`p.host_call(\"first\", sd::reads(h))` on stream "
                                                      "'main' threw: second replay"));
  CHECK(seconds.load() == 1);
  graph.launch();
  ex.synchronize();
  CHECK(seconds.load() == 2);
}
