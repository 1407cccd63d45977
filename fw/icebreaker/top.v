`default_nettype none
// fw/icebreaker/top.v: PAPERS-4 (seed 000) and the aggnet link on a
// 1BitSquared iCEBreaker (iCE40UP5K-SG48).  Only wiring: pll, por,
// and rtl/hub/aggnet_uart_hub.v (aggnet_hub N = 4 with its link on
// rtl/link/uart_stream.v) on the board's USB UART.
//
// The iCEBreaker breaks out 24 user I/Os (Pmods 1A, 1B, 2), not the 68 a full
// PAPERS-4 needs (4 PEs x (8 data + 4 control + 5 status)).  This top is the
// reduced "barrier-only" PAPERS-4: per PE the S pin, the three mask pins
// naming the other PEs, and CE (DB25 17, read active low: presence) come in,
// and the Busy pin (/GO) goes out = 6 pins per PE, 24 in all.  A PE's own
// mask bit has no pin: it is 1 (a mask leaving its own PE out is not
// available on this board), so that its pin can carry CE, without which an unplugged cable (pulled up: S high,
// every mask bit set) would fire everyone's barrier (rtl/papers/papers_hub.v,
// Presence).  D, PROBE, IR, GI, U0, U1 are tied to 0, so the I bits, INT and
// the interrupt paths are not available on the pins of this board
// (docs/hardware.md).  The full 68-pin PAPERS-4 for the same chip family
// is fw/hx1k/top.v (a custom HX1K-TQ144 board) and fw/hx8k/top.v (iCE40-HX8K
// breakout).
//
// The link: every PE can instead be reached over the board's own USB UART,
// FT2232H channel B (pins 6 = RX into the FPGA, 9 = TX out of it; sources:
// icestorm examples/icebreaker/icebreaker.pcf RX 6, TX 9, and amaranth-boards
// icebreaker.py UARTResource rx="6" tx="9"; tools/boards/icebreaker.py), at
// 6 Mbaud (LINK_BAUD: 6 hub clocks per bit at 36 MHz; the FT2232H
// makes 6 Mbaud exactly, 120 MHz / 20).  One PC on that cable
// can be all four PEs, with full PAPERS (D, PROBE, IR, the I bits, INT)
// through the PAPERS window: serial:/dev/ttyUSB1@6000000?pe=K
// (channel B is the second ttyUSB of the FT2232H).  A PE on the link and a PE
// on its pins barrier together.
//
// LEDs: every PE's section 3.2 display in turn on LEDR_N, LEDG_N and the
// RGB LED (below).
// The user button BTN_N resets the hub.
// Clock: the hub runs at 36 MHz from the PLL (rtl/common/pll.v); 4 hub
// cycles pin to pin are 111.1 ns.
// The pins of every engine this board does not wire are tied off by the
// generated rtl/hub/aggnet_hub_board.vh (tools/hubgen.py): this board
// carries PAPERS' pins and no other engine's.
`define AGGNET_CARRIES_PAPERS
`include "aggnet_hub_board.vh"

module top (
    input  wire        clk_12mhz,
    input  wire        btn_n,
    input  wire [3:0]  pe_s,      // PE a's S (DB25 pin 5, D3)
    input  wire [3:0]  pe_ce,     // PE a's CE, active low: presence (DB25 pin 17, /SelectIn)
    input  wire [11:0] pe_bx,     // PE a's mask bits naming the other PEs, in PE order, at [3a +: 3] (DB25 6-9 less its own)
    output wire [3:0]  pe_busy,   // PE a's Busy (DB25 pin 11) = /GO
    output wire        ledr_n,
    output wire        ledg_n,
    output wire [2:0]  rgb_n,     // RGB LED, low = lit: red (pin 39), green (40), blue (41)
    input  wire        uart_rx,   // FT2232H channel B TXD -> FPGA (pin 6)
    output wire        uart_tx    // FPGA -> FT2232H channel B RXD (pin 9)
);
    localparam integer N = 4;
    localparam integer W = 8;    // papers_hub's register width at N = 4
    localparam integer LW = 10;  // and its LED column width

    // Hub clock: 36 MHz from the 12 MHz oscillator (SB_PLL40_PAD: pin 35 is the PLL's own pad).
    // icepll -i 12 -o 36: DIVR = 0, DIVF = 47, DIVQ = 4, FILTER_RANGE = 1
    // (PFD 12 MHz, VCO 576 MHz).  The top ran at 48 MHz with a 12 Mbaud
    // link until the link's CALL and the PAPERS SYNC machines (issue 22)
    // grew it; it then met 48 MHz at some seeds and revisions and not at
    // others, so it ran at 39.75 MHz and 6 Mbaud (12 Mbaud needs 4 clocks
    // per bit, 48 MHz); after issue 23 added the COP's slot to the hub (tied
    // off here) that too was met at some revisions only, so it runs at 36
    // MHz, 6 clocks per bit.  mk/hw.mk reads
    // HUB_KHZ: nextpnr and icetime must meet it or the bitstream build fails
    // (docs/hardware.md, "Clocks", has the placed Fmax).
    localparam integer HUB_KHZ = 36000;
    // Status display: 0.5 s per page (a parameter so that simulation can shorten it).
    parameter integer PAGE_CYCLES = HUB_KHZ * 500;
    localparam integer LINK_BAUD = 6000000;
    wire clk, pll_locked;
    pll #(.ARCH("ICE40_PAD"), .IN_KHZ(12000), .OUT_KHZ(HUB_KHZ),
          .DIVR(0), .DIVF(47), .DIVQ(4), .FILTER_RANGE(1))
        u_pll (.clk_in(clk_12mhz), .clk_out(clk), .locked(pll_locked));

    wire rst;
    por #(.BITS(4)) u_por (.clk(clk), .ext_rst(!btn_n || !pll_locked), .rst(rst));

    wire [N*W-1:0]  pe_data;
    wire [N*5-1:0]  pe_ctrl;
    wire [N*W-1:0]  pe_stat;
    wire [N*LW-1:0] pe_led;
    wire [N-1:0]    pe_irq, pe_bad;

    // The reduced barrier-only cable (S, CE, the other PEs' mask bits in,
    // Busy out) in papers_hub's register layout.
    papers_barrier_pins #(.N(N), .W(W)) u_pins (
        .pe_s(pe_s), .pe_ce(pe_ce), .pe_bx(pe_bx), .pe_busy(pe_busy),
        .pe_data(pe_data), .pe_ctrl(pe_ctrl), .pe_stat(pe_stat));


    // The one hub top with its link port on the USB UART (rtl/hub/aggnet_uart_hub.v).
    `AGGNET_HUB_OPEN_WIRES
    aggnet_uart_hub #(.N(N), .CLK_HZ(HUB_KHZ * 1000), .BAUD(LINK_BAUD)) u_hub (
        .clk(clk), .rst(rst),
        .pe_data(pe_data), .pe_ctrl(pe_ctrl),
        .pe_stat(pe_stat), .pe_led(pe_led), .pe_irq(pe_irq), .pe_bad(pe_bad),
        `AGGNET_HUB_TIEOFF  // the other engines' pins
        .uart_rx(uart_rx), .uart_tx(uart_tx)
    );

    // Its layout (tests/test_board_tops.cpp reads it from here).
    localparam DISPLAY = "RGB";
    // The section 3.2 display for every PE, one at a time (rtl/papers/
    // papers_display.v, layout "RGB": 5 pages on the red and green LEDs, the PE as a colour on the RGB LED; docs/hardware.md, "The status display").
    wire [7:0] disp_leds;
    papers_display #(.N(N), .LW(LW), .LAYOUT(DISPLAY), .PAGE_CYCLES(PAGE_CYCLES)) u_display (
        .clk(clk), .rst(rst), .pe_led(pe_led), .leds(disp_leds));
    assign ledr_n = !disp_leds[0];
    assign ledg_n = !disp_leds[1];
    rgb_led #(.ARCH("ICE40_UP")) u_rgb (.on(disp_leds[4:2]), .pad_n(rgb_n));

    wire unused_ok = &{1'b0, disp_leds[7:5], pe_stat, pe_led, pe_irq, pe_bad};
endmodule
`default_nettype wire
