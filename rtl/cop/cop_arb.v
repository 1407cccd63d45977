`default_nettype none
// cop_arb: the round robin arbiter in front of cop_tree's level 2 core
// (docs/cop.md "Two levels"): N masters (the cop_up links) share one engine
// bus slave (the level 2 cop_core), which takes a request whenever it is
// ready and answers exactly two cycles after it takes it (cop_core's
// contract: its request stage; ready is low in between).
//
// Grant: among the masters requesting now (req), the first at or after the
// pointer rr; it is granted (grant, one-hot) only in a cycle where the
// slave is ready, and then the pointer moves past it, so a master that
// keeps requesting is granted within N of the slave's takes (proved by
// rtl/cop/cop_arb_props.v).  sel is the granted master's index (the bus
// fields are muxed by it), take whether a request goes to the slave.
// Response: the slave's answer (rsp_valid, two cycles after a take) goes to
// the master granted at that take (rsp, one-hot), none to the others.
//
// Parameters: N, 2..8 masters (NW, the width of an index, follows from it).
module cop_arb #(
    parameter integer N  = 4,
    parameter integer NW = (N <= 2) ? 1 : (N <= 4) ? 2 : 3  // derived: leave it
) (
    input  wire                clk,
    input  wire                rst,
    input  wire [N-1:0]        req,
    input  wire                ready,
    input  wire                rsp_valid,
    output reg  [N-1:0]        grant,
    output wire                take,
    output wire [NW-1:0] sel,
    output reg  [N-1:0]        rsp
`ifdef FORMAL
    ,
    output wire [NW-1:0] f_rr
`endif
);
    generate
        if (N < 2 || N > 8) begin : g_bad_n
            $error("cop_arb: N must be in 2..8");
        end
        if (NW != ((N <= 2) ? 1 : (N <= 4) ? 2 : 3)) begin : g_bad_nw
            $error("cop_arb: NW is derived from N; do not set it");
        end
    endgenerate

    reg [NW-1:0] rr, gnt, gnt_s, gnt_q;
    reg          any, gv_s, gv_q;
    integer a;
    reg [NW:0] b;
    always @* begin
        any = 1'b0; gnt = rr;
        for (a = N - 1; a >= 0; a = a - 1) begin
            // the first requesting master at or after rr (the loop runs down: the last hit wins)
            b = a[NW:0] + {1'b0, rr};
            if (b >= N[NW:0]) b = b - N[NW:0];
            if (req[b[NW-1:0]]) begin any = 1'b1; gnt = b[NW-1:0]; end
        end
        grant = {N{1'b0}};
        if (any && ready) grant[gnt] = 1'b1;
        rsp = {N{1'b0}};
        if (gv_q) rsp[gnt_q] = rsp_valid;
    end
    assign take = any && ready;
    assign sel  = gnt;
`ifdef FORMAL
    assign f_rr = rr;
`endif
    localparam integer NLAST_I = N - 1;
    always @(posedge clk) begin
        if (rst) begin
            rr <= {NW{1'b0}}; gv_s <= 1'b0; gnt_s <= {NW{1'b0}}; gv_q <= 1'b0; gnt_q <= {NW{1'b0}};
        end else begin
            // the slave's answer comes two cycles after it takes the request
            gv_s <= take; gnt_s <= gnt; gv_q <= gv_s; gnt_q <= gnt_s;
`ifdef SELFTEST_ARB_STUCK
            if (take) rr <= rr;  // planted: the pointer never moves past the grant
`else
            if (take) rr <= (gnt == NLAST_I[NW-1:0]) ? {NW{1'b0}} : gnt + 1'b1;
`endif
        end
    end
endmodule
`default_nettype wire
