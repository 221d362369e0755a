#!/usr/bin/env python3
"""Compile the same generated units against two include directories, taking
turns, so that a before/after comparison shares one stretch of machine time.

The development machine is a shared VM whose speed drifts by tens of percent
within an hour; compiles of the old and new headers alternate unit by unit,
and each figure is the minimum CPU seconds (user + system) of --repeat runs;
the median of the runs is printed too (issue 10's rule: within 5% on the
median of 3 turns), and every run's CPU seconds are kept in the JSON.

usage: compare_includes.py KEPT_DIR OLD_INCLUDE NEW_INCLUDE [--repeat 2] [--out compare.json]
  KEPT_DIR: the sources written by compile_time.py --keep DIR (its *_gxx.cpp and *_nvcc.cu).
Both header sets are compiled with both compilers' constant-evaluation limits raised, because
older headers need them for the 200-statement units (the limits change no timing).
"""
import argparse
import json
import os
import shutil
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compile_time  # noqa: E402  (the same measurement as the benchmark)

GXX = ["g++", "-std=c++20", "-O2", "-fconstexpr-ops-limit=4294967296", "-c"]
NVCC = ["nvcc", "-std=c++20", "-arch=sm_90", "--expt-relaxed-constexpr", "-Xcudafe",
        "--max_cost_constexpr_call=2000000000", "-Xcompiler=-fconstexpr-ops-limit=4294967296", "-c"]
ORDER = ["empty", "fixed", "fixed_executor", "plan_20", "run_20", "plan_50", "run_50", "plan_200", "run_200"]


def measure(command, cwd):
    """(CPU seconds, peak MB) of one compile, or None when it fails (compile_time.py measures)."""
    try:
        _, peak_kb, cpu = compile_time.measure(command, cwd, compile_time.gnu_time())
    except compile_time.CompileError:
        return None
    return cpu, peak_kb / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kept")
    ap.add_argument("old_include")
    ap.add_argument("new_include")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--out", default="compare.json")
    args = ap.parse_args()
    if shutil.which("nvcc") is None and os.path.exists("/usr/local/cuda/bin/nvcc"):
        NVCC[0] = "/usr/local/cuda/bin/nvcc"
    kept = os.path.abspath(args.kept)
    with open(os.path.join(kept, "empty_gxx.cpp"), "w") as f:
        f.write("int main() { return 0; }\n")
    with open(os.path.join(kept, "empty_nvcc.cu"), "w") as f:
        f.write("int main() { return 0; }\n")
    rows = []
    for unit in ORDER:
        for comp, base, ext in (("g++", GXX, ".cpp"), ("nvcc", NVCC, ".cu")):
            src = unit + ("_gxx" if comp == "g++" else "_nvcc") + ext
            if not os.path.exists(os.path.join(kept, src)):
                continue
            best = {"old": None, "new": None}
            runs = {"old": [], "new": []}
            for _ in range(args.repeat):
                for side, inc in (("old", args.old_include), ("new", args.new_include)):
                    m = measure(base + ["-I" + os.path.abspath(inc), src, "-o", "/dev/null"], kept)
                    if m:
                        runs[side].append(m[0])
                    if m and (best[side] is None or m[0] < best[side][0]):
                        best[side] = m
            median = {k: statistics.median(v) if v else None for k, v in runs.items()}
            row = {"unit": unit, "compiler": comp, "old": best["old"], "new": best["new"], "cpu_runs": runs}
            rows.append(row)
            fmt = lambda m: "failed" if m is None else "%.2f s %4.0f MB" % m
            ratio = "" if None in median.values() or not median["old"] else "median %.2f -> %.2f s (%+.1f%%)" % (
                median["old"], median["new"], 100 * (median["new"] / median["old"] - 1))
            print("%-15s %-5s old %-16s new %-16s %s" % (unit, comp, fmt(best["old"]), fmt(best["new"]), ratio),
                  flush=True)
    with open(args.out, "w") as f:
        json.dump({"repeat": args.repeat, "rows": rows, "load_after": os.getloadavg()[0]}, f, indent=2)


if __name__ == "__main__":
    main()
