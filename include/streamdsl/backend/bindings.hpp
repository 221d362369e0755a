#pragma once
// What a caller hands an executor at run time: for each buffer of the program
// its memory (pointer, element count, whether it may be written), for each
// param its value. sd::bind(name, ...) makes one; the executor matches them to
// the plan by name and rejects bad ones (binding_error) before anything runs.
// Shared by every backend: a binding does not know whose memory it points to.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../detail/dyn_array.hpp"
#include "../detail/owned_string.hpp"
#include "../detail/string_view.hpp"
#include "../diag/error.hpp"
#include "../ir/dtype.hpp"
#include "call_context.hpp"

namespace streamdsl {

class binding {
 public:
  // Memory for a buffer: `count` elements of `type` at `data`.
  static binding buffer(detail::string_view name, dtype type, const void* data, std::size_t count,
                        bool read_only) {
    binding b(name, type);
    b.data_ = data;
    b.count_ = count;
    b.read_only_ = read_only;
    return b;
  }
  // Memory for a rank-2 buffer: rows * cols elements, row-major.
  static binding matrix(detail::string_view name, dtype type, const void* data, std::size_t count,
                        bool read_only, std::size_t rows, std::size_t cols) {
    binding b = buffer(name, type, data, count, read_only);
    b.rank2_ = true;
    b.rows_ = rows;
    b.cols_ = cols;
    return b;
  }
  // A param's value: size_of(type) bytes copied from `value`.
  static binding param(detail::string_view name, dtype type, const void* value) {
    binding b(name, type);
    b.is_param_ = true;
    b.count_ = 1;
    b.read_only_ = true;
    std::memcpy(b.value_, value, size_of(type));
    return b;
  }

  // One member of a family binding: `count` elements at `data`.
  struct member {
    const void* data = nullptr;
    std::size_t count = 0;
  };
  // Memory for a family of buffers (p.inputs<T>("x", k)): members[i] for x[i].
  static binding family(detail::string_view name, dtype type, detail::dyn_array<member> members,
                        bool read_only) {
    binding b(name, type);
    b.is_family_ = true;
    b.read_only_ = read_only;
    b.count_ = members.size();
    b.members_ = static_cast<detail::dyn_array<member>&&>(members);
    return b;
  }

  // The callable of a call (p.call("name", ...)): sd::bind_call.
  static binding call(detail::string_view name, detail::shared_callable f) {
    binding b(name, dtype::float32);
    b.is_call_ = true;
    b.read_only_ = true;
    b.data_ = f.identity();  // what tells two bindings of one name apart
    b.callable_ = static_cast<detail::shared_callable&&>(f);
    return b;
  }

  // An empty binding (it names nothing), so that containers can hold bindings.
  binding() = default;

  detail::string_view name() const { return name_.view(); }
  dtype type() const { return type_; }
  bool is_param() const { return is_param_; }
  bool is_family() const { return is_family_; }
  bool is_call() const { return is_call_; }
  // A call's callable (only meaningful when is_call()).
  const detail::shared_callable& callable() const { return callable_; }
  // A family's members, in order (empty for any other binding).
  detail::array_view<member> members() const { return members_; }
  bool read_only() const { return read_only_; }
  const void* data() const { return is_param_ ? static_cast<const void*>(value_) : data_; }
  // Writable memory; only meaningful when !read_only().
  void* mutable_data() const { return read_only_ ? nullptr : const_cast<void*>(data_); }
  // Elements; for a family, members.
  std::size_t size() const { return count_; }
  // A rank-2 buffer's: bound with its rows and columns (sd::bind(name, data, rows, cols)).
  bool is_matrix() const { return rank2_; }
  std::size_t rows() const { return rows_; }
  std::size_t cols() const { return cols_; }
  // The param's value as raw bytes of type(): size_of(type()) of them.
  const unsigned char* value_bytes() const { return value_; }

 private:
  binding(detail::string_view name, dtype type) : name_(name), type_(type) {}

