#!/usr/bin/env python3
"""The PAPERS port register map, written once.

This table is the single source of the bit assignments of seed 000 (PAPERS,
Tables 3, 4 and 5) as aggnet generalises them to N PEs.  From it we generate:

  rtl/papers/papers_regs.vh              Verilog localparams (included by the RTL)
  host/include/aggnet/papers_regs.hpp    C++ constants (libaggnet, virtual hub, tests)
  docs/papers_regmap.md                  the Markdown table in the docs

`python3 tools/regmap.py` rewrites the three files; `--check` fails (exit 1)
when any committed file differs from what the table generates, which `make lint`
runs so that the three can never drift apart.

Generalisation to N PEs (MW = max(N, 4) mask bits, W = MW + 4 register bits):
for N = 4 every position below is exactly the seed's table.
  data    bit 4+k = Bk (mask contains PE k), bits 3..0 as Table 3
  status  bit W-1 = GO, bit W-2 = INT, bit 3+k = Ik (PE (x+k+1)%N's D)
  control bits 4..0 as Table 5 (independent of N)
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import gentables  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent

# (register, name, bit, seed signal / meaning, PC pin (DB25), PC inverts?, source)
# bit: an int for a fixed position; for the N-dependent ones a string formula.
REGS = [
    # PortBase + 0, Table 3: written by the PE
    ("DATA", "D",     0,       "Data bit value",                        "2 (D0)",  False, "Table 3 bit 0"),
    ("DATA", "PROBE", 1,       "aggnet extension: I bits show arrival (S and mask) instead of D; the seed reserves this bit as 0",
                                                                             "3 (D1)",  False, "Table 3 bit 1 (reserved)"),
    ("DATA", "IR",    2,       "Interrupt request",                     "4 (D2)",  False, "Table 3 bit 2"),
    ("DATA", "S",     3,       "Barrier sync request",                  "5 (D3)",  False, "Table 3 bit 3"),
    ("DATA", "B0",    4,       "Barrier mask contains PE k at bit 4+k", "6-9 (D4-D7) for k<4", False, "Table 3 bits 7..4"),
    # PortBase + 1, Table 4: read by the PE
    ("STATUS", "I0",  3,       "PE (x+k+1)%N's D at bit 3+k (or its arrival when PROBE)", "15,13,12 for k<3", False, "Table 4 bits 5..3"),
    ("STATUS", "INT", "W-2",   "Interrupt",                             "10 (Ack)", False, "Table 4 bit 6"),
    ("STATUS", "GO",  "W-1",   "Barrier sync completed",                "11 (Busy)", True, "Table 4 bit 7"),
    # PortBase + 2, Table 5: written by the PE, rarely
    ("CONTROL", "U0", 0,       "User bit 0 (status display)",           "1 (Strobe)",  True,  "Table 5 bit 0"),
    ("CONTROL", "U1", 1,       "User bit 1 (status display)",           "14 (AutoFD)", True,  "Table 5 bit 1"),
    ("CONTROL", "GI", 2,       "GO causes interrupt",                   "16 (Init)",   False, "Table 5 bit 2"),
    ("CONTROL", "CE", 3,       "Connection established (status display)", "17 (SlctIn)", True, "Table 5 bit 3"),
    ("CONTROL", "IE", 4,       "Interrupt enable (inside the PC; no pin)", "none",     False, "Table 5 bit 4"),
]

# The PC's DB25 connector (IBM PC/AT parallel port), the one table of which
# pin carries which port bit and PAPERS signal for a 4-PE (8-bit) port:
# (DB25 pin, register, bit, the PC's signal name, PAPERS signal).  Checked
# against REGS by check_db25(); what the PC inverts comes from REGS.  Read by
# tools/wiring.py and generated into papers_regs.hpp (DB25_PINS) for
# libaggnet's pin check (aggnet board-check).  Not part of the map hash.
DB25 = [
    (1,  "CONTROL", 0, "/Strobe",   "U0"),
    (2,  "DATA",    0, "D0",        "D"),
    (3,  "DATA",    1, "D1",        "PROBE"),
    (4,  "DATA",    2, "D2",        "IR"),
    (5,  "DATA",    3, "D3",        "S"),
    (6,  "DATA",    4, "D4",        "B0"),
    (7,  "DATA",    5, "D5",        "B1"),
    (8,  "DATA",    6, "D6",        "B2"),
    (9,  "DATA",    7, "D7",        "B3"),
    (10, "STATUS",  6, "/Ack",      "INT"),
    (11, "STATUS",  7, "Busy",      "GO"),
    (12, "STATUS",  5, "PaperEnd",  "I2"),
    (13, "STATUS",  4, "Select",    "I1"),
    (14, "CONTROL", 1, "/AutoFd",   "U1"),
    (15, "STATUS",  3, "/Error",    "I0"),
    (16, "CONTROL", 2, "/Init",     "GI"),
    (17, "CONTROL", 3, "/SelectIn", "CE"),
]


def db25_inverts(reg, bit):
    """The PC's port hardware inverts this bit between register and pin."""
    return bool(pc_invert_mask(reg) >> bit & 1) or (reg == "STATUS" and bit == 7)


