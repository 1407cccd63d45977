"""Lattice iCEstick evaluation kit, iCE40HX1K-TQ144.

Transcribed by hand from the sources below; tools/pincheck.py checks
constraints/icestick.pcf against this table in `make lint`.
"""

TITLE = "Lattice iCEstick (iCE40HX1K-TQ144)"
SOURCES = [
    "headers J1, J2 (Pmod), J3, LEDs, clock, FT2232H UART, IrDA, SPI flash: "
    "amaranth-lang/amaranth-boards, amaranth_boards/icestick.py "
    "(commit fd2f0df811a8dbcf6aa0b94ac0788dc71ac79e1e)",
    "LEDs, clock and UART, cross-checked: YosysHQ/icestorm, examples/icestick/icestick.pcf "
    "(commit 3cdcf4b009bb8681ab7e2e09d65043f04334b60e)",
    "Pmod J2 power positions (5, 11 GND; 6, 12 3.3 V): sinanuyan/VHDL, "
    "Lattice_iCEstick/README.md; FlorentFlament/atari-csync, README.md",
]
FAMILY = "ice40"
DEVICE = "hx1k"
PACKAGE = "tq144"
PACKAGE_DB = "1k-tq144"
CONSTRAINTS = "constraints/icestick.pcf"
OSC_MHZ = 12
OPENFPGALOADER = "ice40_generic"
USB = [("0403", "6010", "FT2232H")]
USB_PRODUCT = None
FPGA_IDCODE = None

HEADERS = {
    "J1": "- - 112 113 114 115 116 117 118 119".split(),
    "J2": "78 79 80 81 - - 87 88 90 91 - -".split(),   # Pmod socket
    "J3": "- - 62 61 60 56 48 47 45 44".split(),
}
# J1 and J3 positions 1-2 are the source's empty positions (3.3 V and GND on
# the silkscreen; verify with a meter).  Pmod power is the Pmod standard.
POWER = {
    "J1": {1: "3V3", 2: "GND"},
    "J2": {5: "GND", 6: "3V3", 11: "GND", 12: "3V3"},
    "J3": {1: "3V3", 2: "GND"},
}
NETS = {
    "21": "12 MHz oscillator",
    "99": "LED D1 (red)", "98": "LED D2 (red)", "97": "LED D3 (red)",
    "96": "LED D4 (red)", "95": "LED D5 (green)",
    "9": "FT2232H UART RXD (channel B, into the FPGA)", "8": "FT2232H UART TXD (channel B, out of the FPGA)", "7": "FT2232H RTS",
    "4": "FT2232H CTS", "3": "FT2232H DTR", "2": "FT2232H DSR", "1": "FT2232H DCD",
    "106": "IrDA RXD", "105": "IrDA TXD", "107": "IrDA SD",
    "71": "SPI flash CS", "70": "SPI flash SCK", "67": "SPI flash MOSI", "68": "SPI flash MISO",
}
USES = [
    (r"clk_12mhz", r"oscillator", "input", "the PLL reference"),
    (r"led\[\d+\]", r"^LED ", "output", "the status display (every PE in turn)"),
]
