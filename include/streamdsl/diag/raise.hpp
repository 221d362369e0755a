#pragma once
// Turns a program's first error into a compile error. The message is a
// template argument of a template named after the kind of error, whose
// static_assert fails: g++ prints the message as a string, nvcc as a list of
// characters, and both print the template's name, which says what is wrong.
#include "../detail/fixed_string.hpp"
#include "error_kind.hpp"

namespace streamdsl::diag {

inline constexpr std::size_t message_capacity = 480;
using message = detail::fixed_string<message_capacity>;

#define STREAMDSL_ERROR_TEMPLATE(name, summary)                                     \
  template <message Message>                                                          \
  struct name {                                                                       \
    static_assert(Message.empty(), "streamdsl: " summary                              \
                                    " (the template argument above has the details)"); \
    static constexpr bool value = true;                                               \
  };

STREAMDSL_ERROR_TEMPLATE(narrowing_assignment_needs_cast, "narrowing assignment: wrap the value in sd::cast<T>(...)")
STREAMDSL_ERROR_TEMPLATE(write_to_input_buffer, "a statement writes an input buffer")
STREAMDSL_ERROR_TEMPLATE(wait_on_event_before_any_record, "an event is waited on before any record of it")
STREAMDSL_ERROR_TEMPLATE(where_branches_have_different_types, "where(c, a, b) needs a bool c and one type for a and b")
STREAMDSL_ERROR_TEMPLATE(expression_mixes_incompatible_types, "an expression mixes incompatible types")
STREAMDSL_ERROR_TEMPLATE(logical_operator_needs_bool_operands, "a logical operator has a non-bool operand")
STREAMDSL_ERROR_TEMPLATE(arithmetic_on_bool_operands, "arithmetic on bool operands")
STREAMDSL_ERROR_TEMPLATE(elementwise_domains_differ, "an elementwise statement combines different domains")
STREAMDSL_ERROR_TEMPLATE(invalid_name, "an invalid name")
STREAMDSL_ERROR_TEMPLATE(duplicate_name, "a name is declared twice")
STREAMDSL_ERROR_TEMPLATE(cross_stream_data_race, "cross-stream data race")
#undef STREAMDSL_ERROR_TEMPLATE

template <error_kind Kind, message Message>
constexpr bool raise() {
  using enum error_kind;
  if constexpr (Kind == none) return true;
  else if constexpr (Kind == narrowing_assignment) return narrowing_assignment_needs_cast<Message>::value;
  else if constexpr (Kind == write_to_input) return write_to_input_buffer<Message>::value;
  else if constexpr (Kind == wait_before_record) return wait_on_event_before_any_record<Message>::value;
  else if constexpr (Kind == where_type_mismatch) return where_branches_have_different_types<Message>::value;
  else if constexpr (Kind == incompatible_types) return expression_mixes_incompatible_types<Message>::value;
  else if constexpr (Kind == logical_operator_needs_bool) return logical_operator_needs_bool_operands<Message>::value;
  else if constexpr (Kind == arithmetic_on_bool) return arithmetic_on_bool_operands<Message>::value;
  else if constexpr (Kind == domain_mismatch) return elementwise_domains_differ<Message>::value;
  else if constexpr (Kind == error_kind::invalid_name) return diag::invalid_name<Message>::value;
  else if constexpr (Kind == error_kind::duplicate_name) return diag::duplicate_name<Message>::value;
  else return cross_stream_data_race<Message>::value;
}

}  // namespace streamdsl::diag
