#pragma once
// A timeline (timeline.hpp) as Chrome-trace JSON, the format Perfetto
// (ui.perfetto.dev) and chrome://tracing open: one process, one thread lane
// per stream slot named after the program's stream, and one complete event
// ("ph": "X", ts and dur in microseconds) per timed op, named by the plan's
// text for it, with its kind, its op index and (for a copy) its bytes as args.
//
//   std::ofstream("run.json") << sd::chrome_trace(t);
//   sd::write_chrome_trace(file, t);  // the same, into anything with write(const char*, n)
#include <cstdint>

#include "../detail/text.hpp"
#include "timeline.hpp"

namespace streamdsl {

namespace backend_detail {

// A JSON string's contents: quotes, backslashes and control characters escaped.
[[gnu::cold]] inline void json_escape(detail::text& out, detail::string_view s) {
  constexpr char hex[] = "0123456789abcdef";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\')
      out << '\\' << c;
    else if (c == '\n')
      out << "\\n";
    else if (u < 0x20)
      out << "\\u00" << hex[u >> 4] << hex[u & 15];
    else
      out << c;
  }
}

// Nanoseconds as microseconds with three decimals ("12.345"), without
// floating-point formatting.
[[gnu::cold]] inline void json_microseconds(detail::text& out, std::int64_t ns) {
  if (ns < 0) {
    out << '-';
    ns = -ns;
  }
  const auto frac = static_cast<int>(ns % 1000);
  out << static_cast<long long>(ns / 1000) << '.' << static_cast<char>('0' + frac / 100)
      << static_cast<char>('0' + frac / 10 % 10) << static_cast<char>('0' + frac % 10);
}

}  // namespace backend_detail

[[gnu::cold]] inline detail::text chrome_trace(const timeline& t) {
  using backend_detail::json_escape;
  detail::text out;
  out << "{\"traceEvents\":[\n";
  out << R"({"name":"process_name","ph":"M","pid":1,"tid":0,"args":{"name":"streamdsl run, )";
  json_escape(out, t.clock());
  out << "\"}}";
  // A lane per stream slot, in slot order.
  for (std::size_t s = 0; s < t.streams().size(); ++s) {
    out << ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":" << s << ",\"args\":{\"name\":\"";
    json_escape(out, t.streams()[s].view());
    out << "\"}},\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":" << s
        << ",\"args\":{\"sort_index\":" << s << "}}";
  }
  for (const auto& slice : t.slices()) {
    out << ",\n{\"name\":\"";
    json_escape(out, slice.name.view());
    out << "\",\"cat\":\"";
    json_escape(out, slice.kind);
    out << "\",\"ph\":\"X\",\"ts\":";
    backend_detail::json_microseconds(out, slice.start_ns);
    out << ",\"dur\":";
    backend_detail::json_microseconds(out, slice.duration_ns);
    out << ",\"pid\":1,\"tid\":" << slice.stream << ",\"args\":{\"kind\":\"";
    json_escape(out, slice.kind);
    out << "\",\"op\":" << slice.op;
    if (slice.bytes > 0) out << ",\"bytes\":" << static_cast<unsigned long long>(slice.bytes);
    out << "}}";
  }
  out << "\n],\"displayTimeUnit\":\"ms\",\"otherData\":{\"clock\":\"";
  json_escape(out, t.clock());
  out << "\",\"run_us\":";
  backend_detail::json_microseconds(out, t.run_ns());
  out << "}}\n";
  return out;
}

// Writes chrome_trace(t) into `out` (a std::ostream, or anything with
// write(const char*, n)): a template, so that this header needs no <ostream>.
template <class Out>
  requires requires(Out& out, const char* p, long n) { out.write(p, n); }
Out& write_chrome_trace(Out& out, const timeline& t) {
  const auto json = chrome_trace(t);
  out.write(json.view().data(), static_cast<long>(json.size()));
  return out;
}

}  // namespace streamdsl
