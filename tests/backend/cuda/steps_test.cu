// Steps and chunks on the GPU: sd::copy as cudaMemcpyAsync (pinned host and
// device memory, temps in the workspace, graph capture) and kernels over
// chunks (each chunk's pointers offset on the host; chunks that start off a
// 16-byte boundary still take the vector path from their first aligned
// element). Every result is checked against a CPU loop. Tagged [sanitize]
// tests are small enough for compute-sanitizer.
//
// Host buffers are cudaMallocHost memory bound to buffers declared sd::pinned.
#include <cuda_runtime.h>

#include <catch2/catch.hpp>
#include <cstddef>
#include <cstdlib>
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/backend/cuda/cuda_graph.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>
#include <vector>

#include "device_buffer.hpp"

using gpu_test::device_buffer;

namespace {

// Page-locked host memory (cudaMallocHost): copies of it are asynchronous
// and can be captured into a graph.
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
  const T* cget() const { return ptr_; }
  T& operator[](std::size_t i) { return ptr_[i]; }
  std::size_t size() const { return n_; }

 private:
  T* ptr_ = nullptr;
  std::size_t n_;
};

void wait_for_device() { gpu_test::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }

// Small integers and halves: every result below is exact in float.
float value_at(std::size_t i, int salt = 0) {
  return static_cast<float>(static_cast<int>((i * 37 + static_cast<std::size_t>(salt) * 11) % 101) - 50) *
         0.5f;
}

// The pipeline of tests/ops/copy_test.cpp: chunks copied in on one stream,
// computed on main, copied out on a third; sd::automatic orders each
// chunk's three steps.
template <int K>
constexpr auto pipeline_body = [](sd::builder& p) {
  auto h_in = p.input<float, sd::pinned>("h_in");
  auto h_out = p.output<float, sd::pinned>("h_out");
  auto d_in = p.temp<float>("d_in");
  auto d_out = p.temp<float>("d_out");
  auto h2d = p.stream("h2d"), d2h = p.stream("d2h");
  for (int i = 0; i < K; ++i) {
    sd::with_stream(h2d, [&] { sd::copy(d_in.chunk(i, K), h_in.chunk(i, K)); });
    d_out.chunk(i, K) = d_in.chunk(i, K) * 2 + 1;
    sd::with_stream(d2h, [&] { sd::copy(h_out.chunk(i, K), d_out.chunk(i, K)); });
  }
};
constexpr auto pipeline4 = sd::program<sd::automatic>(pipeline_body<4>);
constexpr auto pipeline16 = sd::program<sd::automatic>(pipeline_body<16>);

// Runs the pipeline twice with the same bindings (the second run takes the
// prepared-run cache) and a new input in between.
template <class P>
void check_pipeline(const P& prog, std::size_t n) {
  pinned_buffer<float> in(n), out(n);
  sd::cuda_executor ex;
  for (int round = 0; round < 2; ++round) {
    for (std::size_t i = 0; i < n; ++i) {
      in[i] = value_at(i, round);
      out[i] = -1000.0f;
    }
    ex.run(prog, sd::bind("h_in", in.cget(), n), sd::bind("h_out", out.get(), n));
    wait_for_device();
    for (std::size_t i = 0; i < n; ++i) REQUIRE(out[i] == value_at(i, round) * 2 + 1);
  }
}

}  // namespace

TEST_CASE("copy pipeline at 4 and 16 chunks: pinned host in and out, device temps",
          "[cuda][copy][sanitize]") {
  STATIC_REQUIRE(pipeline4.plan().step_count() == 8);
  STATIC_REQUIRE(pipeline16.plan().step_count() == 32);
  STATIC_REQUIRE(pipeline16.plan().kernel_count() == 16);
  // 16 * 1001 floats: chunks of 1001 (4 chunks of 4004) floats, so the
  // 16-chunk kernels and copies start off 16-byte boundaries.
  check_pipeline(pipeline4, 16 * 1001);
  check_pipeline(pipeline16, 16 * 1001);
}

