#!/usr/bin/env python3
"""tools/figures.py: the measured hardware figures, kept once, written into the docs.

Every LUT, FF and Fmax figure the README and docs quote comes from one of
three data files in docs/figures/, each row stamped with the revision and
date it was measured at:

  synth.csv       `make synth` (tools/synth.py): LUT4 / FF / carry per design
                  and family, yosys only (no place and route).
  bench_hw.csv    `make bench-hw` (tools/bench_hw.py): out-of-context cores,
                  nextpnr LUT / FF / Fmax per device.
  bitstreams.csv  `make bitstream(s)`: each board top at its PLL clock,
                  nextpnr's Fmax and logic use, icetime's second opinion.

  tools/figures.py collect [--build DIR]
      merge what the last runs left in DIR (build/synth/synth.csv,
      build/bench/hw.csv, build/fw/<board>/<board>.report.json) into the data
      files, replacing the rows they re-measured and keeping the others, then
      render.  (`make figures`)
  tools/figures.py render
      rewrite every generated block of README.md and docs/*.md from the data
      files.
  tools/figures.py check
      exit 1 if a generated block differs from what render would write, or
      names an unknown table (`make lint`): the docs cannot drift from the
      data.

A generated block is
    <!-- figures:TABLE [key=value ...] -->
    ...generated...
    <!-- /figures -->
TABLE is one of RENDERERS below; key=value pairs filter the rows (a design
prefix, a device, an engine).  Edit the data or the renderer, never the block.
"""
import argparse
import csv
import datetime
import glob
import io
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import boards  # noqa: E402

FIG = os.path.join(ROOT, "docs", "figures")
DOCS = ["README.md"] + sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))

SYNTH_COLS = ["design", "family", "luts", "ffs", "carry", "rev", "date"]
HW_COLS = ["device", "design", "engine", "n", "luts", "ffs", "chain_ffs", "fmax_mhz", "target_mhz", "note",
           "rev", "date"]
BIT_COLS = ["board", "device", "hub_mhz", "fmax_mhz", "met", "icetime_mhz", "logic_used", "logic_total",
            "ffs_used", "rev", "date"]
FILES = {"synth": ("synth.csv", SYNTH_COLS, ("design", "family")),
         "bench_hw": ("bench_hw.csv", HW_COLS, ("device", "design")),
         "bitstreams": ("bitstreams.csv", BIT_COLS, ("board",))}


class FigError(Exception):
    pass


# ---- data files -----------------------------------------------------------------

def read(kind):
    name, cols, _ = FILES[kind]
    path = os.path.join(FIG, name)
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        missing = [c for c in cols if c not in r]
        if missing:
            raise FigError("%s: a row lacks %s" % (os.path.relpath(path, ROOT), ", ".join(missing)))
    return rows


