#!/usr/bin/env python3
"""Combine the benchmark CSVs of `make bench` into one report.

Inputs in BENCH_DIR (each optional; a missing one is named, not invented):
  bench_papers_cycles.csv  hub latency of PAPERS in clock cycles per N
  bench_besu_cycles.csv    BESU barrier/eureka latency in cycles vs depth and nodes
  bench_nand_ops.csv       NAND engine: I/O cycles, hub cycles and host time per operation
  bench_scalar.csv         scalar engine: engine and hub cycles, frames and bytes per message, ping-pong
  bench_cop_cycles.csv     COP (seed 004): hub clocks per operation at C = 4/16/64 and two levels,
                           beside the seed's Table II and issue 23's goals
  bench_cop_link.csv       COP over the link (aggnet-sim, 4 PEs): frames, bytes and wire time per PE
                           per operation, hub cycles per round, round time p50 / p99
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
    cycles = read(d / "bench_papers_cycles.csv")
    hw = read(d / "hw.csv")
    if not hw:
        print("bench: the ns and LUT columns need `make bench-hw` (place and route; make bench does not run it)")
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

    besu = besu_report(d, read(d / "bench_besu_cycles.csv"), hw)
    nand_report(read(d / "bench_nand_ops.csv"), hw)
    scalar_report(read(d / "bench_scalar.csv"), hw)
    cop_report(read(d / "bench_cop_cycles.csv"))
    cop_link_report(read(d / "bench_cop_link.csv"))

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
        save(fig, ax, d / "latency.png")
    if besu:
        fig, ax = plt.subplots(figsize=(6, 4))
        for metric, style in (("barrier_join_at_far_end", "o-"), ("barrier_join_at_root", "s--"),
                              ("eureka_from_far_end", "^:")):
            pts = sorted((int(r["x"]), int(r["median_cycles"])) for r in besu if r["metric"] == metric)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=metric.replace("_", " "))
        ax.set_xlabel("tree depth (hops from the root)")
        ax.set_ylabel("hub clock cycles (median)")
        ax.set_title("BESU barrier / eureka latency (Verilated RTL, 4x4x1 mesh)")
        save(fig, ax, d / "besu_latency.png")
    return 0


def scalar_report(rows, hw):
    """bench_scalar.csv (part, what, n, value, unit) as one table, with the hub
    cycles in ns at each device's Fmax of scalar_engine_n4 when bench-hw ran."""
    if not rows:
        return
    fmax = {}
    for r in hw:
        f = col(r, "fmax_mhz", "fmax")
        if col(r, "design") == "scalar_engine_n4" and f not in (None, "", "nan"):
            try:
                fmax[col(r, "device", "part")] = float(f)
            except ValueError:
                pass
    print()
    print("Scalar messages (seed 003): engine and hub cycles, the wire, ping-pong over the virtual hub")
    print(f"{'part':<8} {'what':<72} {'N':>3} {'value':>10} unit" +
          "".join(f" {dev + ' ns':>16}" for dev in sorted(fmax)))
    for r in rows:
        line = f"{r['part']:<8} {r['what']:<72} {r['n']:>3} {float(r['value']):>10.1f} {r['unit']}"
        if r["unit"] == "cycles":
            line += "".join(f" {float(r['value']) * 1000.0 / fmax[dev]:>16.1f}" for dev in sorted(fmax))
        print(line)


def cop_report(rows):
    """bench_cop_cycles.csv (level, op, C, pes, cycles, seed_cop, seed_total,
    goal): one line per level and operation, the hub clocks at each C beside
    the seed's C x t_OP and whole-operation figures and the goal (empty: none)."""
    if not rows:
        return
    sizes = sorted({int(r["C"]) for r in rows})
    by = {(r["level"], r["op"], int(r["C"])): r for r in rows}
    keys = []
    for r in rows:
        if (r["level"], r["op"]) not in keys:
            keys.append((r["level"], r["op"]))
    print()
    print("COP (seed 004): hub clocks from the last member's CALL start to every reply placed; seed: Hall's")
    print("Table II C x t_OP (the COP's own part) and the whole operation, at the same C; goal: issue 23's, at the")
    print("largest C (met: the measured clocks are at most the goal)")
    hdr = f"{'level':<6} {'op':<10}" + "".join(f" {'C=%d' % c:>6}" for c in sizes)
    hdr += f" {'seed COP':>9} {'seed all':>9} {'goal':>5} {'met':>4}"
    print(hdr)
    for lv, op in keys:
        line = f"{lv:<6} {op:<10}"
        last = None
        for c in sizes:
            r = by.get((lv, op, c))
            line += f" {r['cycles'] if r else '-':>6}"
            last = r or last
        goal = (last or {}).get("goal") or ""
        goal = "" if goal == "0" else goal  # 0: no goal for this operation
        met = "" if not goal else ("yes" if int(last["cycles"]) <= int(goal) else "no")
        line += f" {last.get('seed_cop') or '-':>9} {last.get('seed_total') or '-':>9} {goal or '-':>5} {met or '-':>4}"
        print(line)


