#pragma once
// Matches a caller's bindings to a plan's buffers and params by name and
// checks them, so that an executor can trust what it gets. Every problem is
// collected and reported in one binding_error (each line names the buffer or
// param), thrown before any work is issued.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "../plan/plan_view.hpp"
#include "bindings.hpp"

namespace streamdsl {

// Per buffer, param and domain of the plan: what the bindings supplied.
struct resolved_bindings {
  std::vector<void*> buffer_data;         // per buffer; nullptr for temps
  std::vector<std::size_t> buffer_count;  // per buffer; 0 for temps
  std::vector<std::size_t> domain_extent;  // per domain; 0 when no bound buffer has it
  std::vector<const binding*> param_value;  // per param
};

namespace backend_detail {

// (Appends rather than "'" + std::string(s) + "'": g++ 12 at -O2 warns about
// the latter with a false -Wrestrict, GCC bug 105329.)
inline std::string quoted(std::string_view s) {
  std::string q;
  q.reserve(s.size() + 2);
  q += '\'';
  q += s;
  q += '\'';
  return q;
}

inline std::string describe_buffer(const plan_view& plan, std::int32_t b) {
  const auto& info = plan.ir.buffers[static_cast<std::size_t>(b)];
  std::string d = std::string(ir::name_of(info.kind)) + " buffer " + quoted(plan.ir.buffer_name(b)) + " (" +
                  std::string(name_of(info.type));
  d += info.domain < 0 ? ", 0-d)" : ", domain " + quoted(plan.ir.domain_name(info.domain)) + ")";
  return d;
}

inline std::int32_t param_id(const plan_view& plan, std::string_view name) {
  for (std::size_t i = 0; i < plan.ir.params.size(); ++i)
    if (plan.ir.name(plan.ir.params[i].name) == name) return static_cast<std::int32_t>(i);
  return -1;
}

// The names a caller can bind, for the "unknown name" message.
inline std::string bindable_names(const plan_view& plan) {
  std::string out;
  for (std::size_t b = 0; b < plan.ir.buffers.size(); ++b) {
    if (plan.ir.buffers[b].kind == ir::access::temp) continue;
    out += (out.empty() ? "" : ", ") + quoted(plan.ir.buffer_name(static_cast<std::int32_t>(b)));
  }
  for (const auto& p : plan.ir.params) out += (out.empty() ? "" : ", ") + quoted(plan.ir.name(p.name));
  return out.empty() ? "none" : out;
}

inline std::string address_of(const void* p) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", p);
  return text;
}

class problem_list {
 public:
  void add(std::string line) { lines_.push_back(std::move(line)); }
  void throw_if_any() const {
    if (lines_.empty()) return;
    std::string msg = lines_.size() == 1 ? "streamdsl: bad binding: "
                                         : "streamdsl: " + std::to_string(lines_.size()) + " bad bindings:\n  ";
    for (std::size_t i = 0; i < lines_.size(); ++i) msg += (i ? "\n  " : "") + lines_[i];
    throw binding_error(msg);
  }

