#!/usr/bin/env python3
"""Turns the benchmarks' JSON into the ratio tables of docs/benchmarks.md.

usage: report.py bench.json [bench_copy_compute.json bench_adam.json bench_width.json bench_reductions.json bench_matmul.json
                             torch_adam.json bench_row_softmax.json torch_row_softmax.json torch_compare.json
                             torch_matmul.json ...]
Ratios are against baselines measured in the same run: cudaMemcpyAsync
device-to-device bandwidth, and the raw CUDA version of each workload. Each
file gives the tables whose rows it holds (bench_workloads: the elementwise
workloads; bench_copy_compute: workload 5, the copy/compute pipeline;
torch_compare.json, from bench/torch_compare.py: PyTorch beside them).
"""
import json
import os
import sys


def load(path):
    with open(path) as f:
        data = json.load(f)
    out = {}
    for b in data.get("benchmarks", []):  # a skipped run has none
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        name = (b["name"].replace("/manual_time", "").replace("/iterations:1", "").replace("_median", ""))
        unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
        t = (b["real_time"] if "manual_time" in b["name"] else b.get("cpu_time", b["real_time"])) * unit
        out[name] = {"seconds": t, "bytes": b.get("bytes_per_iter", 0.0),
                     "error": b.get("error_occurred", False) and b.get("error_message", "failed"),
                     "counters": {k: v for k, v in b.items() if k in ("ours_us", "raw_us", "ratio", "kernels", "launches")}}
    return out, data.get("context", {})


def workloads_table(rows, ctx):
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
    add("two-chains, outputs under sd::relaxed (1 kernel) vs raw 3 kernels", "bm_two_chains_outputs_relaxed_streamdsl",
        "bm_two_chains_raw", 1.0)
    add("two-chains over two input halves (1 kernel) vs raw 3 kernels", "bm_two_chains_halves_streamdsl",
        "bm_two_chains_halves_raw", 1.0)
    add("small-ops graph vs raw graph unfused (bar 2x)", "bm_small_ops_streamdsl_graph", "bm_small_ops_raw/1", 2.0, False)
    add("small-ops plain vs raw plain unfused", "bm_small_ops_streamdsl", "bm_small_ops_raw/0", 1.0, False)
    if "bm_host_overhead" in rows:
        c = rows["bm_host_overhead"]["counters"]
        ratio = c["ratio"]
        table.append(("host time per run vs raw calls (bar <= 1.1x)", f"{c['ours_us']:.2f} us", f"{c['raw_us']:.2f} us",
                      f"{ratio:.2f}x (ours/raw)", "", "ok" if ratio <= 1.1 else "MISSED"))

    print(f"memcpy D2D bandwidth: {memcpy_bw/1e12:.3f} TB/s ({ctx.get('host_name', '')})")
    fused = [bw(n) / memcpy_bw for n in rows if n.startswith("bm_chain_streamdsl<") or n == "bm_two_chains_streamdsl"
             or n in ("bm_seed_relaxed_streamdsl", "bm_two_chains_halves_streamdsl")]
    if fused:
        print(f"fused kernels vs memcpy bandwidth: min {min(fused)*100:.1f}% (bar 95%) "
              f"{'ok' if min(fused) >= 0.95 else 'MISSED'}")
    print()
    print("| workload | streamdsl | baseline | speed-up | of memcpy BW | bar |")
    print("|---|---|---|---|---|---|")
    for row in table:
        print("| " + " | ".join(row) + " |")


