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
// limb has CW = 14 more bits (78 in all, two's complement) that hold its
// carries: a term changes at most two limbs, by less than 2^64 each, and
// carries are not passed on while terms arrive.  Up to MAX_TERMS = 8192
// terms between CLEARs fit (every limb stays below 2^77 in magnitude, and
// 8192 terms below 2^1024 sum below 2^1037); the 8193rd term makes the
// result NaN until the next CLEAR.
// Limbs 0..31 are kept in two banks of LUT RAM, 16 words of 78 bits each
// (even limbs in bank E, odd ones in bank O, limb i at word i/2), limb 32
// in a register.  A term's two pieces fall in adjacent limbs, so in
// different banks: each bank does one read-modify-write per clock, and no
// limb is read by a wide multiplexer.  CLEAR drops a live bit per word (a
// word not written since reads 0).
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
// Pipeline.  A term is unpacked (stage A: significand and bit position),
// shifted to its place in two limbs (stage B: the two pieces and their bank
// words), its words read (C1: each bank's asynchronous read, registered)
// and its pieces added and written (C2: each bank's adder, and limb 32's).
// A word that the term in C2 writes is read stale by the next term's C1;
// that term's C2 takes the sum just written instead.  One term per clock,
// no stall.  ROUND takes the accumulator through:
//   SWEEP carry resolution, one limb per clock from limb 0 to limb 32, in
//        three steps a limb: READ (from the cycle after the ROUND is in C1,
//        when the last term's C2 has written), ADD (the limb plus the carry
//        from below; its low 64 bits are written back and the rest is the
//        carry into the next limb; limb 32 keeps every bit and gives the
//        sign), LOOK (below);
//   LOOK the window candidates: the window is limbs k and k-1, k the most
//        significant significant limb (not just the sign extension: not
//        all 0 for a positive sum, not all 1 for a negative one; limb 0 if
//        none), with the sticky OR of the limbs below k-1.  The sign is
//        known only at limb 32, so LOOK keeps a candidate for each sign;
//   F3   the window of the sum's sign (in LOOK's last cycle: the sign is
//        limb 32's, known since its ADD);
//   F4   its magnitude (for a negative sum: the inverted window, plus one
//        when every bit below it is 0);
//   F5   leading zeros of the 129-bit magnitude;
//   F6   the exponent and the normalizing shift (a subnormal result: only
//        to the exponent of the smallest normal);
//   F7   normalize;
//   F8   round to nearest even (F8a: the round bit) on the packed
//        exponent and fraction (F8b), overflow, special values.
// Latency of ROUND, whatever the terms: accepted at edge t, res_valid after
// edge t + 43 (stages A, B and C1, 33 SWEEP limbs and its last ADD and
// LOOK, F4..F8b).  The resolved accumulator holds the same value, so ROUND
// does not disturb it, and its limbs are then carry-free (the export's).
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
    localparam integer LW = 64;        // value bits per limb
    localparam integer CW = 14;        // carry bits per limb
    localparam integer LR = LW + CW;   // limb register
    localparam integer MAX_TERMS = 8192;

    localparam [2:0] OP_ADD = 3'd0, OP_CLEAR = 3'd1, OP_ROUND = 3'd2, OP_ROUND_CLEAR = 3'd3;
    localparam [2:0] OP_MLIMB = 3'd4, OP_MFLAGS = 3'd5;
    localparam [63:0] QNAN = 64'h7FF8_0000_0000_0000;


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
    // Limb q (q = a_p / 64, or a MERGE_LIMB's index) takes the low piece,
    // limb q+1 the high one (ADD only).  Limbs 0..31 live in two banks of
    // LUT RAM (even limbs in bank E at q/2, odd ones in bank O), limb 32 in
    // a register (T): the two pieces of a term always fall in different
    // banks, so each bank does one read-modify-write per clock.
    wire [115:0] a_sh = {63'd0, a_m} << a_p[5:0];
    wire [5:0]   a_q = (a_op == OP_MLIMB) ? a_idx : {1'b0, a_p[10:6]};
    wire [5:0]   a_q1 = a_q + 6'd1;
    wire         unused_q1 = a_q1[0];
    wire [63:0]  a_lo = (a_op == OP_MLIMB) ? a_x : a_sh[63:0];
    wire [63:0]  a_hi = {12'd0, a_sh[115:64]};
    wire         a_lims = a_v && ((a_op == OP_ADD) || (a_op == OP_MLIMB));
    wire         a_two = a_op == OP_ADD;        // a high piece too
    reg          b_v, b_neg, b_nan, b_pinf, b_ninf, b_negz, b_ovf;
    reg [2:0]    b_op;
    reg [13:0]   b_cnt;       // terms this command brings (ADD: 1)
    reg          b_lim;                         // an ADD or MERGE_LIMB: the banks are its
    reg          be_v, bo_v, bt_v;              // bank E, bank O, limb 32 take a piece
    reg [3:0]    be_a, bo_a;                    // ... at this bank address
    reg [63:0]   be_d, bo_d, bt_d;              // ... this piece
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
        // q even: the low piece to bank E, the high one to bank O (same
        // address); q odd: low to O, high to E at the next address or, for
        // q = 31, to limb 32.  Only ADD and MERGE_LIMB write (stage C2).
        b_lim <= a_lims & ~rst;
        be_v <= a_lims && !rst && (a_q[0] ? (a_two && !a_q1[5]) : !a_q[5]);
        bo_v <= a_lims && !rst && (a_q[0] || a_two);
        bt_v <= a_lims && !rst && (a_q[5] || (a_two && a_q1[5]));
        be_a <= a_q[0] ? a_q1[4:1] : a_q[4:1];
        bo_a <= a_q[4:1];
        be_d <= a_q[0] ? a_hi : a_lo;
        bo_d <= a_q[0] ? a_lo : a_hi;
        bt_d <= a_q[5] ? a_lo : a_hi;
    end

    // ---- stage C: the accumulator and its flags ---------------------------
    reg [LR-1:0]  bank_e [0:15];   // limbs 0, 2, .., 30
    reg [LR-1:0]  bank_o [0:15];   // limbs 1, 3, .., 31
    reg [15:0]    live_e, live_o;  // a bank word written since the last CLEAR (else it reads 0)
    reg [LR-1:0]  top;             // limb 32
    reg           f_nan, f_pinf, f_ninf, f_allnegz, f_ovf;
    reg [13:0]    f_cnt;
    reg           clr_after;

    wire b_add = b_v & (b_op == OP_ADD);
    wire b_mflags = b_v & (b_op == OP_MFLAGS);
    wire b_clr = b_v & (b_op == OP_CLEAR);
    wire b_rnd = b_v & ((b_op == OP_ROUND) | (b_op == OP_ROUND_CLEAR));
    reg  [6:0] fin;           // F4..F8b valid
    wire       done = fin[6];
    wire       clr_now = rst | b_clr | (done & clr_after);

    // SWEEP, three steps a limb, one limb per clock: READ (limb sj from its
    // bank, from the cycle after a ROUND is in stage C1, when the last
    // term's C2 has written), ADD (the carry from below; the low 64 bits
    // written back, the rest the next carry), LOOK (the window candidates).
    reg        sw_rd;         // READ: limb sj
    reg [5:0]  sj;
    // The banks' one read port each: SWEEP's READ, the term's words in
    // stage C1, else the export (the selects are registers).
    wire [3:0] ra_e = sw_rd ? sj[4:1] : b_lim ? be_a : rd_idx[4:1];
    wire [3:0] ra_o = sw_rd ? sj[4:1] : b_lim ? bo_a : rd_idx[4:1];
    wire [LR-1:0] cur_e = live_e[ra_e] ? bank_e[ra_e] : {LR{1'b0}};
    wire [LR-1:0] cur_o = live_o[ra_o] ? bank_o[ra_o] : {LR{1'b0}};

    // Stage C1 reads the term's words; C2 adds its pieces (or, negative,
    // subtracts them) and writes.  A word the term in C2 writes is stale in
    // the next term's C1 read: C2 then takes the sum it wrote (d_e, d_o).
    reg           c_ev, c_ov, c_tv, c_neg, c_fe, c_fo;
    reg [3:0]     c_ea, c_oa;
    reg [15:0]    c_eh, c_oh;   // c_ea, c_oa one-hot (the live bits they set)
    reg [63:0]    c_ed, c_od, c_td;
    reg [LR-1:0]  c_re, c_ro, d_e, d_o;
    always @(posedge clk) begin
        c_ev <= be_v & ~rst;
        c_ov <= bo_v & ~rst;
        c_tv <= bt_v & ~rst;
        c_neg <= b_neg;
        c_ea <= be_a;
        c_oa <= bo_a;
        c_eh <= 16'd1 << be_a;
        c_oh <= 16'd1 << bo_a;
        c_ed <= be_d;
        c_od <= bo_d;
        c_td <= bt_d;
        c_re <= cur_e;
        c_ro <= cur_o;
        c_fe <= c_ev && (c_ea == be_a);
        c_fo <= c_ov && (c_oa == bo_a);
    end
    wire [LR-1:0] op_e = c_fe ? d_e : c_re;
    wire [LR-1:0] op_o = c_fo ? d_o : c_ro;
    wire [LR-1:0] sum_e = op_e + ({{CW{1'b0}}, c_ed} ^ {LR{c_neg}}) + {{LR-1{1'b0}}, c_neg};
    wire [LR-1:0] sum_o = op_o + ({{CW{1'b0}}, c_od} ^ {LR{c_neg}}) + {{LR-1{1'b0}}, c_neg};
    wire [LR-1:0] sum_t = top + ({{CW{1'b0}}, c_td} ^ {LR{c_neg}}) + {{LR-1{1'b0}}, c_neg};
    always @(posedge clk) begin
        d_e <= sum_e;
        d_o <= sum_o;
    end

    // ADD: limb s_j (read into s_l) plus the carry from below, in 80 bits
    reg           s_v;
    reg [5:0]     s_j;
    reg [15:0]    s_h;        // s_j's word one-hot
    reg [LR-1:0]  s_l;
    reg [15:0]    cy;         // the carry into limb s_j (two's complement)
    wire [79:0]   s_sum = {{80-LR{s_l[LR-1]}}, s_l} + {{64{cy[15]}}, cy};
    wire          s_low = s_v && !s_j[5];    // limbs 0..31 go back to their bank
    wire [3:0]    wa_e = s_low ? s_j[4:1] : c_ea;
    wire [3:0]    wa_o = s_low ? s_j[4:1] : c_oa;
    wire          we_e = (s_low && !s_j[0]) || c_ev;
    wire          we_o = (s_low && s_j[0]) || c_ov;
    wire [LR-1:0] res_l = {{CW{1'b0}}, s_sum[LW-1:0]};
    reg           r_neg;      // the resolved sum is negative (limb 32's sign)

    // the count after this command, saturated one above the limit
    wire [14:0] cnt_sum = {1'b0, f_cnt} + {1'b0, b_cnt};
    wire        cnt_over = cnt_sum > MAX_TERMS[14:0];

    always @(posedge clk) begin
        // the banks: a resolved limb (ADD), or a term's pieces (C2)
        if (we_e) bank_e[wa_e] <= s_low ? res_l : sum_e;
        if (we_o) bank_o[wa_o] <= s_low ? res_l : sum_o;
        if (clr_now) begin
            live_e <= 16'd0;
            live_o <= 16'd0;
            top <= {LR{1'b0}};
        end else begin
            // (from one-hot registers: a decode of wa_e here was the
            // critical path)
            live_e <= live_e | ({16{c_ev}} & c_eh) | ({16{s_low && !s_j[0]}} & s_h);
            live_o <= live_o | ({16{c_ov}} & c_oh) | ({16{s_low && s_j[0]}} & s_h);
            if (s_v && s_j[5]) top <= s_sum[LR-1:0];
            else if (c_tv) top <= sum_t;
        end

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

        // SWEEP's READ and ADD
        if (rst) begin
            rnd_pend <= 1'b0;
            clr_after <= 1'b0;
            sw_rd <= 1'b0;
            sj <= 6'd0;
            s_v <= 1'b0;
        end else begin
            if (take && (cmd_op == OP_ROUND || cmd_op == OP_ROUND_CLEAR)) rnd_pend <= 1'b1;
            else if (done) rnd_pend <= 1'b0;
            if (b_rnd) begin
                sw_rd <= 1'b1;
                sj <= 6'd0;
                clr_after <= b_op == OP_ROUND_CLEAR;
            end else if (sw_rd) begin
                sw_rd <= !sj[5];
                sj <= sj + 6'd1;
            end
            s_v <= sw_rd;
        end
        s_j <= sj;
        s_h <= 16'd1 << sj[4:1];
        s_l <= sj[5] ? top : sj[0] ? cur_o : cur_e;
        cy <= s_v ? s_sum[79:64] : 16'd0;
        if (s_v && s_j[5]) r_neg <= s_sum[79];
    end

    // ---- export ----------------------------------------------------------------
    // (the banks' read ports follow rd_idx while nothing else uses them)
    always @(posedge clk)
        rd_data <= (rd_idx == 6'd33) ? {34'd0, f_cnt, 11'd0, f_ovf, f_allnegz, f_ninf, f_pinf, f_nan}
                 : (rd_idx == 6'd32) ? top[LW-1:0]
                 : rd_idx[5] ? 64'd0
                 : rd_idx[0] ? cur_o[LW-1:0] : cur_e[LW-1:0];

    // ---- SWEEP's LOOK: the window candidates --------------------------------
    // The window is limbs k and k-1, k the most significant significant
    // limb: not just the sign extension (not all 0 for a positive sum, not
    // all 1 for a negative one; limb 0 when none is).  The sign is known
    // only at limb 32, so LOOK keeps a candidate for each sign, each with
    // its k and the sticky OR of the limbs below k-1.
    reg          q_v;
    reg [5:0]    q_j;
    reg [63:0]   q_l;         // resolved limb q_j
    reg [63:0]   q_prev;      // resolved limb q_j - 1 (0 before limb 0)
    reg          or_a, or_b;  // OR of limbs 0 .. q_j-1 / 0 .. q_j-2 not all 0
    reg [127:0]  cp_w, cn_w;  // the positive / negative sum's window
    reg [5:0]    cp_k, cn_k;
    reg          cp_st, cn_st;
    wire         q_nz = |q_l;
    wire         q_ones = &q_l;
    wire         q_first = q_j == 6'd0;
    // this limb's window, and whether it becomes each sign's candidate
    wire [127:0] q_w = {q_l, q_first ? 64'd0 : q_prev};
    wire         q_st = or_b & !q_first;
    wire         q_p = q_first || q_nz;
    wire         q_n = q_first || !q_ones;
    always @(posedge clk) begin
        q_v <= s_v & ~rst;
        q_j <= s_j;
        q_l <= s_sum[LW-1:0];
        if (q_v) begin
            q_prev <= q_l;
            or_a <= (or_a & !q_first) | q_nz;
            or_b <= or_a & !q_first;
            if (q_p) begin
                cp_w <= q_w;
                cp_k <= q_j;
                cp_st <= q_st;
            end
            if (q_n) begin
                cn_w <= q_w;
                cn_k <= q_j;
                cn_st <= q_st;
            end
        end
    end
    always @(posedge clk) begin
        if (rst) fin <= 7'd0;
        else fin <= {fin[5:0], q_v && q_j[5]};
    end

    // ---- F3: the window of the sum's sign (in LOOK's last cycle: the sign
    // is limb 32's, known since its ADD) ----------------------------------------
    reg [127:0] f3_w;
    reg [5:0]   f3_k;
    reg         f3_st, f3_neg;
    wire        f3_up = r_neg ? q_n : q_p;    // limb q_j is the candidate
    always @(posedge clk) begin
        f3_w <= f3_up ? q_w : r_neg ? cn_w : cp_w;
        f3_k <= f3_up ? q_j : r_neg ? cn_k : cp_k;
        f3_st <= f3_up ? q_st : r_neg ? cn_st : cp_st;
        f3_neg <= r_neg;
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
    reg  [12:0]  f5_base;     // 64 k + 12 (F6)
    reg          f5_st, f5_neg;
    always @(posedge clk) begin
        f5_m <= f4_m;
        f5_lz128 <= lz128;
        f5_base <= {1'b0, f4_k, 6'd0} + 13'd12;
        f5_st <= f4_st;
        f5_neg <= f4_neg;
    end

    // ---- F6: exponent and shift ----------------------------------------------
    // lz = leading zeros of the 129 bits (0..129); the window starts at limb
    // k-1, so the leading one is at accumulator bit lead = 64 k + 64 - lz.
    // Normal when it is at bit 52 (2^-1022) or above: lead - 51 is the
    // exponent field; else (only with k = 0, the window starting at bit -64)
    // shift bit 52 to the top: 12 places.  With base = 64 k + 12 (F5) and
    // lz = lz128 + 1 when bit 128 is 0: normal iff bit 128 or lz128 < base,
    // and lead - 51 = base + 1 - lz (timing: no add before the compare).
    wire        normal = f5_m[128] | ({5'd0, f5_lz128} < f5_base);
    wire [7:0]  lz = f5_m[128] ? 8'd0 : f5_lz128 + 8'd1;        // 0..129
    wire [12:0] e_n = f5_m[128] ? f5_base + 13'd1 : f5_base - {5'd0, f5_lz128};
    wire        unused_e_n = e_n[12];
    reg  [127:0] f6_m;        // (bit 128 becomes the hidden bit)
    reg  [7:0]   f6_sh;
    reg  [11:0]  f6_e;
    reg          f6_zero, f6_st, f6_neg;
    always @(posedge clk) begin
        f6_m <= f5_m[127:0];
        f6_sh <= normal ? lz : 8'd12;
        f6_e <= normal ? e_n[11:0] : 12'd0;
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

    // ---- F8: round (F8a), pack and specials (F8b) ----------------------------
    wire        sticky = (|f7_n[74:0]) | f7_st;
    reg  [62:0] f8_pk;        // exponent and fraction before rounding
    reg         f8_rnd, f8_big, f8_zero, f8_neg;
    always @(posedge clk) begin
        f8_pk <= {f7_e[10:0], f7_n[127:76]};
        f8_rnd <= f7_n[75] & (sticky | f7_n[76]);
        f8_big <= f7_e >= 12'd2047;
        f8_zero <= f7_zero;
        f8_neg <= f7_neg;
    end
    wire [62:0] pk = f8_pk + {62'd0, f8_rnd};
    wire        nan = f_nan | (f_pinf & f_ninf) | f_ovf;
    wire [63:0] z = nan ? QNAN
                  : f_pinf ? 64'h7FF0_0000_0000_0000
                  : f_ninf ? 64'hFFF0_0000_0000_0000
                  : f8_zero ? {f_allnegz & (f_cnt != 14'd0), 63'd0}
                  : f8_big ? {f8_neg, 11'h7FF, 52'd0}
                  : {f8_neg, pk};
    always @(posedge clk) begin
        res_valid <= fin[5] & ~rst;
        res_z <= z;
    end
endmodule
`default_nettype wire
