// sd::error and its kinds: std::exceptions whose copies keep the message.
#include <catch2/catch.hpp>
#include <streamdsl/diag/error.hpp>
#include <string>

namespace sd = streamdsl;

TEST_CASE("sd::error: a std::exception whose copies keep the message", "[diag][errors]") {
  const sd::binding_error e("streamdsl: bad binding: 'x'");
  const std::exception& base = e;
  REQUIRE(std::string(base.what()) == "streamdsl: bad binding: 'x'");
  const sd::binding_error copy = e;
  REQUIRE(copy.what() != e.what());
  REQUIRE(std::string(copy.what()) == e.what());
  sd::error assigned("first");
  assigned = e;
  REQUIRE(std::string(assigned.what()) == e.what());
  assigned = assigned;  // self-assignment keeps it
  REQUIRE(std::string(assigned.what()) == e.what());
  REQUIRE_THROWS_AS(throw sd::plan_error("q"), sd::error);
}

TEST_CASE("sd::error: an empty message", "[diag][errors]") {
  const sd::error e(sd::string_view{});
  REQUIRE(std::string(e.what()).empty());
}
