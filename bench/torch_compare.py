#!/usr/bin/env python3
"""PyTorch's side of bench/workloads.cu: every workload of it that PyTorch can
express, on the same GPU, at the same sizes, timed the same way, written as the
same JSON, so that bench/report.py puts streamdsl, raw CUDA and PyTorch in one
table (scripts/gpu.sh runs both).

Workloads (2^28 floats unless stated; the C++ rows each is compared with are in
WORKLOADS below):
  seed                y = x + 1; z = y * 2
  chain K=2, 4, 8     K chained elementwise ops, x to y
  two-chains          a = chain_a(x), b = chain_b(x), out = a + b (a, b temps)
  two-chains outputs  the same, returning a and b too
  two-chains halves   a = chain_a(xa), b = chain_b(xb) over two 2^27-float
                      inputs, out = a + b
  small-ops           64 independent 4-op chains on 64K floats
and a device-to-device copy of 2^28 floats (the memcpy ceiling). Stream
placement is not expressed: torch.compile's output code puts every kernel on
the current stream. Each runs eager, under torch.compile (default mode) and
under torch.compile(mode="reduce-overhead") (CUDA graphs); a compiled result
that differs from eager's is reported as an error of its row.

Timing (bench/torch_timing.py, as bench/bench_support.cuh's time_on): warm-up
calls first, then --repetitions rounds, each call timed alone between two CUDA
events on the current stream; a row is the median of the rounds' means, as the
C++ benchmarks' --benchmark_repetitions=5 medians are.

usage: python3 bench/torch_compare.py [--out torch_compare.json] [--repetitions 5]
                                      [--round-seconds 0.1] [--only seed,chain8] [--no-compile]
Without torch or a CUDA device it writes {"skipped": ...}, says so and exits 0.
"""
import argparse
import collections
import datetime
import json
import socket
import sys

from torch_timing import timed, torch_on_cuda

BIG = 1 << 28
HALF = BIG // 2
SMALL_CHAINS, SMALL_N = 64, 1 << 16

# key: the rows' name stem (torch_<key>/<variant>); streamdsl, raw: the rows of
# bench/workloads.cu it is compared with; bytes: what the workload must move
# (as the streamdsl row counts it, so bandwidths compare).
Workload = collections.namedtuple("Workload", "key label streamdsl raw bytes")
WORKLOADS = [
    Workload("memcpy", "device-to-device copy of 2^28 floats (C++: cudaMemcpyAsync; torch: copy_)", "bm_memcpy",
             None, 2.0 * BIG * 4),
    Workload("seed", "seed (1 kernel, as torch.compile makes it)", "bm_seed_relaxed_streamdsl", "bm_seed_raw_fused",
             3.0 * BIG * 4),
    Workload("chain2", "chain K=2", "bm_chain_streamdsl<2>", "bm_chain_raw_fused<2>", 2.0 * BIG * 4),
    Workload("chain4", "chain K=4", "bm_chain_streamdsl<4>", "bm_chain_raw_fused<4>", 2.0 * BIG * 4),
    Workload("chain8", "chain K=8", "bm_chain_streamdsl<8>", "bm_chain_raw_fused<8>", 2.0 * BIG * 4),
    Workload("two_chains", "two-chains, temps", "bm_two_chains_streamdsl", "bm_two_chains_raw", 2.0 * BIG * 4),
    Workload("two_chains_outputs", "two-chains, a and b outputs (sd::relaxed: 1 kernel, as torch.compile makes it)",
             "bm_two_chains_outputs_relaxed_streamdsl", "bm_two_chains_raw", 4.0 * BIG * 4),
    Workload("two_chains_halves", "two-chains over two input halves (2 x 2^27)", "bm_two_chains_halves_streamdsl",
             "bm_two_chains_halves_raw", 3.0 * HALF * 4),
    Workload("small_ops", "small-ops, plain launches (64 chains x 4 ops, 64K floats)", "bm_small_ops_streamdsl",
             "bm_small_ops_raw/0", 2.0 * SMALL_CHAINS * SMALL_N * 4),
    Workload("small_ops_graph", "small-ops, CUDA graph (torch: reduce-overhead)", "bm_small_ops_streamdsl_graph",
             "bm_small_ops_raw/1", 2.0 * SMALL_CHAINS * SMALL_N * 4),
]
VARIANTS = ("eager", "compile", "reduce_overhead")
# small_ops_graph is small_ops' own measurement shown beside the graph rows: no run of its own.
MEASURED_AS = {"small_ops_graph": "small_ops"}


def chain_a(torch, x):
    """bench/workloads.cu's chain_a_statements (examples/torch_extension's two_chains too)."""
    v = torch.relu(x * 1.5 + 0.25)
    v = torch.clamp_max(v * 0.75 - 0.125, 4.0)
    v = torch.abs(v) * 1.0001 + 0.5
    return v * v * 0.5


def chain_b(torch, x):
    """bench/workloads.cu's chain_b_statements."""
    v = torch.clamp_min(x * 0.5 - 0.25, -2.0)
    v = torch.relu(v + 0.125) * 1.25
    v = torch.abs(v - 0.5) * 0.999
    return v * 0.5 + x


