`default_nettype none
// fpu_add64: IEEE 754 binary64 addition, round to nearest, ties to even,
// for the COP's double sum (seed 004, Table I: the floating-point sum
// codes; issue 23 asks for round to nearest even with NaN, signed zero and
// subnormals defined).  Fully pipelined: one addition accepted per clock.
//
// Interface: in_valid, in_a, in_b and in_tag are sampled at a rising edge;
// out_valid is high for one cycle, with out_z = in_a + in_b and the same
// out_tag, LATENCY = 6 edges later (an operation sampled at edge t is on
// the outputs after edge t+5, read by the user at edge t+6).  No
// backpressure: the pipeline never stalls.  The tag is carried unchanged,
// so a caller can match results to requests.  rst clears the valid bits;
// the data registers are not reset.
//
// Special values (docs/fpu.md):
//   * any NaN operand, or +inf + -inf, gives the canonical quiet NaN
//     0x7FF8000000000000 (payloads and signs of NaNs are not propagated);
//   * inf + finite = that inf; inf + inf of one sign = that inf;
//   * an exact zero sum is +0, except -0 + -0 = -0 (round to nearest);
//   * subnormal operands and results are exact IEEE (no flush to zero);
//   * a finite sum that rounds above the largest double is inf.
//   No exception flags are produced.
//
// Datapath (one register after each step):
//   1 unpack, compare magnitudes, swap so |big| >= |small|, exponent
//     difference d, special-value result;
//   2 align: the small significand shifted right by d in a 56-bit field
//     (53 bits, guard, round, and a sticky bit that the shifted-out bits
//     are ORed into); the subnormal limit of the normalizing shift as a
//     marker bit;
//   3 add or subtract the 56-bit significands (57-bit result);
//   4 leading-zero count of the sum, limited by the marker so that the
//     exponent does not go below the smallest normal one (a subnormal
//     result keeps exponent field 0);
//   5 normalize: one place right when the sum carried, else left by the
//     count; the exponent;
//   6 round to nearest even on the packed exponent and fraction (a carry
//     out of the fraction steps the exponent, which also turns the largest
//     subnormal into the smallest normal and the largest finite into inf),
//     overflow to inf, special values.
// Three extra bits suffice: when d >= 2 the difference needs at most one
// place of left shift, and the sticky bit keeps the sum on the same side of
// every rounding boundary; when d <= 1 nothing is shifted out.
//
// Parameters: TW = 1..64, the width of the tag carried with each operation.
module fpu_add64 #(
    parameter integer TW = 1
) (
    input  wire          clk,
    input  wire          rst,
    input  wire          in_valid,
    input  wire [63:0]   in_a,
    input  wire [63:0]   in_b,
    input  wire [TW-1:0] in_tag,
    output wire          out_valid,
    output wire [63:0]   out_z,
    output wire [TW-1:0] out_tag
);
    generate
        if (TW < 1 || TW > 64) begin : g_bad_tw
            $error("fpu_add64: TW must be in 1..64");
        end
    endgenerate

    localparam [63:0] QNAN = 64'h7FF8_0000_0000_0000;

    // ---- stage 1: unpack, compare, swap, specials ----------------------
    wire        a_max_e = &in_a[62:52];
    wire        b_max_e = &in_b[62:52];
    wire        a_nan = a_max_e & (|in_a[51:0]);
    wire        b_nan = b_max_e & (|in_b[51:0]);
    wire        a_inf = a_max_e & ~(|in_a[51:0]);
    wire        b_inf = b_max_e & ~(|in_b[51:0]);
    wire        a_ge = in_a[62:0] >= in_b[62:0];
    // a subnormal's exponent is that of the smallest normal (1), without
    // the hidden bit.  Everything of each operand is decoded beside the
    // compare, which then only selects (timing: the compare's carry chain
    // is most of the stage)
    wire        a_nz = |in_a[62:52];
    wire        b_nz = |in_b[62:52];
    wire [52:0] a_m = {a_nz, in_a[51:0]};
    wire [52:0] b_m = {b_nz, in_b[51:0]};
    wire [10:0] a_e = a_nz ? in_a[62:52] : 11'd1;
    wire [10:0] b_e = b_nz ? in_b[62:52] : 11'd1;
    wire [10:0] big_e = a_ge ? a_e : b_e;
    // both exponent differences, beside the compare rather than after it
    wire [10:0] d_ab = a_e - b_e;
    wire [10:0] d_ba = b_e - a_e;
    // the compare picks one difference; a difference above 63 (a bit above
    // bit 5: an OR, not a compare) is flagged, and stage 2 saturates it
    wire [5:0]  d_low = a_ge ? d_ab[5:0] : d_ba[5:0];
    wire        d_big = a_ge ? |d_ab[10:6] : |d_ba[10:6];
    wire        nan = a_nan | b_nan | (a_inf & b_inf & (in_a[63] ^ in_b[63]));
    wire        inf = a_inf | b_inf;

    reg          s1_v;
    reg [TW-1:0] s1_tag;
    reg          s1_spec;
    reg [63:0]   s1_spec_z;
    reg          s1_sign;      // sign of the bigger magnitude
    reg          s1_zsign;     // sign of an exact zero sum: -0 only for -0 + -0
    reg          s1_sub;       // effective subtraction
    reg [10:0]   s1_e;         // exponent of big (1 for a subnormal)
    reg [52:0]   s1_mb, s1_ms; // significands with the hidden bit
    reg [5:0]    s1_d;        // the exponent difference's low bits
    reg          s1_dbig;     // ... and whether it is above 63
    always @(posedge clk) begin
        s1_v <= in_valid & ~rst;
        s1_tag <= in_tag;
        s1_spec <= nan | inf;
        s1_spec_z <= nan ? QNAN : (a_inf ? in_a : in_b);
        s1_sign <= a_ge ? in_a[63] : in_b[63];
        s1_zsign <= in_a[63] & in_b[63];
        s1_sub <= in_a[63] ^ in_b[63];
        s1_e <= big_e;
        s1_mb <= a_ge ? a_m : b_m;
        s1_ms <= a_ge ? b_m : a_m;
        s1_d <= d_low;
        s1_dbig <= d_big;
    end

    // ---- stage 2: align -------------------------------------------------
    // a shift of 57 or more leaves only the sticky bit: 63 stands for all
    wire [5:0]   d_sat = s1_dbig ? 6'd63 : s1_d;
    wire [119:0] al = {s1_ms, 3'b000, 64'd0} >> d_sat;
    wire [55:0]  y_al = {al[119:65], al[64] | (|al[63:0])};
    // the normalizing left shift may go at most e - 1 places (to the
    // exponent of the smallest normal): a marker bit at 55 - (e - 1)
    wire [55:0]  lim = (s1_e > 11'd56) ? 56'd0 : (56'h80_0000_0000_0000 >> (s1_e - 11'd1));

    reg          s2_v;
    reg [TW-1:0] s2_tag;
    reg          s2_spec;
    reg [63:0]   s2_spec_z;
    reg          s2_sign, s2_zsign, s2_sub;
    reg [10:0]   s2_e;
    reg [55:0]   s2_x, s2_y, s2_lim;
    always @(posedge clk) begin
        s2_v <= s1_v & ~rst;
        s2_tag <= s1_tag;
        s2_spec <= s1_spec;
        s2_spec_z <= s1_spec_z;
        s2_sign <= s1_sign;
        s2_zsign <= s1_zsign;
        s2_sub <= s1_sub;
        s2_e <= s1_e;
        s2_x <= {s1_mb, 3'b000};
        s2_y <= y_al;
        s2_lim <= lim;
    end

    // ---- stage 3: add / subtract ----------------------------------------
    wire [56:0] sum = s2_sub ? ({1'b0, s2_x} - {1'b0, s2_y}) : ({1'b0, s2_x} + {1'b0, s2_y});

    reg          s3_v;
    reg [TW-1:0] s3_tag;
    reg          s3_spec;
    reg [63:0]   s3_spec_z;
    reg          s3_sign, s3_zsign;
    reg [10:0]   s3_e;
    reg [56:0]   s3_s;
    reg [55:0]   s3_lim;
    always @(posedge clk) begin
        s3_v <= s2_v & ~rst;
        s3_tag <= s2_tag;
        s3_spec <= s2_spec;
        s3_spec_z <= s2_spec_z;
        s3_sign <= s2_sign;
        s3_zsign <= s2_zsign;
        s3_e <= s2_e;
        s3_s <= sum;
        s3_lim <= s2_lim;
    end

    // ---- stage 4: leading zeros ------------------------------------------
    wire [6:0] lz;
    fpu_lzc #(.L(6)) u_lzc (.x({s3_s[55:0] | s3_lim, 8'd0}), .n(lz));

    reg          s4_v;
    reg [TW-1:0] s4_tag;
    reg          s4_spec;
    reg [63:0]   s4_spec_z;
    reg          s4_sign, s4_zero;
    reg [10:0]   s4_e;
    reg [56:0]   s4_s;
    reg [5:0]    s4_lz;
    always @(posedge clk) begin
        s4_v <= s3_v & ~rst;
        s4_tag <= s3_tag;
        s4_spec <= s3_spec;
        s4_spec_z <= s3_spec_z;
        // an exact zero: -0 only for -0 + -0
        s4_sign <= (s3_s == 57'd0) ? s3_zsign : s3_sign;
        s4_zero <= s3_s == 57'd0;
        s4_e <= s3_e;
        s4_s <= s3_s;
        // lz > 55 only when the sum is 0 (the marker is set whenever e <= 56)
        s4_lz <= lz[6] ? 6'd63 : lz[5:0];
    end

    // ---- stage 5: normalize ----------------------------------------------
    wire [55:0] n_left = s4_s[55:0] << s4_lz;
    // (bit 55, the hidden bit, is accounted for in the exponent)
    wire [54:0] n_norm = s4_s[56] ? {s4_s[55:2], s4_s[1] | s4_s[0]} : n_left[54:0];
    wire [11:0] e_norm = s4_s[56] ? ({1'b0, s4_e} + 12'd1)
                                   : (n_left[55] ? ({1'b0, s4_e} - {6'd0, s4_lz}) : 12'd0);

    reg          s5_v;
    reg [TW-1:0] s5_tag;
    reg          s5_spec;
    reg [63:0]   s5_spec_z;
    reg          s5_sign, s5_zero;
    reg [11:0]   s5_e;
    reg [54:0]   s5_n;   // the hidden bit is in the exponent
    always @(posedge clk) begin
        s5_v <= s4_v & ~rst;
        s5_tag <= s4_tag;
        s5_spec <= s4_spec;
        s5_spec_z <= s4_spec_z;
        s5_sign <= s4_sign;
        s5_zero <= s4_zero;
        s5_e <= e_norm;
        s5_n <= n_norm;
    end

    // ---- stage 6: round and pack -------------------------------------------
    wire        rnd = s5_n[2] & (s5_n[1] | s5_n[0] | s5_n[3]);
    wire [62:0] pk = {s5_e[10:0], s5_n[54:3]} + {62'd0, rnd};
    wire        ovf = s5_e >= 12'd2047;
    wire [63:0] z = s5_spec ? s5_spec_z
                  : s5_zero ? {s5_sign, 63'd0}
                  : ovf ? {s5_sign, 11'h7FF, 52'd0}
                  : {s5_sign, pk};

    reg          s6_v;
    reg [TW-1:0] s6_tag;
    reg [63:0]   s6_z;
    always @(posedge clk) begin
        s6_v <= s5_v & ~rst;
        s6_tag <= s5_tag;
        s6_z <= z;
    end

    assign out_valid = s6_v;
    assign out_z = s6_z;
    assign out_tag = s6_tag;
endmodule
`default_nettype wire
