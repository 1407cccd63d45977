`default_nettype none
// formal/papers_hub_props.v: formal harness for rtl/papers/papers_hub.v.
// Pins are free; the only assumption is reset in the first cycle.
//
// (h) If the pins of the 4 cycles before this one were all equal, reset was
//     low in those cycles, and they satisfy PE a's barrier: a's mask is not
//     empty, every PE j in it has S_j high and B_j[a], and no PE j with
//     B_j[a] has IR_j high (an IR term reads GO = 0, Table 7), and a and
//     every PE j of its mask are present (CE pin low, papers_hub Presence),
//     then the Busy pin of a (status bit W-1, driven with /GO) is low in this
//     cycle.
//     This is the BRIEF's "S pin -> GO pin in 4 clock edges", and it holds
//     for the link-only mode (PINS = 0) too.
// (t) Tightness: with the same pins held only 3 cycles after reset, Busy is
//     still high (GO has not reached the pin yet).
module papers_hub_props #(
    parameter integer N  = 4,
    parameter integer PINS = 1,  // 0: papers_hub's link-only mode (masks without synchronizers)
    parameter integer MW = (N < 4) ? 4 : N,
    parameter integer W  = MW + 4,
    parameter integer LW = MW + 6
) (
    input wire           clk,
    input wire           rst,
    input wire [N*W-1:0] pe_data,
    input wire [N*5-1:0] pe_ctrl
);
`include "papers_regs.vh"
    wire [N*W-1:0]  pe_stat;
    wire [N*LW-1:0] pe_led;
    wire [N-1:0]    pe_irq, pe_bad, pe_present;

    papers_hub #(.N(N), .PINS(PINS)) dut (
        .clk(clk), .rst(rst), .pe_data(pe_data), .pe_ctrl(pe_ctrl),
        .pe_stat(pe_stat), .pe_led(pe_led), .pe_irq(pe_irq), .pe_bad(pe_bad), .pe_present(pe_present)
    );

`ifdef FORMAL
    // Barrier condition on the raw pins (register layout of papers_regs.vh).
    reg [N-1:0] cond;
    wire [N-1:0] here;
    genvar g;
    generate
        for (g = 0; g < N; g = g + 1) begin : g_here
            assign here[g] = pe_ctrl[g*5 + PAPERS_CONTROL_CE] != PAPERS_CTRL_CABLE_INVERT[PAPERS_CONTROL_CE];
        end
    endgenerate
    integer a, j;
    always @* begin
        for (a = 0; a < N; a = a + 1) begin
            cond[a] = 1'b0;
            for (j = 0; j < MW; j = j + 1)
                if (pe_data[a*W + PAPERS_DATA_B0 + j]) cond[a] = 1'b1;   // mask not empty
            for (j = 0; j < MW; j = j + 1) begin
                if (pe_data[a*W + PAPERS_DATA_B0 + j]) begin
                    if (j >= N) cond[a] = 1'b0;
                    else if (!(pe_data[j*W + PAPERS_DATA_S] && pe_data[j*W + PAPERS_DATA_B0 + a] && here[j]))
                        cond[a] = 1'b0;
                end
                if (j < N && pe_data[j*W + PAPERS_DATA_IR] && pe_data[j*W + PAPERS_DATA_B0 + a] && here[j])
                    cond[a] = 1'b0;
            end
            if (!here[a]) cond[a] = 1'b0;
        end
    end

    // History of the pins and of reset.
    reg [N*W-1:0] d1 = 0, d2 = 0, d3 = 0, d4 = 0;
    reg [N*5-1:0] c1 = 0, c2 = 0, c3 = 0, c4 = 0;
    reg [N-1:0]   cond1 = 0;
    reg [3:0]     rst_lo = 4'b0000;   // bit i: reset low i+1 cycles ago
    reg [3:0]     rst_hi = 4'b0000;   // bit i: reset high i+1 cycles ago
    always @(posedge clk) begin
        d1 <= pe_data; d2 <= d1; d3 <= d2; d4 <= d3;
        c1 <= pe_ctrl; c2 <= c1; c3 <= c2; c4 <= c3;
        cond1  <= cond;
        rst_lo <= {rst_lo[2:0], !rst};
        rst_hi <= {rst_hi[2:0],  rst};
    end
    wire held4 = (&rst_lo) && d1 == d2 && d2 == d3 && d3 == d4 && c1 == c2 && c2 == c3 && c3 == c4;
    wire held3_after_reset = rst_hi[3] && (&rst_lo[2:0]) && d1 == d2 && d2 == d3;

    initial assume (rst);

    integer b;
    always @* begin
        for (b = 0; b < N; b = b + 1) begin
            if (held4 && cond1[b])             assert (!pe_stat[b*W + W - 1]);
            if (held3_after_reset && cond1[b]) assert ( pe_stat[b*W + W - 1]);
        end
`ifdef SELFTEST
        // negative control: Busy of PE0 is never low (must FAIL)
        assert (pe_stat[W - 1]);
`endif
    end
`endif
endmodule
`default_nettype wire
