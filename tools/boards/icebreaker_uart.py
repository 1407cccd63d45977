"""iCEBreaker configuration icebreaker_uart: two PEs on UARTs of their own.

The same board as tools/boards/icebreaker.py (every fact below not set here
is that module's); its own top fw/icebreaker_uart/top.v and constraint file
constraints/icebreaker_uart.pcf (issue 24: one link per PE on the board's
pins).
"""
from .icebreaker import *  # noqa: F401,F403  (the board's facts)
from .icebreaker import SOURCES as _BOARD_SOURCES, USES as _BOARD_USES

HARDWARE = "icebreaker"   # the same PCB: flash.py accepts its bridge
TITLE = "1BitSquared iCEBreaker (iCE40UP5K-SG48), 2 UART PEs on Pmod 1A"
SOURCES = _BOARD_SOURCES + [
    "Pmods 1A and 1B, RX 6, TX 9 cross-checked: icebreaker-fpga/icebreaker-examples, "
    "icebreaker/icebreaker.pcf (commit de9e3f89cf752d48009629c16d932104ff691114)",
]
CONSTRAINTS = "constraints/icebreaker_uart.pcf"
USES = [u for u in _BOARD_USES if not u[0].startswith(r"rgb_n")]
