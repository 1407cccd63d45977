"""iCE40-HX8K breakout configuration hx8k_uart: eight PEs on UARTs of their own.

The same board as tools/boards/hx8k.py (every fact below not set here is
that module's); its own top fw/hx8k_uart/top.v and constraint file
constraints/hx8k_uart.pcf (issue 24: one link per PE on the board's pins).
"""
from .hx8k import *  # noqa: F401,F403  (the board's facts)
from .hx8k import USES as _BOARD_USES

HARDWARE = "hx8k"   # the same PCB: flash.py accepts its bridge
TITLE = "Lattice iCE40-HX8K breakout board (ICE40HX8K-B-EVN), 8 UART PEs on header J2"
CONSTRAINTS = "constraints/hx8k_uart.pcf"
# Not hx8k's seed: this top has its own netlist, at 88% of the logic cells.
# At bd3a83c (link version 4's CRC-32) seed 1 found no legal placement;
# seeds 2 and 3 placed and met 60 MHz (77.2 and 77.7 MHz).
PNR_SEED = 3
USES = [u for u in _BOARD_USES if not u[0].startswith("led")] + [
    (r"led\[\d+\]", r"^LED ", "output", "PE k present"),
]
