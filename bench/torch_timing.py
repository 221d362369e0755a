"""What the PyTorch scripts share (bench/torch_compare.py, bench/torch_adam.py,
bench/row_softmax_torch.py, examples/torch_extension/run.py): importing torch
or saying why not, CUDA-event timing, and the device-to-device copy bandwidth
that bounds a memory-bound workload.

Timing, as bench/bench_support.cuh's time_on does for the C++ benchmarks: one
call first (warm-up: compiles, first-launch costs), then --repeat rounds; the
figure is the median of the rounds. A round is `iters` calls; with per_call
each call is timed alone between two events on the current stream and waited
for (the C++ benchmarks' way: launch latency counts), else the round is timed
as a whole (back-to-back calls: launch latency hides behind the GPU's work).
"""
import statistics

SKIP = 77  # the exit code ctest's SKIP_RETURN_CODE takes as "skipped"


def torch_on_cuda():
    """(torch, None) when torch imports and sees a CUDA device, else (None, why not)."""
    try:
        import torch
    except ImportError:
        return None, "torch not installed"
    if not torch.cuda.is_available():
        return None, "no CUDA device"
    return torch, None


def timed(torch, fn, iters, repeat, per_call=False):
    """Seconds per call of fn: the median of `repeat` rounds of `iters` calls, after one call."""
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    fn()
    torch.cuda.synchronize()
    rounds = []
    for _ in range(repeat):
        if per_call:
            total_ms = 0.0
            for _ in range(iters):
                start.record()
                fn()
                stop.record()
                stop.synchronize()
                total_ms += start.elapsed_time(stop)
        else:
            start.record()
            for _ in range(iters):
                fn()
            stop.record()
            stop.synchronize()
            total_ms = start.elapsed_time(stop)
        rounds.append(total_ms / 1e3 / iters)
    return statistics.median(rounds)


def copy_bandwidth(torch, iters, repeat, elements=1 << 28, per_call=False):
    """Bytes/s (read + written) of a device-to-device copy of `elements` floats (1 GiB by default)."""
    a = torch.empty(elements, device="cuda")
    b = torch.empty_like(a)
    seconds = timed(torch, lambda: b.copy_(a), iters, repeat, per_call)
    return 2.0 * elements * 4 / seconds
