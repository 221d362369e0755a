// detail::dyn_array: what it removes releases what it owns, and debug builds
// (NDEBUG off) check every index.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <streamdsl/detail/dyn_array.hpp>
#include <type_traits>

namespace {

using streamdsl::detail::dyn_array;

// Whether the removed element (still in the storage, past size()) owns nothing.
constexpr bool removed_is_released(int how) {
  dyn_array<dyn_array<int>> a;
  for (int i = 0; i < 3; ++i) a.push_back(dyn_array<int>(4, i));
  if (how == 0) a.pop_back();
  if (how == 1) a.resize(1);
  if (how == 2) a.clear();
  for (std::size_t i = a.size(); i < 3; ++i)
    if (a.data()[i].size() != 0) return false;  // the storage is constructed up to the capacity
  return true;
}

// An element type with a value, so an element past size() (inside the
// capacity) is readable and only the bounds check can refuse it.
struct item {
  int value = 0;
};

template <int I>
constexpr int read_at() {
  dyn_array<item> a;
  a.push_back({1});
  a.push_back({2});  // capacity 8, size 2
  return a[I].value;
}
template <int I>
concept readable_at_compile_time = requires {
  typename std::integral_constant<int, read_at<I>()>;
};

// Live instances of a type that owns something, counted at run time.
int live = 0;
struct tracked {
  bool owns = false;
  tracked() = default;
  explicit tracked(bool o) : owns(o) { live += o ? 1 : 0; }
  tracked(const tracked& t) : owns(t.owns) { live += owns ? 1 : 0; }
  tracked& operator=(const tracked& t) {
    if (this != &t) {
      live += (t.owns ? 1 : 0) - (owns ? 1 : 0);
      owns = t.owns;
    }
    return *this;
  }
  ~tracked() { live -= owns ? 1 : 0; }
};

}  // namespace

TEST_CASE("dyn_array: pop_back, resize and clear release what they remove", "[detail][dyn_array]") {
  STATIC_REQUIRE(removed_is_released(0));
  STATIC_REQUIRE(removed_is_released(1));
  STATIC_REQUIRE(removed_is_released(2));
  live = 0;
  {
    dyn_array<tracked> a;
    for (int i = 0; i < 3; ++i) a.push_back(tracked(true));
    REQUIRE(live == 3);
    a.pop_back();
    REQUIRE(live == 2);
    a.resize(1);
    REQUIRE(live == 1);
    a.clear();
    REQUIRE(live == 0);
  }
  REQUIRE(live == 0);
}

TEST_CASE("dyn_array: growing keeps the elements", "[detail][dyn_array]") {
  STATIC_REQUIRE([] {
    dyn_array<int> a;
    for (int i = 0; i < 20; ++i) a.resize(a.size() + 3, i);  // grows past its capacity several times
    const int row[2] = {7, 8};
    a.append(row, 2);
    return a.size() == 62 && a[0] == 0 && a[59] == 19 && a[60] == 7 && a.back() == 8;
  }());
}

#ifndef NDEBUG
TEST_CASE("dyn_array: debug builds check indices", "[detail][dyn_array]") {
  STATIC_REQUIRE(readable_at_compile_time<1>);
  STATIC_REQUIRE(!readable_at_compile_time<2>);  // inside the capacity, past the size
  // At run time an index out of range traps: in a child process.
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    dyn_array<item> a;
    a.push_back({1});
    volatile std::size_t i = 1;
    _exit(a[i].value == 0 ? 0 : 1);  // not reached
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFSIGNALED(status));
}
#else
TEST_CASE("dyn_array: release builds do not check indices", "[detail][dyn_array]") {
  STATIC_REQUIRE(readable_at_compile_time<2>);
}
#endif

// array_view's converting constructor tests "data() converts to const T*" by
// assignment rather than std::convertible_to (cheaper to compile): the same
// containers must convert, and the same ones must not.
TEST_CASE("array_view: converts from containers whose data() converts to const T*", "[detail][dyn_array]") {
  using streamdsl::detail::array_view;
  STATIC_REQUIRE(std::is_convertible_v<const dyn_array<int>&, array_view<int>>);
  STATIC_REQUIRE(std::is_convertible_v<dyn_array<int>&, array_view<int>>);
  STATIC_REQUIRE(std::is_convertible_v<const int(&)[3], array_view<int>>);
  STATIC_REQUIRE(!std::is_constructible_v<array_view<int>, const dyn_array<float>&>);
  STATIC_REQUIRE(!std::is_constructible_v<array_view<int>, const dyn_array<long long>&>);
  STATIC_REQUIRE(!std::is_constructible_v<array_view<int>, int>);
  constexpr bool views_elements = [] {
    dyn_array<int> a{1, 2, 3};
    const array_view<int> v = a;
    return v.size() == 3 && v.data() == a.data() && v[2] == 3;
  }();
  STATIC_REQUIRE(views_elements);
}
