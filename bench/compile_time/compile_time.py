#!/usr/bin/env python3
"""Compile-time benchmark (docs/benchmarks.md, "Compile time").

Generates multi-stream programs of 20, 50 and 200 statements (elementwise
chains on 2-4 streams with cross-stream event syncs, temps and outputs; valid
under the default sd::checked policy), compiles each with g++ and nvcc, and
measures wall time, CPU time and peak memory of each compile with GNU time
(`/usr/bin/time -f "%e %M %U %S"`; peak = largest resident set of one process
of the compile, e.g. cudafe++ or cicc under nvcc; CPU = user + system of all
its processes, which a busy shared machine inflates less than wall time).

Translation units, per compiler:
  fixed          only #include <streamdsl/streamdsl.hpp>
  fixed+executor the umbrella header and the executor header (host_executor
                 for g++, cuda_executor for nvcc), no program
  plan N         a program of N statements: its plan checked by static_assert
                 and printed by main (the constexpr front end and passes)
  run N          the same, plus running it with the executor: under nvcc this
                 instantiates every fused kernel; the host executor interprets
                 the plan, so under g++ it adds only the executor's own code
  joined N       N streams each write an output and one statement on main
                 joins them, under sd::automatic (a wait per stream): the
                 scale of the passes in the number of streams; compiled with
                 each compiler's default constant-evaluation limits unless
                 --raise-constexpr-limits

The bars (docs/benchmarks.md, "Compile time"): 20 statements <= 5 s under nvcc; 200
statements <= 15 s and <= 1.5 GB under nvcc (judged on the `run` units: every
kernel instantiated) and <= 3 s under g++ (judged on the `plan` units, the
program itself: g++ instantiates no kernels; the `run` units with the host
executor are reported against the same bar).

usage: compile_time.py [--repeat 3] [--out compile_time.json] [--sizes 20,50,200] [--joined 16,32,64,128]
                       [--cxx g++] [--nvcc PATH|none] [--arch sm_90] [--keep DIR]
                       [--raise-constexpr-limits] [--gxx-flags F] [--nvcc-flags F]
       compile_time.py --report compile_time.json   (the table of an earlier run)
Only the Python standard library is used. Compiles run one at a time.
"""
import argparse
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# g++'s limit on operations in one constant evaluation (default 2^25)
GXX_RAISED = "-fconstexpr-ops-limit=4294967296"

# statements -> streams (main included)
STREAMS_FOR = {20: 2, 50: 3, 200: 4}


# --- program generator ----------------------------------------------------------

