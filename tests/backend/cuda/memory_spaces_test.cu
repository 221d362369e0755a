// Bindings checked against the declared memory space before launch, with
// cudaPointerGetAttributes: device buffers need device (or managed) memory,
// sd::pinned ones page-locked host memory, sd::pageable ones any host memory.
// Families bind from containers of (pointer, extent) pairs; the cached
// binding checks compare a family's members. Small enough for
// compute-sanitizer ([sanitize]).
#include <cuda_runtime.h>

#include <catch2/catch.hpp>
#include <cstddef>
#include <memory>
#include <streamdsl/backend/cuda/cuda_executor.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>
#include <utility>
#include <vector>

#include "device_buffer.hpp"

using gpu_test::check;
using gpu_test::device_buffer;

namespace {

constexpr std::size_t n = 1000;
constexpr float poison = -7.f;

// x and y are device buffers; the two host buffers are declared only (no
// statement can use them: copies reach them), so only their bindings matter.
constexpr auto spaces = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto h_pinned = p.input<float, sd::pinned>("h_pinned");
  auto h_pageable = p.inout<float, sd::pageable>("h_pageable");
  auto y = p.output<float>("y");
  y = x * 2 + 1;
  (void)h_pinned, (void)h_pageable;
});

// Page-locked host memory from cudaMallocHost.
class pinned_floats {
 public:
  explicit pinned_floats(std::size_t count) : n_(count) {
    check(cudaMallocHost(reinterpret_cast<void**>(&p_), count * sizeof(float)), "cudaMallocHost");
    for (std::size_t i = 0; i < count; ++i) p_[i] = poison;
  }
  ~pinned_floats() { cudaFreeHost(p_); }
  pinned_floats(const pinned_floats&) = delete;
  pinned_floats& operator=(const pinned_floats&) = delete;
  float* get() { return p_; }

 private:
  float* p_ = nullptr;
  std::size_t n_;
};

// A std::vector page-locked with cudaHostRegister while this lives.
class registered_vector {
 public:
  explicit registered_vector(std::size_t count) : v_(count, poison) {
    check(cudaHostRegister(v_.data(), count * sizeof(float), cudaHostRegisterDefault), "cudaHostRegister");
  }
  ~registered_vector() { cudaHostUnregister(v_.data()); }
  registered_vector(const registered_vector&) = delete;
  registered_vector& operator=(const registered_vector&) = delete;
  float* get() { return v_.data(); }

 private:
  std::vector<float> v_;
};

class managed_floats {
 public:
  explicit managed_floats(std::size_t count) {
    check(cudaMallocManaged(reinterpret_cast<void**>(&p_), count * sizeof(float)), "cudaMallocManaged");
    for (std::size_t i = 0; i < count; ++i) p_[i] = static_cast<float>(i);
  }
  ~managed_floats() { cudaFree(p_); }
  managed_floats(const managed_floats&) = delete;
  managed_floats& operator=(const managed_floats&) = delete;
  float* get() { return p_; }

 private:
  float* p_ = nullptr;
};

std::vector<float> ramp() {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return v;
}

bool y_right(const device_buffer<float>& y) {
  const auto ys = y.download();
  for (std::size_t i = 0; i < n; ++i)
    if (ys[i] != static_cast<float>(i) * 2 + 1) return false;
  return true;
}

bool y_untouched(const device_buffer<float>& y) {
  const auto ys = y.download();
  for (auto v : ys)
    if (v != poison) return false;
  return true;
}

}  // namespace

TEST_CASE("bindings that match their declared spaces run", "[cuda][spaces][sanitize]") {
  device_buffer<float> x(ramp()), y(std::vector<float>(n, poison));
  pinned_floats pinned(n);
  std::vector<float> pageable(n, poison);
  sd::cuda_executor ex;
  ex.run(spaces, sd::bind("x", x.cget(), n), sd::bind("y", y.get(), n), sd::bind("h_pinned", pinned.get(), n),
         sd::bind("h_pageable", pageable.data(), n));
  CHECK(y_right(y));

  // Registered host memory is pinned; pinned (and managed) memory is host
  // memory too, fine where pageable is declared; managed memory is fine on
  // the device.
  registered_vector registered(n);
  pinned_floats pinned_for_pageable(n);
  managed_floats managed_x(n);
  device_buffer<float> y2(std::vector<float>(n, poison));
  ex.run(spaces, sd::bind("x", managed_x.get(), n), sd::bind("y", y2.get(), n),
         sd::bind("h_pinned", registered.get(), n), sd::bind("h_pageable", pinned_for_pageable.get(), n));
  CHECK(y_right(y2));
}

