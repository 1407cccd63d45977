`default_nettype none
// besu_decode: the part of a BESU node's register access that depends on
// the request alone (rtl/besu/besu_node.v has the register table): which
// register, which BESU (one-hot), whether a BAR_CFG word is refused on any
// node, which links it names, whether a MODE word is KEY or 0.  Every node
// of a mesh decodes a request the same way, so besu_engine decodes it once,
// as it registers the request, and each node's access starts from
// flip-flops: the node only adds what depends on its state (the BESU's
// state, supervisor mode, its mesh edge).  Combinational; the fields are
// named in besu_dec.vh.  Seed: none of its own (seed 001's registers, as
// besu_node).
//
// CALL accesses (acc_call, docs/link.md rule 8) reach only the `call`
// registers of docs/besu_regmap.md, BAR_CALL[n] (0x300 + n) and CANCEL;
// plain accesses reach only the others.  acc_len is a CALL start's operand
// bytes; D_CARG says whether they are what the register takes.
module besu_decode #(
    parameter integer NB = 32,
    parameter [31:0]  KEY = 32'h5345_5550
) (
    input  wire [11:0] acc_reg,
    input  wire [31:0] acc_wdata,
    input  wire        acc_call,  // a CALL's access (start or ask)
    input  wire [3:0]  acc_len,   // a CALL start's operand bytes
    output reg  [NB+25:0] dec  // DW bits (besu_dec.vh)
);
`include "besu_regs.vh"
`include "besu_dec.vh"
    generate
        if (DW != NB + 26) begin : g_bad_dw
            $error("besu_decode: the port width does not match besu_dec.vh");
        end
    endgenerate
    wire [1:0] region  = acc_reg[9:8];
    wire [7:0] n       = acc_reg[7:0];
    wire       in_besu = !acc_call && !acc_reg[11] && !acc_reg[10] && region != 2'd3;
    wire       in_call = acc_call && !acc_reg[11] && !acc_reg[10] && region == 2'd3;  // BAR_CALL[n]
    wire       plain_r = !acc_call && acc_reg >= R_IR_STATUS && acc_reg <= R_FAULT;
    wire       can     = acc_call && acc_reg == R_CANCEL;
    // a BAR_CALL operand that waits: OP_BAR, OP_BAR_I or OP_EUR_B and a
    // barrier wait, or CALL_NOWRITE with code 000 and either wait
    wire [2:0] w_code  = acc_wdata[2:0];
    wire       w_nw    = acc_wdata[3];
    wire       w_eur   = acc_wdata[4];
    wire       arg_ok  = acc_len == 4'd1 && acc_wdata[31:5] == 27'd0 &&
                         (w_nw ? w_code == OP_CLEAR : (!w_eur && (w_code == OP_BAR || w_code == OP_BAR_I || w_code == OP_EUR_B)));
    wire       n_ok    = {24'd0, n} < NB;
    wire [3:0] w_par   = acc_wdata[12:9];
    wire [5:0] w_kids  = acc_wdata[6:1];
    // Table 1 (besu_pdir of besu_regs.vh): the parent code's link, one-hot;
    // P_DIR_NONE (root, not connected) and P_DIR_UNDEF shift the 1 out
    wire [2:0] w_pd    = besu_pdir(w_par);
    wire [5:0] pone    = 6'd1 << w_pd;
    wire       p_undef = w_pd == P_DIR_UNDEF;
    integer b;
    always @* begin
        dec = {DW{1'b0}};
        dec[D_RANGE] = (in_besu || in_call) && !n_ok;
        dec[D_CTL]   = in_besu && n_ok && region == 2'd0;
        dec[D_CFG]   = in_besu && n_ok && region == 2'd1;
        dec[D_JND]   = in_besu && n_ok && region == 2'd2;
        dec[D_IR]    = !acc_call && acc_reg == R_IR_STATUS;
        dec[D_ERR]   = !acc_call && acc_reg == R_ERR;
        dec[D_MODE]  = !acc_call && acc_reg == R_MODE;
        dec[D_SHAPE] = !acc_call && acc_reg == R_SHAPE;
        dec[D_LINKS] = !acc_call && acc_reg == R_LINKS;
        dec[D_FAULT] = !acc_call && acc_reg == R_FAULT;
        dec[D_NOREG] = !in_besu && !in_call && !plain_r && !can;
        dec[D_CALL]  = in_call && n_ok;
        dec[D_CAN]   = can;
        dec[D_CARG]  = can ? acc_len == 4'd0 : arg_ok;
        dec[D_CNW]   = w_nw;
        dec[D_CEUR]  = w_eur;
        dec[D_BAD]   = |acc_wdata[31:13] || |acc_wdata[8:7] || p_undef || (pone & w_kids) != 6'd0;
        dec[D_NC]    = w_par == P_NC;
        dec[D_KEY]   = acc_wdata == KEY;
        dec[D_ZERO]  = acc_wdata == 32'd0;
        dec[D_LINKW +: 6] = w_kids | pone;
        for (b = 0; b < NB; b = b + 1) dec[D_SEL + b] = (in_besu || in_call) && {24'd0, n} == b;
    end
    wire unused_ok = &{1'b0, acc_wdata[0]};
endmodule
`default_nettype wire