TEST_CASE("copy pipeline at 4 and 16 chunks: large buffers", "[cuda][copy]") {
  check_pipeline(pipeline4, std::size_t{1} << 24);
  check_pipeline(pipeline16, (std::size_t{1} << 24) + 16 * 3);
}

namespace {

// Each quarter of t is written on its own stream from another quarter of x;
// z's quarters read t's on the same stream (on main in the same kernel, t's
// chunk forwarded from registers; on the side streams in the next kernel,
// after the record sd::automatic inserts); y reads all of t on main once
// sd::automatic has joined them.
constexpr auto quarters = sd::program<sd::automatic>([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto w = p.input<double>("w");
  auto y = p.output<float>("y");
  auto z = p.output<double>("z");
  auto t = p.temp<float>("t");
  auto s1 = p.stream("s1"), s2 = p.stream("s2"), s3 = p.stream("s3");
  t.chunk(0, 4) = x.chunk(3, 4) * 2;
  z.chunk(0, 4) = w.chunk(0, 4) * 0.5 + t.chunk(0, 4);
  sd::with_stream(s1, [&] {
    t.chunk(1, 4) = x.chunk(2, 4) + 1;
    z.chunk(1, 4) = w.chunk(1, 4) * 0.5 + t.chunk(1, 4);
  });
  sd::with_stream(s2, [&] {
    t.chunk(2, 4) = x.chunk(1, 4) - 3;
    z.chunk(2, 4) = w.chunk(2, 4) * 0.5 + t.chunk(2, 4);
  });
  sd::with_stream(s3, [&] {
    t.chunk(3, 4) = x.chunk(0, 4) * x.chunk(0, 4);
    z.chunk(3, 4) = w.chunk(3, 4) * 0.5 + t.chunk(3, 4);
  });
  y = t + x;
});

void check_quarters(std::size_t n, std::size_t offset = 0) {
  std::vector<float> xs(n + offset);
  std::vector<double> ws(n + offset);
  for (std::size_t i = 0; i < n + offset; ++i) {
    xs[i] = value_at(i);
    ws[i] = value_at(i, 3) * 0.25;
  }
  device_buffer<float> x(xs), y(n + offset);
  device_buffer<double> w(ws), z(n + offset);
  sd::cuda_executor ex;
  ex.run(quarters, sd::bind("x", x.cget() + offset, n), sd::bind("w", w.cget() + offset, n),
         sd::bind("y", y.get() + offset, n), sd::bind("z", z.get() + offset, n));
  const auto ys = y.download();
  const auto zs = z.download();
  const std::size_t q = n / 4;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t part = i / q, j = i % q;
    const float* xv = xs.data() + offset;
    const float t = part == 0   ? xv[3 * q + j] * 2
                    : part == 1 ? xv[2 * q + j] + 1
                    : part == 2 ? xv[q + j] - 3
                                : xv[j] * xv[j];
    REQUIRE(ys[i + offset] == t + xv[i]);
    REQUIRE(zs[i + offset] == ws[i + offset] * 0.5 + static_cast<double>(t));
  }
}

}  // namespace

TEST_CASE("chunked kernels on four streams, each reading another chunk", "[cuda][chunk][sanitize]") {
  check_quarters(4 * 1024);
  check_quarters(4 * 1001);     // quarters start off 16-byte boundaries
  check_quarters(4 * 1001, 1);  // and the bound pointers too
  check_quarters(4);            // one element per chunk
}

TEST_CASE("chunked kernels on four streams: large buffers", "[cuda][chunk]") {
  check_quarters(std::size_t{1} << 22);
  check_quarters((std::size_t{1} << 22) + 4 * 5);
}

