// Stress mode: seeded random delays before every operation of every stream.
// Correctly synchronised programs give the right result under every seed
// (the negative control, a program missing its wait, is in
// race_negative_control_test.cpp).
#include <catch2/catch.hpp>
#include <streamdsl/backend/host/host_executor.hpp>

#include "host_test_support.hpp"
#include "test_programs.hpp"

using host_test::ramp;

TEST_CASE("stress delays are a function of seed, run and stream, within the bound", "[host][stress]") {
  const sd::stress s{42, 20};
  sd::host_detail::delay_source a(s, 3, 1), b(s, 3, 1), other_stream(s, 3, 2), other_run(s, 4, 1);
  int same_stream = 0, same_run = 0;
  for (int i = 0; i < 200; ++i) {
    const auto d = a.next_delay_us();
    CHECK(d <= 20);
    CHECK(d == b.next_delay_us());
    same_stream += d == other_stream.next_delay_us();
    same_run += d == other_run.next_delay_us();
  }
  CHECK(same_stream < 50);  // independent sequences agree about 1 time in 21
  CHECK(same_run < 50);
}

TEST_CASE("synchronised programs are right under every stress seed", "[host][stress]") {
  constexpr std::size_t n = 3000;
  const auto x = ramp<float>(n, 0.0f, 1.0f);
  const auto xi = ramp<std::int32_t>(n, -1500, 1);
  std::size_t wrong = 0;
  for (std::uint64_t seed = 1; seed <= 25; ++seed) {
    sd::host_executor ex(sd::stress{seed, 30});
    {
      std::vector<float> y(n, -1.0f), z(n, -1.0f);
      ex.run(host_test::seed, sd::bind("x", x), sd::bind("y", y), sd::bind("z", z));
      for (std::size_t i = 0; i < n; ++i) wrong += z[i] != (x[i] + 1) * 2;
    }
    {
      std::vector<float> a(n), b(n), c(n, -1.0f), d(n);
      ex.run(host_test::rerecorded, sd::bind("x", x), sd::bind("a", a), sd::bind("b", b), sd::bind("c", c),
             sd::bind("d", d));
      for (std::size_t i = 0; i < n; ++i) wrong += d[i] != (x[i] + 5) + (x[i] + 1) * 2;
    }
    {
      std::vector<std::vector<std::int32_t>> y(8, std::vector<std::int32_t>(n, -7));
      std::vector<std::int32_t> z(n);
      std::vector<sd::binding> list{sd::bind("x", xi), sd::bind("z", z)};
      for (std::size_t k = 0; k < 8; ++k) list.push_back(sd::bind(host_test::buffer_names[k], y[k]));
      ex.run(host_test::many_streams, list);
      for (std::size_t i = 0; i < n; ++i) wrong += z[i] != xi[i] * 29 + 28;
    }
  }
  CHECK(wrong == 0);
}
