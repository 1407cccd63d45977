"""1BitSquared iCEBreaker, iCE40UP5K-SG48.

Transcribed by hand from the sources below; tools/pincheck.py checks
constraints/icebreaker.pcf against this table in `make lint`.
"""

TITLE = "1BitSquared iCEBreaker (iCE40UP5K-SG48)"
SOURCES = [
    "Pmods 1A, 1B, 2, clock, LEDs, button, FT2232H UART, SPI flash, RGB LED: "
    "YosysHQ/icestorm, examples/icebreaker/icebreaker.pcf "
    "(commit 3cdcf4b009bb8681ab7e2e09d65043f04334b60e)",
    "cross-checked: amaranth-lang/amaranth-boards, amaranth_boards/icebreaker.py "
    "(commit fd2f0df811a8dbcf6aa0b94ac0788dc71ac79e1e)",
    "Pmod power positions (5, 11 GND; 6, 12 3.3 V): the Pmod standard, "
    "as the amaranth connectors' empty positions show",
]
FAMILY = "ice40"
DEVICE = "up5k"
PACKAGE = "sg48"
PACKAGE_DB = "5k-sg48"
CONSTRAINTS = "constraints/icebreaker.pcf"
OSC_MHZ = 12
OPENFPGALOADER = "ice40_generic"
USB = [("0403", "6010", "FT2232H")]
USB_PRODUCT = "iCEBreaker"
FPGA_IDCODE = None

# Pmod 2 also carries the snap-off LED/button board (LED1-5, BTN1-3): break
# it off (or unplug it) before wiring PEs to Pmod 2.
HEADERS = {
    "P1A": "4 2 47 45 - - 3 48 46 44 - -".split(),
    "P1B": "43 38 34 31 - - 42 36 32 28 - -".split(),
    "P2": "27 25 21 19 - - 26 23 20 18 - -".split(),
}
POWER = {c: {5: "GND", 6: "3V3", 11: "GND", 12: "3V3"} for c in HEADERS}
NETS = {
    "35": "12 MHz oscillator",
    "10": "BTN_N user button",
    "11": "LEDR_N red LED", "37": "LEDG_N green LED",
    "6": "FT2232H UART RX (channel B, into the FPGA)", "9": "FT2232H UART TX (channel B, out of the FPGA)",
    "39": "RGB LED red", "40": "RGB LED green", "41": "RGB LED blue",
    "16": "SPI flash CS", "15": "SPI flash SCK", "14": "SPI flash IO0",
    "17": "SPI flash IO1", "12": "SPI flash IO2", "13": "SPI flash IO3",
}
USES = [
    (r"clk_12mhz", r"oscillator", "input", "the PLL reference"),
    (r"btn_n", r"^BTN_N", "input", "hub reset"),
    (r"led[rg]_n", r"^LED[RG]_N", "output", "the status display (every PE in turn)"),
    (r"rgb_n\[\d\]", r"^RGB LED ", "output", "the status display: which PE it shows"),
    (r"uart_rx", r"^FT2232H UART RX ", "input", "the link (rtl/link/uart_stream.v), 6 Mbaud"),
    (r"uart_tx", r"^FT2232H UART TX ", "output", "the link (rtl/link/uart_stream.v), 6 Mbaud"),
]
