#!/usr/bin/env python3
"""tools/wiring.py: the per-board wiring tables of docs/wiring.md.

The tables are generated from the constraint files (which pins), the board
tables tools/boards/<board>.py (which header position, which power pins) and
the fixed meaning of each top port (which PE, which DB25 pin).  The prose
around them is written by hand; the tables sit between the markers
<!-- wiring:<board> begin --> and <!-- wiring:<board> end -->.

  tools/wiring.py            rewrite the tables in docs/wiring.md
  tools/wiring.py --check    exit 1 if docs/wiring.md is stale (make lint runs
                             this through tools/pincheck.py)
"""
import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import boards  # noqa: E402
import pincheck  # noqa: E402

DOC = os.path.join(ROOT, "docs", "wiring.md")

# The DB25 pin map is tools/regmap.py's DB25 table (the one copy): pin ->
# (PC port register bit, PC signal name), and per register the PAPERS
# signals in bit order with their pins, as the board tops' ports take them
# (pe_d: data bits 0..7; pe_c: control bits 0..3; pe_st: status bits 3..7,
# where the Busy pin carries the hub's BUSY = /GO).
import regmap  # noqa: E402

regmap.check_db25()
_REG_LETTER = {"DATA": "D", "STATUS": "S", "CONTROL": "C"}
DB25 = {pin: (_REG_LETTER[reg] + str(bit), pc) for pin, reg, bit, pc, _sig in regmap.DB25}


def _signals(reg, first_bit):
    rows = sorted((bit, sig, pin) for pin, r, bit, _pc, sig in regmap.DB25 if r == reg and bit >= first_bit)
    return [("BUSY" if sig == "GO" else sig, pin) for _bit, sig, pin in rows]


DATA = [sig for sig, _pin in _signals("DATA", 0)]
CTRL = _signals("CONTROL", 0)
STAT = _signals("STATUS", regmap.fixed("STATUS", "I0"))


