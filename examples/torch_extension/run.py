#!/usr/bin/env python3
"""A streamdsl program called from Python on torch tensors, on torch's current
stream: builds the extension (streamdsl_ops.cu, bindings.cpp) with
torch.utils.cpp_extension.load (JIT, ninja), checks its results against eager
PyTorch, on the default stream and on a stream of the caller's with work
queued before and after the call, then times it beside eager PyTorch and
torch.compile of the same functions (bench/torch_timing.py: CUDA events per
call, median of --repetitions rounds).

usage: python3 examples/torch_extension/run.py [--n 268435456] [--repetitions 5] [--no-timing]
                                               [--build-only] [--json PATH] [--build-dir DIR] [--verbose]
Exit status: 0 checked (and timed), 1 results differ, 77 skipped (ctest's
SKIP_RETURN_CODE): torch not installed, torch without CUDA, no CUDA toolkit,
or no GPU to run on (the extension is still built then).
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from torch_compare import chain_a, chain_b  # noqa: E402  (the same functions as the benchmark)
from torch_timing import SKIP, timed  # noqa: E402


def build(torch, args):
    from torch.utils.cpp_extension import load
    if not torch.cuda.is_available() and "TORCH_CUDA_ARCH_LIST" not in os.environ:
        os.environ["TORCH_CUDA_ARCH_LIST"] = "9.0"  # no device to ask: the H200's
    kwargs = {"build_directory": args.build_dir} if args.build_dir else {}
    if args.build_dir:
        os.makedirs(args.build_dir, exist_ok=True)
    options = dict(name="streamdsl_torch_example",
                   sources=[os.path.join(HERE, "bindings.cpp"), os.path.join(HERE, "streamdsl_ops.cu")],
                   extra_include_paths=[os.path.join(ROOT, "include")],
                   extra_cflags=["-O2"],
                   # streamdsl is C++20 and raises nvcc's constant-evaluation limit (as its
                   # CMake target does); torch's flags turn off __half's operators, which
                   # streamdsl's element ops use: turn them back on for this unit.
                   extra_cuda_cflags=["-O3", "-std=c++20", "--expt-relaxed-constexpr",
                                      "-Xcudafe=--max_cost_constexpr_call=2000000000",
                                      "-U__CUDA_NO_HALF_OPERATORS__", "-U__CUDA_NO_HALF_CONVERSIONS__",
                                      "-U__CUDA_NO_BFLOAT16_CONVERSIONS__", "-U__CUDA_NO_HALF2_OPERATORS__"],
                   verbose=args.verbose, **kwargs)
    start = time.time()
    try:
        ext = load(**options)
    except RuntimeError as e:
        if "mismatches the version" not in str(e):
            raise
        # torch refuses an nvcc of another major version than its own CUDA's;
        # the unit's kernels then run on this nvcc's runtime beside torch's, in
        # the same context, on torch's streams (CUstream handles both take).
        print(f"note: {e.args[0].splitlines()[0]} Building with this nvcc anyway.")
        import torch.utils.cpp_extension as cpp_extension
        cpp_extension._check_cuda_version = lambda *unused: None
        ext = load(**options)
    return ext, time.time() - start


def check(torch, ext, n):
    """Mismatch descriptions (empty: all match)."""
    problems = []
    gen = torch.Generator(device="cuda").manual_seed(0)
    x = torch.rand(n, device="cuda", generator=gen) * 4 - 2
    xb = torch.rand(n, device="cuda", generator=gen) * 4 - 2

    def compare(what, got, want, exact):
        same = torch.equal(got, want) if exact else torch.allclose(got, want, rtol=1e-5, atol=1e-6)
        if not same:
            problems.append(f"{what}: differs from eager by up to {(got - want).abs().max().item():.3g}")

    y, z = ext.seed(x)
    compare("seed y", y, x + 1, True)
    compare("seed z", z, (x + 1) * 2, True)
    compare("two_chains", ext.two_chains(x, xb), chain_a(torch, x) + chain_b(torch, xb), False)

    # On a stream of the caller's: the input is written there after a long
    # spin, and the outputs are read there right after the call, with no
    # synchronisation between: only a run ordered on that stream sees the
    # input written and has its outputs written before they are read.
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())  # x and xb are made on the default stream
    with torch.cuda.stream(stream):
        torch.cuda._sleep(50_000_000)
        xs = x * 3
        y, z = ext.seed(xs)
        sums = torch.stack([(y - (xs + 1)).abs().max(), (z - (xs + 1) * 2).abs().max()])
        out = ext.two_chains(xs, xb)
        want = chain_a(torch, xs) + chain_b(torch, xb)
    torch.cuda.current_stream().wait_stream(stream)
    if sums.max().item() != 0:
        problems.append(f"seed on the caller's stream: differs by up to {sums.max().item():.3g}")
    compare("two_chains on the caller's stream", out, want, False)
    return problems


def timings(torch, ext, n, repetitions):
    """Rows (function, variant, ms): the extension, eager PyTorch and torch.compile."""
    gen = torch.Generator(device="cuda").manual_seed(1)
    x = torch.rand(n, device="cuda", generator=gen)
    xa, xb = x[: n // 2], x[n // 2:]

    def seed(t):
        y = t + 1
        return y, y * 2

    def two_chains(a, b):
        return chain_a(torch, a) + chain_b(torch, b)

    rows = []
    for name, fn, ours, inputs in (("seed", seed, ext.seed, (x,)),
                                   ("two_chains (halves)", two_chains, ext.two_chains, (xa, xb))):
        compiled = torch.compile(fn)
        for _ in range(3):  # compile and warm up
            compiled(*inputs)
        for variant, f in (("streamdsl extension", ours), ("eager PyTorch", fn), ("torch.compile", compiled)):
            seconds = timed(torch, lambda: f(*inputs), 50, repetitions, per_call=True)
            rows.append({"function": name, "variant": variant, "ms": seconds * 1e3})
            print(f"{name:20s} {variant:20s} {seconds * 1e3:8.3f} ms", flush=True)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=1 << 28, help="elements timed (checks use 2^24)")
    ap.add_argument("--repetitions", type=int, default=5)
    ap.add_argument("--no-timing", action="store_true")
    ap.add_argument("--build-only", action="store_true", help="build (or find built) and stop")
    ap.add_argument("--json", default=None)
    ap.add_argument("--build-dir", default=None)
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    try:
        import torch
    except ImportError:
        print("skipped: torch not installed")
        return SKIP
    from torch.utils.cpp_extension import CUDA_HOME
    if torch.version.cuda is None:
        print("skipped: torch is built without CUDA")
        return SKIP
    if CUDA_HOME is None:
        print("skipped: no CUDA toolkit for torch.utils.cpp_extension")
        return SKIP
    ext, seconds = build(torch, args)
    print(f"built the extension in {seconds:.1f} s (torch {torch.__version__}, CUDA {torch.version.cuda})")
    if args.build_only:
        return 0
    if not torch.cuda.is_available():
        print("skipped: built, but no CUDA device to run it on")
        return SKIP
    problems = check(torch, ext, 1 << 24)
    for p in problems:
        print(f"MISMATCH {p}")
    print(f"results {'DO NOT match' if problems else 'match'} eager PyTorch "
          "(default stream and a stream of the caller's)")
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "build_s": seconds,
              "matches_eager": not problems, "n": args.n}
    if not args.no_timing:
        result["timings"] = timings(torch, ext, args.n, args.repetitions)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