 private:
  std::vector<std::string> lines_;
};

inline void check_buffer_binding(const plan_view& plan, std::int32_t b, const binding& given, problem_list& problems) {
  const auto& info = plan.ir.buffers[static_cast<std::size_t>(b)];
  const auto name = plan.ir.buffer_name(b);
  const std::string what = describe_buffer(plan, b);
  if (info.kind == ir::access::temp) {
    problems.add(quoted(name) + " is a temp of the program: the executor places temps in its own workspace, "
                                "so they cannot be bound; remove this binding or declare it p.output<T>(...)");
    return;
  }
  if (given.is_param()) {
    problems.add(what + " is bound to a single value; bind its memory, e.g. sd::bind(\"" + std::string(name) +
                 "\", data) with a std::span, a std::vector or a pointer and a count");
    return;
  }
  if (given.type() != info.type)
    problems.add(what + " is bound to " + std::string(name_of(given.type())) + " data; bind " +
                 std::string(name_of(info.type)) + " elements");
  if (given.data() == nullptr && given.size() > 0)
    problems.add(what + " is bound to a null pointer with " + std::to_string(given.size()) + " elements");
  const auto align = size_of(given.type());
  if (given.data() != nullptr && reinterpret_cast<std::uintptr_t>(given.data()) % align != 0)
    problems.add(what + " is bound to address " + address_of(given.data()) + ", which is not aligned to " +
                 std::to_string(align) + " bytes as " + std::string(name_of(given.type())) + " needs");
  if (given.read_only() && info.kind != ir::access::input)
    problems.add(what + " is bound to read-only (const) memory, but the program writes it; bind mutable data");
  if (info.domain < 0 && given.size() != 1)
    problems.add(what + " is bound to " + std::to_string(given.size()) +
                 " elements; a 0-d buffer holds exactly one element");
}

inline void check_param_binding(const plan_view& plan, std::int32_t p, const binding& given, problem_list& problems) {
  const auto& info = plan.ir.params[static_cast<std::size_t>(p)];
  const std::string name(plan.ir.name(info.name));
  const std::string what = "param " + quoted(name) + " (" + std::string(name_of(info.type)) + ")";
  if (!given.is_param()) {
    problems.add(what + " is bound to memory (" + std::to_string(given.size()) +
                 " elements); a param takes a value, e.g. sd::bind(\"" + name + "\", " +
                 std::string(name_of(info.type)) + "(...))");
    return;
  }
  if (given.type() != info.type)
    problems.add(what + " is bound to a " + std::string(name_of(given.type())) + " value; write sd::bind(\"" + name +
                 "\", " + std::string(name_of(info.type)) + "(...))");
}

// Buffers of one domain have one extent; the first bound buffer sets it.
inline void check_extents(const plan_view& plan, resolved_bindings& r, const std::vector<bool>& bound,
                          problem_list& problems) {
  std::vector<std::int32_t> first(plan.ir.domains.size(), -1);
  for (std::int32_t b = 0; b < static_cast<std::int32_t>(plan.ir.buffers.size()); ++b) {
    const auto d = plan.ir.buffers[static_cast<std::size_t>(b)].domain;
    if (d < 0 || !bound[static_cast<std::size_t>(b)]) continue;
    const auto n = r.buffer_count[static_cast<std::size_t>(b)];
    auto& f = first[static_cast<std::size_t>(d)];
    if (f < 0) {
      f = b;
      r.domain_extent[static_cast<std::size_t>(d)] = n;
    } else if (n != r.domain_extent[static_cast<std::size_t>(d)]) {
      problems.add("buffers of domain " + quoted(plan.ir.domain_name(d)) + " must have one extent, but " +
                   quoted(plan.ir.buffer_name(f)) + " is bound to " +
                   std::to_string(r.domain_extent[static_cast<std::size_t>(d)]) + " elements and " +
                   quoted(plan.ir.buffer_name(b)) + " to " + std::to_string(n));
    }
  }
}

// A buffer the program writes must not share memory with another bound
// buffer: the plan orders accesses by buffer, so aliases would race.
inline void check_overlaps(const plan_view& plan, const resolved_bindings& r, const std::vector<bool>& bound,
                           problem_list& problems) {
  struct range {
    std::uintptr_t lo, hi;
    std::int32_t buffer;
  };
  std::vector<range> ranges;
  for (std::int32_t b = 0; b < static_cast<std::int32_t>(plan.ir.buffers.size()); ++b) {
    const auto i = static_cast<std::size_t>(b);
    if (!bound[i] || r.buffer_count[i] == 0 || r.buffer_data[i] == nullptr) continue;
    const auto lo = reinterpret_cast<std::uintptr_t>(r.buffer_data[i]);
    ranges.push_back({lo, lo + r.buffer_count[i] * size_of(plan.ir.buffers[i].type), b});
  }
  std::sort(ranges.begin(), ranges.end(), [](const range& a, const range& b) { return a.lo < b.lo; });
  auto written = [&](std::int32_t b) { return plan.ir.buffers[static_cast<std::size_t>(b)].kind != ir::access::input; };
  for (std::size_t i = 0; i < ranges.size(); ++i)
    for (std::size_t j = i + 1; j < ranges.size() && ranges[j].lo < ranges[i].hi; ++j)
      if (written(ranges[i].buffer) || written(ranges[j].buffer))
        problems.add("buffers " + quoted(plan.ir.buffer_name(ranges[i].buffer)) + " and " +
                     quoted(plan.ir.buffer_name(ranges[j].buffer)) +
                     " overlap in memory and the program writes at least one of them; give each its own memory "
                     "(an in-place update is a p.inout<T>(...) buffer)");
}

}  // namespace backend_detail

