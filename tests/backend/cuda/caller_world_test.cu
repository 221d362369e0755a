// The caller's world on a GPU: a run (and a captured graph) waits for the
// caller's events before it starts and records the caller's events when it
// ends; its workspace comes from the caller's allocator or the caller's
// buffer; misuse is refused before anything is issued. Part of
// test_cuda_executor; the [sanitize] tests run under compute-sanitizer.
//
// Ordering tests hold back one side with a kernel that sleeps (sleep_for):
// without the wait or the record under test, the other side would read the
// poison the buffers start with.
#include <cuda_runtime.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <stdexcept>
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/backend/cuda/cuda_graph.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>
#include <vector>

#include "device_buffer.hpp"

using gpu_test::check;
using gpu_test::device_buffer;

namespace {

// Keeps its stream busy for `ns` nanoseconds of the GPU's global timer.
__global__ void sleep_for(unsigned long long ns) {
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    __nanosleep(10000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

__global__ void fill(float* x, std::size_t n, float value) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t{blockDim.x} * gridDim.x)
    x[i] = value;
}

constexpr unsigned long long sleep_ns = 200'000'000;  // 0.2 s: far longer than any run here
constexpr float poison = -7.0f;

// y = x + 1 on a side stream, z = y * 2 on main.
constexpr auto seed = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto z = p.output<float>("z");
  auto side = p.stream("side");
  auto e = p.event("e");
  sd::with_stream(side, [&] {
    y = x + 1;
    e.record();
  });
  e.wait();
  z = y * 2;
});

// A temp in a workspace slot: t is read on two streams.
constexpr auto with_temp = sd::program<sd::automatic>([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto a = p.output<float>("a");
  auto b = p.output<float>("b");
  auto t = p.temp<float>("t");
  auto side = p.stream("side");
  t = x * 2;
  sd::with_stream(side, [&] { a = t + 1; });
  b = t * 3;
});

std::size_t workspace_bytes_of_with_temp(std::size_t n) {
  const std::size_t extents[] = {n};
  return with_temp.plan().workspace_bytes(extents);
}

struct owned_stream {
  cudaStream_t s = nullptr;
  owned_stream() { check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream"); }
  ~owned_stream() { cudaStreamDestroy(s); }
  owned_stream(const owned_stream&) = delete;
  owned_stream& operator=(const owned_stream&) = delete;
};

struct owned_event {
  cudaEvent_t e = nullptr;
  owned_event() { check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "event"); }
  ~owned_event() { cudaEventDestroy(e); }
  owned_event(const owned_event&) = delete;
  owned_event& operator=(const owned_event&) = delete;
};

struct pinned_floats {
  float* p = nullptr;
  std::size_t n = 0;
  explicit pinned_floats(std::size_t count) : n(count) {
    check(cudaMallocHost(&p, n * sizeof(float)), "cudaMallocHost");
  }
  ~pinned_floats() { cudaFreeHost(p); }
  pinned_floats(const pinned_floats&) = delete;
  pinned_floats& operator=(const pinned_floats&) = delete;
};

std::vector<float> poisoned(std::size_t n) { return std::vector<float>(n, poison); }

void require_all(const std::vector<float>& v, float expected) {
  for (float x : v) REQUIRE(x == expected);
}

// A stream-ordered resource with allocate/deallocate members (RMM's shape)
// that counts its calls; `fail` makes allocate return null, `offset` returns
// memory that many bytes past what cudaMallocAsync gave.
struct counting_resource {
  int allocations = 0;
  int deallocations = 0;
  std::size_t last_bytes = 0;
  cudaStream_t last_allocate_stream = nullptr;
  cudaStream_t last_deallocate_stream = nullptr;
  void* last_allocated = nullptr;    // what allocate returned last
  void* last_deallocated = nullptr;  // what deallocate was given last
  std::size_t last_deallocate_bytes = 0;
  bool fail = false;
  std::size_t offset = 0;

