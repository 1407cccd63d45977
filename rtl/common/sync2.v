`default_nettype none
// sync2: two-flop synchronizer for W asynchronous inputs (BRIEF: every input
// from outside the FPGA goes through one).
//
// Contract: q follows d two rising edges of clk later.  Each bit is
// synchronized on its own; a bus that must be seen coherently needs its own
// handshake (PAPERS signals are independent levels, so none is needed).
// rst (synchronous, active high) sets both stages to RESET (default 0) so
// that simulation and formal start from a known state, and so that a user
// can choose the level an input reads until it has been sampled (papers_hub:
// "absent").
//
// Parameters: W >= 1; RESET, W bits.
module sync2 #(
    parameter integer   W     = 1,
    parameter [W-1:0]   RESET = {W{1'b0}}
) (
    input  wire         clk,
    input  wire         rst,
    input  wire [W-1:0] d,
    output wire [W-1:0] q
);
    generate
        if (W < 1) begin : g_bad_width
            $error("sync2: W must be >= 1");
        end
    endgenerate

    (* async_reg = "true" *) reg [W-1:0] meta;
    (* async_reg = "true" *) reg [W-1:0] stable;

    always @(posedge clk) begin
        if (rst) begin
            meta   <= RESET;
            stable <= RESET;
        end else begin
            meta   <= d;
            stable <= meta;
        end
    end

    assign q = stable;
endmodule
`default_nettype wire
