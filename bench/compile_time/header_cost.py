#!/usr/bin/env python3
"""What one #include costs an nvcc translation unit (docs/dependencies.md):
units holding only `int main() {}` and one include each (standard headers the
library keeps out of its own headers, Boost.Hana, streamdsl's umbrella header
for scale), compiled with the benchmark's nvcc command (compare_includes.py's
NVCC), measured two ways:
  - CPU seconds (user + system) under GNU time, the minimum and the median of
    --repeat compiles, units taking turns (compile_time.measure);
  - instructions (millions) of nvcc's stages under valgrind, deterministic
    (count_nvcc_instructions.py): cudafe++, cicc, the host compiler (g++'s
    driver, cc1plus and the assembler on cudafe++'s output).
An include's cost is its row minus the empty unit's.

usage: header_cost.py [--repeat 3] [--out header_cost.json] [--no-instructions]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare_includes  # noqa: E402  (the benchmark's nvcc command)
import compile_time  # noqa: E402  (the benchmark's measurement)

INCLUDE = os.path.join(os.path.dirname(os.path.dirname(HERE)), "include")
UNITS = [
    ("empty", []),
    ("<vector>", ["vector"]),
    ("<string>", ["string"]),
    ("<array>", ["array"]),
    ("<algorithm>", ["algorithm"]),
    ("<functional>", ["functional"]),
    ("all five", ["vector", "string", "array", "algorithm", "functional"]),
    ("<boost/hana.hpp>", ["boost/hana.hpp"]),
    ("<streamdsl/streamdsl.hpp>", ["streamdsl/streamdsl.hpp"]),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default="header_cost.json")
    ap.add_argument("--no-instructions", action="store_true")
    args = ap.parse_args()
    nvcc = list(compare_includes.NVCC)
    if not os.path.exists(nvcc[0]) and os.path.exists("/usr/local/cuda/bin/nvcc"):
        nvcc[0] = "/usr/local/cuda/bin/nvcc"
    work = tempfile.mkdtemp(prefix="header_cost_")
    sources = []
    for i, (_, headers) in enumerate(UNITS):
        path = os.path.join(work, f"unit{i}.cu")
        with open(path, "w") as f:
            f.write("".join(f"#include <{h}>\n" for h in headers) + "int main() { return 0; }\n")
        sources.append(path)
    gtime = compile_time.gnu_time()
    cpu = [[] for _ in UNITS]
    for _ in range(args.repeat):  # units take turns: the machine's drift spreads over all of them
        for i, src in enumerate(sources):
            _, _, seconds = compile_time.measure(nvcc + ["-I" + INCLUDE, src, "-o", os.devnull], work, gtime)
            cpu[i].append(seconds)
    rows = []
    for i, (label, headers) in enumerate(UNITS):
        row = {"unit": label, "headers": headers, "cpu_s": cpu[i], "min_cpu_s": min(cpu[i]),
               "median_cpu_s": statistics.median(cpu[i])}
        if not args.no_instructions:
            listing = subprocess.run([sys.executable, os.path.join(HERE, "count_nvcc_instructions.py"), sources[i],
                                      INCLUDE], capture_output=True, text=True, check=True).stdout
            for stage in ("cudafe++", "cicc", "host", "ptxas"):
                row[f"{stage}_Minstr"] = float(re.search(re.escape(stage) + r" (\d+)", listing).group(1))
        rows.append(row)
        print(json.dumps(row), flush=True)
    with open(args.out, "w") as f:
        json.dump({"command": " ".join(nvcc), "repeat": args.repeat, "load_after": os.getloadavg()[0],
                   "rows": rows}, f, indent=1)
    empty = rows[0]
    print("| unit | CPU s (min, median) | over empty | cudafe++ | cicc | host | over empty (fe + cicc + host) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        front = lambda x: sum(x.get(f"{s}_Minstr", 0) for s in ("cudafe++", "cicc", "host"))  # noqa: E731
        print(f"| {r['unit']} | {r['min_cpu_s']:.2f}, {r['median_cpu_s']:.2f} | "
              f"{r['median_cpu_s'] - empty['median_cpu_s']:+.2f} s | "
              + " | ".join(f"{r.get(f'{s}_Minstr', 0):.0f} M" for s in ("cudafe++", "cicc", "host"))
              + f" | {front(r) - front(empty):+.0f} M |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