  void* allocate(std::size_t bytes, cudaStream_t stream) {
    ++allocations;
    last_bytes = bytes;
    last_allocate_stream = stream;
    if (fail) return nullptr;
    void* p = nullptr;
    check(cudaMallocAsync(&p, bytes + offset, stream), "cudaMallocAsync in the test's resource");
    last_allocated = static_cast<char*>(p) + offset;
    return last_allocated;
  }
  void deallocate(void* p, std::size_t bytes, cudaStream_t stream) {
    ++deallocations;
    last_deallocated = p;
    last_deallocate_bytes = bytes;
    last_deallocate_stream = stream;
    check(cudaFreeAsync(static_cast<char*>(p) - offset, stream), "cudaFreeAsync in the test's resource");
  }
};

}  // namespace

TEST_CASE("a run waits for the caller's event before it starts", "[cuda][caller][sanitize]") {
  const std::size_t n = 4096;
  device_buffer<float> x(poisoned(n)), y(poisoned(n)), z(poisoned(n));
  owned_stream producer, main;
  owned_event ready;
  sd::cuda_executor ex(main.s);
  for (float value : {3.0f, 5.0f}) {  // each run waits for the latest record
    sleep_for<<<1, 1, 0, producer.s>>>(sleep_ns);
    fill<<<16, 256, 0, producer.s>>>(x.get(), n, value);
    check(cudaEventRecord(ready.e, producer.s), "record ready");
    ex.run(seed, sd::bind("x", x.cget(), n), sd::bind("y", y.get(), n), sd::bind("z", z.get(), n),
           sd::after(ready.e));
    require_all(y.download(), value + 1);
    require_all(z.download(), (value + 1) * 2);
  }
}

TEST_CASE("a run waits for several events, given inline or as a list", "[cuda][caller]") {
  const std::size_t n = 2048;
  device_buffer<float> x(poisoned(n)), y(poisoned(n)), z(poisoned(n));
  owned_stream first, second, main;
  owned_event half1, half2;
  sd::cuda_executor ex(main.s);
  auto produce = [&](float value) {  // each half of x on its own stream, the second half late
    fill<<<8, 256, 0, first.s>>>(x.get(), n / 2, value);
    check(cudaEventRecord(half1.e, first.s), "record half1");
    sleep_for<<<1, 1, 0, second.s>>>(sleep_ns);
    fill<<<8, 256, 0, second.s>>>(x.get() + n / 2, n - n / 2, value);
    check(cudaEventRecord(half2.e, second.s), "record half2");
  };
  produce(2.0f);
  ex.run(seed, sd::bind("x", x.cget(), n), sd::bind("y", y.get(), n), sd::bind("z", z.get(), n),
         sd::after(half1.e, half2.e));
  require_all(z.download(), 6.0f);
  produce(4.0f);
  const std::vector<cudaEvent_t> both{half1.e, half2.e};
  const sd::binding list[] = {sd::bind("x", x.cget(), n), sd::bind("y", y.get(), n),
                              sd::bind("z", z.get(), n)};
  ex.run(seed, sd::binding_list(list), sd::after(both));
  require_all(z.download(), 10.0f);
}

TEST_CASE("a run records the caller's event when it ends; the caller waits for it",
          "[cuda][caller][sanitize]") {
  const std::size_t n = 4096;
  const std::vector<float> xs(n, 1.5f);
  device_buffer<float> x(xs);
  device_buffer<float> y(poisoned(n)), z(poisoned(n));
  owned_stream main, consumer;
  owned_event done;
  pinned_floats host_y(n), host_z(n);
  sd::cuda_executor ex(main.s);
  // The caller's own earlier work on the main stream holds the run back.
  sleep_for<<<1, 1, 0, main.s>>>(sleep_ns);
  ex.run(seed, sd::bind("x", x.cget(), n), sd::bind("y", y.get(), n), sd::bind("z", z.get(), n),
         sd::then_record(done.e));
  CHECK(cudaEventQuery(done.e) == cudaErrorNotReady);  // recorded after the run, which has not run yet
  check(cudaStreamWaitEvent(consumer.s, done.e, 0), "consumer waits");
  check(cudaMemcpyAsync(host_y.p, y.get(), n * sizeof(float), cudaMemcpyDeviceToHost, consumer.s), "copy y");
  check(cudaMemcpyAsync(host_z.p, z.get(), n * sizeof(float), cudaMemcpyDeviceToHost, consumer.s), "copy z");
  check(cudaStreamSynchronize(consumer.s), "consumer sync");
  for (std::size_t i = 0; i < n; ++i) {
    REQUIRE(host_y.p[i] == 2.5f);  // written on the side stream: the record is after the exit edge
    REQUIRE(host_z.p[i] == 5.0f);
  }
  check(cudaDeviceSynchronize(), "sync");
}

