`default_nettype none
// fw/hx1k/top.v: full PAPERS-4 (seed 000) on a custom iCE40HX1K-TQ144 board
// (the iCEstick chip with all package pins reachable).  Only wiring: pll, por
// and papers_hub (N = 4).
//
// Every parallel-port signal of the seed has a pin: per PE 8 data pins in
// (DB25 2-9 = D0..D7 = D, PROBE, IR, S, B0..B3), 4 control pins in (DB25 1,
// 14, 16, 17 = U0, U1, GI, CE; IE lives inside the PC and is tied to 0), and
// 5 status pins out (DB25 15, 13, 12, 10, 11 = I0, I1, I2, INT, Busy=/GO),
// 17 pins per PE, 68 in all.  The PC's own inversions of Strobe, AutoFD,
// SelectIn and Busy are undone by the host driver and by the hub (/GO on
// Busy), so the pins connect straight through (docs/wiring.md).
//
// No link on this board: the hub top with its link port (rtl/hub/aggnet_hub.v
// N = 4 and rtl/link/uart_stream.v) needs more LUT4s and flip-flops (yosys
// synth_ice40: aggnet_hub_n4 in the README's synth table, from
// docs/figures/synth.csv) than the HX1K's 1280 logic cells; nextpnr cannot
// place it (fw/icestick/top.v says the same).  This board shows that
// the pin-level PAPERS-4 fits the chip; for PAPERS over USB use an
// iCEBreaker, the HX8K breakout or a ULX3S (docs/hardware.md).
//
// LEDs on the iCEstick LED pins 95-99: every PE's section 3.2 display in turn (below).
// Pin choice: constraints/hx1k.pcf (docs/wiring.md).
// Clock: the hub runs at 120 MHz from the PLL (rtl/common/pll.v); 4 hub
// cycles pin to pin are 33.3 ns.
module top (
    input  wire        clk_12mhz,
    input  wire [31:0] pe_d,      // PE a's data pins D0..D7 at [8a +: 8]
    input  wire [15:0] pe_c,      // PE a's U0, U1, GI, CE at [4a +: 4]
    output wire [19:0] pe_st,     // PE a's I0, I1, I2, INT, Busy at [5a +: 5]
    output wire [4:0]  led
);
    localparam integer N = 4;
    localparam integer W = 8;    // papers_hub's register width at N = 4
    localparam integer LW = 10;  // and its LED column width

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

    wire [N*5-1:0]  pe_ctrl;
    wire [N*W-1:0]  pe_stat;
    wire [N*LW-1:0] pe_led;
    wire [N-1:0]    pe_irq, pe_bad, pe_present, unused_go, unused_sv, unused_dv, unused_pv;

    genvar a;
    generate
        for (a = 0; a < N; a = a + 1) begin : g_pe
            assign pe_ctrl[a*5 +: 5] = {1'b0, pe_c[a*4 +: 4]};  // IE = 0
            assign pe_st[a*5 +: 5]   = pe_stat[a*W + 3 +: 5];   // status bits 3..7
        end
    endgenerate

    // pe_d is the data register's layout {B3..B0, S, IR, PROBE, D} per PE already.
    papers_hub #(.N(N)) u_hub (
        .clk(clk), .rst(rst),
        .pe_data(pe_d), .pe_ctrl(pe_ctrl),
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
