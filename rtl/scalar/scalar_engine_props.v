`default_nettype none
// scalar_engine_props: formal harness for rtl/scalar/scalar_engine.v (its
// manifest names the jobs; formal/run.py proves them by k-induction).  Every
// bus request field is free every cycle (the type and value are narrowed to
// two bits each, which keeps the proof small and leaves every ordering and
// matching case: two types, equal and unequal values); reset is assumed in
// the first cycle only.
//
// The harness keeps its own view of the receive buffers, written from seed
// 003 chapter 6 and the module header, not from the RTL's scan: per PE a
// queue (sh, oldest first, shf entries), the message each PE's accepted
// send carries (from the request it made) and what each accepted receive
// asks for.  A send that the engine lets in (f_ins) appends the sender's
// message to the destination's queue; a scan that ends (f_done: the cycle
// after its last read, which stores the result) must find
// exactly what screcv() finds, the first queue entry whose source and type
// match (wildcards: any), and that entry leaves the queue, the others keep
// their order.
//   (p1) no message lost or duplicated: the engine's buffers hold exactly
//        the queues (fill and contents); a send is let in only with room.
//   (p2) per-pair order and the oldest match: a scan's result is the first
//        matching queue entry; none when none matches (then only a
//        receive without BLOCK finishes).
//   (p3) the result handed over (an ask's or a CANCEL's response) is the
//        message the scan took.
//   (i)  inductive invariants: in a scan, the buffer is the queue with the
//        entries after the match moved down as far as the scan has come,
//        rdata holds entry chk, found and hit say whether and what the
//        queue's first match before chk is, and the scan's copy of its PE's
//        receive and fill is the PE's; a pending operation's engine
//        registers are the harness's record of its request, and so are those
//        of a START taken and not yet applied; an ask whose answer is a
//        message waits with that PE's message in place.  With them the
//        induction closes at length 2 (at length 7 without the last three).
// Negative controls (must FAIL): SELFTEST_NOMATCH claims no scan ever
// finds a match (false after one send and one receive: a counterexample of
// 10 cycles); SELFTEST_NEWEST claims every match is the newest entry of the
// buffer (false once two messages are in one buffer and a receive matches
// the older: 11 cycles before the engine registered its requests, more
// than 12 since; the slowest job, 20 minutes and more on a loaded 2-core
// machine, most of it in the failing induction steps before).
`include "bus_ports.vh"
module scalar_engine_props #(
    parameter integer N     = 2,
    parameter integer DEPTH = 2
) (
    input wire        clk,
    input wire        rst,
    `AGGNET_BUS_REQ_FREE,
    `AGGNET_BUS_CALL_REQ_FREE
);
`include "bus_codes.vh"
`include "scalar_regs.vh"
    localparam integer EW = 54;
    wire        bus_req_ready, bus_rsp_valid, busy;
    wire [31:0] bus_rsp_rdata, bus_rsp_rdata_hi;
    wire [1:0]  bus_rsp_err;
    wire [3:0]  bus_rsp_len;
    wire [N*8-1:0]        f_fill;
    wire [N*3-1:0]        f_op, f_crit;
    wire [N*EW-1:0]       f_par;
    wire                  f_scan, f_found, f_ins, f_done;
    wire [5:0]            f_sp, f_ptr;
    wire [7:0]            f_chk, f_nxt;
    wire [EW-1:0]         f_hit, f_rdata, f_mrd;
    wire                  f_pv;
    wire [N*DEPTH*EW-1:0] f_mem;
    wire [33:0]           f_copy;
    wire [65:0]           f_rq;

    scalar_engine #(.N(N), .DEPTH(DEPTH)) dut (
        .clk(clk), .rst(rst),
        `AGGNET_BUS_BIND,
        `AGGNET_BUS_CALL_BIND,
        .busy(busy),
        .f_fill(f_fill), .f_op(f_op), .f_par(f_par), .f_crit(f_crit), .f_scan(f_scan), .f_sp(f_sp),
        .f_chk(f_chk), .f_nxt(f_nxt), .f_found(f_found), .f_hit(f_hit), .f_rdata(f_rdata), .f_mrd(f_mrd), .f_pv(f_pv), .f_mem(f_mem),
        .f_ins(f_ins), .f_done(f_done), .f_ptr(f_ptr), .f_copy(f_copy), .f_rq(f_rq)
    );

