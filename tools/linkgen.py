#!/usr/bin/env python3
"""The aggnet link, written once.

These tables are the single source of the link's frame format, opcodes, error
codes, engine windows, HELLO layout and statistics counters (the model is
Hall's COP channel, seed 004 chapter IV: ACK, resend, deadlock timer).  From
them we generate:

  rtl/link/link_defs.vh               Verilog localparams (included by rtl/link/*.v)
  rtl/bus/bus_codes.vh                the engine bus's response codes (LINK_BUS_*),
                                      included by its master and every slot
  rtl/bus/bus_ports.vh                the engine bus's slave port list, the macros
                                      every slot module declares its bus ports with
  host/include/aggnet/link_defs.hpp   C++ constants (libaggnet, tests)
  docs/link.md                        the human specification

`python3 tools/linkgen.py` rewrites the five files; `--check` fails (exit 1)
when a committed file differs from what the tables generate.  `make lint` runs
the check, `make gen` the generator.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import gentables  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent

VERSION = 4  # 2: stale frames answered ERR STALE; a HELLO 1..HELLO_STALE behind is stale
#             3: CALL and RESULT (one request, one reply per collective)
#             4: CRC-32/MPEG-2 instead of CRC-16/CCITT-FALSE (4 CRC bytes)

# ---- framing constants: (name, value, bits, meaning) ------------------------
CONSTS = [
    ("VERSION",      VERSION, 8,  "protocol version carried by the HELLO reply"),
    ("FLAG",         0x7E,   8,  "starts every frame; inside a frame it aborts the frame and starts a new one"),
    ("ESC",          0x7D,   8,  "escape: the next byte is sent XOR ESC_XOR"),
    ("ESC_XOR",      0x20,   8,  "escaped byte = byte XOR ESC_XOR (FLAG -> 7D 5E, ESC -> 7D 5D)"),
    ("HDR_BYTES",    6,      8,  "unstuffed header bytes: pe, op, seq, addr_hi, addr_lo, len"),
    ("CRC_BYTES",    4,      8,  "CRC bytes after the payload, most significant first"),
    ("MAX_PAYLOAD",  8,      8,  "largest len"),
    ("MAX_FRAME",    37,     8,  "longest frame on the wire, stuffed: FLAG, then every one of HDR_BYTES + MAX_PAYLOAD + CRC_BYTES bytes escaped"),
    ("MAX_PE",       63,     8,  "largest PE id (pe byte 0..63)"),
    ("MAX_VALUE_BYTES", 4,   8,  "register values are 1..4 bytes (bus data is 32 bits)"),
    ("CRC_POLY",     0x04C11DB7, 32, "CRC-32/MPEG-2 polynomial (the IEEE 802.3 one), not reflected"),
    ("CRC_INIT",     0xFFFFFFFF, 32, "CRC register before the pe byte"),
    ("CRC_XOROUT",   0x00000000, 32, "nothing is XORed onto the result"),
    ("CRC_CHECK",    0x0376E6E7, 32, "CRC of the 9 ASCII bytes \"123456789\""),
    ("CRC_RESIDUE",  0x00000000, 32, "CRC over pe..payload followed by the four CRC bytes"),
    ("HELLO_CLK_UNIT_HZ", 10000, 32, "the HELLO clock field counts in units of this many Hz"),
    ("HELLO_STALE",  64,     8,  "a HELLO whose seq is 1..HELLO_STALE behind the PE's last seq is stale (a late copy)"),
    ("HELLO_SKIP",   128,    8,  "a host whose HELLO is answered ERR STALE says HELLO again this much further on"),
    ("SIM_BYTE_CYCLES", 1,   8,  "a simulation offers link_port one byte every this many hub cycles, a frame's first byte only while rx_held is low (sim/link_stream.hpp): as fast as the port takes frames"),
    ("SIM_FRAME_GAP",   4,   8,  "and a frame's first byte at least this many cycles after the byte before it: frame_rx raises rx_held for a frame 3 cycles after its last byte"),
]

# ---- frame layout, unstuffed, in wire order: (field, bytes, meaning) --------
FIELDS = [
    ("pe",      "1",     "PE (channel) id 0..63: which PE's registers and sequence state the frame is for"),
    ("op",      "1",     "operation code (table below); replies have bit 7 set"),
    ("seq",     "1",     "sequence number, per PE; a reply carries the seq of the request it answers"),
    ("addr",    "2",     "register address, big-endian: bits 15..12 engine window, bits 11..0 register; a reply echoes the request's"),
    ("len",     "1",     "payload length 0..8"),
    ("payload", "len",   "operands or results, big-endian values"),
    ("crc",     "4",     "CRC-32/MPEG-2 over pe..payload (unstuffed), big-endian"),
]

# ---- operations: (name, code, direction, len rule, payload, answer) ---------
OPS = [
    ("HELLO",   0x01, "host->hub", "0",
     "none",
     "HELLO_R (never a duplicate: resets the PE's sequence state)"),
    ("READ",    0x02, "host->hub", "1",
     "size: bytes to read, 1..4",
     "DATA with `size` bytes, or ERR"),
    ("WRITE",   0x03, "host->hub", "1..4",
     "the value; size = len",
     "ACK, or ERR"),
    ("WAIT",    0x04, "host->hub", "2, 4, 6, 8",
     "mask then value, each size = len/2 bytes",
     "DATA (the register, size bytes) once (reg & mask) == value; ACK first if not satisfied at once; or ERR"),
    ("CALL",    0x05, "host->hub", "0..8",
     "the operands: one big-endian value of len bytes",
     "RESULT once the engine has finished the operation (no ACK first); or ERR"),
    ("ACK",     0x81, "hub->host", "0",
     "none",
     "WRITE done; or the answer to a duplicate of a pending WAIT or CALL (still waiting), and to a WAIT that does not hold at once"),
    ("DATA",    0x82, "hub->host", "1..4",
     "the register value",
     "reply to READ and to a satisfied WAIT"),
    ("RESULT",  0x84, "hub->host", "0..8",
     "the operation's result: one big-endian value of as many bytes as the engine says",
     "reply to a finished CALL"),
    ("HELLO_R", 0x83, "hub->host", "8",
     "HELLO layout below",
     "reply to HELLO"),
    ("ERR",     0x8F, "hub->host", "1",
     "error code",
     "the command was not carried out (codes below)"),
]

# ---- ERR codes: (name, code, meaning) ---------------------------------------
# Codes 1..3 are the engine bus's bus_rsp_err values, passed through unchanged.
ERRS = [
    ("NO_REG",   0x01, "no such register (bus_rsp_err 1)"),
    ("REFUSED",  0x02, "the engine refused the access, e.g. a supervisor-only register or a read-only one written (bus_rsp_err 2)"),
    ("BUS",      0x03, "the engine answered bus_rsp_err 3 (reserved on the bus)"),
    ("BAD_LEN",  0x04, "len does not fit the op (READ len != 1 or size not 1..4; WRITE len not 1..4; WAIT len odd or 0; HELLO len != 0; CALL never)"),
    ("BAD_OP",   0x05, "op is not a host->hub operation"),
    ("STALE",    0x06, "the frame's seq is neither the PE's last seq nor the next (or a HELLO 1..HELLO_STALE behind it): never applied"),
]

# ---- engine bus response codes: (name, code, meaning) ------------------------
BUS_ERRS = [
    ("OK",      0, "done; rdata valid for a read"),
    ("NO_REG",  1, "no such register"),
    ("REFUSED", 2, "refused (privilege, read-only, ...)"),
    ("PENDING", 3, "a CALL access: the operation has not finished (link_port asks again later); any other access: reserved, the link reports ERR BUS"),
]

# ---- the engine register bus, as its master (link_port) sees it --------------
# (dir, bits, name, meaning).  The slaves, every engine slot, declare the same
# ports the other way round (rtl/bus/bus_ports.vh).
BUS_PORTS = [
    ("output", 1,  "bus_req_valid", "a request is offered"),
    ("input",  1,  "bus_req_ready", "the engine takes it (valid && ready)"),
    ("output", 1,  "bus_req_we",    "1 write, 0 read"),
    ("output", 6,  "bus_req_pe",    "PE the access is made for (engines with per-PE registers use it)"),
    ("output", 16, "bus_req_addr",  "window (15..12) and register (11..0)"),
    ("output", 32, "bus_req_wdata", "write value, right-aligned, zero above size bytes"),
    ("output", 3,  "bus_req_size",  "bytes, 1..4 (never 0 or > 4)"),
    ("input",  1,  "bus_rsp_valid", "the response, one per accepted request, in order, any later cycle"),
    ("input",  32, "bus_rsp_rdata", "read value, right-aligned (bytes above size are ignored)"),
    ("input",  2,  "bus_rsp_err",   "0 ok, 1 no such register, 2 refused, 3 reserved (a CALL access: pending)"),
]
# the five more of a slot that takes CALLs ("call": true in its manifest's slot)
BUS_CALL_PORTS = [
    ("output", 1,  "bus_req_call",     "the access is a CALL's: a write starts the operation, a read asks for its result"),
    ("output", 32, "bus_req_wdata_hi", "operand bits 63..32 of a CALL start (bus_req_wdata has 31..0)"),
    ("output", 4,  "bus_req_len",      "operand bytes of a CALL start, 0..8 (bus_req_size is 4 for a CALL access)"),
    ("input",  32, "bus_rsp_rdata_hi", "result bits 63..32 of a finished CALL (bus_rsp_rdata has 31..0)"),
    ("input",  4,  "bus_rsp_len",      "result bytes of a finished CALL, 0..8: the RESULT frame's len"),
]

# ---- engine windows (addr bits 15..12): (name, id, meaning) ------------------
WINDOWS = [
    ("INFO",   0, "hub information and link statistics (hub top)"),
    ("PAPERS", 1, "PAPERS unit (seed 000)"),
    ("NAND",   2, "NAND aggregate trees (seed 002)"),
    ("BESU",   3, "BESU barrier/eureka units (seed 001)"),
    ("COP",    4, "Hall's coordination processor (seed 004)"),
    ("SCALAR", 5, "scalar messages (seed 003)"),
    ("SCRATCH", 15, "scratch registers, a test-only engine (rtl/scratch)"),
]

# ---- the INFO window (window 0), read-only 32-bit registers of the hub top ---
# (name, register, meaning).  Registers REG+i of a block are its i-th entry.
INFO = [
    ("MAGIC",     0x000, "0x41474E54, ASCII \"AGNT\": this is an aggnet hub"),
    ("VERSION",   0x001, "link protocol version (VERSION)"),
    ("HUB_PES",   0x002, "PEs the hub was built with"),
    ("ENGINES",   0x003, "bit w set: engine window w is present (as in HELLO_R)"),
    ("CLK_KHZ",   0x004, "hub clock in kHz"),
    ("CYCLE_LO",  0x005, "free-running hub clock cycle counter, bits 31..0"),
    ("CYCLE_HI",  0x006, "the same counter, bits 63..32, latched when CYCLE_LO is read"),
    ("MUX_STREAMS", 0x007, "streams of the link multiplexer (docs/link_mux.md) in front of the link port; 0: none, one byte stream"),
    ("MUX_ABSENT", 0x008, "bit k set: mux stream k is absent (silent past the keep-alive bound; its PE counts as unplugged); 0 without a mux"),
    ("MUX_CNT_W", 0x009, "width in bits of the mux's counters (MUX_COUNT wraps at 2^MUX_CNT_W); 0 without a mux"),
    ("MUX_USB_ANY", 0x00A, "1: the mux's USB stream (the last) may speak for any PE; 0: only for PEs no header stream owns; 0 without a mux"),
    ("MAP_HASH",  0x010, "MAP_HASH+w: hash of engine window w's register map (0 if absent); a host built with another map refuses the hub"),
    ("STAT",      0x020, "STAT+i: link statistics counter i (table below), 16 bits"),
    ("MUX_COUNT", 0x200, "MUX_COUNT+8k+i: mux stream k's counter i (MUX_COUNTERS below), wrapping at its width (MUX_CNT_W of the hub); NO_REG for k >= MUX_STREAMS"),
]

# ---- link_mux's per-stream counters (docs/link_mux.md): (name, i, meaning) --
MUX_COUNTERS = [
    ("FRAMES",  0, "whole frames forwarded to the link port"),
    ("BIND",    1, "whole frames naming a PE the stream may not speak for (dropped)"),
    ("OVERRUN", 2, "partial frames dropped because the stream's input buffer was full"),
    ("TXDROP",  3, "reply frames for the stream dropped (stream absent, or no room for a whole frame)"),
    ("PARTIAL", 4, "partial frames dropped before the link port (cut by a FLAG, or len > 8)"),
]
INFO_MAGIC = 0x41474E54

# ---- HELLO_R payload: (name, offset, bytes, meaning) --------------------------
HELLO = [
    ("VERSION",  0, 1, "protocol version (VERSION)"),
    ("HUB_PES",  1, 1, "PEs the hub was built with"),
    ("FIRST_PE", 2, 1, "first PE id this link port serves"),
    ("PORT_PES", 3, 1, "PEs this link port serves (FIRST_PE .. FIRST_PE+PORT_PES-1)"),
    ("ENGINES",  4, 2, "bit w set: engine window w is present"),
    ("CLK",      6, 2, "hub clock in units of 10 kHz (HELLO_CLK_UNIT_HZ)"),
]
HELLO_LEN = 8

# ---- statistics counters of link_port (output stats[16*i +: 16]) --------------
STATS = [
    ("FRAMES_OK",  0, "frames with a good CRC delivered by frame_rx"),
    ("CRC_ERR",    1, "complete frames whose CRC failed (dropped)"),
    ("RESYNC",     2, "partial frames aborted by a FLAG (resynchronisation)"),
    ("BAD_LEN",    3, "frames dropped because len > 8"),
    ("TIMEOUT",    4, "partial frames dropped by the inter-byte timeout"),
    ("OVERRUN",    5, "good frames dropped because the previous one was not yet taken"),
    ("BAD_PE",     6, "good frames for a PE this port does not serve (dropped)"),
    ("DUP",        7, "duplicates (seq equal to the PE's last: answered again) and stale frames (any seq but last + 1: dropped); never re-applied"),
    ("UART_FERR",  8, "UART framing errors (stop bit low) reported by the byte source"),
]
STAT_BITS = 16

BAUDS = [3_000_000, 12_000_000]


def frame_bytes(payload):
    return 1 + 6 + payload + 4


def c_ident(s):
    return s.upper()


# =============================================================================
def gen_vh():
    out = [
        "// Generated by tools/linkgen.py from its tables; do not edit.",
        "// The aggnet link (docs/link.md): framing, ops, error codes, windows,",
        "// HELLO layout and statistics counter indices.",
    ]
    for n, v, bits, meaning in CONSTS:
        out.append(f"localparam [{bits-1}:0] LINK_{n} = {bits}'h{v:0{(bits+3)//4}X};  // {meaning}")
    out.append("// ops")
    for n, code, d, *_ in OPS:
        out.append(f"localparam [7:0] LINK_OP_{n} = 8'h{code:02X};  // {d}")
    out.append("// ERR payload codes")
    for n, code, meaning in ERRS:
        out.append(f"localparam [7:0] LINK_ERR_{n} = 8'h{code:02X};  // {meaning}")
    out.append("// (the engine bus's response codes, LINK_BUS_*, are in rtl/bus/bus_codes.vh)")
    out.append("// engine windows: addr[15:12]")
    for n, w, meaning in WINDOWS:
        out.append(f"localparam [3:0] LINK_WIN_{n} = 4'd{w};  // {meaning}")
    out.append("// INFO window registers (window LINK_WIN_INFO)")
    for n, reg, meaning in INFO:
        out.append(f"localparam [11:0] LINK_INFO_{n} = 12'h{reg:03X};  // {meaning}")
    out.append(f"localparam [31:0] LINK_INFO_MAGIC_VALUE = 32'h{INFO_MAGIC:08X};")
    out.append("// HELLO_R payload byte offsets")
    for n, off, nb, meaning in HELLO:
        out.append(f"localparam integer LINK_HELLO_{n} = {off};  // {nb} byte(s): {meaning}")
    out.append(f"localparam integer LINK_HELLO_LEN = {HELLO_LEN};")
    out.append("// statistics counters: stats[LINK_STAT_BITS*i +: LINK_STAT_BITS]")
    for n, i, meaning in STATS:
        out.append(f"localparam integer LINK_STAT_{n} = {i};  // {meaning}")
    out.append(f"localparam integer LINK_STAT_COUNT = {len(STATS)};")
    out.append(f"localparam integer LINK_STAT_BITS = {STAT_BITS};")
    out.append("// link_mux's counters of a stream: counts[(5*k + i)*CNT_W +: CNT_W]")
    for n, i, meaning in MUX_COUNTERS:
        out.append(f"localparam integer LINK_MUX_{n} = {i};  // {meaning}")
    out.append(f"localparam integer LINK_MUX_COUNTERS = {len(MUX_COUNTERS)};")
    return "\n".join(out) + "\n"


def gen_bus_codes():
    out = [
        "// Generated by tools/linkgen.py from its tables; do not edit.",
        "// The engine register bus's response codes (bus_rsp_err; docs/link.md,",
        "// \"The engine register bus\"): include inside the module, in link_port",
        "// (the master), the hub top and every engine that answers on the bus.",
    ]
    for n, code, meaning in BUS_ERRS:
        out.append(f"localparam [1:0] LINK_BUS_{n} = 2'd{code};  // {meaning}")
    return "\n".join(out) + "\n"


def bus_range(bits):
    return "[%d:0]" % (bits - 1) if bits > 1 else ""


def bus_port_lines(ports):
    """The port table as docs/link.md prints it (the master's side)."""
    wn = max(len(n) for _, _, n, _ in BUS_PORTS + BUS_CALL_PORTS)
    return ["%-6s %-6s %-*s %s" % (d, bus_range(b), wn, n, m) for d, b, n, m in ports]


def bus_slave_macro(name, ports):
    """A macro of Verilog-2001 port declarations, the slave's side (no comma after the last)."""
    flip = {"output": "input ", "input": "output"}
    decl = ["    %s wire %-6s %s" % (flip[d], bus_range(b), n) for d, b, n, _ in ports]
    return ["`define %s \\" % name] + [x + (", \\" if i + 1 < len(decl) else "") for i, x in enumerate(decl)]


def bus_free_macro(name, ports):
    """The request fields (the master's outputs) as a formal harness's free inputs."""
    decl = ["    input  wire %-6s %s" % (bus_range(b), n) for d, b, n, _ in ports if d == "output"]
    return ["`define %s \\" % name] + [x + (", \\" if i + 1 < len(decl) else "") for i, x in enumerate(decl)]


def bus_bind_macro(name, ports):
    """Named connections of the bus ports to wires of the same names."""
    conn = [".%s(%s)" % (n, n) for _, _, n, _ in ports]
    rows = [", ".join(conn[i:i + 3]) for i in range(0, len(conn), 3)]
    return ["`define %s \\" % name] + ["    " + r + (", \\" if i + 1 < len(rows) else "") for i, r in enumerate(rows)]


def gen_bus_ports():
    out = [
        "// Generated by tools/linkgen.py from its tables; do not edit.",
        "// The engine register bus's slave ports (docs/link.md, \"The engine register",
        "// bus\"): every engine slot declares its bus with these macros, so the port",
        "// list is written once.  Include this file before the module; in its ANSI",
        "// port list, after clk and rst:",
        "//     `AGGNET_BUS_SLAVE,        every slot",
        "//     `AGGNET_BUS_CALL_SLAVE,   a slot whose manifest says \"call\": true",
        "// (a comma after each unless it is the list's last item).  A formal harness",
        "// that drives a slot takes the request fields as free inputs with",
        "// `AGGNET_BUS_REQ_FREE and `AGGNET_BUS_CALL_REQ_FREE, and connects the slot",
        "// to wires of the ports' names with `AGGNET_BUS_BIND and",
        "// `AGGNET_BUS_CALL_BIND.  The ports, as",
        "// the master, link_port, sees them (a slave's are the other way round):",
        "//",
    ]
    out += ["//   " + x for x in bus_port_lines(BUS_PORTS)]
    out += ["//   CALL:"]
    out += ["//   " + x for x in bus_port_lines(BUS_CALL_PORTS)]
    out += ["`ifndef AGGNET_BUS_PORTS_VH", "`define AGGNET_BUS_PORTS_VH"]
    out += bus_slave_macro("AGGNET_BUS_SLAVE", BUS_PORTS)
    out += bus_slave_macro("AGGNET_BUS_CALL_SLAVE", BUS_CALL_PORTS)
    out += bus_free_macro("AGGNET_BUS_REQ_FREE", BUS_PORTS)
    out += bus_free_macro("AGGNET_BUS_CALL_REQ_FREE", BUS_CALL_PORTS)
    out += bus_bind_macro("AGGNET_BUS_BIND", BUS_PORTS)
    out += bus_bind_macro("AGGNET_BUS_CALL_BIND", BUS_CALL_PORTS)
    out += ["`endif"]
    return "\n".join(out) + "\n"


def gen_hpp():
    out = [
        "// Generated by tools/linkgen.py from its tables; do not edit.",
        "// The aggnet link (docs/link.md): framing, ops, error codes, windows,",
        "// HELLO layout and statistics counter indices.",
        "#pragma once",
        "#include <cstdint>",
        "",
        "namespace aggnet::link_defs {",
        "",
    ]
    for n, v, bits, meaning in CONSTS:
        t = "uint8_t" if bits <= 8 else ("uint16_t" if bits <= 16 else "uint32_t")
        out.append(f"constexpr {t} {n} = 0x{v:0{(bits+3)//4}X};  // {meaning}")
    out += ["", "// ops"]
    for n, code, d, *_ in OPS:
        out.append(f"constexpr uint8_t OP_{n} = 0x{code:02X};  // {d}")
    out += ["", "// ERR payload codes"]
    for n, code, meaning in ERRS:
        out.append(f"constexpr uint8_t ERR_{n} = 0x{code:02X};  // {meaning}")
    out += ["", "// engine bus response codes (bus_rsp_err)"]
    for n, code, meaning in BUS_ERRS:
        out.append(f"constexpr uint8_t BUS_{n} = {code};  // {meaning}")
    out += ["", "// engine windows: addr bits 15..12"]
    for n, w, meaning in WINDOWS:
        out.append(f"constexpr uint8_t WIN_{n} = {w};  // {meaning}")
    out += ["// every window by name (a hub's engine <name> is built in with its EN_<name>)",
            "struct Window {", "    const char* name;", "    uint8_t win;", "};",
            "constexpr Window WINDOWS[] = {" + ", ".join(f'{{"{n}", {w}}}' for n, w, _ in WINDOWS) + "};"]
    out += ["", "// INFO window registers (window WIN_INFO)"]
    for n, reg, meaning in INFO:
        out.append(f"constexpr uint16_t INFO_{n} = 0x{reg:03X};  // {meaning}")
    out.append(f"constexpr uint32_t INFO_MAGIC_VALUE = 0x{INFO_MAGIC:08X};")
    out += ["", "// HELLO_R payload byte offsets"]
    for n, off, nb, meaning in HELLO:
        out.append(f"constexpr unsigned HELLO_{n} = {off};  // {nb} byte(s): {meaning}")
    out.append(f"constexpr unsigned HELLO_LEN = {HELLO_LEN};")
    out += ["", "// statistics counters of link_port"]
    for n, i, meaning in STATS:
        out.append(f"constexpr unsigned STAT_{n} = {i};  // {meaning}")
    out.append(f"constexpr unsigned STAT_COUNT = {len(STATS)};")
    out.append(f"constexpr unsigned STAT_BITS = {STAT_BITS};")
    out += ["", "// link_mux's counters of a stream (INFO MUX_COUNT + 8k + i)"]
    for n, i, meaning in MUX_COUNTERS:
        out.append(f"constexpr unsigned MUX_{n} = {i};  // {meaning}")
    out.append(f"constexpr unsigned MUX_COUNTERS = {len(MUX_COUNTERS)};")
    def name_fn(doc, decl, cases):
        """A C++ switch from codes to names: `cases` is [(case label, name)]."""
        return (["/// " + doc, "inline const char* %s {" % decl, "    switch (%s) {" % decl.split()[-1].rstrip(")")]
                + ["    case %s: return \"%s\";" % c for c in cases]
                + ["    default: return nullptr;", "    }", "}"])
    out.append("")
    out += name_fn("Name of an op code, or nullptr (messages print \"op 0x12\" then).", "op_name(uint8_t op)",
                   [("0x%02X" % code, n) for n, code, *_ in OPS])
    out += name_fn("Name of an ERR code, or nullptr.", "err_name(uint8_t code)",
                   [("0x%02X" % code, n) for n, code, _ in ERRS])
    out += name_fn("Name of a statistics counter, or nullptr.", "stat_name(unsigned i)",
                   [(str(i), n) for n, i, _ in STATS])
    out += name_fn("Name of a stream counter of link_mux, or nullptr.", "mux_name(unsigned i)",
                   [(str(i), n) for n, i, _ in MUX_COUNTERS])
    out += name_fn("Lower-case name of an engine window (\"papers\"), or nullptr.", "win_name(unsigned w)",
                   [(str(w), n.lower()) for n, w, _ in WINDOWS])
    out += [
            "/// Unstuffed bytes of a frame with `len` payload bytes, FLAG included.",
            "constexpr unsigned frame_bytes(unsigned len) { return 1 + HDR_BYTES + len + CRC_BYTES; }",
            "",
            "}  // namespace aggnet::link_defs"]
    return "\n".join(out) + "\n"


def timing_rows():
    rows = []
    cases = [
        ("READ request (1-byte size)", 1), ("WRITE 1 byte", 1), ("WRITE 4 bytes", 4),
        ("WAIT 1-byte mask+value", 2), ("WAIT 4-byte mask+value", 8),
        ("CALL 1-byte operand", 1), ("CALL 8-byte operand", 8),
        ("ACK", 0), ("DATA 1 byte", 1), ("DATA 4 bytes", 4), ("RESULT 1 byte", 1), ("RESULT 8 bytes", 8),
        ("ERR", 1), ("HELLO_R", 8),
    ]
    for what, plen in cases:
        nb = frame_bytes(plen)
        worst = nb + (nb - 1)  # every byte after FLAG escaped
        us = ["%.2f" % (nb * 10 / b * 1e6) for b in BAUDS]
        rows.append(f"| {what} | {plen} | {nb} | {worst} | " + " | ".join(us) + " |")
    return rows


def gen_md():
    o = []
    a = o.append
    a("<!-- Generated by tools/linkgen.py from its tables; do not edit. -->")
    a("# The aggnet link")
    a("")
    a("One byte stream carries register reads, writes and waits between a host and")
    a("a hub's link port: a board's USB UART shared by every PE, one UART per PE on")
    a("header pins, or the virtual hub's socket. The model is the COP channel of")
    a("Hall's dissertation (seed 004, chapter IV, *The Compute Node To COP Network")
    a("Interface* and *The COP to COP Network Interface*): the node keeps a command")
    a("until the COP acknowledges it, resends it when the link reports an error,")
    a("and traps to the operating system after some number of failed attempts; a")
    a("deadlock timer catches a command that is never answered.")
    a("")
    a("Departures from the seed: Hall's Spanceiver flags a bad word and the COP")
    a("asks for a resend; a UART has no such flag, so here a corrupted frame is")
    a("dropped (and counted) and the host's timer resends it. Hall's deadlock timer")
    a("and resend counter are the host's resend timeout and retry bound. A frame")
    a("carries a PE id so several PEs can share one byte stream, and a sequence")
    a("number so that a resend is never applied twice.")
    a("")
    a("Everything below is generated from the tables in `tools/linkgen.py`, which")
    a("also generate `rtl/link/link_defs.vh`, `host/include/aggnet/link_defs.hpp`")
    a("and the engine bus's `rtl/bus/bus_codes.vh` and `rtl/bus/bus_ports.vh`;")
    a("`make lint` fails if any of them drifts.")
    a("")
    a(f"Protocol version: **{VERSION}**.")
    a("")
    a("## Framing")
    a("")
    a("HDLC-like byte stuffing. Every frame starts with FLAG `0x7E`. Inside a frame,")
    a("a FLAG or ESC (`0x7D`) byte is sent as ESC followed by the byte XOR `0x20`")
    a("(`7E` -> `7D 5E`, `7D` -> `7D 5D`); the receiver XORs any byte after an ESC")
    a("with `0x20`. There is no closing flag: the frame ends when `len` says so.")
    a("")
    a("Resynchronisation: a FLAG anywhere aborts a partial frame and starts a new")
    a("one, so after garbage or a lost byte the next frame is received whole (its")
    a("FLAG is never escaped). A receiver outside a frame (hunting) ignores every")
    a("byte but FLAG. A frame is dropped when its `len` exceeds 8 (the receiver")
    a("then hunts for the next FLAG), when its CRC fails, or when no byte arrives")
    a("for the receiver's inter-byte timeout (`IDLE_CYCLES` of `frame_rx`; 1 ms in")
    a("`link_uart`). Two FLAGs in a row are harmless; a host may send an extra")
    a("FLAG before a frame to end any partial frame at once.")
    a("")
    a("| field | bytes | meaning |")
    a("| --- | --- | --- |")
    for n, b, m in FIELDS:
        a(f"| {n} | {b} | {m} |")
    a("")
    a("CRC: **CRC-32/MPEG-2**: polynomial `0x04C11DB7` (the IEEE 802.3 one),")
    a("initial value `0xFFFFFFFF`, no reflection of input or output, no final XOR.")
    a("Check value: the CRC of the ASCII bytes `123456789` is **`0x0376E6E7`**")
    a("(the CRC catalogue's CRC-32/MPEG-2 entry). It covers the unstuffed bytes")
    a("from `pe` through the payload; the CRC follows, most significant byte first,")
    a("so the CRC run over the whole unstuffed frame (FLAG excluded) ends at")
    a("`0x00000000`, which is how `frame_rx` checks it. Further vectors (tested in")
    a("`tests/test_link_crc.cpp`): empty input `0xFFFFFFFF`; `00` `0x4E08BFB4`;")
    a("`FF` `0xFFFFFF00`; `A` (`41`) `0x7E4FD274`; 256 bytes `00..FF` `0x494A116A`.")
    a("")
    a("Why 32 bits (version 4; versions 1-3 had CRC-16/CCITT-FALSE): byte stuffing")
    a("turns one flipped bit into a slip. An ESC hit by the flip stops being an")
    a("escape, or a byte hit by it becomes one (or a FLAG that starts a frame in the")
    a("middle of another), and every byte after it moves by one place, so the")
    a("receiver checks the CRC against bytes that are not the CRC: a random match,")
    a("1 in 2^16 for a 16-bit CRC. With CRC-16, 15 of 33 million frames damaged the")
    a("way the link tests damage them came out as other frames, and one fresh seed")
    a("of `test_link_port` (about 3 * 10^4 damaged frames) took a wrong CALL result")
    a("for a right one. A 32-bit CRC makes a slip's chance 1 in 2^32, for 2 more")
    a("bytes a frame. `tests/test_link_frame.cpp` (\"one-bit errors, slips")
    a("included\") makes 2 * 10^6 slips a run and fails if any comes out as a")
    a("frame; with CRC-16 it failed (12 and 18 such frames in two seeds).")
    a("")
    a("A board still running a bitstream of versions 1-3 answers in frames this")
    a("version cannot check, so nothing it sends is taken. libaggnet's decoder")
    a("recognises them (whole frames with 2 bytes of CRC-16 where 4 were due:")
    a("`DecoderStats::legacy`), and the `LinkError` of a command that got no")
    a("answer then says the hub speaks an older link and should be rebuilt.")
    a("")
    a("## Operations")
    a("")
    a("| op | code | direction | len | payload | answer |")
    a("| --- | --- | --- | --- | --- | --- |")
    for n, c, d, l, p, ans in OPS:
        a(f"| {n} | `0x{c:02X}` | {d} | {l} | {p} | {ans} |")
    a("")
    a("Values are big-endian and right-aligned on the engine bus: a WRITE of")
    a("`12 34` puts `0x00001234` on `bus_req_wdata` with `bus_req_size` = 2. A")
    a("DATA reply carries the low `size` bytes of `bus_rsp_rdata`. A WAIT of size")
    a("`s` compares the low `s` bytes: the hub re-reads the register until")
    a("`(rdata & mask) == value`.")
    a("")
    a("A reply carries the request's `pe`, `seq` and `addr`.")
    a("")
    a("### HELLO_R payload")
    a("")
    a("| offset | bytes | field | meaning |")
    a("| --- | --- | --- | --- |")
    for n, off, nb, m in HELLO:
        a(f"| {off} | {nb} | {n} | {m} |")
    a("")
    a("Further hub information (engine register-map hashes, build id) belongs in")
    a("registers of the INFO window, read with READ.")
    a("")
    a("### ERR codes")
    a("")
    a("| code | name | meaning |")
    a("| --- | --- | --- |")
    for n, c, m in ERRS:
        a(f"| `0x{c:02X}` | {n} | {m} |")
    a("")
    a("Frames the hub does not answer at all (dropped and counted, the host's")
    a("resend timer covers them): a failed CRC, `len` > 8, an inter-byte timeout,")
    a("a PE id outside the port's range (HELLO_R says which PEs a port serves, so")
    a("a host refuses such a PE itself), and a good frame arriving while the")
    a("previous one has not been taken (overrun).")
    a("")
    a("## Exactly once, in order")
    a("")
    a("Stop-and-wait per PE, over a byte stream that may lose, corrupt,")
    a("duplicate or delay frames (a UART or a stream socket does not reorder;")
    a("the virtual hub's fault injector does, on purpose):")
    a("")
    a("1. The host has at most one command outstanding per PE. It starts a PE")
    a("   with HELLO and then numbers each new command seq + 1 (mod 256).")
    a("2. Per PE the hub keeps the last accepted seq, the reply to it, and a")
    a("   pending WAIT. HELLO has no side effects; it is carried out and makes")
    a("   its seq the PE's last seq, so a restarted host cannot be mistaken for")
    a("   a duplicate -- unless its seq is 1..HELLO_STALE (64) behind the PE's")
    a("   last seq. Such a HELLO is a late copy of one the PE has since moved")
    a("   past (a resent HELLO that the link delayed behind the first command")
    a("   after it): it is stale (rule 4). Carried out, it would turn the PE's")
    a("   next command stale and let late copies of the commands after it")
    a("   apply a second time. A host whose own HELLO is answered ERR STALE (a")
    a("   restarted host whose seq happens to fall in that window) says HELLO")
    a("   again HELLO_SKIP (128) further on, which is outside it.")
    a("3. Another op whose seq equals the PE's last seq is a **duplicate**: it is")
    a("   never applied again. If that command is finished the hub sends its")
    a("   stored reply again; if it is a pending WAIT the hub sends ACK again")
    a("   (\"still waiting\") and keeps waiting.")
    a("4. A seq of last seq + 1 (mod 256) is a new command. Any other seq is")
    a("   **stale** -- a frame the link delayed past its resend and the reply to")
    a("   it. It is never applied and leaves the PE's state alone; the hub")
    a("   answers it ERR STALE (from a one-frame side slot: a stale frame that")
    a("   finds the slot busy goes unanswered) and counts it with the")
    a("   duplicates. The host ignores an ERR STALE for an older seq; for its")
    a("   outstanding command it means the hub's sequence state is not the")
    a("   host's (a late HELLO copy, a hub reset, another program on the same")
    a("   PE): the command was not applied, so the host says HELLO and sends it")
    a("   again, at most LinkConfig::max_stale times before it fails the call.")
    a("   A PE that has not said HELLO since reset takes any seq as new.")
    a("   If the PE had a WAIT pending when a new command comes, the WAIT")
    a("   is **cancelled silently**: no reply is ever sent for it (the host only")
    a("   sends a new seq after it has given up on the old one, so a reply would")
    a("   only be discarded as stale).")
    a("5. WAIT: the hub reads the register at once. If the condition holds, the")
    a("   answer is DATA; if not, the hub sends ACK (accepted, pending) and")
    a("   re-reads the register over the engine bus, round-robin among the PEs")
    a("   with pending WAITs (one re-read each in turn, so a WAIT that never")
    a("   holds delays no other PE's by more than one round), until it holds,")
    a("   then sends DATA. An engine therefore needs no event wiring: any")
    a("   register can be waited on.")
    a("6. The host resends the same frame (same seq) when no reply arrives")
    a("   within its resend timeout, and fails the call with a link error naming")
    a("   the device, PE, op and address after a bounded number of attempts.")
    a("   Optionally (`LinkConfig::resend_timeout_max`) each unanswered resend")
    a("   doubles the wait before the next, up to that bound, and any reply")
    a("   starts again at the resend timeout: several PEs then do not flood a hub")
    a("   that is slow for a while (the virtual hub on a loaded host) with")
    a("   resends it must answer one by one. `give_up_time()` is the worst case.")
    a("   While a WAIT is pending the host keeps resending it as a keep-alive:")
    a("   each resend is answered by ACK, which shows the link is up, and brings")
    a("   back a DATA reply that was lost. The WAIT's own deadline is the")
    a("   caller's; when it passes the call fails with a timeout (not a link")
    a("   error) and the next command cancels the WAIT in the hub.")
    a("7. The host ignores a reply whose seq is not the PE's outstanding one, or")
    a("   whose op does not answer the outstanding op (stale or duplicate).")
    a("8. CALL: one request frame and one reply frame per operation. The hub")
    a("   hands the operands to the engine at once (a CALL start on the bus,")
    a("   below). If the engine has finished, the answer is RESULT; if not, the")
    a("   hub sends **nothing yet** (unlike WAIT, no ACK) and asks the engine")
    a("   again, round-robin with the pending WAITs, until it has finished, then")
    a("   sends RESULT (or ERR, with the engine's code). Rules 3, 4 and 6 hold")
    a("   as for WAIT: a duplicate of a pending CALL is answered ACK (still")
    a("   running), so the host's resend is the keep-alive, and a duplicate of a")
    a("   finished one gets the stored RESULT again; the operation is applied")
    a("   once. The host should resend a CALL later than a plain command (it")
    a("   waits for other PEs by design); `LinkConfig::resend_timeout` is the")
    a("   keep-alive period. A new command for the PE makes the hub forget a")
    a("   pending CALL (no reply, no further asks), but the **engine does not")
    a("   forget it**: an operation that is half done (a barrier's S raised)")
    a("   stays so until the engine finishes it or the host cancels it through")
    a("   the engine's own cancel operation (every CALL engine has one, itself")
    a("   a CALL, whose RESULT says whether the operation had finished).")
    a("")
    a("Why this is exactly once: the hub applies a command only when its seq")
    a("is the PE's last seq + 1, and records it before it handles the next")
    a("frame; the host never sends seq + 1 before it has the reply to seq, so")
    a("once seq + 1 is applied every copy of seq (or older) is stale. A frame")
    a("delayed by 255 or more newer commands (a HELLO: by more than")
    a("HELLO_STALE) would wrap around; the links")
    a("delay frames by milliseconds, a command takes at least one round trip.")
    a("The 8-bit seq is more than stop-and-wait needs (one bit would do); it makes")
    a("traces readable and catches a host that skips numbers.")
    a("")
    a("## The engine register bus (link_port is its master)")
    a("")
    a("```")
    o.extend(bus_port_lines(BUS_PORTS))
    a("```")
    a("")
    a("An engine that takes CALLs says `\"call\": true` in its manifest's slot and")
    a("gets five more ports (an engine without them pays nothing):")
    a("")
    a("```")
    o.extend(bus_port_lines(BUS_CALL_PORTS))
    a("```")
    a("")
    a("Every engine slot declares these ports, the slave's way round, with the")
    a("macros of the generated `rtl/bus/bus_ports.vh` (`AGGNET_BUS_SLAVE`, and")
    a("`AGGNET_BUS_CALL_SLAVE` for a slot that takes CALLs), and answers with the")
    a("codes of `rtl/bus/bus_codes.vh` (`LINK_BUS_OK`, `LINK_BUS_NO_REG`,")
    a("`LINK_BUS_REFUSED`, `LINK_BUS_PENDING`), which link_port and the hub top")
    a("include too: the bus is written once, in these tables.")
    a("")
    a("Both CALL accesses, the start (write) and each ask (read), are answered")
    a("`bus_rsp_err` 0 with the result when the operation has finished (the")
    a("engine then forgets it: the result is handed over once), 3 (PENDING)")
    a("while it runs, or 1 / 2 when it is refused. `link_port` asks only for a")
    a("PE whose CALL start it made and whose RESULT it has not yet stored.")
    a("")
    a("Request fields are valid while `bus_req_valid` is high and do not change")
    a("until it is taken. `link_port` has at most one request outstanding, so the")
    a("order is trivial; an engine may answer in the cycle after it takes the")
    a("request or any later one, and must answer every request. A WAIT is a")
    a("sequence of ordinary reads, so a read must not have side effects that a")
    a("waiting PE would notice (or the engine documents them). Privilege (Hall's")
    a("U/S bit) is the engines' business: the link carries none, and an engine")
    a("refuses a supervisor-only access with `bus_rsp_err` = 2.")
    a("")
    a("## Statistics counters")
    a("")
    a(f"`link_port` outputs `stats[{STAT_BITS}*i +: {STAT_BITS}]`, wrapping counters the hub")
    a("top maps into the INFO window:")
    a("")
    a("| i | name | counts |")
    a("| --- | --- | --- |")
    for n, i, m in STATS:
        a(f"| {i} | {n} | {m} |")
    a("")
    a("## Engine windows")
    a("")
    a("| window (addr 15..12) | name | engine |")
    a("| --- | --- | --- |")
    for n, w, m in WINDOWS:
        a(f"| {w} | {n} | {m} |")
    a("")
    a("## The INFO window")
    a("")
    a("Window 0 belongs to the hub top (`rtl/hub/aggnet_hub.v`): read-only 32-bit")
    a("registers any PE may READ (a WRITE is refused with ERR REFUSED, an address")
    a("not listed answers ERR NO_REG).")
    a("")
    a("| register | name | meaning |")
    a("| --- | --- | --- |")
    for n, reg, m in INFO:
        a(f"| `0x{reg:03X}` | {n} | {m} |")
    a("")
    a("A hub with a link multiplexer ([link_mux.md](link_mux.md): one UART per PE on")
    a("the board's header, beside its USB UART) counts per stream k, in MUX_COUNT + 8k + i:")
    a("")
    a("| i | counter | counts |")
    a("| --- | --- | --- |")
    for n, i, m in MUX_COUNTERS:
        a(f"| {i} | {n} | {m} |")
    a("")
    a("## Time on the wire")
    a("")
    a("8N1: 10 bit times per byte. Frame bytes include the FLAG; *worst* is every")
    a("byte after the FLAG escaped (values made of `7E`/`7D` bytes only).")
    a("")
    a("| frame | payload | bytes | worst | µs at 3 Mbaud | µs at 12 Mbaud |")
    a("| --- | --- | --- | --- | --- | --- |")
    o.extend(timing_rows())
    a("")
    wr, ack = frame_bytes(1), frame_bytes(0)
    us = lambda nb, baud: "%.0f" % (nb * 10 / baud * 1e6)
    a(f"So a 1-byte register write and its ACK are {wr} + {ack} bytes: {us(wr + ack, BAUDS[0])} µs of wire")
    a(f"time at 3 Mbaud and {us(wr + ack, BAUDS[1])} µs at 12 Mbaud, before USB latency (0.1-2 ms per")
    a("round trip through a USB serial bridge). A PAPERS barrier over CALL is")
    a(f"one CALL and one RESULT per PE, each at most {frame_bytes(3)} bytes unescaped up to 24")
    a("PEs (a 1-byte operand, a result of one bit per PE).")
    a("")
    a("UART: `uart_rx` needs at least 4 clocks per bit (`CLK_HZ >= 4*BAUD`): 3 Mbaud")
    a("from a 12 MHz clock, 12 Mbaud from 48 MHz. It handles a fractional ratio")
    a("(e.g. 100 MHz / 12 Mbaud) with a phase accumulator, samples mid-bit after")
    a("re-checking the start bit, and flags a low stop bit as a framing error.")
    a("It tolerates a sender at least 2% fast or slow at any legal ratio.")
    a("")
    return "\n".join(o) + "\n"


TARGETS = {
    "rtl/link/link_defs.vh": gen_vh,
    "rtl/bus/bus_codes.vh": gen_bus_codes,
    "rtl/bus/bus_ports.vh": gen_bus_ports,
    "host/include/aggnet/link_defs.hpp": gen_hpp,
    "docs/link.md": gen_md,
}


def crc32(data, crc=0xFFFFFFFF):
    for b in data:
        crc ^= b << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7) & 0xFFFFFFFF if crc & 0x80000000 else (crc << 1) & 0xFFFFFFFF
    return crc


