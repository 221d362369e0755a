// The API reference's CUDA executor code (docs/reference.md, "CUDA
// executor"): the ```cpp block there appears verbatim between the SNIPPET
// markers below (check_snippets.py enforces it). Compiled in CUDA builds;
// without a GPU the binary reports itself skipped (gpu_main.cu).
#include <cuda_runtime.h>
#include <thrust/device_vector.h>

#include <catch2/catch.hpp>
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/backend/cuda/cuda_graph.hpp>
#include <streamdsl/backend/cuda/device_bindings.hpp>
#include <streamdsl/streamdsl.hpp>
#include <vector>

namespace {

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

}  // namespace

TEST_CASE("reference: the CUDA executor, its run options and graphs", "[docs]") {
  const std::size_t n = 1 << 20;
  thrust::device_vector<float> x(n, 1.0f), y(n), z(n);
  float* d_x = thrust::raw_pointer_cast(x.data());
  float* d_y = thrust::raw_pointer_cast(y.data());
  float* d_z = thrust::raw_pointer_cast(z.data());
  // SNIPPET: ref-cuda
  cudaStream_t stream, side;
  cudaStreamCreate(&stream);
  cudaStreamCreate(&side);
  cudaEvent_t inputs_ready, outputs_done;
  cudaEventCreateWithFlags(&inputs_ready, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&outputs_done, cudaEventDisableTiming);
  cudaEventRecord(inputs_ready, stream);

  sd::cuda_executor ex(stream);  // main runs on `stream`
  ex.bind_stream("side", side);  // else side comes from the executor's pool
  ex.run(seed, sd::bind("x", d_x, n), sd::bind("y", d_y, n), sd::bind("z", z),  // z: a device_vector
         sd::after(inputs_ready), sd::then_record(outputs_done));               // asynchronous

  auto graph = sd::capture(ex, seed, sd::bind("x", d_x, n), sd::bind("y", d_y, n), sd::bind("z", d_z, n));
  graph.launch();                                                                     // one cudaGraphLaunch
  graph.rebind(sd::bind("x", d_z, n), sd::bind("y", d_y, n), sd::bind("z", d_x, n));  // updated in place
  graph.launch();
  try {
    cudaStreamSynchronize(stream);
    ex.run(seed, sd::bind("x", d_x, n), sd::bind("y", d_y, n));  // z is missing
  } catch (const sd::binding_error& e) {
    // thrown before anything is issued: "missing binding for output buffer 'z' ..."
  }
  cudaStreamSynchronize(stream);
  // END SNIPPET
  // First run: y = 2, z = 4; graph: x = 1 -> y = 2, z = 4; rebound: x = z (4)
  // -> y = 5, and its z is d_x: 10.
  std::vector<float> hx(n), hy(n);
  cudaMemcpy(hx.data(), d_x, sizeof(float) * n, cudaMemcpyDeviceToHost);
  cudaMemcpy(hy.data(), d_y, sizeof(float) * n, cudaMemcpyDeviceToHost);
  CHECK(hy[n - 1] == 5.0f);
  CHECK(hx[0] == 10.0f);
  CHECK(ex.main_stream() == stream);
  CHECK_THROWS_AS(ex.run(seed, sd::bind("x", d_x, n), sd::bind("y", d_y, n)), sd::binding_error);
  cudaEventDestroy(inputs_ready);
  cudaEventDestroy(outputs_done);
  cudaStreamDestroy(side);
  cudaStreamDestroy(stream);
}
