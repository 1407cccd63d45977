#!/usr/bin/env python3
"""The BESU engine's tables, written once (seed 001, Cray SSD-T90 "Barrier
Synchronization Operations"; rtl/besu/, docs/besu.md).

From the tables below we generate:

  rtl/besu/besu_regs.vh                 Verilog localparams (besu_node, besu_ctl) and
                                        Table 1's decode, besu_pdir (besu_node,
                                        besu_decode)
  host/include/aggnet/besu_regs.hpp     C++ constants (libaggnet's aggnet/besu.hpp)
  docs/besu_regmap.md                   the register interface and the codes

`python3 tools/besugen.py` rewrites the three files; `--check` fails when a
committed file differs (`make lint`).  The seed's own tables (1-4) are
transcribed here; the test reference (sim/besu_model.hpp) transcribes them
again, independently, and the tests compare the RTL with it.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import gentables  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent

# ---- seed 001, Table 2: BESU state codes (name, code, meaning) ------------------------
STATES = [
    ("S_IDLE",   0b000, "Idle"),
    ("S_IDLE_I", 0b001, "The microprocessor will be interrupted when a eureka event occurs"),
    ("S_EUR",    0b010, "A eureka event occurred (no interrupt generated)"),
    ("S_EUR_I",  0b011, "A eureka event occurred and an interrupt was generated"),
    ("S_ARM",    0b100, "The barrier circuit is armed"),
    ("S_ARM_I",  0b101, "The barrier circuit is armed and the microprocessor will be interrupted when the barrier completes"),
    ("S_BAR",    0b110, "A barrier event completed (no interrupt generated)"),
    ("S_BAR_I",  0b111, "A barrier event completed and an interrupt was generated"),
]

# ---- Tables 3 and 4: control codes and the opcode each sends (name, code, opcode, meaning)
CODES = [
    ("OP_CLEAR", 0b000, 0b00, "Clear"),
    ("OP_RSVD",  0b001, 0b00, "Reserved (aggnet: refused, RSVD)"),
    ("OP_EUR",   0b010, 0b01, "Send eureka"),
    ("OP_INT",   0b011, 0b00, "Arm eureka interrupt"),
    ("OP_BAR",   0b100, 0b10, "Wait for barrier event"),
    ("OP_BAR_I", 0b101, 0b10, "Arm barrier interrupt"),
    ("OP_EUR_B", 0b110, 0b11, "Send eureka and wait for barrier event"),
    ("OP_RESET", 0b111, 0b00, "Reset (aggnet: supervisor only, also clears the router's record)"),
]

# ---- Table 5: opcodes (code, C option -> R option, R option -> C option) ----------------
OPCODES = [
    (0b00, "Normal idle", "Normal idle"),
    (0b01, "Issue eureka", "Eureka received"),
    (0b10, "Join barrier", "Barrier completed"),
    (0b11, "Eureka/barrier", "Barrier/eureka"),
]

# ---- Table 1: parent codes, and aggnet's link directions -------------------------------
# (direction index d, name, parent code naming that link)
DIRS = [(0, "+X", 0b0001), (1, "-X", 0b1111), (2, "+Y", 0b0010), (3, "-Y", 0b1110), (4, "+Z", 0b0011),
        (5, "-Z", 0b1101)]
P_ROOT, P_NC = 0b0000, 0b0100

# ---- the node's registers (name, addr[11:0], count, access, meaning) -------------------
REGS = [
    ("BAR_CTL", 0x000, "n < 256", "rw",
     "read: bits 2..0 the BESU's state (Table 2); write: bits 2..0 a control code (Table 3)"),
    ("BAR_CFG", 0x100, "n < 256", "rw (write: supervisor)",
     "bit 0 PE, bits 1..6 child +X -X +Y -Y +Z -Z, bits 8..7 00, bits 12..9 parent code (Table 1); reset 0x0800"),
    ("JOINED", 0x200, "n < 256", "ro",
     "the router's record of the pending barrier: bit 0 the PE joined, bit 1+d child link d joined"),
    ("BAR_CALL", 0x300, "n < 256", "call",
     "operand 1 byte: bits 2..0 a control code written to BAR_CTL[n] as a BAR_CTL write would (OP_BAR, OP_BAR_I "
     "or OP_EUR_B), or with bit 3 (CALL_NOWRITE) set code 000 and nothing written; bit 4 (CALL_EUREKA): wait for "
     "a eureka (state 01x), else for the barrier's completion (11x). Finishes when the state shows it; result "
     "1 byte: BAR_CTL[n] then (Table 2)"),
    ("IR_STATUS", 0x400, "1", "r/w1c",
     "bit n: BESU n entered S_EUR_I or S_BAR_I (the node's interrupt output is their OR); write 1s to clear"),
    ("ERR", 0x401, "1", "r/w1c",
     "bit 0 ERR (C_ERR0 bit 62), 1 MORE, 7..4 cause, 15..8 type (23 as C_ERR3, else 0), 23..16 the "
     "register's low 8 bits (the BESU), 31..24 errors since cleared (saturating); write bit 0 = 1 to clear"),
    ("MODE", 0x402, "1", "rw",
     "bit 0 supervisor; write the hub's BESU_KEY: supervisor, 0: user, anything else: user and KEY logged"),
    ("SHAPE", 0x403, "1", "ro", "bits 7..0 NB, 11..8 X, 15..12 Y, 19..16 Z, 25..20 this node (x + X*(y + Y*z))"),
    ("LINKS", 0x404, "1", "ro", "bit d: this node has a neighbour on direction d"),
    ("FAULT", 0x405, "1", "rw (write: supervisor)",
     "bit d: link d cut both ways (a fault injected to test the diagnostic)"),
    ("CANCEL", 0x406, "1", "call",
     "operand 0 bytes: withdraws this PE's pending BAR_CALL; finishes at once, result 1 byte: bits 5..4 the "
     "outcome (CANCEL_NONE, CANCEL_WITHDRAWN, CANCEL_FINISHED), bits 2..0 the BAR_CALL's BESU state (0 if none)"),
]

# ---- BAR_CALL operand bits and CANCEL outcomes (name, value, meaning) -------------------
CALL_CONSTS = [
    ("CALL_NOWRITE", 0x08, "BAR_CALL operand bit 3: write nothing, only wait (code bits 2..0 must be 000)"),
    ("CALL_EUREKA", 0x10, "BAR_CALL operand bit 4: wait for a eureka (state 01x), not a barrier's completion (11x)"),
    ("CANCEL_NONE", 0, "CANCEL outcome: no BAR_CALL was pending (none started, or its result was handed over)"),
    ("CANCEL_WITHDRAWN", 1, "CANCEL outcome: the BAR_CALL had not finished; withdrawn, the BESU left as it is"),
    ("CANCEL_FINISHED", 2, "CANCEL outcome: the BAR_CALL had finished but its result was not yet handed over"),
]

# ---- the error causes (name, code, C_ERR3 type, meaning) --------------------------------
CAUSES = [
    ("RANGE",   1, 23, "a BESU number beyond NB (\"an undefined barrier space\")"),
    ("PRIV",    2, 23, "BAR_CFG or FAULT written, or OP_RESET, from user mode (\"a privileged barrier operation\")"),
    ("RSVD",    3, 0,  "the reserved control code 001"),
    ("ORDER",   4, 0,  "a code other than OP_CLEAR / OP_RESET while a barrier is pending (100, 101)"),
    ("NOTPART", 5, 0,  "OP_EUR, OP_BAR, OP_BAR_I or OP_EUR_B on a BESU in no partition (parent 0100) or with PE bit 0"),
    ("BADCFG",  6, 0,  "a BAR_CFG value this node cannot hold: parent code not in Table 1, bits 31..13 or 8..7 set, "
                       "a link past the mesh's edge, a parent link that is also a child link"),
    ("KEY",     7, 23, "MODE written with a value that is neither BESU_KEY nor 0"),
    ("STRAY",   8, 0,  "the router received an opcode on a link that is neither the BESU's parent nor a child, or "
                       "a second join from one source before the barrier completed"),
    ("CALLARG", 9, 0,  "a BAR_CALL whose operand is not 1 byte or not a wait (a code other than OP_BAR, OP_BAR_I, "
                       "OP_EUR_B with CALL_EUREKA clear, or CALL_NOWRITE with a code), or a CANCEL with operands"),
    ("BUSY",    10, 0, "a BAR_CALL while this PE's BAR_CALL is pending, or a BAR_CTL write to the BESU it waits on "
                       "(OP_RESET too: CANCEL first)"),
    ("NOWAIT",  11, 0, "a BAR_CALL with CALL_NOWRITE for what the BESU cannot reach: a barrier wait while it is not "
                       "armed or completed (0xx), a eureka wait while a barrier is (1xx), or a BESU in no partition"),
]


def map_hash():
    return gentables.map_hash((REGS, CAUSES, STATES, CODES, DIRS, CALL_CONSTS))


HEAD = "Generated by tools/besugen.py from its tables; do not edit."


def gen_vh():
    o = [f"// {HEAD}", "// The BESU engine's codes and registers (seed 001; docs/besu_regmap.md)."]
    for n, c, m in STATES:
        o.append(f"localparam [2:0] {n:<9} = 3'b{c:03b};  // {m}")
    for n, c, op, m in CODES:
        o.append(f"localparam [2:0] {n:<9} = 3'b{c:03b};  // opcode {op:02b}: {m}")
    o.append(f"localparam [3:0] P_ROOT    = 4'b{P_ROOT:04b};  // Table 1: this node is the root")
    o.append(f"localparam [3:0] P_NC      = 4'b{P_NC:04b};  // Table 1: not connected")
    o += gen_vh_pdir()
    for n, a, cnt, acc, m in REGS:
        o.append(f"localparam [11:0] R_{n:<9} = 12'h{a:03X};  // {acc}")
    for n, c, t, m in CAUSES:
        o.append(f"localparam [3:0] C_{n:<7} = 4'd{c};  // type {t}")
    for n, v, m in CALL_CONSTS:
        o.append(f"localparam [7:0] {n:<16} = 8'h{v:02X};  // {m}")
    o.append(f"localparam [31:0] BESU_MAP_HASH = 32'h{map_hash():08X};  // CRC-32 of these tables")
    return "\n".join(o) + "\n"


def gen_vh_pdir():
    """Table 1 as a decode, written once for every module that reads a
    parent code (besu_node's router, besu_decode's BAR_CFG check)."""
    o = ["localparam [2:0] P_DIR_NONE  = 3'd6;  // besu_pdir: the root or not connected (no parent link)",
         "localparam [2:0] P_DIR_UNDEF = 3'd7;  // besu_pdir: a code Table 1 does not define",
         "// Table 1: the link direction d (0..5: +X -X +Y -Y +Z -Z) a parent code names.",
         "function [2:0] besu_pdir(input [3:0] p);",
         "    case (p)"]
    o += [f"        4'b{p:04b}: besu_pdir = 3'd{d};  // {n}" for d, n, p in DIRS]
    o += ["        P_ROOT, P_NC: besu_pdir = P_DIR_NONE;",
          "        default: besu_pdir = P_DIR_UNDEF;",
          "    endcase",
          "endfunction"]
    return o


def gen_hpp():
    o = [f"// {HEAD}", "// The BESU engine's codes and registers (seed 001; docs/besu_regmap.md).", "#pragma once", "",
         "#include <cstdint>", "", "namespace aggnet::besu {", "",
         "/// Table 2: the states of a BESU.", "enum State : unsigned {"]
    o += [f"    {n} = {c},  ///< {m}" for n, c, m in STATES]
    o += ["};", "/// Table 3: the control codes a PE writes to BAR_CTL.", "enum Code : unsigned {"]
    o += [f"    {n} = {c},  ///< {m}" for n, c, op, m in CODES]
    o += ["};", "/// Table 4: the opcode each control code sends (C option -> R option).",
          "constexpr unsigned CODE_OPCODE[8] = {" + ", ".join(f"0b{op:02b}" for n, c, op, m in CODES) + "};",
          "/// The causes a node logs in its ERR register.", "enum Cause : unsigned {", "    C_NONE = 0,"]
    o += [f"    C_{n} = {c},  ///< {m}" for n, c, t, m in CAUSES]
    o += ["};"] + gentables.cause_text_fn([(n, c, m) for n, c, t, m in CAUSES])
    o += ["/// Table 1: parent codes; the parent code of link direction d (+X -X +Y -Y +Z -Z).",
          f"constexpr unsigned P_ROOT = 0b{P_ROOT:04b}, P_NC = 0b{P_NC:04b};",
          "constexpr unsigned PARENT_CODE[6] = {" + ", ".join(f"0b{p:04b}" for d, n, p in DIRS) + "};",
          "/// BAR_CALL operand bits and CANCEL outcomes (docs/besu_regmap.md, \"CALL registers\")."]
    o += [f"constexpr unsigned {n} = 0x{v:02X};  ///< {m}" for n, v, m in CALL_CONSTS]
    o += [
          "", "namespace regs {", "constexpr unsigned WINDOW = 3;  // tools/linkgen.py WINDOWS: BESU"]
    o += [f"constexpr uint16_t {n} = 0x{a:03X};  // {acc}: {m}" for n, a, cnt, acc, m in REGS]
    o += [f"constexpr uint32_t MAP_HASH = 0x{map_hash():08X};  // CRC-32 of these tables (INFO MAP_HASH+3)",
          "constexpr uint16_t addr(uint16_t reg) { return uint16_t(WINDOW << 12 | reg); }",
          "}  // namespace regs", "", "}  // namespace aggnet::besu"]
    return "\n".join(o) + "\n"


def gen_md():
    o = [f"<!-- {HEAD} -->", "# BESU engine: registers and codes", "",
         "The tables of seed 001 as the BESU engine (`rtl/besu/`) implements them, and",
         "the register interface of each node in bus window 3. A PE reaches its own",
         "node's registers (link PE p = node p). What these mean and how to use them:",
         "[besu.md](besu.md).", "", "## Registers (address bits 11..0 in window 3)", "",
         "| register | address | access | meaning |", "| --- | --- | --- | --- |"]
    for n, a, cnt, acc, m in REGS:
        ad = f"0x{a:03X}" + (" + n" if cnt != "1" else "")
        o.append(f"| {n}{'[n]' if cnt != '1' else ''} | `{ad}` | {acc} | {m} |")
    o += ["", "n >= NB in the BESU ranges: refused and logged (RANGE). Other addresses: no such",
          "register (NO_REG, not logged). A write to a read-only register is refused without",
          "being logged (it is not a barrier operation).", "",
          "Access `call`: the register takes only link CALLs (docs/link.md, rule 8): a CALL",
          "starts the operation with its operand bytes and the hub answers RESULT once it",
          "has finished. Any other access to a `call` register, and a CALL to any other",
          "register, finds no register (NO_REG).", "",
          "## CALL registers", "",
          "One BAR_CALL per PE may be pending (the node keeps its BESU and what it waits",
          "for). A BAR_CALL that writes a code is answered PENDING at its start (the",
          "event needs cycles to come back over the tree) and finishes at an ask that finds",
          "the state; one that only waits (CALL_NOWRITE) finishes at its start if the state",
          "already shows it. A finished BAR_CALL's result is handed over once and the node",
          "forgets it. While one is pending: another BAR_CALL is refused (BUSY); a BAR_CTL",
          "write to its BESU is refused (BUSY), OP_RESET too; writes to other BESUs act as",
          "always; a BAR_CFG write to its BESU (supervisor) withdraws it. CANCEL is always",
          "taken. A BAR_CALL writes its code through the same BAR_CTL table with the PE's",
          "mode, and only the codes that wait are operands, so no supervisor operation is",
          "reachable through a CALL. A refused CALL is logged in ERR like a refused write.", "",
          "| name | value | meaning |", "| --- | --- | --- |"]
    o += [f"| {n} | `0x{v:02X}` | {m} |" for n, v, m in CALL_CONSTS]
    o += ["",
          "## States (seed 001 Table 2)", "", "| code | name | meaning |", "| --- | --- | --- |"]
    o += [f"| `{c:03b}` | {n} | {m} |" for n, c, m in STATES]
    o += ["", "## Control codes and opcodes (Tables 3 and 4)", "",
          "| code | name | opcode sent | meaning |", "| --- | --- | --- | --- |"]
    o += [f"| `{c:03b}` | {n} | `{op:02b}` | {m} |" for n, c, op, m in CODES]
    o += ["", "## Opcodes (Table 5)", "", "| opcode | C option -> R option | R option -> C option |",
          "| --- | --- | --- |"]
    o += [f"| `{c:02b}` | {a} | {b} |" for c, a, b in OPCODES]
    o += ["", "## BAR_CFG parent codes (Table 1) and link directions", "",
          "| direction d | link | parent code |", "| --- | --- | --- |"]
    o += [f"| {d} | {n} | `{p:04b}` |" for d, n, p in DIRS]
    o += [f"| - | this node is the root | `{P_ROOT:04b}` |", f"| - | not connected (reset) | `{P_NC:04b}` |",
          "", "## Error causes (ERR bits 7..4)", "", "| cause | name | type (ERR 15..8) | meaning |",
          "| --- | --- | --- | --- |"]
    o += [f"| {c} | {n} | {t} | {m} |" for n, c, t, m in CAUSES]
    o += ["", f"Register-map hash (INFO window MAP_HASH+3): `0x{map_hash():08X}`.", ""]
    return "\n".join(o)


TARGETS = {
    "rtl/besu/besu_regs.vh": gen_vh,
    "host/include/aggnet/besu_regs.hpp": gen_hpp,
    "docs/besu_regmap.md": gen_md,
}

if __name__ == "__main__":
    sys.exit(gentables.main("besugen", __doc__, TARGETS, ROOT))
