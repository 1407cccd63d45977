// The fields of a predecoded BESU register access (rtl/besu/besu_decode.v
// writes them, rtl/besu/besu_node.v reads them).  Include after NB is
// declared.  Every field depends on the request alone, not on any node.
// A CALL access (bus_req_call) reaches only BAR_CALL[n] and CANCEL; any
// other access reaches only the other registers (else D_NOREG).
localparam integer D_RANGE = 0;   // a BESU register with n >= NB (RANGE)
localparam integer D_CTL   = 1;   // BAR_CTL[n], n < NB
localparam integer D_CFG   = 2;   // BAR_CFG[n], n < NB
localparam integer D_JND   = 3;   // JOINED[n], n < NB
localparam integer D_IR    = 4;   // IR_STATUS
localparam integer D_ERR   = 5;   // ERR
localparam integer D_MODE  = 6;   // MODE
localparam integer D_SHAPE = 7;   // SHAPE
localparam integer D_LINKS = 8;   // LINKS
localparam integer D_FAULT = 9;   // FAULT
localparam integer D_NOREG = 10;  // no such register
localparam integer D_BAD   = 11;  // as a BAR_CFG word: refused on any node (reserved bits set,
                                  // an undefined parent code, the parent link also a child)
localparam integer D_NC    = 12;  // as a BAR_CFG word: parent code 0100, not connected
localparam integer D_KEY   = 13;  // the word is KEY
localparam integer D_ZERO  = 14;  // the word is 0
localparam integer D_LINKW = 15;  // 6 bits: the links the BAR_CFG word names (children and parent)
localparam integer D_CALL  = 21;  // a CALL access to BAR_CALL[n], n < NB
localparam integer D_CAN   = 22;  // a CALL access to CANCEL
localparam integer D_CARG  = 23;  // as a CALL start: its operands are what the register takes
                                  // (BAR_CALL: 1 byte, a wait; CANCEL: none)
localparam integer D_CNW   = 24;  // as a BAR_CALL operand: CALL_NOWRITE (wait only)
localparam integer D_CEUR  = 25;  // as a BAR_CALL operand: CALL_EUREKA (wait for 01x, else 11x)
localparam integer D_SEL   = 26;  // NB bits: BESU n, one-hot (none when n >= NB)
localparam integer DW      = D_SEL + NB;
// The links node `node` of an x*y*z mesh has (bit d: direction d = +X, -X,
// +Y, -Y, +Z, -Z; none past the mesh's edges).
function [5:0] besu_has(input integer node, input integer x, input integer y, input integer z);
    integer xc, yc, zc;
    begin
        xc = node % x;
        yc = (node / x) % y;
        zc = node / (x * y);
        besu_has = {zc > 0, zc + 1 < z, yc > 0, yc + 1 < y, xc > 0, xc + 1 < x};
    end
endfunction
// Whether a BAR_CFG word, decoded, is acceptable on a node with links `has`:
// not refused on any node, and naming no link the node lacks (unless the
// parent code is 0100, not connected, which ignores the links).
function besu_cfg_ok(input [DW-1:0] d, input [5:0] has);
    besu_cfg_ok = !d[D_BAD] && (d[D_NC] || (d[D_LINKW +: 6] & ~has) == 6'd0);
endfunction
