// Collectives through NCCL (backend/cuda/collectives.hpp) on the CUDA
// executor: every collective in place and into another buffer, every reduce
// op, the types NCCL reduces and the types moved as bytes, buckets (chunks) on
// a side stream beside kernels, a captured graph, and the errors before
// launch (no communicator, a communicator of the wrong size, host memory).
// One rank (a 1-rank communicator: NCCL's kernels still run) against values
// computed here and against the host executor's loopback ranks
// (sd::loopback_world); the cases tagged [.two_ranks] need two GPUs and run as
// `test_cuda_collectives "[two_ranks]"` (ctest's test_cuda_collectives_two_ranks,
// which reports skipped with fewer GPUs).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <streamdsl/backend/cuda/collectives.hpp>
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/backend/cuda/cuda_graph.hpp>
#include <streamdsl/backend/cuda/executor_group.hpp>
#include <streamdsl/backend/cuda/nccl_communicator.hpp>
#include <streamdsl/backend/host/loopback.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>
#include <thread>
#include <vector>

#include "device_buffer.hpp"

using gpu_test::device_buffer;

namespace {

template <class T, sd::reduce_op Op>
constexpr auto all_reduce_in_place = sd::program([](sd::builder& p) {
  auto x = p.output<T>("x");
  sd::all_reduce(x, Op);
});

template <class T, sd::reduce_op Op>
constexpr auto all_reduce_into = sd::program([](sd::builder& p) {
  auto x = p.input<T>("x");
  auto y = p.output<T>("y");
  y = sd::all_reduce(x, Op);
});

template <class T>
constexpr auto reduce_scatter_into = sd::program([](sd::builder& p) {
  auto n = p.domain("elems");
  auto parts = p.domain("parts");
  auto x = p.input<T>("x", n);
  auto y = p.output<T>("y", parts);
  y = sd::reduce_scatter(x, sd::reduce_op::sum);
});

template <class T>
constexpr auto all_gather_into = sd::program([](sd::builder& p) {
  auto n = p.domain("elems");
  auto all = p.domain("all");
  auto x = p.input<T>("x", n);
  auto y = p.output<T>("y", all);
  y = sd::all_gather(x);
});

template <class T>
constexpr auto broadcast_in_place = sd::program([](sd::builder& p) {
  auto x = p.output<T>("x");
  sd::broadcast(x, 0);
});

// Buckets: each chunk of g computed on main, all-reduced on stream comm while
// the next is computed, then read by a kernel on main.
constexpr int buckets = 4;
constexpr auto bucketed = sd::program<sd::automatic>([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto g = p.temp<float>("g");
  auto comm = p.stream("comm");
  for (int i = 0; i < buckets; ++i) {
    g.chunk(i, buckets) = x.chunk(i, buckets) * 2.0f + 1.0f;
    sd::with_stream(comm, [&] { sd::all_reduce(g.chunk(i, buckets), sd::reduce_op::sum); });
  }
  y = g * 0.5f;
});

// A 1-rank communicator on the current device.
sd::nccl_communicator one_rank() {
  ncclComm_t comm = nullptr;
  int device = 0;
  gpu_test::check(cudaGetDevice(&device), "cudaGetDevice");
  sd::cuda_detail::check_nccl(ncclCommInitAll(&comm, 1, &device), "ncclCommInitAll");
  return sd::nccl_communicator(comm);
}

template <class T>
std::vector<gpu_test::host_t<T>> iota(std::size_t n, int scale = 1) {
  std::vector<gpu_test::host_t<T>> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = static_cast<gpu_test::host_t<T>>(static_cast<int>(i % 61) * scale - 7);
  return v;
}

template <class T, sd::reduce_op Op>
void check_all_reduce_one_rank(sd::cuda_executor& ex) {
  const std::size_t n = 1000;
  const auto x = iota<T>(n);
  device_buffer<T> in_place(x), src(x), dst(n);
  ex.run(all_reduce_in_place<T, Op>, sd::bind("x", in_place.get(), n));
  ex.run(all_reduce_into<T, Op>, sd::bind("x", src.cget(), n), sd::bind("y", dst.get(), n));
  // One rank: every op gives the rank's own values back.
  CHECK(in_place.download() == x);
  CHECK(dst.download() == x);
}

}  // namespace

