// cop_link_props: formal harness for rtl/cop/cop_up.v, the link from a level
// 1 COP to its channel of the level 2 core (docs/cop.md "Two levels",
// departures 15, 16 and 19).  Both sides are free every cycle within their
// contracts, assumed:
//   * the level 1 core: an offered entry (up_*) holds its fields until
//     up_ready, is never an XMIT (refused XOP at level 1), and none is
//     offered while one is in the link (cop_up_props proves it of cop_core); up_wd (UPLINK written) only while an entry is at level 2
//     (taken by up_ready, its answer not yet taken by dn_ready), and it
//     stays high until that answer is taken;
//   * level 2's bus (the slave): one response per accepted request, in
//     order, in any later cycle (m_rsp_valid only while one is awaited),
//     with any error code and data.
// Properties, asserted in every cycle after reset:
//   (b1) the bus contract as a master: an offered request (m_valid) holds
//        every field until m_ready, and none is offered while a response is
//        awaited (at most one outstanding);
//   (b2) level 2 sees the entry's CALL start before any ask, CANCEL or XMIT
//        of it, and its setup writes (MODE, PROC, ADDR) only before the
//        start;
//   (b3) a CANCEL is offered only while up_wd asks for it and the last
//        answer of the entry's CALL was PENDING; an XMIT only right after a
//        CANCEL that said FINISHED without a refusal;
//   (b4) the answer goes down once per entry: dn_valid only for an entry
//        taken and not yet answered, held with its fields until dn_ready;
//        up_ready only while no entry is in the link;
//   (b5) a CANCEL answered WITHDRAWN comes down as ABORTED.
// Negative control (must FAIL): SELFTEST_LINK_EAGER cancels at the first
// PENDING whether or not up_wd asks for it (cop_up.v), which (b3) refutes.
`include "bus_ports.vh"
module cop_link_props (
    input wire        clk,
    input wire        rst,
    input wire        up_valid,
    input wire [6:0]  up_op,
    input wire        up_mask,
    input wire        up_us,
    input wire [3:0]  up_ppn,
    input wire [7:0]  up_pid,
    input wire [11:0] up_addr,
    input wire [63:0] up_data,
    input wire [3:0]  up_len,
    input wire        up_wd,
    input wire        dn_ready,
    input wire        m_ready,
    input wire        m_rsp_valid,
    input wire [31:0] m_rsp_rdata,
    input wire [31:0] m_rsp_rdata_hi,
    input wire [1:0]  m_rsp_err,
    input wire [3:0]  m_rsp_len
);
`include "cop_regs.vh"
`include "bus_codes.vh"
    wire        up_ready, dn_valid, dn_err, m_valid, m_we, m_call;
    wire [7:0]  dn_cause;
    wire [63:0] dn_data;
    wire [3:0]  dn_len, m_len;
    wire [15:0] m_addr;
    wire [31:0] m_wdata, m_wdata_hi;

    cop_up dut (
        .clk(clk), .rst(rst),
        .up_valid(up_valid), .up_ready(up_ready), .up_op(up_op), .up_mask(up_mask), .up_us(up_us),
        .up_ppn(up_ppn), .up_pid(up_pid), .up_addr(up_addr), .up_data(up_data), .up_len(up_len), .up_wd(up_wd),
        .dn_valid(dn_valid), .dn_ready(dn_ready), .dn_err(dn_err), .dn_cause(dn_cause), .dn_data(dn_data),
        .dn_len(dn_len),
        .m_valid(m_valid), .m_ready(m_ready), .m_we(m_we), .m_call(m_call), .m_addr(m_addr), .m_wdata(m_wdata),
        .m_wdata_hi(m_wdata_hi), .m_len(m_len), .m_rsp_valid(m_rsp_valid), .m_rsp_rdata(m_rsp_rdata),
        .m_rsp_rdata_hi(m_rsp_rdata_hi), .m_rsp_err(m_rsp_err), .m_rsp_len(m_rsp_len)
`ifdef FORMAL
        , .f_ust(f_ust), .f_wt(f_wt), .f_xent(f_xent)
