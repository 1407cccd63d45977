"""ULX3S configuration ulx3s_uart: sixteen PEs on UARTs of their own.

The same board as tools/boards/ulx3s.py (every fact below not set here is
that module's); its own top fw/ulx3s_uart/top.v and constraint file
constraints/ulx3s_uart.lpf (issue 24: one link per PE on the board's pins).
"""
from .ulx3s import *  # noqa: F401,F403  (the board's facts)
from .ulx3s import USES as _BOARD_USES

HARDWARE = "ulx3s"   # the same PCB: flash.py accepts its bridge
TITLE = "Radiona ULX3S (ECP5 LFE5U-85F-6BG381C), 16 UART PEs on GPIO pairs 0-10 and 18-22"
CONSTRAINTS = "constraints/ulx3s_uart.lpf"
# nextpnr's router without --tmg-ripup: with it, this top's routing went on
# for over an hour without settling or ended below 90 MHz; without it, it
# met 90 MHz (the runs and figures: docs/hardware.md, UART PEs)
PNR_TMG_RIPUP = False
# make bitstreams leaves it out: it meets its clock, but narrowly, and its
# place and route would take CI past its time budget
UNPLACED = ("it meets 90 MHz without --tmg-ripup, but by a few percent that moved with small changes, "
            "and its place and route would take CI past its time budget (docs/hardware.md, UART PEs, "
            "has the runs)")
USES = [u for u in _BOARD_USES if not u[0].startswith("led") and not u[0].startswith(r"pe_")] + [
    (r"led\[\d+\]", r"^LED ", "output", "PE k and PE k+8 present"),
]
