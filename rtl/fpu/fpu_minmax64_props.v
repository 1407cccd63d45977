`default_nettype none
// fpu_minmax64_props: formal harness for rtl/fpu/fpu_minmax64.v (its
// manifest names the jobs; formal/run.py runs them).  Every input is free
// every cycle; the only assumption is reset in the first cycle.
//
// The harness keeps the operation of the cycle before and states the rules
// of the module header (IEEE 754-2019 maximum / minimum, canonical NaN)
// with its own ordering, written from sign and magnitude rather than the
// module's keys:
//   (p1) out_valid is in_valid one cycle late (low after reset); out_tag
//        is the operation's tag;
//   (p2) a NaN operand gives exactly 0x7FF8000000000000;
//   (p3) otherwise the result is one of the operands, and no operand is
//        above it (maximum) or below it (minimum), where -0 is below +0.
// (p2) and (p3) together fix the result: for every pair of doubles.
// Negative control (must FAIL): SELFTEST_FIRST claims the maximum is
// always the first operand.
module fpu_minmax64_props (
    input wire        clk,
    input wire        rst,
    input wire        in_valid,
    input wire        in_min,
    input wire [63:0] in_a,
    input wire [63:0] in_b,
    input wire [3:0]  in_tag
);
    wire        out_valid;
    wire [63:0] out_z;
    wire [3:0]  out_tag;

    fpu_minmax64 #(.TW(4)) dut (
        .clk(clk), .rst(rst), .in_valid(in_valid), .in_min(in_min), .in_a(in_a), .in_b(in_b),
        .in_tag(in_tag), .out_valid(out_valid), .out_z(out_z), .out_tag(out_tag)
    );

`ifdef FORMAL
    // x <= y in IEEE 754-2019's total order restricted to non-NaN values
    function automatic le(input [63:0] x, input [63:0] y);
        case ({x[63], y[63]})
            2'b10:   le = 1'b1;                 // negative (or -0) below positive (or +0)
            2'b01:   le = 1'b0;
            2'b00:   le = x[62:0] <= y[62:0];
            default: le = x[62:0] >= y[62:0];
        endcase
    endfunction
    function automatic is_nan(input [63:0] x);
        is_nan = (x[62:52] == 11'h7FF) && (x[51:0] != 52'd0);
    endfunction

    reg        h_valid, h_min;
    reg [63:0] h_a, h_b;
    reg [3:0]  h_tag;
    always @(posedge clk) begin
        h_valid <= in_valid & ~rst;
        h_min <= in_min;
        h_a <= in_a;
        h_b <= in_b;
        h_tag <= in_tag;
    end

    reg past_valid = 1'b0;
    always @(posedge clk) past_valid <= 1'b1;
    initial assume (rst);

    always @* begin
        if (past_valid) begin
            assert (out_valid == h_valid);                                    // (p1)
            assert (out_tag == h_tag);                                        // (p1)
            if (is_nan(h_a) || is_nan(h_b)) begin
                assert (out_z == 64'h7FF8_0000_0000_0000);                    // (p2)
            end else begin
                assert (out_z == h_a || out_z == h_b);                        // (p3)
                if (h_min) assert (le(out_z, h_a) && le(out_z, h_b));          // (p3)
                else assert (le(h_a, out_z) && le(h_b, out_z));               // (p3)
`ifdef SELFTEST_FIRST
                if (!h_min) assert (out_z == h_a);
`endif
            end
        end
    end
`endif
endmodule
`default_nettype wire
