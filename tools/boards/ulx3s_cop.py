"""ULX3S configuration ulx3s_cop: fw/ulx3s/top.v's hub with Hall's COP, at 60 MHz.

The same board, pins and constraint file as tools/boards/ulx3s.py (every
fact not set here is that module's); its own top fw/ulx3s_cop/top.v, which
adds the COP (seed 004, issue 23) as engine 4 and runs the hub at the clock
the COP meets beside the rest of the hub (docs/cop.md, "Boards").
"""
from .ulx3s import *  # noqa: F401,F403  (the board's facts, its pins and constraints/ulx3s.lpf)

HARDWARE = "ulx3s"   # the same PCB: flash.py accepts its bridge
TITLE = "Radiona ULX3S (ECP5 LFE5U-85F-6BG381C) with the COP, hub at 60 MHz"
# nextpnr's router without --tmg-ripup: with it, the top with the COP was
# still ripping up after 13 minutes (docs/cop.md, "Boards", has the runs)
PNR_TMG_RIPUP = False
# make bitstreams leaves it out: its synthesis, place and route (about 9
# minutes on the 2-core build machine) would take CI past its time budget
UNPLACED = ("its synthesis, place and route (about 9 minutes) would take CI past its time budget "
            "(docs/cop.md, In the hub, On a board, has its run)")
