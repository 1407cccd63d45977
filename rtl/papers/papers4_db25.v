`default_nettype none
// papers4_db25: the full PAPERS-4 hub (seed 000) with its pins in DB25 order,
// the part every board top with 68 spare pins shares (fw/hx1k, fw/hx8k).
// Only wiring around papers_hub N=4 and por.
//
// Per PE a: pe_d[8a +: 8] = DB25 2-9 (D0..D7 = D, PROBE, IR, S, B0..B3),
// pe_c[4a +: 4] = DB25 1, 14, 16, 17 (U0, U1, GI, CE; IE lives inside the PC
// and is tied to 0), pe_st[5a +: 5] = DB25 15, 13, 12, 10, 11 (I0, I1, I2,
// INT, Busy = /GO; status bits 3..7).  led0 is PE0's section 3.2 column
// {CE, IR, U1, U0, D, S, B3, B2, B1, B0}.
module papers4_db25 (
    input  wire        clk,
    input  wire        ext_rst,
    input  wire [31:0] pe_d,
    input  wire [15:0] pe_c,
    output wire [19:0] pe_st,
    output wire [9:0]  led0
);
    localparam integer N = 4;
    localparam integer W = 8;
    localparam integer LW = 10;

    wire rst;
    por #(.BITS(4)) u_por (.clk(clk), .ext_rst(ext_rst), .rst(rst));

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
        .clk(clk), .rst(rst),
        .pe_data(pe_d), .pe_ctrl(pe_ctrl),
        .pe_stat(pe_stat), .pe_led(pe_led), .pe_irq(pe_irq), .pe_bad(pe_bad)
    );

    assign led0 = pe_led[0 +: LW];

    wire unused_ok = &{1'b0, pe_stat, pe_led[LW +: (N-1)*LW], pe_irq, pe_bad};
endmodule
`default_nettype wire
