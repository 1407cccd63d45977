`default_nettype none
// besu_node_props: formal harness for rtl/besu/besu_node.v and besu_ctl.v
// (the manifest names the jobs; formal/run.py runs them).  One BESU (NB = 1)
// of a node in the middle of a row (X = 3, node 1: links +X and -X); every
// register access and every link lane is free every cycle; the only
// assumption is reset in the first cycle.  Properties (issue 12, "Formal"):
//   (p1) BAR_CTL equals the tables transcribed here from seed 001 (Table 2
//        states, Table 3 codes, Table 4 opcodes, Table 5 network opcodes,
//        and the choices docs/besu.md makes): besu_ctl's next state, opcode
//        and refusal, for every input;
//   (p2) the node never forwards a barrier before all its active children
//        and its PE joined: a shadow record of the joins, kept here from the
//        node's inputs, equals the router's, and a join goes up (or, at the
//        root, completes) only in the cycle after every active source had
//        joined;
//   (p3) and then always: once every active source has joined, the join
//        goes up (the root fans the completion out and its own armed BESU
//        completes) in the next cycle.  Per node one cycle up and one cycle
//        down, so a root whose partition has all joined completes within
//        depth + 1 cycles of the last join and every node within
//        2 * depth + 2 (test_besu_engine measures 2 * depth + 3 through the
//        bus).
//   (p4) inside besu_node (its FORMAL block): the BAR_CTL verdict the
//        response and the error log take a cycle late (u_verdict) equals
//        the verdict of the addressed BESU's besu_ctl in the cycle of the
//        write, refusal and cause (a planted v_sup of 1 fails it).
// Negative control (must FAIL): SELFTEST_EARLY claims nothing ever goes up.
module besu_node_props (
    input wire        clk,
    input wire        rst,
    input wire        acc_valid,
    input wire        acc_we,
    input wire [11:0] acc_reg,
    input wire [31:0] acc_wdata,
    input wire [11:0] link_in,
    // (p1): a free BAR_CTL input
    input wire [2:0]  t_state,
    input wire [1:0]  t_net,
    input wire        t_wr,
    input wire [2:0]  t_code,
    input wire        t_member,
    input wire        t_sup
);
    wire [31:0] acc_rdata;
    wire [1:0]  acc_err;
    wire [11:0] link_out;
    wire [2:0]  f_state;
    wire [6:0]  f_joined;
    wire [10:0] f_cfg;
    wire [1:0]  f_pe_op;
    wire        f_acc_ok;
    // the node under test: one BESU of node 1 in a 3x1x1 row
    localparam integer NB = 1, X = 3, Y = 1, Z = 1, NODE = 1;
`include "besu_dec.vh"
    // the request decoded as besu_engine decodes it (there one cycle earlier,
    // registered); plain accesses only: the CALL registers (BAR_CALL, CANCEL)
    // are checked by test_besu_engine against the model, not proven here
    wire [DW-1:0] acc_dec;
    besu_decode #(.NB(NB)) u_dec (.acc_reg(acc_reg), .acc_wdata(acc_wdata), .acc_call(1'b0), .acc_len(4'd0),
                                  .dec(acc_dec));
    wire acc_cfg_ok = besu_cfg_ok(acc_dec, besu_has(NODE, X, Y, Z));
    besu_node #(.NB(NB), .X(X), .Y(Y), .Z(Z), .NODE(NODE)) dut (
        .clk(clk), .rst(rst), .acc_valid(acc_valid), .acc_we(acc_we), .acc_reg(acc_reg),
        .acc_wdata(acc_wdata), .acc_dec(acc_dec), .acc_cfg_ok(acc_cfg_ok), .acc_rdata(acc_rdata), .acc_err(acc_err),
        .link_in(link_in), .link_out(link_out), .fault(), .irq(),
        .f_state(f_state), .f_joined(f_joined), .f_cfg(f_cfg), .f_pe_op(f_pe_op), .f_acc_ok(f_acc_ok));

    wire [2:0] c_next;
    wire [1:0] c_op;
    wire       c_refused, c_ir, c_rst;
    wire [3:0] c_cause;
    besu_ctl u_ctl (.state(t_state), .net_op(t_net), .wr(t_wr), .code(t_code), .member(t_member), .sup(t_sup),
                    .next(c_next), .op(c_op), .refused(c_refused), .cause(c_cause), .ir(c_ir), .rst_router(c_rst));

