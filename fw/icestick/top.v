`default_nettype none
// fw/icestick/top.v: PAPERS-4 (seed 000) on a Lattice iCEstick (iCE40HX1K-TQ144).
// Only wiring: papers_hub N=4 and por, nothing else.
//
// The iCEstick breaks out 24 user I/Os (J1, J2 Pmod, J3), not the 68 a full
// PAPERS-4 needs (4 PEs x (8 data + 4 control + 5 status)).  This top is the
// reduced "barrier-only" PAPERS-4: per PE the S pin, the three mask pins
// naming the other PEs, and CE (DB25 17, read active low: presence) come in,
// and the Busy pin (/GO) goes out = 6 pins per PE, 24 in all.  A PE's own
// mask bit has no pin: it is 1 (a mask leaving its own PE out is not
// available on this board), so that its pin can carry CE, without which an unplugged cable (pulled up: S high,
// every mask bit set) would fire everyone's barrier (rtl/papers/papers_hub.v,
// Presence).  D, PROBE, IR, GI, U0, U1 are tied to 0, so the I bits, INT and
// the interrupt paths are not available on this board (docs/hardware.md).  The
// full 68-pin PAPERS-4 for the same chip is fw/hx1k/top.v (a custom
// HX1K-TQ144 board) and fw/hx8k/top.v (iCE40-HX8K breakout).
//
// No link on this board: the hub top with its link port (rtl/hub/aggnet_hub.v
// N = 4 and rtl/link/uart_stream.v, as on the iCEBreaker) needs more LUT4s
// and flip-flops than the HX1K's 1280 logic cells, each one LUT4 and one
// flip-flop, even with one PE on the link (yosys synth_ice40:
// aggnet_hub_n4 in the README's synth table, from docs/figures/synth.csv):
// nextpnr cannot place it.  The FT2232H channel B UART (pins 9 RX,
// 8 TX; tools/boards/icestick.py) stays unused; for PAPERS over USB use an
// iCEBreaker, the HX8K breakout or a ULX3S (docs/hardware.md).
//
// LEDs: every PE's section 3.2 display in turn (below).
// Clock: the hub runs at 120 MHz from the PLL (rtl/common/pll.v); 4 hub
// cycles pin to pin are 33.3 ns.
module top (
    input  wire        clk_12mhz,
    input  wire [3:0]  pe_s,      // PE a's S (DB25 pin 5, D3)
    input  wire [3:0]  pe_ce,     // PE a's CE, active low: presence (DB25 pin 17, /SelectIn)
    input  wire [11:0] pe_bx,     // PE a's mask bits naming the other PEs, in PE order, at [3a +: 3] (DB25 6-9 less its own)
    output wire [3:0]  pe_busy,   // PE a's Busy (DB25 pin 11) = /GO
    output wire [4:0]  led        // led[3:0] red LED1..LED4, led[4] green LED5
);
    localparam integer N = 4;
    localparam integer W = 8;
    localparam integer LW = 10;

    // Hub clock: 120 MHz from the 12 MHz oscillator (SB_PLL40_CORE: pin 21 is not the PLL pad).
    // icepll -i 12 -o 120: DIVR = 0, DIVF = 79, DIVQ = 3, FILTER_RANGE = 1
    // (PFD 12 MHz, VCO 960 MHz).  mk/hw.mk reads HUB_KHZ: nextpnr and icetime
    // must meet it or the bitstream build fails.
    localparam integer HUB_KHZ = 120000;
    // Status display: 0.5 s per page (a parameter so that simulation can shorten it).
    parameter integer PAGE_CYCLES = HUB_KHZ * 500;
    wire clk, pll_locked;
    pll #(.ARCH("ICE40_CORE"), .IN_KHZ(12000), .OUT_KHZ(HUB_KHZ),
          .DIVR(0), .DIVF(79), .DIVQ(3), .FILTER_RANGE(1))
        u_pll (.clk_in(clk_12mhz), .clk_out(clk), .locked(pll_locked));

    wire rst;
    por #(.BITS(4)) u_por (.clk(clk), .ext_rst(!pll_locked), .rst(rst));

    wire [N*W-1:0]  pe_data;
    wire [N*5-1:0]  pe_ctrl;
    wire [N*W-1:0]  pe_stat;
    wire [N*LW-1:0] pe_led;
    wire [N-1:0]    pe_irq, pe_bad, pe_present, unused_go, unused_sv, unused_dv, unused_pv;

    // The reduced barrier-only cable (S, CE, the other PEs' mask bits in,
    // Busy out) in papers_hub's register layout.
    papers_barrier_pins #(.N(N), .W(W)) u_pins (
        .pe_s(pe_s), .pe_ce(pe_ce), .pe_bx(pe_bx), .pe_busy(pe_busy),
        .pe_data(pe_data), .pe_ctrl(pe_ctrl), .pe_stat(pe_stat));

    papers_hub #(.N(N)) u_hub (
        .clk(clk), .rst(rst),
        .pe_data(pe_data), .pe_ctrl(pe_ctrl),
        .pe_stat(pe_stat), .pe_led(pe_led), .pe_irq(pe_irq), .pe_bad(pe_bad),
        .pe_present(pe_present), .pe_go(unused_go),  // pe_go and the next three: for the link (none here)
        .pe_sv(unused_sv), .pe_dv(unused_dv), .pe_pv(unused_pv)
    );


    // Its layout (tests/test_board_tops.cpp reads it from here).
    localparam DISPLAY = "LED5";
    // The section 3.2 display for every PE, one at a time (rtl/papers/
    // papers_display.v, layout "LED5": 3 pages, the PE on the red LEDs of page 0; docs/hardware.md, "The status display").
    wire [7:0] disp_leds;
    papers_display #(.N(N), .LW(LW), .LAYOUT(DISPLAY), .PAGE_CYCLES(PAGE_CYCLES)) u_display (
        .clk(clk), .rst(rst), .pe_led(pe_led), .leds(disp_leds));
    assign led = disp_leds[4:0];

    wire unused_ok = &{1'b0, disp_leds[7:5], pe_stat, pe_led, pe_irq, pe_bad, pe_present, unused_go,
                      unused_sv, unused_dv, unused_pv};
endmodule
`default_nettype wire