TEST_CASE("collectives on one rank: every op, NCCL's types, in place and into another buffer",
          "[cuda][collectives]") {
  auto comm = one_rank();
  sd::cuda_executor ex;
  ex.bind_communicator(comm);
  check_all_reduce_one_rank<float, sd::reduce_op::sum>(ex);
  check_all_reduce_one_rank<float, sd::reduce_op::prod>(ex);
  check_all_reduce_one_rank<float, sd::reduce_op::min>(ex);
  check_all_reduce_one_rank<float, sd::reduce_op::max>(ex);
  check_all_reduce_one_rank<float, sd::reduce_op::avg>(ex);
  check_all_reduce_one_rank<double, sd::reduce_op::avg>(ex);
  check_all_reduce_one_rank<std::int8_t, sd::reduce_op::sum>(ex);
  check_all_reduce_one_rank<std::uint8_t, sd::reduce_op::max>(ex);
  check_all_reduce_one_rank<std::int32_t, sd::reduce_op::sum>(ex);
  check_all_reduce_one_rank<std::uint32_t, sd::reduce_op::min>(ex);
  check_all_reduce_one_rank<std::int64_t, sd::reduce_op::prod>(ex);
  check_all_reduce_one_rank<std::uint64_t, sd::reduce_op::sum>(ex);
}

TEST_CASE("reduce_scatter, all_gather (bytes for int16_t and bool) and broadcast on one rank",
          "[cuda][collectives]") {
  auto comm = one_rank();
  sd::cuda_executor ex;
  ex.bind_communicator(comm);
  const std::size_t n = 777;
  {
    const auto x = iota<float>(n);
    device_buffer<float> src(x), dst(n);
    ex.run(reduce_scatter_into<float>, sd::bind("x", src.cget(), n), sd::bind("y", dst.get(), n));
    CHECK(dst.download() == x);
  }
  {
    const auto x = iota<std::int16_t>(n);
    device_buffer<std::int16_t> src(x), dst(n);
    ex.run(all_gather_into<std::int16_t>, sd::bind("x", src.cget(), n), sd::bind("y", dst.get(), n));
    CHECK(dst.download() == x);
  }
  {
    std::vector<unsigned char> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = i % 3 == 0;
    device_buffer<bool> src(x), dst(n);
    ex.run(all_gather_into<bool>, sd::bind("x", src.cget(), n), sd::bind("y", dst.get(), n));
    CHECK(dst.download() == x);
  }
  {
    const auto x = iota<std::int64_t>(n);
    device_buffer<std::int64_t> buf(x);
    ex.run(broadcast_in_place<std::int64_t>, sd::bind("x", buf.get(), n));
    CHECK(buf.download() == x);
  }
}

TEST_CASE("bucketed all-reduces on a side stream beside kernels, run and captured",
          "[cuda][collectives][graph]") {
  auto comm = one_rank();
  cudaStream_t stream = nullptr;
  gpu_test::check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  {
    sd::cuda_executor ex(stream);
    ex.bind_communicator(comm);
    const std::size_t n = (std::size_t{1} << 20) + 20;  // 4 buckets of an odd length
    const auto x = iota<float>(n);
    device_buffer<float> in(x), out(n);
    std::vector<float> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = (x[i] * 2.0f + 1.0f) * 0.5f;
    ex.run(bucketed, sd::bind("x", in.cget(), n), sd::bind("y", out.get(), n));
    gpu_test::check(cudaStreamSynchronize(stream), "sync");
    CHECK(out.download() == want);
    gpu_test::check(cudaMemset(out.get(), 0, n * sizeof(float)), "memset");
    auto graph = sd::capture(ex, bucketed, sd::bind("x", in.cget(), n), sd::bind("y", out.get(), n));
    graph.launch();
    graph.launch();
    gpu_test::check(cudaStreamSynchronize(stream), "sync");
    CHECK(out.download() == want);
  }
  cudaStreamDestroy(stream);
}

TEST_CASE("collective errors before launch: no communicator, the wrong size, host memory",
          "[cuda][collectives][errors]") {
  const std::size_t n = 64;
  device_buffer<float> src(n), dst(2 * n);
  {
    sd::cuda_executor ex;
    try {
      ex.run(all_reduce_into<float, sd::reduce_op::sum>, sd::bind("x", src.cget(), n),
             sd::bind("y", dst.get(), n));
      FAIL("no error");
    } catch (const sd::binding_error& e) {
      CHECK_THAT(e.what(), Catch::Contains("no communicator is bound") && Catch::Contains("sd::all_reduce"));
    }
  }
  auto comm = one_rank();
  sd::cuda_executor ex;
  ex.bind_communicator(comm);
  try {  // buffers for 2 ranks, a communicator of 1
    ex.run(all_gather_into<float>, sd::bind("x", src.cget(), n), sd::bind("y", dst.get(), 2 * n));
    FAIL("no error");
  } catch (const sd::binding_error& e) {
    CHECK_THAT(e.what(), Catch::Contains("rank 0 of 1") && Catch::Contains("'y'"));
  }
  float* pinned = nullptr;
  gpu_test::check(cudaMallocHost(&pinned, n * sizeof(float)), "cudaMallocHost");
  try {
    ex.run(all_reduce_in_place<float, sd::reduce_op::sum>, sd::bind("x", pinned, n));
    FAIL("no error");
  } catch (const sd::binding_error& e) {
    CHECK_THAT(e.what(), Catch::Contains("rank 0 of 1") && Catch::Contains("pinned host memory") &&
                             Catch::Contains("'x'"));
  }
  cudaFreeHost(pinned);
}