  detail::owned_string name_;  // owned: the caller's string may be a temporary
  dtype type_ = dtype::float32;
  bool is_param_ = false;
  bool is_family_ = false;
  bool is_call_ = false;
  bool read_only_ = false;
  bool rank2_ = false;
  std::size_t rows_ = 0, cols_ = 0;
  const void* data_ = nullptr;
  std::size_t count_ = 0;
  alignas(8) unsigned char value_[8]{};
  detail::dyn_array<member> members_;  // a family's
  detail::shared_callable callable_;   // a call's
};

// What executors take: a list of bindings, from any contiguous container of
// them (std::vector<sd::binding>, std::span, a C array, ...).
using binding_list = detail::array_view<binding>;

// --- sd::bind ----------------------------------------------------------------
// Memory: a pointer and a count, a C array, or a contiguous container (data()
// and size(): std::vector, std::span, std::array, cuda::std::span, ...).
// Const element types bind read-only memory (fine for inputs, rejected for
// outputs and inouts).
template <element_type T>
binding bind(detail::string_view name, T* data, std::size_t n) {
  return binding::buffer(name, dtype_v<T>, data, n, std::is_const_v<T>);
}

template <element_type T, std::size_t N>
binding bind(detail::string_view name, T (&data)[N]) {
  return bind<T>(name, data, N);
}

// A rank-2 buffer (p.input<float>("a", rows, cols)): rows * cols elements,
// row-major, at `data`.
template <element_type T>
binding bind(detail::string_view name, T* data, std::size_t rows, std::size_t cols) {
  const bool fits = cols == 0 || rows <= SIZE_MAX / cols;  // else the count check reports it
  return binding::matrix(name, dtype_v<T>, data, fits ? rows * cols : SIZE_MAX, std::is_const_v<T>, rows,
                         cols);
}

namespace detail {
// data() is a pointer to elements streamdsl knows: a container to bind.
template <class R>
concept has_data_and_size = requires(R& r) {
  { r.data() } -> std::same_as<std::remove_reference_t<decltype(*r.data())>*>;
  r.size();
};
template <class R>
concept element_range =
    has_data_and_size<R> && element_type<std::remove_reference_t<decltype(*std::declval<R&>().data())>>;
}  // namespace detail

// A container that owns its elements must outlive the run, so a temporary one
// is refused; a temporary span (std::span, cuda::std::span: a view, with an
// `extent`) is fine. std::array owns its elements: a temporary one is refused.
template <class R>
  requires(detail::element_range<std::remove_reference_t<R>>)
binding bind(detail::string_view name, R&& data) {
  using range = std::remove_cvref_t<R>;
  static_assert(
      std::is_lvalue_reference_v<R> || requires { range::extent; },
      "streamdsl: sd::bind of a temporary container: its elements would be freed before the executor "
      "uses them; bind a named container (or a std::span of one) instead");
  return bind(name, data.data(), static_cast<std::size_t>(data.size()));
}

// A rank-2 buffer from a container of rows * cols elements (its size is
// checked against them when the program runs).
template <class R>
  requires(detail::element_range<std::remove_reference_t<R>>)
binding bind(detail::string_view name, R&& data, std::size_t rows, std::size_t cols) {
  using range = std::remove_cvref_t<R>;
  using T = std::remove_reference_t<decltype(*data.data())>;
  static_assert(
      std::is_lvalue_reference_v<R> || requires { range::extent; },
      "streamdsl: sd::bind of a temporary container: its elements would be freed before the executor "
      "uses them; bind a named container (or a std::span of one) instead");
  return binding::matrix(name, dtype_v<std::remove_cv_t<T>>, data.data(),
                         static_cast<std::size_t>(data.size()), std::is_const_v<T>, rows, cols);
}

// --- families ----------------------------------------------------------------
// A family of buffers binds from one container with a member per element, in
// order: spans or contiguous containers (std::vector<std::span<float>>, an
// array of std::vector<float>), or (pointer, extent) pairs
// (std::vector<std::pair<float*, std::size_t>>), or pointers and one extent
// (sd::bind("x", pointers, n)). Const elements bind read-only memory.
namespace detail {
template <class R>
auto first_member(R& r) -> decltype(*r.begin());
template <class T, std::size_t N>
T& first_member(T (&r)[N]);
template <class R>
using member_of = std::remove_reference_t<decltype(first_member(std::declval<R&>()))>;

template <class M>
concept pointer_extent_pair = requires(M& m) {
  requires std::is_pointer_v<std::remove_cvref_t<decltype(m.first)>>;
  requires element_type<std::remove_pointer_t<std::remove_cvref_t<decltype(m.first)>>>;
  static_cast<std::size_t>(m.second);
};
template <class M>
concept family_member = element_range<M> || pointer_extent_pair<M>;

template <class R>
concept family_range = requires {
  typename member_of<R>;
}
&&family_member<member_of<R>>;

// The element type of a member, const when the memory is read-only.
template <class M>
struct member_element {
  using type = std::remove_reference_t<decltype(*std::declval<M&>().data())>;
};
template <pointer_extent_pair M>
struct member_element<M> {
  using type = std::remove_pointer_t<std::remove_cvref_t<decltype(std::declval<M&>().first)>>;
};

template <class M>
binding::member memory_of(M& m) {
  if constexpr (pointer_extent_pair<M>)
    return {m.first, static_cast<std::size_t>(m.second)};
  else
    return {m.data(), static_cast<std::size_t>(m.size())};
}
}  // namespace detail

template <class R>
  requires(detail::family_range<std::remove_reference_t<R>>)
binding bind(detail::string_view name, R&& members) {
  using range = std::remove_reference_t<R>;
  using member = detail::member_of<range>;  // const in a const container: read-only memory
  // The pointers are copied out of the container here, so a temporary one
  // is fine unless it owns the members' memory (a std::vector of vectors;
  // a span of them is a view).
  static_assert(
      std::is_lvalue_reference_v<R> || requires { std::remove_cv_t<range>::extent; } ||
          detail::pointer_extent_pair<member> || requires { std::remove_cv_t<member>::extent; },
      "streamdsl: sd::bind of a temporary container of containers: the members' elements would be freed "
      "before the executor uses them; bind a named container, or a container of spans of them");
  using T = typename detail::member_element<member>::type;
  detail::dyn_array<binding::member> list;
  for (auto& m : members) list.push_back(detail::memory_of(m));
  return binding::family(name, dtype_v<T>, static_cast<detail::dyn_array<binding::member>&&>(list),
                         std::is_const_v<T>);
}

// Pointers, one per member, each to `n` elements (members of one domain
// have one extent). The pointers are copied here.
template <class R>
  requires(std::is_pointer_v<std::remove_cv_t<detail::member_of<std::remove_reference_t<R>>>>&& element_type<
           std::remove_pointer_t<std::remove_cv_t<detail::member_of<std::remove_reference_t<R>>>>>)
binding bind(detail::string_view name, R&& pointers, std::size_t n) {
  using T = std::remove_pointer_t<std::remove_cv_t<detail::member_of<std::remove_reference_t<R>>>>;
  detail::dyn_array<binding::member> list;
  for (auto p : pointers) list.push_back({p, n});
  return binding::family(name, dtype_v<T>, static_cast<detail::dyn_array<binding::member>&&>(list),
                         std::is_const_v<T>);
}

// A param's value. The type must be the param's own (sd::bind("alpha", 2.0f)
// for a float param): a mismatch is a binding_error, not a silent conversion.
template <element_type T>
binding bind(detail::string_view name, T value) {
  const std::remove_cv_t<T> v = value;
  return binding::param(name, dtype_v<T>, &v);
}

// --- sd::bind_call ----------------------------------------------------------
// The callable of the call `name` (p.call("name", ...), ops/call.hpp): any
// callable taking an sd::call_context& (a lambda, a function, a functor). It
// is copied into the binding and shared by its copies; captured references
// must outlive the runs that use it.
template <class F>
  requires std::is_invocable_v<F&, call_context&> binding bind_call(detail::string_view name, F&& f) {
    if constexpr (std::is_pointer_v<std::remove_cvref_t<F>>)  // a function pointer, maybe null
      if (f == nullptr) return binding::call(name, detail::shared_callable());  // reported when bound
    return binding::call(name, detail::shared_callable(static_cast<F&&>(f)));
  }

// Anything else, e.g. std::vector<bool> (its bits are packed: there is no bool
// array to bind): a sentence instead of a list of candidates.
template <class R>
  requires(!element_type<std::remove_cvref_t<R>> && !detail::element_range<std::remove_reference_t<R>> &&
           !detail::family_range<std::remove_reference_t<R>>)
binding bind(detail::string_view, R&&) {
  static_assert(
      sizeof(R) == 0,
      "streamdsl: sd::bind takes a pointer and a count, a C array, a contiguous container of an element "
      "type (data() and size(): std::vector, std::span, ...) or a param value. std::vector<bool> packs its "
      "bits and has no bool array: bind a std::span<bool> or a bool array instead. thrust::device_vector "
      "needs <streamdsl/backend/cuda/device_bindings.hpp>. A call's callable binds with sd::bind_call. A "
      "family binds from a container of spans or of "
      "(pointer, extent) pairs");
  return binding::buffer({}, dtype::float32, nullptr, 0, true);
}

}  // namespace streamdsl