def cop_link_report(rows):
    """bench_cop_link.csv (op, what, value, unit): one line per operation."""
    if not rows:
        return
    cols = [("request frames per PE", "req fr"), ("request bytes per PE", "req B"),
            ("reply frames per PE", "rep fr"), ("reply bytes per PE", "rep B"),
            ("wire time both ways at 3 Mbaud", "3M us"), ("wire time both ways at 12 Mbaud", "12M us"),
            ("hub cycles per round (virtual hub)", "hub cyc"),
            ("round time p50 (virtual hub, wall clock)", "p50 us"),
            ("round time p99 (virtual hub, wall clock)", "p99 us")]
    by = {(r["op"], r["what"]): float(r["value"]) for r in rows}
    ops = []
    for r in rows:
        if r["op"] not in ops:
            ops.append(r["op"])
    print()
    print("COP over the link (aggnet-sim --engines cop, 4 PEs on per-PE sockets): per PE per operation; wire time")
    print("derived from the bytes (10 bits a byte); round times are wall clock on this machine, not a board's")
    print(f"{'op':<10}" + "".join(f" {h:>8}" for _, h in cols))
    for op in ops:
        print(f"{op:<10}" + "".join(f" {by.get((op, w), float('nan')):>8.2f}" for w, _ in cols))


def save(fig, ax, path):
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    print(f"plot: {path}")


def besu_report(d, rows, hw):
    """The BESU engine: latency in cycles (and ns at each device's Fmax of one
    node, besu_node_nb32), and the LUT/FF cost per node and per BESU from the
    bench_hw points besu_node_nb8 and besu_node_nb32 (core FFs = FFs minus the
    shift chains' FFs; per BESU = the difference / 24; per node = the rest)."""
    pts = {}  # (device, NB) -> (luts, core_ffs, fmax)
    for r in hw:
        name = col(r, "design") or ""
        if not name.startswith("besu_node_nb"):
            continue
        try:
            nb = int(name[len("besu_node_nb"):])
            luts, ffs = int(r["luts"]), int(r["ffs"]) - int(r.get("chain_ffs") or 0)
        except (ValueError, KeyError, TypeError):
            continue
        f = r.get("fmax_mhz") or ""
        pts[(r["device"], nb)] = (luts, ffs, float(f) if f not in ("", "nan") else None)
    devices = sorted({k[0] for k in pts if pts[k][2] and k[1] == 32})
    if rows:
        print()
        print("BESU engine latency (hub only): the decisive BAR_CTL write on the bus -> the watched node's")
        print("BAR_CTL reads the new state; ns at each device's Fmax of one node (besu_node_nb32)")
        hdr = f"{'metric':<26} {'x':>9} {'median cyc':>10} {'max cyc':>8}"
        hdr += "".join(f" {dev + ' ns':>14}" for dev in devices)
        print(hdr)
        for r in rows:
            line = f"{r['metric']:<26} {r['x_name'] + ' ' + r['x']:>9} {r['median_cycles']:>10} {r['max_cycles']:>8}"
            for dev in devices:
                line += f" {int(r['median_cycles']) * 1000.0 / pts[(dev, 32)][2]:>14.1f}"
            print(line)
    cost = []
    for dev in sorted({k[0] for k in pts}):
        if (dev, 8) in pts and (dev, 32) in pts:
            (l8, f8, _), (l32, f32, fm) = pts[(dev, 8)], pts[(dev, 32)]
            pb_l, pb_f = (l32 - l8) / 24.0, (f32 - f8) / 24.0
            cost.append((dev, l8, f8, l32, f32, pb_l, pb_f, l8 - 8 * pb_l, f8 - 8 * pb_f, fm))
    if cost:
        print()
        print("BESU cost (nextpnr, out of context; FFs without the bench chains)")
        print(f"{'device':<11} {'NB=8 LUT/FF':>13} {'NB=32 LUT/FF':>13} {'per BESU LUT/FF':>16} "
              f"{'per node LUT/FF':>16} {'Fmax NB=32':>10}")
        for dev, l8, f8, l32, f32, pbl, pbf, pnl, pnf, fm in cost:
            print(f"{dev:<11} {f'{l8}/{f8}':>13} {f'{l32}/{f32}':>13} {f'{pbl:.1f}/{pbf:.1f}':>16} "
                  f"{f'{pnl:.0f}/{pnf:.0f}':>16} {(f'{fm:.1f}' if fm else '-'):>10}")
        with (d / "besu_cost.csv").open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["device", "luts_nb8", "ffs_nb8", "luts_nb32", "ffs_nb32", "luts_per_besu",
                        "ffs_per_besu", "luts_per_node", "ffs_per_node", "fmax_mhz_nb32"])
            for c in cost:
                w.writerow([c[0]] + list(c[1:5]) + ["%.1f" % x for x in c[5:9]] + ["%.1f" % c[9] if c[9] else ""])
    return rows