def copy_compute_table(rows):
    """Workload 5: times, speed-ups over the raw serial version, the plan
    against the raw pipeline (goal: within 2%), host time per run (<= 1.1x)."""
    def ms(name):
        return f"{rows[name]['seconds']*1e3:.2f} ms"

    failed = [f"{n}: {r['error']}" for n, r in rows.items() if r["error"]]
    for f in failed:
        print(f"FAILED {f}")
    serial = rows.get("bm_copy_compute_serial_raw")
    print("| workload 5 (1 GiB pinned, 8-op chain) | time | over serial raw | vs raw pipeline | goal |")
    print("|---|---|---|---|---|")

    def row(label, name, raw=None, over_serial=True):
        if name not in rows:
            print(f"| {label} | missing | | | MISSING |")
            return
        t = rows[name]["seconds"]
        speed = f"{serial['seconds'] / t:.2f}x" if serial and over_serial else ""
        versus, goal = "", ""
        if raw is not None and raw in rows:
            ratio = t / rows[raw]["seconds"]
            versus = f"{ratio:.3f}x the time"
            goal = "ok" if ratio <= 1.02 else "MISSED (goal <= 1.02x)"
        if rows[name]["error"]:
            goal = "RESULTS WRONG"
        gbs = rows[name]["bytes"] / t / 1e9
        print(f"| {label} ({gbs:.1f} GB/s over PCIe) | {ms(name)} | {speed} | {versus} | {goal} |")

    row("host to device alone", "bm_copy_engines/0", over_serial=False)
    row("device to host alone", "bm_copy_engines/1", over_serial=False)
    row("both at once (the floor; its speed-up is the ceiling)", "bm_copy_engines/2")
    row("serial, raw calls on one stream", "bm_copy_compute_serial_raw")
    row("serial, streamdsl on main", "bm_copy_compute_serial_streamdsl")
    for k in (16, 64):
        raw = f"bm_copy_compute_raw<{k}>"
        row(f"{k} chunks, raw pipeline", raw)
        row(f"{k} chunks, streamdsl run()", f"bm_copy_compute_streamdsl<{k}>/0", raw)
        row(f"{k} chunks, streamdsl run(), pool kept", f"bm_copy_compute_streamdsl<{k}>/1", raw)
        row(f"{k} chunks, streamdsl graph replay", f"bm_copy_compute_streamdsl_graph<{k}>", raw)
    for k in (16, 64):
        name = f"bm_copy_compute_host_overhead<{k}>"
        if name in rows and rows[name]["counters"]:
            c = rows[name]["counters"]
            print(f"| host time per run, {k} chunks: streamdsl {c['ours_us']:.1f} us, raw calls "
                  f"{c['raw_us']:.1f} us | | | {c['ratio']:.3f}x | {'ok' if c['ratio'] <= 1.1 else 'MISSED (goal <= 1.1x)'} |")


def adam_table(rows, torch_path=None):
    """Issue 17's workload: an Adam step over 64 tensors, each variant's share
    of the 28-bytes-per-element limit (bytes over the memcpy bandwidth measured
    in the same binary) and its speed against the raw multi-tensor launch;
    PyTorch's variants from bench/torch_adam.py's JSON, against its own copy
    bandwidth."""
    memcpy = rows["bm_adam_memcpy"]
    memcpy_bw = memcpy["bytes"] / memcpy["seconds"]
    raw = rows.get("bm_adam_raw_multi_tensor")
    print("| Adam step, 64 tensors (32 x 2^22, 32 x 2^12) | time | of the 28-byte limit | vs raw multi-tensor | kernels / launches |")
    print("|---|---|---|---|---|")
    for label, name in (("raw CUDA, one multi-tensor launch", "bm_adam_raw_multi_tensor"),
                        ("raw CUDA, a launch per tensor", "bm_adam_raw_per_tensor"),
                        ("streamdsl, 1 stream, run()", "bm_adam_streamdsl_1_stream"),
                        ("streamdsl, 1 stream, graph", "bm_adam_streamdsl_graph_1_stream"),
                        ("streamdsl, 1 stream, separate launches, run()",
                         "bm_adam_streamdsl_1_stream_separate_launches"),
                        ("streamdsl, 1 stream, separate launches, graph",
                         "bm_adam_streamdsl_graph_1_stream_separate_launches"),
                        ("streamdsl, 4 streams, run()", "bm_adam_streamdsl_4_streams"),
                        ("streamdsl, 4 streams, graph", "bm_adam_streamdsl_graph_4_streams")):
        if name not in rows:
            print(f"| {label} | missing | | | |")
            continue
        r = rows[name]
        frac = r["bytes"] / r["seconds"] / memcpy_bw
        versus = f"{raw['seconds'] / r['seconds']:.2f}x" if raw else ""
        c = r["counters"]
        kernels = f"{c.get('kernels', 0):.0f} / {c.get('launches', c.get('kernels', 0)):.0f}" if c else ""
        flag = " (RESULTS WRONG)" if r["error"] else ""
        print(f"| {label}{flag} | {r['seconds']*1e3:.3f} ms | {frac*100:.1f}% | {versus} | {kernels} |")
    if torch_path and os.path.exists(torch_path):
        with open(torch_path) as f:
            lines = [l for l in f if l.startswith("{")]
        data = json.loads(lines[-1]) if lines else {}
        for label, r in data.get("variants", {}).items():
            versus = f"{raw['seconds'] / (r['ms'] / 1e3):.2f}x" if raw else ""
            print(f"| PyTorch: {label} | {r['ms']:.3f} ms | {r['fraction_of_limit']*100:.1f}% (its copy BW) | {versus} | |")
    print(f"(memcpy D2D bandwidth here: {memcpy_bw/1e12:.3f} TB/s)")


