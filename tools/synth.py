#!/usr/bin/env python3
"""tools/synth.py: the `make synth` gate.

Synthesizes every `synth` job of the manifests (rtl/<name>/manifest.json,
read through tools/engines.py; docs/engines.md) for the job's families,
iCE40 (synth_ice40) and ECP5 (synth_ecp5) unless it says otherwise, from its
component's RTL and that of its dependencies only; and every board top in
fw/ (the boards of tools/boards/) for its own family, from every component's
RTL, with its real PLL (the vendor primitive behind rtl/common/pll.v, read as
a blackbox), with the Debian yosys (or $YOSYS).  Each run FAILS on:
  * an elaboration or synthesis error,
  * `check -assert` problems after proc (multiple drivers, undriven signals
    that are used, combinational loops),
  * any latch ($dlatch, $adlatch, $dlatchsr, $sr) after proc,
  * any generic cell left over after technology mapping.
Prints a LUT/FF table and writes BUILD/synth/synth.csv.

A board top's run also writes its netlist, BUILD/fw/<board>/<board>.json,
which is what `make bitstream` places and routes (mk/hw.mk runs this script
with --board for it): one synthesis script for the gate and the bitstreams,
and a `make bitstreams` after `make synth` finds its netlists made.

Usage: tools/synth.py [--build DIR] [--jobs N] [--only SUBSTR | --board NAME]
"""
import argparse
import concurrent.futures as cf
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import boards  # noqa: E402
import engines  # noqa: E402
import figures  # noqa: E402

# the vendor primitives behind rtl/common/pll.v, read as blackboxes first
VENDOR_LIB = {"ice40": "+/ice40/cells_sim.v", "ecp5": "+/ecp5/cells_bb.v"}

LATCHES = "t:$dlatch t:$adlatch t:$dlatchsr t:$sr t:$_DLATCH_* t:$_DLATCHSR_* t:$_SR_*"


def yosys_script(top, params, family, json_out, sources, includes, netlist=None):
    rd = "read_verilog -defer " + " ".join("-I" + i for i in includes) + " " + " ".join(sources)
    lines = ["read_verilog -lib " + VENDOR_LIB[family], rd]
    chp = " ".join("-set %s %d" % kv for kv in params.items())
    if chp:
        lines.append("chparam %s %s" % (chp, top))
    lines += [
        "hierarchy -check -top %s" % top,
        "proc",
        "flatten",
        "opt_clean",
        "check -assert",
        "select -assert-none " + LATCHES,
        "synth_%s -top %s" % (family, top),
        "check -assert",
        "select -assert-none " + LATCHES,
        # nothing generic ($and, $dff, ...) may survive technology mapping
        "select -assert-none t:$*",
        "tee -q -o %s stat -json" % json_out,
    ]
    if netlist:
        lines.append("write_json %s" % netlist)
    return "; ".join(lines)


def count(stat, family):
    types = stat["design"]["num_cells_by_type"]
    if family == "ice40":
        luts = types.get("SB_LUT4", 0)
        ffs = sum(v for k, v in types.items() if k.startswith("SB_DFF"))
        carry = types.get("SB_CARRY", 0)
    else:
        luts = types.get("LUT4", 0)
        ffs = types.get("TRELLIS_FF", 0)
        carry = types.get("CCU2C", 0)
    return luts, ffs, carry, stat["design"]["num_cells"]


