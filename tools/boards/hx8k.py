"""Lattice iCE40-HX8K breakout board (ICE40HX8K-B-EVN), iCE40HX8K-CT256.

Transcribed by hand from the sources below; tools/pincheck.py checks
constraints/hx8k.pcf against this table in `make lint`.
"""

TITLE = "Lattice iCE40-HX8K breakout board (ICE40HX8K-B-EVN)"
# The hx8k top (NAND engine at 90 MHz) sits at the edge of its clock, and
# which placer seeds meet it moves with the netlist: at 3933221 seed 2 met
# 90 MHz in nextpnr but not in icetime (CI failed on it), seed 3 met both and
# seeds 1 and 4 missed (the figures: docs/hardware.md, "Bitstreams", and
# docs/figures/bitstreams.csv); the critical path was the link port's bus
# address through the engine window decode into the NAND sequencer.  With
# CRC-32 in the link seed 3 missed too (84 MHz) until link_port registered
# the window one-hot (bus_req_win, 568f7dd); seed 3 then met 90 MHz with
# about 10% to spare.
PNR_SEED = 3
SOURCES = [
    "headers J1-J4, LEDs, clock, FT2232H UART, SPI flash: amaranth-lang/amaranth-boards, "
    "amaranth_boards/ice40_hx8k_b_evn.py (commit fd2f0df811a8dbcf6aa0b94ac0788dc71ac79e1e)",
    "FT2232H channel B UART: the same file, UARTResource(0, rx=\"B10\", tx=\"B12\", ...) "
    "(rx is the FPGA's input)",
    "LEDs and clock, cross-checked: YosysHQ/icestorm, examples/hx8kboard/hx8kboard.pcf "
    "(commit 3cdcf4b009bb8681ab7e2e09d65043f04334b60e)",
]
FAMILY = "ice40"
DEVICE = "hx8k"
PACKAGE = "ct256"
PACKAGE_DB = "8k-ct256"
CONSTRAINTS = "constraints/hx8k.pcf"
OSC_MHZ = 12
OPENFPGALOADER = "ice40_generic"
USB = [("0403", "6010", "FT2232H")]
USB_PRODUCT = None
FPGA_IDCODE = None

# Positions 1..40 of each 2x20 header; "-" is no FPGA ball.
HEADERS = {
    "J1": ("A16 - A15 B15 B13 B14 - - B12 B11 "
           "A11 B10 A10 C9 - - A9 B9 B8 A7 "
           "B7 C7 - - A6 C6 B6 C5 A5 C4 "
           "- - B5 C3 B4 B3 A2 A1 - -").split(),
    "J2": ("- - - R15 P16 P15 - - N16 M15 "
           "M16 L16 K15 K16 - - K14 J14 G14 F14 "
           "J15 H14 - - H16 G15 G16 F15 F16 E14 "
           "- - E16 D15 D16 D14 C16 B16 - -").split(),
    "J3": ("R16 - T15 T16 T13 T14 - - N12 P13 "
           "N10 M11 T11 P10 - - T10 R10 P8 P9 "
           "T9 R9 - - T7 T8 T6 R6 T5 R5 "
           "- - R3 R4 R2 T3 T1 T2 - -").split(),
    "J4": ("- - - R1 P1 P2 - - N3 N2 "
           "M2 M1 L3 L1 - - K3 K1 J2 J1 "
           "H2 J3 - - G2 H1 F2 G1 E2 F1 "
           "- - D1 D2 C1 C2 B1 B2 - -").split(),
}
# The source leaves positions 1-3 (J2, J4), 2 (J1, J3) and every 7-8, 15-16,
# 23-24, 31-32, 39-40 without a ball and does not name their rails.  The
# repeating pairs are taken as ground here; that, and which top position
# carries the bank's 3.3 V, is NOT from a source: check both with a meter
# before wiring (docs/wiring.md says so).
POWER = {c: {p: "GND" for p in (7, 8, 15, 16, 23, 24, 31, 32, 39, 40)} for c in HEADERS}

NETS = {
    "J3": "12 MHz oscillator",
    "B5": "LED D9", "B4": "LED D8", "A2": "LED D7", "A1": "LED D6",
    "C5": "LED D5", "C4": "LED D4", "B3": "LED D3", "C3": "LED D2",
    "B10": "FT2232H UART RXD (channel B, into the FPGA)", "B12": "FT2232H UART TXD (channel B, out of the FPGA)",
    "B13": "FT2232H RTS", "A15": "FT2232H CTS", "A16": "FT2232H DTR",
    "B14": "FT2232H DSR", "B15": "FT2232H DCD",
    "R12": "SPI flash CS", "R11": "SPI flash SCK", "P12": "SPI flash MOSI", "P11": "SPI flash MISO",
}
USES = [
    (r"clk_12mhz", r"oscillator", "input", "the PLL reference"),
    (r"led\[\d+\]", r"^LED ", "output", "the status display (every PE in turn)"),
    (r"uart_rx", r"^FT2232H UART RXD", "input", "the link (rtl/link/uart_stream.v), 12 Mbaud"),
    (r"uart_tx", r"^FT2232H UART TXD", "output", "the link (rtl/link/uart_stream.v), 12 Mbaud"),
]
