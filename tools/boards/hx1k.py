"""A custom board with an iCE40HX1K-TQ144 whose every user I/O is on a connector.

No such board is sold: this target shows that the full PAPERS-4 fits the
iCEstick's chip.  The table is the package itself ("TQ144-<pin>" positions):
every user I/O pin of the package, with the clock and LEDs where the iCEstick
has them and its SPI configuration flash kept.
"""

TITLE = "custom iCE40HX1K-TQ144 board (every user I/O on a connector)"
SOURCES = [
    "user I/O pins of the package: YosysHQ/icestorm, icebox/icebox.py, pinloc_db['1k-tq144'] "
    "(commit 3cdcf4b009bb8681ab7e2e09d65043f04334b60e)",
    "clock (21), LEDs (95-99) and SPI flash (67, 68, 70, 71) as on the iCEstick: "
    "tools/boards/icestick.py",
]
FAMILY = "ice40"
DEVICE = "hx1k"
PACKAGE = "tq144"
PACKAGE_DB = "1k-tq144"
CONSTRAINTS = "constraints/hx1k.pcf"
OSC_MHZ = 12
OPENFPGALOADER = "ice40_generic"
USB = []
USB_PRODUCT = None
FPGA_IDCODE = None

_IO = set((
    "1 2 3 4 7 8 9 10 11 12 19 20 21 22 23 24 25 26 28 29 31 32 33 34 37 38 39 "
    "41 42 43 44 45 47 48 49 50 52 56 58 60 61 62 63 64 67 68 70 71 73 74 75 76 "
    "78 79 80 81 87 88 90 91 93 94 95 96 97 98 99 101 102 104 105 106 107 112 113 "
    "114 115 116 117 118 119 120 121 122 128 129 134 135 136 137 138 139 141 142 "
    "143 144").split())
HEADERS = {"TQ144": [str(p) if str(p) in _IO else "-" for p in range(1, 145)]}
POWER = {}
NETS = {
    "21": "12 MHz oscillator",
    "99": "LED 1", "98": "LED 2", "97": "LED 3", "96": "LED 4", "95": "LED 5",
    "71": "SPI flash CS", "70": "SPI flash SCK", "67": "SPI flash MOSI", "68": "SPI flash MISO",
}
USES = [
    (r"clk_12mhz", r"oscillator", "input", "the PLL reference"),
    (r"led\[\d+\]", r"^LED ", "output", "the status display (every PE in turn)"),
]
