#pragma once
// The compile errors streamdsl reports. Each kind has a template named after
// it in diag/raise.hpp, so that even a compiler that prints the message as a
// list of characters (nvcc) names the kind of mistake in words.
#include <cstdint>

#include "../detail/string_view.hpp"

namespace streamdsl::diag {

enum class error_kind : std::uint8_t {
  none,
  narrowing_assignment,
  write_to_input,
  temp_read_before_write,
  wait_before_record,
  where_condition_not_bool,
  where_type_mismatch,
  incompatible_types,
  logical_operator_needs_bool,
  arithmetic_on_bool,
  domain_mismatch,
  invalid_name,
  duplicate_name,
  reserved_name,
  race,
  invalid_chunk,
  chunk_mismatch,
  copy_mismatch,
  copy_overlap,
  host_memory_in_expression,
  family_index_out_of_range,
  bad_family_size,
  reduction_target_not_scalar,
  reduction_needs_floating,
  bitwise_on_non_integer,
  remainder_of_non_integer,
  reduction_axis_not_last,
  row_reduction_target_not_a_column,
  row_reduction_reads_its_target,
  matmul_operand_not_rank2,
  matmul_type_unsupported,
  matmul_shapes_differ,
  matmul_result_overlaps_operand,
  call_region_listed_twice,
  host_call_touches_device_memory,
  collective_on_host_memory,
  collective_needs_target,
  collective_mismatch,
  collective_overlap,
  collective_type_unsupported,
  collective_bad_root,
  arithmetic_on_fp8,
  matmul_fp8_types,
  matmul_fp8_layout,
  matmul_scale,
  matmul_fp8_output,
  matmul_output_scale,
};

constexpr detail::string_view name_of(error_kind k) {
  switch (k) {
    case error_kind::none: return "none";
    case error_kind::narrowing_assignment: return "narrowing_assignment_needs_cast";
    case error_kind::write_to_input: return "write_to_input_buffer";
    case error_kind::temp_read_before_write: return "temp_read_before_any_write";
    case error_kind::wait_before_record: return "wait_on_event_before_any_record";
    case error_kind::where_condition_not_bool: return "where_condition_must_be_bool";
    case error_kind::where_type_mismatch: return "where_branches_have_different_types";
    case error_kind::incompatible_types: return "expression_mixes_incompatible_types";
    case error_kind::logical_operator_needs_bool: return "logical_operator_needs_bool_operands";
    case error_kind::arithmetic_on_bool: return "arithmetic_on_bool_operands";
    case error_kind::domain_mismatch: return "elementwise_domains_differ";
    case error_kind::invalid_name: return "invalid_name";
    case error_kind::duplicate_name: return "duplicate_name";
    case error_kind::reserved_name: return "reserved_name";
    case error_kind::race: return "cross_stream_data_race";
    case error_kind::invalid_chunk: return "invalid_chunk";
    case error_kind::chunk_mismatch: return "elementwise_chunk_sizes_differ";
    case error_kind::copy_mismatch: return "copy_source_and_destination_differ";
    case error_kind::copy_overlap: return "copy_source_overlaps_destination";
    case error_kind::host_memory_in_expression: return "host_memory_in_elementwise_statement";
    case error_kind::family_index_out_of_range: return "family_index_out_of_range";
    case error_kind::bad_family_size: return "family_size_must_be_positive";
    case error_kind::reduction_target_not_scalar: return "reduction_result_needs_a_0d_buffer";
    case error_kind::reduction_needs_floating: return "reduction_of_integers_needs_a_cast";
    case error_kind::bitwise_on_non_integer: return "bitwise_operator_needs_integer_operands";
    case error_kind::remainder_of_non_integer: return "remainder_needs_integer_operands";
    case error_kind::reduction_axis_not_last: return "reduction_axis_must_be_the_last_axis";
    case error_kind::row_reduction_target_not_a_column: return "row_reduction_result_needs_a_column";
    case error_kind::row_reduction_reads_its_target: return "row_reduction_reads_the_buffer_it_writes";
    case error_kind::matmul_operand_not_rank2: return "matmul_needs_rank2_buffers";
    case error_kind::matmul_type_unsupported: return "matmul_needs_one_floating_type";
    case error_kind::matmul_shapes_differ: return "matmul_shapes_do_not_match";
    case error_kind::matmul_result_overlaps_operand: return "matmul_result_is_an_operand";
    case error_kind::call_region_listed_twice: return "call_lists_a_region_twice";
    case error_kind::host_call_touches_device_memory: return "host_call_lists_device_memory";
    case error_kind::collective_on_host_memory: return "collective_on_host_memory";
    case error_kind::collective_needs_target: return "collective_needs_a_target_buffer";
    case error_kind::collective_mismatch: return "collective_source_and_target_differ";
    case error_kind::collective_overlap: return "collective_source_overlaps_target";
    case error_kind::collective_type_unsupported: return "collective_reduce_op_unsupported_for_type";
    case error_kind::collective_bad_root: return "broadcast_root_is_negative";
    case error_kind::arithmetic_on_fp8: return "fp8_values_only_convert";
    case error_kind::matmul_fp8_types: return "fp8_matmul_types_unsupported";
    case error_kind::matmul_fp8_layout: return "fp8_matmul_needs_b_read_transposed";
    case error_kind::matmul_scale: return "matmul_scale_needs_a_0d_float_buffer";
    case error_kind::matmul_fp8_output: return "fp8_matmul_e5m2_product_needs_an_e5m2_operand";
    case error_kind::matmul_output_scale: return "matmul_output_scale_needs_an_fp8_product";
  }
  return "?";
}

}  // namespace streamdsl::diag