def check_db25():
    """DB25 agrees with REGS: each signal at its register bit (N = 4: W = 8),
    every pin once, every pinned REGS signal on a pin."""
    pos = {}
    for r, n, bit, *_ in REGS:
        if isinstance(bit, int):
            pos[(r, n)] = bit
    pos[("STATUS", "INT")], pos[("STATUS", "GO")] = 6, 7
    for k in range(1, 4):
        pos[("DATA", "B%d" % k)] = pos[("DATA", "B0")] + k
    for k in range(1, 3):
        pos[("STATUS", "I%d" % k)] = pos[("STATUS", "I0")] + k
    pins = [p for p, *_ in DB25]
    assert sorted(pins) == list(range(1, 18)), "DB25: pins 1..17 once each"
    for pin, reg, bit, _pc, sig in DB25:
        assert pos.get((reg, sig)) == bit, "DB25 pin %d: %s is not %s bit %d in REGS" % (pin, sig, reg, bit)


# The PAPERS window on the hub's register bus (docs/link.md): the same port,
# addressed per PE over the link, so a PC without a parallel port runs PAPERS.
# The PE is the one the link frame names.  (name, register, access, bits, meaning)
WINDOW = [
    ("SIG",   0x000, "RW", 4,  "D (bit 0), PROBE (1), IR (2), S (3): the data register's low bits, as this PE drives them (a write is REFUSED while the PE has a CALL in progress or uncollected, as for MASK0/1, CTRL and OWNER)"),
    ("MASK0", 0x001, "RW", 32, "barrier mask, PE k at bit k for k = 0..31 (bits for PEs >= N are ignored and read 0)"),
    ("MASK1", 0x002, "RW", 32, "PE 32+k at bit k (hubs of N > 32 PEs only; NO_REG otherwise)"),
    ("CTRL",  0x003, "RW", 5,  "U0 (0), U1 (1), GI (2), CE (3), IE (4) at their logic level (no PC inversion); CE = 1 after reset, so a PE the link takes over is present until it clears CE"),
    ("STAT",  0x004, "R",  4,  "GO (0), INT (1), IRQ = INT and IE (2), BAD: the mask names a PE >= N (3); as Table 7 reads them"),
    ("IVEC0", 0x005, "R",  32, "PE k's D at bit k for k = 0..31, or its arrival (S high, mask naming us) while our PROBE is set; our own bit reads 0"),
    ("IVEC1", 0x006, "R",  32, "PE 32+k at bit k (hubs of N > 32 PEs only; NO_REG otherwise)"),
    ("OWNER", 0x007, "RW", 1,  "1: the link drives this PE's pins inside the hub (any write of SIG, MASK0/1 or CTRL, and a SYNC start, sets it); 0: the parallel-port pins do (after reset). A link-only hub (PAPERS_PINS = 0) has no pins: OWNER reads 1 from reset on, writing 0 is REFUSED, and each PE's MASK starts as itself alone"),
    ("PRESENT0", 0x008, "R", 32, "PE k present at bit k for k = 0..31: its CE is 1 at the hub (a cabled PE whose PC drives DB25 pin 17 low, or a link PE whose CTRL has CE); an absent PE reads as alone and idle. The same for every PE"),
    ("PRESENT1", 0x009, "R", 32, "PE 32+k at bit k (hubs of N > 32 PEs only; NO_REG otherwise)"),
    ("SYNC",  0x00A, "C", "8 / N",   "the whole barrier (_p_wait/_p_waitvec of seed 000 section 4.3.2-4.3.3) done by the hub for this PE, over the mask in MASK0/1: operand 1 byte, D at bit 0 (the waitvec flag, 0 for a plain wait; bits 7..1 must be 0; another len or operand is REFUSED). The engine waits for GO low (the previous barrier's reset), sets SIG to D, S and PROBE (IR kept), waits for GO, drops PROBE, lets the I bits settle, latches the data vector and sets SIG to D alone. Result: ceil(N/8) bytes, the data vector, PE k's D at bit k for the PEs of the mask, our own bit = our D, 0 elsewhere (also in LAST). Sets OWNER. REFUSED while this PE has a CALL in progress or uncollected. GO is the PAL's GO register, not STAT's (an IR interrupt, which reads GO = 0 in Table 7, does not hold up a SYNC); IR is kept as SIG has it, so set or clear IR between SYNCs"),
    ("CANCEL", 0x00B, "C", "0 / 8",  "abandons this PE's SYNC; len 0 (else REFUSED), always accepted; result 1 byte: 0 NONE (nothing in progress or uncollected; SIG untouched), 1 RESET_WAIT (still waiting for the previous barrier's reset; S never raised, nothing changed), 2 WITHDRAWN (S and PROBE dropped and GO did not come within the settle window; LAST = the PEs of the mask seen arrived during the wait, as IVEC reads them with PROBE: S up with a mask naming us, whether still there or gone again; our own bit 0), 3 FINISHED (the SYNC had finished or was finishing; LAST holds its vector, which the SYNC will not hand over), 4 FIRED (GO came while S was being withdrawn: the barrier completed for the others, with our D; LAST holds the arrivals, not the data vector). PENDING while S is withdrawn (a few cycles). A CANCEL while a CANCEL's outcome is uncollected answers that outcome. Afterwards (outcomes 1-4) SIG has S and PROBE low, D and IR as they were"),
    ("LAST0", 0x00C, "R",  32, "the vector the last SYNC finished with (or, after CANCEL outcome 2 or 4, the PEs seen arrived during its wait), PE k at bit k for k = 0..31; 0 after reset. While a SYNC waits for GO (S raised), the PEs of its mask seen arrived so far; the previous vector until then"),
    ("LAST1", 0x00D, "R",  32, "PE 32+k at bit k (hubs of N > 32 PEs only; NO_REG otherwise)"),
]
WINDOW_STAT_BITS = {"GO": 0, "INT": 1, "IRQ": 2, "BAD": 3}
# The outcomes CANCEL answers (its 1-byte result), as in its meaning above.
WINDOW_CANCEL = {"NONE": 0, "RESET_WAIT": 1, "WITHDRAWN": 2, "FINISHED": 3, "FIRED": 4}

