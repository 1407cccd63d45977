`default_nettype none
// nand_seq: the step sequencer of the NAND engine (rtl/nand/nand_engine.v;
// docs/nand.md, "The sequencer").  It runs a whole section-2 operation of
// seed 002 for a PE that asked for it with one link CALL: for each step it
// sets that PE's OUT (data bits, BAR flipped) exactly as libaggnet's NandPe
// does on the host, waits until BF equals the PE's BAR (the step's barrier
// completed), takes the latched trees and goes on.  Two kinds:
//   * SLICES (k bits, w per step): step j drives the next w operand bits on
//     trees 0..w-1 (1s above) and collects trees 0..w-1 into the result:
//     barrier, broadcast, any/all, the section 2.4 reductions, the votes and
//     the branch key, with the host's input and output transforms;
//   * VOTE (k bits, i per step, section 2.4): a PE still in the running whose
//     group is g > 0 drives 0 on tree g-1; the group of the maximum is the
//     highest tree whose NAND is 1, plus 1; a PE whose group differs drops
//     out (drives 1s), as NandPe::max_u_bits does.
// Operand and result share one 64-bit row per PE: the operand arrives with
// its k bits at the top (63..64-k; the host aligns it), each step rotates
// the row left by its width (the step's bits come round to the bottom) and
// collecting replaces those bottom bits with the trees' answer (SLICES) or
// the group won (VOTE), so after k bits of rotation the row is the result,
// right-aligned.  Groups run from the top; the last is the narrow one when
// w does not divide k (the host's max_u_bits makes the first one narrow:
// the same maximum, with no k mod w here).
//
// Area: the rows live in one RAM (one read and one write port, no reset:
// block RAM on iCE40 and ECP5), {running, left, wl, w, vote, row} = 83 bits
// per PE; the flops per PE are two (run: an operation is on; fin: it has
// finished and its result is not yet handed over).  One shared datapath
// visits the PEs round-robin, one per cycle, in a 5-stage pipeline:
//   S0  the pointer picks PE s and reads its row (the bus takes the read
//       port instead for an ask: that slot is skipped);
//   S1  the row; whether the PE is running, not on its cable, and BF ==
//       its BAR (its last step's barrier completed, or none written yet);
//       the latched trees masked to the last step's width, and the group a
//       VOTE step won; registered (the RAM's read and the group's priority
//       encoder do not fit one 100 MHz cycle on the HX8K together);
//   S1b collect the last step (wl != 0) and decide: finished (left == 0)
//       or a next step of ws = min(w, left) bits; registered;
//   S2  rotate the row by ws and form the step's data bits; registered;
//   S3  commit: write the row back and either finish (run 0, fin 1) or give
//       the engine the PE's new OUT (cm_step: flip BAR, DATA cm_data).
// The pointer runs over max(N, 5) slots, so a PE is read again only after
// its commit (a visit reads the row its last visit wrote).  A visit commits
// all or nothing: a start, cancel or take for its PE in the cycle before
// any of its stages, or a start's row written in its commit cycle, drops it
// (the PE is seen again in the next round); a cancel in the commit cycle
// itself wins over the commit.  Latency: a step's OUT follows its predecessor's
// barrier within max(N, 5) + 4 cycles.
// Bus (from nand_engine's second stage, the cycle it answers): st_v starts
// an operation for st_p (its row written, run set; the engine refuses a
// start while run or fin is set, so none is lost), cx_v cancels st_p's
// (run and fin cleared; the engine withdraws its BAR), tk_v hands over
// tk_p's result (fin cleared).  ask_v/ask_p (the request cycle, from the
// bus inputs) make the RAM read that PE's row for the next cycle (row_rd);
// cm_any with cm_p says a commit writes that PE's row in this cycle (a
// read of it now gets the old one: the engine answers PENDING).
//
// Parameters: N 1..64 PEs, T 1..16 data trees, PW the PE index width.
module nand_seq #(
    parameter integer N = 4,
    parameter integer T = 4,
    parameter integer PW = 2
) (
    input  wire          clk,
    input  wire          rst,
    input  wire          bf,
    input  wire [T-1:0]  latched,
    input  wire [N-1:0]  bar,
    input  wire [N-1:0]  cab,
    input  wire          ask_v,
    input  wire [PW-1:0] ask_p,
    input  wire          st_v,
    input  wire          cx_v,
    input  wire          tk_v,
    input  wire [PW-1:0] st_p,    // the PE of a start, cancel or take
    input  wire          st_vote,
    input  wire [4:0]    st_w,    // w (SLICES) or i (VOTE), 1..16
    input  wire [6:0]    st_k,    // 1..64
    input  wire [63:0]   st_row,  // the operand, its k bits at the top
    output reg  [N-1:0]  run,
    output reg  [N-1:0]  fin,
    output wire [63:0]   row_rd,
    output wire          cm_step,
    output wire          cm_any,
    output wire [PW-1:0] cm_p,
    output wire [T-1:0]  cm_data
);
    generate
        if (N < 1 || N > 64) begin : g_bad_n
            $error("nand_seq: N must be in 1..64");
        end
        if (T < 1 || T > 16) begin : g_bad_t
            $error("nand_seq: T must be in 1..16");
        end
        if (PW != ((N > 1) ? $clog2(N) : 1)) begin : g_bad_pw
            $error("nand_seq: PW is derived from N: leave it at the engine's");
        end
    endgenerate

    // ---- the rows: {running, left[6:0], wl[4:0], w[4:0], vote, row[63:0]} -----
    localparam integer RW = 83;
    reg  [RW-1:0] mem [0:(1 << PW) - 1];
    reg  [RW-1:0] rd;
    reg           wen;
    reg  [PW-1:0] wa;
    reg  [RW-1:0] wd;
    reg  [6:0]    sp;        // the pointer, 0 .. max(N, 5) - 1
    wire [PW-1:0] ra = ask_v ? ask_p : sp[PW-1:0];
    always @(posedge clk) begin
        if (wen) mem[wa] <= wd;
        rd <= mem[ra];
    end
    assign row_rd = rd[63:0];
    wire        r_vote    = rd[64];
    wire [4:0]  r_w       = rd[69:65];
    wire [4:0]  r_wl      = rd[74:70];
    wire [6:0]  r_left    = rd[81:75];
    wire        r_running = rd[82];

    // A start, cancel or take for PE p in the previous cycle drops a visit of
    // p in flight (registered: the bus's decision is a long path of its own).
    // A start's row is written a cycle late (from these registers), so the
    // visit that read it before is dropped too; a cancel in the commit's own
    // cycle wins over it where both write (the engine's BAR, run and fin),
    // and a start cannot come then (run was set throughout the visit).
    reg          tq_v, stq_v, stq_vote;
    reg [PW-1:0] tq_p;
    reg [4:0]    stq_w;
    reg [6:0]    stq_k;
    reg [63:0]   stq_row;
    always @(posedge clk) begin
        tq_v     <= !rst && (st_v || cx_v || tk_v);
        stq_v    <= !rst && st_v;
        tq_p     <= st_p;
        stq_vote <= st_vote;
        stq_w    <= st_w;
        stq_k    <= st_k;
        stq_row  <= st_row;
    end

    localparam integer P = (N < 5) ? 5 : N;
    localparam integer P_LAST_I = P - 1;
    localparam [6:0] P_LAST = P_LAST_I[6:0], N_I = N[6:0];

    // ---- S0 -> S1 ---------------------------------------------------------------
    reg          s1_v;
    reg [PW-1:0] s1_p;
    always @(posedge clk) begin
        sp   <= (rst || sp == P_LAST) ? 7'd0 : sp + 7'd1;
        s1_v <= !rst && !ask_v && sp < N_I && !(tq_v && tq_p == sp[PW-1:0]);
        s1_p <= sp[PW-1:0];
    end

    // ---- S1: the row and the trees' answer, registered ---------------------------
    // (the masks are at most 16 bits: w <= T <= 16, and a VOTE's i <= 4;
    // compares and a case, not (1 << n) - 1: no carry chain on this path)
    function [15:0] lowmask(input [4:0] n);
        integer b;
        for (b = 0; b < 16; b = b + 1) lowmask[b] = b < n;
    endfunction
    // the group a VOTE step won: the highest tree of trees 0..2^i-2 whose NAND is 1, plus 1
    function [3:0] group_won(input [14:0] t);
        integer b;
        begin
            group_won = 4'd0;
            for (b = 0; b < 15; b = b + 1)
                if (t[b]) group_won = b[3:0] + 4'd1;
        end
    endfunction
    reg [14:0] vtm;  // a VOTE step of i bits ran on 2^i - 1 trees
    always @*
        case (r_wl)
            5'd1: vtm = 15'h0001;
            5'd2: vtm = 15'h0007;
            5'd3: vtm = 15'h007F;
            5'd4: vtm = 15'h7FFF;
            default: vtm = 15'h0000;
        endcase
    wire [15:0] lat16 = {{(16 - T){1'b0}}, latched};
    wire [14:0] latched_v = lat16[14:0];
    wire [15:0] wlm   = lowmask(r_wl);
    wire        s1_act = s1_v && run[s1_p] && !cab[s1_p] && bar[s1_p] == bf &&
                         !(tq_v && tq_p == s1_p);

    reg          t_v, t_vote, t_running, t_collect;
    reg [PW-1:0] t_p;
    reg [63:0]   t_row;
    reg [15:0]   t_wlm, t_lat;
    reg [3:0]    t_won;
    reg [4:0]    t_w;
    reg [6:0]    t_left;
    always @(posedge clk) begin
        t_v       <= !rst && s1_act;
        t_p       <= s1_p;
        t_row     <= rd[63:0];
        t_vote    <= r_vote;
        t_running <= r_running;
        t_collect <= r_wl != 5'd0;
        t_wlm     <= wlm;
        t_lat     <= lat16 & wlm;
        t_won     <= group_won(latched_v & vtm);
        t_w       <= r_w;
        t_left    <= r_left;
    end

    // ---- S1b: collect the last step and decide -----------------------------------
    wire [15:0] answer = t_vote ? {12'd0, t_won} : t_lat;
    wire [15:0] own    = t_row[15:0] & t_wlm;
    wire [63:0] row1   = t_collect ? {t_row[63:16], (t_row[15:0] & ~t_wlm) | (answer & t_wlm)} : t_row;
    wire [4:0]  ws     = (t_left < {2'd0, t_w}) ? t_left[4:0] : t_w;

    reg          s2_v, s2_fin, s2_vote, s2_running;
    reg [PW-1:0] s2_p;
    reg [63:0]   s2_row;
    reg [4:0]    s2_ws, s2_w;
    reg [6:0]    s2_left;
    always @(posedge clk) begin
        s2_v       <= !rst && t_v && !(tq_v && tq_p == t_p);
        s2_p       <= t_p;
        s2_row     <= row1;
        s2_fin     <= t_collect && t_left == 7'd0;
        s2_ws      <= ws;
        s2_w       <= t_w;
        s2_vote    <= t_vote;
        s2_left    <= t_left - {2'd0, ws};
        s2_running <= t_running && !(t_collect && t_vote && own[3:0] != t_won);
    end

    // ---- S2: rotate by the step's width, the step's data bits -----------------
    // A step is at most T bits wide (w <= T; a VOTE's i <= log2(T+1)): the
    // rotator takes only the bits of ws that can be set (3 levels at T = 4).
    localparam integer SWB = (T >= 16) ? 5 : (T >= 8) ? 4 : (T >= 4) ? 3 : (T >= 2) ? 2 : 1;
    wire [127:0] dbl = {s2_row, s2_row} << s2_ws[SWB-1:0];
    wire [63:0]  rot = dbl[127:64];
    wire [15:0]  wsm = lowmask(s2_ws);
    wire [15:0]  slice = rot[15:0] | ~wsm;                 // SLICES: 1s above w
    wire [3:0]   grp = rot[3:0] & wsm[3:0];                // VOTE: this PE's group
    // VOTE: 0 on tree grp-1 while in the running (a compare per tree: no carry chain)
    reg  [15:0]  vdata;
    integer vb;
    always @*
        for (vb = 0; vb < 16; vb = vb + 1) vdata[vb] = !(s2_running && {1'b0, grp} == vb[4:0] + 5'd1);

    reg          s3_v, s3_fin, s3_vote, s3_running;
    reg [PW-1:0] s3_p;
    reg [63:0]   s3_row;
    reg [4:0]    s3_wl, s3_w;
    reg [6:0]    s3_left;
    reg [T-1:0]  s3_data;
    always @(posedge clk) begin
        s3_v       <= !rst && s2_v && !(tq_v && tq_p == s2_p);
        s3_p       <= s2_p;
        s3_row     <= s2_fin ? s2_row : rot;
        s3_fin     <= s2_fin;
        s3_wl      <= s2_ws;
        s3_w       <= s2_w;
        s3_vote    <= s2_vote;
        s3_left    <= s2_left;
        s3_running <= s2_running;
        s3_data    <= s2_vote ? vdata[T-1:0] : slice[T-1:0];
    end

    // ---- S3: commit --------------------------------------------------------------
    wire commit = s3_v && !(tq_v && tq_p == s3_p) && !stq_v;  // a start's row owns the RAM's write port
    assign cm_step = commit && !s3_fin;
    assign cm_any  = commit;
    assign cm_p    = s3_p;
    assign cm_data = s3_data;

    always @* begin
        wen = stq_v || commit;
        wa  = stq_v ? tq_p : s3_p;
        wd  = stq_v ? {1'b1, stq_k, 5'd0, stq_w, stq_vote, stq_row}
                    : {s3_running, s3_left, s3_wl, s3_w, s3_vote, s3_row};
    end

    // per PE a one-hot of st_p and s3_p (no indexed stores into the flop vectors)
    reg [N-1:0] st_hot, s3_hot;
    integer a, h;
    always @* begin
        for (h = 0; h < N; h = h + 1) begin
            st_hot[h] = {{(32 - PW){1'b0}}, st_p} == h;
            s3_hot[h] = {{(32 - PW){1'b0}}, s3_p} == h;
        end
    end
    always @(posedge clk) begin
        for (a = 0; a < N; a = a + 1) begin
            if (commit && s3_fin && s3_hot[a]) begin
                run[a] <= 1'b0;
                fin[a] <= 1'b1;
            end
            if (st_v && st_hot[a]) run[a] <= 1'b1;
            if ((cx_v || tk_v) && st_hot[a]) fin[a] <= 1'b0;
            if (cx_v && st_hot[a]) run[a] <= 1'b0;
        end
        if (rst) begin
            run     <= {N{1'b0}};
            fin     <= {N{1'b0}};
        end
    end

    wire unused_ok = &{1'b0, own[15:4], dbl[63:0], slice, vdata};  // bits at and above T unused
endmodule
`default_nettype wire