TEST_CASE("an executor group of one rank runs the bucketed step", "[cuda][collectives][group]") {
  sd::cuda_executor_group group(std::vector<int>{0});
  const std::size_t n = 4096;
  const auto x = iota<float>(n);
  device_buffer<float> in(x), out(n);
  group.run(bucketed, [&](int) {
    return std::vector<sd::binding>{sd::bind("x", in.cget(), n), sd::bind("y", out.get(), n)};
  });
  group.synchronize();
  std::vector<float> want(n);
  for (std::size_t i = 0; i < n; ++i) want[i] = (x[i] * 2.0f + 1.0f) * 0.5f;
  CHECK(out.download() == want);
}

// The same programs on the host executor's loopback ranks, one rank's
// bindings per rank; returns each rank's output y.
using float_rows = std::vector<std::vector<float>>;
template <class Program>
float_rows on_loopback(const Program& program, const float_rows& inputs, std::size_t out_count) {
  float_rows outputs(inputs.size());
  for (auto& v : outputs) v.resize(out_count);
  sd::loopback_world world(static_cast<int>(inputs.size()));
  world.run(program, [&](int r) {
    const auto k = static_cast<std::size_t>(r);
    return std::vector<sd::binding>{sd::bind("x", inputs[k].data(), inputs[k].size()),
                                    sd::bind("y", outputs[k].data(), out_count)};
  });
  return outputs;
}

TEST_CASE("one rank matches the host executor's loopback rank", "[cuda][collectives][host]") {
  auto comm = one_rank();
  sd::cuda_executor ex;
  ex.bind_communicator(comm);
  const std::size_t n = 4096;
  const float_rows x{iota<float>(n)};
  device_buffer<float> in(x[0]), out(n);
  ex.run(bucketed, sd::bind("x", in.cget(), n), sd::bind("y", out.get(), n));
  CHECK(out.download() == on_loopback(bucketed, x, n)[0]);
  ex.run(all_reduce_into<float, sd::reduce_op::avg>, sd::bind("x", in.cget(), n),
         sd::bind("y", out.get(), n));
  CHECK(out.download() == on_loopback(all_reduce_into<float, sd::reduce_op::avg>, x, n)[0]);
  ex.run(reduce_scatter_into<float>, sd::bind("x", in.cget(), n), sd::bind("y", out.get(), n));
  CHECK(out.download() == on_loopback(reduce_scatter_into<float>, x, n)[0]);
}

