// The CUDA executor's run options as plain C++ (g++, no GPU): what sd::after
// and sd::then_record hold, how a workspace_allocator reaches the caller's
// resource or functions, and how run()'s arguments split into bindings and
// options. The GPU tests (caller_world_test.cu) check what the executor does
// with them.
#include <catch2/catch.hpp>
#include <cstdint>
#include <streamdsl/backend/cuda/run_options.hpp>
#include <streamdsl/streamdsl.hpp>
#include <vector>

namespace {

// Handles are never passed to CUDA here: distinct values stand for events and streams.
template <class Handle>
Handle fake(std::uintptr_t v) {
  return reinterpret_cast<Handle>(v * 256);
}

struct recording_resource {
  int allocations = 0, deallocations = 0;
  std::size_t bytes = 0;
  cudaStream_t stream = nullptr;
  void* given_back = nullptr;
  alignas(256) unsigned char memory[512];
  void* allocate(std::size_t n, cudaStream_t s) {
    ++allocations;
    bytes = n;
    stream = s;
    return memory;
  }
  void deallocate(void* p, std::size_t n, cudaStream_t s) {
    ++deallocations;
    given_back = p;
    bytes = n;
    stream = s;
  }
};

// Newer RMM releases take the stream first: allocate(stream, bytes, alignment = ...).
struct stream_first_resource {
  std::size_t bytes = 0;
  cudaStream_t stream = nullptr;
  int deallocations = 0;
  alignas(256) unsigned char memory[256];
  void* allocate(cudaStream_t s, std::size_t n, std::size_t alignment = 256) {
    (void)alignment;
    stream = s;
    bytes = n;
    return memory;
  }
  void deallocate(cudaStream_t s, void*, std::size_t n, std::size_t alignment = 256) noexcept {
    (void)alignment;
    stream = s;
    bytes = n;
    ++deallocations;
  }
};

int function_calls = 0;
void* function_allocate(std::size_t n, cudaStream_t) {
  function_calls += 1;
  return reinterpret_cast<void*>(n);
}
void function_deallocate(void*, std::size_t, cudaStream_t) { function_calls += 10; }

}  // namespace

TEST_CASE("sd::after and sd::then_record hold the caller's events in order", "[run_options]") {
  const auto a = fake<cudaEvent_t>(1), b = fake<cudaEvent_t>(2), c = fake<cudaEvent_t>(3);
  const auto waits = sd::after(a, b, c);
  STATIC_REQUIRE(std::is_same_v<decltype(waits), const sd::caller_events<sd::caller_event_role::wait, 3>>);
  REQUIRE(waits.view().size() == 3);
  CHECK(waits.view()[0] == a);
  CHECK(waits.view()[2] == c);
  const std::vector<cudaEvent_t> list{c, a};
  const auto records = sd::then_record(list);
  REQUIRE(records.view().size() == 2);
  CHECK(records.view().data() == list.data());     // a list is referred to, not copied
  CHECK(sd::after(nullptr).view()[0] == nullptr);  // refused when a run starts, not here
}

TEST_CASE("a workspace_allocator reaches the caller's resource, by reference", "[run_options]") {
  recording_resource pool;
  const sd::workspace_allocator allocator = sd::workspace_from(pool);
  REQUIRE(allocator.usable());
  const auto s = fake<cudaStream_t>(7);
  void* p = allocator.allocate(300, s);
  CHECK(p == pool.memory);
  CHECK(pool.allocations == 1);
  CHECK(pool.bytes == 300);
  CHECK(pool.stream == s);
  allocator.deallocate(p, 300, s);
  CHECK(pool.deallocations == 1);
  CHECK(pool.given_back == pool.memory);
  const sd::workspace_allocator copy = allocator;  // a copy refers to the same resource
  (void)copy.allocate(1, s);
  CHECK(pool.allocations == 2);
}

TEST_CASE("a resource that takes the stream first (newer RMM) is called in its order", "[run_options]") {
  stream_first_resource pool;
  STATIC_REQUIRE(sd::workspace_resource<stream_first_resource>);
  const auto allocator = sd::workspace_from(pool);
  const auto s = fake<cudaStream_t>(9);
  CHECK(allocator.allocate(1000, s) == pool.memory);
  CHECK(pool.bytes == 1000);
  CHECK(pool.stream == s);
  allocator.deallocate(pool.memory, 2000, s);
  CHECK(pool.bytes == 2000);
  CHECK(pool.deallocations == 1);
}

TEST_CASE("a workspace_allocator from two functions or captureless lambdas", "[run_options]") {
  function_calls = 0;
  const auto from_functions = sd::workspace_from(&function_allocate, &function_deallocate);
  CHECK(from_functions.allocate(40, nullptr) == reinterpret_cast<void*>(40));
  from_functions.deallocate(nullptr, 40, nullptr);
  CHECK(function_calls == 11);
  const auto from_lambdas =
      sd::workspace_from([](std::size_t n, cudaStream_t) { return reinterpret_cast<void*>(n + 1); },
                         [](void*, std::size_t, cudaStream_t) {});
  CHECK(from_lambdas.allocate(40, nullptr) == reinterpret_cast<void*>(41));
  CHECK(!sd::workspace_from(nullptr, nullptr).usable());
  CHECK(!sd::workspace_from(&function_allocate, nullptr).usable());
}

TEST_CASE("run()'s arguments split into bindings, in order, and options", "[run_options]") {
  namespace cd = sd::cuda_detail;
  float x[4] = {}, y[4] = {};
  const auto a = fake<cudaEvent_t>(1), b = fake<cudaEvent_t>(2), c = fake<cudaEvent_t>(3);
  recording_resource pool;
  STATIC_REQUIRE(cd::run_option<decltype(sd::after(a))>);
  STATIC_REQUIRE(cd::run_option<const sd::workspace_buffer&>);
  STATIC_REQUIRE(cd::run_option<sd::workspace_allocator&>);
  STATIC_REQUIRE(!cd::run_option<sd::binding>);
  STATIC_REQUIRE(cd::binding_count<sd::binding, decltype(sd::after(a)), sd::binding, sd::workspace_buffer> ==
                 2);
  STATIC_REQUIRE(cd::workspace_option_count<sd::binding, sd::workspace_buffer, sd::workspace_allocator> == 2);

  sd::detail::dyn_array<cudaEvent_t> waits, records;
  cd::gathered_options gathered{waits, records, {}};
  sd::binding list[2];
  cd::split_arguments(list, gathered, sd::after(a), sd::bind("x", x, 4), sd::then_record(c), sd::after(b),
                      sd::bind("y", y, 4), sd::workspace_from(pool));
  CHECK(list[0].name() == "x");
  CHECK(list[1].name() == "y");
  CHECK(list[1].data() == y);
  REQUIRE(waits.size() == 2);  // two sd::after arguments: both lists, in order
  CHECK(waits[0] == a);
  CHECK(waits[1] == b);
  REQUIRE(records.size() == 1);
  CHECK(records[0] == c);
  REQUIRE(gathered.workspace.from == cd::workspace_choice::source::allocator);
  (void)gathered.workspace.allocator.allocate(8, nullptr);
  CHECK(pool.allocations == 1);

  sd::binding none[1];
  cd::gathered_options buffer_only{waits, records, {}};
  alignas(256) static unsigned char scratch[256];
  cd::split_arguments(none, buffer_only, sd::workspace_in(scratch, sizeof scratch));
  CHECK(buffer_only.workspace.from == cd::workspace_choice::source::buffer);
  CHECK(buffer_only.workspace.buffer.data == scratch);
  CHECK(buffer_only.workspace.buffer.bytes == 256);
}