TEST_CASE("a run waits and records inside the caller's own capture", "[cuda][caller][sanitize]") {
  // Inside the caller's capture the events are the capture's: recorded in it
  // (here on a second captured stream), waited for like cudaStreamWaitEvent.
  const std::size_t n = 1024;
  device_buffer<float> x(poisoned(n)), y(poisoned(n)), z(poisoned(n));
  owned_stream main, producer;
  owned_event fork, ready, done;
  sd::cuda_executor ex(main.s);
  check(cudaStreamBeginCapture(main.s, cudaStreamCaptureModeThreadLocal), "begin capture");
  check(cudaEventRecord(fork.e, main.s), "fork");
  check(cudaStreamWaitEvent(producer.s, fork.e, 0), "producer joins the capture");
  fill<<<4, 256, 0, producer.s>>>(x.get(), n, 7.0f);
  check(cudaEventRecord(ready.e, producer.s), "record ready");
  ex.run(seed, sd::bind("x", x.cget(), n), sd::bind("y", y.get(), n), sd::bind("z", z.get(), n),
         sd::after(ready.e), sd::then_record(done.e));
  check(cudaStreamWaitEvent(producer.s, done.e, 0), "producer waits for the run");
  fill<<<4, 256, 0, producer.s>>>(x.get(), n, 0.0f);  // overwrites x only after the run read it
  check(cudaEventRecord(fork.e, producer.s), "join");
  check(cudaStreamWaitEvent(main.s, fork.e, 0), "main joins the producer");
  cudaGraph_t g = nullptr;
  check(cudaStreamEndCapture(main.s, &g), "end capture");
  cudaGraphExec_t exec = nullptr;
  check(cudaGraphInstantiate(&exec, g, 0), "instantiate");
  check(cudaGraphLaunch(exec, main.s), "launch");
  require_all(z.download(), 16.0f);
  require_all(x.download(), 0.0f);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g);
}

TEST_CASE("a captured graph waits for and records the caller's events at each launch",
          "[cuda][caller][sanitize]") {
  const std::size_t n = 4096;
  device_buffer<float> x(poisoned(n)), y(poisoned(n)), z(poisoned(n));
  owned_stream producer, launch, consumer;
  owned_event ready, done;
  pinned_floats host_z(n);
  sd::cuda_executor ex;
  auto graph = sd::capture(ex, seed, sd::bind("x", x.cget(), n), sd::bind("y", y.get(), n),
                           sd::bind("z", z.get(), n), sd::after(ready.e), sd::then_record(done.e));
  for (float value : {3.0f, 5.0f}) {
    sleep_for<<<1, 1, 0, producer.s>>>(sleep_ns);
    fill<<<16, 256, 0, producer.s>>>(x.get(), n, value);
    check(cudaEventRecord(ready.e, producer.s), "record ready");
    graph.launch(launch.s);
    check(cudaStreamWaitEvent(consumer.s, done.e, 0), "consumer waits");
    check(cudaMemcpyAsync(host_z.p, z.get(), n * sizeof(float), cudaMemcpyDeviceToHost, consumer.s),
          "copy z");
    check(cudaStreamSynchronize(consumer.s), "consumer sync");
    for (std::size_t i = 0; i < n; ++i) REQUIRE(host_z.p[i] == (value + 1) * 2);
  }
  check(cudaDeviceSynchronize(), "sync");
  CHECK(graph.instantiations() == 1);
}

