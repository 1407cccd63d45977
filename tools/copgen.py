#!/usr/bin/env python3
"""The COP engine's tables, written once (seed 004, Hall: the coordination
processor, chapters IV-V; rtl/cop/, docs/cop.md).

From the tables below we generate:

  rtl/cop/cop_regs.vh                   Verilog localparams and the opcode decode (cop_core)
  rtl/cop/cop_hash.vh                   the map hash alone, for the hub top's INFO window (its
                                        other includes share names with cop_regs.vh's causes)
  host/include/aggnet/cop_regs.hpp      C++ constants (sim/cop_model.hpp, tests, later aggnet/cop.hpp)
  docs/cop_regmap.md                    the instruction word, opcodes, causes and registers

`python3 tools/copgen.py` rewrites the four files; `--check` fails when a
committed file differs (`make lint`).  Table I of the seed is transcribed in
OPCODES (its 30 rows, name, 7-bit opcode and privilege as printed); the rows
marked "aggnet" sit in opcodes Table I leaves free.  The test reference
(sim/cop_model.hpp) decodes opcodes from the generated C++ table but computes
every result itself.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import gentables  # noqa: E402
import linkgen  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
WINDOW = {name: w for name, w, _ in linkgen.WINDOWS}["COP"]

# ---- what the controller does with a command (name, code, meaning) --------------------
KINDS = [
    ("K_NONE",   0,  "no such opcode: refused (BADOP)"),
    ("K_RAMR",   1,  "Data RAM read: the result is the word at {PPN, PID, ADDR}"),
    ("K_RAMW",   2,  "Data RAM write"),
    ("K_RMW",    3,  "Data RAM read-modify-write: fetch-and-add, the result is the old value"),
    ("K_RED",    4,  "integer reduction over the key's TC members (ALU function FN)"),
    ("K_FLT",    5,  "floating point reduction over the key's TC members (the FPU, FN: 0 sum in channel order, "
                     "1 maximum, 2 minimum, 3 exact sum, 4 / 5 inclusive / exclusive prefix sum in channel "
                     "order, 6 exact sum of the level 1 cores' exact sums, 7 exact prefix sum in channel order (opcode "
                     "bit 0: exclusive); refused NOFPU when EN_FPU = 0)"),
    ("K_BAR",    6,  "barrier entry: the exit goes to every TC member"),
    ("K_LOCK",   7,  "lock the controller on this channel"),
    ("K_UNLOCK", 8,  "unlock; from a channel that does not hold the lock nothing changes (NOTLOCKER)"),
    ("K_XMIT",   9,  "retransmit this channel's last reply (answered by the bus side at once)"),
    ("K_ACK",    10, "acknowledge (answered at once, no effect: the link carries ACKs)"),
    ("K_BCAST",  11, "broadcast: every other channel of the key's mask gets the value in its mailbox"),
    ("K_SETBM",  12, "set the key's broadcast mask (supervisor)"),
    ("K_SETTC",  13, "set the key's TC bit vector, the round template (supervisor)"),
    ("K_SCAN",   14, "parallel prefix sum over the key's TC members in channel order (FN bit 0: exclusive)"),
    ("K_RECV",   15, "collect one mailbox delivery (answered by the bus side when the mailbox holds one)"),
]
K = {n: c for n, c, _ in KINDS}

# ---- ALU functions (name, code, meaning): Table I's low opcode bits ----------------------
FNS = [
    ("FN_SUM", 0, "wrapping two's complement sum"),
    ("FN_MAX", 1, "signed maximum"),
    ("FN_MIN", 2, "signed minimum"),
    ("FN_OR",  3, "bitwise OR"),
    ("FN_AND", 4, "bitwise AND"),
    ("FN_XOR", 5, "bitwise exclusive OR"),
]
F = {n: c for n, c, _ in FNS}

# ---- seed 004 Table I, and aggnet's additions ----------------------------------------------
# (name, opcode, privilege, kind, fn, 64-bit, operand bytes, result bytes, source, meaning)
# result bytes -1: the length of the delivery (XMIT: the last reply's, RECV: the broadcast's).
OPCODES = [
    ("RSRAM32", 0b1011100, "U/S", "K_RAMR",   0, 0, 0, 4, "Table I", "Read 32-bit data from Data RAM"),
    ("WSRAM32", 0b1011101, "U/S", "K_RAMW",   0, 0, 4, 0, "Table I", "Write 32-bit data to Data RAM"),
    ("RMW32",   0b1011110, "U/S", "K_RMW",    0, 0, 4, 4, "Table I", "Read-Modify-Write 32-bit data"),
    ("SUMI32",  0b1010000, "U/S", "K_RED",    F["FN_SUM"], 0, 4, 4, "Table I", "32-bit integer global Sum"),
    ("MAXI32",  0b1010001, "U/S", "K_RED",    F["FN_MAX"], 0, 4, 4, "Table I", "32-bit integer global Maximum"),
    ("MINI32",  0b1010010, "U/S", "K_RED",    F["FN_MIN"], 0, 4, 4, "Table I", "32-bit integer global Minimum"),
    ("OR32",    0b1011000, "U/S", "K_RED",    F["FN_OR"],  0, 4, 4, "Table I", "32-bit global logical OR"),
    ("AND32",   0b1011001, "U/S", "K_RED",    F["FN_AND"], 0, 4, 4, "Table I", "32-bit global logical AND"),
    ("EXOR32",  0b1011010, "U/S", "K_RED",    F["FN_XOR"], 0, 4, 4, "Table I", "32-bit global logical EXOR"),
    ("RSRAM64", 0b1111100, "U/S", "K_RAMR",   0, 1, 0, 8, "Table I", "Read 64-bit data from Data RAM"),
    ("WSRAM64", 0b1111101, "U/S", "K_RAMW",   0, 1, 8, 0, "Table I", "Write 64-bit data to Data RAM"),
    ("RMW64",   0b1111110, "U/S", "K_RMW",    0, 1, 8, 8, "Table I", "Read-Modify-Write 64-bit data"),
    ("SUMI64",  0b1110000, "U/S", "K_RED",    F["FN_SUM"], 1, 8, 8, "Table I", "64-bit integer global sum"),
    ("SUMF",    0b1110100, "U/S", "K_FLT",    0, 1, 8, 8, "Table I", "64-bit floating point global sum"),
    ("MAXI64",  0b1110001, "U/S", "K_RED",    F["FN_MAX"], 1, 8, 8, "Table I", "64-bit integer global Maximum"),
    ("MAXF",    0b1110101, "U/S", "K_FLT",    1, 1, 8, 8, "Table I", "64-bit floating point global Maximum"),
    ("MINI64",  0b1110010, "U/S", "K_RED",    F["FN_MIN"], 1, 8, 8, "Table I", "64-bit integer global Minimum"),
    ("MINF",    0b1110110, "U/S", "K_FLT",    2, 1, 8, 8, "Table I", "64-bit floating point global Miminim"),
    ("OR64",    0b1111000, "U/S", "K_RED",    F["FN_OR"],  1, 8, 8, "Table I", "64-bit global logical OR"),
    ("AND64",   0b1111001, "U/S", "K_RED",    F["FN_AND"], 1, 8, 8, "Table I", "64-bit global logical AND"),
    ("EXOR64",  0b1111010, "U/S", "K_RED",    F["FN_XOR"], 1, 8, 8, "Table I", "64-bit global logical EXOR"),
    ("BENTRY",  0b0000001, "U/S", "K_BAR",    0, 0, 0, 0, "Table I", "Barrier entry and broadcast"),
    ("LOCK",    0b0000010, "U/S", "K_LOCK",   0, 0, 0, 0, "Table I", "Lock a channel"),
    ("UNLOCK",  0b0000011, "U/S", "K_UNLOCK", 0, 0, 0, 0, "Table I", "Unlock a locked channel"),
    ("XMIT",    0b0000100, "U/S", "K_XMIT",   0, 0, 0, -1, "Table I", "Retransmit a message"),
    ("ACK",     0b0001000, "U/S", "K_ACK",    0, 0, 0, 0, "Table I", "Acknowledgement for a message"),
    ("BCAST32", 0b0011100, "U/S", "K_BCAST",  0, 0, 4, 0, "Table I", "Broadcast 32-bit word"),
    ("SETBM",   0b0111110, "S",   "K_SETBM",  0, 1, 8, 0, "Table I", "Set broadcast mask"),
    ("SETTC",   0b0111111, "S",   "K_SETTC",  0, 1, 8, 0, "Table I", "Set TC Bit vector"),
    ("BCAST64", 0b0111100, "U/S", "K_BCAST",  0, 1, 8, 0, "Table I", "Broadcast 64-bit word"),
    # aggnet, in opcodes Table I leaves free (docs/cop.md, "Beyond the seed")
    ("EXSUMF",  0b1110111, "U/S", "K_FLT",    3, 1, 8, 8, "aggnet",
     "exact (reproducible) double sum, rounded once (the FPU)"),
    ("SCANI32", 0b1000000, "U/S", "K_SCAN",   0, 0, 4, 4, "aggnet", "32-bit integer inclusive prefix sum"),
    ("SCANX32", 0b1000001, "U/S", "K_SCAN",   1, 0, 4, 4, "aggnet", "32-bit integer exclusive prefix sum"),
    ("SCANI64", 0b1100000, "U/S", "K_SCAN",   0, 1, 8, 8, "aggnet", "64-bit integer inclusive prefix sum"),
    ("SCANX64", 0b1100001, "U/S", "K_SCAN",   1, 1, 8, 8, "aggnet", "64-bit integer exclusive prefix sum"),
    ("SCANIF",  0b1100100, "U/S", "K_FLT",    4, 1, 8, 8, "aggnet",
     "floating point inclusive prefix sum: rounded adds in channel order (the FPU)"),
    ("SCANXF",  0b1100101, "U/S", "K_FLT",    5, 1, 8, 8, "aggnet",
     "floating point exclusive prefix sum (the first member's is +0)"),
    ("EXSCANIF", 0b1100010, "U/S", "K_FLT",   7, 1, 8, 8, "aggnet",
     "exact inclusive prefix sum of doubles: each member's is the correctly rounded exact sum of its term "
     "and those before it in channel order (the FPU's exact accumulator)"),
    ("EXSCANXF", 0b1100011, "U/S", "K_FLT",   7, 1, 8, 8, "aggnet",
     "exact exclusive prefix sum of doubles (the first member's is +0)"),
    ("EXMRG",   0b1100110, "S",   "K_FLT",    6, 1, 0, 8, "aggnet",
     "EXSUMF's level 2 form: merge each member's level 1 exact sum (its core's accumulator, read by the "
     "DOWN port), rounded once; sent by cop_up for an EXSUMF with X, refused NODOWN in a core built "
     "without DOWN"),
    ("RECV",    0b0000101, "U/S", "K_RECV",   0, 0, 0, -1, "aggnet", "collect one broadcast delivery from the mailbox"),
]

# ---- the instruction word (figure 13b; the widths are aggnet's) ---------------------------
# (name, lsb, width, meaning)
IWORD = [
    ("OPCODE", 0,  7, "Table I opcode: bits 10..4 of the CALL register address"),
    ("X",      7,  1, "the command goes on to a level 2 COP: bit 2 of the CALL address (a core built with UP = 0 "
                      "refuses it NOUP)"),
    ("US",     8,  1, "1 supervisor, 0 user: the channel's MODE, never the caller's word"),
    ("MASK",   9,  1, "which of the process's two masks and TC vectors: bit 3 of the CALL address"),
    ("PPN",    10, 4, "physical partition number: the channel's PROC register (supervisor written)"),
    ("PID",    14, 8, "process id: the channel's PROC register (supervisor written)"),
    ("WC",     22, 2, "words after the instruction word (address, data): filled in by the COP from the opcode"),
]
IWORD_RESERVED = "bits 31..24: 0"

# ---- causes of a refusal (name, code, meaning) ------------------------------------------
CAUSES = [
    ("BADOP",     1,  "an opcode Table I does not define (and aggnet does not add), or a CALL address with bits 1..0 set"),
    ("BADLEN",    2,  "the CALL's operand bytes are not the opcode's"),
    ("PRIV",      3,  "a supervisor opcode (SETBM, SETTC) or register write (PROC, LOCK, HOLD, UPLINK) from user mode: "
                      "counted in PRIVCNT, nothing changes"),
    ("NOFPU",     4,  "a floating point opcode in a core built without the FPU (EN_FPU = 0)"),
    ("NOUP",      5,  "X bit set: there is no level 2 COP above this one (the core is built with UP = 0)"),
    ("BUSY",      6,  "a CALL start while this channel's command, RECV or reply is still pending"),
    ("NOTC",      7,  "a collective opcode for a key whose TC vector is 0 (no TC set)"),
    ("NOTINTC",   8,  "a collective opcode from a channel not in the key's TC vector"),
    ("MISMATCH",  9,  "a contribution whose opcode or address differs from the open round's (fixed by its first)"),
    ("ABORTED",   10, "the round was ended by a mask or TC write for its key while this channel waited in it, or "
                      "its entry at level 2 was withdrawn (UPLINK)"),
    ("MBFULL",    11, "a broadcast while a target's mailbox is full: delivered to no one (back-pressure)"),
    ("NOTLOCKER", 12, "UNLOCK from a channel that does not hold the lock: nothing changes"),
    ("RANGE",     13, "a value beyond this core: PROC's PPN or PID, ADDR beyond the Data RAM, a mask naming a "
                      "channel >= C"),
    ("KEY",       14, "MODE written with a value that is neither KEY nor 0 (the channel is user)"),
    ("NOCALL",    15, "a CALL ask while no CALL of this channel is pending"),
    ("RDONLY",    16, "a write to a read-only register"),
    ("NOREPLY",   17, "XMIT with no earlier reply to send again"),
    ("XOP",       18, "X bit set on an opcode with no level 2 form (SCANIF, SCANXF, EXSCANIF, EXSCANXF, EXMRG, "
                      "XMIT, ACK): refused at "
                      "level 1"),
    ("NODOWN",    19, "EXMRG in a core built without level 1 cores below it (DOWN = 0): there are no exact sums "
                      "to merge"),
]

# ---- registers per channel (name, addr[11:0], access, meaning) --------------------------
REGS = [
    ("ID",       0x000, "ro", "0x434F5001 (\"COP\", version 1)"),
    ("CONFIG",   0x001, "ro", "bits 6..0 C, 7 EN_FPU, 11..8 PPN_W, 15..12 PID_W, 19..16 RA_W, 22..20 MB, "
                              "23 a level 2 COP above (UP), 24 level 1 cores below (DOWN)"),
    ("MODE",     0x002, "rw", "bit 0 supervisor; write KEY: supervisor, 0: user, anything else: user (cause KEY)"),
    ("PROC",     0x003, "rw (write: supervisor)", "the channel's current process: bits 3..0 PPN, 11..4 PID; "
                              "a value beyond PPN_W / PID_W bits is refused (RANGE)"),
    ("ADDR",     0x004, "rw", "the Data RAM address (and round tag) of this channel's next CALLs; beyond RA_W bits "
                              "refused (RANGE)"),
    ("CAUSE",    0x005, "ro", "bits 7..0 the cause of this channel's last refusal, 14..8 its opcode; 0 after reset"),
    ("STATUS",   0x006, "ro", "bit 0 a command waits in the receive buffer (DATA_RDY), 1 it was served and waits "
                              "for its round, 2 a reply is ready, 3 a RECV is pending, 4 this channel holds the "
                              "lock, 5 supervisor, 10..8 mailbox entries"),
    ("INSTR",    0x007, "ro", "the instruction word of this channel's last CALL start (figure 13b layout)"),
    ("WAIT0_LO", 0x008, "ro", "mask 0 of this channel's process: the TC bits its open round still waits for, "
                              "channels 31..0 (0 when no round is open)"),
    ("WAIT0_HI", 0x009, "ro", "the same, channels 63..32"),
    ("WAIT1_LO", 0x00A, "ro", "mask 1: channels 31..0"),
    ("WAIT1_HI", 0x00B, "ro", "mask 1: channels 63..32"),
    ("TC0_LO",   0x00C, "ro", "mask 0 of this channel's process: the TC vector (round template), 31..0"),
    ("TC0_HI",   0x00D, "ro", "the same, 63..32"),
    ("TC1_LO",   0x00E, "ro", "mask 1: TC vector 31..0"),
    ("TC1_HI",   0x00F, "ro", "mask 1: TC vector 63..32"),
    ("BM0_LO",   0x010, "ro", "mask 0 of this channel's process: the broadcast mask, 31..0"),
    ("BM0_HI",   0x011, "ro", "the same, 63..32"),
    ("BM1_LO",   0x012, "ro", "mask 1: broadcast mask 31..0"),
    ("BM1_HI",   0x013, "ro", "mask 1: broadcast mask 63..32"),
    ("PRIVCNT",  0x014, "ro", "user attempts at a supervisor opcode or register since reset (wrapping)"),
    ("ERRCNT",   0x015, "ro", "refusals of any cause since reset, all channels (wrapping)"),
    ("LOCK",     0x016, "rw (write: supervisor)", "bit 7 the lock is held, bits 5..0 its channel (the last holder while bit 7 is 0); a supervisor "
                              "write (any value) breaks the lock"),
    ("HOLD",     0x017, "rw (write: supervisor)", "bit 0: the controller serves nothing while set; arrivals "
                              "stage in the receive buffers (for tests and measurements)"),
    ("UPLINK",   0x019, "rw (write: supervisor)", "bit 0: an entry of this core is at level 2, bit 1: its "
                              "withdrawal is asked (0 in a core built with UP = 0); a supervisor write (any value) "
                              "asks for it: the link CANCELs the entry's CALL at level 2, and its members are "
                              "refused ABORTED (or get the result, if level 2 finished it first); nothing happens "
                              "while no entry is there; refused NOUP in a core built with UP = 0"),
]
CALL_BASE = 0x800  # CALL register: 0x800 | opcode << 4 | MASK << 3 | X << 2
CANCEL = 0x018     # the CANCEL CALL register (docs/link.md rule 8)

# ---- CANCEL outcomes (name, value, meaning): bits 1..0 of CANCEL's 4-byte result ----------
CANCEL_OUTCOMES = [
    ("CX_NONE", 0, "no CALL of this channel was pending (none started, or its reply was handed over)"),
    ("CX_WITHDRAWN", 1, "the command had not finished: withdrawn (a contribution served into an open round "
                        "leaves it: its TC bit is set again), or a pending RECV ended"),
    ("CX_FINISHED", 2, "the command had finished and its reply was not handed over: bit 2 says it was a refusal, "
                       "bits 15..8 its cause; a result becomes the last reply (XMIT returns it)"),
    ("CX_RUNNING", 3, "the command is in the controller's step or in a completed round whose results are being "
                      "placed: nothing changed, CANCEL again (FINISHED within the step)"),
]

# ---- the FPU units the core uses for its float opcodes (opcode, unit, order, timing) --------
FPU_UNITS = [
    ("SUMF", "fpu_add64", "rounded adds in channel order over the TC members: the lowest member's term, "
     "plus the next member's, and so on (one dependent add at a time)",
     "3 + 6 (M - 1) cycles after the completing step for M members (M = 1: 2), then the result is placed"),
    ("MAXF, MINF", "cop_core", "its integer ALU tree over the members, signed maximum / minimum on the "
     "doubles' order keys (rtl/fpu/fpu_key.vh, fpu_minmax64's order; any order gives the same bits)",
     "ceil(log2 C) + 1 cycles after the completing step, as the integer reductions"),
    ("EXSUMF", "fpu_exact_acc", "every member's term added exactly, one per cycle in channel order, one "
     "ROUND_CLEAR", "C + 46 cycles after the completing step (the ROUND's worst case, so the timing "
     "does not depend on the terms)"),
    ("EXMRG", "fpu_exact_acc", "each member's level 1 export (33 limbs and the flag word, read from its "
     "core's accumulator over the DOWN port) merged, 34 words per member in channel order, one ROUND_CLEAR",
     "34 C + 1 cycles of merges after the completing step, then the ROUND (at most 45 cycles)"),
    ("EXSCANIF, EXSCANXF", "fpu_exact_acc", "per member in channel order: ADD its term then ROUND "
     "(inclusive), or ROUND then ADD (exclusive); the accumulator is CLEARed after the last",
     "48 cycles per member (the ROUND's worst case, data-free): member k's reply (k = 0, 1, ... in channel "
     "order) in FEX's cycle 48 k + 47; 48 M cycles of FEX, then FPUT (the CLEAR)"),
    ("SCANIF, SCANXF", "fpu_add64", "SUMF's adds in SUMF's order; each member's reply is placed when its "
     "own add is done: the running sum (SCANIF) or the one before it (SCANXF, +0 for the first member)",
     "the lowest member's in FADD's second cycle (the first takes its term), member k's (k = 1, 2, ... in "
     "channel order) 6 k + 2 cycles after FADD's first; 3 + 6 (M - 1) cycles in all, as SUMF"),
]


def _check_tables():
    """What the RTL and the tests take from the opcode encoding rather than from a table: a
    prefix sum's exclusive form is its inclusive opcode with bit 0 set, FN bit 0 set, the same
    width (cop_core sends a level 1 total up as level 2's exclusive sum by `| 1`)."""
    by_code = {o[1]: o for o in OPCODES}
    for name, code, _, kind, fn, w64, *_ in OPCODES:
        if kind in ("K_SCAN", "K_FLT") and (kind == "K_SCAN" or fn in (4, 5)) and not fn & 1:
            x = by_code.get(code | 1)
            if x is None or x[3] != kind or x[4] != fn | 1 or x[5] != w64:
                raise SystemExit("copgen: %s's exclusive form must be opcode %s with FN %d" %
                                 (name, bin(code | 1), fn | 1))
        if kind == "K_FLT" and fn == 7:  # the exact prefix sums: opcode bit 0 says exclusive (cop_core)
            x = by_code.get(code ^ 1)
            if x is None or x[3] != kind or x[4] != 7:
                raise SystemExit("copgen: %s's other form must be opcode %s with FN 7" % (name, bin(code ^ 1)))


_check_tables()


def map_hash():
    return gentables.map_hash((OPCODES, IWORD, CAUSES, REGS, CALL_BASE, KINDS, FNS, CANCEL, CANCEL_OUTCOMES))


HEAD = "Generated by tools/copgen.py from its tables; do not edit."


def _wc(lin, kind):
    # words after the instruction word: the address word for Data RAM and rounds, then the data words
    addr = 1 if kind in ("K_RAMR", "K_RAMW", "K_RMW", "K_RED", "K_FLT", "K_SCAN") else 0
    return addr + lin // 4


def gen_vh():
    o = [f"// {HEAD}", "// The COP engine's opcodes, instruction word, causes and registers (seed 004;",
         "// docs/cop_regmap.md).  Include inside a module."]
    for n, c, m in KINDS:
        o.append(f"localparam [3:0] {n:<8} = 4'd{c};  // {m}")
    for n, c, m in FNS:
        o.append(f"localparam [2:0] {n:<6} = 3'd{c};  // {m}")
    for n, op, priv, kind, fn, w, lin, lout, src, m in OPCODES:
        o.append(f"localparam [6:0] OP_{n:<7} = 7'b{op:07b};  // {priv:<3} {src}: {m}")
    for n, lsb, w, m in IWORD:
        o.append(f"localparam integer IW_{n:<6} = {lsb};  // {w} bit{'s' if w > 1 else ''}: {m}")
    for n, c, m in CAUSES:
        o.append(f"localparam [7:0] C_{n:<9} = 8'd{c};")
    for n, a, acc, m in REGS:
        o.append(f"localparam [11:0] R_{n:<8} = 12'h{a:03X};  // {acc}")
    o.append(f"localparam [11:0] R_CALL_BASE = 12'h{CALL_BASE:03X};  // CALL: base | opcode << 4 | MASK << 3 | X << 2")
    o.append(f"localparam [11:0] R_CANCEL = 12'h{CANCEL:03X};  // CALL: withdraw or collect this channel's CALL")
    for n, v, m in CANCEL_OUTCOMES:
        o.append(f"localparam [1:0] {n:<12} = 2'd{v};  // CANCEL outcome: {m}")
    o.append(f"localparam [31:0] COP_MAP_HASH = 32'h{map_hash():08X};  // CRC-32 of these tables")
    o += ["// cop_dec(opcode): bits 3..0 kind, 6..4 fn, 7 64-bit, 11..8 operand bytes, 15..12 result bytes",
          "// (15: the delivery's own), 16 supervisor only, 18..17 WC (words after the instruction word)",
          "// (in LUTs, not a block RAM: yosys would otherwise map the registered decode into a block",
          "// RAM ROM, whose slow clock-to-output began cop_core's critical path; docs/cop.md \"Timing\")",
          "function automatic [18:0] cop_dec(input [6:0] op);", "    begin", "        (* rom_style = \"logic\" *) case (op)"]
    for n, op, priv, kind, fn, w, lin, lout, src, m in OPCODES:
        lo = 15 if lout < 0 else lout
        o.append(f"            OP_{n + ':':<8} cop_dec = {{2'd{_wc(lin, kind)}, 1'b{1 if priv == 'S' else 0}, "
                 f"4'd{lo}, 4'd{lin}, 1'b{w}, 3'd{fn}, {kind}}};")
    o += ["            default:  cop_dec = {2'd0, 1'b0, 4'd0, 4'd0, 1'b0, 3'd0, K_NONE};", "        endcase",
          "    end", "endfunction"]
    return "\n".join(o) + "\n"


def gen_hash_vh():
    return "\n".join([f"// {HEAD}", "// The COP engine's register-map hash alone (the same as cop_regs.vh's), for the",
                      "// hub top's INFO window: aggnet_hub includes it beside the other engines' maps,",
                      "// whose names cop_regs.vh's would collide with.  Include inside a module.",
                      f"localparam [31:0] COP_MAP_HASH = 32'h{map_hash():08X};  // CRC-32 of the COP tables"]) + "\n"


def gen_hpp():
    o = [f"// {HEAD}", "// The COP engine's opcodes, instruction word, causes and registers (seed 004;",
         "// docs/cop_regmap.md).", "#pragma once", "", "#include <cstdint>", "", "namespace aggnet::cop {", "",
         "/// What the controller does with a command.", "enum Kind : unsigned {"]
    o += [f"    {n} = {c},  ///< {m}" for n, c, m in KINDS]
    o += ["};", "/// ALU functions (Table I's low opcode bits for the reductions).", "enum Fn : unsigned {"]
    o += [f"    {n} = {c},  ///< {m}" for n, c, m in FNS]
    o += ["};", "/// Table I opcodes and aggnet's additions.", "enum Opcode : unsigned {"]
    o += [f"    OP_{n} = 0b{op:07b},  ///< {priv} {src}: {m}" for n, op, priv, kind, fn, w, lin, lout, src, m in OPCODES]
    o += ["};", "/// One row of the opcode table (result_len -1: the delivery's own length).", "struct OpInfo {",
          "    const char* name;", "    unsigned opcode;", "    bool supervisor;", "    Kind kind;", "    unsigned fn;",
          "    bool w64;", "    unsigned operand_len;", "    int result_len;", "    bool seed;  ///< a Table I row", "};",
          "constexpr OpInfo OPCODES[] = {"]
    o += [f"    {{\"{n}\", 0b{op:07b}, {'true' if priv == 'S' else 'false'}, {kind}, {fn}, {'true' if w else 'false'}, "
          f"{lin}, {lout}, {'true' if src == 'Table I' else 'false'}}},"
          for n, op, priv, kind, fn, w, lin, lout, src, m in OPCODES]
    o += ["};", "/// The row of an opcode, or nullptr (refused BADOP).",
          "constexpr const OpInfo* op_info(unsigned opcode) {",
          "    for (const auto& r : OPCODES)", "        if (r.opcode == opcode) return &r;", "    return nullptr;", "}",
          "", "/// The instruction word (figure 13b; the widths are aggnet's): field lsb and width."]
    o += [f"constexpr unsigned IW_{n}_LSB = {lsb}, IW_{n}_WIDTH = {w};  ///< {m}" for n, lsb, w, m in IWORD]
    o += ["", "/// CANCEL outcomes: bits 1..0 of its result.", "enum CancelOutcome : unsigned {"]
    o += [f"    {n} = {v},  ///< {m}" for n, v, m in CANCEL_OUTCOMES]
    o += ["};"]
    o += ["", "/// Causes of a refusal (CAUSE register bits 7..0).", "enum Cause : unsigned {", "    C_NONE = 0,"]
    o += [f"    C_{n} = {c},  ///< {m}" for n, c, m in CAUSES]
    o += ["};"] + gentables.cause_text_fn(CAUSES)
    o += ["", "namespace regs {", f"constexpr unsigned WINDOW = {WINDOW};  // tools/linkgen.py WINDOWS: COP"]
    o += [f"constexpr uint16_t {n} = 0x{a:03X};  // {acc}: {m}" for n, a, acc, m in REGS]
    o += [f"constexpr uint16_t CALL_BASE = 0x{CALL_BASE:03X};  // a CALL register: CALL_BASE | opcode << 4 | mask << 3 | x << 2",
          "constexpr uint16_t call(unsigned opcode, unsigned mask = 0, unsigned x = 0) {",
          "    return uint16_t(CALL_BASE | (opcode & 0x7f) << 4 | (mask & 1) << 3 | (x & 1) << 2);", "}",
          f"constexpr uint16_t CANCEL = 0x{CANCEL:03X};  // CALL: withdraw or collect this channel's CALL",
          f"constexpr uint32_t MAP_HASH = 0x{map_hash():08X};  // CRC-32 of these tables (INFO MAP_HASH+{WINDOW})",
          "constexpr uint16_t addr(uint16_t reg) { return uint16_t(WINDOW << 12 | reg); }",
          "}  // namespace regs", "", "}  // namespace aggnet::cop"]
    return "\n".join(o) + "\n"


def gen_md():
    o = [f"<!-- {HEAD} -->", "# COP engine: instruction word, opcodes, causes, registers", "",
         f"The tables of seed 004 (Hall) as the COP core (`rtl/cop/cop_core.v`) implements them, in bus",
         f"window {WINDOW}. A PE reaches its own channel (PE p = channel p). What they mean and every",
         "departure from the seed: [cop.md](cop.md).", "",
         "## The instruction word (figure 13b; the field widths are aggnet's)", "",
         "| field | bits | meaning |", "| --- | --- | --- |"]
    for n, lsb, w, m in IWORD:
        bits = f"{lsb + w - 1}..{lsb}" if w > 1 else f"{lsb}"
        o.append(f"| {n} | {bits} | {m} |")
    o += [f"| - | 31..24 | reserved, 0 |", "",
          "The COP builds the word at each CALL start: the caller chooses only OPCODE, MASK and",
          "X (the CALL register address) and the operand; U/S, PPN and PID come from registers",
          "only the supervisor sets, so user code cannot forge them. The address word is the",
          "channel's ADDR register; the data words are the CALL's operand (0, 4 or 8 bytes).", "",
          "## Opcodes (seed 004 Table I, and aggnet's additions)", "",
          "| command | opcode | privilege | operand bytes | result bytes | source | description |",
          "| --- | --- | --- | --- | --- | --- | --- |"]
    for n, op, priv, kind, fn, w, lin, lout, src, m in OPCODES:
        lo = "delivery's" if lout < 0 else str(lout)
        o.append(f"| {n} | `{op:07b}` | {priv} | {lin} | {lo} | {src} | {m} |")
    o += ["", "Every other opcode is refused (BADOP).", "",
          "## The CALL registers", "",
          f"A COP operation is one link CALL (docs/link.md rule 8) to address `0x{CALL_BASE:03X} | opcode << 4 | MASK << 3 | X << 2`",
          "of the window, with the operand as its bytes (big-endian on the link, bits 63..32 in",
          "`bus_req_wdata_hi`). The start is refused at once for BADOP, BADLEN, PRIV, NOFPU, NOUP",
          "and BUSY; otherwise it is answered PENDING and the command waits in the channel's receive",
          "buffer (DATA_RDY). Each ask is answered PENDING until the reply slot holds the result, then",
          "the result once (err 0, the result bytes of the table), or REFUSED with the cause in CAUSE.",
          "XMIT, ACK and RECV are answered by the bus side, not the controller.", "",
          "## CANCEL (docs/link.md rule 8)", "",
          f"A CALL start to `0x{CANCEL:03X}` with no operand withdraws or collects the channel's pending CALL and",
          "finishes at its start (err 0, 4 result bytes; an ask of it is NO_REG, an operand BADLEN). Result",
          "bits 1..0 the outcome, bit 2 the finished reply was a refusal, bits 15..8 its cause:", "",
          "| outcome | value | meaning |", "| --- | --- | --- |"]
    o += [f"| {n} | {v} | {m} |" for n, v, m in CANCEL_OUTCOMES]
    o += ["",
          "## Causes (CAUSE bits 7..0)", "", "| code | name | meaning |", "| --- | --- | --- |"]
    o += [f"| {c} | {n} | {m} |" for n, c, m in CAUSES]
    o += ["", f"## Registers (address bits 11..0 in window {WINDOW}; plain READ and WRITE, 4 bytes)", "",
          "| register | address | access | meaning |", "| --- | --- | --- | --- |"]
    o += [f"| {n} | `0x{a:03X}` | {acc} | {m} |" for n, a, acc, m in REGS]
    o += ["", "Other addresses below 0x800: no such register (NO_REG). A write to a read-only register",
          "is refused (RDONLY); a supervisor register written in user mode is refused (PRIV, counted).",
          "", "## The floating point opcodes (rtl/fpu/, EN_FPU = 1)", "",
          "| opcode | unit | order | result placed |", "| --- | --- | --- | --- |"]
    o += [f"| {n} | `{u}` | {o_} | {t} |" for n, u, o_, t in FPU_UNITS]
    o += ["", f"Register-map hash (INFO window MAP_HASH+{WINDOW}): `0x{map_hash():08X}`.", ""]
    return "\n".join(o)


TARGETS = {
    "rtl/cop/cop_regs.vh": gen_vh,
    "rtl/cop/cop_hash.vh": gen_hash_vh,
    "host/include/aggnet/cop_regs.hpp": gen_hpp,
    "docs/cop_regmap.md": gen_md,
}

if __name__ == "__main__":
    sys.exit(gentables.main("copgen", __doc__, TARGETS, ROOT))