# Presence (an aggnet rule, not the seed's; issue 10 item 3): iCE40 pads have
# pull-ups only, so an unplugged cable reads every line high, which at the
# seed's polarity is "S up with every mask bit set": a PE that would fire
# everyone's barrier.  So the hub reads these lines active-low on the cable,
# and a PE counts as present only while its CE line is driven low (as a
# running libaggnet leaves it: CE = 1, the seed's "connection established").
# While a PE is absent the hub sees it alone and idle (every pin 0 but its
# own mask bit): it never arrives, names nobody, raises no interrupt.  On the cable CE is then the PC's own
# /SelectIn polarity: libaggnet writes the control register with
# PC_CONTROL_INVERT ^ CABLE_CONTROL_INVERT (LPT_CONTROL_XOR), not with the
# seed's P_MODE() compensation, for this bit.
# (register, name): the line is active low on the cable.
CABLE_ACTIVE_LOW = [("CONTROL", "CE")]

CTRL_WIDTH = 5
MIN_MW = 4  # the seed's four mask bits: hubs with N < 4 keep the full byte


def pc_invert_mask(reg):
    """Bits the PC's port hardware inverts between register and pin (IBM PC/AT
    parallel port: nStrobe, nAutoFd, nSelectIn on control; nBusy on status)."""
    m = 0
    for r, _name, bit, _meaning, _pin, inv, _src in REGS:
        if r == reg and inv and isinstance(bit, int):
            m |= 1 << bit
    return m


