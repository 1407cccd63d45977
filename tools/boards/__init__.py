"""tools/boards: one module per board, the single place for a board's facts.

A board is its gateware top (fw/<name>/top.v), its constraint file
(constraints/<name>.pcf or .lpf) and one module here, tools/boards/<name>.py.
mk/hw.mk (through tools/board_info.py), tools/synth.py, tools/pincheck.py,
tools/wiring.py and tools/flash.py read the module; nothing else lists boards
(tools/bench_hw.py measures devices, not boards).

Fields of a board module (all required unless marked optional):

  TITLE         board name as a user knows it
  SOURCES       list of strings: where every pin below was transcribed from
                (repository + path + commit, or document + section)
  FAMILY        "ice40" or "ecp5"
  DEVICE        nextpnr device: "hx1k", "hx8k", "up5k" (nextpnr-ice40 --<DEVICE>)
                or "85k" (nextpnr-ecp5 --85k)
  PACKAGE       nextpnr package: "tq144", "ct256", "sg48", "CABGA381"
  PACKAGE_DB    package key of the vendor-tool pin database pincheck reads:
                icebox "8k-ct256" style for iCE40, trellis "LFE5U-85F/CABGA381"
  CONSTRAINTS   path of the constraint file
  OSC_MHZ       the board oscillator (MHz) that feeds the PLL
                (the hub clock itself is the top's `localparam integer HUB_KHZ`,
                which its rtl/common/pll.v instance checks against the divider
                settings; hub_khz() below reads it for the build)
  OPENFPGALOADER  openFPGALoader -b name
  USB           list of (vid, pid, what) of the board's own USB bridge, hex strings
  USB_PRODUCT   optional: substring expected in the USB product string, or None
  FPGA_IDCODE   optional: JTAG IDCODE openFPGALoader --detect must report, or None
  HARDWARE      optional: for a configuration of another board's hardware
                (fw/<name>/top.v on the same PCB, e.g. icebreaker_uart), the
                name of that board's module; tools/flash.py treats the two as
                one device (hardware() below)
                (iCE40 boards are programmed through their SPI flash: no IDCODE)
  HEADERS       {connector: [ball or "-" for positions 1..n]}: what is on each
                header position; "-" is no FPGA ball (power or ground, see POWER)
  POWER         {connector: {position: "GND" | "3V3" | other rail}}
  LABELS        optional: {ball: silkscreen name} for the wiring tables
  NETS          {ball: on-board net name}: every ball that carries an on-board
                function (clock, LED, button, USB UART, flash, radio module),
                whether or not it is also on a header
  USES          [(port regex, net regex, "input" | "output" | "any", why)]:
                the on-board nets the top means to use; a constraint that puts
                a port on a NETS ball must match one entry, direction included
"""
import importlib
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def names():
    """Every board, sorted."""
    return sorted(f[:-3] for f in os.listdir(HERE)
                  if f.endswith(".py") and not f.startswith("_"))


def load(name):
    if name not in names():
        raise KeyError("no board %r (tools/boards/ has: %s)" % (name, " ".join(names())))
    return importlib.import_module("boards." + name)


def hardware(name):
    """The physical board a board module describes: its HARDWARE, else its own name."""
    return getattr(load(name), "HARDWARE", None) or name


def header_balls(board):
    """{ball: "J2-4"} for every ball on a header."""
    out = {}
    for conn, pins in board.HEADERS.items():
        for pos, ball in enumerate(pins, 1):
            if ball != "-":
                out[ball] = "%s-%d" % (conn, pos)
    return out


def top_path(name):
    return os.path.join("fw", name, "top.v")


def hub_khz(name):
    """The hub clock of a board in kHz: `localparam integer HUB_KHZ = n;` in its top."""
    import re
    with open(os.path.join(ROOT, top_path(name))) as f:
        m = re.findall(r"localparam\s+integer\s+HUB_KHZ\s*=\s*(\d+)\s*;", f.read())
    if len(m) != 1:
        raise ValueError("%s must declare `localparam integer HUB_KHZ = <kHz>;` once (found %d)"
                         % (top_path(name), len(m)))
    return int(m[0])