def functions(torch):
    """Each workload's inputs (a function making them) and the function PyTorch runs."""
    relu = torch.relu

    def chain(k):
        def run(x):
            v = x * 1.0001
            for i in range(1, k - 1):
                v = v + 0.5 if i % 2 == 1 else v * 0.999
            return v - 0.25
        return run

    def seed(x):
        y = x + 1
        return y, y * 2

    def two_chains(x):
        return chain_a(torch, x) + chain_b(torch, x)

    def two_chains_outputs(x):
        a, b = chain_a(torch, x), chain_b(torch, x)
        return a, b, a + b

    def two_chains_halves(xa, xb):
        return chain_a(torch, xa) + chain_b(torch, xb)

    def small_ops(xs):
        return [relu(x * 2.0 + 1.0) * 0.5 for x in xs]

    def memcpy(x, y):
        return y.copy_(x)

    def floats(n, seed_value):
        gen = torch.Generator(device="cuda").manual_seed(seed_value)
        return torch.rand(n, device="cuda", generator=gen) * 4 - 2

    big = lambda: (floats(BIG, 1),)  # noqa: E731
    return {
        "memcpy": (lambda: (floats(BIG, 1), torch.empty(BIG, device="cuda")), memcpy),
        "seed": (big, seed),
        "chain2": (big, chain(2)),
        "chain4": (big, chain(4)),
        "chain8": (big, chain(8)),
        "two_chains": (big, two_chains),
        "two_chains_outputs": (big, two_chains_outputs),
        "two_chains_halves": (lambda: (floats(HALF, 1), floats(HALF, 2)), two_chains_halves),
        "small_ops": (lambda: ([floats(SMALL_N, i) for i in range(SMALL_CHAINS)],), small_ops),
    }


def flatten(result):
    if isinstance(result, (list, tuple)):
        return [t for r in result for t in flatten(r)]
    return [result]


def measure(torch, fn, args, reference, repetitions, round_seconds, warmup):
    """(seconds per call, error or None): the outputs checked against eager's, then timed."""
    for _ in range(warmup):  # compiles; reduce-overhead records its graph on a later call
        out = [t.clone() for t in flatten(fn(*args))]
    torch.cuda.synchronize()
    error = None
    if reference is not None:
        for got, want in zip(out, reference):
            if not torch.allclose(got, want, rtol=1e-5, atol=1e-6):
                error = f"differs from eager by up to {(got - want).abs().max().item():.3g}"
    del out
    once = timed(torch, lambda: fn(*args), 3, 1, per_call=True)
    iters = max(5, min(2000, int(round_seconds / max(once, 1e-6))))
    return timed(torch, lambda: fn(*args), iters, repetitions, per_call=True), error


def row(key, variant, seconds, workload, repetitions, error):
    entry = {"name": f"torch_{key}/{variant}/manual_time_median", "run_name": f"torch_{key}/{variant}/manual_time",
             "run_type": "aggregate", "aggregate_name": "median", "repetitions": repetitions,
             "real_time": seconds * 1e3, "cpu_time": seconds * 1e3, "time_unit": "ms",
             "bytes_per_iter": workload.bytes, "bytes_per_second": workload.bytes / seconds if seconds else 0.0}
    if error:
        entry["error_occurred"] = True
        entry["error_message"] = error
    return entry


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="torch_compare.json")
    ap.add_argument("--repetitions", type=int, default=5)
    ap.add_argument("--round-seconds", type=float, default=0.1, help="each round's length, about")
    ap.add_argument("--only", default="", help="comma-separated workload keys (default: all)")
    ap.add_argument("--no-compile", action="store_true")
    args = ap.parse_args()

    def write(data):
        with open(args.out, "w") as f:
            json.dump(data, f, indent=1)

    torch, why_not = torch_on_cuda()
    if torch is None:
        print(f"skipped: {why_not}")
        write({"skipped": why_not})
        return 0
    wanted = set(filter(None, args.only.split(",")))
    variants = VARIANTS[:1] if args.no_compile else VARIANTS
    context = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
               "host_name": socket.gethostname(), "executable": "bench/torch_compare.py",
               "torch": torch.__version__, "device": torch.cuda.get_device_name(),
               "timing": "CUDA events per call on the current stream, median of the repetitions' means"}
    benchmarks = []
    for key, (make_inputs, fn) in functions(torch).items():
        if wanted and key not in wanted:
            continue
        inputs = make_inputs()
        reference = [t.clone() for t in flatten(fn(*inputs))]
        for variant in variants if key != "memcpy" else VARIANTS[:1]:
            torch._dynamo.reset()
            try:
                if variant == "eager":
                    run, check_against, warmup = fn, None, 1
                else:
                    mode = "reduce-overhead" if variant == "reduce_overhead" else None
                    if mode:  # fixed addresses, as a captured graph of the C++ side binds: no input copies
                        for t in flatten(inputs):
                            torch._dynamo.mark_static_address(t)
                    run, check_against, warmup = torch.compile(fn, mode=mode), reference, 3
                seconds, error = measure(torch, run, inputs, check_against, args.repetitions, args.round_seconds,
                                         warmup)
            except Exception as e:  # a failed variant is a row that says so; the others still run
                seconds, error = 0.0, f"{type(e).__name__}: {e}"[:300]
            for w in WORKLOADS:
                if w.key == key or MEASURED_AS.get(w.key) == key:
                    benchmarks.append(row(w.key, variant, seconds, w, args.repetitions, error))
            print(f"{key:20s} {variant:16s} " + (f"{seconds * 1e3:9.4f} ms" if seconds else "  failed") +
                  (f"  ERROR {error}" if error else ""), flush=True)
        del inputs, reference
        torch.cuda.empty_cache()
    write({"context": context, "benchmarks": benchmarks})
    failed = sum(1 for b in benchmarks if b.get("error_occurred"))
    print(f"ran: {len(benchmarks)} rows, {failed} with errors (torch {torch.__version__}, {context['device']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