def cable_invert_mask(reg):
    """Bits of `reg` the hub reads active-low on the cable (CABLE_ACTIVE_LOW)."""
    m = 0
    for r, name in CABLE_ACTIVE_LOW:
        if r == reg:
            m |= 1 << fixed(r, name)
    return m


def fixed(reg, name):
    for r, n, bit, *_ in REGS:
        if r == reg and n == name:
            return bit
    raise KeyError(name)


def map_hash():
    """CRC-32 of the canonical text of both tables: the register map's
    identity, reported by the hub's INFO window and checked by libaggnet."""
    return gentables.map_hash(REGS, WINDOW, WINDOW_STAT_BITS, (CTRL_WIDTH, MIN_MW), CABLE_ACTIVE_LOW,
                              WINDOW_CANCEL)


def gen_vh():
    out = [
        "// Generated by tools/regmap.py from its REGS table; do not edit.",
        "// PAPERS port register bits (seed 000 Tables 3-5), generalised to N PEs:",
        "// MW = max(N,4) mask bits, W = MW + 4 register bits per PE.",
    ]
    for r, n, bit, meaning, *_ in REGS:
        if isinstance(bit, int):
            out.append(f"localparam integer PAPERS_{r}_{n} = {bit};  // {meaning}")
    out.append("// N-dependent status positions: GO at W-1, INT at W-2 (Table 4 bits 7, 6 for N = 4)")
    out.append("localparam integer PAPERS_STATUS_GO_FROM_TOP = 1;")
    out.append("localparam integer PAPERS_STATUS_INT_FROM_TOP = 2;")
    out.append(f"localparam integer PAPERS_CTRL_WIDTH = {CTRL_WIDTH};")
    out.append(f"localparam integer PAPERS_MIN_MW = {MIN_MW};")
    out.append("// Control lines the hub reads active-low on the cable (presence: CE, tools/regmap.py CABLE_ACTIVE_LOW)")
    out.append(f"localparam [{CTRL_WIDTH - 1}:0] PAPERS_CTRL_CABLE_INVERT = {CTRL_WIDTH}'h{cable_invert_mask('CONTROL'):02X};")
    out.append("// The PAPERS window on the hub's register bus (register numbers, addr 11..0)")
    for n, reg, acc, bits, meaning in WINDOW:
        out.append(f"localparam [11:0] PAPERS_W_{n} = 12'h{reg:03X};  // {acc}, {bits} bits: {meaning}")
    for n, b in WINDOW_STAT_BITS.items():
        out.append(f"localparam integer PAPERS_W_STAT_{n} = {b};")
    for n, b in WINDOW_CANCEL.items():
        out.append(f"localparam [2:0] PAPERS_W_CANCEL_{n} = 3'd{b};  // CANCEL's outcome")
    out.append(f"localparam [31:0] PAPERS_MAP_HASH = 32'h{map_hash():08X};  // CRC-32 of this register map")
    return "\n".join(out) + "\n"


