// join_row_groups: reductions along the last axis and the kernels over the
// matrix or its rows around them, one stream, no sync between, become one
// row group (one kernel on the GPU); anything else splits a group.
#include <catch2/catch.hpp>
#include <streamdsl/backend/host/host_executor.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>

namespace {

// The plan's ops in order: K kernel, S step, R record, W wait, a row group in [ ].
std::string groups(const sd::plan_view& p) {
  std::string out;
  std::size_t end = 0;
  for (std::size_t i = 0; i < p.ops.size(); ++i) {
    const auto& op = p.ops[i];
    if (op.group > 1) {
      out += '[';
      end = i + static_cast<std::size_t>(op.group);
    }
    switch (op.kind) {
      case sd::op_kind::kernel: out += 'K'; break;
      case sd::op_kind::step: out += 'S'; break;
      case sd::op_kind::record: out += 'R'; break;
      case sd::op_kind::wait: out += 'W'; break;
    }
    if (i + 1 == end) out += ']';
  }
  return out;
}

constexpr auto softmax_body = [](sd::builder& p) {
  auto rows = p.domain("rows");
  auto cols = p.domain("cols");
  auto x = p.input<float>("x", rows, cols);
  auto y = p.output<float>("y", rows, cols);
  auto top = p.temp<float>("top", rows);
  auto total = p.temp<float>("total", rows);
  top = sd::max(x, cols);
  total = sd::sum(sd::exp(x - top), cols);
  y = sd::exp(x - top) / total;
};

constexpr auto softmax = sd::program(softmax_body);
constexpr auto softmax_no_fusion = sd::program<sd::no_fusion>(softmax_body);
constexpr auto softmax_as_written = sd::program<sd::as_written>(softmax_body);

// Layer norm with its rows' statistics kernel (rstd over rows) inside.
constexpr auto layer_norm = sd::program([](sd::builder& p) {
  auto rows = p.domain("rows");
  auto cols = p.domain("cols");
  auto x = p.input<float>("x", rows, cols);
  auto gamma = p.input<float>("gamma", cols);
  auto beta = p.input<float>("beta", cols);
  auto eps = p.param<float>("eps");
  auto y = p.output<float>("y", rows, cols);
  auto mu = p.temp<float>("mu", rows);
  auto var = p.temp<float>("var", rows);
  auto rstd = p.temp<float>("rstd", rows);
  mu = sd::mean(x, cols);
  var = sd::mean((x - mu) * (x - mu), cols);
  rstd = sd::rsqrt(var + eps);
  y = (x - mu) * rstd * gamma + beta;
});

}  // namespace

TEST_CASE("row groups: a softmax is one group", "[passes][row_groups]") {
  CHECK(groups(softmax.plan()) == "[SSK]");
  const std::string text = softmax.to_string().c_str();
  CHECK(text.find("row group of 3 ops") != std::string::npos);
  // sd::no_fusion and sd::as_written keep the ops apart.
  CHECK(groups(softmax_no_fusion.plan()) == "SSK");
  CHECK(groups(softmax_as_written.plan()) == "SSK");
}

TEST_CASE("row groups: a layer norm, with a kernel over the rows, is one group", "[passes][row_groups]") {
  CHECK(groups(layer_norm.plan()) == "[SSKK]");
}

TEST_CASE("row groups: what splits a group", "[passes][row_groups]") {
  // A scan along the rows between the reductions.
  constexpr auto scan = sd::program([](sd::builder& p) {
    auto rows = p.domain("rows");
    auto cols = p.domain("cols");
    auto x = p.input<float>("x", rows, cols);
    auto c = p.output<float>("c", rows, cols);
    auto top = p.output<float>("top", rows);
    auto y = p.output<float>("y", rows, cols);
    auto total = p.temp<float>("total", rows);
    top = sd::max(x, cols);
    c = sd::inclusive_sum(x, cols);
    total = sd::sum(sd::exp(x - top), cols);
    y = sd::exp(x - top) / total;
  });
  CHECK(groups(scan.plan()) == "SS[SK]");

  // A wait between two members (for a row another stream computes).
  constexpr auto synced = sd::program([](sd::builder& p) {
    auto rows = p.domain("rows");
    auto cols = p.domain("cols");
    auto x = p.input<float>("x", rows, cols);
    auto h = p.input<float>("h", cols);
    auto y = p.output<float>("y", rows, cols);
    auto g = p.temp<float>("g", cols);
    auto top = p.temp<float>("top", rows);
    auto total = p.temp<float>("total", rows);
    auto side = p.stream("side");
    auto e = p.event("e");
    top = sd::max(x, cols);
    sd::with_stream(side, [&] {
      g = h * 2;
      e.record();
    });
    e.wait();
    total = sd::sum(sd::exp(x - top), cols);
    y = sd::exp(x - top) / total * g;
  });
  const auto synced_groups = groups(synced.plan());
  INFO(synced_groups);
  CHECK(synced_groups.find("W[SK]") != std::string::npos);
  CHECK(synced_groups.find('[') == synced_groups.rfind('['));

  // Two streams: each stream's share is its own group, never one across them.
  constexpr auto two = sd::program<sd::automatic>([](sd::builder& p) {
    auto rows = p.domain("rows");
    auto cols = p.domain("cols");
    auto x = p.input<float>("x", rows, cols);
    auto a = p.output<float>("a", rows);
    auto b = p.output<float>("b", rows);
    auto side = p.stream("side");
    a = sd::max(x, cols);
    sd::with_stream(side, [&] { b = sd::min(x, cols); });
  });
  const auto two_groups = groups(two.plan());
  CHECK(two_groups.find('[') == std::string::npos);

  // A square matrix: a rank-1 value is a row of it, read by every row.
  constexpr auto square = sd::program([](sd::builder& p) {
    auto n = p.domain("m");
    auto x = p.input<float>("x", n, n);
    auto y = p.output<float>("y", n, n);
    auto top = p.temp<float>("top", n);
    top = sd::max(x, n);
    y = x - top;
  });
  CHECK(groups(square.plan()) == "SK");

  // A whole-buffer reduction is no member.
  constexpr auto whole = sd::program([](sd::builder& p) {
    auto rows = p.domain("rows");
    auto cols = p.domain("cols");
    auto x = p.input<float>("x", rows, cols);
    auto s = p.output<float>("s", sd::scalar);
    auto y = p.output<float>("y", rows, cols);
    s = sd::sum(x);
    y = x / s;
  });
  CHECK(groups(whole.plan()) == "SK");
}

