`default_nettype none
// fpu_exact_acc: the COP's reproducible double sum (issue 23, "beyond the
// seed": seed 004's Table I sums in service order; this one is exact).
// Every term is added exactly into a fixed-point accumulator that covers the
// whole binary64 range, and ROUND converts the exact sum to the correctly
// rounded double (round to nearest, ties to even).  The result depends only
// on the multiset of terms: it is bit-identical for every order, batching
// or split of the same terms.
//
// The accumulator: 33 limbs of 64 bits, bit 0 of limb 0 weighing 2^-1074
// (the smallest subnormal), so limbs 0..32 cover 2^-1074 .. 2^1037.  Each
// limb register has CW = 14 more bits (78 in all, two's complement) that
// hold its carries: a term changes at most two limbs, by less than 2^64
// each, and carries are not passed on while terms arrive.  Up to
// MAX_TERMS = 8192 terms between CLEARs fit (every limb stays below 2^77 in
// magnitude, and 8192 terms below 2^1024 sum below 2^1037); the 8193rd term
// makes the result NaN until the next CLEAR.
//
// Commands (cmd_valid & cmd_ready at a rising edge; in order):
//   ADD   (0): add cmd_x;
//   CLEAR (1): empty the accumulator and its flags;
//   ROUND (2): res_valid pulses once with the rounded sum of every term
//              added since the last CLEAR; the accumulator keeps its value
//              (terms may follow and a later ROUND includes them);
//   ROUND_CLEAR (3): ROUND, then CLEAR when the result is out;
//   MERGE_LIMB (4): add limb cmd_idx (0..32) of another accumulator, as
//              read from its rd_data: unsigned for 0..31, signed for 32;
//   MERGE_FLAGS (5): merge the flag word (rd_idx 33) of another
//              accumulator: its NaN / +inf / -inf / all -0 flags and its
//              term count (the total counts against MAX_TERMS);
//   6, 7: ignored.
// cmd_ready is low from the cycle after a ROUND is accepted until the
// cycle after its res_valid; otherwise one command per clock is taken.
//
// Export, for a two-level tree (a second accumulator merges this one's
// exact value, so the tree's result is the same as one accumulator's):
// rd_data is, one edge after rd_idx, limb rd_idx (0..32) or, for rd_idx 33,
// the flag word {34'd0, count[13:0], 11'd0, ovf, all -0, -inf, +inf, NaN}
// (0 for 34..63).  The limbs are carry-free, and the export right, from
// the cycle of a ROUND's res_valid until the next ADD or MERGE; 34
// MERGE commands (33 limbs, the flag word) merge it, one per clock.
//
// Special values (docs/fpu.md), tracked in flags beside the accumulator:
//   * a NaN term, both +inf and -inf terms, or more than MAX_TERMS terms:
//     the canonical quiet NaN 0x7FF8000000000000;
//   * else an infinite term: that infinity;
//   * an exact sum that rounds above the largest double: inf of its sign;
//   * an exact zero sum: -0 when there was at least one term and every
//     term was -0 (what IEEE addition in any order gives), else +0;
//   * subnormal terms and results are exact IEEE (no flush to zero).
//
// Pipeline.  A term is unpacked (stage A: significand and bit position) and
// shifted to its place in two limbs (stage B), then added (stage C, every
// limb has its own 78-bit adder): one term per clock, no stall.  ROUND
// takes the accumulator through:
//   RES  carry resolution: every limb at once takes its low 64 bits plus
//        the carry bits of the limb below (limb 32 keeps all its bits)
//        until no limb below 32 holds a carry; the first step leaves
//        carries of -1, 0 or +1 and none in limb 0, and after step s only
//        limbs s and above can hold one, so at most 32 steps; the loop
//        leaves one cycle after the first step that found none;
//   F1   per limb: significant (not a sign extension of the limbs above)
//        and nonzero;
//   F2   the most significant significant limb k (0 if none), the sticky OR
//        of the limbs below k-1;
//   F3   the 128-bit window of limbs k and k-1;
//   F4   its magnitude (for a negative sum: the inverted window, plus one
//        when every bit below it is 0);
//   F5   leading zeros of the 129-bit magnitude;
//   F6   the exponent and the normalizing shift (a subnormal result: only
//        to the exponent of the smallest normal);
//   F7   normalize;
//   F8   round to nearest even on the packed exponent and fraction,
//        overflow, special values.
// Latency of ROUND: accepted at edge t, res_valid after edge t + 9 + R,
// where R (2..34) is the number of RES cycles: 2 when no carries are
// pending, a few after random terms, 34 for a carry that ripples through
// every limb.
//
// rst empties the accumulator and drops every command in flight.
module fpu_exact_acc (
    input  wire        clk,
    input  wire        rst,
    input  wire        cmd_valid,
    output wire        cmd_ready,
    input  wire [2:0]  cmd_op,
    input  wire [5:0]  cmd_idx,
    input  wire [63:0] cmd_x,
    output reg         res_valid,
    output reg  [63:0] res_z,
    input  wire [5:0]  rd_idx,
    output reg  [63:0] rd_data
);
    localparam integer NL = 33;        // limbs
    localparam integer LW = 64;        // value bits per limb
    localparam integer CW = 14;        // carry bits per limb
    localparam integer LR = LW + CW;   // limb register
    localparam integer MAX_TERMS = 8192;

    localparam [2:0] OP_ADD = 3'd0, OP_CLEAR = 3'd1, OP_ROUND = 3'd2, OP_ROUND_CLEAR = 3'd3;
    localparam [2:0] OP_MLIMB = 3'd4, OP_MFLAGS = 3'd5;
    localparam [1:0] S_IDLE = 2'd0, S_RES = 2'd1, S_FIN = 2'd2;
    localparam [63:0] QNAN = 64'h7FF8_0000_0000_0000;

    integer i;

    reg        rnd_pend;      // a ROUND accepted and not yet answered
    assign cmd_ready = ~rnd_pend;
    wire       take = cmd_valid & ~rnd_pend;

    // ---- stage A: unpack --------------------------------------------------
    wire [10:0] xe = cmd_x[62:52];
    wire        x_spec = &xe;
    wire        x_frac = |cmd_x[51:0];
    reg         a_v, a_neg, a_nan, a_pinf, a_ninf, a_negz;
    reg [2:0]   a_op;
    reg [52:0]  a_m;          // significand (0 for specials)
    reg [10:0]  a_p;          // accumulator bit of its least significant bit
    reg [63:0]  a_x;          // MERGE: the magnitude of the limb, or the flag word
    reg [5:0]   a_idx;
    reg         a_mneg;       // MERGE_LIMB: a negative top limb
    always @(posedge clk) begin
        a_v <= take & ~rst;
        a_op <= cmd_op;
        a_m <= x_spec ? 53'd0 : {|xe, cmd_x[51:0]};
        a_p <= (xe == 11'd0) ? 11'd0 : xe - 11'd1;
        a_neg <= cmd_x[63];
        a_nan <= x_spec & x_frac;
        a_pinf <= x_spec & ~x_frac & ~cmd_x[63];
        a_ninf <= x_spec & ~x_frac & cmd_x[63];
        a_negz <= cmd_x == 64'h8000_0000_0000_0000;
        a_mneg <= (cmd_idx == 6'd32) & cmd_x[63];
        a_x <= ((cmd_idx == 6'd32) & cmd_x[63] & (cmd_op == OP_MLIMB)) ? 64'd0 - cmd_x : cmd_x;
        a_idx <= cmd_idx;
    end

    // ---- stage B: place the significand in limbs q and q+1 ---------------
    wire [115:0] a_sh = {63'd0, a_m} << a_p[5:0];
    reg          b_v, b_neg, b_nan, b_pinf, b_ninf, b_negz, b_ovf;
    reg [2:0]    b_op;
    reg [13:0]   b_cnt;       // terms this command brings (ADD: 1)
    reg [63:0]   b_lo;        // to limb q
    reg [51:0]   b_hi;        // to limb q+1
    reg [NL-1:0] b_sello, b_selhi;
    always @(posedge clk) begin
        b_v <= a_v & ~rst;
        b_op <= a_op;
        if (a_op == OP_MFLAGS) begin
            b_neg <= 1'b0;
            b_nan <= a_x[0];
            b_pinf <= a_x[1];
            b_ninf <= a_x[2];
            b_negz <= a_x[3];
            b_ovf <= a_x[4];
            b_cnt <= a_x[29:16];
        end else begin
            b_neg <= (a_op == OP_MLIMB) ? a_mneg : a_neg;
            b_nan <= a_nan;
            b_pinf <= a_pinf;
            b_ninf <= a_ninf;
            b_negz <= a_negz;
            b_ovf <= 1'b0;
            b_cnt <= 14'd1;
        end
        if (a_op == OP_MLIMB) begin
            b_lo <= a_x;
            b_hi <= 52'd0;
        end else begin
            b_lo <= a_sh[63:0];
            b_hi <= a_sh[115:64];
        end
        // only ADD and MERGE_LIMB reach the limbs (stage C); the selects
        // of the other commands do not matter
        for (i = 0; i < NL; i = i + 1) begin
            b_sello[i] <= ((a_op == OP_MLIMB) ? a_idx : {1'b0, a_p[10:6]}) == i[5:0];
            b_selhi[i] <= (a_op != OP_MLIMB) && ({1'b0, a_p[10:6]} + 6'd1 == i[5:0]);
        end
    end

    // ---- stage C: the accumulator and its flags ---------------------------
    reg [NL*LR-1:0] acc;
    reg             f_nan, f_pinf, f_ninf, f_allnegz, f_ovf;
    reg [13:0]      f_cnt;
    reg [1:0]       st;
    reg             nc_q;     // the accumulator of the cycle before had no carries
    reg             clr_after;

    // one adder per limb: a term's piece (add or subtract), or in RES the
    // limb's low 64 bits plus the carry bits of the limb below
    reg [NL*LR-1:0] acc_nxt;
    reg [NL*CW-1:0] cup;      // carry bits coming up into each limb
    reg [LR-1:0]    opa, opb;
    reg [LW-1:0]    piece;
    reg             cin;
    reg             carries;
    always @* begin
        cup[CW-1:0] = {CW{1'b0}};
        for (i = 1; i < NL; i = i + 1) cup[i*CW +: CW] = acc[(i-1)*LR+LW +: CW];
        carries = |cup;       // carry bits of limbs 0..31
        acc_nxt = {NL*LR{1'b0}};
        for (i = 0; i < NL; i = i + 1) begin
            piece = (b_sello[i] ? b_lo : {LW{1'b0}}) | (b_selhi[i] ? {12'd0, b_hi} : {LW{1'b0}});
            if (st == S_RES) begin
                opa = (i == NL - 1) ? acc[i*LR +: LR] : {{CW{1'b0}}, acc[i*LR +: LW]};
                opb = {{LW{cup[i*CW+CW-1]}}, cup[i*CW +: CW]};
                cin = 1'b0;
            end else begin
                opa = acc[i*LR +: LR];
                opb = {{CW{1'b0}}, piece} ^ {LR{b_neg}};
                cin = b_neg;
            end
            acc_nxt[i*LR +: LR] = opa + opb + {{LR-1{1'b0}}, cin};
        end
    end

    wire b_add = b_v & (st == S_IDLE) & (b_op == OP_ADD);
    wire b_mlimb = b_v & (st == S_IDLE) & (b_op == OP_MLIMB);
    wire b_mflags = b_v & (st == S_IDLE) & (b_op == OP_MFLAGS);
    wire b_clr = b_v & (st == S_IDLE) & (b_op == OP_CLEAR);
    wire b_rnd = b_v & (st == S_IDLE) & ((b_op == OP_ROUND) | (b_op == OP_ROUND_CLEAR));
    // the count after this command, saturated one above the limit
    wire [14:0] cnt_sum = {1'b0, f_cnt} + {1'b0, b_cnt};
    wire        cnt_over = cnt_sum > MAX_TERMS[14:0];
    reg  [7:0] fin;           // F1..F8 valid
    wire       done = fin[7];
    wire       clr_now = rst | b_clr | (done & clr_after);

    always @(posedge clk) begin
        if (clr_now) acc <= {NL*LR{1'b0}};
        else if (b_add || b_mlimb || st == S_RES) acc <= acc_nxt;

        if (clr_now) begin
            f_nan <= 1'b0;
            f_pinf <= 1'b0;
            f_ninf <= 1'b0;
            f_allnegz <= 1'b1;
            f_ovf <= 1'b0;
            f_cnt <= 14'd0;
        end else if (b_add || b_mflags) begin
            f_nan <= f_nan | b_nan;
            f_pinf <= f_pinf | b_pinf;
            f_ninf <= f_ninf | b_ninf;
            f_allnegz <= f_allnegz & b_negz;
            f_ovf <= f_ovf | b_ovf | cnt_over;
            f_cnt <= cnt_over ? MAX_TERMS[13:0] : cnt_sum[13:0];
        end

        nc_q <= ~carries & (st == S_RES);
        if (rst) begin
            st <= S_IDLE;
            rnd_pend <= 1'b0;
            clr_after <= 1'b0;
        end else begin
            if (take && (cmd_op == OP_ROUND || cmd_op == OP_ROUND_CLEAR)) rnd_pend <= 1'b1;
            else if (done) rnd_pend <= 1'b0;
            case (st)
                S_IDLE: if (b_rnd) begin
                    st <= S_RES;
                    clr_after <= b_op == OP_ROUND_CLEAR;
                end
                S_RES: if (nc_q) st <= S_FIN;
                default: if (done) st <= S_IDLE;
            endcase
        end
    end

    always @(posedge clk) begin
        if (rst) fin <= 8'd0;
        else fin <= {fin[6:0], st == S_RES && nc_q};
    end

    // ---- export ----------------------------------------------------------------
    reg [63:0] rd_mux;
    always @* begin
        rd_mux = 64'd0;
        for (i = 0; i < NL; i = i + 1)
            if (rd_idx == i[5:0]) rd_mux = acc[i*LR +: LW];
        if (rd_idx == 6'd33)
            rd_mux = {34'd0, f_cnt, 11'd0, f_ovf, f_allnegz, f_ninf, f_pinf, f_nan};
    end
    always @(posedge clk) rd_data <= rd_mux;

    // ---- F1: significant and nonzero limbs ---------------------------------
    reg [NL-1:0] f1_sig, f1_nz;
    reg          f1_neg;
    always @(posedge clk) begin
        f1_neg <= acc[NL*LR-1];
        for (i = 0; i < NL; i = i + 1) begin
            f1_nz[i] <= |acc[i*LR +: LW];
            f1_sig[i] <= acc[NL*LR-1] ? ~&acc[i*LR +: LW] : |acc[i*LR +: LW];
        end
    end

    // ---- F2: the leading limb k (one-hot), sticky below k-1 ----------------
    reg [NL-1:0] oh, below;
    reg          seen, lowor;
    always @* begin
        seen = 1'b0;
        for (i = NL - 1; i >= 0; i = i - 1) begin
            // limb 0 counts as significant when no limb is: the window of a
            // zero sum is 0, that of -1 (all limbs all ones) is limb 0's
            oh[i] = (f1_sig[i] | (i == 0)) & ~seen;
            seen = seen | f1_sig[i];
        end
        below[0] = 1'b0;
        lowor = 1'b0;
        for (i = 1; i < NL; i = i + 1) begin
            below[i] = lowor;                       // OR of limbs 0 .. i-2
            lowor = lowor | f1_nz[i-1];
        end
    end
    reg [NL-1:0] f2_oh;
    reg [5:0]    f2_k;
    reg          f2_st, f2_neg;
    always @(posedge clk) begin
        f2_oh <= oh;
        f2_st <= |(oh & below);
        f2_neg <= f1_neg;
        f2_k <= 6'd0;
        for (i = 0; i < NL; i = i + 1)
            if (oh[i]) f2_k <= i[5:0];
    end

    // ---- F3: the window of limbs k and k-1 ---------------------------------
    reg [127:0] win;
    always @* begin
        win = 128'd0;
        for (i = 0; i < NL; i = i + 1)
            if (f2_oh[i]) win[127:64] = win[127:64] | acc[i*LR +: LW];
        for (i = 0; i < NL - 1; i = i + 1)
            if (f2_oh[i+1]) win[63:0] = win[63:0] | acc[i*LR +: LW];
    end
    reg [127:0] f3_w;
    reg [5:0]   f3_k;
    reg         f3_st, f3_neg;
    always @(posedge clk) begin
        f3_w <= win;
        f3_k <= f2_k;
        f3_st <= f2_st;
        f3_neg <= f2_neg;
    end

    // ---- F4: magnitude ---------------------------------------------------------
    // -V = ~V + 1: the +1 reaches the window only when every bit below it is 0
    reg [128:0] f4_m;
    reg [5:0]   f4_k;
    reg         f4_st, f4_neg;
    always @(posedge clk) begin
        f4_m <= f3_neg ? ({1'b0, ~f3_w} + {128'd0, ~f3_st}) : {1'b0, f3_w};
        f4_k <= f3_k;
        f4_st <= f3_st;
        f4_neg <= f3_neg;
    end

    // ---- F5: leading zeros ---------------------------------------------------
    wire [7:0]   lz128;
    fpu_lzc #(.L(7)) u_lzc (.x(f4_m[127:0]), .n(lz128));
    reg  [128:0] f5_m;
    reg  [7:0]   f5_lz128;
    reg  [5:0]   f5_k;
    reg          f5_st, f5_neg;
    always @(posedge clk) begin
        f5_m <= f4_m;
        f5_lz128 <= lz128;
        f5_k <= f4_k;
        f5_st <= f4_st;
        f5_neg <= f4_neg;
    end

    // ---- F6: exponent and shift ----------------------------------------------
    wire [7:0]  lz = f5_m[128] ? 8'd0 : f5_lz128 + 8'd1;        // 0..129
    // accumulator bit of the leading one: the window starts at limb k-1
    wire [12:0] lead = {1'b0, f5_k, 6'd0} + 13'd64 - {5'd0, lz};
    // normal when the leading one is at accumulator bit 52 (2^-1022) or
    // above; else (only with k = 0, the window starting at bit -64) shift
    // bit 52 to the top: 12 places
    wire        normal = ~lead[12] & (lead >= 13'd52);
    reg  [127:0] f6_m;        // (bit 128 becomes the hidden bit)
    reg  [7:0]   f6_sh;
    reg  [11:0]  f6_e;
    reg          f6_zero, f6_st, f6_neg;
    always @(posedge clk) begin
        f6_m <= f5_m[127:0];
        f6_sh <= normal ? lz : 8'd12;
        f6_e <= normal ? lead[11:0] - 12'd51 : 12'd0;
        f6_zero <= ~f5_m[128] & f5_lz128[7];
        f6_st <= f5_st;
        f6_neg <= f5_neg;
    end

    // ---- F7: normalize -----------------------------------------------------
    reg  [127:0] f7_n;        // below the hidden bit
    reg  [11:0]  f7_e;
    reg          f7_zero, f7_st, f7_neg;
    always @(posedge clk) begin
        f7_n <= f6_m << f6_sh;
        f7_e <= f6_e;
        f7_zero <= f6_zero;
        f7_st <= f6_st;
        f7_neg <= f6_neg;
    end

    // ---- F8: round, pack, specials ----------------------------------------
    wire        sticky = (|f7_n[74:0]) | f7_st;
    wire        rnd = f7_n[75] & (sticky | f7_n[76]);
    wire [62:0] pk = {f7_e[10:0], f7_n[127:76]} + {62'd0, rnd};
    wire        nan = f_nan | (f_pinf & f_ninf) | f_ovf;
    wire [63:0] z = nan ? QNAN
                  : f_pinf ? 64'h7FF0_0000_0000_0000
                  : f_ninf ? 64'hFFF0_0000_0000_0000
                  : f7_zero ? {f_allnegz & (f_cnt != 14'd0), 63'd0}
                  : (f7_e >= 12'd2047) ? {f7_neg, 11'h7FF, 52'd0}
                  : {f7_neg, pk};
    always @(posedge clk) begin
        res_valid <= fin[6] & ~rst;
        res_z <= z;
    end
endmodule
`default_nettype wire
