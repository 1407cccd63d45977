`default_nettype none
// cop_up: the link from a level 1 COP to the level 2 COP above it (seed 004,
// chapter IV: the X bit and two-level trees; docs/cop.md "Two levels").
// It takes the level 1 core's entry (cop_core's up_* ports, UP = 1), makes
// it one CALL of its own channel of the level 2 core, through level 2's
// engine bus as a bus master, and hands level 2's answer back down (dn_*).
//
// Per entry, on level 2's bus (each access one request, its response
// awaited before the next; the level 2 core answers two cycles later):
//   1. MODE <- KEY2 once after reset (the channel is supervisor: level 1
//      refused every supervisor opcode from a user channel before it could
//      go up, PRIV precedes NOUP and XOP, so up_us needs no second check)
//   2. PROC <- {PID, PPN} if it differs from the last one written
//   3. ADDR <- the entry's address if it differs from the last one written
//   4. the CALL start: 0x800 | opcode << 4 | MASK << 3 (X clear), with the
//      operand; answered at once (ok or refused) or PENDING
//   5. CALL asks until it finishes (every ask is one bus access: the
//      arbiter of cop_tree interleaves the four links' asks)
//   6. a refusal: the CAUSE register's low byte is the cause that goes down
//   7. up_wd (a supervisor wrote the level 1 core's UPLINK): at the next
//      PENDING answer, instead of asking again, CANCEL (docs/link.md rule
//      8) on level 2's channel: WITHDRAWN goes down as ABORTED (the
//      contribution left level 2's round, its TC bit set again there);
//      FINISHED with a refusal goes down as that refusal; FINISHED with a
//      result is fetched with XMIT (CANCEL kept it as the last reply) and
//      goes down as the result; RUNNING (or NONE) asks again, and the next
//      PENDING cancels again
// A refused setup write (2, 3: RANGE if level 2 has narrower tables) ends
// the entry the same way, with level 2's cause.
// One entry at a time: up_ready is high only in IDLE.  The answer is held
// on dn_* until dn_ready.  Nothing here times out: a level 2 round that
// never completes keeps the link busy until a supervisor withdraws the
// entry (7; docs/cop.md departure 16).
//
// Bus master ports (m_*): the slave side's contract of docs/link.md (one
// response per accepted request, in order); m_rsp_* may be shared with
// other masters, so they are looked at only while a response is awaited.
// Parameters: KEY2 the level 2 core's KEY; WIN the window bits 15..12 put
// on m_addr (the level 2 core ignores them).
module cop_up #(
    parameter [31:0] KEY2 = 32'h434F_5053,
    parameter [3:0]  WIN  = 4'd4
) (
    input  wire        clk,
    input  wire        rst,
    // the level 1 core's entry and its answer
    input  wire        up_valid,
    output wire        up_ready,
    input  wire [6:0]  up_op,
    input  wire        up_mask,
    input  wire        up_us,
    input  wire [3:0]  up_ppn,
    input  wire [7:0]  up_pid,
    input  wire [11:0] up_addr,
    input  wire [63:0] up_data,
    input  wire [3:0]  up_len,
    input  wire        up_wd,      // withdraw the entry at level 2 (held until its answer is taken)
    output wire        dn_valid,
    input  wire        dn_ready,
    output wire        dn_err,
    output wire [7:0]  dn_cause,
    output wire [63:0] dn_data,
    output wire [3:0]  dn_len,
    // a bus master toward the level 2 core (this link's channel there)
    output wire        m_valid,
    input  wire        m_ready,
    output wire        m_we,
    output wire        m_call,
    output wire [15:0] m_addr,
    output wire [31:0] m_wdata,
    output wire [31:0] m_wdata_hi,
    output wire [3:0]  m_len,
    input  wire        m_rsp_valid,
    input  wire [31:0] m_rsp_rdata,
    input  wire [31:0] m_rsp_rdata_hi,
    input  wire [1:0]  m_rsp_err,
    input  wire [3:0]  m_rsp_len
`ifdef FORMAL
    ,
    output wire [3:0]  f_ust,      // rtl/cop/cop_link_props.v: the state ...
    output wire        f_wt,       // ... and a response awaited
    output wire        f_xent      // the entry's CALL register is XMIT's
