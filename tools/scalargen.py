#!/usr/bin/env python3
"""The scalar message engine's register map, written once (seed 003, Pai:
the low-latency scalar send/receive, chapter 6; rtl/scalar/, docs/scalar.md).

The seed gives scsend()/screcv(), their argument structures and the
64-message receive buffer (two words per message: the data word, a halfword
type, a halfword source), but no register map: the map is aggnet's.  From the
tables below we generate:

  rtl/scalar/scalar_regs.vh               Verilog localparams (scalar_engine, aggnet_hub)
  host/include/aggnet/scalar_regs.hpp     C++ constants (aggnet/scalar.hpp, sim/scalar_model.hpp, tests)
  docs/scalar_regmap.md                   the register, field and code tables

`python3 tools/scalargen.py` rewrites the three files; `--check` fails when
a committed file differs (`make lint`).  The map hash (INFO MAP_HASH+5)
covers every table below.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import gentables  # noqa: E402
import linkgen  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
WINDOW = {name: w for name, w, _ in linkgen.WINDOWS}["SCALAR"]

# ---- the registers, per PE (name, addr[11:0], access, meaning) ----------------------
REGS = [
    ("SHAPE",  0x000, "ro", "the engine's size"),
    ("FILL",   0x001, "ro", "messages in this PE's receive buffer (received, not yet taken)"),
    ("CAUSE",  0x002, "ro", "why this PE's last CALL was refused (CAUSE codes below; 0 after an accepted one)"),
    ("STATE",  0x003, "ro", "this PE's operation (STATE codes below)"),
    ("CANCEL", 0x008, "call", "withdraws this PE's operation (a send held for space, a receive waiting for a "
                              "match) or hands over its finished result; answered at once; result: 8 bytes, "
                              "the RESULT fields (WHAT says what there was)"),
    ("SEND",   0x800, "call", "scsend(): one message to PE DEST (address + DEST); operands: 6 bytes, TYPE at "
                              "47..32 and VALUE at 31..0; answered (result: 0 bytes) once the message is in "
                              "DEST's receive buffer; a full buffer holds the CALL until a receive makes room "
                              "or CANCEL withdraws it"),
    ("RECV",   0xC00, "call", "screcv(): the oldest message of this PE's buffer from SRC (or any, ANYSRC) of "
                              "the operand's type (or any, ANYTYPE); operand: 2 bytes, the type; result: 8 "
                              "bytes, the RESULT fields; without BLOCK answered at once (WHAT NONE when "
                              "nothing matches), with BLOCK when a match is there"),
]

# ---- register fields (register, name, lowest bit, width, meaning) --------------------
FIELDS = [
    ("SHAPE", "N",     0, 8, "PEs (1..64)"),
    ("SHAPE", "DEPTH", 8, 8, "messages each PE's receive buffer holds (64: the seed's)"),
    ("FILL",  "COUNT", 0, 8, "0..DEPTH (the seed's sc_count)"),
    ("CAUSE", "CODE",  0, 3, "CAUSE code"),
    ("STATE", "OP",    0, 3, "STATE code"),
]

# ---- the 64-bit result of RECV and CANCEL (name, lowest bit, width, meaning) ---------
RESULT = [
    ("VALUE", 0,  32, "the message's data word (the seed's data_scalar, an int)"),
    ("TYPE",  32, 16, "its type (type_send)"),
    ("SRC",   48, 6,  "the PE that sent it (my_id of the sender)"),
    ("WHAT",  56, 3,  "WHAT code: what the result holds"),
]

# ---- the CALL registers' address parameters (register, name, lowest bit, width, meaning) --
ADDR_FIELDS = [
    ("SEND", "DEST",    0, 6, "the destination PE, 0..N-1 (N or above: refused DEST)"),
    ("RECV", "SRC",     0, 6, "the source PE wanted, 0..N-1 (N or above: refused SOURCE); ignored with ANYSRC"),
    ("RECV", "ANYSRC",  6, 1, "any source (the seed's source -1)"),
    ("RECV", "ANYTYPE", 7, 1, "any type (the seed's type -1); the operand is then ignored"),
    ("RECV", "BLOCK",   8, 1, "wait in the hub until a match is there (0: answer at once, as the seed's screcv())"),
]
# Address bits of each CALL register that must be 0 (another value: no such register)
RESERVED = [("SEND", 0x3C0), ("RECV", 0x200)]

# ---- codes ---------------------------------------------------------------------------
WHAT = [
    ("NONE",      0, "RECV: no matching message (only without BLOCK); CANCEL: nothing was pending"),
    ("MESSAGE",   1, "VALUE, TYPE and SRC hold the message, now taken from the buffer"),
    ("WITHDRAWN", 2, "CANCEL: a send held for space or a waiting receive was withdrawn; nothing sent or taken"),
    ("SENT",      3, "CANCEL: the send had already put its message in the destination's buffer"),
]
CAUSES = [
    ("NONE",   0, "no refusal"),
    ("BUSY",   1, "this PE's previous operation is still pending or its result was not collected (CANCEL ends it)"),
    ("DEST",   2, "SEND to a PE the hub does not have (DEST >= N)"),
    ("SOURCE", 3, "RECV from a PE the hub does not have (SRC >= N without ANYSRC)"),
    ("LEN",    4, "operand bytes other than the register takes (SEND 6, RECV 2)"),
    ("IDLE",   5, "an ask for a result with no operation started"),
]
STATES = [
    ("IDLE",  0, "no operation"),
    ("SEND",  1, "a send waits for space in the destination's buffer (or for its turn)"),
    ("RECV",  2, "a receive waits for a matching message (or for its scan)"),
    ("SENT",  3, "finished: the message is in the destination's buffer"),
    ("MSG",   4, "finished: a message was taken; the result holds it"),
    ("EMPTY", 5, "finished: a receive without BLOCK found no match"),
]
SEND_BYTES, RECV_BYTES, RESULT_BYTES = 6, 2, 8
DEPTH = 64  # the seed's buffer: "A total of 64 scalar messages can be buffered"


def check():
    addrs = [a for _n, a, _acc, _m in REGS]
    assert len(set(addrs)) == len(addrs) and len({n for n, *_ in REGS}) == len(REGS), "REGS: a name or address twice"
    names = {n for n, *_ in REGS}
    for reg in names:
        used = 0
        for r, name, lsb, w, _m in FIELDS:
            assert r in names, "FIELDS: no register " + r
            if r == reg:
                m = ((1 << w) - 1) << lsb
                assert lsb + w <= 32 and not used & m, "FIELDS: %s.%s" % (r, name)
                used |= m
    used = 0
    for name, lsb, w, _m in RESULT:
        m = ((1 << w) - 1) << lsb
        assert lsb + w <= 64 and not used & m, "RESULT: " + name
        used |= m
    calls = {n: a for n, a, acc, _m in REGS if acc == "call"}
    for reg, base in calls.items():
        used = dict(RESERVED).get(reg, 0)
        for r, name, lsb, w, _m in ADDR_FIELDS:
            if r == reg:
                m = ((1 << w) - 1) << lsb
                assert not used & m and not m & base and lsb + w <= 12, "ADDR_FIELDS: %s.%s" % (r, name)
                used |= m
        others = [a for n, a, _acc, _m in REGS if n != reg]
        assert all((a & ~used) != base for a in others), "ADDR_FIELDS: %s overlaps a register" % reg
    for table in (WHAT, CAUSES, STATES):
        assert len({v for _n, v, _m in table}) == len(table) and max(v for _n, v, _m in table) < 8


def map_hash():
    return gentables.map_hash(REGS, FIELDS, RESULT, ADDR_FIELDS, RESERVED, WHAT, CAUSES, STATES,
                              (SEND_BYTES, RECV_BYTES, RESULT_BYTES))


def bits(lsb, w):
    return str(lsb) if w == 1 else "%d..%d" % (lsb + w - 1, lsb)


def consts():
    """(name, value, meaning) of every field's lowest bit and width, and the codes."""
    o = []
    for r, n, lsb, w, m in FIELDS:
        o += [(f"{r}_{n}", lsb, m), (f"{r}_{n}_W", w, "its width")]
    for n, lsb, w, m in RESULT:
        o += [(f"RES_{n}", lsb, "result bit: " + m), (f"RES_{n}_W", w, "its width")]
    for r, n, lsb, w, m in ADDR_FIELDS:
        o += [(f"CA_{r}_{n}", lsb, "address bit: " + m), (f"CA_{r}_{n}_W", w, "its width")]
    for r, mask in RESERVED:
        o.append((f"CA_{r}_RSVD", mask, "address bits that must be 0"))
    for pre, table in (("WHAT", WHAT), ("CAUSE", CAUSES), ("ST", STATES)):
        o += [(f"{pre}_{n}", v, m) for n, v, m in table]
    o += [("SEND_BYTES", SEND_BYTES, "operand bytes of SEND"), ("RECV_BYTES", RECV_BYTES, "operand bytes of RECV"),
          ("RESULT_BYTES", RESULT_BYTES, "result bytes of RECV and CANCEL"),
          ("DEPTH", DEPTH, "the seed's receive buffer depth (messages per PE)")]
    return o


