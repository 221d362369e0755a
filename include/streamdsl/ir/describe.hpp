#pragma once
// Statement and expression text for error messages, shortened so that a
// long expression cannot push the rest of a message (the fix) past the
// message capacity. Message helpers (namespace diag) built on the IR's
// rendering, so they sit in ir/, above render.hpp: diag/ stays below ir/.
#include "../diag/message.hpp"
#include "render.hpp"

namespace streamdsl::diag {

// Longest code snippet quoted in a message by default.
inline constexpr std::size_t code_limit = 100;

// `x + 1`, shortened to `max` characters.
[[gnu::cold]] constexpr void quote_expr(const ir::program_view& p, std::int32_t node, detail::text& out,
                                        std::size_t max = code_limit) {
  detail::text code;
  ir::render_expr(p, node, code);
  out << '`';
  append_elided(out, code.view(), max);
  out << '`';
}

// "statement #3 `z = y * 2` on stream 'main'", the code shortened to `max`.
[[gnu::cold]] constexpr void describe_statement(const ir::program_view& p, std::int32_t index,
                                                detail::text& out, std::size_t max = code_limit) {
  const ir::statement& s = p.stmts[index];
  out << "statement #" << (s.origin >= 0 ? s.origin : index) << " `";
  append_elided(out, ir::statement_text(p, s).view(), max);
  out << "` on stream '" << p.stream_name(s.stream) << '\'';
}

}  // namespace streamdsl::diag
