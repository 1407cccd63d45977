`default_nettype none
// besu_node: one processing-element node's barrier and eureka logic (seed
// 001, "Barrier and Eureka Synchronization Logic", figure 5): NB BESUs, each
// with its BAR_CFG register, its BAR_CTL circuit (rtl/besu/besu_ctl.v) and
// its share of the network router, plus the node's IR_STATUS, error and mode
// registers.  besu_fabric joins nodes into a 3-D mesh by their six links.
//
// BAR_CFG (figure 6, Table 1), 32 bits, reset 0x0000_0800 (parent 0100):
//   bit 0 PE, bits 1..6 child +X, -X, +Y, -Y, +Z, -Z, bits 8..7 00,
//   bits 12..9 parent code: 0000 root, 0001 +X, 0010 +Y, 0011 +Z, 1111 -X,
//   1110 -Y, 1101 -Z, 0100 not connected; other codes, set bits 31..13 or
//   8..7, a parent or child on a link this node does not have (the mesh
//   edge), or a parent link that is also a child link: refused (BADCFG).
//   A BAR_CFG write also clears the BESU's router record and its state
//   (S_IDLE): a reconfigured BESU starts afresh.
//
// Links: direction d = 0..5 is +X, -X, +Y, -Y, +Z, -Z.  link_out[d] carries,
// every cycle, every BESU's 2-bit opcode toward the neighbour on d
// (link_out[(d*NB + b)*2 +: 2]); link_in[d] what that neighbour sends.  Each
// BESU has its own lane, so B/E traffic never waits behind other traffic
// (the seed's priority rule holds trivially) and one hop is one cycle.
//
// The router, per BESU (seed 001, "The BAR_CFG Register"):
//   * fan-in: a join (opcode bit 1) from the local PE (PE bit set) or from a
//     child link (child bit set) is recorded in JOINED; when every active
//     source (the PE if its bit is set, every child) has joined, the node
//     sends the join to its parent, or, at the root, completes: it applies
//     "barrier completed" to its own BESU and fans it out.  The record is
//     then cleared for the next barrier.
//   * eureka (opcode bit 0): one source suffices; it goes up at once (the
//     root turns it around at once), never held behind a pending join, so a
//     eureka sent before a PE's join reaches every node before that
//     barrier's completion.
//   * fan-out: an opcode from the parent link is applied to the BESU (if its
//     PE bit is set) and passed to every child link in the next cycle.
//   * an opcode on a link that is neither this BESU's parent nor a child
//     (or on any link of a BESU in no partition), or a second join from a
//     source before the barrier completed, is dropped and logged (STRAY).
//
// Registers (addr[11:0], 32 bits; docs/besu.md has the one table):
//   0x000+n BAR_CTL[n] rw  read: bits 2..0 the state (Table 2); write: bits
//                          2..0 a control code (Table 3, besu_ctl)
//   0x100+n BAR_CFG[n] rw  read: as above; write: supervisor only (PRIV)
//   0x200+n JOINED[n]  ro  the router record: bit 0 PE, bits 1..6 the child
//                          links that joined the pending barrier
//   (n < 256; n >= NB: refused and logged, RANGE: C_ERR3 type 23)
//   0x400   IR_STATUS  r/w1c bit n: BESU n entered S_EUR_I or S_BAR_I;
//                          write 1s to clear.  irq = |IR_STATUS
//   0x401   ERR        r/w1c the first error since cleared: bit 0 ERR
//                          (C_ERR0 bit 62), 1 MORE (another since), 7..4
//                          cause, 15..8 type (23: undefined barrier space or
//                          privileged operation, as C_ERR3; else 0), 23..16
//                          the register's low 8 bits (the BESU), 31..24
//                          errors since cleared (saturating); a write with
//                          bit 0 set clears it
//   0x402   MODE       rw  bit 0: supervisor.  Write KEY: supervisor; 0:
//                          user; anything else: user, and logged (KEY)
//   0x403   SHAPE      ro  7..0 NB, 11..8 X, 15..12 Y, 19..16 Z, 25..20
//                          this node's number (x + X*(y + Y*z))
//   0x404   LINKS      ro  bit d: this node has a neighbour on direction d
//   0x405   FAULT      rw  bit d: cut link d of this node (both ways), a
//                          fault injected to test the diagnostic (barr);
//                          write: supervisor only (PRIV)
// Causes: 1 RANGE, 2 PRIV, 3 RSVD, 4 ORDER, 5 NOTPART, 6 BADCFG, 7 KEY,
// 8 STRAY.  A refused access changes nothing but the error register.
// Writes to read-only registers are refused without logging (not barrier
// operations); other addresses: no such register.
module besu_node #(
    parameter integer NB = 32,
    parameter integer X = 2,
    parameter integer Y = 2,
    parameter integer Z = 2,
    parameter integer NODE = 0,
    parameter [31:0]  KEY = 32'h5345_5550
) (
    input  wire            clk,
    input  wire            rst,
    // one register access (besu_engine's registered bus request)
    input  wire            acc_valid,
    input  wire            acc_we,
    input  wire [11:0]     acc_reg,
    input  wire [31:0]     acc_wdata,
    output reg  [31:0]     acc_rdata,
    output reg  [1:0]      acc_err,
    input  wire [6*NB*2-1:0] link_in,
    output wire [6*NB*2-1:0] link_out,
    output wire [5:0]      fault,
    output wire            irq
`ifdef FORMAL
    ,
    output wire [NB*3-1:0] f_state,
    output wire [NB*7-1:0] f_joined,
    output wire [NB*11-1:0] f_cfg,
    output wire [NB*2-1:0] f_up,
    output wire [NB*2-1:0] f_pe_op
