`default_nettype none
// fw/hx8k/top.v: full PAPERS-4 (seed 000) on the Lattice iCE40-HX8K breakout
// board (iCE40HX8K-CT256).  Only wiring: papers_hub N=4 and por.
//
// Every parallel-port signal of the seed has a pin: per PE 8 data pins in
// (DB25 2-9 = D0..D7 = D, PROBE, IR, S, B0..B3), 4 control pins in (DB25 1,
// 14, 16, 17 = U0, U1, GI, CE; IE lives inside the PC and is tied to 0), and
// 5 status pins out (DB25 15, 13, 12, 10, 11 = I0, I1, I2, INT, Busy=/GO),
// 17 pins per PE, 68 in all.  The PC's own inversions of Strobe, AutoFD,
// SelectIn and Busy are undone by the host driver and by the hub (/GO on
// Busy), so the pins connect straight through (docs/hardware.md).
//
// LEDs D2..D9: PE0's section 3.2 display {CE, IR, D, S, B3, B2, B1, B0}
// (U1, U0 have no LED on this board).
module top (
    input  wire        clk_12mhz,
    input  wire [31:0] pe_d,      // PE a's data pins D0..D7 at [8a +: 8]
    input  wire [15:0] pe_c,      // PE a's U0, U1, GI, CE at [4a +: 4]
    output wire [19:0] pe_st,     // PE a's I0, I1, I2, INT, Busy at [5a +: 5]
    output wire [7:0]  led
);
    localparam integer N = 4;
    localparam integer W = 8;
    localparam integer LW = 10;

    wire rst;
    por #(.BITS(4)) u_por (.clk(clk_12mhz), .ext_rst(1'b0), .rst(rst));

    wire [N*W-1:0]  pe_stat;
    wire [N*5-1:0]  pe_ctrl;
    wire [N*LW-1:0] pe_led;
    wire [N-1:0]    pe_irq, pe_bad;

    genvar a;
    generate
        for (a = 0; a < N; a = a + 1) begin : g_pe
            assign pe_ctrl[a*5 +: 5] = {1'b0, pe_c[a*4 +: 4]};   // IE = 0
            assign pe_st[a*5 +: 5]   = pe_stat[a*W + 3 +: 5];     // status bits 3..7
        end
    endgenerate

    papers_hub #(.N(N)) u_hub (
        .clk(clk_12mhz), .rst(rst),
        .pe_data(pe_d), .pe_ctrl(pe_ctrl),
        .pe_stat(pe_stat), .pe_led(pe_led), .pe_irq(pe_irq), .pe_bad(pe_bad)
    );

    // pe_led[0 +: LW] = {CE, IR, U1, U0, D, S, B3, B2, B1, B0}
    assign led = {pe_led[9:8], pe_led[5:0]};

    wire unused_ok = &{1'b0, pe_stat, pe_led, pe_irq, pe_bad};
endmodule
`default_nettype wire
