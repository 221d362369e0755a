// Promotion rules of DESIGN §2: weak literals, usual promotion between buffers.
#include <catch2/catch.hpp>
#include <streamdsl/streamdsl.hpp>

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
