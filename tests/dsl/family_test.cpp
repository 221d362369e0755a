// Families of handles: p.inputs<float>("x", k) declares x[0] ... x[k-1];
// x[i] is an ordinary handle; an index outside the family, a family of no
// members and a name taken twice are errors that name the family.
#include <catch2/catch.hpp>
#include <cstddef>
#include <streamdsl/streamdsl.hpp>
#include <string>
#include <type_traits>

namespace {

using sd::ir::access;
using sd::ir::memory_space;

constexpr int k = 4;

constexpr auto pipeline = sd::program([](sd::builder& p) {
  auto m = p.domain("m");
  auto x = p.inputs<float>("x", k);
  auto y = p.outputs<float>("y", k);
  auto h = p.inouts<double, sd::pinned>("h", 2, m);
  auto t = p.temps<float>("t", k);
  auto s = p.streams("s", 2);
  auto done = p.events("done", 2);
  for (int i = 0; i < k; ++i) {
    sd::with_stream(s[i % 2], [&] {
      t[i] = x[i] * 2;
      y[i] = t[i] + 1;
    });
  }
  for (std::size_t j = 0; j < 2; ++j) sd::with_stream(s[j], [&] { done[j].record(); });
  done[0].wait();
  done[1].wait();
  (void)h;
});

template <class F>
sd::ir::error_record first_error(F body) {
  sd::builder b;
  body(b);
  REQUIRE(!b.ir().ok());
  return b.ir().errors[0];
}

std::string name_of_buffer(const sd::ir::program& ir, std::size_t b) {
  const auto n = ir.name(ir.buffers[b].name);
  return std::string(n.data(), n.size());
}

}  // namespace

TEST_CASE("a family's members are handles of their kind, named x[i]", "[dsl][family]") {
  sd::builder b;
  auto x = b.inputs<float, sd::pinned>("x", 3);
  auto t = b.temps<int>("t", 2);
  auto s = b.streams("s", 2);
  auto e = b.events("e", 2);
  STATIC_REQUIRE(std::is_same_v<decltype(x[0]), sd::input<float, sd::pinned>>);
  STATIC_REQUIRE(std::is_same_v<decltype(t[1]), sd::temp<int>>);
  STATIC_REQUIRE(std::is_same_v<decltype(s[1]), sd::stream>);
  STATIC_REQUIRE(std::is_same_v<decltype(e[1u]), sd::event>);
  CHECK(x.size() == 3);
  REQUIRE(b.ir().buffers.size() == 5);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& info = b.ir().buffers[i];
    CHECK(name_of_buffer(b.ir(), i) == "x[" + std::to_string(i) + "]");
    CHECK(info.kind == access::input);
    CHECK(info.space == memory_space::pinned);
    CHECK(info.family_index == static_cast<int>(i));
    CHECK(info.family_size == 3);
    CHECK(x[i].id() == static_cast<int>(i));
  }
  CHECK(b.ir().buffers[3].family_index == 0);  // t[0]
  CHECK(b.ir().name(b.ir().streams[2].name) == sd::detail::string_view("s[1]"));
  CHECK(b.ir().name(b.ir().events[1].name) == sd::detail::string_view("e[1]"));
  CHECK(b.ir().ok());
}

TEST_CASE("a plain buffer is no family member", "[dsl][family]") {
  sd::builder b;
  b.input<float>("x");
  CHECK(b.ir().buffers[0].family_index == -1);
  CHECK(b.ir().buffers[0].family_size == 0);
}

TEST_CASE("a program over families compiles; the dump and the plan name the members", "[dsl][family]") {
  const std::string text = pipeline.to_string();
  CHECK_THAT(text, Catch::Contains("t[3] = x[3] * 2;  // register\n      y[3] = t[3] + 1;\n"));
  CHECK_THAT(text, Catch::Contains("stream s[1]:"));
  CHECK_THAT(text, Catch::Contains("record done[1]"));
  CHECK_THAT(text, Catch::Contains("pinned inout double h[1][m]"));
  constexpr auto plan = pipeline.plan();
  STATIC_REQUIRE(plan.buffer_id("x[2]") == 2);
  STATIC_REQUIRE(plan.ir.buffers[plan.buffer_id("h[1]")].domain == 1);
  STATIC_REQUIRE(plan.stream_count() == 3);
}

