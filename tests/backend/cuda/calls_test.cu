// The user's own steps on the GPU (p.call, ops/call.hpp): a hand-written
// __global__ kernel and a Thrust algorithm issued by bound callables on the
// plan's streams, ordered against streamdsl's kernels by its events, temps
// reached in the workspace, chunks offset, a graph capture replaying them,
// and a launch error left by a callable reported naming the call. Results
// are checked against CPU loops. Tagged [sanitize] tests are small enough
// for compute-sanitizer.
#include <cuda_runtime.h>
#include <thrust/execution_policy.h>
#include <thrust/transform.h>

#include <catch2/catch.hpp>
#include <cstddef>
#include <stdexcept>
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/backend/cuda/cuda_graph.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>
#include <vector>

#include "device_buffer.hpp"

using gpu_test::device_buffer;

namespace {

__global__ void scale_kernel(const float* in, float* out, std::size_t n, float by) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < n) out[i] = in[i] * by;
}

unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + 255) / 256); }

struct add_half {
  __host__ __device__ float operator()(float v) const { return v + 0.5f; }
};

// t = x + 1 on main; on a side stream the user's kernel scales t by 10 into
// y (a slow kernel would expose a missing wait); main waits, then Thrust adds
// 0.5 to y in place.
constexpr auto two_calls = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto t = p.temp<float>("t");
  auto side = p.stream("side");
  auto e = p.event("e");
  t = x + 1;
  side.wait_stream(p.main_stream());
  sd::with_stream(side, [&] {
    p.call("scale", sd::reads(t), sd::writes(y));
    e.record();
  });
  e.wait();
  p.call("bump", sd::reads(y), sd::writes(y));
});

void scale(sd::call_context& c) {
  REQUIRE(c.on_gpu());
  const auto in = c.read<float>(0);
  const auto out = c.write<float>(0);
  if (in.size() > 0)
    scale_kernel<<<blocks_for(in.size()), 256, 0, c.stream()>>>(in.data(), out.data(), in.size(), 10.0f);
}
void bump(sd::call_context& c) {
  const auto y = c.write<float>(0);
  thrust::transform(thrust::cuda::par_nosync.on(c.stream()), y.begin(), y.end(), y.begin(), add_half{});
}

float value_at(std::size_t i) { return static_cast<float>(static_cast<int>(i % 101) - 50) * 0.25f; }

}  // namespace

TEST_CASE("calls issue the user's kernel and Thrust on the plan's streams", "[cuda][call][sanitize]") {
  for (std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{1} << 20}) {
    std::vector<float> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = value_at(i);
    device_buffer<float> dx(x), dy(n);
    sd::cuda_executor ex;
    ex.run(two_calls, sd::bind("x", dx.cget(), n), sd::bind("y", dy.get(), n), sd::bind_call("scale", scale),
           sd::bind_call("bump", bump));
    const auto y = dy.download();
    for (std::size_t i = 0; i < n; ++i) REQUIRE(y[i] == (x[i] + 1) * 10 + 0.5f);
  }
}

TEST_CASE("a call gets the chunk it lists and its stream", "[cuda][call][sanitize]") {
  static constexpr auto halves = sd::program([](sd::builder& p) {
    auto v = p.inout<float>("v");
    auto side = p.stream("side");
    sd::with_stream(side, [&] { p.call("upper", sd::reads(v.chunk(1, 2)), sd::writes(v.chunk(1, 2))); });
    p.call("lower", sd::reads(v.chunk(0, 2)), sd::writes(v.chunk(0, 2)));
  });
  const std::size_t n = 2 * 3001;
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = value_at(i);
  device_buffer<float> dv(v);
  cudaStream_t side_stream = nullptr, seen_side = nullptr, seen_main = nullptr;
  gpu_test::check(cudaStreamCreateWithFlags(&side_stream, cudaStreamNonBlocking), "cudaStreamCreate");
  sd::cuda_executor ex;
  ex.bind_stream("side", side_stream);
  const auto times = [&](float by, cudaStream_t& seen) {
    return [&seen, by, &dv](sd::call_context& c) {
      seen = c.stream();
      const auto in = c.read<float>(0);
      const auto out = c.write<float>(0);
      REQUIRE(in.size() == 3001);
      REQUIRE(in.data() == out.data());
      CHECK((in.data() == dv.cget() || in.data() == dv.cget() + 3001));
      scale_kernel<<<blocks_for(in.size()), 256, 0, c.stream()>>>(in.data(), out.data(), in.size(), by);
    };
  };
  ex.run(halves, sd::bind("v", dv.get(), n), sd::bind_call("upper", times(3, seen_side)),
         sd::bind_call("lower", times(-2, seen_main)));
  const auto out = dv.download();
  for (std::size_t i = 0; i < n; ++i) REQUIRE(out[i] == value_at(i) * (i < 3001 ? -2 : 3));
  CHECK(seen_side == side_stream);
  CHECK(seen_main == ex.main_stream());
  cudaStreamDestroy(side_stream);
}

