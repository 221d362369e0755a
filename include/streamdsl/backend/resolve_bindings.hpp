#pragma once
// Matches a caller's bindings to a plan's buffers and params by name and
// checks them, so that an executor can trust what it gets. Every problem is
// collected and reported in one binding_error (each line names the buffer or
// param), thrown before any work is issued.
//
// Messages are built with detail::text, not std::string: under C++20 g++ 12
// instantiates std::string's members in every translation unit that uses
// them, and each executor's includers would pay for it.
#include <cstdint>
#include <cstdio>

#include "../detail/dyn_array.hpp"
#include "../detail/text.hpp"
#include "../ir/accesses.hpp"
#include "../plan/plan_view.hpp"
#include "bindings.hpp"

namespace streamdsl {

// Per buffer, param and domain of the plan: what the bindings supplied.
struct resolved_bindings {
  detail::dyn_array<void*> buffer_data;           // per buffer; nullptr for temps
  detail::dyn_array<std::size_t> buffer_count;    // per buffer; 0 for temps
  detail::dyn_array<std::size_t> domain_extent;   // per domain; 0 when no bound buffer has it
  detail::dyn_array<const binding*> param_value;  // per param
  // per buffer: a rank-2 buffer's columns, as bound (its rows: count / cols, or 0 when cols is 0)
  detail::dyn_array<std::size_t> buffer_rows, buffer_cols;
  detail::dyn_array<const binding*> call_target;  // per call (p.call): its sd::bind_call
};

namespace backend_detail {

using detail::text;

// A name in quotes: 'x'.
struct quote {
  detail::string_view name;
};
[[gnu::cold]] inline text& operator<<(text& out, quote q) { return out << '\'' << q.name << '\''; }

// ", domain 'n'" or ", 0-d", then ", pinned host memory" for a host buffer:
// what a buffer's and a family's descriptions both end with.
[[gnu::cold]] inline text& append_domain_and_space(text& out, const plan_view& plan,
                                                   const ir::buffer_info& info) {
  if (info.domain < 0)
    out << ", 0-d";
  else
    out << ", domain " << quote{plan.ir.domain_name(info.domain)};
  if (ir::is_host(info.space)) out << ", " << ir::memory_name(info.space);
  return out;
}

// "input buffer 'x' (float, domain 'n')": what a message says about a buffer.
struct buffer_description {
  const plan_view& plan;
  std::int32_t buffer;
};
[[gnu::cold]] inline text& operator<<(text& out, buffer_description d) {
  const auto& info = d.plan.ir.buffers[static_cast<std::size_t>(d.buffer)];
  out << ir::name_of(info.kind) << " buffer " << quote{d.plan.ir.buffer_name(d.buffer)} << " ("
      << name_of(info.type);
  return append_domain_and_space(out, d.plan, info) << ')';
}

// "input buffer family 'x' (64 members, float, domain 'n')", given x[0].
struct family_description {
  const plan_view& plan;
  std::int32_t first;
};
[[gnu::cold]] inline text& operator<<(text& out, family_description d) {
  const auto& info = d.plan.ir.buffers[static_cast<std::size_t>(d.first)];
  const auto member = d.plan.ir.buffer_name(d.first);
  out << ir::name_of(info.kind) << " buffer family " << quote{member.substr(0, member.size() - 3)} << " ("
      << info.family_size << (info.family_size == 1 ? " member, " : " members, ") << name_of(info.type);
  return append_domain_and_space(out, d.plan, info) << ')';
}

// The id of x[0] of the family called `name`, or -1.
inline std::int32_t family_first(const plan_view& plan, detail::string_view name) {
  text member;
  member << name << "[0]";
  const auto b = plan.buffer_id(member.view());
  return b >= 0 && plan.ir.buffers[static_cast<std::size_t>(b)].family_index == 0 ? b : -1;
}

// "param 'k' (float)"
struct param_description {
  const plan_view& plan;
  std::int32_t param;
};
[[gnu::cold]] inline text& operator<<(text& out, param_description d) {
  const auto& info = d.plan.ir.params[static_cast<std::size_t>(d.param)];
  return out << "param " << quote{d.plan.ir.name(info.name)} << " (" << name_of(info.type) << ')';
}

struct address {
  const void* at;
};
[[gnu::cold]] inline text& operator<<(text& out, address a) {
  char digits[32];
  std::snprintf(digits, sizeof digits, "%p", a.at);
  return out << static_cast<const char*>(digits);
}

// Throws E with the message in `message` (a text, so no std::string is made).
template <class E>
[[noreturn, gnu::cold, gnu::noinline]] void throw_with(const text& message) {
  throw E(message.view());
}

inline std::int32_t param_id(const plan_view& plan, detail::string_view name) {
  for (std::size_t i = 0; i < plan.ir.params.size(); ++i)
    if (plan.ir.name(plan.ir.params[i].name) == name) return static_cast<std::int32_t>(i);
  return -1;
}

// The names a caller can bind, for the "unknown name" message (a family
// once, by its name; the calls last).
[[gnu::cold]] inline text& append_bindable_names(text& out, const plan_view& plan) {
  bool any = false;
  for (std::size_t b = 0; b < plan.ir.buffers.size(); ++b) {
    const auto& info = plan.ir.buffers[b];
    if (info.kind == ir::access::temp || info.family_index > 0) continue;
    const auto name = plan.ir.buffer_name(static_cast<std::int32_t>(b));
    out << (any ? ", " : "");
    if (info.family_index == 0)
      out << quote{name.substr(0, name.size() - 3)} << " (a family of " << info.family_size << ')';
    else
      out << quote{name};
    any = true;
  }
  for (const auto& p : plan.ir.params) {
    out << (any ? ", " : "") << quote{plan.ir.name(p.name)};
    any = true;
  }
  if (!any) out << "none";
  // A misspelt call would otherwise look like a missing buffer.
  for (std::size_t k = 0; k < plan.ir.calls.size(); ++k)
    out << (k ? ", " : "; its calls, bound with sd::bind_call: ")
        << quote{plan.ir.call_name(static_cast<std::int32_t>(k))};
  return out;
}

class problem_list {
 public:
  // A new line of the report, to write the problem into.
  text& add() {
    if (count_++ > 0) lines_ << "\n  ";
    return lines_;
  }
  void throw_if_any() const {
    if (count_ > 0) throw_all();
  }