class Program:
    """A random program that is race-free without automatic sync.

    Every buffer is written once (temps and outputs), so the only hazards are
    reads after writes. A statement on stream s may read a buffer written on
    stream w only when s has waited for a record of w's event issued after
    that write: each stream keeps a vector clock of the work of every stream
    it is ordered after, and each event remembers the clock of its latest
    record (a wait binds to the latest preceding record, as in CUDA).
    """

    UNARY = ["sd::exp", "sd::tanh", "sd::sigmoid", "sd::relu", "sd::abs", "sd::sin", "sd::cos"]

    def __init__(self, statements, streams, seed):
        self.rng = random.Random(seed)
        self.streams = ["main"] + ["s%d" % i for i in range(1, streams)]
        self.inputs = ["x%d" % i for i in range(min(4, streams + 1))]
        self.buffers = []  # (name, stream index, sequence number on that stream)
        self.read = set()
        self.ops = []  # (stream index, line of code)
        self.syncs = 0
        s_count = len(self.streams)
        self.done = [0] * s_count  # statements issued per stream
        self.clock = [[0] * s_count for _ in range(s_count)]
        self.event_clock = [None] * s_count  # each stream records its own event e_<stream>
        self._generate(statements)

    def _readable(self, s):
        return [b for b in self.buffers if b[1] == s or self.clock[s][b[1]] >= b[2]]

    def _sync(self, writer, reader):
        """`writer` records its event, `reader` waits for it."""
        self.ops.append((writer, "e_%s.record();" % self.streams[writer]))
        self.event_clock[writer] = list(self.clock[writer])
        self.ops.append((reader, "e_%s.wait();" % self.streams[writer]))
        self.clock[reader] = [max(a, b) for a, b in zip(self.clock[reader], self.event_clock[writer])]
        self.syncs += 1

    def _operand(self, s, fresh):
        rng = self.rng
        readable = self._readable(s)
        if fresh is not None and rng.random() < 0.8:
            name = fresh
        elif readable and rng.random() < 0.7:
            name = rng.choice(readable[-8:])[0]
        else:
            name = rng.choice(self.inputs)
        if name not in self.inputs:
            self.read.add(name)
        return name

    def _expression(self, s, fresh):
        rng = self.rng
        a = self._operand(s, fresh)
        b = self._operand(s, None)
        k = rng.choice(["0.5", "1.5", "2", "3", "0.25"])
        form = rng.randrange(6)
        if form == 0:
            return "%s * %s + %s" % (a, k, b)
        if form == 1:
            return "%s(%s) - %s" % (rng.choice(self.UNARY), a, b)
        if form == 2:
            return "sd::max(%s, %s) * %s" % (a, b, k)
        if form == 3:
            return "%s(%s * %s)" % (rng.choice(self.UNARY), a, b)
        if form == 4:
            c = self._operand(s, None)
            return "sd::where(%s > %s, %s, %s + %s)" % (a, b, a, c, k)
        return "(%s + %s) / (sd::abs(%s) + %s)" % (a, b, b, k)

    def _generate(self, statements):
        rng = self.rng
        s_count = len(self.streams)
        fresh = [None] * s_count  # the latest value on each stream: chains read it
        s = 0
        run_left = 0
        for _ in range(statements):
            if run_left == 0:
                s = rng.randrange(s_count)
                run_left = rng.randint(2, 6)
                # Order this stream after another's recent work, so it can read it.
                behind = [w for w in range(s_count) if w != s and self.done[w] > self.clock[s][w]]
                if behind and rng.random() < 0.7:
                    self._sync(rng.choice(behind), s)
            run_left -= 1
            name = "b%d" % len(self.buffers)
            expr = self._expression(s, fresh[s])
            self.ops.append((s, "%s = %s;" % (name, expr)))
            self.done[s] += 1
            self.clock[s][s] = self.done[s]
            self.buffers.append((name, s, self.done[s]))
            fresh[s] = name

    def statement_count(self):
        return len(self.buffers)

    def source(self, name):
        """The sd::program definition, as a user would write it."""
        out = ["constexpr auto %s = sd::program([](sd::builder& p) {" % name]
        for x in self.inputs:
            out.append('  auto %s = p.input<float>("%s");' % (x, x))
        for b, _, _ in self.buffers:
            # A temp nobody reads would be dead code: make it an output.
            kind = "temp" if b in self.read else "output"
            out.append('  auto %s = p.%s<float>("%s");' % (b, kind, b))
        out.append("  auto st_main = p.main_stream();")
        for st in self.streams[1:]:
            out.append('  auto st_%s = p.stream("%s");' % (st, st))
        for st in self.streams:
            out.append('  auto e_%s = p.event("e_%s");' % (st, st))
        # Consecutive ops on one stream share one scope.
        i = 0
        while i < len(self.ops):
            s = self.ops[i][0]
            out.append("  sd::with_stream(st_%s, [&] {" % self.streams[s])
            while i < len(self.ops) and self.ops[i][0] == s:
                out.append("    " + self.ops[i][1])
                i += 1
            out.append("  });")
        out.append("});")
        return "\n".join(out)

    def outputs(self):
        return [b for b, _, _ in self.buffers if b not in self.read]