def port_meaning(port):
    """(PE, hub signal, DB25 pin, 'in'|'out') of a top port bit, or None."""
    m = re.match(r"^(\w+)\[(\d+)\]$", port)
    if not m:
        return None
    name, i = m.group(1), int(m.group(2))
    if name == "pe_d":
        return (i // 8, DATA[i % 8], 2 + i % 8, "in")
    if name == "pe_c":
        s, p = CTRL[i % 4]
        return (i // 4, s, p, "in")
    if name == "pe_st":
        s, p = STAT[i % 5]
        return (i // 5, s, p, "out")
    if name == "pe_b":
        return (i // 4, "B%d" % (i % 4), 6 + i % 4, "in")
    if name == "pe_bx":  # reduced tops: the 3 mask bits naming the other PEs, in PE order
        a, j = i // 3, i % 3
        k = j if j < a else j + 1
        return (a, "B%d" % k, 6 + k, "in")
    if name in ("pe_rx", "pe_tx"):  # one UART per PE (issue 24): no DB25 pin
        return (i, "RX" if name == "pe_rx" else "TX", None, "in" if name == "pe_rx" else "out")
    single = {"pe_s": ("S", 5, "in"), "pe_dd": ("D", 2, "in"), "pe_ir": ("IR", 4, "in"),
              "pe_gi": ("GI", 16, "in"), "pe_ce": ("CE", 17, "in"), "pe_busy": ("BUSY", 11, "out")}
    if name in single:
        s, p, d = single[name]
        return (i, s, p, d)
    return None


# DB25 order in which a PE's lines are given to the buffers: data, control, status
ORDER = [2, 3, 4, 5, 6, 7, 8, 9, 1, 14, 16, 17, 15, 13, 12, 10, 11]


# Common 3.3 V USB-TTL serial cables: the colour of each wire (from their
# makers' datasheets).  "TXD" is the cable's output (to the hub's RX), "RXD"
# its input (from the hub's TX).  The red wire of both is 5 V: never wire it.
CABLES = [
    ("FTDI TTL-232R-3V3 (FT232R, 3 Mbaud max)", {"TXD": "orange", "RXD": "yellow", "GND": "black", "5V": "red"}),
    ("Adafruit 954 (PL2303/CP2102 console cable)", {"TXD": "green", "RXD": "white", "GND": "black", "5V": "red"}),
]
# A Raspberry Pi's own UART on its 40-pin header (UART0/mini UART, GPIO 14/15)
RPI = {"TXD": "GPIO 14 (pin 8)", "RXD": "GPIO 15 (pin 10)", "GND": "pin 6 (or 9, 14, 20, 25, 30, 34, 39)"}

_TOP_INT_RE = re.compile(r"localparam\s+integer\s+([A-Z_][A-Z0-9_]*)\s*=\s*(\d+)\s*;")


def stream_baud(name, pe):
    """The baud of PE pe's UART in a UART-PE top: its localparams BAUD,
    FAST_BAUD and FAST_STREAMS (PEs 0..FAST_STREAMS-1 at FAST_BAUD)."""
    with open(os.path.join(ROOT, boards.top_path(name))) as f:
        lp = {k: int(v) for k, v in _TOP_INT_RE.findall(f.read())}
    return lp["FAST_BAUD"] if pe < lp.get("FAST_STREAMS", 0) else lp["BAUD"]


def _mbaud(b):
    return ("%g Mbaud" % (b / 1e6)) if b >= 1000000 else ("%d baud" % b)


def uart_tables(name, b, rows, where, labels):
    """The wiring of a top with one UART per PE (pe_rx, pe_tx)."""
    out = ["| PE | hub signal | wire it to | header pin | FPGA ball | baud | "
           + " | ".join(c for c, _ in CABLES) + " | Raspberry Pi |",
           "|---|---|---|---|---|---|" + "---|" * (len(CABLES) + 1)]
    for pe in sorted(rows):
        baud = _mbaud(stream_baud(name, pe))
        for (a, sig, _db, _d), port, ball in sorted(rows[pe], key=lambda r: r[0][1] != "RX"):
            hdr = where.get(ball, "-")
            if ball in labels:
                hdr = "%s (%s)" % (hdr, labels[ball])
            end = "TXD" if sig == "RX" else "RXD"
            what = "the cable's %s (its output)" % end if sig == "RX" else "the cable's %s (its input)" % end
            out.append("| %d | %s (%s) | %s | %s | %s | %s | %s | %s |" % (
                pe, sig, "cable -> hub" if sig == "RX" else "hub -> cable", what, hdr, ball, baud,
                " | ".join(w[end] for _, w in CABLES), RPI[end]))
    out.append("")
    out.append("Every PE's cable also needs its GND (%s; Raspberry Pi %s) on a GND pin of the same "
               "header (table above). Never wire the cable's red 5 V wire."
               % (", ".join("%s: %s" % (c.split(" (")[0], w["GND"]) for c, w in CABLES), RPI["GND"]))
    return out


def wired_as(name):
    """The board whose tables a configuration shares: the first board (by
    name) with the same constraint file, when that is another board (e.g.
    ulx3s_cop, fw/ulx3s/top.v's pins on constraints/ulx3s.lpf); else None."""
    cons = boards.load(name).CONSTRAINTS
    first = next(n for n in boards.names() if boards.load(n).CONSTRAINTS == cons)
    return first if first != name else None


def board_tables(name):
    b = boards.load(name)
    same = wired_as(name)
    if same:
        # one table per constraint file: the configuration points at it
        return ("Wired exactly as `BOARD=%s`: the same constraint file, `%s`, so the same "
                "header pins and power; its table is the one to follow." % (same, b.CONSTRAINTS))
    with open(os.path.join(ROOT, b.CONSTRAINTS)) as f:
        placed = pincheck.parse_constraints(f.read(), b.FAMILY)
    where = boards.header_balls(b)
    labels = getattr(b, "LABELS", {})
    rows = {}
    for _, port, ball in placed:
        mm = port_meaning(port)
        if mm:
            rows.setdefault(mm[0], []).append((mm, port, ball))
    out = []
    out.append("Power and ground on the headers (from `tools/boards/%s.py`):" % name)
    out.append("")
    if b.POWER:
        out.append("| header | GND | 3.3 V | other |")
        out.append("|---|---|---|---|")
        for conn in sorted(b.POWER):
            p = b.POWER[conn]
            gnd = ", ".join(str(k) for k in sorted(p) if p[k] == "GND")
            v33 = ", ".join(str(k) for k in sorted(p) if p[k].startswith("3V3"))
            other = "; ".join("%d: %s" % (k, p[k]) for k in sorted(p)
                              if p[k] != "GND" and not p[k].startswith("3V3"))
            notes = sorted(set(p[k] for k in p if p[k].startswith("3V3") and p[k] != "3V3"))
            if notes:
                v33 += " (" + "; ".join(n[4:].strip("() ") for n in notes) + ")"
            out.append("| %s | %s | %s | %s |" % (conn, gnd or "-", v33 or "-", other or "-"))
    else:
        out.append("(a custom board: its designer puts GND and 3.3 V where the adapter needs them)")
    out.append("")
    if any(mm[1] in ("RX", "TX") for r in rows.values() for mm, _p, _b in r):
        return "\n".join(out + uart_tables(name, b, rows, where, labels))
    out.append("| PE | DB25 pin | PC signal | hub signal | buffer: pin in -> pin out | header pin | FPGA ball |")
    out.append("|---|---|---|---|---|---|---|")
    for pe in sorted(rows):
        items = sorted(rows[pe], key=lambda r: ORDER.index(r[0][2]))
        nin = 0
        nout = 0
        for (a, sig, db, d), port, ball in items:
            bit, pcs = DB25[db]
            if d == "in":
                chip = "U%d" % (1 + nin // 8)
                k = nin % 8
                nin += 1
                buf = "%s A%d->B%d: %d -> %d" % (chip, k + 1, k + 1, 2 + k, 18 - k)
                arrow = "PC -> hub"
            else:
                chip = "U3"
                k = nout
                nout += 1
                buf = "%s A%d->B%d: %d -> %d" % (chip, k + 1, k + 1, 2 + k, 18 - k)
                arrow = "hub -> PC"
            hdr = where.get(ball, "-")
            if ball in labels:
                hdr = "%s (%s)" % (hdr, labels[ball])
            pc = bit if bit == pcs else "%s %s" % (bit, pcs)
            out.append("| %d | %d | %s | %s (%s) | %s | %s | %s |" % (
                pe, db, pc, sig, arrow, buf, hdr, ball))
    return "\n".join(out)


def render(text):
    for name in boards.names():
        begin = "<!-- wiring:%s begin -->" % name
        end = "<!-- wiring:%s end -->" % name
        if begin not in text or end not in text:
            raise ValueError("docs/wiring.md lacks the markers for board %s" % name)
        a = text.index(begin) + len(begin)
        z = text.index(end)
        text = text[:a] + "\n" + board_tables(name) + "\n" + text[z:]
    return text


def check():
    with open(DOC) as f:
        cur = f.read()
    return render(cur) == cur


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    if args.check:
        if not check():
            print("wiring: docs/wiring.md is stale: run tools/wiring.py", file=sys.stderr)
            return 1
        return 0
    with open(DOC) as f:
        cur = f.read()
    new = render(cur)
    if new != cur:
        with open(DOC, "w") as f:
            f.write(new)
        print("wiring: rewrote the tables in docs/wiring.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