TEST_CASE("null events are refused before anything is issued", "[cuda][caller][sanitize]") {
  const std::size_t n = 256;
  const std::vector<float> xs(n, 1.0f);
  device_buffer<float> x(xs);
  device_buffer<float> y(poisoned(n)), z(poisoned(n));
  owned_event ok;
  sd::cuda_executor ex;
  auto bindings = [&] {
    return std::vector<sd::binding>{sd::bind("x", x.cget(), n), sd::bind("y", y.get(), n),
                                    sd::bind("z", z.get(), n)};
  };
  const auto list = bindings();
  REQUIRE_THROWS_WITH(
      ex.run(seed, list, sd::after(ok.e, nullptr)),
      Catch::Contains("sd::after: event 2 of 2 is null") && Catch::Contains("nothing was issued"));
  REQUIRE_THROWS_WITH(ex.run(seed, list, sd::after(ok.e), sd::then_record(nullptr)),
                      Catch::Contains("sd::then_record: event 1 of 1 is null"));
  REQUIRE_THROWS_WITH(sd::capture_bound(ex, seed, list, sd::after(nullptr)),
                      Catch::Contains("sd::after: event 1 of 1 is null"));
  require_all(y.download(), poison);
  require_all(z.download(), poison);
  ex.run(seed, list, sd::after(ok.e), sd::then_record(ok.e));  // the same executor runs on
  require_all(z.download(), 4.0f);
}

TEST_CASE("the workspace from the caller's resource: one allocation per run, on the main stream",
          "[cuda][caller][sanitize]") {
  const std::size_t n = 5000;
  std::vector<float> xs(n);
  for (std::size_t i = 0; i < n; ++i) xs[i] = static_cast<float>(i % 97) - 40.0f;
  device_buffer<float> x(xs), a(n), b(n);
  owned_stream main;
  counting_resource pool;
  sd::cuda_executor ex(main.s);
  STATIC_REQUIRE(with_temp.plan().slot_count() == 1);
  for (int round = 1; round <= 2; ++round) {
    ex.run(with_temp, sd::bind("x", x.cget(), n), sd::bind("a", a.get(), n), sd::bind("b", b.get(), n),
           sd::workspace_from(pool));
    CHECK(pool.allocations == round);
    CHECK(pool.deallocations == round);
    CHECK(pool.last_bytes == workspace_bytes_of_with_temp(n));
    CHECK(pool.last_deallocate_bytes == workspace_bytes_of_with_temp(n));
    CHECK(pool.last_allocate_stream == main.s);
    CHECK(pool.last_deallocate_stream == main.s);
  }
  const auto av = a.download(), bv = b.download();
  for (std::size_t i = 0; i < n; ++i) {
    REQUIRE(av[i] == xs[i] * 2 + 1);
    REQUIRE(bv[i] == xs[i] * 2 * 3);
  }
  // A program without temps in slots asks for nothing.
  device_buffer<float> y(poisoned(n)), z(poisoned(n));
  ex.run(seed, sd::bind("x", x.cget(), n), sd::bind("y", y.get(), n), sd::bind("z", z.get(), n),
         sd::workspace_from(pool));
  CHECK(pool.allocations == 2);
}

namespace {
int function_allocations = 0, function_deallocations = 0;
}  // namespace

TEST_CASE("the workspace from two functions, as PyTorch's caching allocator would plug in",
          "[cuda][caller]") {
  const std::size_t n = 3000;
  const std::vector<float> xs(n, 2.0f);
  device_buffer<float> x(xs), a(n), b(n);
  sd::cuda_executor ex;
  const auto from_functions = sd::workspace_from(
      [](std::size_t bytes, cudaStream_t stream) -> void* {
        ++function_allocations;
        void* p = nullptr;
        return cudaMallocAsync(&p, bytes, stream) == cudaSuccess ? p : nullptr;
      },
      [](void* p, std::size_t, cudaStream_t stream) {
        ++function_deallocations;
        (void)cudaFreeAsync(p, stream);
      });
  ex.run(with_temp, sd::bind("x", x.cget(), n), sd::bind("a", a.get(), n), sd::bind("b", b.get(), n),
         from_functions);
  CHECK(function_allocations == 1);
  CHECK(function_deallocations == 1);
  require_all(a.download(), 5.0f);
  require_all(b.download(), 12.0f);
}