def joined_source(n):
    """N streams each write an output; one statement on main joins them (sd::automatic)."""
    out = ["constexpr auto generated = sd::program<sd::automatic>([](sd::builder& p) {",
           '  auto x = p.input<float>("x");',
           '  auto y = p.output<float>("y");']
    out += ['  auto o%d = p.output<float>("o%d");' % (i, i) for i in range(n)]
    out += ['  auto s%d = p.stream("s%d");' % (i, i) for i in range(n)]
    out += ["  sd::with_stream(s%d, [&] { o%d = x + %d; });" % (i, i, i) for i in range(n)]
    out.append("  y = " + " + ".join("o%d" % i for i in range(n)) + ";")
    out.append("});")
    return "\n".join(out)


def unit_joined(n):
    lines = ["#include <cstdio>", "#include <streamdsl/streamdsl.hpp>", "", joined_source(n), "",
             "static_assert(generated.plan().stream_count() == %d);" % (n + 1),
             "static_assert(generated.plan().waits(\"main\") == %d);" % n, "",
             "int main() {", '  std::printf("%s", generated.to_string().c_str());', "  return 0;", "}"]
    return "\n".join(lines) + "\n"


# --- translation units ------------------------------------------------------------

def unit_fixed(executor):
    lines = ["#include <streamdsl/streamdsl.hpp>"]
    if executor:
        lines.append("#include <streamdsl/backend/%s>" % executor)
    lines.append("int main() { return 0; }")
    return "\n".join(lines) + "\n"


def unit_program(prog, executor):
    """executor: None (plan only), 'host' or 'cuda'."""
    lines = ["#include <cstdio>", "#include <streamdsl/streamdsl.hpp>"]
    if executor == "host":
        lines += ["#include <vector>", "#include <streamdsl/backend/host/host_executor.hpp>"]
    if executor == "cuda":
        lines += ["#include <streamdsl/backend/cuda/cuda_executor.hpp>"]
    lines += ["", prog.source("generated"), ""]
    lines.append("static_assert(generated.plan().kernel_count() > 0);")
    lines.append("static_assert(generated.plan().stream_count() == %d);" % len(prog.streams))
    if executor == "cuda":
        lines += ["",
                  "// Instantiates every fused kernel of the plan. {pointer, count} is a",
                  "// binding list for streamdsl's headers before and after they dropped <span>.",
                  "void run_generated(sd::cuda_executor& ex, const sd::binding* bindings, std::size_t count) {",
                  "  ex.run_bound(generated, {bindings, count});",
                  "}"]
    lines += ["", "int main() {", '  std::printf("%s", generated.to_string().c_str());']
    if executor == "host":
        names = prog.inputs + prog.outputs()
        lines.append("  constexpr std::size_t n = 1000;")
        lines.append("  std::vector<float> %s;" % ", ".join("%s(n, 0.5f)" % b for b in names))
        binds = ", ".join('sd::bind("%s", %s)' % (b, b) for b in names)
        lines.append("  sd::host_executor ex;")
        lines.append("  ex.run(generated, %s);" % binds)
    lines += ["  return 0;", "}"]
    return "\n".join(lines) + "\n"


# --- measuring --------------------------------------------------------------------

def gnu_time():
    path = shutil.which("time", path="/usr/bin:/bin")
    if path:
        probe = subprocess.run([path, "-f", "%e %M", "true"], capture_output=True, text=True)
        if probe.returncode == 0 and len(probe.stderr.split()) == 2:
            return path
    return None


class CompileError(Exception):
    """A unit that does not compile: its first error line."""


def first_error(stderr):
    for ln in stderr.splitlines():
        if "error" in ln:
            return ln.strip()[:300]
    return (stderr.strip().splitlines() or ["(no output)"])[-1][:300]


