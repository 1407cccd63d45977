`default_nettype none
// scalar_engine: Pai's low-latency scalar send/receive (seed 003, chapter 6,
// "The Scalar Communication Call": scsend(), screcv() and the scalar
// communication buffer of the Inprdy service routine) as engine 5 of the
// one hub top, rtl/hub/aggnet_hub.v, in bus window 5 (docs/scalar.md; the
// registers in docs/scalar_regmap.md, generated with scalar_regs.vh by
// tools/scalargen.py).
//
// What it keeps, per PE p:
//   * a receive buffer of DEPTH messages (the seed's 64), oldest first at
//     entries 0..fill-1 of p's part of one scalar_mem: each entry is the
//     seed's two words, the data word (32 bits: the seed's int data_scalar),
//     a 16-bit type and the source PE (6 bits);
//   * fill (the seed's sc_count) and p's one operation: a send held until
//     it is in the destination's buffer, a receive waiting for its scan or
//     for a match, or a finished one whose result waits to be collected.
// A send is one CALL (SEND | dest, operand type:value): the message goes in
// at the end of dest's buffer, and the CALL is answered once it is there.
// A receive is one CALL (RECV | flags | src, operand type): the buffer is
// scanned from the oldest entry; the first entry whose source and type
// match (either may be a wildcard, ANYSRC / ANYTYPE, the seed's -1) is
// taken out and every later entry moves down one, so the messages left stay
// in arrival order: the screcv() pseudocode (steps 2-6), which walks the
// buffer from the first message and copies out the first that matches.
// Without BLOCK the answer comes after one scan, "no message" (WHAT NONE)
// if nothing matched, as the seed's "indicate message not found"; with
// BLOCK the receive stays pending and is scanned again each time a message
// arrives in p's buffer (never otherwise: the hub does not poll the
// buffer), until one matches or CANCEL withdraws it.
//
// The controller serves one operation at a time, so inserts and scans never
// overlap; in each idle cycle that takes no bus request it looks at PE ptr
// (ptr then moves on round-robin) and
//   * inserts ptr's held send if its destination's buffer has room (1 cycle;
//     marks the destination for a rescan), or
//   * scans ptr's receive if ptr's buffer has changed since its last scan:
//     one memory read per cycle over entries 0..fill-1, each word
//     registered (rd_q) before it is compared; after the match every later
//     entry is written back one lower (a write and a read in the same
//     cycle, to other entries), then one cycle stores the result.  The
//     scan takes fill + 3 cycles whatever the position of the match (and 1
//     cycle when the buffer is empty): linear in the fill, 67 cycles for a
//     full 64-deep buffer.
// While a scan runs bus_req_ready is low (at most DEPTH + 3 cycles), and it
// is low until a taken request has been applied and in the cycle after
// (the controller's), so the controller gets at least every other idle
// cycle.  From a SEND's take to the message being
// receivable: at most N + 2 cycles (the apply, then ptr's round) when the
// controller is idle and the buffer has room; a receive's answer at most
// N + fill + 4 cycles after its take.
//
// Full buffer (aggnet's rule, docs/scalar.md): a send to a full buffer is
// held in the hub (STATE SEND, the CALL pending) until a receive at the
// destination makes room, or the sender's CANCEL withdraws it; never
// dropped, never refused.  Order per sender and receiver: a PE has one
// operation at a time (a second start is refused BUSY), so its messages
// enter each buffer in the order it sent them, and a scan never reorders.
//
// Bus (slave side, docs/link.md "The engine register bus"): ready as above;
// a taken request is decoded as far as its fields tell into registers and
// applied in the next cycle in which no scan runs (the controller may
// start one in the cycle of the take: it never waits for the bus's
// inputs), then answered, registered, in the cycle after: two cycles after
// the take, or up to DEPTH + 3 more; busy is high while one is in flight;
// rdata, hi,
// len and err 0 when no response.  Plain reads: SHAPE, FILL, CAUSE, STATE
// (a write to them is refused); CALL starts: SEND, RECV (answered PENDING;
// refused BUSY, LEN, DEST or SOURCE with CAUSE set; a reserved address bit:
// no such register) and CANCEL (answered at once: what there was, and the
// result of a finished operation); CALL asks: the result once (err 0, then
// the PE is idle), PENDING while it runs, refused IDLE with none started.
// A PE beyond N: no such register.
//
// Departures from the seed: the buffer is in the hub, not in each node's
// Vertex data area; the data word is 32 bits (the nCUBE int); wildcards are
// flags in the CALL address, not the value -1, so all 65536 types and every
// PE id are usable; the seed's screcv() only looks (its trap returns "not
// found") while BLOCK waits in the hub; a full buffer holds the sender (the
// seed does not say what its 65th message does); no partition: a
// destination outside 0..N-1 is refused DEST.
//
// Parameters: N in 2..64 PEs; DEPTH in 2..64 messages per PE, a power of
// two (64 is the seed's).
`include "bus_ports.vh"
module scalar_engine #(
    parameter integer N     = 4,
    parameter integer DEPTH = 64
) (
    input  wire clk,
    input  wire rst,
    `AGGNET_BUS_SLAVE,       // the engine bus (rtl/bus/bus_ports.vh)
    `AGGNET_BUS_CALL_SLAVE,  // and its CALL ports: the slot has "call": true
    output wire busy
`ifdef FORMAL
    ,
    // the state, for rtl/scalar/scalar_engine_props.v
    output wire [N*8-1:0]        f_fill,
    output wire [N*3-1:0]        f_op,
    output wire [N*54-1:0]       f_par,    // per PE {pid, ptype, pval}
    output wire [N*3-1:0]        f_crit,   // per PE {blk, anyt, anys}
    output wire                  f_scan,   // st == S_SCAN
    output wire [5:0]            f_sp,
    output wire [7:0]            f_chk,
    output wire [7:0]            f_nxt,
    output wire                  f_found,
    output wire [53:0]           f_hit,
    output wire [53:0]           f_rdata,  // rd_q: the word compared (entry f_chk once f_pv)
    output wire [53:0]           f_mrd,    // the memory's output word
    output wire                  f_pv,
    output wire [N*DEPTH*54-1:0] f_mem,
    output wire                  f_ins,    // this cycle inserts PE f_ptr's send
    output wire                  f_done,   // this cycle stores a scan's result (f_sp's)
    output wire [5:0]            f_ptr,
    output wire [33:0]           f_copy,   // the scan's copy of f_sp's receive: {c_blk, c_anyt, c_anys, c_src, c_type, c_fill, c_last}
    output wire [65:0]           f_rq      // the request taken and not yet applied:
                                           // {ask or CANCEL, START to be let in unless its PE is busy,
                                           //  pe, send, anys, anyt, blk, who, type, value}
`endif
);
`include "scalar_regs.vh"
`include "bus_codes.vh"

    localparam integer PW  = (N <= 2) ? 1 : $clog2(N);
    localparam integer AW  = $clog2(DEPTH);
    localparam integer MAW = PW + AW;
    localparam integer EW  = 6 + 16 + 32;  // source, type, data word

    generate
        if (N < 2 || N > 64) begin : g_bad_n
            $error("scalar_engine: N must be in 2..64");
        end
        if (DEPTH < 2 || DEPTH > 64 || (DEPTH & (DEPTH - 1)) != 0) begin : g_bad_depth
            $error("scalar_engine: DEPTH must be a power of two in 2..64");
        end
        if (SCALAR_RES_VALUE != 0 || SCALAR_RES_TYPE != 32 || SCALAR_RES_SRC != 48 || SCALAR_RES_WHAT != 56 ||
            SCALAR_CA_SEND_DEST != 0 || SCALAR_CA_RECV_SRC != 0 || SCALAR_CA_RECV_ANYSRC != 6 ||
            SCALAR_CA_RECV_ANYTYPE != 7 || SCALAR_CA_RECV_BLOCK != 8 || SCALAR_R_SEND != 12'h800 ||
            SCALAR_R_RECV != 12'hC00) begin : g_bad_map
            $error("scalar_engine: the result and CALL address layout are decoded as scalar_regs.vh had them");
        end
    endgenerate

    localparam [2:0] OP_IDLE  = SCALAR_ST_IDLE[2:0];
    localparam [2:0] OP_SEND  = SCALAR_ST_SEND[2:0];
    localparam [2:0] OP_RECV  = SCALAR_ST_RECV[2:0];
    localparam [2:0] OP_SENT  = SCALAR_ST_SENT[2:0];
    localparam [2:0] OP_MSG   = SCALAR_ST_MSG[2:0];
    localparam [2:0] OP_EMPTY = SCALAR_ST_EMPTY[2:0];
    localparam [7:0] FULL     = DEPTH[7:0];
    localparam [7:0] NPE      = N[7:0];

    // ---- per-PE state ---------------------------------------------------------------
    reg [2:0]  op    [0:N-1];   // STATE code
    reg [5:0]  pid   [0:N-1];   // SEND: dest; RECV: the source wanted; MSG: the message's source
    reg [15:0] ptype [0:N-1];   // SEND, RECV: the type; MSG: the message's
    reg [31:0] pval  [0:N-1];   // SEND: the data word; MSG: the message's
    reg        anys  [0:N-1];   // RECV: ANYSRC
    reg        anyt  [0:N-1];   // RECV: ANYTYPE
    reg        blk   [0:N-1];   // RECV: BLOCK
    reg        dirty [0:N-1];   // the buffer changed since this PE's receive last scanned it
    reg [2:0]  cause [0:N-1];
    reg [7:0]  fill  [0:N-1];

    // ---- the controller ---------------------------------------------------------------
    // S_FIN: the cycle after a scan's last read, which stores the result
    // from found and hit alone (registered: the compare of the memory's
    // output word feeds only found and hit, never the per-PE state)
    localparam [1:0] S_IDLE = 2'd0, S_SCAN = 2'd1, S_FIN = 2'd2;
    reg  [1:0]    st;
    reg  [PW-1:0] ptr;
    reg  [PW-1:0] sp;        // the PE whose buffer is scanned
    reg  [7:0]    nxt;       // next entry to read
    reg  [7:0]    chk;       // entry whose word rd_q holds (once pv)
    reg           pv;        // rd_q holds entry chk (every S_SCAN cycle but the first)
    reg  [EW-1:0] rd_q;      // the memory's output word, registered: the compare's input
    reg           found;
    reg  [EW-1:0] hit;       // the matching entry
    // sp's receive as the scan began (a copy, so that the compare and the
    // scan's control read no per-PE mux; nothing changes them during a scan)
    reg  [5:0]    c_src;
    reg  [15:0]   c_type;
    reg           c_anys, c_anyt, c_blk;
    reg  [7:0]    c_fill;
    reg           c_last;    // entry chk is the buffer's last (chk + 1 == c_fill), registered
    reg           took;      // the request taken two cycles ago was applied last cycle

    // A request is taken into rq_* (decoded as far as the bus fields alone
    // tell), applied in the next cycle (rq_v), answered in the one after.
    localparam [2:0] K_NOREG = 3'd0, K_PW = 3'd1, K_PR = 3'd2, K_CANCEL = 3'd3, K_START = 3'd4, K_ASK = 3'd5;
    reg           rq_v;
    reg  [2:0]    rq_kind;
    reg  [PW-1:0] rq_q;
    reg  [1:0]    rq_sel;    // K_PR: 0 SHAPE, 1 FILL, 2 CAUSE, 3 STATE
    reg           rq_send, rq_lenok, rq_whook, rq_anys, rq_anyt, rq_blk;
    reg  [5:0]    rq_who;
    reg  [15:0]   rq_type;
    reg  [31:0]   rq_val;

    wire          take = bus_req_valid && bus_req_ready;
    assign bus_req_ready = (st == S_IDLE) && !rq_v && !took && !rst;

    // memory ports (below, after the work decode)
    reg           m_we, m_re;
    reg [MAW-1:0] m_waddr, m_raddr;
    reg [EW-1:0]  m_wdata;
    wire [EW-1:0] m_rdata;
    scalar_mem #(.WORDS(N * DEPTH), .W(EW), .AW(MAW)) u_mem (
        .clk(clk), .we(m_we), .waddr(m_waddr), .wdata(m_wdata),
        .re(m_re), .raddr(m_raddr), .rdata(m_rdata)
`ifdef FORMAL
        , .f_mem(f_mem)
`endif
    );

    // the entry in rd_q, and whether it matches sp's receive (the block
    // RAM's output goes only into rd_q: its clock-to-output time is most
    // of a cycle on the ECP5)
    wire [5:0]  e_src  = rd_q[53:48];
    wire [15:0] e_type = rd_q[47:32];
    wire        e_hit  = (c_anys || e_src == c_src) && (c_anyt || e_type == c_type);
    wire        last   = c_last;

    // ptr's work
    wire [PW-1:0] pdst  = pid[ptr][PW-1:0];
    wire [5:0]    ptr_id = {{(6 - PW){1'b0}}, ptr};  // the sender's id as an entry stores it
    wire          can_send = op[ptr] == OP_SEND && fill[pdst] != FULL;
    wire          can_scan = op[ptr] == OP_RECV && dirty[ptr];

    // busy: work the controller can do without a bus request
    reg [N-1:0] work;
    integer w;
    always @(*) begin
        for (w = 0; w < N; w = w + 1)
            work[w] = (op[w] == OP_SEND && fill[pid[w][PW-1:0]] != FULL) || (op[w] == OP_RECV && dirty[w]);
    end
    assign busy = st != S_IDLE || rq_v || |work;

    // memory ports: an insert (the controller's turn, ptr's send), the first
    // read of a scan, and in S_SCAN the next read and the write one lower
    always @(*) begin
        m_we = 1'b0; m_waddr = {MAW{1'b0}}; m_wdata = {EW{1'b0}};
        m_re = 1'b0; m_raddr = {MAW{1'b0}};
        if (st == S_IDLE) begin
            if (!rst && !rq_v && can_send) begin
                m_we    = 1'b1;
                m_waddr = {pdst, fill[pdst][AW-1:0]};
                m_wdata = {ptr_id, ptype[ptr], pval[ptr]};
            end else if (!rst && !rq_v && can_scan && fill[ptr] != 8'd0) begin
                m_re    = 1'b1;
                m_raddr = {ptr, {AW{1'b0}}};
            end
        end else if (st == S_SCAN) begin
            m_re    = nxt != c_fill;
            m_raddr = {sp, nxt[AW-1:0]};
            m_we    = found && pv;
            m_waddr = {sp, chk[AW-1:0] - 1'b1};
            m_wdata = rd_q;
        end
    end

    // ---- the bus request's decode ---------------------------------------------------------
    wire [11:0]   a     = bus_req_addr[11:0];
    wire          pe_ok = {2'b00, bus_req_pe} < NPE;
    wire [PW-1:0] q     = rq_q;
    wire          is_send = a[11:10] == 2'b10;
    wire          is_recv = a[11:10] == 2'b11;
    wire          rsvd    = is_send ? (a & SCALAR_CA_SEND_RSVD[11:0]) != 12'd0
                                    : (a & SCALAR_CA_RECV_RSVD[11:0]) != 12'd0;
    wire [5:0]    a_pe    = a[5:0];
    wire          a_anys  = a[SCALAR_CA_RECV_ANYSRC];
    wire          a_anyt  = a[SCALAR_CA_RECV_ANYTYPE];
    wire          a_blk   = a[SCALAR_CA_RECV_BLOCK];
    wire          a_pe_ok = {2'b00, a_pe} < NPE;
    wire          plain   = a == SCALAR_R_SHAPE || a == SCALAR_R_FILL || a == SCALAR_R_CAUSE || a == SCALAR_R_STATE;
    wire [2:0]    kind    = !pe_ok ? K_NOREG
                          : !bus_req_call ? (!plain ? K_NOREG : bus_req_we ? K_PW : K_PR)
                          : !bus_req_we ? K_ASK
                          : a == SCALAR_R_CANCEL ? K_CANCEL
                          : (!(is_send || is_recv) || rsvd) ? K_NOREG : K_START;
    wire [1:0]    sel     = a == SCALAR_R_SHAPE ? 2'd0 : a == SCALAR_R_FILL ? 2'd1 : a == SCALAR_R_CAUSE ? 2'd2 : 2'd3;

    // a PE's result as RECV and CANCEL hand it over
    function [63:0] result(input [2:0] what, input [5:0] s, input [15:0] t, input [31:0] v);
        result = {5'd0, what, 2'b00, s, t, v};
    endfunction
    wire [63:0] r_msg  = result(SCALAR_WHAT_MESSAGE[2:0], pid[q], ptype[q], pval[q]);
    wire [63:0] r_none = result(SCALAR_WHAT_NONE[2:0], 6'd0, 16'd0, 32'd0);
    wire [63:0] r_wd   = result(SCALAR_WHAT_WITHDRAWN[2:0], 6'd0, 16'd0, 32'd0);
    wire [63:0] r_sent = result(SCALAR_WHAT_SENT[2:0], 6'd0, 16'd0, 32'd0);

    // response registers
    reg        rv;
    reg [1:0]  rerr;
    reg [63:0] rres;
    reg [3:0]  rlen;
    assign bus_rsp_valid    = rv;
    assign bus_rsp_err      = rerr;
    assign bus_rsp_rdata    = rres[31:0];
    assign bus_rsp_rdata_hi = rres[63:32];
    assign bus_rsp_len      = rlen;

    wire unused_ok = &{1'b0, bus_req_size, bus_req_wdata_hi[31:16], bus_req_addr[15:12]};

    task respond(input [1:0] e, input [63:0] r, input [3:0] l);
        begin
            rv <= 1'b1; rerr <= e; rres <= r; rlen <= l;
        end
    endtask
    task refuse(input [2:0] c);
        begin
            respond(LINK_BUS_REFUSED, 64'd0, 4'd0);
            cause[q] <= c;
        end
    endtask

    always @(posedge clk) rd_q <= m_rdata;

    integer i;
    always @(posedge clk) begin
        rv <= 1'b0; rerr <= 2'd0; rres <= 64'd0; rlen <= 4'd0;
        took <= rq_v && st == S_IDLE;                 // applied this cycle
        rq_v <= !rst && (take || (rq_v && st != S_IDLE));  // waits while a scan runs
        if (take) begin
            rq_kind  <= kind;
            rq_q     <= bus_req_pe[PW-1:0];
            rq_sel   <= sel;
            rq_send  <= is_send;
            rq_lenok <= bus_req_len == (is_send ? SCALAR_SEND_BYTES[3:0] : SCALAR_RECV_BYTES[3:0]);
            rq_whook <= a_pe_ok || (is_recv && a_anys);
            rq_anys  <= is_recv && a_anys;
            rq_anyt  <= is_recv && a_anyt;
            rq_blk   <= is_recv && a_blk;
            rq_who   <= a_pe;
            rq_type  <= is_send ? bus_req_wdata_hi[15:0] : bus_req_wdata[15:0];
            rq_val   <= is_send ? bus_req_wdata : 32'd0;
        end
        if (rst) begin
            st <= S_IDLE; ptr <= {PW{1'b0}}; sp <= {PW{1'b0}}; took <= 1'b0;
            rq_kind <= K_NOREG; rq_q <= {PW{1'b0}}; rq_sel <= 2'd0; rq_send <= 1'b0; rq_lenok <= 1'b0;
            rq_whook <= 1'b0; rq_anys <= 1'b0; rq_anyt <= 1'b0; rq_blk <= 1'b0; rq_who <= 6'd0;
            rq_type <= 16'd0; rq_val <= 32'd0;
            nxt <= 8'd0; chk <= 8'd0; pv <= 1'b0; found <= 1'b0; hit <= {EW{1'b0}};
            c_src <= 6'd0; c_type <= 16'd0; c_anys <= 1'b0; c_anyt <= 1'b0; c_blk <= 1'b0; c_fill <= 8'd0;
            c_last <= 1'b0;
            for (i = 0; i < N; i = i + 1) begin
                op[i] <= OP_IDLE; pid[i] <= 6'd0; ptype[i] <= 16'd0; pval[i] <= 32'd0;
                anys[i] <= 1'b0; anyt[i] <= 1'b0; blk[i] <= 1'b0; dirty[i] <= 1'b0;
                cause[i] <= SCALAR_CAUSE_NONE[2:0]; fill[i] <= 8'd0;
            end
        end else if (rq_v && st == S_IDLE) begin
            // ---- the request taken earlier (the controller waits this cycle)
            case (rq_kind)
                K_PW: respond(LINK_BUS_REFUSED, 64'd0, 4'd0);
                K_PR: case (rq_sel)
                          2'd0:    respond(LINK_BUS_OK, {48'd0, FULL, NPE}, 4'd0);
                          2'd1:    respond(LINK_BUS_OK, {56'd0, fill[q]}, 4'd0);
                          2'd2:    respond(LINK_BUS_OK, {61'd0, cause[q]}, 4'd0);
                          default: respond(LINK_BUS_OK, {61'd0, op[q]}, 4'd0);
                      endcase
                K_CANCEL: begin
                    case (op[q])
                        OP_SEND, OP_RECV: respond(LINK_BUS_OK, r_wd, 4'd8);
                        OP_SENT:          respond(LINK_BUS_OK, r_sent, 4'd8);
                        OP_MSG:           respond(LINK_BUS_OK, r_msg, 4'd8);
                        default:          respond(LINK_BUS_OK, r_none, 4'd8);
                    endcase
                    op[q] <= OP_IDLE;
                    dirty[q] <= 1'b0;
                    cause[q] <= SCALAR_CAUSE_NONE[2:0];
                end
                K_START: begin
                    if (op[q] != OP_IDLE) begin
                        refuse(SCALAR_CAUSE_BUSY[2:0]);
                    end else if (!rq_lenok) begin
                        refuse(SCALAR_CAUSE_LEN[2:0]);
                    end else if (!rq_whook) begin
                        refuse(rq_send ? SCALAR_CAUSE_DEST[2:0] : SCALAR_CAUSE_SOURCE[2:0]);
                    end else begin
                        respond(LINK_BUS_PENDING, 64'd0, 4'd0);
                        cause[q] <= SCALAR_CAUSE_NONE[2:0];
                        op[q]    <= rq_send ? OP_SEND : OP_RECV;
                        pid[q]   <= rq_who;
                        ptype[q] <= rq_type;
                        pval[q]  <= rq_val;
                        anys[q]  <= rq_anys;
                        anyt[q]  <= rq_anyt;
                        blk[q]   <= rq_blk;
                        dirty[q] <= !rq_send;   // a new receive scans once
                    end
                end
                K_ASK: begin
                    case (op[q])
                        OP_SEND, OP_RECV: respond(LINK_BUS_PENDING, 64'd0, 4'd0);
                        OP_SENT:  begin respond(LINK_BUS_OK, 64'd0, 4'd0); op[q] <= OP_IDLE; end
                        OP_MSG:   begin respond(LINK_BUS_OK, r_msg, 4'd8); op[q] <= OP_IDLE; end
                        OP_EMPTY: begin respond(LINK_BUS_OK, r_none, 4'd8); op[q] <= OP_IDLE; end
                        default:  refuse(SCALAR_CAUSE_IDLE[2:0]);
                    endcase
                end
                default: respond(LINK_BUS_NO_REG, 64'd0, 4'd0);
            endcase
        end else if (st == S_IDLE) begin
            // ---- the controller's turn: PE ptr
            ptr <= (ptr == N[PW-1:0] - 1'b1) ? {PW{1'b0}} : ptr + 1'b1;
            if (can_send) begin
                fill[pdst]  <= fill[pdst] + 8'd1;
                dirty[pdst] <= 1'b1;
                op[ptr]     <= OP_SENT;
            end else if (can_scan) begin
                dirty[ptr] <= 1'b0;
                if (fill[ptr] == 8'd0) begin
                    if (!blk[ptr]) op[ptr] <= OP_EMPTY;
                end else begin
                    st      <= S_SCAN;
                    sp      <= ptr;
                    c_src   <= pid[ptr];
                    c_type  <= ptype[ptr];
                    c_anys  <= anys[ptr];
                    c_anyt  <= anyt[ptr];
                    c_blk   <= blk[ptr];
                    c_fill  <= fill[ptr];
                    c_last  <= fill[ptr] == 8'd1;
                    nxt     <= 8'd1;
                    chk     <= 8'd0;
                    pv      <= 1'b0;
                    found   <= 1'b0;
                end
            end
        end else if (st == S_SCAN) begin
            // ---- S_SCAN: the memory reads entry nxt; from the second
            // cycle on (pv) rd_q holds entry chk of sp's buffer
            if (nxt != c_fill) nxt <= nxt + 8'd1;
            pv <= 1'b1;
            if (pv) begin
                if (!found && e_hit) begin
                    found <= 1'b1;
                    hit   <= rd_q;
                end
                chk <= chk + 8'd1;
                c_last <= chk + 8'd2 == c_fill;
                if (last) st <= S_FIN;
            end
        end else if (st == S_FIN) begin
            // ---- S_FIN: found and hit hold the scan's result
            st <= S_IDLE;
            if (found) begin
                fill[sp]  <= c_fill - 8'd1;
                op[sp]    <= OP_MSG;
                pid[sp]   <= hit[53:48];
                ptype[sp] <= hit[47:32];
                pval[sp]  <= hit[31:0];
            end else if (!c_blk) begin
                op[sp] <= OP_EMPTY;
            end
        end
    end

`ifdef FORMAL
    genvar g;
    generate
        for (g = 0; g < N; g = g + 1) begin : g_f
            assign f_fill[g*8 +: 8] = fill[g];
            assign f_op[g*3 +: 3]   = op[g];
            assign f_par[g*54 +: 54] = {pid[g], ptype[g], pval[g]};
            assign f_crit[g*3 +: 3]  = {blk[g], anyt[g], anys[g]};
        end
    endgenerate
    assign f_scan  = st == S_SCAN;
    assign f_sp    = {{(6 - PW){1'b0}}, sp};
    assign f_chk   = chk;
    assign f_nxt   = nxt;
    assign f_found = found;
    assign f_hit   = hit;
    assign f_rdata = rd_q;
    assign f_mrd   = m_rdata;
    assign f_pv    = pv;
    assign f_ins   = st == S_IDLE && !rst && !rq_v && can_send;
    assign f_done  = st == S_FIN && !rst;
    assign f_ptr   = ptr_id;
    assign f_copy  = {c_blk, c_anyt, c_anys, c_src, c_type, c_fill, c_last};
    assign f_rq    = {rq_v && (rq_kind == K_ASK || rq_kind == K_CANCEL),
                      rq_v && rq_kind == K_START && rq_lenok && rq_whook, {{(6 - PW){1'b0}}, rq_q}, rq_send,
                      rq_anys, rq_anyt, rq_blk, rq_who, rq_type, rq_val};
`endif
endmodule
`default_nettype wire
