#!/usr/bin/env python3
"""Instructions (millions) each of nvcc's stages executes on one unit, under
valgrind (cachegrind, no cache simulation): deterministic, unlike CPU seconds
on a shared machine. The stages are those `nvcc --dryrun` lists, run in order
with their own command lines (the benchmark's flags, compare_includes.py's
raised constant-evaluation limits): cudafe++ (the host-side front end), cicc
(the device pass: front end and NVVM), ptxas, and the host compiler on
cudafe++'s output (its driver, cc1plus and the assembler). The preprocessing
steps are run, not counted.

usage: count_nvcc_instructions.py UNIT.cu INCLUDE_DIR [--nvcc PATH] [--arch sm_90] [--keep]
  prints: UNIT INCLUDE_DIR cudafe++ N cicc N host N ptxas N | sum(fe+cicc+host) N
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("unit")
    ap.add_argument("include")
    ap.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--keep", action="store_true", help="keep the intermediate files (the directory is printed)")
    args = ap.parse_args()
    unit, include = os.path.abspath(args.unit), os.path.abspath(args.include)
    work = tempfile.mkdtemp(prefix="nvcc_stages_")
    command = [args.nvcc, "-std=c++20", "-arch=" + args.arch, "--expt-relaxed-constexpr", "-Xcudafe",
               "--max_cost_constexpr_call=2000000000", "-Xcompiler=-fconstexpr-ops-limit=4294967296",
               "-I" + include, "-c", unit, "-o", "unit.o", "--dryrun", "--keep"]
    listing = subprocess.run(command, cwd=work, capture_output=True, text=True).stderr
    env = dict(os.environ)
    counts = {}
    for line in listing.splitlines():
        if not line.startswith("#$ "):
            continue
        step = line[3:]
        assignment = re.match(r"^(\w+)=(.*)$", step)
        if assignment:  # nvcc's environment for the steps (PATH, CICC_PATH, ...)
            env[assignment.group(1)] = subprocess.run(["bash", "-c", "echo " + assignment.group(2)], env=env,
                                                      capture_output=True, text=True).stdout.strip()
            continue
        program = step.split()[0]
        stage = ("cudafe++" if program == "cudafe++" else "cicc" if program.endswith("cicc") or
                 program.endswith('cicc"') else "ptxas" if program == "ptxas" else
                 "host" if program in ("gcc", "g++") and " -c " in step else None)
        if stage:
            step = ("valgrind --tool=cachegrind --cache-sim=no --trace-children=yes "
                    "--cachegrind-out-file=/dev/null --log-file=%s.%%p.log %s" % (stage, step))
        run = subprocess.run(["bash", "-c", step], cwd=work, env=env, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit("failed: %s\n%s" % (step[:300], run.stderr[-3000:]))
        if stage:
            logs = "".join(open(os.path.join(work, f)).read() for f in os.listdir(work)
                           if f.startswith(stage + ".") and f.endswith(".log"))
            counts[stage] = sum(int(x.replace(",", "")) for x in re.findall(r"I\s+refs:\s+([\d,]+)", logs)) / 1e6
    front = counts.get("cudafe++", 0) + counts.get("cicc", 0) + counts.get("host", 0)
    print("%s %s cudafe++ %.0f cicc %.0f host %.0f ptxas %.0f | sum(fe+cicc+host) %.0f" % (
        os.path.basename(unit), include, counts.get("cudafe++", 0), counts.get("cicc", 0), counts.get("host", 0),
        counts.get("ptxas", 0), front))
    if args.keep:
        print("kept", work)
    else:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