def width_table(rows):
    """How wide a fused loop may be (bench/fusion_width.cu): K Adam-like
    tensors of 2^22 floats on one stream as one loop, as a segment each of one
    launch, and as the default plan makes them; each as a share of the memcpy
    bandwidth measured in the same binary."""
    memcpy = rows["bm_width_memcpy"]
    memcpy_bw = memcpy["bytes"] / memcpy["seconds"]
    print("| tensors (buffers) | one loop | a segment each | default plan | default: kernels / launches |")
    print("|---|---|---|---|---|")
    ks = sorted({int(n.rsplit("_", 1)[1]) for n in rows if n.startswith("bm_width_loop_")})
    for k in ks:
        cells = []
        for variant in ("loop", "segments", "default"):
            r = rows.get(f"bm_width_{variant}_{k}")
            if r is None:
                cells.append("missing")
                continue
            flag = " (RESULTS WRONG)" if r["error"] else ""
            cells.append(f"{r['bytes'] / r['seconds'] / memcpy_bw * 100:.1f}%{flag}")
        d = rows.get(f"bm_width_default_{k}", {"counters": {}})["counters"]
        shape = f"{d.get('kernels', '?'):.0f} / {d.get('launches', '?'):.0f}" if d else ""
        print(f"| {k} ({4 * k}) | " + " | ".join(cells) + f" | {shape} |")
    print(f"(memcpy D2D bandwidth here: {memcpy_bw/1e12:.3f} TB/s)")


def reductions_table(rows):
    """Workload 9 (bench/reductions.cu): sum(x), sum(x * y) and
    inclusive_sum(x) over 2^28 floats, against raw CUB calls in the same
    binary and against memcpy bandwidth (bytes read, and written for a scan)."""
    memcpy = rows["bm_reduce_memcpy"]
    memcpy_bw = memcpy["bytes"] / memcpy["seconds"]
    print("| workload | time | raw CUB | vs raw CUB | % of memcpy BW | goal | |")
    print("|---|---|---|---|---|---|---|")

    def row(label, name, raw, bar, bw_bar=None):
        r = rows.get(name)
        if r is None:
            print(f"| {label} | missing | | | | | MISSING |")
            return
        bw = r["bytes"] / r["seconds"] / memcpy_bw
        base = rows.get(raw) if raw else None
        speed = base["seconds"] / r["seconds"] if base else None
        ok = (speed is None or bar is None or speed >= bar) and (bw_bar is None or bw >= bw_bar)
        goal = (f">= {bar:.2f}x raw" if bar else "") + (f">= {bw_bar*100:.0f}% memcpy" if bw_bar else "")
        flag = "RESULTS WRONG" if r["error"] else ("ok" if ok else "MISSED")
        print(f"| {label} | {r['seconds']*1e3:.3f} ms | {base['seconds']*1e3:.3f} ms |" if base else
              f"| {label} | {r['seconds']*1e3:.3f} ms | |", end="")
        print(f" {speed:.3f}x |" if speed else " |", f"{bw*100:.1f}% | {goal} | {flag} |")

    row("sum(x), raw cub::DeviceReduce::Sum", "bm_sum_raw_cub", None, None)
    row("sum(x), run()", "bm_sum_streamdsl/0", "bm_sum_raw_cub", 0.97)
    row("sum(x), graph", "bm_sum_streamdsl/1", "bm_sum_raw_cub", 0.97)
    row("sum(x * y), run()", "bm_dot_streamdsl/0", None, None, 0.95)
    row("sum(x * y), graph", "bm_dot_streamdsl/1", None, None, 0.95)
    row("inclusive_sum(x), raw cub::DeviceScan::InclusiveSum", "bm_scan_raw_cub", None, None)
    row("inclusive_sum(x), run()", "bm_scan_streamdsl/0", "bm_scan_raw_cub", 0.97)
    row("inclusive_sum(x), graph", "bm_scan_streamdsl/1", "bm_scan_raw_cub", 0.97)
    print(f"(memcpy D2D bandwidth here: {memcpy_bw/1e12:.3f} TB/s, counting bytes read and written)")