`endif
    );
    wire [3:0]  f_ust;
    wire        f_wt, f_xent;

`ifdef FORMAL
`include "cop_up_states.vh"
    reg         init = 1'b1, p_rst = 1'b1;
    reg         fl = 1'b0;        // an entry is in the link (taken by up_ready, its answer not yet taken)
    reg         aw = 1'b0;        // a response is awaited
    reg         started = 1'b0;   // the entry's CALL start was accepted
    reg         pend = 1'b0;      // the last response was PENDING to the entry's CALL start or ask
    reg         fin = 1'b0;       // the last response was a CANCEL's FINISHED, not a refusal
    reg         wdn = 1'b0;       // the last response was a CANCEL's WITHDRAWN
    reg         q_ca, q_canc;     // the accepted request awaiting its response: a CALL start, ask or XMIT; a CANCEL
    reg         p_mv = 1'b0, p_mr = 1'b0, p_upv = 1'b0, p_upr = 1'b0, p_dnv = 1'b0, p_dnr = 1'b0, p_wd = 1'b0;
    reg         p_we, p_call;
    reg [15:0]  p_addr;
    reg [31:0]  p_wd32, p_wdh;
    reg [3:0]   p_len, p_dlen, p_ulen;
    reg [6:0]   p_op;
    reg         p_mask, p_us, p_derr;
    reg [3:0]   p_ppn;
    reg [7:0]   p_pid, p_dcause;
    reg [11:0]  p_uaddr;
    reg [63:0]  p_udata, p_ddata;
    wire [11:0] r = m_addr[11:0];
    wire        is_canc  = m_call && r == R_CANCEL;
    wire        is_xmit  = m_call && m_we && r == (R_CALL_BASE | {1'b0, OP_XMIT, 4'b0000});
    wire        is_start = m_call && m_we && !is_canc && !is_xmit;
    wire        is_ask   = m_call && !m_we && !is_canc;
    wire        take     = m_valid && m_ready;
    always @(posedge clk) begin
        init <= 1'b0;
        p_rst <= rst;
        p_mv <= m_valid; p_mr <= m_ready; p_we <= m_we; p_call <= m_call; p_addr <= m_addr; p_wd32 <= m_wdata;
        p_wdh <= m_wdata_hi; p_len <= m_len;
        p_upv <= up_valid; p_upr <= up_ready; p_dnv <= dn_valid; p_dnr <= dn_ready; p_wd <= up_wd;
        p_op <= up_op; p_mask <= up_mask; p_us <= up_us; p_ppn <= up_ppn; p_pid <= up_pid; p_uaddr <= up_addr;
        p_udata <= up_data; p_ulen <= up_len;
        p_derr <= dn_err; p_dcause <= dn_cause; p_ddata <= dn_data; p_dlen <= dn_len;
        if (rst) begin
            fl <= 1'b0; aw <= 1'b0; started <= 1'b0; pend <= 1'b0; fin <= 1'b0; wdn <= 1'b0;
        end else begin
            if (up_valid && up_ready) begin fl <= 1'b1; started <= 1'b0; end
            if (dn_valid && dn_ready) begin fl <= 1'b0; wdn <= 1'b0; end
            if (take) begin
                aw <= 1'b1; q_ca <= m_call && !is_canc; q_canc <= is_canc;
                pend <= 1'b0; fin <= 1'b0; wdn <= 1'b0;
                if (is_start) started <= 1'b1;
            end
            if (aw && m_rsp_valid) begin
                aw <= 1'b0;
                pend <= q_ca && m_rsp_err == LINK_BUS_PENDING;
                fin  <= q_canc && m_rsp_err == LINK_BUS_OK && m_rsp_rdata[1:0] == CX_FINISHED && !m_rsp_rdata[2];
                wdn  <= q_canc && m_rsp_err == LINK_BUS_OK && m_rsp_rdata[1:0] == CX_WITHDRAWN;
            end
        end
    end
    always @* begin
        if (init) assume(rst);
        if (!init && !rst) begin
            // the level 1 core's contract
            if (!p_rst && p_upv && !p_upr)
                assume(up_valid && up_op == p_op && up_mask == p_mask && up_us == p_us && up_ppn == p_ppn &&
                       up_pid == p_pid && up_addr == p_uaddr && up_data == p_udata && up_len == p_ulen);
            if (up_valid) assume(up_op != OP_XMIT);  // refused XOP at level 1: never an entry
            if (fl) assume(!up_valid);                // one entry at a time (cop_up_props, h2)
            if (up_wd) assume(fl);
            if (!p_rst && p_wd && !(p_dnv && p_dnr)) assume(up_wd);
            // level 2's: responses only to accepted requests
            if (!aw) assume(!m_rsp_valid);
        end
        if (!init && !rst && !p_rst) begin
            // (b1)
            if (p_mv && !p_mr)
                assert(m_valid && m_we == p_we && m_call == p_call && m_addr == p_addr && m_wdata == p_wd32 &&
                       m_wdata_hi == p_wdh && m_len == p_len);
            if (p_dnv && !p_dnr)
                assert(dn_valid && dn_err == p_derr && dn_cause == p_dcause && dn_data == p_ddata && dn_len == p_dlen);
        end
        // (the records and the link's state are reset together: these hold from the cycle after)
        if (!init && !rst) begin
            assert(!(m_valid && aw));
            // (b2)
            if (m_valid && (is_ask || is_canc || is_xmit)) assert(started && fl);
            if (m_valid && m_we && !m_call) assert(!started && fl);
            // (b3)
            if (m_valid && is_canc) assert(up_wd && pend);
            if (m_valid && is_xmit) assert(fin);
            // (b4)
            if (dn_valid) assert(fl);
            if (up_ready) assert(!fl && !dn_valid);
            // (b5)
            if (wdn) assert(dn_valid && dn_err && dn_cause == C_ABORTED);
            // the link's own state against the harness's records (what makes the above inductive)
            assert(f_wt == aw && f_ust <= U_XMIT && (f_ust == U_IDLE || !f_xent));
            if (f_wt) assert(f_ust != U_IDLE && f_ust != U_DOWN && q_canc == (f_ust == U_CANC) &&
                             q_ca == (f_ust == U_START || f_ust == U_ASK || f_ust == U_XMIT));
            if (f_ust == U_IDLE) assert(!fl && !pend && !fin && !wdn);
            else assert(fl);
            if (pend) assert((f_ust == U_ASK || f_ust == U_CANC) && !aw && started);
            if (fin) assert(f_ust == U_XMIT && !aw && started);
            if (wdn) assert(f_ust == U_DOWN);
            if (f_ust == U_MODE || f_ust == U_PROC || f_ust == U_ADDR || (f_ust == U_START && !f_wt))
                assert(!started);
            if (f_ust == U_ASK || f_ust == U_CANC || f_ust == U_XMIT || (f_ust == U_START && f_wt)) assert(started);
        end
    end
`endif
endmodule
