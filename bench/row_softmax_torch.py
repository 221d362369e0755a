#!/usr/bin/env python3
"""PyTorch's side of the row softmax benchmark (bench/row_softmax.cu): softmax
along each row of a 4096 x 65536 float32 matrix (1 GiB) on the same GPU.

Times, with CUDA events (median of --repeat rounds of --iters calls each):
  torch.softmax (eager)   torch.softmax(x, dim=1)
  torch.compile           the same function under torch.compile, and
  torch.compile (manual)  exp(x - max) / sum(exp(x - max)) written out, compiled
and the bound the C++ benchmark uses: two reads and one write of the matrix at
the bandwidth of a device-to-device copy measured here. Prints one line per
variant ("name: 0.870 ms ..."), which scripts/gpu.sh shows as it is; with
--json PATH also writes them as JSON for bench/report.py. Without torch it
prints "skipped: torch not installed" (no CUDA device: "skipped: no CUDA
device") and exits 0.

usage: python3 bench/row_softmax_torch.py [--iters 20] [--repeat 5] [--no-compile] [--json PATH]
"""
import argparse
import json
import sys

from torch_timing import timed, torch_on_cuda

ROWS, COLS = 4096, 65536


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()

    def finish(results):
        if args.json:
            with open(args.json, "w") as f:
                json.dump(results, f)
        return 0

    torch, why_not = torch_on_cuda()
    if torch is None:
        print(f"skipped: {why_not}")
        return finish({"skipped": why_not})
    dev = "cuda"

    # Values as the C++ benchmark's: multiples of 1/4 in [-2, 2].
    i = torch.arange(ROWS * COLS, device=dev, dtype=torch.int64)
    x = (((i * 7 + 3) % 17).to(torch.float32) * 0.25 - 2.0).view(ROWS, COLS)
    del i
    y = torch.empty_like(x)
    # The bound: a copy's bytes (read + written) give the bandwidth.
    copy_s = timed(torch, lambda: y.copy_(x), args.iters, args.repeat)
    copy_bw = 2.0 * x.numel() * 4 / copy_s
    bound_bytes = 3.0 * x.numel() * 4
    results = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "rows": ROWS, "cols": COLS,
               "copy_bandwidth_GBps": copy_bw / 1e9, "bound_ms": bound_bytes / copy_bw * 1e3, "variants": {}}

    def report(name, seconds):
        results["variants"][name] = {"ms": seconds * 1e3, "fraction_of_bound": bound_bytes / copy_bw / seconds}

    def eager():
        return torch.softmax(x, dim=1)

    reference = eager()
    report("torch.softmax (eager)", timed(torch, eager, args.iters, args.repeat))
    if not args.no_compile:
        compiled = torch.compile(lambda t: torch.softmax(t, dim=1))

        def manual_softmax(t):
            e = torch.exp(t - t.amax(dim=1, keepdim=True))
            return e / e.sum(dim=1, keepdim=True)

        manual = torch.compile(manual_softmax)
        for name, fn in (("torch.compile", compiled), ("torch.compile (manual)", manual)):
            for _ in range(3):  # compile and warm up
                out = fn(x)
            if not torch.allclose(out, reference, rtol=1e-5, atol=1e-9):
                print(f"{name}: RESULTS DIFFER from torch.softmax", file=sys.stderr)
            report(name, timed(torch, lambda: fn(x), args.iters, args.repeat))

    print(f"row softmax {ROWS} x {COLS} float32 on {results['device']} (torch {results['torch']})")
    print(f"copy bandwidth {copy_bw / 1e9:.0f} GB/s; bound (2 reads + 1 write of 1 GiB): {results['bound_ms']:.3f} ms")
    for name, r in results["variants"].items():
        print(f"{name}: {r['ms']:.3f} ms ({100 * r['fraction_of_bound']:.1f}% of the bound)")
    return finish(results)


if __name__ == "__main__":
    sys.exit(main())
