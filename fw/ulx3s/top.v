`default_nettype none
// fw/ulx3s/top.v: PAPERS-4 (seed 000), the BESU engine (seed 001), scalar
// messages (seed 003) and the aggnet link on a Radiona ULX3S (ECP5
// LFE5U-85F).  Only wiring: pll, por
// and rtl/hub/aggnet_uart_hub.v (aggnet_hub N = 4 with its link on
// rtl/link/uart_stream.v) on the board's USB UART.
//
// The ULX3S GPIO header has 56 single-ended pins (gp[0..27], gn[0..27]); a
// full PAPERS-4 needs 68.  Dropped here: PROBE (tied 0: the I bits show D)
// and the display-only user bits U0, U1 (tied 0).  Per PE 14 pins:
//   in  D, IR, S, B0..B3   (DB25 2, 4, 5, 6-9)
//   in  GI, CE             (DB25 16, 17)
//   out I0, I1, I2, INT, Busy=/GO  (DB25 15, 13, 12, 10, 11)
// The pin-to-header map is constraints/ulx3s.lpf and docs/wiring.md.
//
// The link: every PE can instead be reached over the board's own USB UART,
// the FT231X on the US1 connector (ball M1 = ftdi_txd, into the FPGA; L4 =
// ftdi_rxd, out of it; source: emard/ulx3s doc/constraints/ulx3s_v20.lpf
// "FPGA receives from ftdi" / "FPGA transmits to ftdi"; tools/boards/ulx3s.py),
// at 3 Mbaud (LINK_BAUD, the FT231X's highest rate; 25 hub clocks per bit).
// One PC on that cable can be all four PEs, PROBE included, through the PAPERS
// window: serial:/dev/ttyUSB0@3000000?pe=K.  A PE on the link and a PE on
// its pins barrier together.
//
// LEDs led[7:0]: every PE's section 3.2 display in turn (below).
// Button FIRE1 (btn[1]) resets the hub.
//
// The ESP32 module shares six header pins (GP11..GN13).  wifi_en, its EN
// pin, is held low: the ESP32 stays in reset while the hub runs, and the
// constraint file puts only hub outputs on the shared pins.
// Clock: the hub runs at 90 MHz from the PLL (rtl/common/pll.v); 4 hub
// cycles pin to pin are 44.4 ns.
// The pins of every engine this board does not wire are tied off by the
// generated rtl/hub/aggnet_hub_board.vh (tools/hubgen.py): this board
// carries PAPERS' pins and no other engine's.
`define AGGNET_CARRIES_PAPERS
`include "aggnet_hub_board.vh"

module top (
    input  wire        clk_25mhz,
    input  wire        btn_fire1,
    input  wire [3:0]  pe_dd,     // PE a's D      (DB25 2)
    input  wire [3:0]  pe_ir,     // PE a's IR     (DB25 4)
    input  wire [3:0]  pe_s,      // PE a's S      (DB25 5)
    input  wire [15:0] pe_b,      // PE a's B0..B3 at [4a +: 4] (DB25 6-9)
    input  wire [3:0]  pe_gi,     // PE a's GI     (DB25 16)
    input  wire [3:0]  pe_ce,     // PE a's CE     (DB25 17)
    output wire [19:0] pe_st,     // PE a's I0, I1, I2, INT, Busy at [5a +: 5]
    output wire [7:0]  led,
    output wire        wifi_en,   // ESP32 EN: low keeps the ESP32 in reset
    input  wire        uart_rx,   // FT231X TXD -> FPGA (ball M1, ftdi_txd)
    output wire        uart_tx    // FPGA -> FT231X RXD (ball L4, ftdi_rxd)
);
    assign wifi_en = 1'b0;

    localparam integer N = 4;
    localparam integer W = 8;    // papers_hub's register width at N = 4
    localparam integer LW = 10;  // and its LED column width

    // Hub clock: 90 MHz from the 25 MHz oscillator (EHXPLLL, CLKOP fed back).
    // CLKI_DIV = 5, CLKFB_DIV = 18, CLKOP_DIV = 6, CLKOP_CPHASE = 2 (PFD
    // 5 MHz, VCO 540 MHz; pll.v checks the ranges and the result).  With the
    // link and the BESU engine the ECP5-85F top met 100 MHz with almost no
    // margin, and after BESU's CALL path (issue 22) no longer did, so 90 MHz
    // (its placed Fmax: docs/hardware.md, "make bitstreams", from
    // docs/figures/bitstreams.csv; docs/besu.md "Timing"), not the 120 MHz
    // of the pins-only hub; 30 clocks per bit at the FT231X's 3 Mbaud.
    // mk/hw.mk reads HUB_KHZ: nextpnr must meet it or the bitstream build
    // fails.
    localparam integer HUB_KHZ = 90000;
    // Status display: 0.5 s per page (a parameter so that simulation can shorten it).
    parameter integer PAGE_CYCLES = HUB_KHZ * 500;
    localparam integer LINK_BAUD = 3000000;
    // The BESU engine (seed 001; rtl/besu, docs/besu.md) on the link only: a
    // 2x2x1 mesh, one node per PE, BESU_NB barrier/eureka units per node.
    localparam integer EN_BESU = 1;
    localparam integer BESU_NB = 8;
    // The NAND engine (seed 002; rtl/nand, docs/nand.md) would be on the link
    // only (no NAND cable on this board: its pins read as floating, "not
    // cabled").  Left out: with the BESU engine and NAND both in, the top
    // missed the 100 MHz clock in nextpnr (the HX8K top carries NAND).
    localparam integer EN_NAND = 0;
    // Scalar messages (seed 003; rtl/scalar, docs/scalar.md) on the link: a
    // 64-message receive buffer per PE in block RAM.
    localparam integer EN_SCALAR = 1;
    wire clk, pll_locked;
    pll #(.ARCH("ECP5"), .IN_KHZ(25000), .OUT_KHZ(HUB_KHZ),
          .CLKI_DIV(5), .CLKFB_DIV(18), .CLKOP_DIV(6), .CLKOP_CPHASE(2))
        u_pll (.clk_in(clk_25mhz), .clk_out(clk), .locked(pll_locked));

    wire rst;
    por #(.BITS(4)) u_por (.clk(clk), .ext_rst(btn_fire1 || !pll_locked), .rst(rst));

    wire [N*W-1:0]  pe_data;
    wire [N*5-1:0]  pe_ctrl;
    wire [N*W-1:0]  pe_stat;
    wire [N*LW-1:0] pe_led;
    wire [N-1:0]    pe_irq, pe_bad;

    genvar a;
    generate
        for (a = 0; a < N; a = a + 1) begin : g_pe
            // {B3..B0, S, IR, PROBE = 0, D}
            assign pe_data[a*W +: W] = {pe_b[a*4 +: 4], pe_s[a], pe_ir[a], 1'b0, pe_dd[a]};
            // {IE = 0, CE, GI, U1 = 0, U0 = 0}
            assign pe_ctrl[a*5 +: 5] = {1'b0, pe_ce[a], pe_gi[a], 2'b00};
            assign pe_st[a*5 +: 5]   = pe_stat[a*W + 3 +: 5];
        end
    endgenerate


    // The one hub top with its link port on the USB UART (rtl/hub/aggnet_uart_hub.v).
    `AGGNET_HUB_OPEN_WIRES
    aggnet_uart_hub #(.N(N), .CLK_HZ(HUB_KHZ * 1000), .BAUD(LINK_BAUD),
                      .EN_BESU(EN_BESU), .BESU_NB(BESU_NB), .EN_NAND(EN_NAND),
                      .EN_SCALAR(EN_SCALAR)) u_hub (
        .clk(clk), .rst(rst),
        .pe_data(pe_data), .pe_ctrl(pe_ctrl),
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
