#!/usr/bin/env python3
"""Draws a streamdsl run timeline (Chrome-trace JSON from sd::chrome_trace) as a PNG.

One row per lane (stream slot, named by its thread_name event), each complete
event ("ph": "X") a bar from ts to ts + dur, coloured by its kind (args.kind:
kernel, copy, ...), labelled with its name where the bar is wide enough.

    python3 scripts/trace_to_png.py pipeline.json pipeline.png [--title TEXT] [--width-inches 12]

Needs matplotlib (pip install matplotlib, or apt-get install python3-matplotlib);
only this script does: the library, its tests and CI do not.
"""
import argparse
import json
import re
import sys


def read_trace(path):
    """The lanes (tid -> name, in sort order) and the slices of a trace file."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    names, order, slices = {}, {}, []
    for e in events:
        ph, tid = e.get("ph"), e.get("tid", 0)
        if ph == "M" and e.get("name") == "thread_name":
            names[tid] = e["args"]["name"]
        elif ph == "M" and e.get("name") == "thread_sort_index":
            order[tid] = e["args"]["sort_index"]
        elif ph == "X":
            args = e.get("args", {})
            slices.append(
                {
                    "name": e.get("name", ""),
                    "kind": args.get("kind", e.get("cat", "")),
                    "ts": float(e["ts"]),
                    "dur": float(e["dur"]),
                    "tid": tid,
                    "bytes": args.get("bytes"),
                }
            )
    tids = sorted(set(names) | {s["tid"] for s in slices}, key=lambda t: (order.get(t, t), t))
    lanes = [(t, names.get(t, "lane %d" % t)) for t in tids]
    other = doc.get("otherData", {}) if isinstance(doc, dict) else {}
    return lanes, slices, other


def short_label(s):
    """A kernel by its number ("k3: y = ..." -> "k3"), a copy by its chunk (its lane says where it
    goes: "sd::copy(d_in.chunk(3, 16), h_in.chunk(3, 16))" -> "chunk 3") or its source and
    destination, other ops by their text."""
    if s["kind"] == "kernel":
        return s["name"].split(":")[0]
    m = re.match(r"sd::copy\((\w+)(?:\.chunk\((\d+), \d+\))?, (\w+)", s["name"])
    if s["kind"] == "copy" and m:
        return "chunk " + m.group(2) if m.group(2) else "%s>%s" % (m.group(3), m.group(1))
    return s["name"]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace", help="Chrome-trace JSON written by sd::chrome_trace")
    parser.add_argument("png", help="the PNG to write")
    parser.add_argument("--title", default=None, help="the figure's title (default: the trace's clock)")
    parser.add_argument("--width-inches", type=float, default=12.0)
    args = parser.parse_args(argv)

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.patches import Patch
    except ImportError:
        print("trace_to_png.py needs matplotlib: pip install matplotlib (or apt-get install python3-matplotlib)",
              file=sys.stderr)
        return 2

    lanes, slices, other = read_trace(args.trace)
    if not slices:
        print("%s has no complete events (\"ph\": \"X\") to draw" % args.trace, file=sys.stderr)
        return 1
    row = {tid: i for i, (tid, _) in enumerate(lanes)}
    palette = {"kernel": "#4c72b0", "copy": "#dd8452", "reduction": "#55a868", "scan": "#8172b3",
               "matmul": "#c44e52", "call": "#937860", "row group": "#64b5cd"}
    end = max(s["ts"] + s["dur"] for s in slices)
    scale, unit = (1000.0, "ms") if end >= 2000 else (1.0, "us")

    fig, ax = plt.subplots(figsize=(args.width_inches, 0.8 + 0.7 * len(lanes)))
    for s in slices:
        y = len(lanes) - 1 - row[s["tid"]]  # the first lane on top
        start, width = s["ts"] / scale, max(s["dur"] / scale, end / scale * 2e-3)  # at least ~3 pixels
        ax.broken_barh([(start, width)], (y - 0.35, 0.7), facecolors=palette.get(s["kind"], "#999999"),
                       edgecolors="white", linewidth=0.5)
        # As many characters of its short label as the bar holds (about 7.5 pixels each at 6 points).
        fits = int(width / (end / scale) * args.width_inches * 0.9 * 150 / 7.5)
        label = short_label(s)
        if fits >= 2:
            ax.text(start + width / 2, y, label if len(label) <= fits else label[:fits - 1] + "~", ha="center",
                    va="center", fontsize=6, color="white", clip_on=True)
    ax.set_yticks(range(len(lanes)))
    ax.set_yticklabels([name for _, name in reversed(lanes)])
    ax.set_xlim(0, end / scale * 1.01)
    ax.set_ylim(-0.6, len(lanes) - 0.4)
    ax.set_xlabel("time from the run's start (%s)" % unit)
    kinds = sorted({s["kind"] for s in slices})
    ax.legend(handles=[Patch(color=palette.get(k, "#999999"), label=k) for k in kinds], loc="lower left",
              bbox_to_anchor=(0, 1), fontsize=7, ncol=len(kinds), frameon=False)
    ax.set_title(args.title or "streamdsl run timeline, %s" % other.get("clock", "unknown clock"), fontsize=9,
                 loc="right")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.png, dpi=150)
    print("wrote %s: %d slices in %d lanes over %.3f %s" % (args.png, len(slices), len(lanes), end / scale, unit))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
