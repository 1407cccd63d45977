#!/usr/bin/env python3
"""The NAND engine's register map and cable, written once (seed 002,
TTL_PAPERS; rtl/nand/nand_engine.v, docs/nand.md).

The seed gives the trees, the barrier flip-flop and the signal, but no
register map and no pin table: both are aggnet's.  From the tables below we
generate:

  rtl/nand/nand_regs.vh                 Verilog localparams (nand_engine, aggnet_hub)
  host/include/aggnet/nand_regs.hpp     C++ constants (libaggnet's aggnet/nand.hpp, sim/, tests)
  docs/nand_regmap.md                   the register and cable tables

`python3 tools/nandgen.py` rewrites the three files; `--check` fails when a
committed file differs (`make lint`).  The map hash (INFO MAP_HASH+2) covers
REGS, FIELDS and the CALL tables; the cable is pins, not registers, and is left out of it, as
PAPERS leaves out its DB25 table.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import gentables  # noqa: E402
import linkgen  # noqa: E402
import regmap  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
WINDOW = {name: w for name, w, _ in linkgen.WINDOWS}["NAND"]

# ---- the registers, per PE (name, addr[11:0], access, meaning) ----------------------
REGS = [
    ("OUT",    0x000, "rw", "what this PE drives: its barrier, request, acknowledge and select bits and its inputs "
                            "to the data trees; after reset BAR 0, ACK 0, SEL 0, DATA all 1 (neutral in a NAND)"),
    ("IN",     0x001, "ro", "what this PE reads: the flip-flops, and the data trees as latched when BF last changed"),
    ("LIVE",   0x002, "ro", "the flip-flops and the data trees now (unlatched)"),
    ("SHAPE",  0x003, "ro", "the engine's size"),
    ("BARS0",  0x004, "ro", "bit j: PE j's OUT.BAR (PEs 0..31), so that a PE whose barrier times out can name the "
                            "PEs that never arrived"),
    ("BARS1",  0x005, "ro", "bit j: PE 32+j's OUT.BAR (PEs 32..63)"),
    ("CABLE0", 0x006, "ro", "bit j: PE j is on its cable, which then drives its OUT instead of the link (PEs 0..31)"),
    ("CABLE1", 0x007, "ro", "bit j: PE 32+j is on its cable (PEs 32..63)"),
    ("CANCEL", 0x008, "call", "ends this PE's sequenced operation (running or finished and not yet handed over) "
                              "at once; result (1 byte, fields below): what there was and BAR after it"),
    ("LEFT0",  0x009, "ro", "bit j: PE j left a sequenced operation: its CANCEL withdrew a barrier it had arrived "
                            "at (cleared by its next start; PEs 0..31), so that a PE whose operation times out can "
                            "tell the PEs that left from those that never arrived"),
    ("LEFT1",  0x00A, "ro", "bit j: PE 32+j left a sequenced operation (PEs 32..63)"),
    ("SLICES", 0x800, "call", "a sequenced operation of k bits in steps of w: step j drives the next w operand "
                              "bits (from the top) on trees 0..w-1 (1s above) and collects the trees; address "
                              "+ (w-1) << 6 | (k-1); operands: 8 bytes, the k bits at 63..64-k; result: 8 bytes, "
                              "the k NANDs at k-1..0, above them the "
                              "operand's bits 63-k..0 (libaggnet sends 0s)"),
    ("VOTE",   0xC00, "call", "a sequenced section 2.4 maximum of k bits, i bits per step on 2^i - 1 trees, a PE "
                              "that loses a step dropping out; address + (i-1) << 6 | (k-1); operands as SLICES "
                              "(unsigned, the k bits at 63..64-k); result: 8 bytes, the maximum at k-1..0, above as SLICES"),
]

# ---- their fields (register, name, lowest bit, width, meaning) -----------------------
# DATA is 16 bits wide, one per data tree: T (1..16) of them are built.
FIELDS = [
    ("OUT",   "BAR",  0,  1,  "the barrier bit: tree S1 takes BAR, tree S0 NOT BAR; a PE arrives by flipping it "
                              "and waits for IN.BF to equal it"),
    ("OUT",   "REQ",  1,  1,  "a write with it set is one signal request (sets SP); reads 0"),
    ("OUT",   "ACK",  2,  1,  "the acknowledge barrier's input: a PE acknowledges by flipping it"),
    ("OUT",   "SEL",  3,  1,  "what IN.BS shows: BF (0) or SP (1)"),
    ("OUT",   "DATA", 16, 16, "bit 16+k: this PE's input to data tree k (k < T; the others read 0)"),
    ("IN",    "BS",   0,  1,  "BF or SP, as OUT.SEL chooses (TTL_PAPERS' one barrier/signal input)"),
    ("IN",    "BF",   1,  1,  "the barrier flip-flop: set when S1 is done (every BAR 1), reset when S0 is "
                              "(every BAR 0)"),
    ("IN",    "SP",   2,  1,  "the pending signal: set by a request, cleared when AF toggles"),
    ("IN",    "AF",   3,  1,  "the acknowledge flip-flop: toggles when every PE's ACK has flipped"),
    ("IN",    "DATA", 16, 16, "bit 16+k: tree k's NAND as latched when BF last changed (0 for k >= T)"),
    ("LIVE",  "BF",   1,  1,  "as IN.BF (LIVE bit 0 reads 0)"),
    ("LIVE",  "SP",   2,  1,  "as IN.SP"),
    ("LIVE",  "AF",   3,  1,  "as IN.AF"),
    ("LIVE",  "DATA", 16, 16, "bit 16+k: tree k's NAND now (0 for k >= T)"),
    ("SHAPE", "N",    0,  8,  "PEs (1..64)"),
    ("SHAPE", "T",    8,  8,  "data trees (1..16)"),
    ("CANCEL", "WAS", 0,  2,  "result: 0 nothing pending, 1 an operation was running (cancelled: a barrier this "
                              "PE had arrived at and that had not completed is withdrawn, DATA all 1), 2 one had "
                              "finished (its result is dropped)"),
    ("CANCEL", "BAR", 2,  1,  "result: this PE's OUT.BAR after the cancel"),
]

# ---- the CALL registers' address parameters (register, name, lowest address bit, width, meaning) --
# A CALL's operands are at most 8 bytes, so an operation's parameters ride in
# its register address (window offset 11..0): register = base | field << lsb.
ADDR_FIELDS = [
    ("SLICES", "K", 0, 6, "k - 1: operand and result bits, 1..64"),
    ("SLICES", "W", 6, 4, "w - 1: bits per step, 1..T (a wider w: no such register)"),
    ("VOTE",   "K", 0, 6, "k - 1: bits, 1..64"),
    ("VOTE",   "I", 6, 4, "i - 1: bits resolved per step, on 2^i - 1 trees (2^i - 1 > T: no such register)"),
]
# Result codes of CANCEL.WAS
CANCEL_WAS = [("IDLE", 0), ("RUNNING", 1), ("FINISHED", 2)]
# bytes of a SLICES / VOTE operand and result
SEQ_BYTES = 8

# ---- the cable: one PC parallel port per PE ------------------------------------------
# (name, line, width, active low on the cable, meaning).  CABLE_IN are the
# lines PE a's PC drives, nand_pins_in[a*12 + line]; CABLE_OUT the lines it
# reads, nand_pins_out[a*5 + line].  In-lines 0..7 are the PC's data register
# D0..D7 and 8..11 its control register C0..C3; out-line j is its status
# register's bit 3+j.  Which DB25 pin carries which register bit, and which
# bits the PC inverts, come from tools/regmap.py's DB25 table: an active-low
# line is exactly one the PC inverts, so the PC's register bit reads (or
# writes) the signal active high.
CABLE_IN_LINES, CABLE_OUT_LINES = 12, 5
PC_CONTROL_LINE = 8   # in-line of control bit C0
PC_STATUS_AT = 3      # status register bit of out-line 0
CABLE_IN = [
    ("DATA",   0,  4, False, "OUT.DATA 0..3: trees 0..3 (a cabled PE drives 1 on trees 4..T-1)"),
    ("BAR",    4,  1, False, "OUT.BAR, two cycles behind the data lines (the skew guard)"),
    ("ACK",    5,  1, False, "OUT.ACK"),
    ("SEL",    6,  1, False, "OUT.SEL"),
    ("REQ",    7,  1, False, "each 0 -> 1 edge is one request (OUT.REQ)"),
    ("RSVD",   8,  3, False, "reserved (ignored)"),
    ("ATTACH", 11, 1, True,  "low while the PC's port drives this PE; high (an unplugged cable, a PC that is off: "
                             "the board's pull-ups) the PE is not on its cable"),
]
CABLE_OUT = [
    ("DATA",   0,  4, False, "IN.DATA 0..3: the trees as latched when BF last changed (0 beyond T), two cycles "
                             "ahead of BS"),
    ("BS",     4,  1, True,  "IN.BS (BF, or SP with SEL), inverted on the pin; the PC inverts Busy back, so its "
                             "status bit 7 reads BS"),
]


def pc_bit(direction, line):
    """The PC register and bit of a cable line (regmap.py's register names)."""
    if direction == "out":
        return "STATUS", PC_STATUS_AT + line
    return ("DATA", line) if line < PC_CONTROL_LINE else ("CONTROL", line - PC_CONTROL_LINE)


def db25(direction, line):
    reg, bit = pc_bit(direction, line)
    for pin, r, b, pc, _sig in regmap.DB25:
        if (r, b) == (reg, bit):
            return pin, pc
    raise KeyError((reg, bit))


def check():
    """The tables are consistent: unique registers and fields inside 32 bits
    without overlaps, cable lines covering each direction once, and an
    active-low line exactly where the PC inverts."""
    addrs = [a for _n, a, _acc, _m in REGS]
    assert len(set(addrs)) == len(addrs) and len({n for n, *_ in REGS}) == len(REGS), "REGS: a name or address twice"
    for reg, *_ in FIELDS:
        assert reg in {n for n, *_ in REGS}, "FIELDS: no register " + reg
    for reg, *_ in REGS:
        used = 0
        for r, name, lsb, w, _m in FIELDS:
            if r == reg:
                m = ((1 << w) - 1) << lsb
                assert lsb + w <= 32 and not used & m, "FIELDS: %s.%s overlaps or passes bit 31" % (r, name)
                used |= m
    calls = {n: a for n, a, acc, _m in REGS if acc == "call"}
    for reg in calls:
        used = 0
        for r, name, lsb, w, _m in ADDR_FIELDS:
            if r == reg:
                m = ((1 << w) - 1) << lsb
                assert not used & m and not m & calls[reg] and lsb + w <= 12, "ADDR_FIELDS: %s.%s" % (r, name)
                used |= m
        others = [a for n, a, acc, _m in REGS if n != reg]
        assert all((a & ~used) != calls[reg] for a in others), "ADDR_FIELDS: %s's addresses overlap a register" % reg
    for direction, table, lines in (("in", CABLE_IN, CABLE_IN_LINES), ("out", CABLE_OUT, CABLE_OUT_LINES)):
        covered = sorted(ln + i for _n, ln, w, _lo, _m in table for i in range(w))
        assert covered == list(range(lines)), "CABLE_%s: lines 0..%d once each" % (direction.upper(), lines - 1)
        for name, ln, w, low, _m in table:
            for i in range(w):
                reg, bit = pc_bit(direction, ln + i)
                assert name == "RSVD" or regmap.db25_inverts(reg, bit) == low, \
                    "CABLE_%s %s: active low must be where the PC inverts (%s bit %d)" % (direction.upper(), name,
                                                                                            reg, bit)
    widths = {d: w for d, table in (("in", CABLE_IN), ("out", CABLE_OUT)) for n, _ln, w, _lo, _m in table if n == "DATA"}
    assert widths["in"] == widths["out"], "the cable carries as many trees in as out"
    names = [n for n, *_ in CABLE_IN] + [n for n, *_ in CABLE_OUT]
    assert all(n.isidentifier() for n in names)


def map_hash():
    return gentables.map_hash(REGS, FIELDS, ADDR_FIELDS, CANCEL_WAS, SEQ_BYTES)


def bits(lsb, w):
    """A register's bits, highest first: "3", "31..16"."""
    return str(lsb) if w == 1 else "%d..%d" % (lsb + w - 1, lsb)


def lines(first, w):
    """Cable lines, lowest first: "4", "0-3"."""
    return str(first) if w == 1 else "%d-%d" % (first, first + w - 1)


def field_consts():
    """(name, value, meaning) of every field's lowest bit, and of its width
    where it is wider than one bit."""
    o = []
    for r, n, lsb, w, m in FIELDS:
        o.append((f"{r}_{n}", lsb, m))
        if w > 1:
            o.append((f"{r}_{n}_W", w, "its width"))
    for r, n, lsb, w, m in ADDR_FIELDS:
        o.append((f"CA_{r}_{n}", lsb, "address bit: " + m))
        o.append((f"CA_{r}_{n}_W", w, "its width"))
    for n, v in CANCEL_WAS:
        o.append((f"CANCEL_WAS_{n}", v, "CANCEL.WAS code"))
    o.append(("SEQ_BYTES", SEQ_BYTES, "bytes of a SLICES / VOTE operand and result"))
    for pre, table, lines in (("CABLE_IN", CABLE_IN, CABLE_IN_LINES), ("CABLE_OUT", CABLE_OUT, CABLE_OUT_LINES)):
        o.append((f"{pre}_LINES", lines, "lines per PE"))
        for n, ln, w, low, m in table:
            o.append((f"{pre}_{n}", ln, ("active low: " if low else "") + m))
            if w > 1:
                o.append((f"{pre}_{n}_W", w, "its width"))
    return o


HEAD = "Generated by tools/nandgen.py from its tables; do not edit."
WHAT = f"The NAND engine's registers (window {WINDOW}) and cable (seed 002; docs/nand_regmap.md)."


def gen_vh():
    o = [f"// {HEAD}", f"// {WHAT}",
         "// NAND_R_<REG>: register numbers (addr 11..0); NAND_<REG>_<FIELD>: a field's lowest bit",
         "// (_W its width); NAND_CABLE_IN/OUT_<LINE>: a line of nand_pins_in/out per PE."]
    for n, a, acc, m in REGS:
        o.append(f"localparam [11:0] NAND_R_{n:<6} = 12'h{a:03X};  // {acc}: {m}")
    for n, v, m in field_consts():
        o.append(f"localparam integer NAND_{n} = {v};  // {m}")
    o.append(f"localparam [31:0] NAND_MAP_HASH = 32'h{map_hash():08X};  // CRC-32 of the register tables")
    return "\n".join(o) + "\n"


def gen_hpp():
    o = [f"// {HEAD}", f"// {WHAT}", "#pragma once", "", "#include <cstdint>", "",
         "namespace aggnet::nand_regs {", "",
         f"constexpr unsigned WINDOW = {WINDOW};  // tools/linkgen.py WINDOWS: NAND", "",
         "// Registers (addr 11..0), one set per PE"]
    o += [f"constexpr uint16_t {n} = 0x{a:03X};  // {acc}: {m}" for n, a, acc, m in REGS]
    o += ["constexpr uint16_t addr(uint16_t reg) { return uint16_t(WINDOW << 12 | reg); }", "",
          "// Fields: <REG>_<FIELD> its lowest bit, _W its width where wider than one bit;",
          "// the cable: CABLE_IN/OUT_<LINE> a line of nand_pins_in/out per PE"]
    o += [f"constexpr unsigned {n} = {v};  // {m}" for n, v, m in field_consts()]
    o += ["", "// The cable as the PC's port registers hold it (active-low lines read and written",
          "// active high: the PC inverts exactly those): data D<bit>, control C<bit>, status S<bit>"]
    for direction, table in (("in", CABLE_IN), ("out", CABLE_OUT)):
        for n, ln, w, low, m in table:
            reg, bit = pc_bit(direction, ln)
            o.append(f"constexpr unsigned CABLE_{reg[0]}_{n} = {bit};  // {reg.lower()} bit{'s' if w > 1 else ''} {lines(bit, w)}")
    o += [f"constexpr unsigned CABLE_PC_CONTROL_LINE = {PC_CONTROL_LINE};  // the in-line of control bit C0",
          f"constexpr unsigned CABLE_PC_STATUS_AT = {PC_STATUS_AT};  // the status bit of out-line 0", "",
          f"constexpr uint32_t MAP_HASH = 0x{map_hash():08X};  // CRC-32 of the register tables (INFO MAP_HASH+{WINDOW})",
          "", "}  // namespace aggnet::nand_regs"]
    return "\n".join(o) + "\n"


def gen_md():
    o = [f"<!-- {HEAD} -->", "# NAND engine: registers and the cable", "",
         "The register map of the NAND engine (`rtl/nand/nand_engine.v`) in bus",
         f"window {WINDOW}, and its cable. Seed 002 gives neither; both are aggnet's. What",
         "they mean and how to use them: [nand.md](nand.md).", "",
         f"## Registers (address bits 11..0 in window {WINDOW}, 32 bits, per PE)", "",
         "| register | address | access | meaning |", "| --- | --- | --- | --- |"]
    o += [f"| {n} | `0x{a:03X}` | {acc} | {m} |" for n, a, acc, m in REGS]
    o += ["", "Access: rw / ro a READ, WRITE or WAIT (docs/link.md); **call** only a CALL",
          "(link rule 8: one request frame, one RESULT when the engine has finished), any",
          "other access to it, and a CALL to any other register, is NO_REG.", "",
          "## Fields", "", "| register | bits | field | meaning |", "| --- | --- | --- | --- |"]
    o += [f"| {r} | {bits(lsb, w)} | {n} | {m} |" for r, n, lsb, w, m in FIELDS]
    o += ["", "Bits not listed read 0 and are ignored when written. A PE beyond N or an",
          "unknown register: ERR NO_REG; which writes the engine refuses: [nand.md](nand.md).", "",
          "## CALL registers: parameters in the address", "",
          "A CALL carries at most 8 operand bytes, so the parameters of an operation ride in",
          "its register address: register = base | field << bit (window offset 11..0).", "",
          "| register | address bits | field | meaning |", "| --- | --- | --- | --- |"]
    o += [f"| {r} | {bits(lsb, w)} | {n} | {m} |" for r, n, lsb, w, m in ADDR_FIELDS]
    o += ["", "CANCEL.WAS: " + ", ".join(f"{v} {n}" for n, v in CANCEL_WAS) + ".", "",
          "## The cable (per PE: 12 lines in, 5 out)", "",
          "Levels on the DB25 cable (`nand_pins_in[a*12 + line]`, `nand_pins_out[a*5 + line]`",
          "of PE a). An active-low line is one the PC's port inverts, so the PC's register",
          "bit carries the signal active high.", "",
          "| line | DB25 pin | PC register bit | direction | signal | meaning |",
          "| --- | --- | --- | --- | --- | --- |"]
    for direction, table, arrow in (("in", CABLE_IN, "PC -> hub"), ("out", CABLE_OUT, "hub -> PC")):
        for n, ln, w, low, m in table:
            pins = ", ".join(str(db25(direction, ln + i)[0]) for i in range(w))
            reg, bit = pc_bit(direction, ln)
            pc = ", ".join(db25(direction, ln + i)[1] for i in range(w))
            o.append(f"| {direction} {lines(ln, w)} | {pins} | {reg.lower()} {lines(bit, w)} ({pc}) | {arrow} | "
                     f"{'/' if low else ''}{n} | {m} |")
    o += ["| | 18-25 | | | ground | |", "",
          f"Register-map hash (INFO window MAP_HASH+{WINDOW}): `0x{map_hash():08X}` (the registers and",
          "fields; the cable is not part of it).", ""]
    return "\n".join(o)


TARGETS = {
    "rtl/nand/nand_regs.vh": gen_vh,
    "host/include/aggnet/nand_regs.hpp": gen_hpp,
    "docs/nand_regmap.md": gen_md,
}

if __name__ == "__main__":
    sys.exit(gentables.main("nandgen", __doc__, TARGETS, ROOT, before=check))