TEST_CASE("an allocator that returns null, misaligned memory or throws: nothing is issued",
          "[cuda][caller][sanitize]") {
  const std::size_t n = 1024;
  const std::vector<float> xs(n, 1.0f);
  device_buffer<float> x(xs);
  device_buffer<float> a(poisoned(n)), b(poisoned(n));
  sd::cuda_executor ex;
  auto run = [&](sd::workspace_allocator allocator) {
    ex.run(with_temp, sd::bind("x", x.cget(), n), sd::bind("a", a.get(), n), sd::bind("b", b.get(), n),
           allocator);
  };
  const auto bytes = std::to_string(workspace_bytes_of_with_temp(n));
  counting_resource null_pool;
  null_pool.fail = true;
  REQUIRE_THROWS_AS(run(sd::workspace_from(null_pool)), sd::error);
  REQUIRE_THROWS_WITH(
      run(sd::workspace_from(null_pool)),
      Catch::Contains("the caller's workspace allocator (sd::workspace_from) returned null") &&
          Catch::Contains("the workspace of " + bytes + " bytes for the temps 't'"));
  CHECK(null_pool.deallocations == 0);

  counting_resource skewed_pool;
  skewed_pool.offset = 16;
  REQUIRE_THROWS_WITH(run(sd::workspace_from(skewed_pool)),
                      Catch::Contains("16 bytes past a 256-byte boundary"));
  CHECK(skewed_pool.deallocations == 1);  // what it returned was given back
  CHECK(skewed_pool.last_deallocated == skewed_pool.last_allocated);

  struct throwing_pool {
    void* allocate(std::size_t, cudaStream_t) { throw std::runtime_error("pool exhausted"); }
    void deallocate(void*, std::size_t, cudaStream_t) {}
  } thrower;
  REQUIRE_THROWS_WITH(run(sd::workspace_from(thrower)), "pool exhausted");  // passes through unchanged

  REQUIRE_THROWS_WITH(run(sd::workspace_from(nullptr, nullptr)), Catch::Contains("null function"));
  REQUIRE_THROWS_WITH(sd::capture(ex, with_temp, sd::bind("x", x.cget(), n), sd::bind("a", a.get(), n),
                                  sd::bind("b", b.get(), n), sd::workspace_from(null_pool)),
                      Catch::Contains("returned null"));
  require_all(a.download(), poison);
  require_all(b.download(), poison);
}

TEST_CASE("the workspace in the caller's buffer; too small is a binding_error before anything is issued",
          "[cuda][caller][sanitize]") {
  const std::size_t n = 4000;
  const std::vector<float> xs(n, 1.0f);
  device_buffer<float> x(xs);
  device_buffer<float> a(poisoned(n)), b(poisoned(n));
  const std::size_t needed = workspace_bytes_of_with_temp(n);
  device_buffer<unsigned char> workspace(needed), small(needed - 256);
  sd::cuda_executor ex;
  auto run = [&](sd::workspace_buffer buffer) {
    ex.run(with_temp, sd::bind("x", x.cget(), n), sd::bind("a", a.get(), n), sd::bind("b", b.get(), n),
           buffer);
  };
  const auto needs = "this run needs the workspace of " + std::to_string(needed) + " bytes for the temps 't'";
  REQUIRE_THROWS_AS(run(sd::workspace_in(small.get(), small.size())), sd::binding_error);
  REQUIRE_THROWS_WITH(
      run(sd::workspace_in(small.get(), small.size())),
      Catch::Contains("has " + std::to_string(needed - 256) + " bytes, too few") && Catch::Contains(needs));
  REQUIRE_THROWS_WITH(run(sd::workspace_in(nullptr, needed)),
                      Catch::Contains("is null") && Catch::Contains(needs));
  REQUIRE_THROWS_WITH(run(sd::workspace_in(workspace.get() + 16, needed)),
                      Catch::Contains("starts 16 bytes past a 256-byte boundary"));
  std::vector<unsigned char> host(needed + 512);
  void* host_aligned = host.data() + (256 - reinterpret_cast<std::uintptr_t>(host.data()) % 256);
  REQUIRE_THROWS_WITH(run(sd::workspace_in(host_aligned, needed)),
                      Catch::Contains("host memory the GPU cannot reach"));
  require_all(a.download(), poison);
  require_all(b.download(), poison);

  check(cudaMemset(workspace.get(), 0xff, needed), "poison the workspace");  // NaNs until t is written
  run(sd::workspace_in(workspace.get(), needed));
  require_all(a.download(), 3.0f);
  require_all(b.download(), 6.0f);
}