def row_softmax_table(rows, torch_path=None):
    """Workload 9's row softmax (bench/row_softmax.cu): 4096 x 65536 floats,
    streamdsl against the hand-written row softmax in the same binary and
    against the bound (two reads and one write of 1 GiB at memcpy bandwidth),
    and against PyTorch's times from bench/row_softmax_torch.py's JSON (its own
    run, same GPU): the issue's bar is faster than torch.compile."""
    memcpy = rows["bm_softmax_memcpy"]
    memcpy_bw = memcpy["bytes"] / memcpy["seconds"]
    torch_rows = {}
    if torch_path and os.path.exists(torch_path):
        with open(torch_path) as f:
            torch_rows = json.load(f).get("variants", {})
    compiled = torch_rows.get("torch.compile", {}).get("ms")
    raw = rows.get("bm_softmax_raw/1")
    print("| row softmax 4096 x 65536 | time | speed-up over raw (1 block/SM) | of the bound | speed-up over torch.compile | |")
    print("|---|---|---|---|---|---|")

    def line(label, ms, bound_fraction, error=False, ours=False):
        vs_raw = f"{raw['seconds'] * 1e3 / ms:.3f}x" if raw else ""
        vs_torch = f"{compiled / ms:.3f}x" if compiled else ""
        flag = "RESULTS WRONG" if error else ("" if not ours or not compiled else
                                               ("ok" if ms < compiled else "MISSED"))
        print(f"| {label} | {ms:.3f} ms | {vs_raw} | {bound_fraction * 100:.1f}% | {vs_torch} | {flag} |")

    for label, name, ours in (("raw CUDA, 1 block per SM", "bm_softmax_raw/1", False),
                              ("raw CUDA, 2 blocks per SM", "bm_softmax_raw/2", False),
                              ("streamdsl run()", "bm_softmax_streamdsl/0", True),
                              ("streamdsl graph", "bm_softmax_streamdsl/1", True),
                              ("streamdsl run(), ops apart (no_fusion)", "bm_softmax_streamdsl_apart/0", False),
                              ("streamdsl graph, ops apart (no_fusion)", "bm_softmax_streamdsl_apart/1", False)):
        r = rows.get(name)
        if r is None:
            print(f"| {label} | missing | | | | MISSING |")
            continue
        line(label, r["seconds"] * 1e3, r["bytes"] / r["seconds"] / memcpy_bw, r["error"], ours)
    for name, r in torch_rows.items():
        print(f"| PyTorch {name} (its own run) | {r['ms']:.3f} ms | "
              f"{raw['seconds'] * 1e3 / r['ms']:.3f}x | {r['fraction_of_bound'] * 100:.1f}% (its bound) | "
              f"{compiled / r['ms']:.3f}x | |" if raw and compiled else
              f"| PyTorch {name} (its own run) | {r['ms']:.3f} ms | | | | |")
    bound_ms = 3.0 * 4096 * 65536 * 4 / memcpy_bw * 1e3
    print(f"(bound: 2 reads + 1 write of 1 GiB at memcpy D2D bandwidth {memcpy_bw/1e12:.3f} TB/s: {bound_ms:.3f} ms)")