def self_check():
    """The table's CRC claims, checked against a bitwise CRC here."""
    c = {n: v for n, v, *_ in CONSTS}
    assert crc32(b"123456789") == c["CRC_CHECK"], hex(crc32(b"123456789"))
    assert crc32(b"") == 0xFFFFFFFF and crc32(b"\x00") == 0x4E08BFB4 and crc32(b"\xff") == 0xFFFFFF00
    assert crc32(b"A") == 0x7E4FD274 and crc32(bytes(range(256))) == 0x494A116A, hex(crc32(bytes(range(256))))
    msg = b"\x01\x03\x05\x10\x00\x01\x2a"
    k = crc32(msg)
    assert crc32(msg + k.to_bytes(4, "big")) == c["CRC_RESIDUE"]
    assert c["CRC_BYTES"] * 8 == 32
    assert c["MAX_FRAME"] == 1 + 2 * (c["HDR_BYTES"] + c["MAX_PAYLOAD"] + c["CRC_BYTES"])
    assert frame_bytes(1) == 12
    codes = [op[1] for op in OPS]
    assert len(set(codes)) == len(codes)
    assert sum(nb for _, _, nb, _ in HELLO) == HELLO_LEN
    # a HELLO skipped HELLO_SKIP on from a stale one is outside the window
    assert c["HELLO_STALE"] <= c["HELLO_SKIP"] <= 256 - c["HELLO_STALE"]


def main():
    return gentables.main("linkgen", __doc__, TARGETS, ROOT, before=self_check)


if __name__ == "__main__":
    sys.exit(main())