// ------------------------------------------------------------------ two ranks
TEST_CASE("two ranks: all_reduce, reduce_scatter, all_gather, broadcast and buckets", "[.two_ranks]") {
  int devices = 0;
  gpu_test::check(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
  if (devices < 2) {
    std::printf("SKIPPED: the two-rank collectives need 2 GPUs; this machine has %d\n", devices);
    std::exit(77);
  }
  sd::cuda_executor_group group(std::vector<int>{0, 1});
  const std::size_t n = 1 << 16;
  std::vector<std::unique_ptr<device_buffer<float>>> x, y, all;
  std::vector<std::vector<float>> host(2);
  for (int r = 0; r < 2; ++r) {
    gpu_test::check(cudaSetDevice(r), "cudaSetDevice");
    host[r] = iota<float>(n, r + 1);
    x.push_back(std::make_unique<device_buffer<float>>(host[r]));
    y.push_back(std::make_unique<device_buffer<float>>(n));
    all.push_back(std::make_unique<device_buffer<float>>(2 * n));
  }
  const auto download = [&](device_buffer<float>& b, int r) {
    gpu_test::check(cudaSetDevice(r), "cudaSetDevice");
    return b.download();
  };
  group.run(all_reduce_into<float, sd::reduce_op::sum>, [&](int r) {
    return std::vector<sd::binding>{sd::bind("x", x[r]->cget(), n), sd::bind("y", y[r]->get(), n)};
  });
  group.synchronize();
  for (int r = 0; r < 2; ++r) {
    const auto got = download(*y[r], r);
    for (std::size_t i = 0; i < n; i += 97) CHECK(got[i] == host[0][i] + host[1][i]);
  }
  group.run(reduce_scatter_into<float>, [&](int r) {
    return std::vector<sd::binding>{sd::bind("x", x[r]->cget(), n), sd::bind("y", y[r]->get(), n / 2)};
  });
  group.synchronize();
  for (int r = 0; r < 2; ++r) {
    const auto got = download(*y[r], r);
    for (std::size_t i = 0; i < n / 2; i += 97)
      CHECK(got[i] == host[0][r * n / 2 + i] + host[1][r * n / 2 + i]);
  }
  group.run(all_gather_into<float>, [&](int r) {
    return std::vector<sd::binding>{sd::bind("x", x[r]->cget(), n), sd::bind("y", all[r]->get(), 2 * n)};
  });
  group.synchronize();
  for (int r = 0; r < 2; ++r) {
    const auto got = download(*all[r], r);
    for (std::size_t i = 0; i < n; i += 97) CHECK((got[i] == host[0][i] && got[n + i] == host[1][i]));
  }
  group.run(bucketed, [&](int r) {
    return std::vector<sd::binding>{sd::bind("x", x[r]->cget(), n), sd::bind("y", y[r]->get(), n)};
  });
  group.synchronize();
  for (int r = 0; r < 2; ++r) {
    const auto got = download(*y[r], r);
    for (std::size_t i = 0; i < n; i += 97)
      CHECK(got[i] == ((host[0][i] * 2.0f + 1.0f) + (host[1][i] * 2.0f + 1.0f)) * 0.5f);
  }
  // The host executor's two loopback ranks agree (exact: small integers).
  const auto host_y = on_loopback(bucketed, host, n);
  for (int r = 0; r < 2; ++r) CHECK(download(*y[r], r) == host_y[static_cast<std::size_t>(r)]);
  // Extents that differ across ranks: refused before any rank issues.
  CHECK_THROWS_WITH(
      group.run(
          all_reduce_into<float, sd::reduce_op::sum>,
          [&](int r) {
            const std::size_t m = r == 0 ? n : n / 2;
            return std::vector<sd::binding>{sd::bind("x", x[r]->cget(), m), sd::bind("y", y[r]->get(), m)};
          }),
      Catch::Contains("on rank 1"));
  // A communicator on another device than the executor's.
  gpu_test::check(cudaSetDevice(0), "cudaSetDevice");
  {
    sd::cuda_executor ex;
    ex.bind_communicator(group.communicator(1));
    CHECK_THROWS_WITH(ex.run(all_reduce_into<float, sd::reduce_op::sum>, sd::bind("x", x[0]->cget(), n),
                             sd::bind("y", y[0]->get(), n)),
                      Catch::Contains("is on device 1, but the executor runs on device 0"));
  }
  // One executor per rank on threads of their own, as one process per GPU
  // would run them: the executors' own agreement (bind_communicator's
  // default) refuses extents that differ, on both ranks, and lets equal ones run.
  const auto per_rank = [&](std::size_t m1, std::vector<std::string>& errors) {
    std::vector<std::thread> threads;
    for (int r = 0; r < 2; ++r)
      threads.emplace_back([&, r] {
        gpu_test::check(cudaSetDevice(r), "cudaSetDevice");
        sd::cuda_executor ex;
        ex.bind_communicator(group.communicator(r));
        const std::size_t m = r == 0 ? n : m1;
        try {
          ex.run(all_reduce_into<float, sd::reduce_op::sum>, sd::bind("x", x[r]->cget(), m),
                 sd::bind("y", y[r]->get(), m));
          gpu_test::check(cudaDeviceSynchronize(), "sync");
        } catch (const sd::error& e) {
          errors[static_cast<std::size_t>(r)] = e.what();
        }
      });
    for (auto& t : threads) t.join();
  };
  std::vector<std::string> errors(2);
  per_rank(n / 2, errors);
  CHECK_THAT(errors[0], Catch::Contains("rank 1 of 2 binds its collectives with other extents than rank 0"));
  CHECK_THAT(errors[1], Catch::Contains("rank 0 of 2 binds its collectives with other extents than rank 1"));
  errors.assign(2, "");
  per_rank(n, errors);
  CHECK((errors[0].empty() && errors[1].empty()));
  for (int r = 0; r < 2; ++r) {
    const auto got = download(*y[r], r);
    for (std::size_t i = 0; i < n; i += 97) CHECK(got[i] == host[0][i] + host[1][i]);
  }
  gpu_test::check(cudaSetDevice(0), "cudaSetDevice");
}
