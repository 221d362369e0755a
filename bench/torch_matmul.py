#!/usr/bin/env python3
"""PyTorch's side of the matmul workloads (issue 14), on the same GPU, shapes
and timing as bench/matmul_concurrency.cu and bench/offload_matmul.cu:

  7b  64 independent bf16 matmuls of one shape (512^3, 1024^3, 256x4096x1024):
      eager on one stream, eager over 4 torch streams, torch.compile of the
      loop (default and reduce-overhead, i.e. a CUDA graph), and torch.bmm on
      the 64 stacked products (the batched call a PyTorch user would write).
  7   a bf16 8192^3 matmul and an 8-op chain over 2^28 floats: eager on one
      stream, eager with the chain on a side stream, torch.compile of both.
  6   4 bf16 layers (8192x16384 by 16384x8192) forward then backward, 3
      activations of 128 MB offloaded to pinned host memory and prefetched one
      step ahead: eager with no copies, copies on the current stream, copies on
      an offload and a prefetch stream (torch.compile does not take streams, so
      it has no row here).

Each variant's result is checked against eager's on one stream (bf16: within
1e-2 of the largest magnitude). Times: CUDA events per call, the median of
--repeat rounds (bench/torch_timing.py). Prints one line per variant; with
--json PATH writes {"variants": {name: {"ms": ...}}} for bench/report.py.
Without torch or a GPU: "skipped: ..." and exit 0.

usage: python3 bench/torch_matmul.py [--repeat 5] [--no-compile] [--only 7b,7,6] [--json PATH]
"""
import argparse
import json
import sys

from torch_timing import timed, torch_on_cuda

COUNT, LANES = 64, 4
SHAPES = {"512^3": (512, 512, 512), "1024^3": (1024, 1024, 1024), "256x4096x1024": (256, 4096, 1024)}


def values(torch, shape, salt, dtype):
    """Multiples of 1/8 in [-0.5, 0.5], as the C++ benchmarks fill theirs."""
    n = 1
    for s in shape:
        n *= s
    i = torch.arange(n, device="cuda", dtype=torch.int64)
    return (((i * 7 + salt) % 9 - 4).to(torch.float32) * 0.125).to(dtype).view(*shape)


def close(torch, got, want):
    scale = want.abs().max().float().item() or 1.0
    return (got.float() - want.float()).abs().max().item() <= 1e-2 * scale


def workload_7b(torch, args, report):
    for label, (m, n, k) in SHAPES.items():
        a = values(torch, (COUNT, m, k), 1, torch.bfloat16)
        b = values(torch, (COUNT, k, n), 2, torch.bfloat16)
        c = torch.empty(COUNT, m, n, device="cuda", dtype=torch.bfloat16)
        lanes = [torch.cuda.Stream() for _ in range(LANES)]

        def one_stream():
            for i in range(COUNT):
                torch.matmul(a[i], b[i], out=c[i])
            return c

        def four_streams():
            here = torch.cuda.current_stream()
            for s in lanes:
                s.wait_stream(here)
            for i in range(COUNT):
                with torch.cuda.stream(lanes[i % LANES]):
                    torch.matmul(a[i], b[i], out=c[i])
            for s in lanes:
                here.wait_stream(s)
            return c

        def loop(x, y):
            return [torch.matmul(x[i], y[i]) for i in range(COUNT)]

        want = one_stream().clone()
        variants = {"eager, 1 stream": one_stream, "eager, 4 streams": four_streams,
                    "torch.bmm (batched)": lambda: torch.bmm(a, b, out=c)}
        if not args.no_compile:
            torch._dynamo.reset()
            compiled = torch.compile(loop)
            variants["torch.compile"] = lambda: compiled(a, b)
            torch._dynamo.mark_static_address(a)
            torch._dynamo.mark_static_address(b)
            graphed = torch.compile(loop, mode="reduce-overhead")
            variants["torch.compile reduce-overhead"] = lambda: graphed(a, b)
        for name, fn in variants.items():
            for _ in range(3):  # compile, record a graph, warm up
                out = fn()
            got = torch.stack(out) if isinstance(out, list) else out
            error = None if close(torch, got, want) else "RESULTS DIFFER from eager"
            report(f"7b {label}: {name}", timed(torch, fn, 10, args.repeat, per_call=True), error)
        del a, b, c, want
        torch.cuda.empty_cache()


def chain(x):
    t = x * 1.0001
    for i in range(1, 7):
        t = t + 0.5 if i % 2 == 1 else t * 0.999
    return t - 0.25