def write(kind, rows):
    name, cols, key = FILES[kind]
    rows = sorted(rows, key=lambda r: tuple(sort_key(r[k]) for k in key))
    os.makedirs(FIG, exist_ok=True)
    with open(os.path.join(FIG, name), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({c: r.get(c, "") for c in cols})


def sort_key(v):
    # design names sort by their numbers as numbers (n4 < n16 < n64)
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", v)]


def merge(kind, new):
    """The new rows replace the old ones with their key; a row measured again
    with the same figures keeps its first stamp (the figures date from then)."""
    _, cols, key = FILES[kind]
    old = {tuple(r[k] for k in key): r for r in read(kind)}
    same = [c for c in cols if c not in ("rev", "date")]
    out = []
    for r in new:
        o = old.pop(tuple(r[k] for k in key), None)
        keep = o is not None and (all(str(o[c]) == str(r[c]) for c in same) or
                                  o["date"] > r["date"] != "unrecorded")  # never replace a newer one
        out.append(o if keep else r)
    return list(old.values()) + out


def stamp():
    """The revision the figures belong to: HEAD, and "+local" when the hardware
    sources (rtl, fw, constraints) differ from it."""
    def git(*a):
        return subprocess.run(["git"] + list(a), cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    try:
        rev = git("rev-parse", "--short=7", "HEAD")
        if git("status", "--porcelain", "--", "rtl", "fw", "constraints"):
            rev += "+local"
    except (OSError, subprocess.CalledProcessError):
        rev = "unknown"
    return rev, datetime.date.today().isoformat()


# ---- collect ---------------------------------------------------------------------

def collect_synth(build, rev, date):
    path = os.path.join(build, "synth", "synth.csv")
    if not os.path.exists(path):
        return []
    tops = glob.glob(os.path.join(ROOT, "fw", "*", "top.v"))
    if os.path.getmtime(path) < newest_source(tops):
        print("figures: %s is older than the RTL; not taken (run `make synth`)" % os.path.relpath(path, ROOT))
        return []
    with open(path, newline="") as f:
        return [{"design": r["design"], "family": r["family"], "luts": r["luts"], "ffs": r["ffs"],
                 "carry": r["carry"], "rev": rev, "date": date} for r in csv.DictReader(f)]


def collect_hw(build, rev, date):
    """bench_hw.py stamps its own rows (it keeps rows of earlier runs); a row
    from before it did so is taken only where the data file has none."""
    path = os.path.join(build, "bench", "hw.csv")
    if not os.path.exists(path):
        return []
    have = {(r["device"], r["design"]) for r in read("bench_hw")}
    out = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            row = {c: (r.get(c) or "") for c in HW_COLS}
            if not row["rev"]:
                if (row["device"], row["design"]) in have:
                    continue
                row["rev"], row["date"] = "unrecorded", "unrecorded"
            out.append(row)
    return out


def newest_source(extra=()):
    """mtime of the newest RTL, board top or constraint file: a result older is stale."""
    files = glob.glob(os.path.join(ROOT, "rtl", "**", "*.v*"), recursive=True) + list(extra)
    return max(os.path.getmtime(f) for f in files if os.path.exists(f))


def icetime_mhz(path):
    if not os.path.exists(path):
        return ""
    m = re.search(r"Total path delay: [\d.]+ ns \(([\d.]+) MHz\)", open(path).read())
    return m.group(1) if m else ""


def collect_bitstreams(build, rev, date):
    out = []
    for b in boards.names():
        rep = os.path.join(build, "fw", b, b + ".report.json")
        if not os.path.exists(rep):
            continue
        bd = boards.load(b)
        if os.path.getmtime(rep) < newest_source([os.path.join(ROOT, boards.top_path(b)),
                                                  os.path.join(ROOT, bd.CONSTRAINTS)]):
            print("figures: %s is older than its RTL, top or constraints; not taken" % os.path.relpath(rep, ROOT))
            continue
        with open(rep) as f:
            r = json.load(f)
        hub = boards.hub_khz(b) / 1000.0
        clocks = [v for v in r.get("fmax", {}).values() if abs(v.get("constraint", 0) - hub) <= 0.005 * hub]
        if not clocks:
            continue
        c = clocks[0]
        util = r.get("utilization", {})
        logic = util.get("ICESTORM_LC") or util.get("TRELLIS_COMB") or {}
        ffs = util.get("TRELLIS_FF", {}).get("used", "")
        out.append({"board": b, "device": "%s-%s" % (bd.DEVICE, bd.PACKAGE), "hub_mhz": "%g" % hub,
                    "fmax_mhz": "%.2f" % c["achieved"], "met": "yes" if c["achieved"] >= c["constraint"] else "no",
                    "icetime_mhz": icetime_mhz(os.path.join(build, "fw", b, b + ".icetime.txt")),
                    "logic_used": logic.get("used", ""), "logic_total": logic.get("available", ""),
                    "ffs_used": ffs, "rev": rev,
                    "date": datetime.date.fromtimestamp(os.path.getmtime(rep)).isoformat()})
    return out


# ---- render ----------------------------------------------------------------------

def table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return out


def provenance(rows, what):
    revs = sorted({(r["rev"], r["date"]) for r in rows}, key=lambda x: (x[1], x[0]))
    if not revs:
        return "(no %s rows recorded yet: run it and `make figures`)" % what
    return "(%s; measured at %s; data: docs/figures, written by `make figures`)" % (
        what, ", ".join("%s on %s" % rd for rd in revs))


def flt(rows, opts):
    for k, v in opts.items():
        if k == "design":
            rows = [r for r in rows if r["design"].startswith(v)]
        elif k in ("device", "engine", "family", "board"):
            rows = [r for r in rows if r.get(k) in v.split(",")]
        else:
            raise FigError("unknown filter %s=%s" % (k, v))
    return rows


def r_synth(opts):
    rows = flt(read("synth"), opts)
    designs = sorted({r["design"] for r in rows}, key=sort_key)
    by = {(r["design"], r["family"]): r for r in rows}
    body = []
    for d in designs:
        cells = [d]
        for fam in ("ice40", "ecp5"):
            r = by.get((d, fam))
            cells += [r["luts"], r["ffs"]] if r else ["", ""]
        body.append(cells)
    return table(["design", "iCE40 LUT4", "iCE40 FF", "ECP5 LUT4", "ECP5 FF"], body) + [
        "", provenance(rows, "`make synth`, yosys, no place and route")]


def r_bench_hw(opts):
    rows = flt(read("bench_hw"), opts)
    rows.sort(key=lambda r: (sort_key(r["design"]), r["device"]))
    body = []
    for r in rows:
        core_ff = ""
        if r["ffs"] and r["chain_ffs"]:
            core_ff = "%s (%d chain)" % (r["ffs"], int(r["chain_ffs"]))
        fmax = r["fmax_mhz"]
        verdict = ("meets %s" % r["target_mhz"]) if fmax and float(fmax) >= float(r["target_mhz"]) else \
                  ("**misses** %s" % r["target_mhz"]) if fmax else r["note"]
        body.append([r["design"], r["device"], r["luts"], core_ff or r["ffs"], fmax, verdict])
    return table(["point", "device", "LUTs", "FFs", "Fmax (MHz)", "target (MHz)"], body) + [
        "", provenance(rows, "`make bench-hw`, nextpnr seed 1, core inside serial I/O chains")]


def r_bitstreams(opts):
    rows = flt(read("bitstreams"), opts)
    body = []
    for r in rows:
        logic = "%s of %s" % (r["logic_used"], r["logic_total"]) if r["logic_used"] else ""
        if r["ffs_used"]:
            logic += ", %s FF" % r["ffs_used"]
        body.append([r["board"], r["device"], r["hub_mhz"] + " MHz", r["fmax_mhz"] + " MHz", r["met"],
                     (r["icetime_mhz"] + " MHz") if r["icetime_mhz"] else "-", logic,
                     "%.1f ns" % (4e3 / float(r["hub_mhz"]))])
    return table(["board", "device", "hub clock", "Fmax (nextpnr)", "met", "icetime", "logic cells",
                  "PAPERS barrier (4 cycles)"], body) + [
        "", provenance(rows, "`make bitstreams`, nextpnr at each board's seed and router options (tools/boards/<board>.py: PNR_SEED, default 1; --tmg-ripup unless PNR_TMG_RIPUP = False), the board top at its PLL clock")]


def r_barrier_ns(opts):
    """The PAPERS barrier (4 hub cycles pin to pin at every N, test_papers_hub and
    formal) in ns at each device's out-of-context Fmax of papers_hub."""
    rows = [r for r in read("bench_hw") if r["design"].startswith("papers_hub_n") and r["fmax_mhz"]]
    rows = flt(rows, opts)
    devs = sorted({r["device"] for r in rows})
    ns = sorted({int(r["n"]) for r in rows})
    by = {(int(r["n"]), r["device"]): r for r in rows}
    body = []
    for n in ns:
        cells = [str(n), "4"]
        for d in devs:
            r = by.get((n, d))
            cells.append("%.1f (%s MHz)" % (4e3 / float(r["fmax_mhz"]), r["fmax_mhz"]) if r else "")
        body.append(cells)
    return table(["N", "cycles"] + ["ns at %s Fmax" % d for d in devs], body) + [
        "", provenance(rows, "4 hub cycles at `make bench-hw`'s papers_hub Fmax")]


RENDERERS = {"synth": r_synth, "bench_hw": r_bench_hw, "bitstreams": r_bitstreams, "barrier_ns": r_barrier_ns}
BLOCK = re.compile(r"(?m)(^<!-- figures:(\w+)((?: [\w]+=[^ >]+)*) -->\n)(.*?)(<!-- /figures -->)", re.S)


def render_text(text, where):
    def sub(m):
        name, args = m.group(2), m.group(3).split()
        if name not in RENDERERS:
            raise FigError("%s: unknown figures table %r (known: %s)" % (where, name, ", ".join(RENDERERS)))
        opts = dict(a.split("=", 1) for a in args)
        return m.group(1) + "\n".join(RENDERERS[name](opts)) + "\n" + m.group(5)
    return BLOCK.sub(sub, text)


def render(check):
    bad = []
    for doc in DOCS:
        path = os.path.join(ROOT, doc)
        text = open(path).read()
        if "<!-- figures:" not in text:
            continue
        opened = len(re.findall(r"^<!-- figures:\w+", text, re.M))
        if opened != len(BLOCK.findall(text)):
            raise FigError("%s: a <!-- figures:... --> block without its <!-- /figures --> line" % doc)
        new = render_text(text, doc)
        if new != text:
            if check:
                bad.append(doc)
            else:
                with open(path, "w") as f:
                    f.write(new)
                print("figures: wrote %s" % doc)
    if bad:
        print("figures: generated tables out of date in %s; run `make figures` (or tools/figures.py render)"
              % ", ".join(bad), file=sys.stderr)
        return 1
    return 0


def selftest():
    """The check catches a hand-edited block and an unknown table."""
    sample = "x\n<!-- figures:synth design=top_ -->\nold\n<!-- /figures -->\ny\n"
    out = render_text(sample, "selftest")
    assert out != sample and out.startswith("x\n<!-- figures:synth design=top_ -->\n| design |"), out
    assert render_text(out, "selftest") == out
    try:
        render_text("<!-- figures:nosuch -->\n<!-- /figures -->", "selftest")
        raise AssertionError("unknown table accepted")
    except FigError:
        pass


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cmd", choices=["collect", "render", "check"])
    ap.add_argument("--build", default="build")
    args = ap.parse_args()
    try:
        if args.cmd == "check":
            selftest()
            return render(check=True)
        if args.cmd == "collect":
            build = os.path.join(ROOT, args.build)
            rev, date = stamp()
            got = {"synth": collect_synth(build, rev, date), "bench_hw": collect_hw(build, rev, date),
                   "bitstreams": collect_bitstreams(build, rev, date)}
            for kind, rows in got.items():
                if rows:
                    write(kind, merge(kind, rows))
                print("figures: %-10s %3d rows from %s" % (kind, len(rows), os.path.relpath(build, ROOT)))
        return render(check=False)
    except FigError as e:
        print("figures: %s" % e, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
