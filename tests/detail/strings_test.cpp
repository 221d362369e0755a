// sd::string_view and sd::owned_string: the standard string types' behaviour
// that streamdsl relies on, without their headers.
#include <catch2/catch.hpp>
#include <iomanip>
#include <sstream>
#include <streamdsl/detail/owned_string.hpp>
#include <streamdsl/detail/string_view.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>
#include <string_view>

using streamdsl::detail::owned_string;
using streamdsl::detail::string_view;

TEST_CASE("string_view: built from literals, std::string and std::string_view", "[detail][strings]") {
  STATIC_REQUIRE(string_view("abc").size() == 3);
  STATIC_REQUIRE(string_view().empty());
  STATIC_REQUIRE(string_view("abc") == string_view("abc"));
  STATIC_REQUIRE(!(string_view("abc") == string_view("abd")));
  STATIC_REQUIRE(!(string_view("ab") == string_view("abc")));
  STATIC_REQUIRE(string_view("a\0b", 3).size() == 3);
  const std::string s = "main";
  const std::string_view v = "side";
  REQUIRE(string_view(s) == "main");
  REQUIRE(string_view(v) == "side");
  REQUIRE(string_view(v) == v);  // a std::string_view on the right converts, unambiguously
  REQUIRE(std::string(string_view("xy")) == "xy");
  REQUIRE(static_cast<std::string_view>(string_view("xy")) == "xy");
}

// char_range tests data() and size() by assignment rather than
// std::convertible_to (cheaper to compile): the same types must convert.
TEST_CASE("string_view: converts from char ranges only", "[detail][strings]") {
  STATIC_REQUIRE(std::is_convertible_v<const std::string&, string_view>);
  STATIC_REQUIRE(std::is_convertible_v<std::string_view, string_view>);
  STATIC_REQUIRE(std::is_convertible_v<const streamdsl::detail::dyn_array<char>&, string_view>);
  STATIC_REQUIRE(!std::is_constructible_v<string_view, const std::u16string&>);
  STATIC_REQUIRE(!std::is_constructible_v<string_view, const streamdsl::detail::dyn_array<int>&>);
  STATIC_REQUIRE(!std::is_constructible_v<string_view, int>);
}

TEST_CASE("string_view: find, substr, starts_with", "[detail][strings]") {
  constexpr string_view t = "stream side: k0";
  STATIC_REQUIRE(t.find("side") == 7);
  STATIC_REQUIRE(t.find("main") == string_view::npos);
  STATIC_REQUIRE(t.find("") == 0);
  STATIC_REQUIRE(string_view("ab").find("abc") == string_view::npos);
  STATIC_REQUIRE(t.substr(7, 4) == "side");
  STATIC_REQUIRE(t.substr(13) == "k0");
  STATIC_REQUIRE(t.substr(99).empty());      // clamped, no exception
  STATIC_REQUIRE(t.substr(13, 99) == "k0");  // clamped
  STATIC_REQUIRE(t.starts_with("stream"));
  STATIC_REQUIRE(!t.starts_with("side"));
}

TEST_CASE("string_view and owned_string print to a std::ostream", "[detail][strings]") {
  std::ostringstream out;
  out << string_view("a=") << owned_string(string_view("1")) << string_view("b", 1);
  REQUIRE(out.str() == "a=1b");
}

TEST_CASE("string_view pads to the stream's width like std::string_view", "[detail][strings]") {
  std::ostringstream ours, std_;
  ours << std::setw(6) << string_view("ab") << '|' << std::left << std::setfill('.') << std::setw(5)
       << string_view("cd") << '|' << string_view("ef") << '|';
  std_ << std::setw(6) << std::string_view("ab") << '|' << std::left << std::setfill('.') << std::setw(5)
       << std::string_view("cd") << '|' << std::string_view("ef") << '|';
  REQUIRE(ours.str() == std_.str());
  REQUIRE(ours.str() == "    ab|cd...|ef|");
}

TEST_CASE("owned_string: null-terminated, converts to std::string", "[detail][strings]") {
  const owned_string empty;
  REQUIRE(empty.size() == 0);
  REQUIRE(std::string(empty.c_str()).empty());
  const owned_string s(string_view("plan\ntext"));
  REQUIRE(s.size() == 9);
  REQUIRE(s.c_str()[9] == '\0');
  const std::string copy = s;  // implicit, as when to_string() returned std::string
  REQUIRE(copy == "plan\ntext");
  REQUIRE(s == "plan\ntext");
  const owned_string again = s;  // copies own their characters
  REQUIRE(again.c_str() != s.c_str());
  REQUIRE(again == s.view());
  REQUIRE(s == std::string_view("plan\ntext"));  // unambiguous with std::string_view and std::string
  REQUIRE(s == std::string("plan\ntext"));
  REQUIRE(!(s == std::string_view("plan")));
  // A view must be asked for: converting a temporary into one would dangle.
  STATIC_REQUIRE(!std::is_convertible_v<owned_string, std::string_view>);
  STATIC_REQUIRE(std::is_convertible_v<owned_string, std::string>);
  REQUIRE(static_cast<std::string_view>(s) == "plan\ntext");
}

TEST_CASE("to_string and to_dot convert to std::string", "[detail][strings]") {
  constexpr auto prog = sd::program([](sd::builder& p) {
    auto x = p.input<float>("x");
    auto y = p.output<float>("y");
    y = x + 1;
  });
  const std::string text = prog.to_string();
  REQUIRE(text.find("y = x + 1;") != std::string::npos);
  std::string assigned;
  assigned = prog.to_string();
  REQUIRE(assigned == text);
  std::ostringstream printed;
  printed << prog.to_string();
  REQUIRE(printed.str() == text);
  REQUIRE(std::string(prog.to_dot().c_str()).find("digraph") != std::string::npos);
}