TEST_CASE("a graph's workspace from the caller's resource or buffer", "[cuda][caller][sanitize]") {
  const std::size_t n = 2048, big = 8192;
  const std::vector<float> xs(big, 1.0f), xs2(big, 2.0f);
  device_buffer<float> x(xs), x2(xs2), a(big), b(big);
  owned_stream launch;
  counting_resource pool;
  sd::cuda_executor ex;
  {
    auto graph = sd::capture(ex, with_temp, sd::bind("x", x.cget(), n), sd::bind("a", a.get(), n),
                             sd::bind("b", b.get(), n), sd::workspace_from(pool));
    CHECK(pool.allocations == 1);
    CHECK(pool.last_allocate_stream == ex.main_stream());
    graph.launch(launch.s);
    const auto bv = b.download();
    for (std::size_t i = 0; i < n; ++i) REQUIRE(bv[i] == 6.0f);
    graph.rebind(sd::bind("x", x2.cget(), n), sd::bind("a", a.get(), n), sd::bind("b", b.get(), n));
    CHECK(pool.allocations == 1);  // the same size: the graph keeps its workspace
    graph.rebind(sd::bind("x", x2.cget(), big), sd::bind("a", a.get(), big), sd::bind("b", b.get(), big));
    CHECK(pool.allocations == 2);    // more: a larger workspace,
    CHECK(pool.deallocations == 1);  // and the old one given back
    CHECK(pool.last_deallocate_bytes == workspace_bytes_of_with_temp(n));
    CHECK(pool.last_deallocate_stream == launch.s);  // after the launch that used it
    graph.launch(launch.s);
    require_all(b.download(), 12.0f);
    CHECK(pool.deallocations == 1);
  }
  CHECK(pool.deallocations == 2);  // the graph gave its workspace back
  CHECK(pool.last_deallocate_stream == launch.s);

  const std::size_t needed = workspace_bytes_of_with_temp(n);
  device_buffer<unsigned char> workspace(needed);
  auto graph = sd::capture(ex, with_temp, sd::bind("x", x.cget(), n), sd::bind("a", a.get(), n),
                           sd::bind("b", b.get(), n), sd::workspace_in(workspace.get(), needed));
  graph.launch();
  const auto first = a.download();
  for (std::size_t i = 0; i < n; ++i) REQUIRE(first[i] == 3.0f);
  // A rebind that needs more than the caller's buffer holds is refused; the graph keeps its bindings.
  REQUIRE_THROWS_AS(
      graph.rebind(sd::bind("x", x2.cget(), big), sd::bind("a", a.get(), big), sd::bind("b", b.get(), big)),
      sd::binding_error);
  check(cudaMemset(a.get(), 0, big * sizeof(float)), "clear a");
  graph.launch();
  const auto av = a.download();
  for (std::size_t i = 0; i < big; ++i) REQUIRE(av[i] == (i < n ? 3.0f : 0.0f));
  REQUIRE_THROWS_WITH(sd::capture(ex, with_temp, sd::bind("x", x.cget(), big), sd::bind("a", a.get(), big),
                                  sd::bind("b", b.get(), big), sd::workspace_in(workspace.get(), needed)),
                      Catch::Contains("too few"));
}
