`default_nettype none
// papers_core: the PAPERS dynamic barrier logic of seed 000 section 3.1 (the
// PAL22V10 equations for CLKSET, CLKRST, GO, PEaINT, PEaGO; Table 7), one copy
// per PE, generalised from 4 to N PEs.
//
// Interface contract (all inputs already synchronized to clk):
//   mask[a*MW +: MW]   PE a's barrier mask; bit k = PE k participates.
//   s, d, ir, probe    PE a's S, D, IR and PROBE data-register bits.
//   gi, ie             PE a's GI and IE control bits.
//   go                 the GO register of PE a's PAL (1 = barrier fired).
//   go_rd, int_rd      GO and INT as PE a reads them (Table 7: an IR interrupt
//                      takes priority and reads as GO = 0, INT = 1).
//   irq                int_rd AND ie: the processor interrupt the PC would take.
//   ivec[a*(MW-1)+k]   PE a's input bit Ik = D of PE (a+k+1)%N for k < N-1
//                      (seed Table 4 wiring for N = 4), 0 for k >= N-1.  With
//                      probe[a] set, Ik shows instead whether that PE has
//                      arrived for a: its S is high and its mask contains a.
//   bad_mask[a]        PE a's mask names a PE >= N (only possible for N < 4).
//   here[a]            PE a is present (PIPE = 1 only; PIPE = 0 ignores it):
//                      the caller gives the masks as they are and the core
//                      reads an absent PE as alone in its mask (papers_hub's
//                      Presence), so that presence costs N signals instead
//                      of a multiplexer per mask bit; S, D, IR, PROBE, GI
//                      and IE come already 0 for an absent PE, as always.
//   s_e, d_e, probe_e  S, D and PROBE as the equations and the I bits take
//                      them this cycle (PIPE = 1: one register later than the
//                      inputs), so that papers_hub can register them beside
//                      the status: papers_bus's link-only window computes the
//                      I bits of only the PEs it needs from them.
//
// Per PE a, with j over the PEs of a's mask (PAL equations, section 3.1):
//   CLKSET = AND_j (S_j AND B_j[a]) AND NOT GO  -> GO := 1
//   CLKRST = AND_j (NOT S_j AND B_j[a]) AND GO  -> GO := 0
//   PEaINT = OR_j' (IR_j' AND B_j'[a]) OR (GO AND GI)  (j' over all PEs)
//   PEaGO  = NOT((INT AND NOT IRterm) OR (NOT INT AND GO)), the pin level; the
//            PC inverts Busy, so the register reads go_rd = NOT PEaGO.
//
// Departures from the seed, each deliberate:
//   * GO is a synchronous register: the PAL clocks a 1 into GO on the edge of
//     CLKSET and clears it with the asynchronous CLKRST.  Here GO := 1 on a
//     clock edge where CLKSET holds and GO := 0 where CLKRST holds, which is
//     the same state machine sampled at clk; it adds one clock of latency.
//   * A mask bit naming a PE >= N (possible only for N < 4, where the seed's
//     four mask bits are kept) is read as a PE whose S and mask pins are 0:
//     such a barrier never fires (as a barrier with an absent PE must not) and
//     bad_mask flags it.  libaggnet rejects such a mask before it is written.
//   * An empty mask makes CLKSET and CLKRST both vacuously true (on alternate
//     cycles, as GO alternates), so GO toggles each clock where the PAL would
//     emit a pulse one gate delay wide.  A non-empty mask cannot satisfy both.
//     libaggnet never writes an empty mask (enqueue(0) throws MaskError).
//   * PROBE (data bit 1, reserved as 0 by the seed) switches the I bits to
//     arrival flags, so a host that times out can name the missing PEs.
//
// Pipelined (PIPE = 1; papers_hub's link-only mode, issue 24's hub at 64
// PEs): the inputs come one register stage earlier (papers_hub then has one
// register stage in front instead of two), and the core holds the second:
// the reductions over the mask (CLKSET's and CLKRST's ANDs, INT's OR over
// IR) are split into groups of G PEs, each group's partial registered, so
// that the GO register ANDs N/G partials instead of 3N signals; S, D,
// PROBE, GI and IE are registered beside them (IR is only reduced).  Mask
// agreement is precomputed (g_part): whether PE a and PE j name each other
// (one flop per pair) and whether a names a PE that does not name it (one
// flag per PE), registered from the masks, so that CLKSET's and CLKRST's
// groups reduce two signals per PE instead of three.  So INT and the
// other outputs are the PAL's of the inputs and masks one cycle before, and
// GO's CLKSET and CLKRST the PAL's of S one cycle before and of the masks
// two cycles before (a mask write reaches GO one cycle after it would
// without the precomputation, in the same cycle as an S written with it,
// papers_hub's register stage for S); the I bits
// and bad_mask take the current masks (the column naming PE a, with the
// registered S, D and PROBE: the I bits need no partials).
// Timing from the inputs is one cycle more than PIPE = 0's, the cycle
// papers_hub's second register stage was.
//
// Parameters: N in 2..64; MW must be max(N, 4) (it is a parameter only so
// that port widths can use it; any other value fails elaboration); PIPE 0
// (the seed's equations on the inputs, the default) or 1 (above); G the
// group size of PIPE = 1's partials (8: a group's partial is 16 signals, the
// GO register's AND N/G + 2).
module papers_core #(
    parameter integer N  = 4,
    parameter integer MW = (N < 4) ? 4 : N,
    parameter integer PIPE = 0,
    parameter integer G = 8
) (
    input  wire                  clk,
    input  wire                  rst,
    input  wire [N-1:0]          s,
    input  wire [N-1:0]          d,
    input  wire [N-1:0]          ir,
    input  wire [N-1:0]          probe,
    input  wire [N-1:0]          gi,
    input  wire [N-1:0]          ie,
    input  wire [N*MW-1:0]       mask,
    input  wire [N-1:0]          here,
    output reg  [N-1:0]          go,
    output wire [N-1:0]          go_rd,
    output wire [N-1:0]          int_rd,
    output wire [N-1:0]          irq,
    output wire [N*(MW-1)-1:0]   ivec,
    output wire [N-1:0]          bad_mask,
    output wire [N-1:0]          s_e,
    output wire [N-1:0]          d_e,
    output wire [N-1:0]          probe_e
);
    generate
        if (N < 2 || N > 64) begin : g_bad_n
            $error("papers_core: N must be in 2..64");
        end
        if (MW != ((N < 4) ? 4 : N)) begin : g_bad_mw
            $error("papers_core: MW must be max(N, 4); leave it at its default");
        end
        if (PIPE != 0 && PIPE != 1) begin : g_bad_pipe
            $error("papers_core: PIPE must be 0 or 1");
        end
        if (G < 1 || G > 64) begin : g_bad_g
            $error("papers_core: G must be in 1..64");
        end
    endgenerate

    // What the outputs beside the reductions see: the inputs (PIPE = 0), or
    // their register (PIPE = 1; IR is only reduced, INT's OR)
    wire [N-1:0] gi_e, ie_e;
    generate
        if (PIPE != 0) begin : g_in_reg
            reg [N-1:0] s_q, d_q, probe_q, gi_q, ie_q;
            always @(posedge clk) begin
                if (rst) begin
                    {s_q, d_q, probe_q, gi_q, ie_q} <= {(5 * N){1'b0}};
                end else begin
                    {s_q, d_q, probe_q, gi_q, ie_q} <= {s, d, probe, gi, ie};
                end
            end
            assign {s_e, d_e, probe_e, gi_e, ie_e} = {s_q, d_q, probe_q, gi_q, ie_q};
        end else begin : g_in_wire
            assign {s_e, d_e, probe_e, gi_e, ie_e} = {s, d, probe, gi, ie};
        end
    endgenerate

    wire [N-1:0] clkset;
    wire [N-1:0] clkrst;
    wire [N-1:0] irterm;
    // S of PE j at bit j, absent PEs (N <= j < MW) reading 0.

    genvar a, j;
    // PIPE = 1: mut[a*N + j] (j >= a) is registered B_a[j] AND B_j[a], PE a
    // and PE j name each other (symmetric: one flop per pair; g_part below)
    wire [N*N-1:0] mut;
    generate
        for (a = 0; a < N; a = a + 1) begin : g_mr
            for (j = 0; j < N; j = j + 1) begin : g_mc
                if (PIPE != 0 && j >= a) begin : g_q
                    // reset: every PE alone in its mask (papers_bus's reset
                    // masks), so that no stale mask meets the reset S.
                    // The masks here are as the PEs wrote them: presence
                    // is applied by the partials (nrs, here_q)
                    reg q;
                    always @(posedge clk) q <= (rst && j == a) || (!rst && mask[a*MW + j] && mask[j*MW + a]);
                    assign mut[a*N + j] = q;
                end else begin : g_none
                    assign mut[a*N + j] = 1'b0;  // PIPE = 0, or read as mut[j*N + a]
                end
            end
        end
    endgenerate
    // PIPE = 1, presence as the partials take it: an absent PE j's term of
    // CLKRST is 0 (alone, its mask does not name a), its S is 0 already;
    // here_q, registered with the partials, for a PE's own presence
    wire [N-1:0] nrs = ~s & here;
    reg  [N-1:0] here_q;
    always @(posedge clk) here_q <= rst ? {N{1'b0}} : here;
    generate
        if (PIPE == 0) begin : g_no_mut
            // papers_hub substitutes absent PEs' masks before the core
            wire unused_mut = &{1'b0, mut, nrs, here_q};
        end
    endgenerate
    generate
        for (a = 0; a < N; a = a + 1) begin : g_pe
            // mine[j]: PE a's mask names PE j.  col[j] = B_j[a]: PE j's mask
            // contains PE a (0 for absent PEs, whose mask pins read 0).
            wire [MW-1:0] mine = mask[a*MW +: MW];
            wire [MW-1:0] col;
            for (j = 0; j < MW; j = j + 1) begin : g_col
                if (j < N) begin : g_real
                    assign col[j] = mask[j*MW + a];
                end else begin : g_absent
                    assign col[j] = 1'b0;
                end
            end
            // CLKSET = AND over a's mask of (B_j[a] AND S_j), AND NOT GO
            // CLKRST = AND over a's mask of (B_j[a] AND NOT S_j), AND GO
            // (each term true for a PE outside a's mask)
            // IR of any PE j whose mask contains a
            wire [N-1:0]  t_ir  = col[N-1:0] & ir;
            wire all_set, all_rst, any_ir;
            if (PIPE != 0) begin : g_part
                // Mask agreement precomputed (issue 24: "mask agreement may
                // be precomputed over several cycles after a mask write"):
                // the seed's term ~B_a[j] | (B_j[a] & S_j) is the same as
                // ~x_a[j] & (~e_a[j] | S_j), with e_a[j] = B_a[j] & B_j[a]
                // (j and a name each other: mut, one flop per pair) and
                // x_a[j] = B_a[j] & ~B_j[a] (a names j, j does not name a:
                // a's barrier can never fire).  So the groups reduce two
                // signals per PE (e, S), and one flag per PE, dis = OR_j
                // x_a[j], stands for every x: CLKSET = NOT dis AND AND_j
                // (~e_a[j] | S_j), CLKRST the same with NOT S_j.  e and dis
                // are registered from the masks, dis once more beside the
                // partials, so both reach the GO register two cycles after
                // a mask write, in step with each other (one more than the
                // masks took before), and S reaches it through the partials
                // as before.
                localparam integer NG = (N + G - 1) / G;
                localparam integer NGI = (N + G - 1) / G;
                wire [N-1:0]  e;
                reg  [NG-1:0]  p_set, p_rst, n_set, n_rst;
                reg  [NGI-1:0] p_ir, n_ir;
                reg            dis1, dis2;
                integer b;
                for (j = 0; j < N; j = j + 1) begin : g_e
                    assign e[j] = (j >= a) ? mut[a*N + j] : mut[j*N + a];
                end
                always @* begin
                    n_set = {NG{1'b1}};
                    n_rst = {NG{1'b1}};
                    n_ir  = {NGI{1'b0}};
                    for (b = 0; b < N; b = b + 1) begin
                        n_set[b / G] = n_set[b / G] & (~e[b] | s[b]);
                        n_rst[b / G] = n_rst[b / G] & (~e[b] | nrs[b]);
                    end
                    for (b = 0; b < N; b = b + 1)
                        n_ir[b / G] = n_ir[b / G] | t_ir[b];
                end
                always @(posedge clk) begin
                    {p_set, p_rst, p_ir} <= rst ? {(2 * NG + NGI){1'b0}} : {n_set, n_rst, n_ir};
                    // a mask bit naming a PE >= N (N < 4) is an x too: col is 0 there
                    dis1 <= !rst && |(mine & ~col);
                    dis2 <= !rst && dis1;
                end
                // an absent PE a is alone: it never fires, and resets
                assign all_set = &p_set && !dis2 && here_q[a];
                assign all_rst = (&p_rst && !dis2) || !here_q[a];
                assign any_ir  = |p_ir;
            end else begin : g_comb
                wire [MW-1:0] s_ext = {{(MW - N){1'b0}}, s_e};
                wire [MW-1:0] t_set = ~mine | (col &  s_ext);
                wire [MW-1:0] t_rst = ~mine | (col & ~s_ext);
                assign all_set = &t_set;
                assign all_rst = &t_rst;
                assign any_ir  = |t_ir;
            end
            assign clkset[a] = all_set && !go[a];
            assign clkrst[a] = all_rst &&  go[a];
            assign irterm[a] = any_ir;

            assign int_rd[a] = irterm[a] || (go[a] && gi_e[a]);
            // PAL: /PEaGO = (PEaINT * /IRterm) + (/PEaINT * GO); the PC's
            // inversion of Busy makes the register read exactly that.
            assign go_rd[a]  = (int_rd[a] && !irterm[a]) || (!int_rd[a] && go[a]);
            assign irq[a]    = int_rd[a] && ie_e[a];

            // I_k = PE (a+k+1)%N (seed Table 4), or its arrival under PROBE.
            wire [N-1:0] src = probe_e[a] ? (s_e & col[N-1:0]) : d_e;
            for (j = 0; j < MW - 1; j = j + 1) begin : g_in
                if (j < N - 1) begin : g_wire
                    assign ivec[a*(MW-1) + j] = src[(a + j + 1) % N];
                end else begin : g_none
                    assign ivec[a*(MW-1) + j] = 1'b0;
                end
            end
            assign bad_mask[a] = (PIPE == 0 || here[a]) && |(mine & ~{{(MW - N){1'b0}}, {N{1'b1}}});
        end
    endgenerate

    // GO register of each PE's PAL, made synchronous (see header).
    always @(posedge clk) begin
        if (rst) begin
            go <= {N{1'b0}};
        end else begin
            go <= (go | clkset) & ~clkrst;
        end
    end
endmodule
`default_nettype wire