def calls_table(rows):
    """The user's own steps (bench/calls.cu): a kernel and a Thrust
    transform issued by a bound callable (p.call) against the same call
    issued directly on a stream, at 2^28 and 2^12 floats."""
    print("| call | elements | raw | streamdsl run() | ratio | streamdsl graph | ratio |")
    print("|---|---|---|---|---|---|---|")
    for what, code in (("user's kernel", 0), ("thrust::transform", 1)):
        for n in (1 << 28, 1 << 12):
            raw = rows.get(f"bm_call_raw/{n}/{code}")
            cells = []
            for mode in (0, 1):
                r = rows.get(f"bm_call_streamdsl/{n}/{code}/{mode}")
                if r is None or raw is None:
                    cells += ["missing", ""]
                    continue
                if r["error"] or r["seconds"] <= 0:
                    cells += ["RESULTS WRONG", ""]
                    continue
                cells += [f"{r['seconds']*1e6:.1f} us", f"{raw['seconds'] / r['seconds']:.3f}x"]
            base = f"{raw['seconds']*1e6:.1f} us" if raw else "missing"
            print(f"| {what} | 2^{n.bit_length() - 1} | {base} | " + " | ".join(cells) + " |")


def matmul_table(rows):
    """Matmuls through cuBLASLt (bench/matmul.cu): c = sd::matmul(a, b)
    against a raw cublasLtMatmul (same heuristic, same workspace limit),
    square n^3, float (no TF32), bf16, fp16 and float as TF32 (sd::tf32);
    goal >= 0.97x raw."""
    print("| matmul | raw | TFLOP/s | streamdsl run() | vs raw | streamdsl graph | vs raw |")
    print("|---|---|---|---|---|---|---|")
    for n in (4096, 8192):
        for t, what in enumerate(("float", "bf16", "fp16", "float as tf32")):
            raw = rows.get(f"bm_matmul_raw/{n}/{t}")
            if raw is None:
                print(f"| {n}^3 {what} | missing | | | | | |")
                continue
            flops = 2.0 * n ** 3
            cells = []
            for mode in (0, 1):
                r = rows.get(f"bm_matmul_streamdsl/{n}/{t}/{mode}")
                if r is None:
                    cells += ["missing", ""]
                    continue
                speed = raw["seconds"] / r["seconds"]
                flag = " RESULTS WRONG" if r["error"] else ("" if speed >= 0.97 else " MISSED")
                cells += [f"{r['seconds']*1e3:.3f} ms", f"{speed:.3f}x{flag}"]
            print(f"| {n}^3 {what} | {raw['seconds']*1e3:.3f} ms | {flops / raw['seconds'] / 1e12:.1f} | "
                  + " | ".join(cells) + " |")


def fp8_matmul_table(rows):
    """FP8 matmuls (bench/matmul.cu, bm_matmul_fp8): e4m3 x e4m3 into bf16
    with device scales, c = sd::matmul(a, sd::transpose(w), sd::scales(sa, sw)),
    against a raw cublasLtMatmul with the same descriptors; goal >= 0.97x raw."""
    print("| fp8 matmul | raw | TFLOP/s | streamdsl run() | vs raw | streamdsl graph | vs raw |")
    print("|---|---|---|---|---|---|---|")
    for n in (4096, 8192):
        raw = rows.get(f"bm_matmul_fp8/{n}/0")
        if raw is None:
            print(f"| {n}^3 e4m3 -> bf16 | missing | | | | | |")
            continue
        cells = []
        for mode in (1, 2):
            r = rows.get(f"bm_matmul_fp8/{n}/{mode}")
            if r is None:
                cells += ["missing", ""]
                continue
            speed = raw["seconds"] / r["seconds"] if r["seconds"] > 0 else 0.0
            flag = " RESULTS WRONG" if r["error"] else ("" if speed >= 0.97 else " MISSED")
            cells += [f"{r['seconds']*1e3:.3f} ms", f"{speed:.3f}x{flag}"]
        flops = 2.0 * n ** 3
        base = "RESULTS WRONG" if raw["error"] else f"{raw['seconds']*1e3:.3f} ms"
        tflops = "" if raw["error"] or raw["seconds"] <= 0 else f"{flops / raw['seconds'] / 1e12:.1f}"
        print(f"| {n}^3 e4m3 -> bf16 | {base} | {tflops} | " + " | ".join(cells) + " |")


