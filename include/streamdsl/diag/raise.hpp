#pragma once
// Turns a program's first error into a compile error. The message is a
// template argument of a template named after the kind of error, whose
// static_assert fails: g++ prints the message as a string, nvcc as a list of
// characters, and both print the template's name and the static_assert's
// summary, which say what is wrong in words.
#include "../detail/fixed_string.hpp"
#include "error_kind.hpp"
#include "message.hpp"

namespace streamdsl::diag {

using message = detail::fixed_string<message_capacity>;

// The message in a string of exactly its length, so that nvcc's list of
// characters does not trail hundreds of '\000' after the text.
template <std::size_t Length>
constexpr detail::fixed_string<Length> exact(const message& m) {
  detail::fixed_string<Length> s;
  // Length 0 (no error) skips the copy, whose size check nvcc calls pointless.
  if constexpr (Length > 0) s = detail::fixed_string<Length>(m.view());
  return s;
}

#define STREAMDSL_ERROR_TEMPLATE(name, summary)                                                      \
  template <auto Message>                                                                            \
  struct name {                                                                                      \
    static_assert(Message.empty(),                                                                   \
                  "streamdsl: " summary " (the details are in the template argument of " #name ")"); \
    static constexpr bool value = true;                                                              \
  };

STREAMDSL_ERROR_TEMPLATE(
    narrowing_assignment_needs_cast,
    "an assignment stores a wider type in a narrower buffer; wrap the value in sd::cast<T>(...)")
STREAMDSL_ERROR_TEMPLATE(write_to_input_buffer,
                         "a statement writes an input buffer, and inputs are read-only")
STREAMDSL_ERROR_TEMPLATE(temp_read_before_any_write,
                         "a statement reads a temp buffer before any statement writes it")
STREAMDSL_ERROR_TEMPLATE(wait_on_event_before_any_record,
                         "an event is waited on with no record of it earlier in the program")
STREAMDSL_ERROR_TEMPLATE(where_condition_must_be_bool, "the condition c of where(c, a, b) is not bool")
STREAMDSL_ERROR_TEMPLATE(where_branches_have_different_types,
                         "the branches a and b of where(c, a, b) have different types")
STREAMDSL_ERROR_TEMPLATE(
    expression_mixes_incompatible_types,
    "an expression mixes types that cannot represent each other (__half and __nv_bfloat16, or uint64_t and a "
    "signed integer)")
STREAMDSL_ERROR_TEMPLATE(logical_operator_needs_bool_operands, "&&, || or ! has an operand that is not bool")
STREAMDSL_ERROR_TEMPLATE(arithmetic_on_bool_operands, "arithmetic on bool operands")
STREAMDSL_ERROR_TEMPLATE(elementwise_domains_differ, "an elementwise statement combines different domains")
STREAMDSL_ERROR_TEMPLATE(invalid_name, "a name is empty or has a character other than a letter, digit or '_'")
STREAMDSL_ERROR_TEMPLATE(duplicate_name, "two declarations use the same name")
STREAMDSL_ERROR_TEMPLATE(reserved_name, "a declaration uses a reserved name ('main', or 'n' for a domain)")
STREAMDSL_ERROR_TEMPLATE(
    cross_stream_data_race,
    "two streams access one buffer, at least one of them writing, and nothing orders them")
STREAMDSL_ERROR_TEMPLATE(invalid_chunk, "x.chunk(i, k) needs 0 <= i < k and a buffer over a domain")
STREAMDSL_ERROR_TEMPLATE(elementwise_chunk_sizes_differ,
                         "an elementwise statement combines chunks of different sizes of one domain")
STREAMDSL_ERROR_TEMPLATE(copy_source_and_destination_differ,
                         "sd::copy(dst, src) between different element types or sizes")
STREAMDSL_ERROR_TEMPLATE(copy_source_overlaps_destination,
                         "sd::copy(dst, src) whose source and destination overlap")
STREAMDSL_ERROR_TEMPLATE(
    host_memory_in_elementwise_statement,
    "an elementwise statement reads or writes a buffer in host memory; copy it to a device buffer first")
STREAMDSL_ERROR_TEMPLATE(family_index_out_of_range, "a family of handles is indexed outside its members")
STREAMDSL_ERROR_TEMPLATE(family_size_must_be_positive, "a family is declared with fewer than one member")
STREAMDSL_ERROR_TEMPLATE(reduction_result_needs_a_0d_buffer,
                         "a reduction's result is stored in a buffer over a domain; store it in a 0-d buffer")
STREAMDSL_ERROR_TEMPLATE(reduction_of_integers_needs_a_cast,
                         "sd::mean or sd::norm of an integer expression; cast it to a floating type first")
STREAMDSL_ERROR_TEMPLATE(
    bitwise_operator_needs_integer_operands,
    "~, &, |, ^ (integers or bool) or << and >> (integers) have an operand of another type")
STREAMDSL_ERROR_TEMPLATE(remainder_needs_integer_operands,
                         "% has an operand that is not an integer; sd::fmod is the remainder of floats")
STREAMDSL_ERROR_TEMPLATE(reduction_axis_must_be_the_last_axis,
                         "a reduction or scan along an axis that is not its rank-2 expression's last one")
STREAMDSL_ERROR_TEMPLATE(row_reduction_result_needs_a_column,
                         "a reduction along the last axis is stored in a buffer that is not over the rows")
STREAMDSL_ERROR_TEMPLATE(row_reduction_reads_the_buffer_it_writes,
                         "a reduction along the last axis of a square matrix reads its result as a row")
STREAMDSL_ERROR_TEMPLATE(matmul_needs_rank2_buffers, "sd::matmul of or into a buffer that is not rank-2")
STREAMDSL_ERROR_TEMPLATE(matmul_needs_one_floating_type,
                         "sd::matmul of operands of two types, or of a type it does not multiply")
STREAMDSL_ERROR_TEMPLATE(matmul_shapes_do_not_match,
                         "sd::matmul(a, b) whose inner domains differ, or whose result has another shape")
STREAMDSL_ERROR_TEMPLATE(matmul_result_is_an_operand, "c = sd::matmul(a, b) where c is a or b")
STREAMDSL_ERROR_TEMPLATE(call_lists_a_region_twice,
                         "p.call(...) whose sd::reads or sd::writes lists overlapping regions")
STREAMDSL_ERROR_TEMPLATE(host_call_lists_device_memory,
                         "p.host_call(...) lists a device buffer or a temp; a host step runs on the CPU")
STREAMDSL_ERROR_TEMPLATE(collective_on_host_memory,
                         "a collective reads or writes host memory, and collectives run on the device")
STREAMDSL_ERROR_TEMPLATE(
    collective_needs_a_target_buffer,
    "sd::reduce_scatter or sd::all_gather written in place; write y = sd::reduce_scatter(x, op)")
STREAMDSL_ERROR_TEMPLATE(collective_source_and_target_differ,
                         "a collective between buffers of different element types or sizes")
STREAMDSL_ERROR_TEMPLATE(collective_source_overlaps_target,
                         "a collective whose target overlaps its source without being it")
STREAMDSL_ERROR_TEMPLATE(collective_reduce_op_unsupported_for_type,
                         "a collective's sd::reduce_op does not apply to the buffer's element type")
STREAMDSL_ERROR_TEMPLATE(broadcast_root_is_negative, "sd::broadcast(x, root) with a negative root rank")
STREAMDSL_ERROR_TEMPLATE(fp8_values_only_convert,
                         "an operation other than sd::cast or sd::matmul takes an FP8 (__nv_fp8_e4m3 or "
                         "__nv_fp8_e5m2) operand; convert it with sd::cast<float>(...) first")
STREAMDSL_ERROR_TEMPLATE(fp8_matmul_types_unsupported,
                         "an FP8 matmul of a type pair or into a result type cuBLASLt does not run")
STREAMDSL_ERROR_TEMPLATE(
    fp8_matmul_needs_b_read_transposed,
    "an FP8 matmul must be sd::matmul(a, sd::transpose(b)) with a stored (m, k) and b (n, k) "
    "(cuBLASLt's FP8 kernels take only the TN layout)")
STREAMDSL_ERROR_TEMPLATE(matmul_scale_needs_a_0d_float_buffer,
                         "sd::scales(sa, sb) of a matmul needs 0-d float buffers and FP8 operands")
STREAMDSL_ERROR_TEMPLATE(fp8_matmul_e5m2_product_needs_an_e5m2_operand,
                         "an FP8 matmul of two __nv_fp8_e4m3 operands into an __nv_fp8_e5m2 product, "
                         "which cuBLASLt does not run")
STREAMDSL_ERROR_TEMPLATE(matmul_output_scale_needs_an_fp8_product,
                         "sd::output_scale or sd::output_amax of a matmul needs 0-d float buffers, an FP8 "
                         "product, and an amax the matmul does not read")

#undef STREAMDSL_ERROR_TEMPLATE

// Message: a detail::fixed_string holding the message (see exact()).
template <error_kind Kind, auto Message>
constexpr bool raise() {
  using enum error_kind;
  if constexpr (Kind == none)
    return true;
  else if constexpr (Kind == narrowing_assignment)
    return narrowing_assignment_needs_cast<Message>::value;
  else if constexpr (Kind == write_to_input)
    return write_to_input_buffer<Message>::value;
  else if constexpr (Kind == temp_read_before_write)
    return temp_read_before_any_write<Message>::value;
  else if constexpr (Kind == wait_before_record)
    return wait_on_event_before_any_record<Message>::value;
  else if constexpr (Kind == where_condition_not_bool)
    return where_condition_must_be_bool<Message>::value;
  else if constexpr (Kind == where_type_mismatch)
    return where_branches_have_different_types<Message>::value;
  else if constexpr (Kind == incompatible_types)
    return expression_mixes_incompatible_types<Message>::value;
  else if constexpr (Kind == logical_operator_needs_bool)
    return logical_operator_needs_bool_operands<Message>::value;
  else if constexpr (Kind == arithmetic_on_bool)
    return arithmetic_on_bool_operands<Message>::value;
  else if constexpr (Kind == domain_mismatch)
    return elementwise_domains_differ<Message>::value;
  else if constexpr (Kind == error_kind::invalid_name)
    return diag::invalid_name<Message>::value;
  else if constexpr (Kind == error_kind::duplicate_name)
    return diag::duplicate_name<Message>::value;
  else if constexpr (Kind == error_kind::reserved_name)
    return diag::reserved_name<Message>::value;
  else if constexpr (Kind == error_kind::invalid_chunk)
    return diag::invalid_chunk<Message>::value;
  else if constexpr (Kind == chunk_mismatch)
    return elementwise_chunk_sizes_differ<Message>::value;
  else if constexpr (Kind == copy_mismatch)
    return copy_source_and_destination_differ<Message>::value;
  else if constexpr (Kind == copy_overlap)
    return copy_source_overlaps_destination<Message>::value;
  else if constexpr (Kind == host_memory_in_expression)
    return host_memory_in_elementwise_statement<Message>::value;
  else if constexpr (Kind == error_kind::family_index_out_of_range)
    return diag::family_index_out_of_range<Message>::value;
  else if constexpr (Kind == bad_family_size)
    return family_size_must_be_positive<Message>::value;
  else if constexpr (Kind == reduction_target_not_scalar)
    return reduction_result_needs_a_0d_buffer<Message>::value;
  else if constexpr (Kind == reduction_needs_floating)
    return reduction_of_integers_needs_a_cast<Message>::value;
  else if constexpr (Kind == bitwise_on_non_integer)
    return bitwise_operator_needs_integer_operands<Message>::value;
  else if constexpr (Kind == remainder_of_non_integer)
    return remainder_needs_integer_operands<Message>::value;
  else if constexpr (Kind == reduction_axis_not_last)
    return reduction_axis_must_be_the_last_axis<Message>::value;
  else if constexpr (Kind == row_reduction_target_not_a_column)
    return row_reduction_result_needs_a_column<Message>::value;
  else if constexpr (Kind == row_reduction_reads_its_target)
    return row_reduction_reads_the_buffer_it_writes<Message>::value;
  else if constexpr (Kind == matmul_operand_not_rank2)
    return matmul_needs_rank2_buffers<Message>::value;
  else if constexpr (Kind == matmul_type_unsupported)
    return matmul_needs_one_floating_type<Message>::value;
  else if constexpr (Kind == matmul_shapes_differ)
    return matmul_shapes_do_not_match<Message>::value;
  else if constexpr (Kind == matmul_result_overlaps_operand)
    return matmul_result_is_an_operand<Message>::value;
  else if constexpr (Kind == call_region_listed_twice)
    return call_lists_a_region_twice<Message>::value;
  else if constexpr (Kind == host_call_touches_device_memory)
    return host_call_lists_device_memory<Message>::value;
  else if constexpr (Kind == error_kind::collective_on_host_memory)
    return diag::collective_on_host_memory<Message>::value;
  else if constexpr (Kind == collective_needs_target)
    return collective_needs_a_target_buffer<Message>::value;
  else if constexpr (Kind == collective_mismatch)
    return collective_source_and_target_differ<Message>::value;
  else if constexpr (Kind == collective_overlap)
    return collective_source_overlaps_target<Message>::value;
  else if constexpr (Kind == collective_type_unsupported)
    return collective_reduce_op_unsupported_for_type<Message>::value;
  else if constexpr (Kind == collective_bad_root)
    return broadcast_root_is_negative<Message>::value;
  else if constexpr (Kind == arithmetic_on_fp8)
    return fp8_values_only_convert<Message>::value;
  else if constexpr (Kind == matmul_fp8_types)
    return fp8_matmul_types_unsupported<Message>::value;
  else if constexpr (Kind == matmul_fp8_layout)
    return fp8_matmul_needs_b_read_transposed<Message>::value;
  else if constexpr (Kind == matmul_scale)
    return matmul_scale_needs_a_0d_float_buffer<Message>::value;
  else if constexpr (Kind == matmul_fp8_output)
    return fp8_matmul_e5m2_product_needs_an_e5m2_operand<Message>::value;
  else if constexpr (Kind == matmul_output_scale)
    return matmul_output_scale_needs_an_fp8_product<Message>::value;
  else
    return cross_stream_data_race<Message>::value;
}

}  // namespace streamdsl::diag
