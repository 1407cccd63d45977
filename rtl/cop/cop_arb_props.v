// cop_arb_props: formal harness for rtl/cop/cop_arb.v, the round robin
// arbiter between cop_tree's cop_up links and its level 2 core (docs/cop.md
// "Two levels").  Free every cycle within their contracts, assumed:
//   * each master (a cop_up link, a bus master): a request (req[i]) stays
//     up until it is granted (cop_link_props proves cop_up holds it);
//   * the slave (the level 2 cop_core): ready is free; it answers exactly
//     two cycles after each take and never otherwise (cop_core's request
//     stage).
// Properties, asserted in every cycle after reset:
//   (r1) at most one grant, only to a master that requests, only while the
//        slave is ready; take is "a grant"; sel is the granted master's
//        index; and the arbiter never idles the slave: a ready slave with
//        any request takes one;
//   (r2) the answer goes to the master granted two cycles before, and to
//        no other;
//   (r3) fairness: a master that keeps requesting is granted within N of
//        the slave's takes: at most N - 1 others are granted while it
//        waits.  Inductive invariant: the takes it has watched plus its
//        distance from the pointer, (i - rr) mod N, stay at most N - 1.
// Negative control (must FAIL): SELFTEST_ARB_STUCK keeps the pointer where
// it is (cop_arb.v), so a master below a busy one starves: (r3) refutes it.
module cop_arb_props #(
    parameter integer N = 3
) (
    input wire         clk,
    input wire         rst,
    input wire [N-1:0] req,
    input wire         ready,
    input wire         rsp_valid
);
    localparam integer NW = (N <= 2) ? 1 : (N <= 4) ? 2 : 3;
    wire [N-1:0]  grant, rsp;
    wire          take;
    wire [NW-1:0] sel, f_rr;

    cop_arb #(.N(N)) dut (
        .clk(clk), .rst(rst), .req(req), .ready(ready), .rsp_valid(rsp_valid),
        .grant(grant), .take(take), .sel(sel), .rsp(rsp)
`ifdef FORMAL
        , .f_rr(f_rr)
`endif
    );

`ifdef FORMAL
    reg          init = 1'b1, p_rst = 1'b1;
    reg [N-1:0]  p_req = {N{1'b0}}, p_grant = {N{1'b0}};
    reg          t1 = 1'b0, t2 = 1'b0;        // a take one and two cycles ago
    reg [NW-1:0] s1 = {NW{1'b0}}, s2 = {NW{1'b0}};  // its index
    reg [3:0]    seen [0:N-1];                // takes of others while master i waits
    integer i;
    initial for (i = 0; i < N; i = i + 1) seen[i] = 4'd0;
    always @(posedge clk) begin
        init <= 1'b0;
        p_rst <= rst;
        p_req <= req;
        p_grant <= grant;
        t1 <= !rst && take; s1 <= sel;
        t2 <= !rst && t1;   s2 <= s1;
        for (i = 0; i < N; i = i + 1)
            if (rst || !req[i] || grant[i]) seen[i] <= 4'd0;
            else if (take) seen[i] <= seen[i] + 4'd1;
    end

    // (i - rr) mod N
    function [3:0] dist(input integer k, input [NW-1:0] r);
        dist = (k >= r) ? k - r : k + N - r;
    endfunction

    integer g, ng;
    always @* begin
        if (init) assume(rst);
        if (!init && !rst) begin
            for (i = 0; i < N; i = i + 1)
                if (!p_rst && p_req[i] && !p_grant[i]) assume(req[i]);
            assume(rsp_valid == t2);
        end
        if (!init && !rst) begin
            // (r1)
            ng = 0;
            for (i = 0; i < N; i = i + 1)
                if (grant[i]) begin
                    ng = ng + 1;
                    assert(req[i] && ready && sel == i);
                end
            assert(ng <= 1);
            assert(take == (ng == 1));
            assert(take == (ready && |req));
            assert(f_rr < N);
            // (r2)
            for (i = 0; i < N; i = i + 1)
                assert(rsp[i] == (rsp_valid && s2 == i));
            // (r3)
            for (i = 0; i < N; i = i + 1) begin
                if (req[i]) assert(seen[i] + dist(i, f_rr) <= N - 1);
                assert(seen[i] <= N - 1);
            end
        end
    end
`endif
endmodule
