`default_nettype none
// fpu_minmax64: IEEE 754 binary64 maximum and minimum for the COP's double
// max/min reductions (seed 004, Table I: the floating-point max and min
// codes; issue 23 asks for NaN and signed zero to be defined).
//
// The operations are IEEE 754-2019 maximum and minimum (section 9.6), with
// this hub's NaN rule:
//   * any NaN operand (quiet or signalling) gives the canonical quiet NaN
//     0x7FF8000000000000, as fpu_add64 does;
//   * -0 is below +0: max(-0, +0) = +0, min(-0, +0) = -0;
//   * otherwise the numerically larger (max) or smaller (min) operand,
//     unchanged, infinities included.
// With these rules the result of a max or min reduction is the same for
// every order of its operands (the ordering is total on the non-NaN values
// and any NaN gives the one NaN).
//
// Interface: in_valid, in_min (0: maximum, 1: minimum), in_a, in_b and
// in_tag are sampled at a rising edge; out_valid is high for one cycle with
// out_z and out_tag LATENCY = 1 edge later.  One operation per clock, no
// backpressure.  rst clears out_valid.
//
// Datapath: each operand is mapped to a signed key that orders all non-NaN
// doubles (fpu_key.vh: a positive double's bits, a negative double's with
// all but the sign bit inverted), one 64-bit compare of the keys, a mux.
// The COP's MAXF / MINF tree uses the same keys on its integer ALU tree.
//
// Parameters: TW = 1..64, the width of the tag carried with each operation.
module fpu_minmax64 #(
    parameter integer TW = 1
) (
    input  wire          clk,
    input  wire          rst,
    input  wire          in_valid,
    input  wire          in_min,
    input  wire [63:0]   in_a,
    input  wire [63:0]   in_b,
    input  wire [TW-1:0] in_tag,
    output reg           out_valid,
    output reg  [63:0]   out_z,
    output reg  [TW-1:0] out_tag
);
    generate
        if (TW < 1 || TW > 64) begin : g_bad_tw
            $error("fpu_minmax64: TW must be in 1..64");
        end
    endgenerate

    localparam [63:0] QNAN = 64'h7FF8_0000_0000_0000;
`include "fpu_key.vh"

    wire        a_nan = fpu_is_nan(in_a);
    wire        b_nan = fpu_is_nan(in_b);
    wire [63:0] ka = fpu_okey(in_a);
    wire [63:0] kb = fpu_okey(in_b);
    // max takes b when a < b, min when not (equal keys are equal bits, so
    // either operand is the result)
    wire        take_b = in_min ^ ($signed(ka) < $signed(kb));

    always @(posedge clk) begin
        out_valid <= in_valid & ~rst;
        out_tag <= in_tag;
        out_z <= (a_nan | b_nan) ? QNAN : (take_b ? in_b : in_a);
    end
endmodule
`default_nettype wire
