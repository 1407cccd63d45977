"""Radiona ULX3S v2.x / v3.0.x with an ECP5 LFE5U-85F-6BG381C.

Transcribed by hand from the sources below; tools/pincheck.py checks
constraints/ulx3s.lpf against this table in `make lint`.
"""

TITLE = "Radiona ULX3S (ECP5 LFE5U-85F-6BG381C)"
SOURCES = [
    "balls of gp[0..27]/gn[0..27], clock, buttons, LEDs, FT231X, ESP32 nets, ADC "
    "sharing: emard/ulx3s, doc/constraints/ulx3s_v20.lpf ('ULX3S v2.x.x and v3.0.x') "
    "(commit 6a92cec6b177191c5b0f80e260013a1f8ec147dd)",
    "header positions of GP/GN (GNn on odd position, GPn on the even one beside it) "
    "and the GND / 3.3 V / 5 V positions: the same commit, gpio.sch (connectors J1, J2, "
    "symbol Conn_02x20_Odd_Even from ulx3s-cache.lib); pair n at J1_5 etc. agrees with "
    "doc/constraints/prototype/ulx3s_v17patch.lpf",
    "'J1 pins GP,GN 11-13 are shared with ESP32 WiFi on PCB >v2.0', "
    "'J2 pins GP,GN 14-17 are shared with ADC': the same commit, doc/MANUAL.md",
]
FAMILY = "ecp5"
DEVICE = "85k"
PACKAGE = "CABGA381"
PACKAGE_DB = "LFE5U-85F/CABGA381"
CONSTRAINTS = "constraints/ulx3s.lpf"
OSC_MHZ = 25
OPENFPGALOADER = "ulx3s"
USB = [("0403", "6015", "FT231X")]
USB_PRODUCT = "ULX3S"
FPGA_IDCODE = "0x41113043"   # LFE5U-85F (prjtrellis devices.json)

_GPGN = {  # pair n: (GPn ball, GNn ball)
    0: ("B11", "C11"), 1: ("A10", "A11"), 2: ("A9", "B10"), 3: ("B9", "C10"),
    4: ("A7", "A8"), 5: ("C8", "B8"), 6: ("C6", "C7"), 7: ("A6", "B6"),
    8: ("A4", "A5"), 9: ("A2", "B1"), 10: ("C4", "B4"), 11: ("F4", "E3"),
    12: ("G3", "F3"), 13: ("H4", "G5"), 14: ("U18", "U17"), 15: ("N17", "P16"),
    16: ("N16", "M17"), 17: ("L16", "L17"), 18: ("H18", "H17"), 19: ("F17", "G18"),
    20: ("D18", "E17"), 21: ("C18", "D17"), 22: ("B15", "C15"), 23: ("B17", "C17"),
    24: ("C16", "D16"), 25: ("D14", "E14"), 26: ("B13", "C13"), 27: ("D13", "E13"),
}


def _header(first_pair):
    pos = ["-"] * 40
    for k in range(14):
        n = first_pair + k
        odd = 5 + 2 * k if k < 7 else 23 + 2 * (k - 7)   # positions 5..17, 23..35
        pos[odd - 1] = _GPGN[n][1]                       # GNn
        pos[odd] = _GPGN[n][0]                           # GPn
    return pos


HEADERS = {"J1": _header(0), "J2": _header(14)}
# silkscreen names, for the wiring tables
LABELS = {}
for _n, (_p, _m) in _GPGN.items():
    LABELS[_p] = "GP%d" % _n
    LABELS[_m] = "GN%d" % _n
_J1V = "3V3 (bank supply 2V5_3V3, 3.3 V as shipped)"
POWER = {
    "J1": {1: _J1V, 2: _J1V, 3: "GND", 4: "GND", 19: _J1V, 20: _J1V, 21: "GND", 22: "GND",
           37: "GND", 38: "GND", 39: _J1V, 40: _J1V},
    "J2": {1: "3V3", 2: "3V3", 3: "GND", 4: "GND", 19: "3V3", 20: "3V3", 21: "GND", 22: "GND",
           37: "GND", 38: "GND", 39: "5V (IN5V/OUT5V jumpers)", 40: "5V (IN5V/OUT5V jumpers)"},
}
NETS = {
    "G2": "25 MHz oscillator",
    "D6": "BTN_PWRn button", "R1": "FIRE1 button", "T1": "FIRE2 button",
    "R18": "UP button", "V1": "DOWN button", "U1": "LEFT button", "H16": "RIGHT button",
    "B2": "LED 0", "C2": "LED 1", "C1": "LED 2", "D2": "LED 3",
    "D1": "LED 4", "E2": "LED 5", "E1": "LED 6", "H3": "LED 7",
    "L4": "FT231X RXD (FPGA transmits)", "M1": "FT231X TXD (FPGA receives)",
    "M3": "FT231X nRTS", "N1": "FT231X nDTR", "L3": "FT231X TXDEN",
    "F1": "ESP32 EN", "K3": "ESP32 RXD", "K4": "ESP32 TXD", "L2": "ESP32 GPIO0",
    "N4": "ESP32 GPIO5", "L1": "ESP32 GPIO16", "N3": "ESP32 GPIO17",
    # on header J1 as well: the ESP32's pins, live whenever the ESP32 runs
    "F4": "ESP32 GPIO26 (GP11)", "E3": "ESP32 GPIO25 (GN11)",
    "G3": "ESP32 GPIO33 (GP12)", "F3": "ESP32 GPIO32 (GN12)",
    "H4": "ESP32 GPIO35, input-only on the ESP32 (GP13)",
    "G5": "ESP32 GPIO34, input-only on the ESP32 (GN13)",
    # on header J2 as well: analog inputs of the MAX11123 ADC (high impedance)
    "U18": "MAX11123 AIN1 (GP14)", "U17": "MAX11123 AIN0 (GN14)",
    "N17": "MAX11123 AIN3 (GP15)", "P16": "MAX11123 AIN2 (GN15)",
    "N16": "MAX11123 AIN5 (GP16)", "M17": "MAX11123 AIN4 (GN16)",
    "L16": "MAX11123 AIN7 (GP17)", "L17": "MAX11123 AIN6 (GN17)",
}
USES = [
    (r"clk_25mhz", r"oscillator", "input", "the PLL reference"),
    (r"btn_fire1", r"^FIRE1", "input", "hub reset"),
    (r"led\[\d+\]", r"^LED ", "output", "the status display (every PE in turn)"),
    (r"wifi_en", r"^ESP32 EN$", "output", "held low: the ESP32 stays in reset"),
    (r"uart_rx", r"^FT231X TXD", "input", "the link (rtl/link/uart_stream.v), 3 Mbaud"),
    (r"uart_tx", r"^FT231X RXD", "output", "the link (rtl/link/uart_stream.v), 3 Mbaud"),
    (r"pe_\w+\[\d+\]", r"^ESP32 GPIO", "output",
     "only hub outputs on ESP32-shared header pins: no cable driver ever fights the "
     "ESP32 there, and the ESP32 is held in reset by wifi_en"),
    (r"pe_\w+\[\d+\]", r"^MAX11123 AIN", "any", "ADC inputs are high impedance"),
]
