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

TEST_CASE("every integer width: names, sizes, categories, traits", "[dtype]") {
  STATIC_REQUIRE(sd::dtype_v<std::int8_t> == dtype::int8);
  STATIC_REQUIRE(sd::dtype_v<std::int16_t> == dtype::int16);
  STATIC_REQUIRE(sd::dtype_v<std::uint8_t> == dtype::uint8);
  STATIC_REQUIRE(sd::dtype_v<std::uint16_t> == dtype::uint16);
  STATIC_REQUIRE(sd::dtype_v<const std::uint32_t> == dtype::uint32);
  STATIC_REQUIRE(sd::dtype_v<std::uint64_t> == dtype::uint64);
  STATIC_REQUIRE(std::is_same_v<sd::type_of<dtype::int8>, std::int8_t>);
  STATIC_REQUIRE(std::is_same_v<sd::type_of<dtype::uint16>, std::uint16_t>);
  STATIC_REQUIRE(std::is_same_v<sd::type_of<dtype::uint64>, std::uint64_t>);
  STATIC_REQUIRE(!sd::element_type<char>);  // char is neither int8_t nor uint8_t
  STATIC_REQUIRE(sd::name_of(dtype::uint8) == "uint8_t");
  STATIC_REQUIRE(sd::name_of(dtype::int16) == "int16_t");
  STATIC_REQUIRE(sd::size_of(dtype::int8) == 1);
  STATIC_REQUIRE(sd::size_of(dtype::uint16) == 2);
  STATIC_REQUIRE(sd::size_of(dtype::uint32) == 4);
  STATIC_REQUIRE(sd::size_of(dtype::uint64) == 8);
  for (int k = 0; k < sd::dtype_count; ++k) {
    const auto t = static_cast<dtype>(k);
    CHECK(sd::info_of(t).type == t);  // dtype_table's rows are in the enumerators' order
    CHECK(sd::name_of(t) != "?");
    CHECK(sd::size_of(t) >= 1);
    CHECK((sd::category_of(t) == sd::dtype_category::integral) ==
          (sd::is_signed_integer(t) || sd::is_unsigned_integer(t)));
  }
}

TEST_CASE("integer promotion is PyTorch's: an unsigned type meets a signed one in a wider signed type",
          "[dtype]") {
  STATIC_REQUIRE(sd::promote(dtype::uint8, dtype::int8) == dtype::int16);  // PyTorch's uint8 + int8
  STATIC_REQUIRE(sd::promote(dtype::int8, dtype::uint8) == dtype::int16);
  STATIC_REQUIRE(sd::promote(dtype::uint8, dtype::int16) == dtype::int16);
  STATIC_REQUIRE(sd::promote(dtype::uint8, dtype::int32) == dtype::int32);
  STATIC_REQUIRE(sd::promote(dtype::uint16, dtype::int16) == dtype::int32);
  STATIC_REQUIRE(sd::promote(dtype::uint16, dtype::int8) == dtype::int32);
  STATIC_REQUIRE(sd::promote(dtype::uint32, dtype::int32) == dtype::int64);
  STATIC_REQUIRE(sd::promote(dtype::uint32, dtype::int64) == dtype::int64);
  STATIC_REQUIRE(sd::promote(dtype::uint8, dtype::uint32) == dtype::uint32);
  STATIC_REQUIRE(sd::promote(dtype::uint64, dtype::uint8) == dtype::uint64);
  STATIC_REQUIRE(sd::promote(dtype::int8, dtype::int16) == dtype::int16);
  STATIC_REQUIRE(sd::promote(dtype::boolean, dtype::uint8) == dtype::uint8);
  STATIC_REQUIRE(sd::promote(dtype::uint64, dtype::float16) == dtype::float16);
  STATIC_REQUIRE(sd::promote(dtype::int8, dtype::float32) == dtype::float32);
  // uint64_t and a signed type: no type holds both (PyTorch refuses it too)
  STATIC_REQUIRE(!sd::compatible(dtype::uint64, dtype::int64));
  STATIC_REQUIRE(!sd::compatible(dtype::int8, dtype::uint64));
  STATIC_REQUIRE(sd::compatible(dtype::uint64, dtype::uint32));
  STATIC_REQUIRE(sd::promote(dtype::uint64, dtype::int8) == dtype::int64);  // what the error's cast suggests
  STATIC_REQUIRE(sd::compatible(dtype::uint64, dtype::boolean));
  STATIC_REQUIRE(sd::compatible(dtype::uint64, dtype::float64));
  // ... unless one is weaker: it then takes the other's type
  constexpr sd::typed u64{dtype::uint64, strength::tensor};
  constexpr sd::typed lit{dtype::int32, strength::literal};
  constexpr sd::typed param64{dtype::int64, strength::scalar};
  STATIC_REQUIRE(sd::combinable(u64, lit));
  STATIC_REQUIRE(sd::combine(u64, lit).type == dtype::uint64);
  STATIC_REQUIRE(sd::combinable(u64, param64));
  STATIC_REQUIRE(sd::combine(u64, param64).type == dtype::uint64);
  STATIC_REQUIRE(!sd::combinable(u64, {dtype::int64, strength::tensor}));
  // a literal is weak against narrow integers too
  STATIC_REQUIRE(sd::combine({dtype::uint8, strength::tensor}, lit).type == dtype::uint8);
  STATIC_REQUIRE(sd::combine({dtype::int8, strength::tensor}, {dtype::float64, strength::literal}).type ==
                 dtype::float32);
}

TEST_CASE("storing between integer widths: only what loses nothing needs no cast", "[dtype]") {
  STATIC_REQUIRE(sd::assignable(dtype::int16, dtype::uint8));
  STATIC_REQUIRE(sd::assignable(dtype::int64, dtype::uint32));
  STATIC_REQUIRE(sd::assignable(dtype::uint32, dtype::uint16));
  STATIC_REQUIRE(sd::assignable(dtype::float32, dtype::uint64));  // integers into floats, as in PyTorch
  STATIC_REQUIRE(!sd::assignable(dtype::uint8, dtype::int8));
  STATIC_REQUIRE(!sd::assignable(dtype::int8, dtype::uint8));
  STATIC_REQUIRE(!sd::assignable(dtype::int32, dtype::uint32));
  STATIC_REQUIRE(!sd::assignable(dtype::uint64, dtype::int64));
  STATIC_REQUIRE(!sd::assignable(dtype::int64, dtype::uint64));
  STATIC_REQUIRE(!sd::assignable(dtype::uint16, dtype::uint32));
}