`ifdef FORMAL
    // ---- what a request is, from the register map ------------------------------
    wire        take   = bus_req_valid && bus_req_ready;
    wire [11:0] a      = bus_req_addr[11:0];
    wire        q_ok   = bus_req_pe < N;
    wire [5:0]  q      = bus_req_pe;
    wire [2:0]  q_op   = f_op[3*q[0] +: 3];
    wire        send_a = a[11:10] == 2'b10 && (a & SCALAR_CA_SEND_RSVD[11:0]) == 12'd0;
    wire        recv_a = a[11:10] == 2'b11 && (a & SCALAR_CA_RECV_RSVD[11:0]) == 12'd0;
    wire        start  = take && q_ok && bus_req_call && bus_req_we && q_op == SCALAR_ST_IDLE[2:0];
    wire        acc_send = start && send_a && bus_req_len == SCALAR_SEND_BYTES[3:0] && a[5:0] < N;
    wire        acc_recv = start && recv_a && bus_req_len == SCALAR_RECV_BYTES[3:0] &&
                           (a[SCALAR_CA_RECV_ANYSRC] || a[5:0] < N);
    wire        ask    = take && q_ok && bus_req_call && !bus_req_we;
    wire        cancel = take && q_ok && bus_req_call && bus_req_we && a == SCALAR_R_CANCEL;

    // ---- the harness's own view ------------------------------------------------------
    reg [N*DEPTH*EW-1:0] sh;     // queue p entry i at [(p*DEPTH+i)*EW +: EW]
    reg [7:0]            shf [0:N-1];
    reg [EW-1:0]         pend [0:N-1];   // an accepted send's message {src, type, value}
    reg [5:0]            pdest [0:N-1];
    reg [15:0]           wtype [0:N-1];  // an accepted receive's type, source and flags
    reg [5:0]            wsrc [0:N-1];
    reg [2:0]            wfl [0:N-1];    // {block, any type, any source}
    reg [EW-1:0]         took [0:N-1];   // the message a finished receive took
    reg                  exp_v;          // the next response hands over exp
    reg [EW-1:0]         exp;

    function [EW-1:0] ent(input [N*DEPTH*EW-1:0] v, input integer p, input integer i);
        ent = v[(p * DEPTH + i) * EW +: EW];
    endfunction
    function hit_of(input [EW-1:0] e, input [2:0] fl, input [5:0] s, input [15:0] t);
        hit_of = (fl[0] || e[53:48] == s) && (fl[1] || e[47:32] == t);
    endfunction

    // screcv() on queue p: the first matching entry before `upto` (-1: none)
    function integer first(input integer p, input integer upto);
        integer i;
        begin
            first = -1;
            for (i = DEPTH - 1; i >= 0; i = i - 1)
                if (i < upto && i < shf[p] && hit_of(ent(sh, p, i), wfl[p], wsrc[p], wtype[p])) first = i;
        end
    endfunction

    wire [0:0] sp = f_sp[0];
    wire [0:0] ip = f_ptr[0];
    integer k_done, k_scan;
    always @* begin
        k_done = first(sp, DEPTH);
        k_scan = first(sp, f_chk);
    end

    integer p, i;
    always @(posedge clk) begin
        if (bus_rsp_valid) exp_v <= 1'b0;
        if (rst) begin
            exp_v <= 1'b0;
            sh <= {N*DEPTH*EW{1'b0}};
            for (p = 0; p < N; p = p + 1) begin
                shf[p] <= 8'd0; pend[p] <= {EW{1'b0}}; pdest[p] <= 6'd0; wtype[p] <= 16'd0; wsrc[p] <= 6'd0;
                wfl[p] <= 3'd0; took[p] <= {EW{1'b0}};
            end
            exp <= {EW{1'b0}};
        end else begin
            if (acc_send) begin
                pend[q[0]]  <= {q, bus_req_wdata_hi[15:0], bus_req_wdata};
                pdest[q[0]] <= a[5:0];
            end
            if (acc_recv) begin
                wtype[q[0]] <= bus_req_wdata[15:0];
                wsrc[q[0]]  <= a[5:0];
                wfl[q[0]]   <= {a[SCALAR_CA_RECV_BLOCK], a[SCALAR_CA_RECV_ANYTYPE], a[SCALAR_CA_RECV_ANYSRC]};
            end
            if ((ask || cancel) && q_op == SCALAR_ST_MSG[2:0]) begin
                exp_v <= 1'b1;
                exp   <= took[q[0]];
            end
            if (f_ins) begin  // append the sender's message to its destination's queue
                sh[(pdest[ip][0] * DEPTH + shf[pdest[ip][0]]) * EW +: EW] <= pend[ip];
                shf[pdest[ip][0]] <= shf[pdest[ip][0]] + 8'd1;
            end
            if (f_done && k_done >= 0) begin  // take the first match out; the rest move down, in order
                took[sp] <= ent(sh, sp, k_done);
                for (i = 0; i < DEPTH - 1; i = i + 1)
                    if (i >= k_done) sh[(sp * DEPTH + i) * EW +: EW] <= ent(sh, sp, i + 1);
                shf[sp] <= shf[sp] - 8'd1;
            end
        end
    end

    reg past_valid = 1'b0;
    always @(posedge clk) past_valid <= 1'b1;
    initial assume (rst);
    // two types and four values are every case the matching has
    always @* assume (bus_req_wdata[31:2] == 30'd0 && bus_req_wdata_hi[31:1] == 31'd0);

    integer j;
    always @* begin
        if (past_valid && !rst) begin
            for (j = 0; j < N; j = j + 1) begin
                // (p1) the buffers are the queues
                assert (f_fill[j*8 +: 8] == shf[j] && shf[j] <= DEPTH);
                for (i = 0; i < DEPTH; i = i + 1)
                    if (i < shf[j] && !((f_scan || f_done) && f_sp[0] == j))
                        assert (ent(f_mem, j, i) == ent(sh, j, i));
                // (i) a pending operation's registers are its request
                if (f_op[j*3 +: 3] == SCALAR_ST_SEND[2:0])
                    assert (f_par[j*EW +: EW] == {pdest[j], pend[j][47:0]} && pend[j][53:48] == j && pdest[j] < N);
                if (f_op[j*3 +: 3] == SCALAR_ST_RECV[2:0])
                    assert (f_crit[j*3 +: 3] == wfl[j] && (wfl[j][0] || f_par[j*EW + 48 +: 6] == wsrc[j]) &&
                            (wfl[j][1] || f_par[j*EW + 32 +: 16] == wtype[j]));
                if (f_op[j*3 +: 3] == SCALAR_ST_MSG[2:0])
                    assert (f_par[j*EW +: EW] == took[j]);
                assert (f_op[j*3 +: 3] <= SCALAR_ST_EMPTY[2:0]);
            end
            // (p1) a send goes in only with room
            if (f_ins) assert (f_op[ip*3 +: 3] == SCALAR_ST_SEND[2:0] && shf[pdest[ip][0]] < DEPTH);
            // (i) a START taken but not yet applied carries its request
            // ({ask, start, pe, send, anys, anyt, blk, who, type, value}, from bit 65 down)
            if (f_rq[64] && f_rq[63:58] < N && f_op[f_rq[58]*3 +: 3] == SCALAR_ST_IDLE[2:0]) begin
                if (f_rq[57])
                    assert (f_rq[53:0] == {pdest[f_rq[58]], pend[f_rq[58]][47:0]} && pdest[f_rq[58]] < N &&
                            pend[f_rq[58]][53:48] == f_rq[63:58]);
                else
                    assert ({f_rq[54], f_rq[55], f_rq[56]} == wfl[f_rq[58]] &&
                            (f_rq[56] || f_rq[53:48] == wsrc[f_rq[58]]) &&
                            (f_rq[55] || f_rq[47:32] == wtype[f_rq[58]]));
            end
            // (i) a scan works on a copy of its PE's receive and fill
            if (f_scan || f_done)
                assert (f_copy[33:1] == {f_crit[sp*3 +: 3], f_par[sp*EW + 32 +: 22], f_fill[sp*8 +: 8]});
            if (f_scan) assert (f_copy[0] == (f_chk + 8'd1 == shf[sp]));
            // (i) the scan as far as it has come
            if (f_scan) begin
                // the first cycle reads entry 1 while the memory's output
                // holds entry 0; from then on (pv) rd_q holds entry chk and
                // the output entry chk + 1 (the last entry read, at the end)
                assert (f_op[sp*3 +: 3] == SCALAR_ST_RECV[2:0] && f_chk < shf[sp]);
                if (!f_pv)
                    assert (f_chk == 8'd0 && f_nxt == 8'd1 && f_mrd == ent(sh, sp, 0));
                else begin
                    assert (f_nxt == ((f_chk + 8'd2 < shf[sp]) ? f_chk + 8'd2 : shf[sp]));
                    assert (f_rdata == ent(sh, sp, f_chk));
                    if (f_chk + 8'd1 < shf[sp]) assert (f_mrd == ent(sh, sp, f_chk + 1));
                end
                assert (f_found == (k_scan >= 0));
                if (k_scan >= 0) assert (f_hit == ent(sh, sp, k_scan));
                for (i = 0; i < DEPTH; i = i + 1)
                    if (i < shf[sp]) begin
                        if (k_scan >= 0 && i >= k_scan && i + 1 < f_chk)
                            assert (ent(f_mem, sp, i) == ent(sh, sp, i + 1));
                        else
                            assert (ent(f_mem, sp, i) == ent(sh, sp, i));
                    end
            end
            // (p2) the scan's end: screcv()'s answer, and the buffer is the
            // queue without it (the entries after it moved down)
            if (f_done) begin
                assert (f_op[sp*3 +: 3] == SCALAR_ST_RECV[2:0]);
                assert (f_found == (k_done >= 0));
                if (k_done >= 0) assert (f_hit == ent(sh, sp, k_done));
                for (i = 0; i < DEPTH; i = i + 1)
                    if (i + 1 < shf[sp])
                        assert (ent(f_mem, sp, i) == ent(sh, sp, (k_done >= 0 && i >= k_done) ? i + 1 : i));
                    else if (i < shf[sp] && k_done < 0)
                        assert (ent(f_mem, sp, i) == ent(sh, sp, i));
            end
            // (p3) what is handed over
            if (exp_v && bus_rsp_valid)
                assert (bus_rsp_err == LINK_BUS_OK &&
                        {bus_rsp_rdata_hi, bus_rsp_rdata} == {5'd0, SCALAR_WHAT_MESSAGE[2:0], 2'b00, exp});
            if (exp_v) assert (!bus_req_ready);  // one request in flight at a time
            // (i) until then the ask (or CANCEL) waits, its PE's message in place
            if (exp_v && !bus_rsp_valid)
                assert (f_rq[65] && f_rq[63:58] < N && f_op[f_rq[58]*3 +: 3] == SCALAR_ST_MSG[2:0] &&
                        took[f_rq[58]] == exp);
            assert (bus_rsp_valid || (bus_rsp_err == 2'd0 && bus_rsp_rdata == 32'd0 && bus_rsp_rdata_hi == 32'd0));
`ifdef SELFTEST_NEWEST
            if (f_done && k_done >= 0) assert (k_done == shf[sp] - 1);
`endif
`ifdef SELFTEST_NOMATCH
            if (f_done) assert (k_done < 0);
`endif
        end
    end
`endif
endmodule
`default_nettype wire
