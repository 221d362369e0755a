#!/usr/bin/env python3
"""Turns bench_workloads' JSON into the ratio table of docs/benchmarks.md.

usage: report.py bench.json [--markdown]
Ratios are against baselines measured in the same run: cudaMemcpyAsync
device-to-device bandwidth, and the raw CUDA version of each workload.
"""
import json
import sys


def load(path):
    with open(path) as f:
        data = json.load(f)
    out = {}
    for b in data["benchmarks"]:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        name = (b["name"].replace("/manual_time", "").replace("/iterations:1", "").replace("_median", ""))
        unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
        t = (b["real_time"] if "manual_time" in b["name"] else b.get("cpu_time", b["real_time"])) * unit
        out[name] = {"seconds": t, "bytes": b.get("bytes_per_iter", 0.0),
                     "counters": {k: v for k, v in b.items() if k in ("ours_us", "raw_us", "ratio")}}
    return out, data.get("context", {})


def main():
    path = sys.argv[1]
    rows, ctx = load(path)
    memcpy = rows["bm_memcpy"]
    memcpy_bw = memcpy["bytes"] / memcpy["seconds"]

    def bw(name):
        r = rows[name]
        return r["bytes"] / r["seconds"]

    table = []

    def add(label, ours, base, bar, vs_memcpy=True):
        if ours not in rows or base not in rows:
            table.append((label, "missing", "", "", "", "MISSING"))
            return
        speed = rows[base]["seconds"] / rows[ours]["seconds"]
        frac = bw(ours) / memcpy_bw if vs_memcpy else None
        ok = speed >= bar if bar else True
        table.append((label, f"{rows[ours]['seconds']*1e3:.3f} ms", f"{rows[base]['seconds']*1e3:.3f} ms",
                      f"{speed:.2f}x", f"{frac*100:.1f}%" if frac is not None else "", "ok" if ok else "MISSED"))

    add("seed (2 streams, 2 kernels) vs raw CUDA", "bm_seed_streamdsl", "bm_seed_raw", 1.0)
    add("seed relaxed (1 kernel) vs raw fused", "bm_seed_relaxed_streamdsl", "bm_seed_raw_fused", 1.0)
    for k in (2, 4, 8):
        add(f"chain K={k} fused vs raw fused", f"bm_chain_streamdsl<{k}>", f"bm_chain_raw_fused<{k}>", 1.0)
    add("chain K=8 streamdsl unfused vs raw unfused", "bm_chain_streamdsl_unfused<8>", "bm_chain_raw_unfused<8>", 1.0)
    add("chain K=8 fused vs raw unfused (fusion gain)", "bm_chain_streamdsl<8>", "bm_chain_raw_unfused<8>", 1.0)
    add("two-chains, temps (1 kernel) vs raw 3 kernels", "bm_two_chains_streamdsl", "bm_two_chains_raw", 1.0)
    add("two-chains, outputs (3 kernels) vs raw", "bm_two_chains_outputs_streamdsl", "bm_two_chains_raw", 1.0)
    add("small-ops graph vs raw graph unfused (bar 2x)", "bm_small_ops_streamdsl_graph", "bm_small_ops_raw/1", 2.0, False)
    add("small-ops plain vs raw plain unfused", "bm_small_ops_streamdsl", "bm_small_ops_raw/0", 1.0, False)
    if "bm_host_overhead" in rows:
        c = rows["bm_host_overhead"]["counters"]
        ratio = c["ratio"]
        table.append(("host time per run vs raw calls (bar <= 1.1x)", f"{c['ours_us']:.2f} us", f"{c['raw_us']:.2f} us",
                      f"{ratio:.2f}x (ours/raw)", "", "ok" if ratio <= 1.1 else "MISSED"))

    print(f"memcpy D2D bandwidth: {memcpy_bw/1e12:.3f} TB/s ({ctx.get('host_name', '')})")
    fused = [bw(n) / memcpy_bw for n in rows if n.startswith("bm_chain_streamdsl<") or n == "bm_two_chains_streamdsl"
             or n == "bm_seed_relaxed_streamdsl"]
    if fused:
        print(f"fused kernels vs memcpy bandwidth: min {min(fused)*100:.1f}% (bar 95%) "
              f"{'ok' if min(fused) >= 0.95 else 'MISSED'}")
    print()
    print("| workload | streamdsl | baseline | speed-up | of memcpy BW | bar |")
    print("|---|---|---|---|---|---|")
    for row in table:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
