#!/usr/bin/env python3
"""PyTorch's side of issue 17's workload (bench/multi_tensor_adam.cu): one Adam
step over 64 float tensors, 32 of 2^22 and 32 of 2^12 elements, alternating.

Times, with CUDA events (median of --repeat rounds of --iters steps each):
  torch fused     torch.optim.Adam(fused=True): one multi-tensor launch
  torch foreach   torch.optim.Adam(foreach=True)
  torch.compile   the step of a foreach Adam compiled with torch.compile
and each against the same 28-bytes-per-element limit as the C++ benchmark
(bytes over a device-to-device copy's bandwidth measured here). Prints one
JSON object (and a table on stderr).

usage: python3 bench/torch_adam.py [--iters 50] [--repeat 5] [--no-compile]
"""
import argparse
import json
import sys

from torch_timing import copy_bandwidth, timed, torch_on_cuda


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-compile", action="store_true")
    args = ap.parse_args()
    torch, why_not = torch_on_cuda()
    if torch is None:
        print(json.dumps({"skipped": why_not}))
        return 0
    dev = "cuda"
    big, small, pairs = 1 << 22, 1 << 12, 32
    sizes = [big if t % 2 == 0 else small for t in range(2 * pairs)]
    limit_bytes = 28.0 * sum(sizes)

    # Bandwidth reference: 1 GiB device to device, bytes read + written.
    copy_bw = copy_bandwidth(torch, 10, args.repeat)

    def make(**kw):
        gen = torch.Generator(device=dev).manual_seed(0)
        params = [torch.nn.Parameter(torch.rand(n, device=dev, generator=gen) * 2 - 1) for n in sizes]
        for p in params:
            p.grad = torch.rand(p.numel(), device=dev, generator=gen) - 0.5
        opt = torch.optim.Adam(params, lr=1e-3, **kw)
        opt.step()  # creates m and v (the states), as after the first step
        return opt

    results = {"copy_bandwidth_GBps": copy_bw / 1e9, "limit_bytes": limit_bytes, "variants": {}}

    def report(name, seconds):
        results["variants"][name] = {"ms": seconds * 1e3, "fraction_of_limit": limit_bytes / seconds / copy_bw}

    fused = make(fused=True)
    report("torch fused", timed(torch, fused.step, args.iters, args.repeat))
    del fused
    foreach = make(foreach=True)
    report("torch foreach", timed(torch, foreach.step, args.iters, args.repeat))
    if not args.no_compile:
        compiled = make(foreach=True)

        @torch.compile(fullgraph=False)
        def step():
            compiled.step()

        for _ in range(3):  # compile and warm up
            step()
        report("torch.compile", timed(torch, step, args.iters, args.repeat))

    print(f"copy bandwidth {copy_bw / 1e9:.0f} GB/s; 28-byte limit {limit_bytes / copy_bw * 1e3:.3f} ms",
          file=sys.stderr)
    for name, r in results["variants"].items():
        print(f"{name:16s} {r['ms']:.3f} ms  {100 * r['fraction_of_limit']:.1f}% of the limit", file=sys.stderr)
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
