// The CUDA executor's host steps as plain C++ (g++, no GPU): the host
// function every host step runs (cuda_detail::run_host_task) called directly,
// as CUDA's host-function thread would: what its callable gets, how a throw is
// recorded, skipped after and reported (host_failures), and how the batches
// of tasks are shared and freed. Nothing here issues CUDA work; the GPU test
// (host_call_gpu_test.cu) checks cudaLaunchHostFunc, graphs and streams.
#include <catch2/catch.hpp>
#include <stdexcept>
#include <streamdsl/backend/cuda/host_steps.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>
#include <vector>

namespace cd = sd::cuda_detail;

namespace {

// A task over `regions` with `f` as its callable, as make_host_tasks lays one out.
template <class F>
cd::host_task& add_task(cd::host_tasks& batch, const char* name, F f,
                        const std::vector<sd::call_region>& regions, std::size_t read_count) {
  auto& t = batch.add();
  t.callable = sd::detail::shared_callable(f);
  t.name = sd::detail::owned_string(sd::detail::string_view(name));
  t.where = sd::detail::owned_string(
      sd::detail::string_view("statement #4 `p.host_call(\"log\", sd::reads(h))` on stream 'side'"));
  for (const auto& r : regions) t.regions.push_back(r);
  t.read_count = read_count;
  return t;
}

std::string nested_message(const sd::error& outer) {
  try {
    std::rethrow_if_nested(outer);
  } catch (const std::exception& inner) {
    return inner.what();
  }
  return "(nothing nested)";
}

// Counts its copies' destructions: tells when a batch's callables are freed.
struct lifetime_probe {
  int* destroyed;
  void operator()(sd::call_context&) const {}
  ~lifetime_probe() { ++*destroyed; }
};

}  // namespace

TEST_CASE("a host step's function calls its callable with host memory, no stream", "[host_call]") {
  auto* failures = cd::host_failures::make();
  auto* batch = new cd::host_tasks(failures);
  std::vector<float> h{1, 2, 3}, g(3);
  std::vector<sd::call_region> regions(2);
  regions[0] = {h.data(), h.size(), sd::dtype::float32, h.size(), 1, "h"};
  regions[1] = {g.data(), g.size(), sd::dtype::float32, g.size(), 1, "g"};
  bool on_gpu = true, null_stream = false;
  std::string name;
  auto& task = add_task(
      *batch, "log",
      [&](sd::call_context& c) {
        on_gpu = c.on_gpu();
        null_stream = c.stream().handle() == nullptr;
        name = std::string(c.name().data(), c.name().size());
        const auto in = c.read<float>(0);
        const auto out = c.write<float>(0);
        for (std::size_t i = 0; i < in.size(); ++i) out[i] = in[i] * 2;
      },
      regions, 1);
  cd::run_host_task(&task);
  CHECK(!on_gpu);
  CHECK(null_stream);
  CHECK(name == "log");
  CHECK(g == std::vector<float>{2, 4, 6});
  CHECK(!failures->failed());
  CHECK_NOTHROW(failures->report());
  batch->drop();
  failures->drop();
}

TEST_CASE("a host step that throws is recorded, skips later host steps and is reported once", "[host_call]") {
  auto* failures = cd::host_failures::make();
  auto* batch = new cd::host_tasks(failures);
  int later = 0;
  bool fail = true;
  auto& first = add_task(
      *batch, "log",
      [&](sd::call_context&) {
        if (fail) throw std::runtime_error("disk full");
      },
      {}, 0);
  auto& second = add_task(
      *batch, "next", [&](sd::call_context&) { ++later; }, {}, 0);
  cd::run_host_task(&first);  // on CUDA's thread: nothing may escape
  CHECK(failures->failed());
  cd::run_host_task(&second);
  CHECK(later == 0);  // skipped until the failure is reported
  try {
    failures->report();
    FAIL("the failure was not reported");
  } catch (const sd::error& e) {
    CHECK(
        std::string(e.what()) ==
        "streamdsl: the callable bound to statement #4 `p.host_call(\"log\", sd::reads(h))` on stream "
        "'side' threw: disk full; later host steps of this executor were skipped until this report (the GPU "
        "work issued around them ran)");
    CHECK(nested_message(e) == "disk full");
  }
  CHECK(!failures->failed());
  CHECK_NOTHROW(failures->report());  // reported once
  cd::run_host_task(&second);
  CHECK(later == 1);  // host steps run again
  // Anything thrown; the first failure is kept, a later one dropped.
  struct user_failure {};
  auto& odd = add_task(
      *batch, "odd", [](sd::call_context&) { throw user_failure{}; }, {}, 0);
  cd::run_host_task(&odd);
  fail = true;
  cd::run_host_task(&first);  // skipped: a failure waits
  try {
    failures->report();
    FAIL("the failure was not reported");
  } catch (const sd::error& e) {
    CHECK(std::string(e.what()).find("threw: an exception that is not a std::exception;") !=
          std::string::npos);
    CHECK_THROWS_AS(std::rethrow_if_nested(e), user_failure);
  }
  // A callable reading a region as the wrong type is a failure like any other.
  std::vector<float> h{1};
  std::vector<sd::call_region> regions{{h.data(), 1, sd::dtype::float32, 1, 1, "h"}};
  auto& typed = add_task(
      *batch, "typed", [](sd::call_context& c) { (void)c.read<double>(0); }, regions, 1);
  cd::run_host_task(&typed);
  CHECK_THROWS_WITH(failures->report(), Catch::Contains("read<double>(0) reads 'h' as double"));
  batch->drop();
  failures->drop();
}

TEST_CASE("a batch of host tasks lives while a holder holds it", "[host_call]") {
  int destroyed = 0;
  int after_add = 0;
  auto* failures = cd::host_failures::make();
  {
    cd::host_tasks_ref executor_ref(new cd::host_tasks(failures));
    add_task(*executor_ref.get(), "log", lifetime_probe{&destroyed}, {}, 0);
    after_add = destroyed;  // temporaries of the callable's construction
    cd::host_tasks_ref graph_ref = executor_ref.share();
    CHECK(graph_ref.get() == executor_ref.get());
    executor_ref.reset();  // never issued: let go at once, and the graph's reference keeps the batch
    CHECK(destroyed == after_add);
    CHECK(graph_ref.get()->task(0)->failures == failures);
    cd::host_tasks_ref moved = static_cast<cd::host_tasks_ref&&>(graph_ref);
    CHECK(!graph_ref);
    CHECK(destroyed == after_add);
  }                                   // the last reference, never issued: deleted without any CUDA call
  CHECK(destroyed == after_add + 1);  // the batch's callable, once
  failures->drop();                   // the batch held its own reference: this is the last
}