def gen_hpp():
    out = [
        "// Generated by tools/regmap.py from its REGS table; do not edit.",
        "// PAPERS port register bits (seed 000 Tables 3-5), generalised to N PEs:",
        "// MW = max(N,4) mask bits, W = MW + 4 register bits per PE.",
        "#pragma once",
        "#include <cstdint>",
        "",
        "namespace aggnet::papers_regs {",
        "",
    ]
    for r, n, bit, meaning, *_ in REGS:
        if isinstance(bit, int):
            out.append(f"constexpr unsigned {r}_{n} = {bit};  // {meaning}")
    out += [
        f"constexpr unsigned CTRL_WIDTH = {CTRL_WIDTH};",
        f"constexpr unsigned MIN_MW = {MIN_MW};",
        "",
        "/// Mask bits per PE for an N-PE hub (max(N, 4)).",
        "constexpr unsigned mask_width(unsigned n) { return n < MIN_MW ? MIN_MW : n; }",
        "/// Register width in bits per PE (mask_width + 4); 8 for N <= 4.",
        "constexpr unsigned reg_width(unsigned n) { return mask_width(n) + 4; }",
        "constexpr unsigned STATUS_GO(unsigned n) { return reg_width(n) - 1; }",
        "constexpr unsigned STATUS_INT(unsigned n) { return reg_width(n) - 2; }",
        "",
        "",
        "// The PAPERS window on the hub's register bus (register numbers, addr 11..0)",
    ]
    for n, reg, acc, bits, meaning in WINDOW:
        out.append(f"constexpr uint16_t W_{n} = 0x{reg:03X};  // {acc}, {bits} bits: {meaning}")
    for n, b in WINDOW_STAT_BITS.items():
        out.append(f"constexpr unsigned W_STAT_{n} = {b};")
    for n, b in WINDOW_CANCEL.items():
        out.append(f"constexpr unsigned W_CANCEL_{n} = {b};  // CANCEL's outcome")
    out += [
        f"constexpr uint32_t MAP_HASH = 0x{map_hash():08X};  // CRC-32 of this register map",
        "",
        "/// Bits the PC's own port hardware inverts between register and pin.",
        f"constexpr uint8_t PC_CONTROL_INVERT = 0x{pc_invert_mask('CONTROL'):02x};",
        "/// Status: the PC inverts Busy (bit 7 of an 8-bit port); the hub drives",
        "/// the Busy pin with /GO as the seed's PAL does, so a read sees GO = 1.",
        "constexpr unsigned PC_STATUS_INVERT_BIT_FROM_TOP = 1;",
        "/// Control lines the hub reads active-low on the cable (CE: a PE is present",
        "/// only while its PC drives the line low; an unplugged cable reads high).",
        f"constexpr uint8_t CABLE_CONTROL_INVERT = 0x{cable_invert_mask('CONTROL'):02x};",
        "/// What libaggnet XORs into the control register so that every pin reads",
        "/// as the hub wants it: the PC's inversion undone, the cable's applied.",
        f"constexpr uint8_t LPT_CONTROL_XOR = 0x{pc_invert_mask('CONTROL') ^ cable_invert_mask('CONTROL'):02x};",
        "",
        "/// The PC's DB25 connector for a 4-PE (8-bit) port: which pin carries",
        "/// which port bit and PAPERS signal (tools/regmap.py DB25).",
        "struct Db25Pin {",
        "    enum Reg { data, status, control } reg;",
        "    unsigned bit;        ///< bit of that register",
        "    unsigned pin;        ///< DB25 pin",
        "    const char* pc;      ///< the PC's name of the signal",
        "    const char* signal;  ///< the PAPERS signal on it",
        "    bool pc_inverts;     ///< the pin's level is the register bit inverted",
        "    bool active_low;     ///< the hub reads the line active-low (CE: presence)",
        "};",
        "inline constexpr Db25Pin DB25_PINS[] = {",
    ] + ["    {Db25Pin::%s, %d, %d, \"%s\", \"%s\", %s, %s}," % (
             reg.lower(), bit, pin, pc, sig, "true" if db25_inverts(reg, bit) else "false",
             "true" if (reg, sig) in CABLE_ACTIVE_LOW else "false")
         for pin, reg, bit, pc, sig in DB25] + [
        "};",
        "",
        "}  // namespace aggnet::papers_regs",
    ]
    return "\n".join(out) + "\n"


