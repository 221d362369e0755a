#pragma once
// Steps: the statements that are not elementwise (copies now; reductions,
// matmuls, the user's own calls and collectives later). Every step is a
// statement of kind stmt_kind::step with a step_code, its read and write
// regions and its stream; the passes see only its accesses, the backends own
// how it runs. A new step is a code and its row here, a front end in ops/ and
// a case in each backend. (Named "step", not "op": ir::op is the elementwise
// operator enum and a plan's `ops` are what it issues.)
#include <cstdint>

#include "../detail/string_view.hpp"

namespace streamdsl::ir {

enum class step_code : std::uint8_t { copy };

struct step_info {
  step_code code;
  detail::string_view spelling;  // as the user writes it, for dumps and messages
  std::int32_t reads;            // regions read, then regions written
  std::int32_t writes;
};

inline constexpr step_info step_table[] = {
    {step_code::copy, "sd::copy", 1, 1},  // sd::copy(dst, src): writes dst, reads src
};

constexpr const step_info& info(step_code c) { return step_table[static_cast<std::size_t>(c)]; }

}  // namespace streamdsl::ir