namespace {

// Copies between device buffers: the halves of x swapped into y (one on a
// side stream), x's second half into a buffer of another domain, and x into
// a temp (a workspace slot) that a kernel reads.
constexpr auto device_copies = sd::program<sd::automatic>([](sd::builder& p) {
  auto m = p.domain("m");
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto h = p.output<float>("h", m);
  auto d = p.temp<float>("d");
  auto z = p.output<float>("z");
  auto side = p.stream("side");
  sd::copy(y.chunk(0, 2), x.chunk(1, 2));
  sd::with_stream(side, [&] { sd::copy(y.chunk(1, 2), x.chunk(0, 2)); });
  sd::copy(h, x.chunk(1, 2));
  sd::copy(d, x);
  z = d * 3;
});

}  // namespace

TEST_CASE("copies between device buffers, chunks, domains and a workspace temp", "[cuda][copy][sanitize]") {
  STATIC_REQUIRE(device_copies.plan().step_count() == 4);
  STATIC_REQUIRE(device_copies.plan().slot_count() == 1);
  for (const std::size_t n : {std::size_t{2}, std::size_t{2 * 1001}, std::size_t{1} << 20}) {
    std::vector<float> xs(n);
    for (std::size_t i = 0; i < n; ++i) xs[i] = value_at(i);
    device_buffer<float> x(xs), y(n), h(n / 2), z(n);
    sd::cuda_executor ex;
    ex.run(device_copies, sd::bind("x", x.cget(), n), sd::bind("y", y.get(), n),
           sd::bind("h", h.get(), n / 2), sd::bind("z", z.get(), n));
    const auto ys = y.download(), hs = h.download(), zs = z.download();
    const std::size_t half = n / 2;
    for (std::size_t i = 0; i < half; ++i) {
      REQUIRE(ys[i] == xs[half + i]);
      REQUIRE(ys[half + i] == xs[i]);
      REQUIRE(hs[i] == xs[half + i]);
    }
    for (std::size_t i = 0; i < n; ++i) REQUIRE(zs[i] == xs[i] * 3);
  }
}