def gen_md():
    out = [
        "<!-- Generated by tools/regmap.py from its REGS table; do not edit. -->",
        "# PAPERS port register map",
        "",
        "Seed 000 Tables 3-5, as the hub implements them. For N PEs the mask has",
        "MW = max(N, 4) bits and each register W = MW + 4 bits; for N = 4 every",
        "position is the seed's. The PC's port hardware inverts the bits marked",
        "*PC inverts* between register and pin; libaggnet's lowest layer",
        "compensates for the control register, and the hub drives the Busy pin",
        "with /GO (as the seed's PAL equation for PEaGO does) so that a status",
        "read sees GO = 1 when the barrier has fired.",
        "",
        "Presence (aggnet, not the seed): the hub reads CE active-low on the cable",
        "(DB25 pin 17 low = connected, the PC's own /SelectIn polarity), and a PE",
        "counts as present only while CE is 1. An unplugged cable, whose lines the",
        "FPGA's pull-ups hold high, is therefore absent, and inside the hub an",
        "absent PE reads as alone and idle (every pin 0 but its own mask bit): it",
        "never arrives at a barrier, names no other PE and requests no interrupt,",
        "and its LED column is dark. libaggnet XORs the control register with",
        f"`0x{pc_invert_mask('CONTROL') ^ cable_invert_mask('CONTROL'):02x}` (LPT_CONTROL_XOR).",
        "",
        "| register | bit | name | meaning | DB25 pin | PC inverts | seed |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    names = {"DATA": "data (base+0)", "STATUS": "status (base+1)", "CONTROL": "control (base+2)"}
    for r, n, bit, meaning, pin, inv, src in REGS:
        b = bit if isinstance(bit, int) else bit
        if n in ("B0",):
            n, b = "Bk", "4+k"
        if n == "I0":
            n, b = "Ik", "3+k"
        out.append(f"| {names[r]} | {b} | {n} | {meaning} | {pin} | {'yes' if inv else 'no'} | {src} |")
    out += [
        "",
        "## The PAPERS window on the link",
        "",
        "Over the link (docs/link.md) the same port is a window of registers on",
        "the hub's register bus, addressed per PE (the PE the frame names). A PC",
        "without a parallel port runs PAPERS through it; the hub then drives that",
        "PE's pins from these registers (OWNER), while the other PEs keep their",
        "cables. GO is waited for with a link WAIT on STAT, or the whole",
        "barrier is one CALL of SYNC.",
        "",
        "Access: R read, RW read and write (READ, WRITE, WAIT), C a CALL",
        "operation (docs/link.md rule 8: a CALL start is a write with",
        "`bus_req_call`, carrying the operands; each ask a read with it; both",
        "answered PENDING while the operation runs and with its result once,",
        "when it has finished). Bits of a C register: operand / result. A CALL",
        "to a register that is not C, and a READ, WRITE or WAIT of a C",
        "register, are refused (ERR REFUSED). An ask answers the PE's latest",
        "CALL (whichever C register it names) and is refused when the PE has",
        "none in progress or uncollected.",
        "",
        "Departure from the seed: with SYNC the hub itself performs the PC's",
        "_p_wait/_p_waitvec sequence (section 4.3.2-4.3.3) on the PE's",
        "registers, one CALL and one RESULT per barrier instead of the host's",
        "four link round trips. The PAPERS logic it drives is unchanged, so",
        "cabled PEs and link PEs still barrier together.",
        "",
        "| register | name | access | bits | meaning |",
        "| --- | --- | --- | --- | --- |",
    ]
    for n, reg, acc, bits, meaning in WINDOW:
        out.append(f"| `0x{reg:03X}` | {n} | {acc} | {bits} | {meaning} |")
    out += [
        "",
        "A write to a read-only register is refused (ERR REFUSED); a register not",
        "listed (or MASK1/IVEC1/PRESENT1/LAST1 on a hub of 32 PEs or fewer) answers ERR NO_REG.",
        f"Register-map hash (INFO window MAP_HASH+1): `0x{map_hash():08X}`.",
    ]
    out.append("")
    out.append(f"PC control inversion mask: `0x{pc_invert_mask('CONTROL'):02x}` "
               "(nStrobe, nAutoFd, nSelectIn; nInit is not inverted on an IBM PC/AT port, "
               "although the seed's P_MODE() XORs all four low bits, 0x0f).")
    return "\n".join(out) + "\n"


TARGETS = {
    "rtl/papers/papers_regs.vh": gen_vh,
    "host/include/aggnet/papers_regs.hpp": gen_hpp,
    "docs/papers_regmap.md": gen_md,
}


def main():
    return gentables.main("regmap", __doc__, TARGETS, ROOT, before=check_db25)


if __name__ == "__main__":
    sys.exit(main())