TEST_CASE("row groups: a matrix temp read only inside the rows is recomputed, never stored",
          "[passes][row_groups]") {
  constexpr auto with_temp = sd::program([](sd::builder& p) {
    auto rows = p.domain("rows");
    auto cols = p.domain("cols");
    auto x = p.input<float>("x", rows, cols);
    auto y = p.output<float>("y", rows, cols);
    auto m = p.temp<float>("m", rows);
    auto e = p.temp<float>("e", rows, cols);
    auto s = p.temp<float>("s", rows);
    m = sd::max(x, cols);
    e = sd::exp(x - m);
    s = sd::sum(e, cols);
    y = e / s;
  });
  CHECK(groups(with_temp.plan()) == "[SSK]");
  const std::string text = with_temp.to_string().c_str();
  INFO(text);
  CHECK(text.find("s = sd::sum(exp(x - m), cols)") != std::string::npos);
  CHECK(text.find("recomputed in each of its readers") != std::string::npos);
  CHECK(with_temp.plan().slot_count() == 2);  // m and s; no matrix slot

  // Read after the rows (a whole-buffer sum): stored as written.
  constexpr auto read_after = sd::program([](sd::builder& p) {
    auto rows = p.domain("rows");
    auto cols = p.domain("cols");
    auto x = p.input<float>("x", rows, cols);
    auto y = p.output<float>("y", rows, cols);
    auto all = p.output<float>("all", sd::scalar);
    auto m = p.temp<float>("m", rows);
    auto e = p.temp<float>("e", rows, cols);
    auto s = p.temp<float>("s", rows);
    m = sd::max(x, cols);
    e = sd::exp(x - m);
    s = sd::sum(e, cols);
    y = e / s;
    all = sd::sum(e);
  });
  const std::string kept = read_after.to_string().c_str();
  INFO(kept);
  CHECK(kept.find("e = exp(x - m);") != std::string::npos);

  // What the temp's expression reads is written in between: stored.
  constexpr auto overwritten = sd::program([](sd::builder& p) {
    auto rows = p.domain("rows");
    auto cols = p.domain("cols");
    auto x = p.inout<float>("x", rows, cols);
    auto y = p.output<float>("y", rows, cols);
    auto m = p.temp<float>("m", rows);
    auto e = p.temp<float>("e", rows, cols);
    auto s = p.temp<float>("s", rows);
    m = sd::max(x, cols);
    e = sd::exp(x - m);
    x = x * 2;
    s = sd::sum(e, cols);
    y = e / s;
  });
  const std::string stored = overwritten.to_string().c_str();
  INFO(stored);
  CHECK(stored.find("e = exp(x - m);") != std::string::npos);
}

TEST_CASE("row groups: the host executor runs a group's ops in turn", "[passes][row_groups]") {
  constexpr std::size_t R = 3, C = 5;
  float x[R * C], y[R * C];
  for (std::size_t i = 0; i < R * C; ++i) x[i] = static_cast<float>(i % 7) - 3.0f;
  sd::host_executor ex;
  ex.run(softmax, sd::bind("x", static_cast<const float*>(x), R, C), sd::bind("y", y, R, C));
  for (std::size_t r = 0; r < R; ++r) {
    float sum = 0;
    for (std::size_t j = 0; j < C; ++j) sum += y[r * C + j];
    CHECK(sum == Approx(1.0f).epsilon(1e-5));
  }
}
