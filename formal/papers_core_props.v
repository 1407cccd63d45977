`default_nettype none
// formal/papers_core_props.v: formal harness for rtl/papers/papers_core.v.
// Every input of the core is free (an unconstrained synchronized signal each
// cycle); the only assumption is reset in the first cycle.  The reference
// conditions below are written from seed 000 section 3.1 independently of
// the RTL's own formulation.
//
// For every PE a, with "arrived_set(j,a)" = j < N and S_j and B_j[a],
// "arrived_rst(j,a)" = j < N and !S_j and B_j[a]:
//   cond_set[a] = for all j in a's mask: arrived_set(j,a)
//   cond_rst[a] = for all j in a's mask: arrived_rst(j,a)
//   (a)  GO[a] rises only if cond_set[a] held in the previous cycle; a mask
//        that names a PE >= N (N < 4) never lets GO rise.
//   (b)  cond_set[a] and GO[a] = 0 in a cycle -> GO[a] = 1 in the next (bound 1).
//   (c)  GO[a] falls only if cond_rst[a] held in the previous cycle, and
//        cond_rst[a] with GO[a] = 1 -> GO[a] = 0 in the next.
//   (d)  go_rd/int_rd/irq follow Table 7: an IR term reads GO = 0, INT = 1;
//        else GO and GI read GO = 1, INT = 1; else INT = 0 and GO reads GO.
//   (e)  the I bits: D of PE (a+k+1)%N, or its arrival for a when PROBE.
//   (r)  reset clears GO.
module papers_core_props #(
    parameter integer N  = 4,
    parameter integer MW = (N < 4) ? 4 : N
) (
    input wire              clk,
    input wire              rst,
    input wire [N-1:0]      s,
    input wire [N-1:0]      d,
    input wire [N-1:0]      ir,
    input wire [N-1:0]      probe,
    input wire [N-1:0]      gi,
    input wire [N-1:0]      ie,
    input wire [N*MW-1:0]   mask
);
    wire [N-1:0]          go, go_rd, int_rd, irq, bad_mask;
    wire [N*(MW-1)-1:0]   ivec;

    papers_core #(.N(N)) dut (
        .clk(clk), .rst(rst), .s(s), .d(d), .ir(ir), .probe(probe), .gi(gi),
        .ie(ie), .mask(mask), .here({N{1'b1}}), .go(go), .go_rd(go_rd), .int_rd(int_rd),
        .irq(irq), .ivec(ivec), .bad_mask(bad_mask)
    );

`ifdef FORMAL
    // Reference model of the PAL conditions (seed 000 section 3.1).
    reg [N-1:0] cond_set, cond_rst, ir_ref, bad_ref;
    integer a, j;
    always @* begin
        for (a = 0; a < N; a = a + 1) begin
            cond_set[a] = 1'b1;
            cond_rst[a] = 1'b1;
            ir_ref[a]   = 1'b0;
            bad_ref[a]  = 1'b0;
            for (j = 0; j < MW; j = j + 1) begin
                if (mask[a*MW + j]) begin
                    if (j >= N) begin
                        cond_set[a] = 1'b0;
                        cond_rst[a] = 1'b0;
                        bad_ref[a]  = 1'b1;
                    end else begin
                        if (!(s[j]  && mask[j*MW + a])) cond_set[a] = 1'b0;
                        if (!(!s[j] && mask[j*MW + a])) cond_rst[a] = 1'b0;
                    end
                end
                if (j < N && ir[j] && mask[j*MW + a]) ir_ref[a] = 1'b1;
            end
        end
    end

    reg past_valid = 1'b0;
    always @(posedge clk) past_valid <= 1'b1;
    initial assume (rst);

    integer b, k;
    always @(posedge clk) begin
        if (past_valid) begin
            // (r) reset
            if ($past(rst)) assert (go == {N{1'b0}});
            for (b = 0; b < N; b = b + 1) begin
                if (!$past(rst)) begin
                    // (a) GO rises only on the barrier condition
                    if (go[b] && !$past(go[b])) assert ($past(cond_set[b]));
                    if ($past(bad_ref[b]))      assert (!(go[b] && !$past(go[b])));
                    // (b) liveness, bound 1
                    if ($past(cond_set[b]) && !$past(go[b])) assert (go[b]);
                    // (c) GO falls only when every member has dropped S, and then does
                    if (!go[b] && $past(go[b])) assert ($past(cond_rst[b]));
                    if ($past(cond_rst[b]) && $past(go[b])) assert (!go[b]);
                end
            end
        end
    end

    always @* begin
        for (b = 0; b < N; b = b + 1) begin
            // (d) Table 7
            if (ir_ref[b]) begin
                assert (go_rd[b] == 1'b0 && int_rd[b] == 1'b1);
            end else if (go[b] && gi[b]) begin
                assert (go_rd[b] == 1'b1 && int_rd[b] == 1'b1);
            end else begin
                assert (int_rd[b] == 1'b0 && go_rd[b] == go[b]);
            end
            assert (irq[b] == (int_rd[b] && ie[b]));
            assert (bad_mask[b] == bad_ref[b]);
            // (e) the I bits (seed Table 4 wiring, PROBE extension)
            for (k = 0; k < MW - 1; k = k + 1) begin
                if (k < N - 1) begin
                    assert (ivec[b*(MW-1) + k] == (probe[b]
                        ? (s[(b+k+1)%N] && mask[((b+k+1)%N)*MW + b])
                        : d[(b+k+1)%N]));
                end else begin
                    assert (ivec[b*(MW-1) + k] == 1'b0);
                end
            end
        end
    end

`ifdef SELFTEST
    // Negative controls for formal/run.py: each claim is false, so the run
    // must FAIL; that shows the assumptions leave the barrier free to fire
    // and to clear (the proofs above are not vacuous).
    always @(posedge clk) begin
        if (past_valid && !$past(rst)) begin
`ifdef SELFTEST_RISE
            assert (!(go[0] && !$past(go[0]) && $past(mask[0 +: 2]) == 2'b11));
`else
            assert (!(!go[0] && $past(go[0]) && $past(mask[0 +: 2]) == 2'b11));
`endif
        end
    end
`endif
`endif
endmodule
`default_nettype wire
