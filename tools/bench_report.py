#!/usr/bin/env python3
"""Combine the benchmark CSVs of `make bench` into one report.

Inputs in BENCH_DIR (each optional; a missing one is named, not invented):
  cycles.csv  bench_papers_cycles: hub latency in clock cycles per N
  hw.csv      tools/bench_hw.py: Fmax and LUTs from nextpnr per device and N
  host.csv    aggnet-bench-host: host round trips over the virtual hub
Outputs: a printed table of the barrier latency in cycles and in ns at each
device's achieved Fmax, BENCH_DIR/summary.csv, and BENCH_DIR/latency.png
(when matplotlib is installed).
"""
import csv
import pathlib
import sys


def read(path):
    if not path.exists():
        print(f"bench: {path} missing (its benchmark did not run)")
        return []
    with path.open() as f:
        return list(csv.DictReader(f))


def col(row, *names):
    for n in names:
        for k in row:
            if k.lower() == n:
                return row[k]
    return None


def main():
    d = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "build/bench")
    cycles = read(d / "cycles.csv")
    hw = read(d / "hw.csv")
    host = read(d / "host.csv")

    s2g = {int(r["N"]): (int(r["median_cycles"]), int(r["max_cycles"]))
           for r in cycles if r["metric"] == "S_to_GO_all_pes"}
    fmax = {}  # (device, N) -> MHz
    for r in hw:
        # hw.csv holds every manifest's bench_hw points; this report is papers_hub's
        if col(r, "design") is not None and not col(r, "design").startswith("papers_hub_n"):
            continue
        dev = col(r, "device", "part")
        n = col(r, "n")
        f = col(r, "fmax_mhz", "fmax")
        if dev and n and f not in (None, "", "nan"):
            try:
                fmax[(dev, int(n))] = float(f)
            except ValueError:
                pass
    devices = sorted({k[0] for k in fmax})

    print()
    print("Barrier latency: last S pin -> GO on every masked PE pin (hub only, no host)")
    hdr = f"{'N':>4} {'median cyc':>10} {'max cyc':>8}" + "".join(f" {dev + ' MHz':>16} {'ns':>7}" for dev in devices)
    print(hdr)
    rows = []
    for n in sorted(s2g):
        med, mx = s2g[n]
        line = f"{n:>4} {med:>10} {mx:>8}"
        row = {"N": n, "median_cycles": med, "max_cycles": mx}
        for dev in devices:
            f = fmax.get((dev, n))
            if f:
                ns = med * 1000.0 / f
                line += f" {f:>16.1f} {ns:>7.1f}"
                row[f"{dev}_fmax_mhz"] = f"{f:.1f}"
                row[f"{dev}_ns"] = f"{ns:.1f}"
            else:
                line += f" {'-':>16} {'-':>7}"
        print(line)
        rows.append(row)
    if rows:
        keys = sorted({k for r in rows for k in r}, key=lambda k: (k != "N", k))
        with (d / "summary.csv").open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=keys)
            w.writeheader()
            w.writerows(rows)
        print(f"summary CSV: {d / 'summary.csv'}")
    if host:
        print()
        print("Host round trips over the virtual hub (separate from the hub latency above)")
        keys = list(host[0].keys())
        print("  ".join(f"{k:>14}" for k in keys))
        for r in host:
            print("  ".join(f"{r[k]:>14}" for k in keys))

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("bench: matplotlib not installed; no PNG (make deps installs it)")
        return 0
    if s2g:
        fig, ax = plt.subplots(figsize=(6, 4))
        ns_ = sorted(s2g)
        ax.plot(ns_, [s2g[n][0] for n in ns_], "o-", label="median cycles")
        ax.plot(ns_, [s2g[n][1] for n in ns_], "s--", label="max cycles")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("PEs (N)")
        ax.set_ylabel("hub clock cycles, last S -> all GO")
        ax.set_ylim(0, max(6, max(v[1] for v in s2g.values()) + 1))
        ax.set_title("PAPERS hub barrier latency (Verilated RTL)")
        ax.grid(True, alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(d / "latency.png", dpi=100)
        print(f"plot: {d / 'latency.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
