#pragma once
// What the timeline tests read back from sd::chrome_trace: a small JSON
// parser (objects, arrays, strings, numbers, true/false/null; enough for the
// trace format, and strict: anything else throws), and the trace's lanes and
// complete events as Perfetto reads them.
#include <cstddef>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace trace_json {

struct value {
  enum class type { null, boolean, number, string, array, object } kind = type::null;
  bool flag = false;
  double number = 0;
  std::string text;
  std::vector<value> items;
  std::vector<std::pair<std::string, value>> members;

  const value* find(const std::string& key) const {
    for (const auto& m : members)
      if (m.first == key) return &m.second;
    return nullptr;
  }
  const value& at(const std::string& key) const {
    const value* v = find(key);
    if (v == nullptr) throw std::runtime_error("JSON object has no member '" + key + "'");
    return *v;
  }
};

class parser {
 public:
  explicit parser(const std::string& s) : s_(s) {}
  value parse() {
    value v = parse_value();
    skip_space();
    if (i_ != s_.size()) fail("text after the value");
    return v;
  }

 private:
  [[noreturn]] void fail(const char* what) const {
    throw std::runtime_error(std::string("bad JSON at ") + std::to_string(i_) + ": " + what);
  }
  void skip_space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) ++i_;
  }
  bool take(char c) {
    skip_space();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!take(c)) fail("unexpected character");
  }
  bool take_word(const char* w) {
    const std::string word(w);
    if (s_.compare(i_, word.size(), word) != 0) return false;
    i_ += word.size();
    return true;
  }
  std::string parse_string() {
    expect('"');
    std::string out;
    while (true) {
      if (i_ >= s_.size()) fail("unterminated string");
      const char c = s_[i_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= s_.size()) fail("unterminated escape");
      const char e = s_[i_++];
      switch (e) {
        case '"':
        case '\\':
        case '/': out += e; break;
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          if (i_ + 4 > s_.size()) fail("short \\u escape");
          const unsigned code = static_cast<unsigned>(std::stoul(s_.substr(i_, 4), nullptr, 16));
          i_ += 4;
          if (code >= 0x80) fail("\\u escape beyond ASCII (not written by the trace)");
          out += static_cast<char>(code);
          break;
        }
        default: fail("unknown escape");
      }
    }
  }
  value parse_value() {
    skip_space();
    if (i_ >= s_.size()) fail("missing value");
    value v;
    const char c = s_[i_];
    if (c == '{') {
      v.kind = value::type::object;
      ++i_;
      if (take('}')) return v;
      do {
        std::string key = parse_string();
        expect(':');
        v.members.emplace_back(std::move(key), parse_value());
      } while (take(','));
      expect('}');
    } else if (c == '[') {
      v.kind = value::type::array;
      ++i_;
      if (take(']')) return v;
      do v.items.push_back(parse_value());
      while (take(','));
      expect(']');
    } else if (c == '"') {
      v.kind = value::type::string;
      v.text = parse_string();
    } else if (take_word("true") || take_word("false")) {
      v.kind = value::type::boolean;
      v.flag = s_[i_ - 1] == 'e' && s_[i_ - 2] == 'u';
    } else if (take_word("null")) {
      v.kind = value::type::null;
    } else {
      std::size_t used = 0;
      v.kind = value::type::number;
      try {
        v.number = std::stod(s_.substr(i_, 32), &used);
      } catch (const std::exception&) {
        fail("not a value");
      }
      i_ += used;
    }
    return v;
  }

  const std::string& s_;
  std::size_t i_ = 0;
};

inline value parse(const std::string& s) { return parser(s).parse(); }

// A complete event ("ph": "X").
struct slice {
  std::string name, kind;
  double ts = 0, dur = 0;  // microseconds
  int tid = 0;
  double bytes = 0;  // args.bytes, 0 when absent
};

// The lanes (tid -> thread_name) and the complete events of a trace. Throws
// when an event lacks a member Perfetto needs: name and ph always; pid and
// tid; ts and dur for a complete event; args.name for a thread_name.
struct trace {
  std::map<int, std::string> lanes;
  std::vector<slice> slices;
};

inline trace read_trace(const std::string& json) {
  const value doc = parse(json);
  const value& events = doc.at("traceEvents");
  if (events.kind != value::type::array) throw std::runtime_error("traceEvents is not an array");
  trace t;
  for (const auto& e : events.items) {
    const std::string& ph = e.at("ph").text;
    const std::string& name = e.at("name").text;
    const int tid = static_cast<int>(e.at("tid").number);
    (void)e.at("pid");
    if (ph == "M") {
      if (name == "thread_name") t.lanes[tid] = e.at("args").at("name").text;
      continue;
    }
    if (ph != "X") throw std::runtime_error("unexpected event phase " + ph);
    slice s;
    s.name = name;
    s.ts = e.at("ts").number;
    s.dur = e.at("dur").number;
    s.tid = tid;
    s.kind = e.at("args").at("kind").text;
    if (const value* b = e.at("args").find("bytes")) s.bytes = b->number;
    t.slices.push_back(s);
  }
  return t;
}

// Whether two slices share some time.
inline bool overlap(const slice& a, const slice& b) { return a.ts < b.ts + b.dur && b.ts < a.ts + a.dur; }

}  // namespace trace_json
