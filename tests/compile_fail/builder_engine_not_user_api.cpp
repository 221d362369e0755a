// User code reaching the builder's engine through a handle: it could move the
// current stream behind with_stream's back (`x.builder()->current_stream = s.id()`)
// or edit the IR under construction. The engine is reached only through
// detail::builder_access; a handle's builder() is private.
// expect: buffer<T, A, Space>::builder.* (is private within this context|is inaccessible)
// expect: builder_state::current_stream.* (is private within this context|is inaccessible)
// expect-nvcc: function "streamdsl::buffer<T, A, Space>::builder .* is inaccessible
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto x = p.input<float>("x");
  auto y = p.output<float>("y");
  auto s = p.stream("s");
  x.builder()->current_stream = s.id();
  y = x + 1;
});
