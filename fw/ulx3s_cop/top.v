`default_nettype none
// fw/ulx3s_cop/top.v: the ULX3S hub of fw/ulx3s/top.v (PAPERS-4 on the same
// pins, the BESU engine, scalar messages, the link on the board's USB UART)
// with Hall's COP (seed 004; rtl/cop, docs/cop.md) as engine 4, C = N = 4
// channels, its FPU included: the exact double sum, the scans, Table I.
// Only wiring: pll, por and rtl/hub/aggnet_uart_hub.v.
//
// Why a configuration of its own: the full COP beside the rest of the hub
// does not yet place and route at the ULX3S top's 90 MHz (docs/cop.md,
// "Timing" and "On a board", has the runs), so this top runs the hub at
// 60 MHz, a clock it meets, and fw/ulx3s/top.v stays at 90 MHz without the
// COP.  At 60 MHz
// every engine's cycle counts are those of the 90 MHz top; their time in
// nanoseconds is 1.5 times as long (4 hub cycles pin to pin are 66.7 ns).
//
// Pins, LEDs and button: exactly those of fw/ulx3s/top.v, from the same
// constraint file (constraints/ulx3s.lpf; tools/boards/ulx3s_cop.py); read
// that top's header for the PE pin map, the dropped PROBE/U0/U1 pins, the
// ESP32 rule and the display.  The link: the FT231X at 3 Mbaud (20 hub
// clocks per bit): serial:/dev/ttyUSB0@3000000?pe=K.
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

    // Hub clock: 60 MHz from the 25 MHz oscillator (EHXPLLL, CLKOP fed
    // back): CLKI_DIV = 5, CLKFB_DIV = 12, CLKOP_DIV = 10, CLKOP_CPHASE = 4
    // (PFD 5 MHz, VCO 600 MHz; pll.v checks the ranges and the result).
    // mk/hw.mk reads HUB_KHZ: nextpnr must meet it or the bitstream build fails.
    localparam integer HUB_KHZ = 60000;
    // Status display: 0.5 s per page (a parameter so that simulation can shorten it).
    parameter integer PAGE_CYCLES = HUB_KHZ * 500;
    localparam integer LINK_BAUD = 3000000;
    localparam integer EN_BESU = 1;
    localparam integer BESU_NB = 8;
    localparam integer EN_NAND = 0;
    localparam integer EN_SCALAR = 1;
    localparam integer EN_COP = 1;
    wire clk, pll_locked;
    pll #(.ARCH("ECP5"), .IN_KHZ(25000), .OUT_KHZ(HUB_KHZ),
          .CLKI_DIV(5), .CLKFB_DIV(12), .CLKOP_DIV(10), .CLKOP_CPHASE(4))
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

    `AGGNET_HUB_OPEN_WIRES
    aggnet_uart_hub #(.N(N), .CLK_HZ(HUB_KHZ * 1000), .BAUD(LINK_BAUD),
                      .EN_BESU(EN_BESU), .BESU_NB(BESU_NB), .EN_NAND(EN_NAND),
                      .EN_SCALAR(EN_SCALAR), .EN_COP(EN_COP)) u_hub (
        .clk(clk), .rst(rst),
        .pe_data(pe_data), .pe_ctrl(pe_ctrl),
        .pe_stat(pe_stat), .pe_led(pe_led), .pe_irq(pe_irq), .pe_bad(pe_bad),
        `AGGNET_HUB_TIEOFF  // the other engines' pins
        .uart_rx(uart_rx), .uart_tx(uart_tx)
    );

    // The display of fw/ulx3s/top.v (tests/test_board_tops.cpp reads DISPLAY from here).
    localparam DISPLAY = "LED8";
    papers_display #(.N(N), .LW(LW), .LAYOUT(DISPLAY), .PAGE_CYCLES(PAGE_CYCLES)) u_display (
        .clk(clk), .rst(rst), .pe_led(pe_led), .leds(led));

    wire unused_ok = &{1'b0, pe_stat, pe_led, pe_irq, pe_bad};
endmodule
`default_nettype wire
