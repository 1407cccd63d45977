`default_nettype none
// nand_engine_props: formal harness for rtl/nand/nand_engine.v (its manifest
// names the jobs; formal/run.py runs them).  Every bus request field is free
// every cycle (any PE writes anything at any time); the only assumption is
// reset in the first cycle.  Properties (issue 11, "Formal"; seed 002
// sections 2.1.3, 2.7, 3.1, 3.3):
//   (p1) no PE observes completion before every PE has arrived: BF rises only
//        in the cycle after every PE's BAR was 1 (the S1 tree done), and
//        falls only after every BAR was 0 (S0 done);
//   (p2) completion follows the last arrival within one cycle: if every BAR
//        was 1 with BF 0 (or every BAR 0 with BF 1), BF has changed;
//   (p3) the two barrier trees are never done at once;
//   (p4) the pending signal is never cleared before every PE acknowledged:
//        SP falls only in the cycle after every PE's ACK stood at the value
//        that toggles AF, and only when no request came.
// Negative control (must FAIL): SELFTEST_EARLY claims BF never rises.
`include "bus_ports.vh"
module nand_engine_props #(
    parameter integer N = 3,
    parameter integer T = 2
) (
    input wire        clk,
    input wire        rst,
    `AGGNET_BUS_REQ_FREE,
    `AGGNET_BUS_CALL_REQ_FREE,
    input wire [N*12-1:0] nand_pins_in
);
    wire         bus_req_ready, bus_rsp_valid;
    wire [31:0]  bus_rsp_rdata;
    wire [1:0]   bus_rsp_err;
    wire [31:0]  bus_rsp_rdata_hi;
    wire [3:0]   bus_rsp_len;
    wire [N-1:0] f_bar, f_ack;
    wire         f_bf, f_sp, f_af, f_req_any;

    nand_engine #(.N(N), .T(T)) dut (
        .clk(clk), .rst(rst),
        `AGGNET_BUS_BIND,
        `AGGNET_BUS_CALL_BIND,
        .nand_pins_in(nand_pins_in), .nand_pins_out(), .f_bar(f_bar), .f_ack(f_ack), .f_bf(f_bf), .f_sp(f_sp), .f_af(f_af),
        .f_req_any(f_req_any)
    );

`ifdef FORMAL
    reg          past_valid = 1'b0;
    reg          p_rst, p_bf, p_sp, p_af, p_req, p_s1, p_s0, p_a1, p_a0;
    always @(posedge clk) begin
        past_valid <= 1'b1;
        p_rst <= rst;
        p_bf  <= f_bf;
        p_sp  <= f_sp;
        p_af  <= f_af;
        p_req <= f_req_any;
        p_s1  <= &f_bar;
        p_s0  <= &(~f_bar);
        p_a1  <= &f_ack;
        p_a0  <= &(~f_ack);
    end
    initial assume (rst);

    always @* begin
        if (past_valid && !p_rst && !rst) begin
            if (f_bf && !p_bf) assert (p_s1);                  // (p1)
            if (!f_bf && p_bf) assert (p_s0);                  // (p1)
            if (p_s1 && !p_bf) assert (f_bf);                  // (p2)
            if (p_s0 && p_bf) assert (!f_bf);                  // (p2)
            assert (!(&f_bar && &(~f_bar)));                   // (p3)
            if (!f_sp && p_sp)                                 // (p4)
                assert (!p_req && ((p_a1 && !p_af) || (p_a0 && p_af)));
`ifdef SELFTEST_EARLY
            assert (!(f_bf && !p_bf));
`endif
        end
    end
`endif
    wire unused_ok = &{1'b0, bus_req_ready, bus_rsp_valid, bus_rsp_rdata, bus_rsp_err, bus_rsp_rdata_hi, bus_rsp_len};
endmodule
`default_nettype wire