def measure(command, cwd, gtime):
    """Runs command once; returns (wall s, peak KB, CPU s) or raises on failure."""
    if gtime:
        with tempfile.NamedTemporaryFile("r", suffix=".time") as f:
            r = subprocess.run([gtime, "-f", "%e %M %U %S", "-o", f.name] + command, cwd=cwd,
                               capture_output=True, text=True)
            if r.returncode != 0:
                raise CompileError(first_error(r.stderr))
            wall, peak, user, system = f.read().split()[-4:]
            return float(wall), int(peak), float(user) + float(system)
    # Without GNU time: a fresh Python process waits for the compile, so its
    # RUSAGE_CHILDREN maximum is this compile's peak (the same number GNU time gives).
    probe = ("import resource,subprocess,sys,time;t=time.perf_counter();r=subprocess.run(sys.argv[1:]);"
             "u=resource.getrusage(resource.RUSAGE_CHILDREN);"
             "sys.stderr.write('\\n@@ %.2f %d %.2f\\n'%(time.perf_counter()-t,u.ru_maxrss,u.ru_utime+u.ru_stime));"
             "sys.exit(r.returncode)")
    r = subprocess.run([sys.executable, "-c", probe] + command, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        raise CompileError(first_error(r.stderr))
    wall, peak, cpu = r.stderr.rsplit("@@", 1)[1].split()
    return float(wall), int(peak), float(cpu)


def version(command):
    try:
        r = subprocess.run(command + ["--version"], capture_output=True, text=True)
        lines = [ln for ln in r.stdout.splitlines() if ln.strip()]
        return lines[0] if "nvcc" not in command[0] else lines[-1]
    except OSError:
        return "unknown"


def find_nvcc(arg):
    if arg == "none":
        return None
    if arg:
        return arg
    return shutil.which("nvcc") or (os.path.exists("/usr/local/cuda/bin/nvcc") and "/usr/local/cuda/bin/nvcc") or None


def machine():
    info = {"platform": platform.platform(), "cores": os.cpu_count()}
    try:
        with open("/proc/cpuinfo") as f:
            for ln in f:
                if ln.startswith("model name"):
                    info["cpu"] = ln.split(":", 1)[1].strip()
                    break
        info["load_before"] = os.getloadavg()[0]
    except OSError:
        pass
    return info


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3, help="compiles per unit; the median is reported")
    ap.add_argument("--sizes", default="20,50,200")
    ap.add_argument("--joined", default="16,32,64,128",
                    help="stream counts of the 'joined' units (N streams joined by one statement); '' for none")
    ap.add_argument("--cxx", default="g++")
    ap.add_argument("--nvcc", default="", help="path to nvcc, or 'none' (default: PATH, /usr/local/cuda/bin)")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", default="compile_time.json")
    ap.add_argument("--keep", default="", help="write the generated sources here and keep them")
    ap.add_argument("--gxx-flags", default="", help="extra g++ flags, e.g. -fconstexpr-ops-limit=4294967296")
    ap.add_argument("--nvcc-flags", default="", help="extra nvcc flags")
    ap.add_argument("--raise-constexpr-limits", action="store_true",
                    help="raise both compilers' constant-evaluation limits (g++ -fconstexpr-ops-limit, and "
                         "cudafe++'s --max_cost_constexpr_call under nvcc), to see what a program that trips "
                         "them would cost")
    ap.add_argument("--report", default="", help="only print the table of an earlier run's JSON file")
    args = ap.parse_args()
    if args.report:
        with open(args.report) as f:
            print(markdown(json.load(f)))
        return

    include = os.path.join(REPO, "include")
    if args.raise_constexpr_limits:
        args.gxx_flags += " " + GXX_RAISED
        args.nvcc_flags += " -Xcudafe --max_cost_constexpr_call=2000000000 -Xcompiler=" + GXX_RAISED
    nvcc = find_nvcc(args.nvcc)
    gtime = gnu_time()
    work = args.keep or tempfile.mkdtemp(prefix="sd_compile_time_")
    os.makedirs(work, exist_ok=True)

    compilers = {"g++": [args.cxx, "-std=c++20", "-O2"] + args.gxx_flags.split() + ["-I" + include, "-c"]}
    if nvcc:
        compilers["nvcc"] = ([nvcc, "-std=c++20", "-arch=" + args.arch, "--expt-relaxed-constexpr"] +
                             args.nvcc_flags.split() + ["-I" + include, "-c"])
    executor_of = {"g++": "host", "nvcc": "cuda"}
    executor_header = {"host": "host/host_executor.hpp", "cuda": "cuda/cuda_executor.hpp"}

    # (unit name, statements, streams, syncs, {compiler: source}, program or None)
    units = [("fixed", 0, 0, 0, {c: unit_fixed(None) for c in compilers}, None),
             ("fixed+executor", 0, 0, 0, {c: unit_fixed(executor_header[executor_of[c]]) for c in compilers}, None)]
    for n in [int(x) for x in args.sizes.split(",") if x]:
        prog = Program(n, STREAMS_FOR.get(n, 4), args.seed + n)
        units.append(("plan %d" % n, n, len(prog.streams), prog.syncs, {c: unit_program(prog, None) for c in compilers},
                      prog))
        units.append(("run %d" % n, n, len(prog.streams), prog.syncs,
                      {c: unit_program(prog, executor_of[c]) for c in compilers}, prog))

    for n in [int(x) for x in args.joined.split(",") if x]:
        units.append(("joined %d" % n, n + 1, n + 1, n, {c: unit_joined(n) for c in compilers}, None))

    results = []
    for name, n, streams, syncs, sources, prog in units:
        row = {"unit": name, "statements": n, "streams": streams, "syncs": syncs}
        for comp, src in sources.items():
            stem = name.replace(" ", "_").replace("+", "_") + ("_gxx" if comp == "g++" else "_nvcc")
            ext = ".cpp" if comp == "g++" else ".cu"
            with open(os.path.join(work, stem + ext), "w") as f:
                f.write(src)
            command = compilers[comp] + [stem + ext, "-o", stem + ".o"]
            try:
                runs = [measure(command, work, gtime) for _ in range(args.repeat)]
            except CompileError as e:
                row[comp] = {"error": str(e), "command": " ".join(command)}
                print("%-16s %-5s FAILED: %s" % (name, comp, e), file=sys.stderr, flush=True)
                continue
            row[comp] = {"wall_s": [r[0] for r in runs], "peak_kb": [r[1] for r in runs],
                         "cpu_s": [r[2] for r in runs], "median_s": statistics.median(r[0] for r in runs),
                         "median_cpu_s": statistics.median(r[2] for r in runs),
                         "peak_mb": max(r[1] for r in runs) / 1024, "command": " ".join(command)}
            print("%-16s %-5s %6.2f s (cpu %6.2f s) %7.0f MB" % (
                name, comp, row[comp]["median_s"], row[comp]["median_cpu_s"], row[comp]["peak_mb"]),
                file=sys.stderr, flush=True)
            # The plan's size, from the program itself (g++ build, not timed).
            if comp == "g++" and ((prog is not None and name.startswith("plan")) or name.startswith("joined")):
                exe = os.path.join(work, stem)
                link = subprocess.run([args.cxx, stem + ".o", "-o", exe], cwd=work, capture_output=True, text=True)
                if link.returncode == 0:
                    first = subprocess.run([exe], capture_output=True, text=True).stdout.splitlines()[0]
                    row["plan_summary"] = first.lstrip("/ ").replace("streamdsl plan: ", "")
        results.append(row)

    # The plan summary belongs to both units of one program.
    for row in results:
        if "plan_summary" not in row and row["statements"] and not row["unit"].startswith("joined"):
            twin = [r for r in results if r["statements"] == row["statements"] and "plan_summary" in r]
            if twin:
                row["plan_summary"] = twin[0]["plan_summary"]

    report = {
        "machine": machine(),
        "compilers": {"g++": version([args.cxx])} | ({"nvcc": version([nvcc])} if nvcc else {}),
        "measured_with": "GNU time -f '%e %M %U %S'" if gtime else "python3 wait + getrusage(RUSAGE_CHILDREN)",
        "repeat": args.repeat,
        "extra_flags": {"g++": args.gxx_flags.strip(), "nvcc": args.nvcc_flags.strip()},
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "results": results,
    }
    report["machine"]["load_after"] = os.getloadavg()[0]
    with open(args.out, "w") as f:
        json.dump(report, f, indent=2)
    print(markdown(report))
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


