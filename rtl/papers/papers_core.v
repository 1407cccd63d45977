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
// Parameters: N in 2..64; MW must be max(N, 4) (it is a parameter only so
// that port widths can use it; any other value fails elaboration).
module papers_core #(
    parameter integer N  = 4,
    parameter integer MW = (N < 4) ? 4 : N
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
    output reg  [N-1:0]          go,
    output wire [N-1:0]          go_rd,
    output wire [N-1:0]          int_rd,
    output wire [N-1:0]          irq,
    output wire [N*(MW-1)-1:0]   ivec,
    output wire [N-1:0]          bad_mask
);
    generate
        if (N < 2 || N > 64) begin : g_bad_n
            $error("papers_core: N must be in 2..64");
        end
        if (MW != ((N < 4) ? 4 : N)) begin : g_bad_mw
            $error("papers_core: MW must be max(N, 4); leave it at its default");
        end
    endgenerate

    wire [N-1:0] clkset;
    wire [N-1:0] clkrst;
    wire [N-1:0] irterm;
    // S of PE j at bit j, absent PEs (N <= j < MW) reading 0.
    wire [MW-1:0] s_ext = {{(MW - N){1'b0}}, s} ;

    genvar a, j;
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
            assign clkset[a] = (&(~mine | (col &  s_ext))) && !go[a];
            assign clkrst[a] = (&(~mine | (col & ~s_ext))) &&  go[a];
            // IR of any PE j whose mask contains a
            assign irterm[a] = |(col[N-1:0] & ir);

            assign int_rd[a] = irterm[a] || (go[a] && gi[a]);
            // PAL: /PEaGO = (PEaINT * /IRterm) + (/PEaINT * GO); the PC's
            // inversion of Busy makes the register read exactly that.
            assign go_rd[a]  = (int_rd[a] && !irterm[a]) || (!int_rd[a] && go[a]);
            assign irq[a]    = int_rd[a] && ie[a];

            // I_k = PE (a+k+1)%N (seed Table 4), or its arrival under PROBE.
            wire [N-1:0] src = probe[a] ? (s & col[N-1:0]) : d;
            for (j = 0; j < MW - 1; j = j + 1) begin : g_in
                if (j < N - 1) begin : g_wire
                    assign ivec[a*(MW-1) + j] = src[(a + j + 1) % N];
                end else begin : g_none
                    assign ivec[a*(MW-1) + j] = 1'b0;
                end
            end
            assign bad_mask[a] = |(mine & ~{{(MW - N){1'b0}}, {N{1'b1}}});
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