def nand_report(rows, hw):
    """The NAND engine (bench/bench_nand_ops.cpp): per operation the I/O
    cycles, the hub's own cycles (every PE on its cable, 1 cycle per port
    access) and those cycles in ns at each device's Fmax of nand_engine at
    the largest N bench_hw placed (nand_engine_n<N>), beside the host time
    on a 1 us PC port, over the virtual hub, and seed 002 Table 2."""
    if not rows:
        return
    fmax = {}  # device -> (N, MHz) of the largest nand_engine point placed
    for r in hw:
        name = col(r, "design") or ""
        f = r.get("fmax_mhz") or ""
        if not name.startswith("nand_engine_n") or f in ("", "nan"):
            continue
        n = int(name[len("nand_engine_n"):])
        if r["device"] not in fmax or fmax[r["device"]][0] < n:
            fmax[r["device"]] = (n, float(f))
    devices = sorted(fmax)
    sizes = sorted({int(r["N"]) for r in rows})
    by = {(r["path"], int(r["N"]), r["op"]): r for r in rows}
    ops = []
    for r in rows:
        if r["op"] not in ops:
            ops.append(r["op"])
    # The rows of a narrowed run (--vhub only, --pins only) still print: the
    # hub cycles come from the pins paths when they ran, '-' otherwise.
    base = "pins_ideal" if any(r["path"] == "pins_ideal" for r in rows) else rows[0]["path"]
    big = max(n for n in sizes if any((base, n, op) in by for op in ops))
    vh = sorted({int(r["N"]) for r in rows if r["path"] == "vhub"})
    print()
    print("NAND engine (seed 002): per operation, k = 32 unless named.  hub cyc: every PE on its cable reacting in")
    print("one cycle (the hub's own time), at N = %d of N = %s (flat in N unless noted); ns at each device's"
          % (big, ",".join(map(str, sizes))))
    print("Fmax of nand_engine at the largest N placed;")
    print("LPT us: 1 us per PC port access (simulated); vhub us: host wall time over the virtual hub's sockets;")
    print("T2: seed 002 Table 2 (TTL_PAPERS I/O cycles, us measured on four 486DX33 PCs)")
    hdr = f"{'op':<18} {'I/O':>5} {'T2 I/O':>6} {'hub cyc':>8}"
    hdr += "".join(f" {dev + ' ns':>12}" for dev in devices)
    hdr += f" {'LPT us':>7}" + "".join(f" {'vhub us N=%d' % n:>13}" for n in vh) + f" {'T2 us':>6}"
    print(hdr)
    for op in ops:
        r = by.get((base, big, op))
        if not r:
            continue
        ideal = by.get(("pins_ideal", big, op))
        flat = {by[("pins_ideal", n, op)]["median_cycles"] for n in sizes if ("pins_ideal", n, op) in by}
        line = f"{op:<18} {float(r['io_cycles']):>5.0f} {r['table2_io'] or '-':>6}"
        if ideal:
            cyc = float(ideal["median_cycles"])
            line += f" {cyc:>8.0f}" + "".join(f" {cyc * 1000.0 / fmax[dev][1]:>12.0f}" for dev in devices)
        else:
            line += f" {'-':>8}" + "".join(f" {'-':>12}" for dev in devices)
        lpt = by.get(("pins_lpt", big, op))
        line += f" {float(lpt['median_us']):>7.1f}" if lpt else f" {'-':>7}"
        for n in vh:
            v = by.get(("vhub", n, op))
            line += f" {float(v['median_us']):>13.0f}" if v else f" {'-':>13}"
        line += f" {r['table2_us'] or '-':>6}"
        if len(flat) > 1:
            line += "  (hub cycles vary with N: %s)" % ", ".join(sorted(flat))
        print(line)
    print("signal: from the request to the last other PE seeing it; the receivers' 1 us SEL settle")
    print("(LptNandPort::kSelectSettle) dominates the hub cycles")
    if devices:
        print("Fmax used: " + ", ".join("%s %.1f MHz (N = %d)" % (dev, fmax[dev][1], fmax[dev][0]) for dev in devices))


if __name__ == "__main__":
    sys.exit(main())