def run(job, outdir, yosys):
    name, top, params, family, sources, includes, netlist = job
    base = os.path.join(outdir, "%s_%s" % (name, family))
    js = base + ".stat.json"
    tmp = netlist + ".tmp" if netlist else None
    if netlist:
        os.makedirs(os.path.dirname(netlist), exist_ok=True)
    script = yosys_script(top, params, family, js, sources, includes, tmp)
    t0 = time.time()
    with open(base + ".log", "w") as log:
        rc = subprocess.call([yosys, "-q", "-l", base + ".log.full", "-p", script],
                             cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    dt = time.time() - t0
    if rc != 0:
        return (name, family, None, dt, base + ".log.full")
    if netlist:
        os.replace(tmp, netlist)   # only a run that passed every check leaves a netlist
    with open(js) as f:
        return (name, family, count(json.load(f), family), dt, None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.environ.get("BUILD", "build"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--only", default="")
    ap.add_argument("--board", default=None,
                    help="only this board's top, for its bitstream (no synth.csv)")
    args = ap.parse_args()
    yosys = os.environ.get("YOSYS", "yosys")
    if shutil.which(yosys) is None:
        print("synth: %s is not installed or not on PATH (make deps installs yosys; YOSYS= names another)"
              % yosys, file=sys.stderr)
        return 2
    build = os.path.join(ROOT if not os.path.isabs(args.build) else "", args.build)
    outdir = os.path.join(build, "synth")
    os.makedirs(outdir, exist_ok=True)

    try:
        reg = engines.load()
    except engines.ManifestError as e:
        print(e, file=sys.stderr)
        return 1
    jobs = []
    for j in reg.synth_jobs():
        for fam in j["families"]:
            jobs.append((j["name"], j["top"], j["params"], fam, j["sources"], j["includes"], None))
    for board in boards.names():
        fam = boards.load(board).FAMILY
        jobs.append(("top_" + board, "top", {}, fam, reg.all_sources() + [boards.top_path(board)],
                     reg.all_includes(), os.path.join(build, "fw", board, board + ".json")))
    if args.board is not None:
        if args.board not in boards.names():
            print("synth: no board %r (tools/boards/ has: %s)" % (args.board, " ".join(boards.names())),
                  file=sys.stderr)
            return 2
        jobs = [j for j in jobs if j[0] == "top_" + args.board]
    else:
        jobs = [j for j in jobs if args.only in j[0]]
    # the longest first, so that no long run starts last while the other
    # cores idle: a run's time follows its size, and the size each run had
    # when last measured is in docs/figures/synth.csv (a run not in it yet
    # counts as big, so it starts early)
    try:
        size = {(r["design"], r["family"]): int(r["luts"]) + int(r["ffs"]) for r in figures.read("synth")}
    except (figures.FigError, ValueError):
        size = {}  # only the order suffers; make lint reports a bad data file
    big = max(size.values(), default=0)
    jobs.sort(key=lambda j: -size.get((j[0], j[3]), big))

    t0 = time.time()
    results = []
    with cf.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        for r in ex.map(lambda j: run(j, outdir, yosys), jobs):
            results.append(r)
    order = {j[0] + j[3]: i for i, j in enumerate(sorted(jobs, key=lambda j: (j[0].startswith("top"), j[0], j[3])))}
    results.sort(key=lambda r: order[r[0] + r[1]])

    failed = [r for r in results if r[2] is None]
    csv = os.path.join(outdir, "synth.csv")
    if args.board is None:
        with open(csv, "w") as f:
            f.write("design,family,luts,ffs,carry,cells,seconds\n")
            for name, fam, c, dt, _ in results:
                if c:
                    f.write("%s,%s,%d,%d,%d,%d,%.1f\n" % (name, fam, c[0], c[1], c[2], c[3], dt))
    print("%-22s %-6s %6s %6s %6s %6s" % ("design", "family", "LUTs", "FFs", "carry", "s"))
    for name, fam, c, dt, log in results:
        if c:
            print("%-22s %-6s %6d %6d %6d %6.1f" % (name, fam, c[0], c[1], c[2], dt))
        else:
            print("%-22s %-6s FAILED (see %s)" % (name, fam, os.path.relpath(log, ROOT)))
    print("synth: %d runs, %d failed, %.0f s%s" % (
        len(results), len(failed), time.time() - t0,
        "" if args.board else "; table in " + os.path.relpath(csv, ROOT)))
    if failed:
        for name, fam, _, _, log in failed:
            print("---- %s %s: last lines of %s" % (name, fam, log), file=sys.stderr)
            try:
                with open(log) as f:
                    tail = f.read().splitlines()[-15:]
                print("\n".join(tail), file=sys.stderr)
            except OSError:
                pass
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