TEST_CASE("a captured graph replays its calls", "[cuda][call][graph][sanitize]") {
  const std::size_t n = 4099;
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = value_at(i);
  device_buffer<float> dx(x), dy(n);
  int issued = 0;
  sd::cuda_executor ex;
  auto graph = sd::capture(ex, two_calls, sd::bind("x", dx.cget(), n), sd::bind("y", dy.get(), n),
                           sd::bind_call("scale",
                                         [&](sd::call_context& c) {
                                           ++issued;
                                           scale(c);
                                         }),
                           sd::bind_call("bump", bump));
  CHECK(issued == 1);  // called while the graph was captured, not per launch
  for (int launch = 0; launch < 3; ++launch) {
    for (auto& v : x) v += 1;
    dx.upload(x);
    graph.launch();
    const auto y = dy.download();
    for (std::size_t i = 0; i < n; ++i) REQUIRE(y[i] == (x[i] + 1) * 10 + 0.5f);
  }
  CHECK(issued == 1);
}

TEST_CASE("a launch error a callable leaves is reported naming the call", "[cuda][call]") {
  const std::size_t n = 64;
  device_buffer<float> dx(n), dy(n);
  sd::cuda_executor ex;
  std::string what;
  try {
    ex.run(two_calls, sd::bind("x", dx.cget(), n), sd::bind("y", dy.get(), n),
           sd::bind_call("scale",
                         [](sd::call_context& c) {
                           const auto in = c.read<float>(0);
                           // 2048 threads per block: an invalid configuration.
                           scale_kernel<<<1, 2048, 0, c.stream()>>>(in.data(), c.write<float>(0).data(),
                                                                    in.size(), 1.0f);
                         }),
           sd::bind_call("bump", bump));
  } catch (const sd::error& e) {
    what = e.what();
  }
  CHECK(what.find("a call's callable") != std::string::npos);
  CHECK(what.find("p.call(\"scale\", sd::reads(t), sd::writes(y))") != std::string::npos);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  (void)cudaGetLastError();
}

TEST_CASE("a callable that throws stops the run: nothing later is issued, the executor runs again",
          "[cuda][call][sanitize]") {
  const std::size_t n = 1000;
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = value_at(i);
  device_buffer<float> dx(x), dy(std::vector<float>(n, -1.0f));
  int bumps = 0;
  const auto counted_bump = [&](sd::call_context& c) {
    ++bumps;
    bump(c);
  };
  const auto throwing = [](sd::call_context&) { throw std::runtime_error("no kernel for this shape"); };
  sd::cuda_executor ex;
  std::string what;
  try {
    ex.run(two_calls, sd::bind("x", dx.cget(), n), sd::bind("y", dy.get(), n),
           sd::bind_call("scale", throwing), sd::bind_call("bump", counted_bump));
  } catch (const sd::error& e) {
    what = e.what();
  }
  CHECK(what ==
        "streamdsl: the callable bound to statement #2 `p.call(\"scale\", sd::reads(t), sd::writes(y))` on "
        "stream 'side' threw: no kernel for this shape; no later step of this run was issued");
  CHECK(bumps == 0);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);  // what was issued (t = x + 1) finished cleanly
  for (float v : dy.download()) REQUIRE(v == -1.0f);
  // Under capture too: the capture ends, and the executor runs again afterwards.
  CHECK_THROWS_AS(sd::capture(ex, two_calls, sd::bind("x", dx.cget(), n), sd::bind("y", dy.get(), n),
                              sd::bind_call("scale", throwing), sd::bind_call("bump", counted_bump)),
                  sd::error);
  CHECK(bumps == 0);
  ex.run(two_calls, sd::bind("x", dx.cget(), n), sd::bind("y", dy.get(), n), sd::bind_call("scale", scale),
         sd::bind_call("bump", counted_bump));
  CHECK(bumps == 1);
  const auto y = dy.download();
  for (std::size_t i = 0; i < n; ++i) REQUIRE(y[i] == (x[i] + 1) * 10 + 0.5f);
}
