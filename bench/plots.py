#!/usr/bin/env python3
"""The plots of docs/benchmarks.md, from the benchmarks' JSON (the tables come
from bench/report.py, from the same files):

  workloads_bandwidth.png  each memory-bound workload's bandwidth as a share of
                           the cudaMemcpyAsync ceiling measured in the same
                           binary: streamdsl, raw CUDA, PyTorch eager,
                           torch.compile and its reduce-overhead mode
  small_ops.png            the launch-bound workload's time, log scale
  compile_time.png         compile CPU seconds against statements (the plan N
                           and run N units) and against streams joined (the
                           joined N units), g++ and nvcc, with the bars

Bandwidth counts the bytes the workload must move (bench/torch_compare.py's
WORKLOADS, as the streamdsl row counts them) over each one's time, so the bars
of one workload compare times. Two-chains with a and b as outputs is left out
there: what it must move depends on how it is fused (7 passes over 2^28 floats
as 3 kernels, 4 as one).

usage: python3 bench/plots.py --bench bench.json [--torch torch_compare.json]
                              [--compile-time compile_time.json] [--out docs/img]
Needs matplotlib (the GPU machine has it; CI does not run this script).
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import load  # noqa: E402
from torch_compare import VARIANTS, WORKLOADS  # noqa: E402

SERIES = [("streamdsl", "#1f77b4"), ("raw CUDA", "#7f7f7f"), ("PyTorch eager", "#ff7f0e"),
          ("torch.compile", "#d62728"), ("torch.compile reduce-overhead", "#9467bd")]
BANDWIDTH_KEYS = ["seed", "chain2", "chain4", "chain8", "two_chains", "two_chains_halves"]


def seconds(rows, name):
    r = rows.get(name) if name else None
    return r["seconds"] if r and not r["error"] and r["seconds"] > 0 else None


def series_times(rows, w):
    """The five series' seconds for workload w (None where not measured)."""
    measured = w.key if w.key != "small_ops_graph" else "small_ops"
    return [seconds(rows, w.streamdsl), seconds(rows, w.raw)] + [seconds(rows, f"torch_{measured}/{v}")
                                                                  for v in VARIANTS]


def grouped_bars(ax, labels, values, scale):
    width = 0.8 / len(SERIES)
    for i, (name, color) in enumerate(SERIES):
        xs = [g + (i - (len(SERIES) - 1) / 2) * width for g in range(len(labels))]
        ys = [v[i] * scale if v[i] else 0 for v in values]
        ax.bar(xs, ys, width, label=name, color=color)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, fontsize=8)


def bandwidth_plot(plt, rows, out):
    memcpy_bw = rows["bm_memcpy"]["bytes"] / rows["bm_memcpy"]["seconds"]
    chosen = [w for w in WORKLOADS if w.key in BANDWIDTH_KEYS]
    values = [[w.bytes / t / memcpy_bw if t else None for t in series_times(rows, w)] for w in chosen]
    fig, ax = plt.subplots(figsize=(9, 4.2), dpi=100)
    grouped_bars(ax, [w.key.replace("_", " ") for w in chosen], values, 100)
    ax.axhline(100, color="black", linewidth=0.8)
    ax.axhline(95, color="black", linewidth=0.8, linestyle="--")
    ax.text(len(chosen) - 0.5, 101, f"memcpy {memcpy_bw / 1e12:.2f} TB/s", ha="right", fontsize=8)
    ax.text(len(chosen) - 0.5, 91, "bar: 95%", ha="right", fontsize=8)
    ax.set_ylabel("% of memcpy bandwidth (bytes the workload must move)")
    ax.set_ylim(0, 130)
    ax.set_title("Memory-bound workloads, 2^28 floats (H200, one run)", fontsize=10)
    ax.legend(fontsize=7, ncol=5, loc="upper center")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "workloads_bandwidth.png"))
    plt.close(fig)


def small_ops_plot(plt, rows, out):
    chosen = [w for w in WORKLOADS if w.key in ("small_ops", "small_ops_graph")]
    values = [series_times(rows, w) for w in chosen]
    fig, ax = plt.subplots(figsize=(7, 3.8), dpi=100)
    grouped_bars(ax, ["plain launches (torch: all variants)", "CUDA graph (torch: the same runs)"], values, 1e6)
    ax.set_yscale("log")
    ax.set_ylabel("µs per run (log scale)")
    ax.set_title("small-ops: 64 chains x 4 ops on 64K floats, 4 streams (H200)", fontsize=10)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "small_ops.png"))
    plt.close(fig)


def compile_time_plot(plt, path, out):
    with open(path) as f:
        data = json.load(f)
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), dpi=100)
    for compiler, marker in (("g++", "o"), ("nvcc", "s")):
        for kind, style in (("plan", "--"), ("run", "-")):
            pts = [(r["statements"], r[compiler]["median_cpu_s"]) for r in data["results"]
                   if r["unit"].startswith(kind + " ") and compiler in r]
            if pts:
                left.plot(*zip(*pts), style, marker=marker, label=f"{compiler}, {kind} N")
        pts = [(r["streams"] - 1, r[compiler]["median_cpu_s"]) for r in data["results"]
               if r["unit"].startswith("joined ") and compiler in r]
        if pts:
            right.plot(*zip(*pts), "-", marker=marker, label=f"{compiler}, joined N")
    for y, text in ((5, "bar: 20 statements, nvcc, 5 s"), (15, "bar: 200 statements, nvcc, 15 s"),
                    (3, "bar: 200 statements, g++, 3 s")):
        left.axhline(y, color="gray", linewidth=0.6, linestyle=":")
        left.text(2, y + 0.2, text, fontsize=7, color="gray")
    left.set_xlabel("statements")
    left.set_ylabel("CPU seconds (user + system) of one compile")
    left.set_title("against statements", fontsize=10)
    right.set_xlabel("streams joined on main")
    right.set_xscale("log", base=2)
    right.set_title("against streams", fontsize=10)
    for ax in (left, right):
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=7)
    fig.suptitle(f"Compile time ({data.get('date', '')}, {data['machine'].get('cores', '?')}-core machine)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "compile_time.png"))
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", help="bench_workloads' JSON")
    ap.add_argument("--torch", help="bench/torch_compare.py's JSON")
    ap.add_argument("--compile-time", help="bench/compile_time/compile_time.py's JSON")
    ap.add_argument("--out", default="docs/img")
    args = ap.parse_args()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(args.out, exist_ok=True)
    if args.bench:
        rows = load(args.bench)[0]
        if args.torch:
            rows.update(load(args.torch)[0])
        bandwidth_plot(plt, rows, args.out)
        small_ops_plot(plt, rows, args.out)
    if args.compile_time:
        compile_time_plot(plt, args.compile_time, args.out)
    for name in sorted(os.listdir(args.out)):
        print(os.path.join(args.out, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