def workload_7(torch, args, report):
    a = values(torch, (8192, 8192), 1, torch.bfloat16)
    b = values(torch, (8192, 8192), 2, torch.bfloat16)
    x = values(torch, (1 << 28,), 3, torch.float32)
    side = torch.cuda.Stream()

    def back_to_back():
        return torch.matmul(a, b), chain(x)

    def overlapped():
        here = torch.cuda.current_stream()
        side.wait_stream(here)
        with torch.cuda.stream(side):
            y = chain(x)
        c = torch.matmul(a, b)
        here.wait_stream(side)
        y.record_stream(here)
        return c, y

    want_c, want_y = back_to_back()
    variants = {"eager, back to back": back_to_back, "eager, chain on a side stream": overlapped}
    if not args.no_compile:
        torch._dynamo.reset()
        compiled = torch.compile(lambda p, q, r: (torch.matmul(p, q), chain(r)))
        variants["torch.compile"] = lambda: compiled(a, b, x)
    for name, fn in variants.items():
        for _ in range(3):
            c, y = fn()
        error = None if close(torch, c, want_c) and torch.allclose(y, want_y, rtol=1e-5) else "RESULTS DIFFER"
        report(f"7: {name}", timed(torch, fn, 5, args.repeat, per_call=True), error)
    del a, b, x
    torch.cuda.empty_cache()


def workload_6(torch, args, report):
    layers, m, k, n = 4, 8192, 16384, 8192
    x = values(torch, (m, k), 1, torch.bfloat16)
    w = [values(torch, (k, n), 2 + l, torch.bfloat16) for l in range(layers)]
    v = [values(torch, (n, k), 10 + l, torch.bfloat16) for l in range(layers)]
    host = [torch.empty(m, n, dtype=torch.bfloat16, pin_memory=True) for _ in range(layers - 1)]
    back = [torch.empty(m, n, device="cuda", dtype=torch.bfloat16) for _ in range(layers - 1)]
    offload, prefetch = torch.cuda.Stream(), torch.cuda.Stream()

    def step(mode):  # "compute only", "serial" or "overlapped"
        here = torch.cuda.current_stream()
        act = []
        for l in range(layers):
            act.append(torch.matmul(x, w[l]))
            if mode != "compute only" and l < layers - 1:
                on = offload if mode == "overlapped" else here
                on.wait_stream(here)
                with torch.cuda.stream(on):
                    host[l].copy_(act[l], non_blocking=True)
        if mode == "overlapped":
            here.wait_stream(offload)
        g, arrived = [None] * layers, [None] * layers
        for l in range(layers - 1, -1, -1):
            # Bring back the activation the next step reads while this one computes.
            if mode != "compute only" and l >= 1:
                on = prefetch if mode == "overlapped" else here
                on.wait_stream(here)
                with torch.cuda.stream(on):
                    back[l - 1].copy_(host[l - 1], non_blocking=True)
                    arrived[l - 1] = torch.cuda.current_stream().record_event()
            if mode == "compute only" or l == layers - 1:
                g[l] = torch.matmul(act[l], v[l])
            else:
                here.wait_event(arrived[l])  # this copy only, not the one just issued
                g[l] = torch.matmul(back[l], v[l])
        return g

    want = step("compute only")
    for mode in ("compute only", "serial", "overlapped"):
        got = step(mode)
        error = None if all(close(torch, p, q) for p, q in zip(got, want)) else "RESULTS DIFFER"
        report(f"6: eager, {mode}", timed(torch, lambda: step(mode), 3, args.repeat, per_call=True), error)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--only", default="7b,7,6")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    results = {"variants": {}}

    def finish():
        if args.json:
            with open(args.json, "w") as f:
                json.dump(results, f, indent=1)
        return 0

    torch, why_not = torch_on_cuda()
    if torch is None:
        print(f"skipped: {why_not}")
        results["skipped"] = why_not
        return finish()
    results.update(device=torch.cuda.get_device_name(), torch=torch.__version__)

    def report(name, seconds, error):
        results["variants"][name] = {"ms": seconds * 1e3, **({"error": error} if error else {})}
        print(f"{name}: {seconds * 1e3:.3f} ms" + (f"  {error}" if error else ""), flush=True)

    wanted = set(args.only.split(","))
    for key, run in (("7b", workload_7b), ("7", workload_7), ("6", workload_6)):
        if key in wanted:
            try:
                run(torch, args, report)
            except Exception as e:  # a failed workload says so; the others still run
                print(f"workload {key} failed: {type(e).__name__}: {e}", file=sys.stderr)
                results["variants"][f"{key}: failed"] = {"ms": 0.0, "error": f"{type(e).__name__}: {e}"[:300]}
    return finish()


if __name__ == "__main__":
    sys.exit(main())
