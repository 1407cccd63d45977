`default_nettype none
// besu_ctl: the BAR_CTL circuit of one barrier/eureka synchronization unit
// (BESU) of seed 001 ("The BAR_CTL Circuit", Tables 2-5), as a pure function
// of the state, the network opcode arriving this cycle and the local control
// code written this cycle.  besu_node holds the state register; this module
// is only the next-state table, so that the tests and the formal harness
// check exactly the table the node runs.
//
// State codes (Table 2): 000 S_IDLE, 001 S_IDLE_I, 010 S_EUR, 011 S_EUR_I,
// 100 S_ARM, 101 S_ARM_I, 110 S_BAR, 111 S_BAR_I.
// Control codes (Table 3): 000 OP_CLEAR, 001 reserved, 010 OP_EUR, 011
// OP_INT, 100 OP_BAR, 101 OP_BAR_I, 110 OP_EUR_B, 111 OP_RESET.
// Opcodes C option -> R option (Tables 4, 5): 00 idle, 01 issue eureka, 10
// join barrier, 11 eureka/barrier.  R option -> C option: 00 idle, 01
// eureka received, 10 barrier completed, 11 barrier/eureka (both).
//
// 1. The network opcode applies first (it is what arrived before the write
//    could be seen), only for a BESU whose PE bit is set (besu_node gates it):
//      eureka received   (bit 0): 000 -> 010, 001 -> 011, others unchanged
//      barrier completed (bit 1): 100 -> 110, 101 -> 111, others unchanged
//    (11 applies both; a state is either 0xx or 1xx, so at most one moves.)
//    A completion reaching a BESU that is not armed (a PE that cleared its
//    BESU after joining) changes nothing.
// 2. Then a local write of control code c, to the state s after step 1:
//      c                 s = 100, 101 (barrier pending)   any other s        opcode
//      000 OP_CLEAR      000                              000                00
//      001 reserved      refused (RSVD), s kept           refused (RSVD)     00
//      010 OP_EUR        refused (ORDER)                  011 if s is 001    01
//                                                         or 011, else 010
//      011 OP_INT        refused (ORDER)                  011 if s is 010    00
//                                                         or 011, else 001
//      100 OP_BAR        refused (ORDER)                  100                10
//      101 OP_BAR_I      refused (ORDER)                  101                10
//      110 OP_EUR_B      refused (ORDER)                  100                11
//      111 OP_RESET      000 (supervisor only, else       000 (supervisor    00
//                        refused: PRIV)                   only, else PRIV)
//    What the seed leaves open, aggnet defines (docs/besu.md):
//      * the reserved code is refused and logged (an invalid barrier
//        operation, C_ERR0 bit 62), the state kept, nothing sent (Table 4
//        maps it to 00);
//      * a second barrier, a eureka or an interrupt arm while a barrier is
//        pending (100, 101) is refused (ORDER): a BESU joins a barrier once;
//      * OP_EUR, OP_BAR, OP_BAR_I, OP_EUR_B on a BESU that is in no
//        partition (parent code 0100) or whose PE bit is 0 are refused
//        (NOTPART): nothing would ever answer them;
//      * OP_INT after the eureka already occurred (010) generates the
//        interrupt at once (011); OP_EUR_B arms a polled barrier (100) and
//        its own eureka comes back and is ignored there;
//      * OP_RESET also clears the node's router record of this BESU (the
//        joins its children sent), which holds other PEs' arrivals, so it is
//        a privileged barrier operation (C_ERR3 type 23 from user mode);
//      * a refused write changes nothing and sends nothing.
// 3. ir: the unit entered S_EUR_I or S_BAR_I this cycle (from another
//    state): besu_node sets the BESU's IR_STATUS bit.
module besu_ctl (
    input  wire [2:0] state,
    input  wire [1:0] net_op,    // R option -> C option, this cycle (0 if the PE bit is 0)
    input  wire       wr,        // a local write of code this cycle
    input  wire [2:0] code,
    input  wire       member,    // connected (parent code != 0100) and PE bit set
    input  wire       sup,     // the writer is in supervisor mode
    output reg  [2:0] next,
    output reg  [1:0] op,        // C option -> R option
    output reg        refused,
    output reg  [3:0] cause,     // why (C_* of besu_regs.vh, docs/besu_regmap.md), when refused
    output wire       ir,
    output reg        rst_router // OP_RESET taken: clear the router record
);
`include "besu_regs.vh"

    reg [2:0] s;  // after the network opcode
    always @* begin
        s = state;
        if (net_op[0] && state == S_IDLE)   s = S_EUR;
        if (net_op[0] && state == S_IDLE_I) s = S_EUR_I;
        if (net_op[1] && state == S_ARM)    s = S_BAR;
        if (net_op[1] && state == S_ARM_I)  s = S_BAR_I;

        next = s;
        op = 2'b00;
        refused = 1'b0;
        cause = 4'd0;
        rst_router = 1'b0;
        if (wr) begin
            if (code == OP_CLEAR) begin
                next = S_IDLE;
            end else if (code == OP_RESET) begin
                if (sup) begin
                    next = S_IDLE;
                    rst_router = 1'b1;
                end else begin
                    refused = 1'b1;
                    cause = C_PRIV;
                end
            end else if (code == OP_RSVD) begin
                refused = 1'b1;
                cause = C_RSVD;
            end else if (s == S_ARM || s == S_ARM_I) begin
                refused = 1'b1;
                cause = C_ORDER;
            end else if (code == OP_INT) begin
                next = (s == S_EUR || s == S_EUR_I) ? S_EUR_I : S_IDLE_I;
            end else if (!member) begin
                refused = 1'b1;
                cause = C_NOTPART;
            end else begin
                case (code)
                    OP_EUR:   begin next = (s == S_IDLE_I || s == S_EUR_I) ? S_EUR_I : S_EUR; op = 2'b01; end
                    OP_BAR:   begin next = S_ARM;   op = 2'b10; end
                    OP_BAR_I: begin next = S_ARM_I; op = 2'b10; end
                    OP_EUR_B: begin next = S_ARM;   op = 2'b11; end
                    default:  ;  // every other code was taken above
                endcase
            end
        end
    end
    assign ir = (next == S_EUR_I || next == S_BAR_I) && next != state;
endmodule
`default_nettype wire