def bar_verdicts(report):
    """The compile-time bars (see the module docstring for which units)."""
    verdicts = []
    rows = {r["unit"]: r for r in report["results"]}

    def judge(unit, comp, what, value, limit, unit_name):
        if unit in rows and comp in rows[unit] and "error" in rows[unit][comp]:
            line = "%s under %s: does not compile MISSED" % (unit, comp)
            if line not in verdicts:
                verdicts.append(line)
        elif unit in rows and comp in rows[unit]:
            v = rows[unit][comp][value]
            verdicts.append("%s under %s: %.2f %s (bar %s %s) %s" % (
                unit, comp, v, unit_name, what, limit, "ok" if v <= limit else "MISSED"))

    # nvcc: the program with every kernel instantiated. g++ compiles no
    # kernels (the host executor interprets the plan), so its bar is judged on
    # the program alone, and the same program run on the host executor is
    # reported against the same bar.
    judge("run 20", "nvcc", "<=", "median_s", 5.0, "s")
    judge("run 200", "nvcc", "<=", "median_s", 15.0, "s")
    judge("run 200", "nvcc", "<=", "peak_mb", 1536.0, "MB")
    judge("plan 20", "g++", "<=", "median_s", 5.0, "s")
    judge("plan 200", "g++", "<=", "median_s", 3.0, "s")
    judge("run 20", "g++", "<=", "median_s", 5.0, "s")
    judge("run 200", "g++", "<=", "median_s", 3.0, "s")
    return verdicts


