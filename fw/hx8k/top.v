`default_nettype none
// fw/hx8k/top.v: full PAPERS-4 (seed 000) and the aggnet link on the
// Lattice iCE40-HX8K breakout board (iCE40HX8K-CT256).
// Only wiring: pll, por and rtl/hub/aggnet_uart_hub.v (aggnet_hub N = 4 with
// its link on the UART, rtl/link/uart_stream.v).
//
// Every parallel-port signal of the seed has a pin: per PE 8 data pins in
// (DB25 2-9 = D0..D7 = D, PROBE, IR, S, B0..B3), 4 control pins in (DB25 1,
// 14, 16, 17 = U0, U1, GI, CE; IE lives inside the PC and is tied to 0), and
// 5 status pins out (DB25 15, 13, 12, 10, 11 = I0, I1, I2, INT, Busy=/GO),
// 17 pins per PE, 68 in all.  The PC's own inversions of Strobe, AutoFD,
// SelectIn and Busy are undone by the host driver and by the hub (/GO on
// Busy), so the pins connect straight through (docs/wiring.md).
//
// The link: every PE can instead be reached over the board's own USB UART,
// FT2232H channel B (ball B10 = RXD into the FPGA, B12 = TXD out of it;
// source: amaranth-boards ice40_hx8k_b_evn.py UARTResource rx="B10"
// tx="B12"; tools/boards/hx8k.py), at 12 Mbaud (LINK_BAUD, the FT2232H's
// highest rate; 5 hub clocks per bit).  One PC on that cable can be all
// four PEs: serial:/dev/ttyUSB1@12000000?pe=K (channel B is the second
// ttyUSB of the FT2232H).  A PE on the link and a PE on its pins barrier
// together.
//
// LEDs D2..D9: every PE's section 3.2 display in turn (below).
// Clock: the hub runs at 90 MHz from the PLL (rtl/common/pll.v); 4 hub
// cycles pin to pin are 44.4 ns.
// The pins of every engine this board does not wire are tied off by the
// generated rtl/hub/aggnet_hub_board.vh (tools/hubgen.py): this board
// carries PAPERS' pins and no other engine's.
`define AGGNET_CARRIES_PAPERS
`include "aggnet_hub_board.vh"

module top (
    input  wire        clk_12mhz,
    input  wire [31:0] pe_d,      // PE a's data pins D0..D7 at [8a +: 8]
    input  wire [15:0] pe_c,      // PE a's U0, U1, GI, CE at [4a +: 4]
    output wire [19:0] pe_st,     // PE a's I0, I1, I2, INT, Busy at [5a +: 5]
    output wire [7:0]  led,
    input  wire        uart_rx,   // FT2232H channel B TXD -> FPGA (ball B10)
    output wire        uart_tx    // FPGA -> FT2232H channel B RXD (ball B12)
);
    localparam integer N = 4;
    localparam integer W = 8;    // papers_hub's register width at N = 4
    localparam integer LW = 10;  // and its LED column width

    // Hub clock: 90 MHz from the 12 MHz oscillator (SB_PLL40_CORE: the clock ball J3 is not the PLL pad).
    // icepll -i 12 -o 90: DIVR = 0, DIVF = 59, DIVQ = 3, FILTER_RANGE = 1
    // (PFD 12 MHz, VCO 720 MHz).  With the link (and the NAND engine) the
    // HX8K top has too little margin at the 120 MHz of the pins-only hub; it
    // ran at 100.5 MHz until the NAND engine's step sequencer (the CALL path,
    // issue 22) grew the top to about 73% of the HX8K, after which it placed
    // below 100 MHz at every seed tried, so 90 MHz (its placed Fmax:
    // docs/hardware.md, "make bitstreams", from docs/figures/bitstreams.csv).
    // mk/hw.mk reads HUB_KHZ: nextpnr and icetime must meet it or the
    // bitstream build fails.  12 Mbaud is 7.5 clocks per bit (uart_rx).
    localparam integer HUB_KHZ = 90000;
    // Status display: 0.5 s per page (a parameter so that simulation can shorten it).
    parameter integer PAGE_CYCLES = HUB_KHZ * 500;
    localparam integer LINK_BAUD = 12000000;
    wire clk, pll_locked;
    pll #(.ARCH("ICE40_CORE"), .IN_KHZ(12000), .OUT_KHZ(HUB_KHZ),
          .DIVR(0), .DIVF(59), .DIVQ(3), .FILTER_RANGE(1))
        u_pll (.clk_in(clk_12mhz), .clk_out(clk), .locked(pll_locked));

    wire rst;
    por #(.BITS(4)) u_por (.clk(clk), .ext_rst(!pll_locked), .rst(rst));

    wire [N*5-1:0]  pe_ctrl;
    wire [N*W-1:0]  pe_stat;
    wire [N*LW-1:0] pe_led;
    wire [N-1:0]    pe_irq, pe_bad;

    genvar a;
    generate
        for (a = 0; a < N; a = a + 1) begin : g_pe
            assign pe_ctrl[a*5 +: 5] = {1'b0, pe_c[a*4 +: 4]};  // IE = 0
            assign pe_st[a*5 +: 5]   = pe_stat[a*W + 3 +: 5];   // status bits 3..7
        end
    endgenerate


    // pe_d is the data register's layout {B3..B0, S, IR, PROBE, D} per PE already.
    // The one hub top with its link port on the USB UART (rtl/hub/aggnet_uart_hub.v).
    // The NAND engine (seed 002, rtl/nand), on the link only: every PE
    // reaches it over the USB UART (docs/nand.md).  uart_tx registers its
    // bit tick and nand_engine its PE one-hot so that the top meets its
    // clock with it (without them it missed 100.5 MHz before the sequencer).
    localparam integer EN_NAND = 1;
    `AGGNET_HUB_OPEN_WIRES
    aggnet_uart_hub #(.N(N), .CLK_HZ(HUB_KHZ * 1000), .BAUD(LINK_BAUD), .EN_NAND(EN_NAND)) u_hub (
        .clk(clk), .rst(rst),
        .pe_data(pe_d), .pe_ctrl(pe_ctrl),
        .pe_stat(pe_stat), .pe_led(pe_led), .pe_irq(pe_irq), .pe_bad(pe_bad),
        `AGGNET_HUB_TIEOFF  // the other engines' pins
        .uart_rx(uart_rx), .uart_tx(uart_tx)
    );


    // Its layout (tests/test_board_tops.cpp reads it from here).
    localparam DISPLAY = "LED8";
    // The section 3.2 display for every PE, one at a time (rtl/papers/
    // papers_display.v, layout "LED8": the PE number on led[7:6], its column in 2 pages; docs/hardware.md, "The status display").
    wire [7:0] disp_leds;
    papers_display #(.N(N), .LW(LW), .LAYOUT(DISPLAY), .PAGE_CYCLES(PAGE_CYCLES)) u_display (
        .clk(clk), .rst(rst), .pe_led(pe_led), .leds(disp_leds));
    assign led = disp_leds;

    wire unused_ok = &{1'b0, pe_stat, pe_led, pe_irq, pe_bad};
endmodule
`default_nettype wire
