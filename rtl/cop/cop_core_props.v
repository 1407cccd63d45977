`default_nettype none
// cop_core_props: formal harness for rtl/cop/cop_core.v (its manifest names
// the jobs; formal/run.py runs them) at C = 2 with the smallest tables.
// Every request field is free every cycle; the only assumption is reset in
// the first cycle.
//   (p1) the bus contract (docs/link.md): ready is high outside rst except
//        in the cycle after a taken request (the request stage); a
//        response comes exactly two cycles after each taken request and at
//        no other time; rdata, rdata_hi, len and err are 0 while
//        bus_rsp_valid is low, and rdata, rdata_hi and len are 0 in an
//        answer whose err is not 0; a finished CALL's len is at most 8; a
//        plain access never answers PENDING.
//   (p2) no mask or TC write in user mode: the TC vector and the mask of
//        key 0 change only in a cycle after an EXEC whose leader is a SETBM
//        or SETTC with U/S = supervisor in its instruction word; and every
//        buffered supervisor opcode carries U/S = supervisor.
//   (p3) no result before the terminal count is complete: a collective
//        command's OK reply is placed only when its round completes.
//   (p4) each TC bit clears at most once per contribution: while key 0's
//        round stays open its working vector only loses bits, except the
//        bit of a contribution a CANCEL withdraws; it regains the others
//        only when the round closes (re-arm or a TC write).
//   (p5) CANCEL never clears a TC bit: key 0's working vector loses bits
//        only in the cycle after an EXEC step for key 0.
//   (p6) idle is exact enough to stop a clock on: while idle nothing is
//        placed, and after a cycle that is idle and takes no request the
//        core (unless in rst) is still idle, with the controller's state,
//        every channel's buffer and reply flags and key 0's row unchanged.
// The core is built without the FPU (EN_FPU = 0): rtl/fpu/ is checked on
// its own (docs/fpu.md), and the float rounds share the controller's
// completion and placement paths that these properties cover.
// Negative controls (must FAIL, each by a trace from reset within its
// steps): SELFTEST_NOTC claims key 0's TC vector never changes (a
// supervisor's SETTC is served by cycle 10); SELFTEST_EARLY builds cop_core
// with a barrier step that replies to its contributors before the round
// is complete, which (p3) must catch (by cycle 14); SELFTEST_WDCLR builds
// cop_core with a CANCEL that clears its round's whole working vector
// instead of setting its own bit again, which (p5) must catch (within 18
// steps: the withdrawal sets its TC bit a cycle after the CANCEL);
// SELFTEST_IDLE builds cop_core with idle high whenever the controller is in
// IDLE, even with a command ready to serve, which (p6) must catch (a CALL
// start, then the controller leaves IDLE: by cycle 4, the job's run being
// 8 steps).  The cycles are those of the shortest failing runs: a request
// takes two cycles (the core's request stage).
`include "bus_ports.vh"
module cop_core_props #(
    parameter integer C = 2,
    parameter integer PROPS = 63  // bit i: check property group p(i+1)
) (
    input wire        clk,
    input wire        rst,
    `AGGNET_BUS_REQ_FREE,
    `AGGNET_BUS_CALL_REQ_FREE
);
    wire        bus_req_ready, bus_rsp_valid;
    wire [31:0] bus_rsp_rdata, bus_rsp_rdata_hi;
    wire [1:0]  bus_rsp_err;
    wire [3:0]  bus_rsp_len;
    wire [C-1:0] f_rx_v, f_rx_srv, f_rp_v, f_rp_err, f_sup, f_pl_ok, f_clr, f_work0, f_tmpl0, f_bm0, f_coll;
    wire [C-1:0] f_wd0;
    wire [3:0]  f_st;
    wire        f_open0, f_lead_us, f_lead_set, f_rx_priv_ok, f_complete, f_exec0;
    wire        idle;

    cop_core #(.C(C), .PPN_W(1), .PID_W(1), .RA_W(1), .MB(1), .EN_FPU(0)) dut (
        .clk(clk), .rst(rst),
        `AGGNET_BUS_BIND,
        `AGGNET_BUS_CALL_BIND,
        .up_valid(), .up_ready(1'b0), .up_op(), .up_mask(), .up_us(), .up_ppn(), .up_pid(), .up_addr(), .up_data(),
        .up_len(), .dn_valid(1'b0), .dn_ready(), .dn_err(1'b0), .dn_cause(8'd0), .dn_data(64'd0), .dn_len(4'd0), .up_wd(), .ex_idx(6'd0), .ex_data(), .xp_ch(), .xp_idx(), .xp_data(64'd0),
        .idle(idle),
        .f_rx_v(f_rx_v), .f_rx_srv(f_rx_srv), .f_rp_v(f_rp_v), .f_rp_err(f_rp_err), .f_sup(f_sup), .f_st(f_st),
        .f_pl_ok(f_pl_ok), .f_clr(f_clr), .f_work0(f_work0), .f_tmpl0(f_tmpl0), .f_bm0(f_bm0), .f_open0(f_open0),
        .f_lead_us(f_lead_us), .f_lead_set(f_lead_set), .f_rx_priv_ok(f_rx_priv_ok), .f_coll(f_coll),
        .f_complete(f_complete), .f_wd0(f_wd0), .f_exec0(f_exec0)
    );

`ifdef FORMAL
    reg         init = 1'b1;
    reg         p_take = 1'b0, p_call = 1'b0, p_exec_set = 1'b0, pp_take = 1'b0, pp_call = 1'b0;
    reg [C-1:0] p_tmpl0, p_bm0, p_work0, p_wd0;
    reg         p_exec0 = 1'b0;
    reg         p_open0 = 1'b0, p_rst = 1'b1;
    reg         p_idle = 1'b0, p_noreq = 1'b0;
    reg [3:0]   p_st;
    reg [C-1:0] p_rx_v, p_rx_srv, p_rp_v, p_rp_err;
    always @(posedge clk) begin
        init       <= 1'b0;
        p_rst      <= rst;
        p_take     <= bus_req_valid && bus_req_ready;
        p_call     <= bus_req_call;
        pp_take    <= p_take && !rst;
        pp_call    <= p_call;
        p_exec_set <= f_st == 4'd4 && f_lead_set && f_lead_us;
        p_exec0    <= f_exec0;
        p_wd0      <= f_wd0;
        p_tmpl0    <= f_tmpl0;
        p_bm0      <= f_bm0;
        p_work0    <= f_work0;
        p_open0    <= f_open0;
        p_idle     <= idle;
        p_noreq    <= !bus_req_valid && !rst;
        p_st       <= f_st;
        p_rx_v     <= f_rx_v;
        p_rx_srv   <= f_rx_srv;
        p_rp_v     <= f_rp_v;
        p_rp_err   <= f_rp_err;
    end
    always @* begin
        if (init) assume(rst);
        if (!init) begin
            // (p1) the bus contract
            if (PROPS[0]) begin
            assert(bus_req_ready == (!rst && !p_take));
            if (!p_rst) assert(bus_rsp_valid == pp_take);
            if (!bus_rsp_valid) assert(bus_rsp_rdata == 32'd0 && bus_rsp_rdata_hi == 32'd0 && bus_rsp_len == 4'd0 &&
                                       bus_rsp_err == 2'd0);
            if (bus_rsp_valid && bus_rsp_err == 2'd0) assert(bus_rsp_len <= 4'd8);
            if (bus_rsp_valid && bus_rsp_err != 2'd0)
                assert(bus_rsp_rdata == 32'd0 && bus_rsp_rdata_hi == 32'd0 && bus_rsp_len == 4'd0);
            if (bus_rsp_valid && !pp_call) assert(bus_rsp_err != 2'd3 && bus_rsp_len == 4'd0);
            end
            // (p2) no mask / TC write in user mode
            if (PROPS[1]) begin
            assert(f_rx_priv_ok);
            if (!p_rst && (f_tmpl0 != p_tmpl0 || f_bm0 != p_bm0)) assert(p_exec_set);
            end
            // (p3) no result before the terminal count is complete
            if (PROPS[2] && (f_pl_ok & f_coll) != {C{1'b0}}) assert(f_complete);
            // (p4) while key 0's round stays open, its working vector only loses bits
            if (PROPS[3] && !p_rst && p_open0 && f_open0) assert((f_work0 & ~p_work0 & ~p_wd0) == {C{1'b0}});
            // the working vector of a round is within its template
            if (PROPS[3]) assert((f_work0 & ~f_tmpl0) == {C{1'b0}});
            // (p5) CANCEL never clears a TC bit: only an EXEC step for key 0 does
            if (PROPS[4] && !p_rst && (p_work0 & ~f_work0) != {C{1'b0}}) assert(p_exec0);
            // (p6) idle: nothing placed, and nothing changes without a request
            if (PROPS[5] && idle) assert(f_clr == {C{1'b0}} && f_pl_ok == {C{1'b0}});
            if (PROPS[5] && !p_rst && !rst && p_idle && p_noreq)
                assert(idle && f_st == p_st && f_rx_v == p_rx_v && f_rx_srv == p_rx_srv && f_rp_v == p_rp_v &&
                       f_rp_err == p_rp_err && f_work0 == p_work0 && f_tmpl0 == p_tmpl0 && f_bm0 == p_bm0 &&
                       f_open0 == p_open0);
`ifdef SELFTEST_NOTC
            assert(f_tmpl0 == {C{1'b0}});
`endif
        end
    end
`endif
endmodule
`default_nettype wire