TEST_CASE("pageable memory bound where pinned was declared is a binding_error", "[cuda][spaces][sanitize]") {
  device_buffer<float> x(ramp()), y(std::vector<float>(n, poison));
  std::vector<float> pageable(n, poison), other(n, poison);
  sd::cuda_executor ex;
  REQUIRE_THROWS_WITH(
      ex.run(spaces, sd::bind("x", x.cget(), n), sd::bind("y", y.get(), n),
             sd::bind("h_pinned", pageable.data(), n), sd::bind("h_pageable", other.data(), n)),
      Catch::Contains(
          "bad binding: input buffer 'h_pinned' (float, domain 'n', pinned host memory) is bound to "
          "pageable host memory, but it is declared sd::pinned") &&
          Catch::Contains("cudaMallocHost") && Catch::Contains("cudaHostRegister"));
  CHECK(y_untouched(y));
}

TEST_CASE("device memory bound to a host buffer is a binding_error", "[cuda][spaces][sanitize]") {
  device_buffer<float> x(ramp()), y(std::vector<float>(n, poison)), d1(n), d2(n);
  sd::cuda_executor ex;
  REQUIRE_THROWS_WITH(
      ex.run(spaces, sd::bind("x", x.cget(), n), sd::bind("y", y.get(), n), sd::bind("h_pinned", d1.get(), n),
             sd::bind("h_pageable", d2.get(), n)),
      Catch::Contains("2 bad bindings") &&
          Catch::Contains(
              "input buffer 'h_pinned' (float, domain 'n', pinned host memory) is bound to device "
              "memory, but it is declared in pinned host memory; bind page-locked host memory "
              "(cudaMallocHost)") &&
          Catch::Contains(
              "inout buffer 'h_pageable' (float, domain 'n', pageable host memory) is bound to device "
              "memory, but it is declared in pageable host memory; bind host memory, or declare it "
              "in device memory (p.inout<float>(\"h_pageable\"))"));
  CHECK(y_untouched(y));
}

TEST_CASE("host memory bound to a device buffer is a binding_error", "[cuda][spaces][sanitize]") {
  device_buffer<float> y(std::vector<float>(n, poison));
  pinned_floats pinned_x(n), pinned(n);
  std::vector<float> pageable(n, poison);
  sd::cuda_executor ex;
  // Pinned memory is mapped into the device's address space, but a device
  // buffer is declared to be device memory: kernels would read it over PCIe.
  REQUIRE_THROWS_WITH(
      ex.run(spaces, sd::bind("x", pinned_x.get(), n), sd::bind("y", y.get(), n),
             sd::bind("h_pinned", pinned.get(), n), sd::bind("h_pageable", pageable.data(), n)),
      Catch::Contains(
          "bad binding: input buffer 'x' (float, domain 'n') is bound to pinned host memory, but it "
          "is declared in device memory") &&
          Catch::Contains(
              "declare it in host memory (sd::pinned) and copy it to a device buffer with sd::copy"));
  std::vector<float> host_y(n, poison);
  device_buffer<float> x(ramp());
  REQUIRE_THROWS_WITH(
      ex.run(spaces, sd::bind("x", x.cget(), n), sd::bind("y", host_y.data(), n),
             sd::bind("h_pinned", pinned.get(), n), sd::bind("h_pageable", pageable.data(), n)),
      Catch::Contains("output buffer 'y' (float, domain 'n') is bound to pageable host memory"));
  CHECK(y_untouched(y));
  for (auto v : host_y) REQUIRE(v == poison);
}