`endif
);
    generate
        if (NB < 1 || NB > 32) begin : g_bad_nb
            $error("besu_node: NB must be in 1..32");
        end
    endgenerate

    localparam integer XC = NODE % X, YC = (NODE / X) % Y, ZC = NODE / (X * Y);
    localparam [5:0] HAS = {ZC > 0, ZC + 1 < Z, YC > 0, YC + 1 < Y, XC > 0, XC + 1 < X};
    localparam [1:0] ERR_OK = 2'd0, ERR_NO_REG = 2'd1, ERR_REFUSED = 2'd2;
`include "besu_regs.vh"

    // parent code -> direction (6: root or not connected; 7: undefined code)
    function [2:0] pdir(input [3:0] p);
        case (p)
            4'b0001: pdir = 3'd0;
            4'b1111: pdir = 3'd1;
            4'b0010: pdir = 3'd2;
            4'b1110: pdir = 3'd3;
            4'b0011: pdir = 3'd4;
            4'b1101: pdir = 3'd5;
            4'b0000, 4'b0100: pdir = 3'd6;
            default: pdir = 3'd7;
        endcase
    endfunction

    // ---- per-BESU state --------------------------------------------------------
    // cfg[b]: bit 0 PE, 6..1 children, 10..7 parent code (the register's 12..9)
    // (each BESU's registers live in its generate block below, written with
    // a decoded enable; these are their concatenations, for reading)
    wire [NB*11-1:0] cfg;
    wire [NB*3-1:0]  state;
    wire [NB*7-1:0]  joined;
    wire [NB*2-1:0]  up, down, pe_op;
    wire             cfg_ok;  // a BAR_CFG write accepted (to BESU nb)
    reg  [NB-1:0]    ir_status;
    reg              sup;
    reg  [5:0]       fault_r;
    reg  [31:0]      err;
    assign fault = fault_r;
    assign irq = |ir_status;

    // ---- the access, decoded ---------------------------------------------------
    wire [1:0]  region = acc_reg[9:8];
    wire [7:0]  n      = acc_reg[7:0];
    wire        in_besu = !acc_reg[11] && !acc_reg[10] && region != 2'd3;
    wire        n_ok   = {24'd0, n} < NB;
    wire [4:0]  nb     = n[4:0];
    localparam integer IW = (NB > 1) ? $clog2(NB) : 1;
    wire [IW-1:0] ni   = n[IW-1:0];
    wire        ctl_wr = acc_valid && acc_we && in_besu && region == 2'd0 && n_ok;
    wire        cfg_wr = acc_valid && acc_we && in_besu && region == 2'd1 && n_ok;
    wire [3:0]  w_par  = acc_wdata[12:9];
    wire [2:0]  w_pdir = pdir(w_par);
    wire [5:0]  w_kids = acc_wdata[6:1];
    wire        cfg_bad = |acc_wdata[31:13] || |acc_wdata[8:7] || w_pdir == 3'd7 ||
                          (w_par != P_NC && ((w_kids & ~HAS) != 6'd0 ||
                                             (w_pdir < 3'd6 && (!HAS[w_pdir] || w_kids[w_pdir]))));

    // ---- BAR_CTL and the router, per BESU --------------------------------------
    wire [NB*3-1:0] ctl_next;
    wire [NB*2-1:0] ctl_op, to_c;
    wire [NB-1:0]   ctl_refused, ctl_ir, ctl_rst, stray, complete;
    wire [NB*4-1:0] ctl_cause;
    wire [NB*7-1:0] joined_n;
    wire [NB*2-1:0] up_n, down_n;
    genvar g, gd;
    generate
        for (g = 0; g < NB; g = g + 1) begin : g_b
            wire [10:0] c     = cfg[g*11 +: 11];
            wire        pe    = c[0];
            wire [5:0]  kids  = c[6:1];
            wire [3:0]  par   = c[10:7];
            wire [2:0]  pd    = pdir(par);
            wire        conn  = par != P_NC;
            wire        root  = par == P_ROOT;
            wire [6:0]  need  = {kids, pe};
            // what arrives on each link for this BESU
            wire [11:0] lin;
            for (gd = 0; gd < 6; gd = gd + 1) begin : g_in
                assign lin[gd*2 +: 2] = link_in[(gd*NB + g)*2 +: 2];
            end
            reg  [1:0] from_par;
            reg  [6:0] bar_arr;
            reg        eur_in, bad_in;
            integer d;
            always @* begin
                from_par = 2'b00;
                bar_arr  = {6'd0, pe && pe_op[g*2 + 1]};
                eur_in   = pe && pe_op[g*2];
                bad_in   = 1'b0;
                for (d = 0; d < 6; d = d + 1) begin
                    if (conn && kids[d]) begin
                        bar_arr[d + 1] = lin[d*2 + 1];
                        eur_in = eur_in | lin[d*2];
                    end else if (conn && !root && pd == d[2:0]) begin
                        from_par = lin[d*2 +: 2];
                    end else if (lin[d*2 +: 2] != 2'b00) begin
                        bad_in = 1'b1;
                    end
                end
            end
            wire [6:0] jn   = joined[g*7 +: 7] | (bar_arr & need);
            wire       done = conn && need != 7'd0 && (jn & need) == need;
            assign complete[g] = done;
            assign joined_n[g*7 +: 7] = done ? 7'd0 : jn;
            assign stray[g] = bad_in || |(joined[g*7 +: 7] & bar_arr);
            wire [1:0] fan = root ? {done, eur_in} : from_par;
            assign up_n[g*2 +: 2]   = (conn && !root) ? {done, eur_in} : 2'b00;
            assign down_n[g*2 +: 2] = conn ? fan : 2'b00;
            assign to_c[g*2 +: 2]   = (conn && pe) ? fan : 2'b00;

            // this BESU's registers: a BAR_CFG write to it resets the rest
            reg [10:0] cfg_r;
            reg [2:0]  state_r;
            reg [6:0]  joined_r;
            reg [1:0]  up_r, down_r, pe_op_r;
            assign cfg[g*11 +: 11]  = cfg_r;
            assign state[g*3 +: 3]  = state_r;
            assign joined[g*7 +: 7] = joined_r;
            assign up[g*2 +: 2]     = up_r;
            assign down[g*2 +: 2]   = down_r;
            assign pe_op[g*2 +: 2]  = pe_op_r;
            always @(posedge clk) begin
                if (rst) begin
                    cfg_r <= {P_NC, 7'd0};
                    {state_r, joined_r, up_r, down_r, pe_op_r} <= 16'd0;
                end else if (cfg_ok && nb == g) begin
                    cfg_r <= {acc_wdata[12:9], acc_wdata[6:0]};
                    {state_r, joined_r, up_r, down_r, pe_op_r} <= 16'd0;
                end else begin
                    state_r  <= ctl_next[g*3 +: 3];
                    joined_r <= ctl_rst[g] ? 7'd0 : joined_n[g*7 +: 7];
                    up_r     <= up_n[g*2 +: 2];
                    down_r   <= down_n[g*2 +: 2];
                    pe_op_r  <= ctl_op[g*2 +: 2];
                end
            end

            besu_ctl u_ctl (
                .state(state[g*3 +: 3]), .net_op(to_c[g*2 +: 2]),
                .wr(ctl_wr && nb == g), .code(acc_wdata[2:0]),
                .member(conn && pe), .sup(sup),
                .next(ctl_next[g*3 +: 3]), .op(ctl_op[g*2 +: 2]),
                .refused(ctl_refused[g]), .cause(ctl_cause[g*4 +: 4]),
                .ir(ctl_ir[g]), .rst_router(ctl_rst[g]));

            // the link lanes: up on the parent's direction, down on every child's
            for (gd = 0; gd < 6; gd = gd + 1) begin : g_out
                assign link_out[(gd*NB + g)*2 +: 2] =
                    (conn && !root && pd == gd) ? up[g*2 +: 2] :
                    (conn && kids[gd]) ? down[g*2 +: 2] : 2'b00;
            end
        end
    endgenerate

    // ---- registers ---------------------------------------------------------------
    localparam integer NB_I = NB, X_I = X, Y_I = Y, Z_I = Z, NODE_I = NODE;
    wire [31:0] shape = {6'd0, NODE_I[5:0], Z_I[3:0], Y_I[3:0], X_I[3:0], NB_I[7:0]};
    wire [10:0] c_rd  = cfg[nb*11 +: 11];
    wire [31:0] ir32  = {{(32 - NB){1'b0}}, ir_status};

    // the access's response and its error cause (0: none logged)
    reg  [3:0] log_cause;
    always @* begin
        acc_rdata = 32'd0;
        acc_err   = ERR_OK;
        log_cause = 4'd0;
        if (in_besu) begin
            if (!n_ok) begin
                acc_err = ERR_REFUSED;
                log_cause = C_RANGE;
            end else case (region)
                2'd0: if (acc_we) begin
                          if (ctl_refused[ni]) begin
                              acc_err = ERR_REFUSED;
                              log_cause = ctl_cause[nb*4 +: 4];
                          end
                      end else acc_rdata = {29'd0, state[nb*3 +: 3]};
                2'd1: if (acc_we) begin
                          if (!sup) begin
                              acc_err = ERR_REFUSED;
                              log_cause = C_PRIV;
                          end else if (cfg_bad) begin
                              acc_err = ERR_REFUSED;
                              log_cause = C_BADCFG;
                          end
                      end else acc_rdata = {19'd0, c_rd[10:7], 2'b00, c_rd[6:0]};
                default: if (acc_we) acc_err = ERR_REFUSED;
                         else acc_rdata = {25'd0, joined[nb*7 +: 7]};
            endcase
        end else begin
            case (acc_reg)
                R_IR_STATUS: if (!acc_we) acc_rdata = ir32;
                R_ERR: if (!acc_we) acc_rdata = err;
                R_MODE: if (acc_we) begin
                             if (acc_wdata != KEY && acc_wdata != 32'd0) begin
                                 acc_err = ERR_REFUSED;
                                 log_cause = C_KEY;
                             end
                         end else acc_rdata = {31'd0, sup};
                R_SHAPE: if (acc_we) acc_err = ERR_REFUSED; else acc_rdata = shape;
                R_LINKS: if (acc_we) acc_err = ERR_REFUSED; else acc_rdata = {26'd0, HAS};
                R_FAULT: if (acc_we) begin
                             if (!sup) begin
                                 acc_err = ERR_REFUSED;
                                 log_cause = C_PRIV;
                             end
                         end else acc_rdata = {26'd0, fault_r};
                default: acc_err = ERR_NO_REG;
            endcase
        end
        if (!acc_valid) begin
            acc_rdata = 32'd0;
            acc_err = ERR_OK;
            log_cause = 4'd0;
        end
    end
    wire ok_wr = acc_valid && acc_we && acc_err == ERR_OK;
    assign cfg_ok = cfg_wr && ok_wr;

    // the error register: the first error's details, MORE and a count
    wire        any_stray = |stray;
    wire [3:0]  new_cause = log_cause != 4'd0 ? log_cause : any_stray ? C_STRAY : 4'd0;
    wire [7:0]  new_type  = (new_cause == C_RANGE || new_cause == C_PRIV || new_cause == C_KEY) ? 8'd23 : 8'd0;
    reg  [4:0]  stray_b;
    integer sb;
    always @* begin
        stray_b = 5'd0;
        for (sb = NB - 1; sb >= 0; sb = sb - 1)
            if (stray[sb]) stray_b = sb[4:0];
    end
    wire [7:0] new_reg = log_cause != 4'd0 ? acc_reg[7:0] : {3'd0, stray_b};
    wire       clr_err = acc_valid && acc_we && acc_reg == R_ERR && acc_wdata[0];

    always @(posedge clk) begin
        if (rst) begin
            ir_status <= {NB{1'b0}};
            sup     <= 1'b0;
            fault_r   <= 6'd0;
            err       <= 32'd0;
        end else begin
            ir_status <= ir_status | ctl_ir;
            if (ok_wr && acc_reg == R_IR_STATUS) ir_status <= (ir_status & ~acc_wdata[NB-1:0]) | ctl_ir;
            if (ok_wr && acc_reg == R_MODE) sup <= acc_wdata == KEY;
            if (acc_valid && acc_we && acc_reg == R_MODE && acc_err != ERR_OK) sup <= 1'b0;
            if (ok_wr && acc_reg == R_FAULT) fault_r <= acc_wdata[5:0];
            if (clr_err) begin
                err <= 32'd0;
            end else if (new_cause != 4'd0) begin
                if (!err[0]) err <= {8'd1, new_reg, new_type, new_cause, 3'd0, 1'b1};
                else begin
                    err[1] <= 1'b1;
                    if (err[31:24] != 8'hff) err[31:24] <= err[31:24] + 8'd1;
                end
            end
        end
    end

`ifdef FORMAL
    assign f_state = state;
    assign f_joined = joined;
    assign f_cfg = cfg;
    assign f_up = up;
    assign f_pe_op = pe_op;
`endif
    wire unused_ok = &{1'b0, complete, acc_wdata[31:13], n[7:5]};
endmodule
`default_nettype wire
