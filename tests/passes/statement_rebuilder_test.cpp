// statement_rebuilder alone: statements dropped, added and moved while every
// wait stays bound to its record.
#include <catch2/catch.hpp>
#include <streamdsl/streamdsl.hpp>

namespace {

using sd::ir::statement;
using sd::ir::stmt_kind;

constexpr statement assign(std::int32_t stream) {
  statement s{};
  s.kind = stmt_kind::assign;
  s.stream = stream;
  return s;
}
constexpr statement record(std::int32_t stream, std::int32_t event) {
  statement s{};
  s.kind = stmt_kind::record;
  s.stream = stream;
  s.event = event;
  return s;
}
constexpr statement wait(std::int32_t stream, std::int32_t event, std::int32_t binds) {
  statement s{};
  s.kind = stmt_kind::wait;
  s.stream = stream;
  s.event = event;
  s.binds = binds;
  return s;
}

// 0: assign on 1, 1: record e0 on 1, 2: assign on 0, 3: wait e0 on 0 (binds 1)
constexpr sd::detail::dyn_array<statement> four() {
  sd::detail::dyn_array<statement> in;
  in.push_back(assign(1));
  in.push_back(record(1, 0));
  in.push_back(assign(0));
  in.push_back(wait(0, 0, 1));
  return in;
}

// What the tests look at of a finished list (a dyn_array cannot leave a
// constant evaluation).
struct listed {
  std::size_t size = 0;
  stmt_kind kind[8]{};
  std::int32_t event[8]{};
  std::int32_t binds[8]{};
};
constexpr listed summary(const sd::detail::dyn_array<statement>& out) {
  listed l;
  l.size = out.size();
  for (std::size_t i = 0; i < out.size() && i < 8; ++i) {
    l.kind[i] = out[i].kind;
    l.event[i] = out[i].event;
    l.binds[i] = out[i].binds;
  }
  return l;
}

}  // namespace

TEST_CASE("statement_rebuilder: a copied wait is renumbered to where its record went",
          "[passes][statement_rebuilder]") {
  constexpr auto out = [] {
    const auto in = four();
    sd::passes::statement_rebuilder r(in.size());
    r.copy(1, in[1]);  // the first assignment is dropped: the record moves from 1 to 0
    r.copy(2, in[2]);
    r.copy(3, in[3]);
    return summary(r.finish());
  }();
  STATIC_REQUIRE(out.size == 3);
  STATIC_REQUIRE(out.kind[0] == stmt_kind::record);
  STATIC_REQUIRE(out.kind[2] == stmt_kind::wait);
  STATIC_REQUIRE(out.binds[2] == 0);
}

TEST_CASE("statement_rebuilder: new_index says where each old statement went, -1 if dropped",
          "[passes][statement_rebuilder]") {
  constexpr auto where = [] {
    const auto in = four();
    sd::passes::statement_rebuilder r(in.size());
    r.copy(2, in[2]);  // moved before the record
    r.copy(1, in[1]);
    r.copy(3, in[3]);
    return r.new_index(0) * 1000 + r.new_index(1) * 100 + r.new_index(2) * 10 + r.new_index(3);
  }();
  STATIC_REQUIRE(where == -1000 + 100 + 0 + 2);
}

TEST_CASE("statement_rebuilder: an added wait keeps the new-list index it was given",
          "[passes][statement_rebuilder]") {
  constexpr auto out = [] {
    const auto in = four();
    sd::passes::statement_rebuilder r(in.size());
    r.copy(0, in[0]);
    const auto rec = r.add(record(1, 1));  // new record at 1
    r.copy(1, in[1]);                      // old record 1 goes to 2
    r.copy(2, in[2]);
    r.add(wait(0, 1, rec));  // binds 1 in the NEW list: must not be renumbered as old index 1
    r.copy(3, in[3]);        // old wait binds old 1 -> new 2
    return summary(r.finish());
  }();
  STATIC_REQUIRE(out.size == 6);
  STATIC_REQUIRE(out.binds[4] == 1);
  STATIC_REQUIRE(out.binds[5] == 2);
  STATIC_REQUIRE(out.event[1] == 1);
  STATIC_REQUIRE(out.event[2] == 0);
}

TEST_CASE("statement_rebuilder: an added wait left unbound stays unbound for its pass to bind",
          "[passes][statement_rebuilder]") {
  constexpr auto out = [] {
    const auto in = four();
    sd::passes::statement_rebuilder r(in.size());
    r.add(wait(0, 2, -1));
    r.copy(1, in[1]);
    r.copy(3, in[3]);
    return summary(r.finish());
  }();
  STATIC_REQUIRE(out.binds[0] == -1);
  STATIC_REQUIRE(out.binds[2] == 1);
}

#ifndef NDEBUG
namespace {
template <bool>
struct constant {};
// Whether f() is a constant expression: the debug check makes finish() of a
// wait whose record was dropped fail constant evaluation.
template <class F>
constexpr bool is_constant(F) {
  return requires { typename constant<(F{}(), true)>; };
}
}  // namespace

TEST_CASE("statement_rebuilder: copying a wait without its record fails in debug builds",
          "[passes][statement_rebuilder]") {
  constexpr auto dropped_record = [] {
    const auto in = four();
    sd::passes::statement_rebuilder r(in.size());
    r.copy(2, in[2]);
    r.copy(3, in[3]);  // binds old 1, which is not copied
    return r.finish().size();
  };
  constexpr auto kept_record = [] {
    const auto in = four();
    sd::passes::statement_rebuilder r(in.size());
    r.copy(1, in[1]);
    r.copy(3, in[3]);
    return r.finish().size();
  };
  STATIC_REQUIRE(is_constant(kept_record));
  STATIC_REQUIRE(!is_constant(dropped_record));
}
#endif