TEST_CASE("an empty buffer's pointer is not checked: it is never read or written",
          "[cuda][spaces][sanitize]") {
  // A tensor list's empty member points one past the end of its allocation
  // (or anywhere): with 0 elements nothing reads it, so no space is asked of it.
  constexpr auto empty = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto y = p.output<float>("y");
    y = x + 1;
  });
  std::vector<float> host(4);
  sd::cuda_executor ex;
  ex.run(empty, sd::bind("x", static_cast<const float*>(host.data()), 0), sd::bind("y", host.data() + 4, 0));
  check(cudaDeviceSynchronize(), "sync");
}

TEST_CASE("the space checks are cached with the other binding checks, and redone for new bindings",
          "[cuda][spaces][sanitize]") {
  device_buffer<float> x(ramp()), y(std::vector<float>(n, poison));
  pinned_floats pinned(n);
  std::vector<float> pageable(n, poison);
  sd::cuda_executor ex;
  const std::vector<sd::binding> good{sd::bind("x", x.cget(), n), sd::bind("y", y.get(), n),
                                      sd::bind("h_pinned", pinned.get(), n),
                                      sd::bind("h_pageable", pageable.data(), n)};
  ex.run(spaces, good);
  ex.run(spaces, good);  // the same bindings: served from the cache
  check(cudaDeviceSynchronize(), "sync");
  CHECK(y_right(y));
  std::vector<sd::binding> bad = good;
  std::vector<float> other(n, poison);             // pageable, and apart from h_pageable's memory
  bad[2] = sd::bind("h_pinned", other.data(), n);  // same name, count and type: only the memory differs
  REQUIRE_THROWS_WITH(ex.run(spaces, bad),
                      Catch::Contains("'h_pinned'") && Catch::Contains("cudaMallocHost"));
  ex.run(spaces, good);  // a failed check leaves the executor usable
  check(cudaDeviceSynchronize(), "sync");
  CHECK(y_right(y));
}

namespace {
constexpr int k = 4;
constexpr auto lanes = sd::program([](sd::builder& p) {
  auto x = p.inputs<float>("x", k);
  auto y = p.outputs<float>("y", k);
  auto s = p.streams("s", k);
  for (int i = 0; i < k; ++i) sd::with_stream(s[i], [&] { y[i] = x[i] + static_cast<float>(i); });
});
}  // namespace

TEST_CASE("a family of device buffers binds from (pointer, extent) pairs; a changed member is rechecked",
          "[cuda][family][sanitize]") {
  std::vector<std::unique_ptr<device_buffer<float>>> xs, ys;  // device_buffer does not move
  std::vector<std::pair<const float*, std::size_t>> x_members;
  std::vector<std::pair<float*, std::size_t>> y_members;
  for (int i = 0; i < k; ++i) {
    xs.push_back(std::make_unique<device_buffer<float>>(ramp()));
    ys.push_back(std::make_unique<device_buffer<float>>(std::vector<float>(n, poison)));
    x_members.emplace_back(xs.back()->cget(), n);
    y_members.emplace_back(ys.back()->get(), n);
  }
  sd::cuda_executor ex;
  ex.run(lanes, sd::bind("x", x_members), sd::bind("y", y_members));
  ex.run(lanes, sd::bind("x", x_members), sd::bind("y", y_members));  // cached
  for (int i = 0; i < k; ++i) {
    const auto got = ys[static_cast<std::size_t>(i)]->download();
    for (std::size_t j = 0; j < n; ++j) REQUIRE(got[j] == static_cast<float>(j) + static_cast<float>(i));
  }
  // One member moved to host memory: the cache compares members, so the
  // space check runs again and names the member.
  std::vector<float> host(n, poison);
  auto moved = y_members;
  moved[2].first = host.data();
  REQUIRE_THROWS_WITH(
      ex.run(lanes, sd::bind("x", x_members), sd::bind("y", moved)),
      Catch::Contains("output buffer 'y[2]' (float, domain 'n') is bound to pageable host memory"));
  y_members.pop_back();
  REQUIRE_THROWS_WITH(
      ex.run(lanes, sd::bind("x", x_members), sd::bind("y", y_members)),
      Catch::Contains("output buffer family 'y' (4 members, float, domain 'n') is bound to 3 members"));
}
