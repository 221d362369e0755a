// sd::reduce_op::avg of int32_t elements: averages are for floating types.
// expect: collective_reduce_op_unsupported_for_type<
// expect: applies sd::reduce_op::avg to int32_t elements of `counts`, and sd::all_reduce averages floating types only
// expect-nvcc: collective_reduce_op_unsupported_for_type<
// expect-nvcc: a collective's sd::reduce_op does not apply to the buffer's element type
#include <cstdint>
#include <streamdsl/streamdsl.hpp>

constexpr auto bad = sd::program([](sd::builder& p) {
  auto counts = p.inout<std::int32_t>("counts");
  sd::all_reduce(counts, sd::reduce_op::avg);
});