TEST_CASE("an index outside the family is an error naming the family", "[dsl][family]") {
  const auto e = first_error([](sd::builder& p) {
    auto x = p.inputs<float>("x", 4);
    auto y = p.output<float>("y");
    y = x[0] + x[3];
    y = x[4] * 2;
  });
  CHECK(e.kind == sd::diag::error_kind::family_index_out_of_range);
  CHECK_THAT(
      std::string(e.message.view()),
      Catch::Equals("x[4] is out of range: the input buffer family 'x' has 4 members, x[0] to x[3] "
                    "(indexed where statement #1 on stream 'main' is written); keep the index below the "
                    "family's size, or declare the family with more members"));

  const auto negative = first_error([](sd::builder& p) {
    auto s = p.streams("lanes", 2);
    (void)s[-1];
  });
  CHECK(negative.kind == sd::diag::error_kind::family_index_out_of_range);
  CHECK(negative.message.contains("lanes[-1] is out of range: the stream family 'lanes' has 2 members"));

  const auto huge = first_error([](sd::builder& p) {
    auto e = p.events("e", 1);
    (void)e[std::size_t(-1)];  // an unsigned index past int64's range is out of range too
  });
  CHECK(huge.kind == sd::diag::error_kind::family_index_out_of_range);
  CHECK(huge.message.contains("the event family 'e' has 1 member, e[0] to e[0]"));
}

TEST_CASE("an out-of-range index leaves the program well formed", "[dsl][family]") {
  // x[9] stands for x[0] after the error, so the statements that use it are
  // still written (a later error would otherwise read past the buffers).
  sd::builder b;
  auto x = b.outputs<float>("x", 2);
  x[9] = x[1] * 2;
  REQUIRE(b.ir().errors.size() == 1);
  CHECK(b.ir().stmts.size() == 1);
  CHECK(b.ir().stmts[0].target == 0);
}

TEST_CASE("a family of fewer than one member is an error", "[dsl][family]") {
  const auto e = first_error([](sd::builder& p) { p.inputs<float>("x", 0); });
  CHECK(e.kind == sd::diag::error_kind::bad_family_size);
  CHECK_THAT(
      std::string(e.message.view()),
      Catch::Equals("the input buffer family 'x' is declared with 0 members; a family has 1 to 1048576 "
                    "members, x[0] to x[k-1] for a size k"));
  const auto neg = first_error([](sd::builder& p) { (void)p.events("ev", -3)[0]; });
  CHECK(neg.kind == sd::diag::error_kind::bad_family_size);
  CHECK(neg.message.contains("the event family 'ev' is declared with -3 members"));
  // Indexing the family afterwards is safe (its one stand-in member).
  sd::builder b;
  auto s = b.streams("s", -1);
  CHECK(s.size() == 1);
  sd::with_stream(s[0], [] {});
  CHECK(b.ir().errors.size() == 1);
}

TEST_CASE("a family's name is declared like any other", "[dsl][family]") {
  const auto after_buffer = first_error([](sd::builder& p) {
    p.input<float>("x");
    p.outputs<float>("x", 2);
  });
  CHECK(after_buffer.kind == sd::diag::error_kind::duplicate_name);
  CHECK(after_buffer.message.contains(
      "duplicate name 'x': the output buffer family 'x' reuses the name of the earlier input buffer"));

  const auto before_event = first_error([](sd::builder& p) {
    p.streams("s", 2);
    p.event("s");
  });
  CHECK(before_event.kind == sd::diag::error_kind::duplicate_name);
  CHECK(before_event.message.contains("the event 's' reuses the name of the earlier stream family"));

  const auto invalid = first_error([](sd::builder& p) { p.inputs<float>("x[0]", 2); });
  CHECK(invalid.kind == sd::diag::error_kind::invalid_name);
  CHECK(invalid.message.contains("invalid input buffer family name 'x[0]'"));

  const auto reserved = first_error([](sd::builder& p) { p.streams("main", 2); });
  CHECK(reserved.kind == sd::diag::error_kind::reserved_name);

  // A member's name cannot be declared: '[' is no identifier character.
  const auto member = first_error([](sd::builder& p) {
    p.inputs<float>("x", 2);
    p.input<float>("x[1]");
  });
  CHECK(member.kind == sd::diag::error_kind::invalid_name);
}
