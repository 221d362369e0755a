// A small fuzzer aimed at the memory plan's slot sharing: programs of up to
// 34 statements over 12 temps, each written and read within a short window
// (so temps die and slots are reused), chunks of 1, 2, 3, 4 or 6 parts of
// one domain written and read on up to 4 streams, copies between chunks,
// 0-d broadcasts and wait_stream; scheduled with sd::automatic alone or with
// relaxed, no_fusion or as_written; each run plain and under stress, the
// outputs compared with a sequential evaluation. STREAMDSL_SLOT_FUZZ sets the
// number of programs (default 300; 60,000 found nothing at commit 4d5c001).
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <streamdsl/backend/host/host_executor.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>
#include <vector>

namespace {
struct rng {
  unsigned long long s;
  unsigned long long next() {
    s += 0x9e3779b97f4a7c15ull;
    auto z = s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  int below(int n) { return static_cast<int>(next() % static_cast<unsigned long long>(n)); }
};

constexpr int NX = 2, NY = 2, NT = 12, CELLS = 24;
constexpr int partsets[] = {1, 2, 3, 4, 6};

struct reg {
  int buf;
  int part;
  int parts;
};  // buf: 0..NX-1 inputs, NX.. outputs, NX+NY.. temps
struct stmt {
  int kind;
  int stream;
  reg dst;
  reg a;
  reg b;
  bool two;
  float c;
  bool sc;
  int ws;
};

int fuzz(int first, int count) {
  const bool verbose = false;
  int bad = 0;
  for (int seed = first; seed < first + count; ++seed) {
    rng r{static_cast<unsigned long long>(seed) * 7919};
    const int S = 1 + r.below(4), L = 4 + r.below(30);
    const int opt = r.below(5);
    std::vector<stmt> prog;
    std::vector<std::vector<bool>> cov(NT, std::vector<bool>(CELLS, false));
    auto covered = [&](const reg& g) {
      if (g.buf < NX + NY) return true;
      const int w = CELLS / g.parts;
      for (int c = g.part * w; c < (g.part + 1) * w; ++c)
        if (!cov[g.buf - NX - NY][c]) return false;
      return true;
    };
    auto mark = [&](const reg& g) {
      if (g.buf < NX + NY) return;
      const int w = CELLS / g.parts;
      for (int c = g.part * w; c < (g.part + 1) * w; ++c) cov[g.buf - NX - NY][c] = true;
    };
    for (int tries = 0; static_cast<int>(prog.size()) < L && tries < 1000; ++tries) {
      stmt s{};
      s.kind = r.below(3) == 0 ? 1 : 0;
      s.stream = r.below(S);
      const int k = partsets[r.below(5)];
      const int w = static_cast<int>(prog.size()) * (NT - 3) / L;
      auto pick_buf = [&](bool src) {
        if (r.below(3) == 0) return src ? r.below(NX + NY) : NX + r.below(NY);
        int t = w - (src ? 2 : 0) + r.below(src ? 5 : 3);
        if (t < 0) t = 0;
        if (t >= NT) t = NT - 1;
        return NX + NY + t;
      };
      auto pick_src = [&]() {
        reg g{pick_buf(true), r.below(k), k};
        return g;
      };
      s.dst = {pick_buf(false), r.below(k), k};
      s.a = pick_src();
      s.b = pick_src();
      s.two = r.below(2);
      s.c = static_cast<float>(r.below(5));
      s.sc = r.below(3) == 0;
      s.ws = r.below(6) == 0 ? r.below(S) : -1;
      if (!covered(s.a) || (s.kind == 0 && s.two && !covered(s.b))) continue;
      if (s.kind == 1) {
        if (s.a.buf == s.dst.buf && s.a.part == s.dst.part) continue;
      }
      prog.push_back(s);
      mark(s.dst);
    }
    // Build
    sd::builder p;
    std::vector<sd::input<float>> xs;
    std::vector<sd::output<float>> ys;
    std::vector<sd::temp<float>> ts;
    for (int i = 0; i < NX; ++i) xs.push_back(p.input<float>(("x" + std::to_string(i)).c_str()));
    for (int i = 0; i < NY; ++i) ys.push_back(p.output<float>(("y" + std::to_string(i)).c_str()));
    for (int i = 0; i < NT; ++i) ts.push_back(p.temp<float>(("t" + std::to_string(i)).c_str()));
    auto s0 = p.input<float>("s0", sd::scalar);
    std::vector<sd::stream> st{p.main_stream()};
    for (int i = 1; i < S; ++i) st.push_back(p.stream(("s" + std::to_string(i)).c_str()));
    auto with_chunk = [&](const reg& g, auto f) {
      if (g.buf < NX) return f(xs[g.buf].chunk(g.part, g.parts));
      if (g.buf < NX + NY) return f(ys[g.buf - NX].chunk(g.part, g.parts));
      return f(ts[g.buf - NX - NY].chunk(g.part, g.parts));
    };
    for (const auto& s : prog) {
      if (s.ws >= 0 && s.ws != s.stream) st[s.stream].wait_stream(st[s.ws]);
      sd::with_stream(st[s.stream], [&] {
        with_chunk(s.dst, [&](auto d) {
          with_chunk(s.a, [&](auto a) {
            if (s.kind == 1) {
              sd::copy(d, a);
              return;
            }
            if (s.two)
              with_chunk(s.b, [&](auto b) { d = a * 0.5f + b + s.c; });
            else if (s.sc)
              d = a * s0 + s.c;
            else
              d = a + s.c;
          });
        });
      });
    }
    if (!p.ir().ok()) {
      if (verbose)
        std::printf("seed %d: build error %s\n", seed, std::string(p.ir().errors[0].message.view()).c_str());
      continue;
    }
    const sd::options o = opt == 0   ? sd::automatic
                          : opt == 1 ? (sd::automatic | sd::relaxed)
                          : opt == 2 ? (sd::automatic | sd::no_fusion)
                          : opt == 3 ? (sd::automatic | sd::as_written)
                                     : (sd::automatic | sd::relaxed | sd::no_fusion);
    auto m = sd::passes::schedule(static_cast<sd::builder&&>(p).ir(), o);
    if (!m.ir.ok()) {
      std::printf("seed %d: schedule error %s\n", seed, std::string(m.ir.errors[0].message.view()).c_str());
      ++bad;
      continue;
    }
    // Reference
    const std::size_t n = 48;
    std::vector<std::vector<float>> mem(NX + NY + NT, std::vector<float>(n, 0.0f));
    for (int i = 0; i < NX; ++i)
      for (std::size_t e = 0; e < n; ++e) mem[i][e] = static_cast<float>((e * 7 + i * 13) % 31);
    for (int i = 0; i < NY; ++i)
      for (std::size_t e = 0; e < n; ++e) mem[NX + i][e] = -1.0f - static_cast<float>(i);
    const auto init = mem;
    for (const auto& s : prog) {
      const std::size_t q = n / s.dst.parts;
      std::vector<float> v(q);
      for (std::size_t e = 0; e < q; ++e) {
        const float a = mem[s.a.buf][s.a.part * q + e];
        if (s.kind == 1)
          v[e] = a;
        else if (s.two)
          v[e] = a * 0.5f + mem[s.b.buf][s.b.part * q + e] + s.c;
        else if (s.sc)
          v[e] = a * 3.0f + s.c;
        else
          v[e] = a + s.c;
      }
      for (std::size_t e = 0; e < q; ++e) mem[s.dst.buf][s.dst.part * q + e] = v[e];
    }
    const auto plan = sd::view_of(m);
    for (int run = 0; run < 6; ++run) {
      std::vector<std::vector<float>> got(init.begin(), init.begin() + NX + NY);
      std::vector<sd::binding> list;
      for (int i = 0; i < NX; ++i)
        list.push_back(sd::bind(("x" + std::to_string(i)).c_str(), std::span<const float>(got[i])));
      std::vector<float> s0v{3.0f};
      list.push_back(sd::bind("s0", s0v));
      for (int i = 0; i < NY; ++i) list.push_back(sd::bind(i == 0 ? "y0" : "y1", got[NX + i]));
      try {
        if (run == 0) {
          sd::host_executor ex;
          ex.run(plan, list);
        } else {
          sd::host_executor ex(sd::stress{static_cast<std::uint64_t>(run)});
          ex.run(plan, list);
        }
      } catch (const std::exception& e) {
        std::printf("seed %d: run threw %s\n", seed, e.what());
        ++bad;
        break;
      }
      bool same = true;
      for (int i = 0; i < NY; ++i) same = same && got[NX + i] == mem[NX + i];
      if (!same) {
        std::printf("seed %d (S=%d L=%zu opt=%d run=%d): MISMATCH\n", seed, S, prog.size(), opt, run);
        if (verbose) std::puts(std::string(sd::dump(plan).view()).c_str());
        ++bad;
        break;
      }
    }
  }
  return bad;
}
}  // namespace

TEST_CASE("slot-sharing fuzz: chunked temps, copies, broadcasts on several streams", "[hunt][fuzz]") {
  const char* env = std::getenv("STREAMDSL_SLOT_FUZZ");
  CHECK(fuzz(1, env ? std::atoi(env) : 300) == 0);
}
