// N streams each write an output and one statement on main joins them, under
// sd::automatic: the scheduler inserts a wait per stream. Compiled by ctest
// (tests/CMakeLists.txt) with each compiler's DEFAULT constant-evaluation
// limits, not the raised ones of the streamdsl target: a pass whose cost grows
// faster than streams x statements fails here (it did at 60 streams: the
// redundant-wait groups were cubic, and the plan's bounds quadratic).
#include <streamdsl/streamdsl.hpp>

#ifndef STREAMS
#define STREAMS 128
#endif

// "o17" and "s17", made once at compile time for the capture-less program
// lambda (the builder copies each name it is given: dsl/name_table.hpp).
struct name_table {
  char text[2][STREAMS][5]{};
};
constexpr name_table make_names() {
  name_table t;
  for (int i = 0; i < STREAMS; ++i)
    for (int k = 0; k < 2; ++k) {
      char* out = t.text[k][i];
      int n = 0;
      out[n++] = k == 0 ? 'o' : 's';
      if (i >= 100) out[n++] = static_cast<char>('0' + i / 100);
      if (i >= 10) out[n++] = static_cast<char>('0' + i / 10 % 10);
      out[n++] = static_cast<char>('0' + i % 10);
    }
  return t;
}
constexpr name_table names = make_names();

constexpr auto joined = sd::program<sd::automatic>([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto sum = x * 1.0f;
  for (int i = 0; i < STREAMS; ++i) {
    auto o = p.output<float>(names.text[0][i]);
    auto s = p.stream(names.text[1][i]);
    sd::with_stream(s, [&] { o = x + static_cast<float>(i); });
    sum = sum + o;
  }
  y = sum;
});
static_assert(joined.plan().stream_count() == STREAMS + 1);
static_assert(joined.plan().waits("main") == STREAMS);  // one per stream joined
static_assert(joined.plan().kernel_count() == STREAMS + 1);

int main() { return 0; }