HEAD = "Generated by tools/scalargen.py from its tables; do not edit."
WHATLINE = f"The scalar engine's registers (window {WINDOW}; seed 003 chapter 6; docs/scalar_regmap.md)."


def gen_vh():
    o = [f"// {HEAD}", f"// {WHATLINE}",
         "// SCALAR_R_<REG>: register numbers (addr 11..0); SCALAR_<REG>_<FIELD>: a field's lowest bit",
         "// (_W its width); SCALAR_RES_*: the 64-bit result; SCALAR_CA_*: CALL address fields."]
    for n, a, acc, m in REGS:
        o.append(f"localparam [11:0] SCALAR_R_{n:<6} = 12'h{a:03X};  // {acc}: {m}")
    for n, v, m in consts():
        o.append(f"localparam integer SCALAR_{n} = {v};  // {m}")
    o.append(f"localparam [31:0] SCALAR_MAP_HASH = 32'h{map_hash():08X};  // CRC-32 of the register tables")
    return "\n".join(o) + "\n"


def gen_hpp():
    o = [f"// {HEAD}", f"// {WHATLINE}", "#pragma once", "", "#include <cstdint>", "",
         "namespace aggnet::scalar_regs {", "",
         f"constexpr unsigned WINDOW = {WINDOW};  // tools/linkgen.py WINDOWS: SCALAR", "",
         "// Registers (addr 11..0), one set per PE"]
    o += [f"constexpr uint16_t {n} = 0x{a:03X};  // {acc}: {m}" for n, a, acc, m in REGS]
    o += ["constexpr uint16_t addr(uint16_t reg) { return uint16_t(WINDOW << 12 | reg); }", "",
          "// Fields (_W: width), result bits (RES_), CALL address fields (CA_) and codes"]
    o += [f"constexpr unsigned {n} = {v};  // {m}" for n, v, m in consts()]
    for pre, table in (("what", WHAT), ("cause", CAUSES), ("state", STATES)):
        o += ["", f"inline const char* {pre}_name(unsigned c) {{", "    switch (c) {"]
        o += [f'    case {v}: return "{n}";' for n, v, _m in table]
        o += ['    default: return "?";', "    }", "}"]
    o += ["", f"constexpr uint32_t MAP_HASH = 0x{map_hash():08X};  // CRC-32 of the register tables (INFO MAP_HASH+{WINDOW})",
          "", "}  // namespace aggnet::scalar_regs"]
    return "\n".join(o) + "\n"