def markdown(report):
    comps = [c for c in ("g++", "nvcc") if c in report["compilers"]]
    head = "| unit | streams | syncs | plan |" + "".join(" %s s (cpu) | %s MB |" % (c, c) for c in comps)
    rule = "|---|---:|---:|---|" + "---:|---:|" * len(comps)
    lines = [head, rule]
    for r in report["results"]:
        cells = [("failed | " if "error" in r[c] else "%.2f (%.2f) | %.0f" % (
                     r[c]["median_s"], r[c]["median_cpu_s"], r[c]["peak_mb"])) if c in r else " | " for c in comps]
        lines.append("| %s | %s | %s | %s | %s |" % (
            r["unit"], r["streams"] or "", r["syncs"] or "", r.get("plan_summary", ""), " | ".join(cells)))
    lines.append("")
    lines.append("Median of %d compiles: wall seconds (user + system CPU seconds); MB = peak resident set of the "
                 "largest process of one compile. Measured with %s." % (report["repeat"], report["measured_with"]))
    lines.append("Compilers: " + "; ".join("%s: %s" % kv for kv in report["compilers"].items()))
    extra = ["%s `%s`" % (c, f) for c, f in report.get("extra_flags", {}).items() if f and c in comps]
    if extra:
        lines.append("Extra flags: " + "; ".join(extra))
    lines.append("Machine: %s, %s cores, load %.1f before / %.1f after" % (
        report["machine"].get("cpu", "?"), report["machine"]["cores"], report["machine"].get("load_before", -1),
        report["machine"].get("load_after", -1)))
    lines.append("")
    lines += ["- " + v for v in bar_verdicts(report)]
    failures = ["%s under %s: %s" % (r["unit"], c, r[c]["error"]) for r in report["results"] for c in comps
                if c in r and "error" in r[c]]
    if failures:
        lines += ["", "Units that did not compile:"] + ["- " + f for f in failures]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