// Matches `bindings` to the plan and checks them; throws binding_error
// listing every problem.
inline resolved_bindings resolve_bindings(const plan_view& plan, std::span<const binding> bindings) {
  using namespace backend_detail;
  if (!plan.valid())
    throw binding_error("streamdsl: this plan cannot run: scheduling it failed: " + std::string(plan.error));
  const auto buffers = plan.ir.buffers.size();
  resolved_bindings r;
  r.buffer_data.assign(buffers, nullptr);
  r.buffer_count.assign(buffers, 0);
  r.domain_extent.assign(plan.ir.domains.size(), 0);
  r.param_value.assign(plan.ir.params.size(), nullptr);
  std::vector<bool> bound(buffers, false);
  problem_list problems;

  for (std::size_t i = 0; i < bindings.size(); ++i) {
    const binding& given = bindings[i];
    bool duplicate = false;
    for (std::size_t j = 0; j < i && !duplicate; ++j) duplicate = bindings[j].name() == given.name();
    if (duplicate) {
      problems.add(quoted(given.name()) + " is bound more than once");
      continue;
    }
    if (const auto b = plan.buffer_id(given.name()); b >= 0) {
      check_buffer_binding(plan, b, given, problems);
      const auto idx = static_cast<std::size_t>(b);
      bound[idx] = plan.ir.buffers[idx].kind != ir::access::temp && !given.is_param();
      if (bound[idx]) {
        r.buffer_data[idx] = const_cast<void*>(given.data());
        r.buffer_count[idx] = given.size();
      }
    } else if (const auto p = param_id(plan, given.name()); p >= 0) {
      check_param_binding(plan, p, given, problems);
      r.param_value[static_cast<std::size_t>(p)] = &given;
    } else {
      problems.add("unknown name " + quoted(given.name()) + ": the program has no buffer or param called that "
                   "(it binds " + bindable_names(plan) + ")");
    }
  }
  for (std::int32_t b = 0; b < static_cast<std::int32_t>(buffers); ++b) {
    const auto& info = plan.ir.buffers[static_cast<std::size_t>(b)];
    if (info.kind != ir::access::temp && !bound[static_cast<std::size_t>(b)]) {
      bool named = false;  // bound under its name but rejected above: already reported
      for (const auto& given : bindings) named = named || given.name() == plan.ir.buffer_name(b);
      if (!named) problems.add("missing binding for " + describe_buffer(plan, b));
    }
  }
  for (std::size_t p = 0; p < plan.ir.params.size(); ++p)
    if (r.param_value[p] == nullptr)
      problems.add("missing binding for param " + quoted(plan.ir.name(plan.ir.params[p].name)) + " (" +
                   std::string(name_of(plan.ir.params[p].type)) + ")");
  check_extents(plan, r, bound, problems);
  check_overlaps(plan, r, bound, problems);
  problems.throw_if_any();
  return r;
}

}  // namespace streamdsl