def gen_md():
    o = [f"<!-- {HEAD} -->", "# Scalar engine: registers", "",
         "The register map of the scalar message engine (`rtl/scalar/scalar_engine.v`) in bus",
         f"window {WINDOW}. Seed 003 gives `scsend()` and `screcv()` and their structures but no",
         "register map; this one is aggnet's. What it means and how to use it: [scalar.md](scalar.md).", "",
         f"## Registers (address bits 11..0 in window {WINDOW}, per PE)", "",
         "| register | address | access | meaning |", "| --- | --- | --- | --- |"]
    o += [f"| {n} | `0x{a:03X}` | {acc} | {m} |" for n, a, acc, m in REGS]
    o += ["", "Access: ro a READ or WAIT (a write is refused); **call** only a CALL (link rule 8:",
          "one request frame, one RESULT when the engine has finished); any other access to a",
          "call register, a CALL to any other register, and a CALL address with a reserved bit",
          "set is NO_REG. A PE beyond N: NO_REG.", "",
          "## Fields (32-bit registers)", "", "| register | bits | field | meaning |", "| --- | --- | --- | --- |"]
    o += [f"| {r} | {bits(lsb, w)} | {n} | {m} |" for r, n, lsb, w, m in FIELDS]
    o += ["", "## The result (8 bytes, RECV and CANCEL)", "", "| bits | field | meaning |", "| --- | --- | --- |"]
    o += [f"| {bits(lsb, w)} | {n} | {m} |" for n, lsb, w, m in RESULT]
    o += ["", "Bits not listed are 0.", "", "## CALL registers: parameters in the address", "",
          "register = base | field << bit (window offset 11..0); the reserved bits must be 0.", "",
          "| register | address bits | field | meaning |", "| --- | --- | --- | --- |"]
    o += [f"| {r} | {bits(lsb, w)} | {n} | {m} |" for r, n, lsb, w, m in ADDR_FIELDS]
    o += [f"| {r} | `0x{mask:03X}` | reserved | 0 |" for r, mask in RESERVED]
    for title, table in (("WHAT (result bits 58..56)", WHAT), ("CAUSE (why a CALL was refused, ERR REFUSED)", CAUSES),
                         ("STATE", STATES)):
        o += ["", f"## {title}", "", "| code | name | meaning |", "| --- | --- | --- |"]
        o += [f"| {v} | {n} | {m} |" for n, v, m in table]
    o += ["", f"Operand bytes: SEND {SEND_BYTES}, RECV {RECV_BYTES}; result bytes: RECV and CANCEL "
              f"{RESULT_BYTES}, SEND 0. Buffer depth: {DEPTH} messages per PE (parameter DEPTH).", "",
          f"Register-map hash (INFO window MAP_HASH+{WINDOW}): `0x{map_hash():08X}`.", ""]
    return "\n".join(o)


TARGETS = {
    "rtl/scalar/scalar_regs.vh": gen_vh,
    "host/include/aggnet/scalar_regs.hpp": gen_hpp,
    "docs/scalar_regmap.md": gen_md,
}

if __name__ == "__main__":
    sys.exit(gentables.main("scalargen", __doc__, TARGETS, ROOT, before=check))
