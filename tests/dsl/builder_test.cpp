// sd::builder used at run time: it owns the names it is given, and the
// program's IR is reached through ir(), not a public member.
#include <catch2/catch.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>

TEST_CASE("a run-time builder owns the names it is given", "[builder]") {
  // Each name is a temporary std::string, gone when its declaration returns:
  // short ones reuse one stack buffer, long ones one heap block. A builder
  // that kept views of them saw the old name change under it and reported
  // a false duplicate_name.
  sd::builder b;
  for (int i = 0; i < 40; ++i) b.input<float>(std::string("x") + std::to_string(i));
  for (int i = 0; i < 40; ++i)
    b.param<float>(std::string("a_rather_long_parameter_name_that_is_on_the_heap_") + std::to_string(i));
  const auto y = b.output<float>(std::string("y"));
  REQUIRE(b.ir().ok());
  CHECK(b.ir().buffers.size() == 41);
  CHECK(b.ir().params.size() == 40);
  CHECK(b.ir().name(b.ir().buffers[7].name) == sd::detail::string_view("x7"));
  (void)y;

  // A real duplicate is still found, from a temporary too.
  b.output<float>(std::string("x3"));
  REQUIRE(b.ir().errors.size() == 1);
  CHECK(b.ir().errors[0].kind == sd::diag::error_kind::duplicate_name);
  CHECK(b.ir().errors[0].message.contains("duplicate name 'x3'"));
}

TEST_CASE("the default domain's name and the main stream's are reserved", "[builder]") {
  sd::builder b;
  b.input<float>("n");  // a buffer may be called n: no domain is confused with it
  REQUIRE(b.ir().ok());
  b.domain("n");
  REQUIRE(b.ir().errors.size() == 1);
  CHECK(b.ir().errors[0].kind == sd::diag::error_kind::reserved_name);
  CHECK(b.ir().errors[0].message.contains(
      "reserved name 'n': the domain 'n' takes the name of the default domain"));
  b.event("main");
  REQUIRE(b.ir().errors.size() == 2);
  CHECK(b.ir().errors[1].kind == sd::diag::error_kind::reserved_name);
  CHECK(b.ir().errors[1].message.contains("the event 'main' takes the name of the main stream"));
}
