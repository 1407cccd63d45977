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
//   0x300+n BAR_CALL[n] call  a link CALL (docs/link.md rule 8) that waits:
//                          operand bits 2..0 a code written as to BAR_CTL[n]
//                          (OP_BAR, OP_BAR_I, OP_EUR_B), or bit 3
//                          CALL_NOWRITE and code 000 (wait only); bit 4
//                          CALL_EUREKA: wait for 01x, else for 11x.  Result:
//                          the state (1 byte) once it shows the event
//   0x406   CANCEL     call  withdraws the pending BAR_CALL; result bits
//                          5..4 NONE / WITHDRAWN / FINISHED, 2..0 its state
// Causes: 1 RANGE, 2 PRIV, 3 RSVD, 4 ORDER, 5 NOTPART, 6 BADCFG, 7 KEY,
// 8 STRAY, 9 CALLARG, 10 BUSY, 11 NOWAIT.
//
// The CALL record (docs/besu_regmap.md, "CALL registers"): this node's PE
// has at most one BAR_CALL pending: c_v, its BESU one-hot (c_hold, which
// also refuses BAR_CTL writes to that BESU: BUSY) and what it waits for
// (c_eur).  A start that writes its code is answered PENDING and recorded at
// once; if the BAR_CTL verdict (u_verdict, a cycle later) refuses the code,
// the record is dropped that cycle and the response says REFUSED.  So an
// access of the same PE in the cycle right after a start would not see its
// record yet: the bus master has one request outstanding (link_port), and
// each access takes three cycles, so none comes that early.  An ask (a CALL
// read) finishes when the BESU's state shows the event: OK with the state
// (and the record is dropped: the result is handed over once), else
// PENDING.  The node answers only; the link port keeps asking.  A refused access changes nothing but the error register.
// Writes to read-only registers are refused without logging (not barrier
// operations); other addresses: no such register.
module besu_node #(
    parameter integer NB = 32,
    parameter integer X = 2,
    parameter integer Y = 2,
    parameter integer Z = 2,
    parameter integer NODE = 0
) (
    input  wire            clk,
    input  wire            rst,
    // one register access (besu_engine's registered bus request)
    input  wire            acc_valid,
    input  wire            acc_we,
    input  wire [11:0]     acc_reg,
    input  wire [31:0]     acc_wdata,
    input  wire [NB+25:0]  acc_dec,  // the request predecoded (besu_decode, besu_dec.vh)
    input  wire            acc_cfg_ok, // as a BAR_CFG word it suits this node: besu_cfg_ok(acc_dec, HAS)
    output wire [31:0]     acc_rdata,  // the response, from registers: valid the cycle after the access
    output wire [1:0]      acc_err,    // with acc_rdata, a cycle after the access
    input  wire [6*NB*2-1:0] link_in,
    output wire [6*NB*2-1:0] link_out,
    output wire [5:0]      fault,
    output wire            irq
`ifdef FORMAL
    ,
    output wire [NB*3-1:0] f_state,
    output wire [NB*7-1:0] f_joined,
    output wire [NB*11-1:0] f_cfg,
    output wire [NB*2-1:0] f_pe_op,
    output wire            f_acc_ok    // this cycle's access is accepted (acc_err OK, a cycle later)
`endif
);
`include "besu_regs.vh"
`include "besu_dec.vh"
`include "bus_codes.vh"
    generate
        if (NB < 1 || NB > 32) begin : g_bad_nb
            $error("besu_node: NB must be in 1..32");
        end
        if (DW != NB + 26) begin : g_bad_dw
            $error("besu_node: the acc_dec port width does not match besu_dec.vh");
        end
    endgenerate

    localparam [5:0] HAS = besu_has(NODE, X, Y, Z);

    // ---- per-BESU state --------------------------------------------------------
    // cfg[b]: bit 0 PE, 6..1 children, 10..7 parent code (the register's 12..9)
    // (each BESU's registers live in its generate block below, written with
    // a decoded enable; these are their concatenations, for reading)
    wire [NB*11-1:0] cfg;
    wire [NB*3-1:0]  state;
    wire [NB*7-1:0]  joined;
    wire [NB*2-1:0]  pe_op;
    wire             cfg_ok;  // a BAR_CFG write accepted (to BESU nb)
    reg  [NB-1:0]    ir_status;
    reg              sup;
    reg  [5:0]       fault_r;
    reg  [31:0]      err;
    wire [31:0]      err_eff;  // err with this cycle's pending error merged (below)
    assign fault = fault_r;
    assign irq = |ir_status;

    // ---- the access, decoded ---------------------------------------------------
    // besu_decode did what depends on the request alone (acc_dec, registered
    // with it in besu_engine), and besu_engine whether a BAR_CFG word suits
    // this node's mesh edge (acc_cfg_ok, besu_cfg_ok of besu_dec.vh).
    wire [NB-1:0] sel   = acc_dec[D_SEL +: NB];  // BESU n, one-hot
    // the CALL record (header): a pending BAR_CALL, its BESU, what it waits for
    reg           c_v, c_eur;
    reg  [NB-1:0] c_hold;
    // a BAR_CALL start that writes its code: to besu_ctl like a BAR_CTL write
    // (same table, same mode), when its operand is a wait and none is pending.
    // The operand's checks are decoded with the request (besu_decode) and c_v
    // is a flip-flop, so the write enable gains inputs from registers only
    // (timing: the enable feeds every BESU's next state, docs/besu.md)
    wire        call_wr = acc_dec[D_CALL] && acc_dec[D_CARG] && !acc_dec[D_CNW] && !c_v;
    wire        ctl_wr  = acc_valid && acc_we && (acc_dec[D_CTL] || call_wr);
    wire        cfg_wr  = acc_valid && acc_we && acc_dec[D_CFG];
    wire        cfg_bad = !acc_cfg_ok;

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
            wire [2:0]  pd    = besu_pdir(par);  // Table 1 (besu_regs.vh)
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

            // the link lanes, registered: up on the parent's direction, down
            // on every child's, nothing on a direction this node lacks.  The
            // lane is chosen before the register, so a hop's path starts at
            // a flip-flop (and the fabric's cut) instead of running through
            // the sender's configuration decode into the receiver's record.
            reg  [11:0] lane_n;
            integer od;
            always @* begin
                lane_n = 12'd0;
                for (od = 0; od < 6; od = od + 1)
                    if (HAS[od] && conn && !root && pd == od[2:0]) lane_n[od*2 +: 2] = up_n[g*2 +: 2];
                    else if (HAS[od] && conn && kids[od]) lane_n[od*2 +: 2] = down_n[g*2 +: 2];
            end

            // this BESU's registers: a BAR_CFG write to it resets the rest
            reg [10:0] cfg_r;
            reg [2:0]  state_r;
            reg [6:0]  joined_r;
            reg [1:0]  pe_op_r;
            reg [11:0] lane_r;
            assign cfg[g*11 +: 11]  = cfg_r;
            assign state[g*3 +: 3]  = state_r;
            assign joined[g*7 +: 7] = joined_r;
            assign pe_op[g*2 +: 2]  = pe_op_r;
            always @(posedge clk) begin
                if (rst) begin
                    cfg_r <= {P_NC, 7'd0};
                    {state_r, joined_r, pe_op_r, lane_r} <= 24'd0;
                end else if (cfg_ok && sel[g]) begin
                    cfg_r <= {acc_wdata[12:9], acc_wdata[6:0]};
                    {state_r, joined_r, pe_op_r, lane_r} <= 24'd0;
                end else begin
                    state_r  <= ctl_next[g*3 +: 3];
                    joined_r <= ctl_rst[g] ? 7'd0 : joined_n[g*7 +: 7];
                    pe_op_r  <= ctl_op[g*2 +: 2];
                    lane_r   <= lane_n;
                end
            end

            besu_ctl u_ctl (
                .state(state[g*3 +: 3]), .net_op(to_c[g*2 +: 2]),
                .wr(ctl_wr && sel[g] && !c_hold[g]), .code(acc_wdata[2:0]),
                .member(conn && pe), .sup(sup),
                .next(ctl_next[g*3 +: 3]), .op(ctl_op[g*2 +: 2]),
                .refused(ctl_refused[g]), .cause(ctl_cause[g*4 +: 4]),
                .ir(ctl_ir[g]), .rst_router(ctl_rst[g]));

            for (gd = 0; gd < 6; gd = gd + 1) begin : g_out
                assign link_out[(gd*NB + g)*2 +: 2] = lane_r[gd*2 +: 2];
            end
        end
    endgenerate

    // ---- registers ---------------------------------------------------------------
    localparam integer NB_I = NB, X_I = X, Y_I = Y, Z_I = Z, NODE_I = NODE;
    wire [31:0] shape = {6'd0, NODE_I[5:0], Z_I[3:0], Y_I[3:0], X_I[3:0], NB_I[7:0]};
    wire [31:0] ir32  = {{(32 - NB){1'b0}}, ir_status};
    // BESU n's registers and its BAR_CTL verdict, selected one-hot
    reg  [10:0] c_rd;
    reg  [2:0]  s_rd;
    reg  [6:0]  j_rd;
    reg         ref_sel;
    reg  [1:0]  n_rd;  // the network's opcode into it this cycle (to_c)
    integer rb;
    always @* begin
        c_rd = 11'd0;
        s_rd = 3'd0;
        j_rd = 7'd0;
        ref_sel = 1'b0;
        n_rd = 2'd0;
        for (rb = 0; rb < NB; rb = rb + 1)
            if (sel[rb]) begin
                c_rd = c_rd | cfg[rb*11 +: 11];
                s_rd = s_rd | state[rb*3 +: 3];
                j_rd = j_rd | joined[rb*7 +: 7];
                ref_sel = ref_sel | ctl_refused[rb];
                n_rd = n_rd | to_c[rb*2 +: 2];
            end
    end

    // For the CALL registers: whether the access's BESU is the pending
    // BAR_CALL's; whether its state shows the event the operand (start) or
    // the record (ask) waits for: 11x a barrier's completion, 01x a eureka;
    // whether it is a member (as besu_ctl's member); and the pending
    // BAR_CALL's BESU state, for CANCEL (c_hold selects it).
    wire        held      = |(c_hold & sel);
    wire        s_fin     = s_rd[1] && (s_rd[2] != acc_dec[D_CEUR]);
    wire        s_fin_c   = s_rd[1] && (s_rd[2] != c_eur);
    wire        member_rd = c_rd[10:7] != P_NC && c_rd[0];
    reg  [2:0]  s_hold;
    integer hb;
    always @* begin
        s_hold = 3'd0;
        for (hb = 0; hb < NB; hb = hb + 1)
            if (c_hold[hb]) s_hold = s_hold | state[hb*3 +: 3];
    end
    wire        h_fin = s_hold[1] && (s_hold[2] != c_eur);

    // the access's response and its error cause (0: none logged; a refused
    // BAR_CTL write's cause is the BESU's verdict, u_verdict's cause, logged below)
    reg  [31:0] rd_c;
    reg  [1:0]  err_o;  // every refusal but a BAR_CTL verdict's
    reg  [3:0]  log_cause;
    reg         rd_err;  // a read of ERR
    reg         c_set, c_clr;  // record the start's BAR_CALL; drop the record
    always @* begin
        rd_c = 32'd0;
        rd_err = 1'b0;
        err_o = LINK_BUS_OK;
        log_cause = 4'd0;
        c_set = 1'b0;
        c_clr = 1'b0;
        if (acc_dec[D_RANGE]) begin
            err_o = LINK_BUS_REFUSED;
            log_cause = C_RANGE;
        end else if (acc_dec[D_CTL]) begin
            if (!acc_we) rd_c = {29'd0, s_rd};  // a write: refused by u_verdict (below)
            else if (held) begin                // the pending BAR_CALL's BESU
                err_o = LINK_BUS_REFUSED;
                log_cause = C_BUSY;
            end
        end else if (acc_dec[D_CALL]) begin
            if (acc_we) begin                   // a start
                if (!acc_dec[D_CARG]) begin
                    err_o = LINK_BUS_REFUSED;
                    log_cause = C_CALLARG;
                end else if (c_v) begin
                    err_o = LINK_BUS_REFUSED;
                    log_cause = C_BUSY;
                end else if (!acc_dec[D_CNW]) begin
                    err_o = LINK_BUS_PENDING;        // the code's verdict may refuse it (u_verdict)
                    c_set = 1'b1;
                end else if (!member_rd || s_rd[2] == acc_dec[D_CEUR]) begin
                    err_o = LINK_BUS_REFUSED;        // a wait-only CALL nothing would finish
                    log_cause = C_NOWAIT;
                end else if (s_fin) begin
                    rd_c = {29'd0, s_rd};       // finished already: no record
                end else begin
                    err_o = LINK_BUS_PENDING;
                    c_set = 1'b1;
                end
            end else if (held) begin            // an ask for the pending BAR_CALL
                if (s_fin_c) begin
                    rd_c = {29'd0, s_rd};
                    c_clr = 1'b1;
                end else begin
                    err_o = LINK_BUS_PENDING;
                end
            end else begin
                err_o = LINK_BUS_REFUSED;            // no such CALL pending (not logged)
            end
        end else if (acc_dec[D_CAN]) begin
            if (!acc_we) err_o = LINK_BUS_REFUSED;   // a CANCEL finishes at its start: no asks
            else if (!acc_dec[D_CARG]) begin
                err_o = LINK_BUS_REFUSED;
                log_cause = C_CALLARG;
            end else begin
                rd_c = {26'd0, !c_v ? CANCEL_NONE[1:0] : h_fin ? CANCEL_FINISHED[1:0] : CANCEL_WITHDRAWN[1:0],
                        1'b0, c_v ? s_hold : 3'd0};
                c_clr = 1'b1;
            end
        end else if (acc_dec[D_CFG]) begin
            if (acc_we) begin
                if (!sup) begin
                    err_o = LINK_BUS_REFUSED;
                    log_cause = C_PRIV;
                end else if (cfg_bad) begin
                    err_o = LINK_BUS_REFUSED;
                    log_cause = C_BADCFG;
                end
            end else rd_c = {19'd0, c_rd[10:7], 2'b00, c_rd[6:0]};
        end else if (acc_dec[D_JND]) begin
            if (acc_we) err_o = LINK_BUS_REFUSED;
            else rd_c = {25'd0, j_rd};
        end else if (acc_dec[D_IR]) begin
            if (!acc_we) rd_c = ir32;
        end else if (acc_dec[D_ERR]) begin
            if (!acc_we) rd_err = 1'b1;  // err_eff: err itself, next cycle (below)
        end else if (acc_dec[D_MODE]) begin
            if (acc_we) begin
                if (!acc_dec[D_KEY] && !acc_dec[D_ZERO]) begin
                    err_o = LINK_BUS_REFUSED;
                    log_cause = C_KEY;
                end
            end else rd_c = {31'd0, sup};
        end else if (acc_dec[D_SHAPE]) begin
            if (acc_we) err_o = LINK_BUS_REFUSED; else rd_c = shape;
        end else if (acc_dec[D_LINKS]) begin
            if (acc_we) err_o = LINK_BUS_REFUSED; else rd_c = {26'd0, HAS};
        end else if (acc_dec[D_FAULT]) begin
            if (acc_we) begin
                if (!sup) begin
                    err_o = LINK_BUS_REFUSED;
                    log_cause = C_PRIV;
                end
            end else rd_c = {26'd0, fault_r};
        end else if (acc_dec[D_NOREG]) begin
            err_o = LINK_BUS_NO_REG;
        end
        if (!acc_valid) begin
            rd_c = 32'd0;
            rd_err = 1'b0;
            err_o = LINK_BUS_OK;
            log_cause = 4'd0;
            c_set = 1'b0;
            c_clr = 1'b0;
        end
    end
    // The BAR_CTL verdict comes a cycle later, from registers: BESU n's
    // besu_ctl decides this cycle's write for its own state (above), and
    // u_verdict decides it again, the next cycle, from the same inputs as
    // they were then (the selected BESU's state, network opcode and member
    // bit, the code and sup), for the response and the error log.  So the
    // network's opcodes end at v_net's flip-flops instead of running through
    // the verdict and a 32-way select into acc_err and the log (timing: the
    // ULX3S's critical path at 100 MHz, cfg_r -> to_c -> refused -> acc_err).
    // Same function, same inputs: the two verdicts cannot differ.
    reg        v_wr, v_member, v_sup;
    reg  [2:0] v_state, v_code;
    reg  [1:0] v_net, err_o_r;
    wire       v_refused;
    wire [3:0] v_cause;
    wire [2:0] v_next_unused;
    wire [1:0] v_op_unused;
    wire       v_ir_unused, v_rst_unused;
    always @(posedge clk) begin
        v_wr     <= !rst && ctl_wr && |(sel & ~c_hold);
        v_state  <= s_rd;
        v_net    <= n_rd;
        v_member <= c_rd[10:7] != P_NC && c_rd[0];  // conn && pe of the selected BESU
        v_sup    <= sup;
        v_code   <= acc_wdata[2:0];
    end
    besu_ctl u_verdict (
        .state(v_state), .net_op(v_net), .wr(v_wr), .code(v_code), .member(v_member), .sup(v_sup),
        .next(v_next_unused), .op(v_op_unused), .refused(v_refused), .cause(v_cause), .ir(v_ir_unused),
        .rst_router(v_rst_unused));

    // The response, one cycle later.  A read of ERR returns err_eff, which
    // is what err holds the next cycle (a read is never the clearing write),
    // so the response is err itself then (timing: err_eff ran into
    // acc_rdata on the ULX3S's critical path at 100 MHz).
    reg [31:0] acc_rdata_r;
    reg        rd_err_r;
    always @(posedge clk) begin
        acc_rdata_r <= rst ? 32'd0 : rd_c;
        rd_err_r    <= !rst && rd_err;
        err_o_r     <= rst ? LINK_BUS_OK : err_o;
    end
    assign acc_rdata = rd_err_r ? err : acc_rdata_r;
    assign acc_err = v_refused ? LINK_BUS_REFUSED : err_o_r;

    // The writes that take effect, each from its own few inputs rather than
    // through the verdict (which depends on every BESU's network opcode): the
    // same conditions as the table above, shorter paths to the registers.
    wire wr = acc_valid && acc_we;
    assign cfg_ok = cfg_wr && sup && !cfg_bad;
    wire ir_wr    = wr && acc_dec[D_IR];
    wire mode_wr  = wr && acc_dec[D_MODE];         // KEY: supervisor; anything else: user
    wire fault_wr = wr && acc_dec[D_FAULT] && sup;

    // The error register: the first error's details, MORE and a count.  A
    // cycle's error (an access refused, else a STRAY) is registered twice
    // (p1_*, pend_*) and merged into err at the next clock edge; err_eff is
    // err with that merge applied, what err becomes.  A read of ERR returns
    // err as it stands the cycle after the read (below): every error of an
    // access at least two cycles before the read.  (This keeps the BAR_CTL
    // verdicts and the router's inputs registers away from err's 32
    // enables.)
    reg         c_wr_q;  // the last cycle's access was a BAR_CALL start that wrote its code
    reg  [4:0]  stray_b;
    integer sb;
    always @* begin
        stray_b = 5'd0;
        for (sb = NB - 1; sb >= 0; sb = sb - 1)
            if (stray[sb]) stray_b = sb[4:0];
    end
    // what is registered: a refused BAR_CTL write's verdict, any other
    // access's cause, the access's register, a STRAY and its BESU.  Each is
    // registered twice (p1_*, then pend_*), the verdict once more after
    // u_verdict, so an error reaches err two clock edges after its access
    // (timing: u_verdict into err's enables was the ULX3S's critical path
    // at 100 MHz).  A bus access takes 3 cycles and the link's accesses
    // are further apart, so the access after a refused one sees it in ERR.
    reg         pend_ctl;
    reg  [3:0]  pend_ctl_cause;
    reg  [3:0]  p1_other, pend_other;
    reg  [7:0]  p1_acc, pend_acc;
    reg         p1_stray, pend_stray;
    reg  [4:0]  p1_stray_b, pend_stray_b;
    wire [3:0]  pend_acc_cause = pend_ctl ? pend_ctl_cause : pend_other;
    wire [3:0]  pend_cause = pend_acc_cause != 4'd0 ? pend_acc_cause : pend_stray ? C_STRAY : 4'd0;
    wire [7:0]  pend_reg   = pend_acc_cause != 4'd0 ? pend_acc : {3'd0, pend_stray_b};
    wire [7:0]  pend_type = (pend_cause == C_RANGE || pend_cause == C_PRIV || pend_cause == C_KEY) ? 8'd23 : 8'd0;
    wire [7:0]  err_more  = err[31:24] == 8'hff ? 8'hff : err[31:24] + 8'd1;
    assign err_eff = pend_cause == 4'd0 ? err :
                     !err[0] ? {8'd1, pend_reg, pend_type, pend_cause, 3'd0, 1'b1} :
                               {err_more, err[23:2], 1'b1, err[0]};
    wire       clr_err = acc_valid && acc_we && acc_dec[D_ERR] && acc_wdata[0];

    always @(posedge clk) begin
        if (rst) begin
            ir_status  <= {NB{1'b0}};
            sup        <= 1'b0;
            fault_r    <= 6'd0;
            err        <= 32'd0;
            {pend_other, pend_acc, pend_stray, pend_stray_b} <= 18'd0;
            {p1_other, p1_acc, p1_stray, p1_stray_b} <= 18'd0;
            {pend_ctl, pend_ctl_cause} <= 5'd0;
            {c_v, c_eur, c_wr_q} <= 3'd0;
            c_hold     <= {NB{1'b0}};
        end else begin
            ir_status <= ir_status | ctl_ir;
            if (ir_wr) ir_status <= (ir_status & ~acc_wdata[NB-1:0]) | ctl_ir;
            if (mode_wr) sup <= acc_dec[D_KEY];
            if (fault_wr) fault_r <= acc_wdata[5:0];
            // the CALL record: dropped by an ask that finished it, a CANCEL,
            // a BAR_CFG write to its BESU, or the verdict refusing the code
            // of the start that set it (the cycle after); set by a start
            if (c_clr || (cfg_ok && held) || (c_wr_q && v_refused)) begin
                c_v    <= 1'b0;
                c_hold <= {NB{1'b0}};
            end else if (c_set) begin
                c_v    <= 1'b1;
                c_hold <= sel;
                c_eur  <= acc_dec[D_CEUR];
            end
            c_wr_q <= c_set && !acc_dec[D_CNW];
            err        <= clr_err ? 32'd0 : err_eff;
            p1_other       <= log_cause;
            p1_acc         <= acc_reg[7:0];
            p1_stray       <= |stray;
            p1_stray_b     <= stray_b;
            pend_other     <= p1_other;
            pend_acc       <= p1_acc;
            pend_stray     <= p1_stray;
            pend_stray_b   <= p1_stray_b;
            pend_ctl       <= v_refused;     // u_verdict is already a cycle late
            pend_ctl_cause <= v_cause;
        end
    end

`ifdef FORMAL
    assign f_state = state;
    assign f_joined = joined;
    assign f_cfg = cfg;
    assign f_pe_op = pe_op;
    assign f_acc_ok = acc_valid && !(ctl_wr && ref_sel) && err_o == LINK_BUS_OK;
    // u_verdict, a cycle late, agrees with the verdict of the BESU the write
    // went to (its besu_ctl, which moved the state): refused and cause.
    reg       f_past = 1'b0;
    reg       f_ref_q;
    reg [3:0] f_cause_q;
    integer   fb;
    reg [3:0] f_cause_sel;
    always @* begin
        f_cause_sel = 4'd0;
        for (fb = 0; fb < NB; fb = fb + 1)
            if (sel[fb]) f_cause_sel = f_cause_sel | ctl_cause[fb*4 +: 4];
    end
    always @(posedge clk) begin
        f_past    <= 1'b1;
        f_ref_q   <= !rst && ctl_wr && ref_sel;
        f_cause_q <= (!rst && ctl_wr && ref_sel) ? f_cause_sel : 4'd0;
    end
    always @* if (f_past && !rst) assert (v_refused == f_ref_q && v_cause == f_cause_q);
`endif
    wire unused_ok = &{1'b0, complete, acc_wdata, acc_reg, acc_dec, ref_sel, ctl_refused, ctl_cause,
                         v_next_unused, v_op_unused, v_ir_unused, v_rst_unused};
endmodule
`default_nettype wire