`ifdef FORMAL
    // ---- (p1) the tables, transcribed ----------------------------------------
    reg [2:0] r_s, r_next;
    reg [1:0] r_op;
    reg       r_ref;
    always @* begin
        // Table 5: eureka received 000 -> 010, 001 -> 011; barrier completed 100 -> 110, 101 -> 111
        case (t_state)
            3'b000: r_s = t_net[0] ? 3'b010 : 3'b000;
            3'b001: r_s = t_net[0] ? 3'b011 : 3'b001;
            3'b100: r_s = t_net[1] ? 3'b110 : 3'b100;
            3'b101: r_s = t_net[1] ? 3'b111 : 3'b101;
            default: r_s = t_state;
        endcase
        r_next = r_s;
        r_op = 2'b00;
        r_ref = 1'b0;
        if (t_wr) begin
            casez ({t_code, r_s == 3'b100 || r_s == 3'b101, t_member, t_sup})
                6'b000_???: r_next = 3'b000;                                 // OP_CLEAR
                6'b111_??1: r_next = 3'b000;                                 // OP_RESET, supervisor
                6'b111_??0: r_ref = 1'b1;                                    // OP_RESET, user
                6'b001_???: r_ref = 1'b1;                                    // reserved
                6'b???_1??: r_ref = 1'b1;                                    // barrier pending
                6'b011_0??: r_next = (r_s == 3'b010 || r_s == 3'b011) ? 3'b011 : 3'b001;  // OP_INT
                6'b???_00?: r_ref = 1'b1;                                    // not a member
                6'b010_01?: begin r_next = (r_s == 3'b001 || r_s == 3'b011) ? 3'b011 : 3'b010; r_op = 2'b01; end
                6'b100_01?: begin r_next = 3'b100; r_op = 2'b10; end         // OP_BAR
                6'b101_01?: begin r_next = 3'b101; r_op = 2'b10; end         // OP_BAR_I
                default:    begin r_next = 3'b100; r_op = 2'b11; end         // OP_EUR_B
            endcase
        end
    end
    always @* begin
        assert (c_next == r_next);
        assert (c_op == r_op);
        assert (c_refused == r_ref);
        assert (c_ir == ((r_next == 3'b011 || r_next == 3'b111) && r_next != t_state));
    end

    // ---- (p2), (p3): the shadow record -----------------------------------------
    wire       pe   = f_cfg[0];
    wire [5:0] kids = f_cfg[6:1];
    wire [3:0] par  = f_cfg[10:7];
    wire       conn = par != 4'b0100;
    wire       root = par == 4'b0000;
    reg  [2:0] pd;
    always @* case (par)
        4'b0001: pd = 3'd0;  4'b1111: pd = 3'd1;  4'b0010: pd = 3'd2;
        4'b1110: pd = 3'd3;  4'b0011: pd = 3'd4;  4'b1101: pd = 3'd5;
        default: pd = 3'd6;
    endcase
    wire [6:0] need = {kids, pe};
    reg  [6:0] arr;
    integer d;
    always @* begin
        arr = {6'd0, pe && f_pe_op[1]};
        for (d = 0; d < 6; d = d + 1) arr[d + 1] = conn && kids[d] && link_in[d*2 + 1];
    end
    wire       all_in = conn && need != 7'd0 && ((seen | arr) & need) == need;
    wire       cfg_w  = acc_valid && acc_we && acc_reg == 12'h100 && f_acc_ok;
    wire       rst_w  = acc_valid && acc_we && acc_reg == 12'h000 && acc_wdata[2:0] == 3'b111 && f_acc_ok;
    reg  [6:0] seen;
    reg        past_valid = 1'b0, p_rst, p_all, p_root, p_chg, p_arm, p_conn, p_ctlw;
    reg  [10:0] p_cfg;
    always @(posedge clk) begin
        past_valid <= 1'b1;
        p_rst  <= rst;
        p_all  <= all_in;
        p_root <= root;
        p_conn <= conn;
        p_cfg  <= f_cfg;
        p_chg  <= cfg_w || rst_w;
        p_arm  <= f_state == 3'b100 || f_state == 3'b101;
        p_ctlw <= acc_valid && acc_we && acc_reg == 12'h000;  // a local write may re-arm it at once
        if (rst || cfg_w || rst_w || all_in) seen <= 7'd0;
        else seen <= (seen | arr) & need;
    end
    initial assume (rst);
    wire up_bar   = pd < 3'd6 && link_out[pd*2 + 1];
    reg  down_bar;
    integer k;
    always @* begin
        down_bar = 1'b0;
        for (k = 0; k < 6; k = k + 1) down_bar = down_bar | (kids[k] && link_out[k*2 + 1]);
    end
    always @* begin
        if (past_valid && !p_rst && !rst) begin
            assert (f_joined == seen);                                   // (p2) the records agree
            // invariants that make the induction go through: the record
            // holds only active sources, and BAR_CFG only what this node
            // can hold (node 1 of a 3x1x1 row: links +X and -X only)
            assert ((f_joined & ~need) == 7'd0 && (conn || f_joined == 7'd0));
            assert (!conn || (kids & 6'b111100) == 6'd0);  // (0100: the rest is not used)
            assert (par == 4'b0000 || par == 4'b0100 || par == 4'b0001 || par == 4'b1111);
            assert (!(par == 4'b0001 && kids[0]) && !(par == 4'b1111 && kids[1]));
            if (!p_chg && p_cfg == f_cfg && p_conn && !p_root) begin
                if (up_bar) assert (p_all);                              // (p2) never early
                if (p_all) assert (up_bar);                              // (p3) then at once
            end
            if (!p_chg && p_cfg == f_cfg && p_root && p_all) begin      // (p3) the root completes
                if (kids != 6'd0) assert (down_bar);
                if (pe && p_arm && !p_ctlw) assert (f_state == 3'b110 || f_state == 3'b111);
            end
`ifdef SELFTEST_EARLY
            assert (!up_bar);
`endif
        end
    end
`endif
    wire unused_ok = &{1'b0, acc_rdata, acc_err, c_cause, c_rst, t_sup};
endmodule
`default_nettype wire