`endif
);
`include "cop_regs.vh"
`include "bus_codes.vh"
`include "cop_up_states.vh"

    reg [3:0]  ust;
    reg        wt;        // the state's request was taken: its response is awaited
    reg        moded;     // MODE written since reset
    reg        proc_v, addr_v;
    reg [11:0] proc_q;    // {PID, PPN} as last written
    reg [11:0] addr_q;
    reg [6:0]  e_op;
    reg        e_mask;
    reg [11:0] e_proc, e_addr;
    reg [63:0] e_data;
    reg [3:0]  e_len;
    reg        d_err;
    reg [7:0]  d_cause;
    reg [63:0] d_data;
    reg [3:0]  d_len;

    wire [11:0] call_reg = R_CALL_BASE | {1'b0, e_op, e_mask, 3'b000};
    wire [11:0] xmit_reg = R_CALL_BASE | {1'b0, OP_XMIT, 4'b0000};
    // the first setup step an entry needs (from the entry offered in IDLE)
    wire [3:0]  first = !moded ? U_MODE : (!proc_v || proc_q != {up_pid, up_ppn}) ? U_PROC :
                        (!addr_v || addr_q != up_addr) ? U_ADDR : U_START;
    wire [3:0]  after_proc = (!addr_v || addr_q != e_addr) ? U_ADDR : U_START;

    reg [11:0] a_reg;
    reg [31:0] a_wd;
    always @* begin
        case (ust)
            U_MODE:  begin a_reg = R_MODE;  a_wd = KEY2; end
            U_PROC:  begin a_reg = R_PROC;  a_wd = {20'd0, e_proc}; end
            U_ADDR:  begin a_reg = R_ADDR;  a_wd = {20'd0, e_addr}; end
            U_CAUSE: begin a_reg = R_CAUSE; a_wd = 32'd0; end
            U_CANC:  begin a_reg = R_CANCEL; a_wd = 32'd0; end
            U_XMIT:  begin a_reg = xmit_reg; a_wd = 32'd0; end
            default: begin a_reg = call_reg; a_wd = e_data[31:0]; end
        endcase
    end
    wire req = !wt && (ust == U_MODE || ust == U_PROC || ust == U_ADDR || ust == U_START || ust == U_ASK ||
                       ust == U_CAUSE || ust == U_CANC || ust == U_XMIT);
    assign m_valid    = req;
    assign m_we       = ust == U_MODE || ust == U_PROC || ust == U_ADDR || ust == U_START || ust == U_CANC ||
                        ust == U_XMIT;
    assign m_call     = ust == U_START || ust == U_ASK || ust == U_CANC || ust == U_XMIT;
    assign m_addr     = {WIN, a_reg};
    assign m_wdata    = a_wd;
    assign m_wdata_hi = (ust == U_START) ? e_data[63:32] : 32'd0;
    assign m_len      = (ust == U_START) ? e_len : 4'd0;
    assign up_ready   = !rst && ust == U_IDLE;
    assign dn_valid   = ust == U_DOWN;
    assign dn_err     = d_err;
    assign dn_cause   = d_cause;
    assign dn_data    = d_data;
    assign dn_len     = d_len;

    wire got = wt && m_rsp_valid;
    wire [63:0] rsp64 = {m_rsp_rdata_hi, m_rsp_rdata};
    always @(posedge clk) begin
        if (rst) begin
            ust <= U_IDLE; wt <= 1'b0; moded <= 1'b0; proc_v <= 1'b0; addr_v <= 1'b0;
            d_err <= 1'b0; d_cause <= 8'd0; d_data <= 64'd0; d_len <= 4'd0;
        end else begin
            if (req && m_ready) wt <= 1'b1;
            if (got) wt <= 1'b0;
            case (ust)
                U_IDLE: if (up_valid) begin
                    e_op <= up_op; e_mask <= up_mask; e_proc <= {up_pid, up_ppn}; e_addr <= up_addr;
                    e_data <= up_data; e_len <= up_len;
                    ust <= first;
                end
                U_MODE: if (got) begin
                    // MODE <- KEY2 is never refused (docs/cop_regmap.md)
                    moded <= 1'b1;
                    ust <= (!proc_v || proc_q != e_proc) ? U_PROC : after_proc;
                end
                U_PROC: if (got) begin
                    if (m_rsp_err == LINK_BUS_OK) begin
                        proc_v <= 1'b1; proc_q <= e_proc; ust <= after_proc;
                    end else ust <= U_CAUSE;
                end
                U_ADDR: if (got) begin
                    if (m_rsp_err == LINK_BUS_OK) begin
                        addr_v <= 1'b1; addr_q <= e_addr; ust <= U_START;
                    end else ust <= U_CAUSE;
                end
                U_START, U_ASK, U_XMIT: if (got) begin
                    case (m_rsp_err)
                        LINK_BUS_OK: begin
                            d_err <= 1'b0; d_cause <= 8'd0; d_data <= rsp64; d_len <= m_rsp_len; ust <= U_DOWN;
                        end
`ifdef SELFTEST_LINK_EAGER
                        // negative control of cop_link_props (b3): CANCEL without being asked
                        LINK_BUS_PENDING: ust <= U_CANC;
`else
                        LINK_BUS_PENDING: ust <= up_wd ? U_CANC : U_ASK;
`endif
                        LINK_BUS_REFUSED: ust <= U_CAUSE;
                        default: begin  // no such register: not reachable with call_reg >= R_CALL_BASE
                            d_err <= 1'b1; d_cause <= C_BADOP; d_data <= 64'd0; d_len <= 4'd0; ust <= U_DOWN;
                        end
                    endcase
                end
                U_CANC: if (got) begin
                    // CANCEL's outcome (cop::CancelOutcome, bits 1..0; FINISHED: bit 2 a refusal, 15..8 its cause)
                    if (m_rsp_err != LINK_BUS_OK || m_rsp_rdata[1:0] == CX_NONE || m_rsp_rdata[1:0] == CX_RUNNING)
                        ust <= U_ASK;
                    else if (m_rsp_rdata[1:0] == CX_WITHDRAWN) begin
                        d_err <= 1'b1; d_cause <= C_ABORTED; d_data <= 64'd0; d_len <= 4'd0; ust <= U_DOWN;
                    end else if (m_rsp_rdata[2]) begin
                        d_err <= 1'b1; d_cause <= m_rsp_rdata[15:8]; d_data <= 64'd0; d_len <= 4'd0; ust <= U_DOWN;
                    end else ust <= U_XMIT;
                end
                U_CAUSE: if (got) begin
                    d_err <= 1'b1; d_cause <= m_rsp_rdata[7:0]; d_data <= 64'd0; d_len <= 4'd0; ust <= U_DOWN;
                end
                default: if (dn_ready) ust <= U_IDLE;  // U_DOWN
            endcase
        end
    end

`ifdef FORMAL
    assign f_ust = ust;
    assign f_wt = wt;
    assign f_xent = call_reg == xmit_reg;
`endif
    wire unused_ok = &{1'b0, up_us, m_rsp_rdata_hi & {32{ust == U_CAUSE || ust == U_CANC}}};
endmodule
`default_nettype wire
