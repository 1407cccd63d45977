`default_nettype none
// fw/hx1k/top.v: full PAPERS-4 (seed 000) on a custom iCE40HX1K-TQ144 board
// (the iCEstick chip with all package pins reachable).  Only wiring: papers4_db25.
//
// Every parallel-port signal of the seed has a pin: per PE 8 data pins in
// (DB25 2-9 = D0..D7 = D, PROBE, IR, S, B0..B3), 4 control pins in (DB25 1,
// 14, 16, 17 = U0, U1, GI, CE; IE lives inside the PC and is tied to 0), and
// 5 status pins out (DB25 15, 13, 12, 10, 11 = I0, I1, I2, INT, Busy=/GO),
// 17 pins per PE, 68 in all.  The PC's own inversions of Strobe, AutoFD,
// SelectIn and Busy are undone by the host driver and by the hub (/GO on
// Busy), so the pins connect straight through (docs/wiring.md).
//
// LEDs on the iCEstick LED pins 95-99: PE0 {S, B3, B2, B1, B0} (5 LEDs).
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
    // Hub clock: 120 MHz from the 12 MHz oscillator (SB_PLL40_CORE: the clock pin 21 is not the PLL pad).
    // icepll -i 12 -o 120: DIVR = 0, DIVF = 79, DIVQ = 3, FILTER_RANGE = 1
    // (PFD 12 MHz, VCO 960 MHz).  mk/hw.mk reads HUB_KHZ: nextpnr and icetime
    // must meet it or the bitstream build fails.
    localparam integer HUB_KHZ = 120000;
    wire clk, pll_locked;
    pll #(.ARCH("ICE40_CORE"), .IN_KHZ(12000), .OUT_KHZ(HUB_KHZ),
          .DIVR(0), .DIVF(79), .DIVQ(3), .FILTER_RANGE(1))
        u_pll (.clk_in(clk_12mhz), .clk_out(clk), .locked(pll_locked));

    wire [9:0] led0;  // {CE, IR, U1, U0, D, S, B3, B2, B1, B0} of PE0
    papers4_db25 u_papers (
        .clk(clk), .ext_rst(!pll_locked),
        .pe_d(pe_d), .pe_c(pe_c), .pe_st(pe_st), .led0(led0)
    );
    assign led = led0[4:0];

    wire unused_ok = &{1'b0, led0[9:5]};
endmodule
`default_nettype wire