 private:
  [[noreturn, gnu::cold, gnu::noinline]] void throw_all() const {
    text msg;
    if (count_ == 1)
      msg << "streamdsl: bad binding: ";
    else
      msg << "streamdsl: " << count_ << " bad bindings:\n  ";
    msg << lines_.view();
    throw_with<binding_error>(msg);
  }
  text lines_;
  std::size_t count_ = 0;
};

// The largest object the address space allows (PTRDIFF_MAX bytes): a larger
// byte count, or one that wraps around std::size_t, cannot describe memory.
inline constexpr std::size_t max_object_bytes = static_cast<std::size_t>(PTRDIFF_MAX);

// A rank-2 buffer is bound with its rows and columns (they give its
// domains' extents), any other buffer without; returns whether it is.
[[gnu::cold]] inline bool check_shape(const plan_view& plan, std::int32_t b, const binding& given,
                                      problem_list& problems) {
  const auto& info = plan.ir.buffers[static_cast<std::size_t>(b)];
  const auto name = plan.ir.buffer_name(b);
  const bool rank2 =
      info.domain >= 0 && ir::is_product(plan.ir.domains[static_cast<std::size_t>(info.domain)]);
  if (rank2 && !given.is_matrix()) {
    const auto& d = plan.ir.domains[static_cast<std::size_t>(info.domain)];
    problems.add()
        << buffer_description{plan, b} << " is bound to " << given.size()
        << " elements without its shape; bind a rank-2 buffer with its rows and columns: sd::bind(\"" << name
        << "\", data, " << plan.ir.domain_name(d.outer) << ", " << plan.ir.domain_name(d.inner) << ")";
    return false;
  }
  if (!rank2 && given.is_matrix()) {
    problems.add() << buffer_description{plan, b} << " is bound with " << given.rows() << " rows and "
                   << given.cols() << " columns, but it is not a rank-2 buffer; bind it with sd::bind(\""
                   << name << "\", data)";
    return false;
  }
  if (rank2 && (given.cols() != 0 && given.rows() > SIZE_MAX / given.cols())) {
    problems.add() << buffer_description{plan, b} << " is bound with " << given.rows() << " rows and "
                   << given.cols() << " columns, more elements than a size_t can count";
    return false;
  }
  if (rank2 && given.size() != given.rows() * given.cols()) {
    problems.add() << buffer_description{plan, b} << " is bound to " << given.size() << " elements as "
                   << given.rows() << " rows of " << given.cols() << " (" << given.rows() * given.cols()
                   << " elements); bind a container of rows * cols elements";
    return false;
  }
  return true;
}

// Checks one buffer's binding; returns whether it describes memory the other
// checks (extents, overlaps) and the executors can use.
[[gnu::cold]] inline bool check_buffer_binding(const plan_view& plan, std::int32_t b, const binding& given,
                                               problem_list& problems) {
  const auto& info = plan.ir.buffers[static_cast<std::size_t>(b)];
  const auto name = plan.ir.buffer_name(b);
  const buffer_description what{plan, b};
  if (info.kind == ir::access::temp) {
    problems.add() << quote{name}
                   << " is a temp of the program: the executor places temps in its own workspace, "
                      "so they cannot be bound; remove this binding or declare it p.output<T>(...)";
    return false;
  }
  if (given.is_param()) {
    problems.add()
        << what << " is bound to a single value; bind its memory, e.g. sd::bind(\"" << name
        << "\", data) with a contiguous container (std::vector, std::span, ...) or a pointer and a count";
    return false;
  }
  if (given.type() != info.type)
    problems.add() << what << " is bound to " << name_of(given.type()) << " data; bind " << name_of(info.type)
                   << " elements";
  if (given.data() == nullptr && given.size() > 0)
    problems.add() << what << " is bound to a null pointer with " << given.size() << " elements";
  const auto align = size_of(given.type());
  // The larger element size when the types differ (already reported): the
  // overlap check below measures the memory in the program's type.
  const auto element = align > size_of(info.type) ? align : size_of(info.type);
  if (given.size() > max_object_bytes / element) {
    problems.add() << what << " is bound to " << given.size() << " elements of " << name_of(given.type())
                   << ", more bytes than the address space allows (at most " << max_object_bytes
                   << "); pass the element count, not a byte count or a negative number";
    return false;
  }
  const auto start = reinterpret_cast<std::uintptr_t>(given.data());
  if (start != 0 && given.size() * element > UINTPTR_MAX - start) {
    problems.add() << what << " is bound to " << given.size() << " elements at address "
                   << address{given.data()}
                   << ", which run past the end of the address space; pass the element count of that memory";
    return false;
  }
  if (given.data() != nullptr && reinterpret_cast<std::uintptr_t>(given.data()) % align != 0)
    problems.add() << what << " is bound to address " << address{given.data()} << ", which is not aligned to "
                   << align << " bytes as " << name_of(given.type()) << " needs";
  if (given.read_only() && info.kind != ir::access::input)
    problems.add() << what
                   << " is bound to read-only (const) memory, but the program writes it; bind mutable data";
  if (info.domain < 0 && given.size() != 1)
    problems.add() << what << " is bound to " << given.size()
                   << " elements; a 0-d buffer holds exactly one element";
  return check_shape(plan, b, given, problems);
}

[[gnu::cold]] inline void check_param_binding(const plan_view& plan, std::int32_t p, const binding& given,
                                              problem_list& problems) {
  const auto& info = plan.ir.params[static_cast<std::size_t>(p)];
  const auto name = plan.ir.name(info.name);
  const param_description what{plan, p};
  if (!given.is_param()) {
    problems.add() << what << " is bound to memory (" << given.size()
                   << " elements); a param takes a value, e.g. sd::bind(\"" << name << "\", "
                   << name_of(info.type) << "(...))";
    return;
  }
  if (given.type() != info.type)
    problems.add() << what << " is bound to a " << name_of(given.type()) << " value; write sd::bind(\""
                   << name << "\", " << name_of(info.type) << "(...))";
}

// A binding of a family: one line for what concerns the whole family (its
// size, type, access), the member checks (null, alignment, extents) per
// member, naming it. Marks the members named.
// A family binding whose name is no family of the plan.
[[gnu::cold]] inline void report_not_a_family(const plan_view& plan, const binding& given,
                                              detail::dyn_array<unsigned char>& named,
                                              problem_list& problems) {
  const auto name = given.name();
  if (const auto b = plan.buffer_id(name); b >= 0) {
    named[static_cast<std::size_t>(b)] = 1;
    problems.add() << buffer_description{plan, b} << " is a single buffer, but is bound to a family of "
                   << given.size() << (given.size() == 1 ? " member" : " members")
                   << "; bind its memory with sd::bind(\"" << name << "\", data)";
  } else {
    append_bindable_names(problems.add() << "unknown name " << quote{name}
                                         << ": the program has no buffer family called that (it binds ",
                          plan)
        << ')';
  }
}

[[gnu::cold]] inline void resolve_family(const plan_view& plan, const binding& given, resolved_bindings& r,
                                         detail::dyn_array<unsigned char>& bound,
                                         detail::dyn_array<unsigned char>& named, problem_list& problems) {
  const auto name = given.name();
  const auto first = family_first(plan, name);
  if (first < 0) {
    report_not_a_family(plan, given, named, problems);
    return;
  }
  const auto& info = plan.ir.buffers[static_cast<std::size_t>(first)];
  const auto size = static_cast<std::size_t>(info.family_size);
  for (std::size_t i = 0; i < size; ++i) {
    auto& n = named[static_cast<std::size_t>(first) + i];
    if (n)
      problems.add() << quote{plan.ir.buffer_name(first + static_cast<std::int32_t>(i))}
                     << " is bound more than once (alone and in its family's binding)";
    n = 1;
  }
  const family_description what{plan, first};
  if (info.kind == ir::access::temp) {
    problems.add() << what
                   << " is a temp family of the program: the executor places temps in its own workspace, so "
                      "they cannot be bound; remove this binding or declare it p.outputs<T>(...)";
    return;
  }
  if (given.size() != size) {
    problems.add() << what << " is bound to " << given.size() << (given.size() == 1 ? " member" : " members")
                   << "; bind exactly one span (or pointer and extent) per member, " << name << "[0] to "
                   << name << '[' << size - 1 << "], in order";
    return;
  }
  if (given.type() != info.type) {
    problems.add() << what << " is bound to " << name_of(given.type()) << " data; bind " << name_of(info.type)
                   << " elements";
    return;
  }
  if (given.read_only() && info.kind != ir::access::input) {
    problems.add() << what
                   << " is bound to read-only (const) memory, but the program writes it; bind mutable data";
    return;
  }
  for (std::size_t i = 0; i < size; ++i) {
    const auto b = first + static_cast<std::int32_t>(i);
    const auto& m = given.members()[i];
    const auto idx = static_cast<std::size_t>(b);
    bound[idx] = check_buffer_binding(
        plan, b, binding::buffer(plan.ir.buffer_name(b), given.type(), m.data, m.count, given.read_only()),
        problems);
    if (bound[idx]) {
      r.buffer_data[idx] = const_cast<void*>(m.data);
      r.buffer_count[idx] = m.count;
    }
  }
}

// Buffers of one domain have one extent; the first bound buffer sets it. A
// rank-2 buffer gives its rows' and its columns' domains theirs, and a
// product domain's extent is theirs multiplied (ir/shape.hpp). Returns
// whether every domain's buffers agree (the region checks below read the
// domains' extents, which mean nothing where they disagree).
[[gnu::cold]] inline bool check_extents(const plan_view& plan, resolved_bindings& r,
                                        const detail::dyn_array<unsigned char>& bound,
                                        problem_list& problems) {
  bool agree = true;
  detail::dyn_array<std::int32_t> first(plan.ir.domains.size(), -1);
  detail::dyn_array<const char*> first_unit(plan.ir.domains.size(), nullptr);
  constexpr const char* elements = " elements";
  auto set = [&](std::int32_t d, std::size_t n, std::int32_t b, const char* unit) {
    const auto i = static_cast<std::size_t>(d);
    auto& extent = r.domain_extent[i];
    if (first[i] < 0) {
      first[i] = b;
      first_unit[i] = unit;
      extent = n;
    } else if (n != extent) {
      agree = false;
      problems.add() << "buffers of domain " << quote{plan.ir.domain_name(d)} << " must have one extent, but "
                     << quote{plan.ir.buffer_name(first[i])} << " is bound to " << extent << first_unit[i]
                     << " and " << quote{plan.ir.buffer_name(b)} << " to " << n
                     << (unit == elements ? "" : unit);
    }
  };
  for (std::int32_t b = 0; b < static_cast<std::int32_t>(plan.ir.buffers.size()); ++b) {
    const auto i = static_cast<std::size_t>(b);
    const auto d = plan.ir.buffers[i].domain;
    if (d < 0 || !bound[i]) continue;
    const auto& info = plan.ir.domains[static_cast<std::size_t>(d)];
    if (!ir::is_product(info)) {
      set(d, r.buffer_count[i], b, elements);
      continue;
    }
    set(info.outer, r.buffer_rows[i], b, " (its rows)");
    set(info.inner, r.buffer_cols[i], b, " (its columns)");
  }
  for (std::size_t d = 0; d < plan.ir.domains.size(); ++d) {
    const auto& info = plan.ir.domains[d];
    if (!ir::is_product(info)) continue;
    const auto rows = r.domain_extent[static_cast<std::size_t>(info.outer)];
    const auto cols = r.domain_extent[static_cast<std::size_t>(info.inner)];
    if (cols != 0 && rows > SIZE_MAX / cols) {
      agree = false;
      problems.add() << "domain " << quote{plan.ir.domain_name(static_cast<std::int32_t>(d))}
                     << " is bound to " << rows << " rows of " << cols
                     << ", more elements than a size_t can count";
      continue;
    }
    r.domain_extent[d] = rows * cols;
  }
  return agree;
}

// A buffer the program writes must not share memory with another bound
// buffer: the plan orders accesses by buffer, so aliases would race.
[[gnu::cold]] inline void check_overlaps(const plan_view& plan, const resolved_bindings& r,
                                         const detail::dyn_array<unsigned char>& bound,
                                         problem_list& problems) {
  struct range {
    std::uintptr_t lo, hi;
    std::int32_t buffer;
  };
  detail::dyn_array<range> ranges;
  ranges.reserve(plan.ir.buffers.size());
  for (std::int32_t b = 0; b < static_cast<std::int32_t>(plan.ir.buffers.size()); ++b) {
    const auto i = static_cast<std::size_t>(b);
    if (!bound[i] || r.buffer_count[i] == 0 || r.buffer_data[i] == nullptr) continue;
    const auto lo = reinterpret_cast<std::uintptr_t>(r.buffer_data[i]);
    // Insertion by start address (few buffers; no <algorithm>).
    std::size_t at = ranges.size();
    ranges.push_back({lo, lo + r.buffer_count[i] * size_of(plan.ir.buffers[i].type), b});
    for (; at > 0 && ranges[at - 1].lo > lo; --at) {
      const range moved = ranges[at - 1];
      ranges[at - 1] = ranges[at];
      ranges[at] = moved;
    }
  }
  auto written = [&](std::int32_t b) {
    return plan.ir.buffers[static_cast<std::size_t>(b)].kind != ir::access::input;
  };
  for (std::size_t i = 0; i < ranges.size(); ++i)
    for (std::size_t j = i + 1; j < ranges.size() && ranges[j].lo < ranges[i].hi; ++j)
      if (written(ranges[i].buffer) || written(ranges[j].buffer))
        problems.add() << "buffers " << quote{plan.ir.buffer_name(ranges[i].buffer)} << " and "
                       << quote{plan.ir.buffer_name(ranges[j].buffer)}
                       << " overlap in memory and the program writes at least one of them; give each its own "
                          "memory (an in-place update is a p.inout<T>(...) buffer)";
}

// The extent of buffer b once the domains are bound (a 0-d buffer: 1).
inline std::size_t extent_of(const plan_view& plan, const resolved_bindings& r, std::int32_t b) {
  const auto d = plan.ir.buffers[static_cast<std::size_t>(b)].domain;
  return d < 0 ? 1 : r.domain_extent[static_cast<std::size_t>(d)];
}

// Chunks split a buffer into equal parts, so its extent must be a multiple
// of each number of parts it is split into; a copy's source and destination
// must hold as many elements (the compiler checked those of one domain).
[[gnu::cold]] inline void check_regions(const plan_view& plan, const resolved_bindings& r,
                                        problem_list& problems) {
  const auto& v = plan.ir;
  for (std::size_t i = 0; i < v.accesses.size(); ++i) {
    const auto& a = v.accesses[i];
    if (ir::is_whole(a)) continue;
    const auto n = extent_of(plan, r, a.buffer);
    if (n % static_cast<std::size_t>(a.parts) == 0) continue;  // the common case: no scan
    bool seen = false;                                         // reported once per buffer and number of parts
    for (std::size_t j = 0; j < i && !seen; ++j)
      seen = v.accesses[j].buffer == a.buffer && v.accesses[j].parts == a.parts;
    if (seen) continue;
    const auto name = v.buffer_name(a.buffer);
    problems.add() << buffer_description{plan, a.buffer} << " is split into " << a.parts << " chunks ("
                   << name << ".chunk(i, " << a.parts << ")), but its domain is bound to " << n
                   << " elements, not a multiple of " << a.parts
                   << "; chunks are equal parts, so bind a multiple of " << a.parts << " elements";
  }
  for (const auto& s : v.stmts) {
    if (s.kind != ir::stmt_kind::step) continue;
    if (s.code == ir::step_code::min || s.code == ir::step_code::max || s.code == ir::step_code::argmax) {
      // No value to give (PyTorch raises too); sum and mean of nothing are 0 and NaN.
      // Only an empty domain: a chunk of a domain bound to fewer elements than
      // chunks is empty too, but the chunk check above reports that extent.
      // Along the last axis: each row (none when there are no rows).
      auto domain = ir::shape_of_step(v, s).domain;
      if (domain < 0) continue;
      if (s.axis >= 0) {
        if (r.domain_extent[static_cast<std::size_t>(v.domains[static_cast<std::size_t>(domain)].outer)] == 0)
          continue;
        domain = s.axis;
      }
      if (r.domain_extent[static_cast<std::size_t>(domain)] > 0) continue;
      text code;
      ir::render_statement(v, s, code);
      problems.add() << "statement #" << s.origin << " `" << code.view() << "` reduces no elements (domain '"
                     << v.domain_name(domain) << "' is bound to 0 elements), and "
                     << ir::info(s.code).spelling
                     << " of nothing has no value; bind at least one element, or skip the run";
      continue;
    }
    if (s.code != ir::step_code::copy) continue;
    const auto c = ir::copy_regions_of(v, s);
    const auto from = ir::elements_of(c.src, extent_of(plan, r, c.src.buffer)).count;
    const auto to = ir::elements_of(c.dst, extent_of(plan, r, c.dst.buffer)).count;
    if (from == to) continue;
    text code;
    ir::render_statement(v, s, code);
    problems.add() << "statement #" << s.origin << " `" << code.view() << "` copies " << from
                   << " elements into a region of " << to
                   << "; bind the two buffers' domains so that the regions "
                   << "hold as many elements";
  }
}

// The call called `name`, or -1.
inline std::int32_t call_id(const plan_view& plan, detail::string_view name) {
  for (std::size_t c = 0; c < plan.ir.calls.size(); ++c)
    if (plan.ir.call_name(static_cast<std::int32_t>(c)) == name) return static_cast<std::int32_t>(c);
  return -1;
}

// "statement #2 `p.call(...)` on stream 'side'": the first statement naming call c.
struct call_site {
  const plan_view& plan;
  std::size_t call;
};
[[gnu::cold]] inline text& operator<<(text& out, call_site c) {
  for (std::size_t i = 0; i < c.plan.ir.stmts.size(); ++i) {
    const auto& s = c.plan.ir.stmts[i];
    if (s.kind == ir::stmt_kind::step && ir::info(s.code).form == ir::step_form::call &&
        s.event == static_cast<std::int32_t>(c.call)) {
      ir::describe_statement(c.plan.ir, static_cast<std::int32_t>(i), out);
      return out;
    }
  }
  return out << "no statement";
}

// A binding named like a call, or an sd::bind_call: the call's callable.
[[gnu::cold]] inline void report_call_mismatch(const plan_view& plan, std::int32_t c, const binding& given,
                                               problem_list& problems) {
  if (c < 0 && (plan.buffer_id(given.name()) >= 0 || param_id(plan, given.name()) >= 0)) {
    problems.add() << "sd::bind_call(" << quote{given.name()} << ", ...): " << quote{given.name()} << " is a "
                   << (plan.buffer_id(given.name()) >= 0 ? "buffer" : "param")
                   << " of the program, not a call; bind it with sd::bind(\"" << given.name() << "\", ...)";
    return;
  }
  if (c < 0) {
    auto& line = problems.add() << "sd::bind_call(" << quote{given.name()}
                                << ", ...): the program has no call called that (its calls: ";
    for (std::size_t k = 0; k < plan.ir.calls.size(); ++k)
      line << (k ? ", " : "") << quote{plan.ir.call_name(static_cast<std::int32_t>(k))};
    line << (plan.ir.calls.empty() ? "none; p.call(\"name\", sd::reads(...), sd::writes(...)) declares one)"
                                   : ")");
    return;
  }
  problems.add() << quote{given.name()} << " is a call (" << call_site{plan, static_cast<std::size_t>(c)}
                 << ") and is bound to " << (given.is_param() ? "a value" : "memory")
                 << "; bind its callable: sd::bind_call(\"" << given.name()
                 << "\", [](sd::call_context& c) { ... })";
}
inline void resolve_call(const plan_view& plan, std::int32_t c, const binding& given, resolved_bindings& r,
                         problem_list& problems) {
  if (c >= 0) r.call_target[static_cast<std::size_t>(c)] = &given;  // named: not reported missing too
  if (c < 0 || !given.is_call())
    report_call_mismatch(plan, c, given, problems);
  else if (given.callable().identity() == nullptr)
    problems.add() << "sd::bind_call(" << quote{given.name()}
                   << ", ...) is given a null function pointer; bind a function or a lambda";
}

// The id of x[0] of the family called `name`, or -1; always -1 without
// families (a plain name cannot end in "[0]").
template <bool Families>
std::int32_t family_first_if(const plan_view& plan, detail::string_view name) {
  if constexpr (Families)
    return family_first(plan, name);
  else
    return -1;
}

}  // namespace backend_detail

// Which of the binding checks a plan can need: without families the family
// checks, without chunks and copies the region checks find nothing. An
// executor that knows its plan at compile time passes binding_checks_of(plan)
// to resolve_bindings, so that its unit does not compile checks that cannot
// apply (nvcc's host pass compiles every function a run may call, without
// optimisation; docs/benchmarks.md, "Session 7"). The reports are the same.
struct binding_checks {
  bool families = true;
  bool regions = true;
};

constexpr binding_checks binding_checks_of(const plan_view& plan) {
  binding_checks c{false, false};
  for (const auto& b : plan.ir.buffers) c.families = c.families || b.family_index >= 0;
  for (const auto& a : plan.ir.accesses) c.regions = c.regions || !ir::is_whole(a);
  for (const auto& s : plan.ir.stmts) c.regions = c.regions || s.kind == ir::stmt_kind::step;
  return c;
}

// Matches `bindings` to the plan and checks them; throws binding_error
// listing every problem. `Checks`: binding_checks_of(plan), or every check.
template <binding_checks Checks = binding_checks{}>
resolved_bindings resolve_bindings(const plan_view& plan, binding_list bindings) {
  using namespace backend_detail;
  if (!plan.valid()) {
    text msg;
    msg << "streamdsl: this plan cannot run: scheduling it failed: " << plan.error;
    throw_with<binding_error>(msg);
  }
  const auto buffers = plan.ir.buffers.size();
  resolved_bindings r{detail::dyn_array<void*>(buffers, nullptr),
                      detail::dyn_array<std::size_t>(buffers, 0),
                      detail::dyn_array<std::size_t>(plan.ir.domains.size(), 0),
                      detail::dyn_array<const binding*>(plan.ir.params.size(), nullptr),
                      detail::dyn_array<std::size_t>(buffers, 0),
                      detail::dyn_array<std::size_t>(buffers, 0),
                      detail::dyn_array<const binding*>(plan.ir.calls.size(), nullptr)};
  detail::dyn_array<unsigned char> bound(buffers, 0);  // per buffer: bound to memory the checks accept
  detail::dyn_array<unsigned char> named(buffers, 0);  // per buffer: a binding names it (accepted or not)
  problem_list problems;

  for (std::size_t i = 0; i < bindings.size(); ++i) {
    const binding& given = bindings[i];
    bool duplicate = false;
    for (std::size_t j = 0; j < i && !duplicate; ++j) duplicate = bindings[j].name() == given.name();
    if (duplicate) {
      problems.add() << quote{given.name()} << " is bound more than once";
      continue;
    }
    if (const auto c = call_id(plan, given.name()); c >= 0 || given.is_call()) {
      resolve_call(plan, c, given, r, problems);
    } else if (given.is_family()) {
      if constexpr (Checks.families)
        resolve_family(plan, given, r, bound, named, problems);
      else
        report_not_a_family(plan, given, named, problems);
    } else if (const auto b = plan.buffer_id(given.name()); b >= 0) {
      const auto idx = static_cast<std::size_t>(b);
      if (named[idx]) {  // a family member, bound in its family's binding too
        problems.add() << quote{given.name()}
                       << " is bound more than once (alone and in its family's binding)";
        continue;
      }
      named[idx] = 1;
      bound[idx] = check_buffer_binding(plan, b, given, problems);
      if (bound[idx]) {
        r.buffer_data[idx] = const_cast<void*>(given.data());
        r.buffer_count[idx] = given.size();
        r.buffer_rows[idx] = given.rows();
        r.buffer_cols[idx] = given.cols();
      }
    } else if (const auto p = param_id(plan, given.name()); p >= 0) {
      check_param_binding(plan, p, given, problems);
      r.param_value[static_cast<std::size_t>(p)] = &given;
    } else if (const auto f = family_first_if<Checks.families>(plan, given.name()); f >= 0) {
      const auto size = plan.ir.buffers[static_cast<std::size_t>(f)].family_size;
      for (std::int32_t m = 0; m < size; ++m) named[static_cast<std::size_t>(f + m)] = 1;
      problems.add()
          << family_description{plan, f} << " is bound to "
          << (given.is_param() ? "a single value" : "one buffer's memory")
          << "; bind one piece of memory per member: sd::bind(\"" << given.name()
          << "\", members) with a container of spans or of (pointer, extent) pairs, or each member "
             "alone as sd::bind(\""
          << given.name() << "[0]\", ...)";
    } else {
      append_bindable_names(problems.add() << "unknown name " << quote{given.name()}
                                           << ": the program has no buffer or param called that (it binds ",
                            plan)
          << ')';
    }
  }
  // Bound under its name but rejected above: already reported. A family
  // none of whose members is named is missing as a whole: one line.
  for (std::int32_t b = 0; b < static_cast<std::int32_t>(buffers); ++b) {
    const auto& info = plan.ir.buffers[static_cast<std::size_t>(b)];
    if (info.kind == ir::access::temp || named[static_cast<std::size_t>(b)]) continue;
    if constexpr (Checks.families) {
      if (info.family_index == 0) {
        bool any = false;
        for (std::int32_t m = 1; m < info.family_size; ++m)
          any = any || named[static_cast<std::size_t>(b + m)];
        if (!any) {
          problems.add() << "missing binding for " << family_description{plan, b};
          b += info.family_size - 1;
          continue;
        }
      }
    }
    problems.add() << "missing binding for " << buffer_description{plan, b};
  }
  for (std::size_t p = 0; p < plan.ir.params.size(); ++p)
    if (r.param_value[p] == nullptr)
      problems.add() << "missing binding for " << param_description{plan, static_cast<std::int32_t>(p)};
  for (std::size_t c = 0; c < plan.ir.calls.size(); ++c)
    if (r.call_target[c] == nullptr) {
      const auto name = plan.ir.call_name(static_cast<std::int32_t>(c));
      problems.add() << "missing binding for call " << quote{name} << " (" << call_site{plan, c}
                     << "); bind its callable: sd::bind_call(\"" << name
                     << "\", [](sd::call_context& c) { ... })";
    }
  // Chunks and copies are checked against agreed extents only: where a
  // domain's buffers disagree, the extent is the first buffer's, and the
  // others' chunks and copies would be reported against a size they are not
  // bound to.
  if (check_extents(plan, r, bound, problems)) {
    if constexpr (Checks.regions) check_regions(plan, r, problems);
  }
  check_overlaps(plan, r, bound, problems);
  problems.throw_if_any();
  return r;
}

}  // namespace streamdsl