def epilogue_table(rows):
    """relu(a b + bias) (bench/matmul.cu, bm_epilogue): folded into the
    matmul (cuBLASLt's RELU_BIAS epilogue), the same program under
    sd::no_fusion (matmul + kernel), and raw cublasLtMatmul with RELU_BIAS."""
    print("| relu(a b + bias) | folded | matmul + kernel | folded vs apart | raw + RELU_BIAS | folded vs raw |")
    print("|---|---|---|---|---|---|")
    for n in (4096, 8192):
        for t, what in enumerate(("float", "bf16")):
            got = [rows.get(f"bm_epilogue/{n}/{t}/{mode}") for mode in (0, 1, 2)]
            if any(r is None for r in got):
                print(f"| {n}^3 {what} | missing | | | | |")
                continue
            if any(r["error"] for r in got):
                print(f"| {n}^3 {what} | RESULTS WRONG | | | | |")
                continue
            folded, apart, raw = (r["seconds"] for r in got)
            print(f"| {n}^3 {what} | {folded*1e3:.3f} ms | {apart*1e3:.3f} ms | {apart / folded:.3f}x faster | "
                  f"{raw*1e3:.3f} ms | {raw / folded:.3f}x |")


def matmul_concurrency_table(rows):
    """Workloads 7 and 7b (bench/matmul_concurrency.cu): 64 independent bf16
    matmuls on 4 streams, and an 8192^3 matmul beside an 8-op chain."""
    def t(name):
        r = rows.get(name)
        return None if r is None or r["error"] or r["seconds"] <= 0 else r["seconds"]

    def ms(x):
        return "missing or wrong" if x is None else f"{x*1e3:.3f} ms"

    def ratio(a, b):
        return "" if a is None or b is None else f"{a / b:.2f}x"

    # bm_7b_streamdsl/<shape>/<0 run(), 1 graph>/<0 batched plan, 1 sd::no_batching>; older runs
    # (before the batching pass) have two arguments: their plan was unbatched.
    def sd_time(i, v, apart):
        x = t(f"bm_7b_streamdsl/{i}/{v}/{1 if apart else 0}")
        return t(f"bm_7b_streamdsl/{i}/{v}") if x is None and apart else x

    print("| 7b: 64 bf16 matmuls | plain, 1 stream | plain, 4 streams | raw graph, 4 streams "
          "| streamdsl unbatched (sd::no_batching) run() | unbatched graph "
          "| unbatched graph vs plain 1 stream (goal >= 2x at 512^3, 1024^3) | unbatched graph vs raw graph (goal >= 1x) "
          "| raw strided-batched call | streamdsl batched run() | batched graph | batched graph vs raw batched call "
          "| batched graph vs unbatched graph |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for i, label in enumerate(("512^3", "1024^3", "256x4096x1024")):
        one, four, rg, raw_batched = (t(f"bm_7b_raw/{i}/{v}") for v in range(4))
        run, graph = (sd_time(i, v, True) for v in range(2))
        brun, bgraph = (sd_time(i, v, False) for v in range(2))
        print(f"| {label} | {ms(one)} | {ms(four)} | {ms(rg)} | {ms(run)} | {ms(graph)} | {ratio(one, graph)} "
              f"| {ratio(rg, graph)} | {ms(raw_batched)} | {ms(brun)} | {ms(bgraph)} "
              f"| {ratio(raw_batched, bgraph)} | {ratio(graph, bgraph)} faster |")
    print()
    b2b, plain, parted = (t(f"bm_7_raw/{v}") for v in range(3))
    run, graph = (t(f"bm_7_streamdsl<true>/{v}") for v in range(2))
    run1, graph1 = (t(f"bm_7_streamdsl<false>/{v}") for v in range(2))
    print("| 7: 8192^3 bf16 matmul beside an 8-op chain over 2^28 floats | time | vs raw back to back "
          "| vs streamdsl back to back (goal <= 1.03x) |")
    print("|---|---|---|---|")
    for label, x, own in (("raw, back to back on one stream", b2b, None),
                          ("raw, plain overlap on two streams", plain, None),
                          ("raw, matmul leaving 1/4 of the SMs (SM-count target)", parted, None),
                          ("streamdsl, back to back on main, run()", run1, run1),
                          ("streamdsl, back to back on main, graph", graph1, graph1),
                          ("streamdsl two-stream plan, run()", run, run1),
                          ("streamdsl two-stream plan, graph", graph, graph1)):
        print(f"| {label} | {ms(x)} | {ratio(x, b2b)} | {ratio(x, own) if own else ''} |")


def offload_matmul_table(rows):
    """Workload 6 with matmul layers (bench/offload_matmul.cu): the share of
    the transfer time hidden behind the layers' matmuls."""
    def t(name):
        r = rows.get(name)
        return None if r is None or r["error"] or r["seconds"] <= 0 else r["seconds"]

    compute, serial = t("w6_matmul/compute_only"), t("w6_matmul/serial")
    print("| 6: 4 bf16 matmul layers, 3 activations of 128 MB offloaded and prefetched | time "
          "| transfer time hidden (goal >= 90%) |")
    print("|---|---|---|")
    for label, name in (("compute only (no copies)", "w6_matmul/compute_only"),
                        ("copies on main (serial)", "w6_matmul/serial"),
                        ("streamdsl, copies on offload/prefetch streams", "w6_matmul/streamdsl"),
                        ("raw cuBLASLt + cudaMemcpyAsync, same schedule", "w6_matmul/raw")):
        x = t(name)
        hidden = ""
        if x is not None and compute is not None and serial is not None and serial > compute \
                and name not in ("w6_matmul/compute_only", "w6_matmul/serial"):
            hidden = f"{(serial - x) / (serial - compute) * 100:.1f}%"
        print(f"| {label} | {'missing or wrong' if x is None else f'{x*1e3:.3f} ms'} | {hidden} |")


def data_parallel_table(rows, ctx):
    """Workload 10 (bench/data_parallel.cu): the share of the shorter phase
    (the chain or the all-reduces) that overlap hides, (back to back -
    overlapped) / min(compute, communication), and the overlapped step
    against the raw NCCL + streams version (goals: >= 80%, <= 1.05x)."""
    def t(name):
        r = rows.get(name)
        return None if r is None or r["error"] or r["seconds"] <= 0 else r["seconds"]

    p = "w10_data_parallel/"
    compute, comm = t(p + "compute_only"), t(p + "communication_only")
    ranks = ctx.get("ranks", "?")
    print(f"| 10: data-parallel step, {ranks} rank(s), 256 MiB per rank in 8 buckets | time "
          "| shorter phase hidden (goal >= 80%) | / raw overlapped (goal <= 1.05) |")
    print("|---|---|---|---|")
    raw = t(p + "raw")
    for label, name, b2b in (("chain alone (streamdsl)", "compute_only", None),
                             ("all-reduces alone (raw NCCL)", "communication_only", None),
                             ("streamdsl, back to back (one stream)", "back_to_back", None),
                             ("streamdsl, all-reduces on stream comm", "streamdsl", "back_to_back"),
                             ("raw chain alone", "raw_compute_only", None),
                             ("raw NCCL + streams, back to back", "raw_back_to_back", None),
                             ("raw NCCL + streams, overlapped", "raw", "raw_back_to_back")):
        x = t(p + name)
        hidden = ratio = ""
        serial = t(p + b2b) if b2b else None
        if x is not None and serial is not None and compute and comm:
            hidden = f"{(serial - x) / min(compute, comm) * 100:.1f}%"
        if x is not None and raw and b2b:
            ratio = f"{x / raw:.3f}"
        print(f"| {label} | {'missing or wrong' if x is None else f'{x*1e3:.3f} ms'} | {hidden} | {ratio} |")


def torch_table(rows):
    """bench/torch_compare.py's rows beside bench_workloads' (the same JSON
    shape): each workload's streamdsl, raw CUDA and PyTorch times, and
    streamdsl's speed over the fastest PyTorch variant."""
    from torch_compare import VARIANTS, WORKLOADS

    def ms(name):
        r = rows.get(name)
        if r is None:
            return None, "missing"
        if r["seconds"] <= 0:
            return None, f"FAILED ({r['error']})" if r["error"] else "FAILED"
        if r["error"]:  # timed, but its results are wrong: not a contender
            return None, f"{r['seconds']*1e3:.3f} ms, RESULTS WRONG ({r['error']})"
        return r["seconds"], f"{r['seconds']*1e3:.3f} ms"

    print("| workload | streamdsl | raw CUDA | PyTorch eager | torch.compile | torch.compile reduce-overhead "
          "| streamdsl vs fastest PyTorch |")
    print("|---|---|---|---|---|---|---|")
    for w in WORKLOADS:
        ours, ours_text = ms(w.streamdsl)
        raw_text = ms(w.raw)[1] if w.raw else ""
        torch_times = [ms(f"torch_{w.key}/{v}") for v in VARIANTS]
        measured = [t for t, _ in torch_times if t]
        speed = f"{min(measured) / ours:.2f}x" if ours and measured else ""
        cells = [text if w.key != "memcpy" or v == "eager" else "" for (_, text), v in zip(torch_times, VARIANTS)]
        print(f"| {w.label} | {ours_text} | {raw_text} | " + " | ".join(cells) + f" | {speed} |")


def torch_matmul_table(path):
    """bench/torch_matmul.py's variants (workloads 7b, 7 and 6 in PyTorch, same GPU)."""
    with open(path) as f:
        data = json.load(f)
    if "skipped" in data:
        print(f"PyTorch matmul workloads: skipped ({data['skipped']})")
        return
    print(f"| PyTorch {data.get('torch', '')}, {data.get('device', '')} | time | |")
    print("|---|---|---|")
    for name, r in data["variants"].items():
        print(f"| {name} | {r['ms']:.3f} ms | {r.get('error', '')} |")


def main():
    rows, ctx = {}, {}
    torch_path = None
    torch_softmax_path = None
    torch_matmul_path = None
    for path in sys.argv[1:]:
        if path.endswith("torch_matmul.json"):
            torch_matmul_path = path
            continue
        if path.endswith("torch_adam.json"):
            torch_path = path
            continue
        if path.endswith("torch_row_softmax.json"):
            torch_softmax_path = path
            continue
        if not os.path.exists(path):
            print(f"missing: {path}")
            continue
        r, c = load(path)
        rows.update(r)
        ctx = ctx or c
    if "bm_memcpy" in rows:
        workloads_table(rows, ctx)
    if any(n.startswith("bm_copy_") for n in rows):
        if "bm_memcpy" in rows:
            print()
        copy_compute_table(rows)
    if "bm_adam_memcpy" in rows:
        print()
        adam_table(rows, torch_path)
    if "bm_width_memcpy" in rows:
        print()
        width_table(rows)
    if "bm_reduce_memcpy" in rows:
        print()
        reductions_table(rows)
    if any(n.startswith("bm_call_") for n in rows):
        print()
        calls_table(rows)
    if "bm_softmax_memcpy" in rows:
        print()
        row_softmax_table(rows, torch_softmax_path)
    if any(n.startswith("bm_matmul_") for n in rows):
        print()
        matmul_table(rows)
    if any(n.startswith("bm_matmul_fp8/") for n in rows):
        print()
        fp8_matmul_table(rows)
    if any(n.startswith("bm_epilogue/") for n in rows):
        print()
        epilogue_table(rows)
    if any(n.startswith(("bm_7b_", "bm_7_")) for n in rows):
        print()
        matmul_concurrency_table(rows)
    if any(n.startswith("w6_matmul/") for n in rows):
        print()
        offload_matmul_table(rows)
    if any(n.startswith("w10_data_parallel/") for n in rows):
        print()
        data_parallel_table(rows, ctx)
    if any(n.startswith("torch_") for n in rows):
        print()
        torch_table(rows)
    if torch_matmul_path and os.path.exists(torch_matmul_path):
        print()
        torch_matmul_table(torch_matmul_path)


if __name__ == "__main__":
    main()
