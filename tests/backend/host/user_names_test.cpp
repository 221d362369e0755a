// Including the host executor leaves the global namespace to the user: POSIX
// names such as pipe, read, write and sleep are free (<unistd.h> once came
// with it, and `constexpr auto pipe = sd::program(...)` did not compile).
// This file compiling is the test; host_executor_only_test.cpp runs what it
// declares. It includes nothing else: Catch2 itself includes <unistd.h>.
#include <streamdsl/backend/host/host_executor.hpp>
#include <streamdsl/streamdsl.hpp>

constexpr auto pipe = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  y = x * 2;
});
constexpr int read = 1, write = 2, close = 3, sleep = 4, dup = 5, fork = 6, link = 7, unlink = 8, access = 9,
              alarm = 10, pause = 11, sync = 12, chdir = 13, getpid = 14, sysconf = 15, usleep = 16,
              optarg = 17;

namespace host_test {
// y = 2x over {1, 2, 3, the sum of the names above (153)}: returns y[3].
float run_program_named_pipe() {
  float x[4] = {1, 2, 3,
                read + write + close + sleep + dup + fork + link + unlink + access + alarm + pause + sync +
                    chdir + getpid + sysconf + usleep + optarg};
  float y[4] = {};
  sd::host_executor ex;
  ex.run(pipe, sd::bind("x", x), sd::bind("y", y));
  return y[3];
}
}  // namespace host_test
