// Promotion rules (docs/concepts.md, "Values and types"): weak literals, usual promotion between buffers.
#include <catch2/catch.hpp>
#include <streamdsl/streamdsl.hpp>
#include <type_traits>

using sd::dtype;
using sd::strength;

TEST_CASE("promotion between buffers is the usual one", "[dtype]") {
  STATIC_REQUIRE(sd::promote(dtype::float32, dtype::float64) == dtype::float64);
  STATIC_REQUIRE(sd::promote(dtype::int32, dtype::int64) == dtype::int64);
  STATIC_REQUIRE(sd::promote(dtype::int64, dtype::float32) == dtype::float32);
  STATIC_REQUIRE(sd::promote(dtype::boolean, dtype::int32) == dtype::int32);
  STATIC_REQUIRE(sd::promote(dtype::float16, dtype::float32) == dtype::float32);
  STATIC_REQUIRE(!sd::compatible(dtype::float16, dtype::bfloat16));
}

TEST_CASE("literal scalars are weak", "[dtype]") {
  constexpr sd::typed f{dtype::float32, strength::tensor};
  constexpr sd::typed i32{dtype::int32, strength::tensor};
  constexpr sd::typed lit_double{dtype::float64, strength::literal};
  constexpr sd::typed lit_int{dtype::int32, strength::literal};
  STATIC_REQUIRE(sd::combine(f, lit_double).type == dtype::float32);  // float * 2.5 stays float
  STATIC_REQUIRE(sd::combine(f, lit_int).type == dtype::float32);
  STATIC_REQUIRE(sd::combine(i32, lit_double).type == dtype::float32);  // int * 2.5 is float
  STATIC_REQUIRE(sd::combine(i32, lit_int).type == dtype::int32);
  constexpr sd::typed d{dtype::float64, strength::tensor};
  STATIC_REQUIRE(sd::combine(f, d).type == dtype::float64);  // float * double is double
  constexpr sd::typed param_double{dtype::float64, strength::scalar};
  STATIC_REQUIRE(sd::combine(f, param_double).type == dtype::float32);  // 0-d values are weak too
  STATIC_REQUIRE(sd::combine(i32, param_double).type == dtype::float64);
}

TEST_CASE("assignability: widening is implicit, narrowing needs a cast", "[dtype]") {
  STATIC_REQUIRE(sd::assignable(dtype::float64, dtype::float32));
  STATIC_REQUIRE(sd::assignable(dtype::float32, dtype::int32));
  STATIC_REQUIRE(!sd::assignable(dtype::float32, dtype::float64));
  STATIC_REQUIRE(!sd::assignable(dtype::int32, dtype::int64));
  STATIC_REQUIRE(!sd::assignable(dtype::int32, dtype::float32));
  STATIC_REQUIRE(!sd::assignable(dtype::float16, dtype::bfloat16));
}

TEST_CASE("a literal may be stored in a buffer of its category or a higher one", "[dtype]") {
  constexpr bool ok = [] {
    sd::builder p;
    auto y = p.output<float>("y");
    auto i = p.output<std::int32_t>("i");
    auto b = p.output<bool>("b");
    y = 2.5;              // double literal into float: fine, literals are weak
    i = std::int64_t{3};  // int64 literal into int32
    y = 1;                // int literal into float
    b = true;
    return p.ir().ok();
  }();
  STATIC_REQUIRE(ok);
  constexpr bool narrowing_reported = [] {
    sd::builder p;
    auto i = p.output<std::int32_t>("i");
    i = 2.5;  // a float literal into an integer buffer still needs a cast
    return !p.ir().ok() && p.ir().errors[0].kind == sd::diag::error_kind::narrowing_assignment;
  }();
  STATIC_REQUIRE(narrowing_reported);
}

TEST_CASE("0-d buffers promote like their C++ handle says", "[dtype]") {
  sd::builder p;
  auto s = p.input<double>("s", sd::scalar);
  auto x = p.input<float>("x");
  auto y = p.output<double>("y");
  y = s + x;  // double: the handle's type and the IR agree
  STATIC_REQUIRE(std::is_same_v<decltype(s + x)::value_type, double>);
  CHECK(p.ir().ok());
  CHECK(p.ir().nodes[static_cast<std::size_t>(p.ir().stmts[0].root)].type == sd::dtype::float64);
}
