`default_nettype none
// papers_barrier_pins: the reduced "barrier-only" PAPERS cable of the
// boards with few header pins (fw/icestick, fw/icebreaker), wired into
// papers_hub's register layout.  Only wiring, no logic.
//
// Per PE a, 6 pins: S (DB25 5), CE (DB25 17, read active low: papers_hub's
// Presence), the mask bits naming the N-1 other PEs in PE order (DB25 6-9
// less the PE's own), and Busy (DB25 11) = /GO out.  The PE's own mask bit
// has no pin and is 1 (a mask leaving its own PE out is not available on
// these boards), so that its pin can carry CE: without CE an unplugged
// cable (pulled up: S high, every mask bit set) would fire every barrier
// naming it.  D, PROBE, IR, GI, U0, U1 and IE read 0.
//
// Parameters: N in 2..4 (the DB25's four mask pins); W = papers_hub's
// register width at that N (8).
module papers_barrier_pins #(
    parameter integer N = 4,
    parameter integer W = 8
) (
    input  wire [N-1:0]       pe_s,     // PE a's S at [a]
    input  wire [N-1:0]       pe_ce,    // PE a's CE pin (low = present) at [a]
    input  wire [N*(N-1)-1:0] pe_bx,    // PE a's bits naming the other PEs, in PE order, at [(N-1)a +: N-1]
    output wire [N-1:0]       pe_busy,  // PE a's Busy pin (/GO) at [a]
    output wire [N*W-1:0]     pe_data,  // to papers_hub
    output wire [N*5-1:0]     pe_ctrl,
    input  wire [N*W-1:0]     pe_stat   // from papers_hub
);
`include "papers_regs.vh"

    generate
        if (N < 2 || N > 4 || W != 8) begin : g_bad_n
            $error("papers_barrier_pins: N must be in 2..4 (W = 8)");
        end
    endgenerate

    genvar a, j;
    generate
        for (a = 0; a < N; a = a + 1) begin : g_pe
            wire [3:0] b;
            for (j = 0; j < 4; j = j + 1) begin : g_b
                if (j == a) begin : g_own
                    assign b[j] = 1'b1;
                end else if (j >= N) begin : g_none
                    assign b[j] = 1'b0;
                end else begin : g_other
                    assign b[j] = pe_bx[a*(N-1) + ((j < a) ? j : j - 1)];
                end
            end
            wire [W-1:0] d = ({{(W-4){1'b0}}, b} << PAPERS_DATA_B0) | ({{(W-1){1'b0}}, pe_s[a]} << PAPERS_DATA_S);
            assign pe_data[a*W +: W] = d;
            // Control at the cable's levels: CE is the active-low pin; U0,
            // U1, GI read 0 (no pins), IE lives in the PC.
            assign pe_ctrl[a*5 +: 5] = {5'd0} | ({4'd0, pe_ce[a]} << PAPERS_CONTROL_CE);
            assign pe_busy[a] = pe_stat[a*W + W - PAPERS_STATUS_GO_FROM_TOP];
        end
    endgenerate

    wire unused_ok = &{1'b0, pe_stat};
endmodule
`default_nettype wire