TEST_CASE("empty buffers: zero-byte copies and empty chunks issue nothing", "[cuda][copy][sanitize]") {
  // An empty std::vector's data(): null pointers of no elements.
  const float* none = nullptr;
  float* none_out = nullptr;
  sd::cuda_executor ex;
  ex.run(device_copies, sd::bind("x", none, 0), sd::bind("y", none_out, 0), sd::bind("h", none_out, 0),
         sd::bind("z", none_out, 0));
  wait_for_device();
  CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("a captured pipeline replays its copies on every launch", "[cuda][copy][graph][sanitize]") {
  const std::size_t n = 4 * 4099;
  pinned_buffer<float> in(n), out(n), in2(n), out2(n);
  sd::cuda_executor ex;
  for (std::size_t i = 0; i < n; ++i) in[i] = value_at(i);
  auto graph = sd::capture(ex, pipeline4, sd::bind("h_in", in.cget(), n), sd::bind("h_out", out.get(), n));
  for (int launch = 0; launch < 2; ++launch) {
    // A new input each time: the graph's copies read the host buffer again.
    for (std::size_t i = 0; i < n; ++i) {
      in[i] = value_at(i, launch + 5);
      out[i] = -1000.0f;
    }
    graph.launch();
    wait_for_device();
    for (std::size_t i = 0; i < n; ++i) REQUIRE(out[i] == value_at(i, launch + 5) * 2 + 1);
  }
  // Rebinding to other host buffers updates the copies' nodes in place.
  for (std::size_t i = 0; i < n; ++i) in2[i] = value_at(i, 9);
  graph.rebind(sd::bind("h_in", in2.cget(), n), sd::bind("h_out", out2.get(), n));
  graph.launch();
  wait_for_device();
  for (std::size_t i = 0; i < n; ++i) REQUIRE(out2[i] == value_at(i, 9) * 2 + 1);
  CHECK(graph.instantiations() == 1);
  CHECK(graph.updates() == 1);
}

namespace {

// Thirds of 3 * k elements: for odd k, chunk 1 of a float buffer starts 4
// bytes past a 16-byte boundary and chunk 2 8 bytes past (chunks of a double
// buffer 8 and 0): each chunk's kernel finds the element from which all its
// pointers are aligned and vectorises from there. The 0-d c (1, bound 4
// bytes off a boundary) is read whole by every chunk's kernel.
constexpr auto thirds = sd::program<sd::automatic>([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto w = p.input<double>("w");
  auto c = p.input<float>("c", sd::scalar);
  auto y = p.output<float>("y");
  auto z = p.output<double>("z");
  auto r = p.output<float>("r");
  auto s1 = p.stream("s1"), s2 = p.stream("s2"), s3 = p.stream("s3");
  y.chunk(0, 3) = x.chunk(0, 3) * 2 + c;
  z.chunk(0, 3) = w.chunk(0, 3) + x.chunk(0, 3);
  sd::with_stream(s1, [&] {
    y.chunk(1, 3) = x.chunk(1, 3) * 2 + c;
    z.chunk(1, 3) = w.chunk(1, 3) + x.chunk(1, 3);
  });
  sd::with_stream(s2, [&] {
    y.chunk(2, 3) = x.chunk(2, 3) * 2 + c;
    z.chunk(2, 3) = w.chunk(2, 3) + x.chunk(2, 3);
  });
  // Chunks off by different amounts in one kernel (statements of one shape
  // fuse whatever their chunks): the scalar path.
  sd::with_stream(s3, [&] {
    r.chunk(0, 3) = x.chunk(2, 3) - 1;
    r.chunk(1, 3) = x.chunk(0, 3) - 2;
    r.chunk(2, 3) = x.chunk(1, 3) - 3;
  });
});

void check_thirds(std::size_t k, std::size_t offset = 0) {
  const std::size_t n = 3 * k;
  std::vector<float> xs(n + offset);
  std::vector<double> ws(n + offset);
  for (std::size_t i = 0; i < n + offset; ++i) {
    xs[i] = value_at(i, 1);
    ws[i] = value_at(i, 2) * 0.125;
  }
  device_buffer<float> x(xs), y(n + offset), r(n + offset);
  device_buffer<double> w(ws), z(n + offset);
  const device_buffer<float> c(std::vector<float>{0.0f, 1.0f});
  sd::cuda_executor ex;
  ex.run(thirds, sd::bind("x", x.cget() + offset, n), sd::bind("w", w.cget() + offset, n),
         sd::bind("c", c.cget() + 1, 1), sd::bind("y", y.get() + offset, n),
         sd::bind("z", z.get() + offset, n), sd::bind("r", r.get() + offset, n));
  const auto ys = y.download(), rs = r.download();
  const auto zs = z.download();
  const float* xv = xs.data() + offset;
  for (std::size_t i = 0; i < n; ++i) {
    REQUIRE(ys[i + offset] == xv[i] * 2 + 1);
    REQUIRE(zs[i + offset] == ws[i + offset] + static_cast<double>(xv[i]));
    const std::size_t part = i / k, j = i % k;
    const float expect_r = part == 0 ? xv[2 * k + j] - 1 : part == 1 ? xv[j] - 2 : xv[k + j] - 3;
    REQUIRE(rs[i + offset] == expect_r);
  }
}

}  // namespace

TEST_CASE("chunks off 16-byte boundaries take the vector path from their first aligned element",
          "[cuda][chunk][sanitize]") {
  STATIC_REQUIRE(thirds.plan().kernel_count() == 4);
  check_thirds(1001);     // 3 chunks of 3 * 1001 floats
  check_thirds(1001, 1);  // the bound pointers off too
  check_thirds(1024);     // every chunk aligned
  check_thirds(1);        // fewer elements than a vector step
  check_thirds(5);        // a head of 3 or 2, then no full step
  check_thirds(7);
}

TEST_CASE("chunks off 16-byte boundaries: large buffers", "[cuda][chunk]") {
  check_thirds((std::size_t{1} << 20) + 1);
  check_thirds((std::size_t{1} << 20) + 3, 3);
}

namespace {

constexpr auto copy_then_scale = sd::program<sd::automatic>([](sd::builder& p) {
  auto x = p.input<float, sd::pinned>("x");
  auto d = p.temp<float>("d");
  auto y = p.output<float>("y");
  auto h2d = p.stream("h2d");
  sd::with_stream(h2d, [&] { sd::copy(d, x); });
  y = d * 3;
});

}  // namespace

TEST_CASE("a failed copy is a cuda_error naming cudaMemcpyAsync, the statement and its stream",
          "[cuda][copy][errors]") {
  // Host memory registered when the bindings are checked, unregistered
  // before a capture with the same (cached) bindings: CUDA refuses to
  // capture a copy of pageable memory, and the executor reports the call.
  const std::size_t n = 4096;
  void* raw = std::aligned_alloc(4096, n * sizeof(float));
  REQUIRE(raw != nullptr);
  auto* host = static_cast<float*>(raw);
  for (std::size_t i = 0; i < n; ++i) host[i] = value_at(i);
  gpu_test::check(cudaHostRegister(host, n * sizeof(float), cudaHostRegisterDefault), "cudaHostRegister");
  device_buffer<float> y(n);
  sd::cuda_executor ex;
  ex.run(copy_then_scale, sd::bind("x", static_cast<const float*>(host), n), sd::bind("y", y.get(), n));
  const auto ys = y.download();
  for (std::size_t i = 0; i < n; ++i) REQUIRE(ys[i] == host[i] * 3);
  gpu_test::check(cudaHostUnregister(host), "cudaHostUnregister");
  // Whether CUDA refuses the capture depends on the platform: on the H200
  // here (CUDA 13, with pageable memory the device can reach) it captures
  // the copy. Either outcome is checked: the error names the call, the
  // statement and its stream once; a captured graph gives the right results.
  try {
    auto graph = sd::capture(ex, copy_then_scale, sd::bind("x", static_cast<const float*>(host), n),
                             sd::bind("y", y.get(), n));
    gpu_test::check(cudaMemset(y.get(), 0, n * sizeof(float)), "cudaMemset");
    graph.launch();
    wait_for_device();
    const auto again = y.download();
    for (std::size_t i = 0; i < n; ++i) REQUIRE(again[i] == host[i] * 3);
  } catch (const sd::cuda_error& e) {
    const std::string what = e.what();
    CHECK(what.find("streamdsl: cudaMemcpyAsync failed: ") == 0);
    CHECK(what.find("for statement #0 `sd::copy(d, x)` on stream 'h2d'") != std::string::npos);
    CHECK(what.find("on stream 'h2d' on stream") == std::string::npos);  // the stream said once
  }
  (void)cudaGetLastError();
  wait_for_device();
  std::free(raw);
}

namespace {

// Two chunks of one buffer in one kernel, each read and written in place:
// y's second half is loaded and stored, its first half stored and forwarded.
constexpr auto halves_in_place = sd::program([](sd::builder& p) {
  auto y = p.inout<float>("y");
  y.chunk(0, 2) = y.chunk(1, 2) + 1;
  y.chunk(1, 2) = y.chunk(0, 2) * 2;
});

}  // namespace

TEST_CASE("one kernel reads and writes two chunks of one buffer in place", "[cuda][chunk][sanitize]") {
  STATIC_REQUIRE(halves_in_place.plan().kernel_count() == 1);
  // 2 * 1001: the halves off 16 bytes by different amounts (the scalar
  // path); the others vectorise.
  for (const std::size_t n :
       {std::size_t{2}, std::size_t{2 * 1001}, std::size_t{2 * 1024}, std::size_t{1} << 21}) {
    std::vector<float> ys(n);
    for (std::size_t i = 0; i < n; ++i) ys[i] = value_at(i, 4);
    device_buffer<float> y(ys);
    sd::cuda_executor ex;
    ex.run(halves_in_place, sd::bind("y", y.get(), n));
    const auto out = y.download();
    const std::size_t half = n / 2;
    for (std::size_t i = 0; i < half; ++i) {
      REQUIRE(out[i] == ys[half + i] + 1);
      REQUIRE(out[half + i] == (ys[half + i] + 1) * 2);
    }
  }
}
