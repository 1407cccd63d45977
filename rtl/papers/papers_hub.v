`default_nettype none
// papers_hub: the PAPERS hub top (seed 000 sections 2.2, 3.1, 3.2) that every
// board top and the virtual hub (sim/aggnet-sim) instantiate unchanged.
//
// Per PE a, the pins of one parallel port in register layout (the bit
// positions come from rtl/papers/papers_regs.vh, generated from
// tools/regmap.py; for N = 4 they are exactly seed Tables 3, 4 and 5):
//   pe_data[a*W +: W]   data-register pins D, PROBE, IR, S, B0..B(MW-1)
//   pe_ctrl[a*5 +: 5]   control bits U0, U1, GI, CE, IE as the cable carries
//                       them: U0, U1, GI at their logic level (the PC's own
//                       inversion is undone by the host), CE active low
//                       (PAPERS_CTRL_CABLE_INVERT: DB25 pin 17 low = CE).
//   pe_stat[a*W +: W]   status pins: I0..I(MW-2) at bits 3.., INT (Ack) at
//                       W-2, and at W-1 the Busy pin driven with /GO as the
//                       seed's PAL does, so the PC (which inverts Busy) reads GO.
//   pe_led[a*LW +: LW]  section 3.2 display: {CE, IR, U1, U0, D, S, B(MW-1)..B0}
//   pe_irq[a]           INT AND IE: the interrupt the PE's PC would take.
//   pe_bad[a]           the PE's mask names a PE >= N (N < 4 only).
//   pe_present[a]       the PE is present: its CE is 1 (see Presence).
//   pe_go[a]            the PAL's GO register of PE a, registered with
//                       pe_stat (same cycle as the Busy pin): GO without
//                       Table 7's IR priority, for papers_bus's SYNC, which
//                       must see a barrier fire whatever interrupts do.
//   pe_sv, pe_dv, pe_pv every PE's S, D and PROBE as the I bits in pe_stat
//                       took them (registered with pe_stat, absent PEs 0):
//                       papers_bus's link-only window computes from these
//                       and its own masks the I bits of the PEs it needs
//                       instead of reading pe_stat's N*N of them.
// with MW = max(N,4), W = MW + 4, LW = MW + 6.
//
// Timing (clk cycles, counted as rising edges after an input pin changes):
//   S -> GO on the pins: 4 (2 synchronizer + GO register + output register),
//   whatever N.  D -> I pins: 3, so data is valid a cycle before GO (the seed's
//   section 4.3.3 skew between GO and the data bits is gone).
//   IR -> INT: 3 (INT is combinational from the synchronized IR).  All
//   outputs are registered: no glitches on the cable.
//
// Presence (aggnet, not the seed; tools/regmap.py CABLE_ACTIVE_LOW): iCE40
// pads have pull-ups only, so an unplugged cable reads every line high, at
// the seed's polarity S up with every mask bit set.  CE is therefore read
// active-low on the cable, and a PE whose CE is 0 (its pin 17 high: cable
// unplugged, PC off with its port floating, or libaggnet not attached) is
// absent: inside the hub its pins read as a PE alone and idle (S, D, IR,
// PROBE and every control bit 0, its mask naming only itself, so that its GO
// rests at 0 instead of toggling as an empty mask would), so it never
// arrives, names no other PE, requests no interrupt, and its LED column is
// dark.  A present PE is exactly the seed's.  Presence is decided on the
// synchronized pins in the same cycle as the others, so it adds no cycle.
//
// Link-only (PINS = 0; aggnet, issue 24's hub at 64 PEs): every PE is on the
// link (papers_bus's registers drive pe_data / pe_ctrl, already in clk's
// domain), so nothing needs a synchronizer.  The S, D, IR, PROBE and control
// bits still pass two register stages, so that S -> GO stays 4 cycles and
// papers_bus's SETTLE holds unchanged: one here, the other inside the core
// (papers_core PIPE = 1), where it holds the partial ANDs and ORs of the
// barrier equations (groups of 8 PEs), so that no cycle reduces over 3N
// signals.  The mask bits go straight to the core (a register written over
// the link is stable), whose first stage for them is the precomputed mask
// agreement: a mask write reaches the GO register three cycles after it
// lands, as an S write does.
// That saves the 2 * N * MW mask synchronizer flip-flops (8192 at N = 64);
// the seed's equations are unchanged, one cycle later inside the core.
//
// rst: synchronous, active high.  Parameters: N in 2..64; PINS 1 (pins, the
// default) or 0 (link-only).
module papers_hub #(
    parameter integer N  = 4,
    parameter integer PINS = 1,
    parameter integer MW = (N < 4) ? 4 : N,
    parameter integer W  = MW + 4,
    parameter integer LW = MW + 6
) (
    input  wire            clk,
    input  wire            rst,
    input  wire [N*W-1:0]  pe_data,
    input  wire [N*5-1:0]  pe_ctrl,
    output reg  [N*W-1:0]  pe_stat,
    output reg  [N*LW-1:0] pe_led,
    output reg  [N-1:0]    pe_irq,
    output reg  [N-1:0]    pe_bad,
    output wire [N-1:0]    pe_present,
    output reg  [N-1:0]    pe_go,
    output reg  [N-1:0]    pe_sv,
    output reg  [N-1:0]    pe_dv,
    output reg  [N-1:0]    pe_pv
);
`include "papers_regs.vh"

    generate
        if (N < 2 || N > 64) begin : g_bad_n
            $error("papers_hub: N must be in 2..64");
        end
        if (MW != ((N < PAPERS_MIN_MW) ? PAPERS_MIN_MW : N) || W != MW + 4 || LW != MW + 6) begin : g_bad_widths
            $error("papers_hub: MW, W and LW are derived from N; leave them at their defaults");
        end
        if (PINS != 0 && PINS != 1) begin : g_bad_pins
            $error("papers_hub: PINS must be 1 (pins) or 0 (link-only)");
        end
        if (PAPERS_CTRL_WIDTH != 5) begin : g_bad_ctrl
            $error("papers_hub: control register width changed in tools/regmap.py");
        end
    endgenerate

    // Every pin from the PEs goes through a 2-flop synchronizer; link-only,
    // the mask bits bypass it (see above; their synchronizer flops are left
    // unused and removed by synthesis).
    wire [N*W-1:0] data_s, data_q;
    wire [N*5-1:0] ctrl_q;
    genvar a;
    generate
        if (PINS != 0) begin : g_sync
            sync2 #(.W(N*W)) u_sync_data (.clk(clk), .rst(rst), .d(pe_data), .q(data_s));
            // The control synchronizers reset to "CE pin high": every PE is
            // absent until its pins have been sampled (no empty-mask GO
            // toggling at reset).
            sync2 #(.W(N*5), .RESET({N{PAPERS_CTRL_CABLE_INVERT}})) u_sync_ctrl (
                .clk(clk), .rst(rst), .d(pe_ctrl), .q(ctrl_q));
        end else begin : g_reg
            // link-only: one register stage here, the second in the core
            // (PIPE = 1: its reductions' partials), so S -> GO stays 4
            reg [N*W-1:0] data_r;
            reg [N*5-1:0] ctrl_r;
            always @(posedge clk) begin
                if (rst) begin
                    data_r <= {(N*W){1'b0}};
                    ctrl_r <= {N{PAPERS_CTRL_CABLE_INVERT}};
                end else begin
                    data_r <= pe_data;
                    ctrl_r <= pe_ctrl;
                end
            end
            assign data_s = data_r;
            assign ctrl_q = ctrl_r;
        end
    endgenerate
    generate
        for (a = 0; a < N; a = a + 1) begin : g_in
            assign data_q[a*W +: PAPERS_DATA_B0] = data_s[a*W +: PAPERS_DATA_B0];
            assign data_q[a*W + PAPERS_DATA_B0 +: MW] = (PINS != 0) ? data_s[a*W + PAPERS_DATA_B0 +: MW]
                                                                    : pe_data[a*W + PAPERS_DATA_B0 +: MW];
        end
    endgenerate
    // Presence, then unpack the register layout into per-signal vectors
    // (an absent PE's pins all read 0).
    wire [N-1:0]    s, d, ir, probe, gi, ie, ce, u0, u1;
    wire [N*MW-1:0] mask;
    generate
        for (a = 0; a < N; a = a + 1) begin : g_unpack
            wire [4:0]   c_logic = ctrl_q[a*5 +: 5] ^ PAPERS_CTRL_CABLE_INVERT;
            wire         here    = c_logic[PAPERS_CONTROL_CE];
            wire [W-1:0] alone   = {{(W-1){1'b0}}, 1'b1} << (PAPERS_DATA_B0 + a);
            wire [W-1:0] dq      = here ? data_q[a*W +: W] : alone;
            wire [4:0]   cq      = here ? c_logic : 5'd0;
            assign pe_present[a] = here;
            assign s[a]     = dq[PAPERS_DATA_S];
            assign d[a]     = dq[PAPERS_DATA_D];
            assign ir[a]    = dq[PAPERS_DATA_IR];
            assign probe[a] = dq[PAPERS_DATA_PROBE];
            // link-only: the masks as written, presence applied in the
            // core (papers_core here); with pins, an absent PE's substituted
            assign mask[a*MW +: MW] = (PINS == 0) ? data_q[a*W + PAPERS_DATA_B0 +: MW] : dq[PAPERS_DATA_B0 +: MW];
            assign u0[a]    = cq[PAPERS_CONTROL_U0];
            assign u1[a]    = cq[PAPERS_CONTROL_U1];
            assign gi[a]    = cq[PAPERS_CONTROL_GI];
            assign ce[a]    = cq[PAPERS_CONTROL_CE];
            assign ie[a]    = cq[PAPERS_CONTROL_IE];
        end
    endgenerate

    wire [N-1:0]        go, go_rd, int_rd, irq, bad_mask, s_e, d_e, probe_e;
    wire [N*(MW-1)-1:0] ivec;

    papers_core #(.N(N), .PIPE((PINS == 0) ? 1 : 0)) u_core (
        .clk(clk), .rst(rst),
        .s(s), .d(d), .ir(ir), .probe(probe), .gi(gi), .ie(ie), .mask(mask), .here(pe_present),
        .go(go), .go_rd(go_rd), .int_rd(int_rd), .irq(irq), .ivec(ivec),
        .bad_mask(bad_mask), .s_e(s_e), .d_e(d_e), .probe_e(probe_e)
    );

    // Pack outputs into the status layout and register them.
    wire [N*W-1:0]  stat_next;
    wire [N*LW-1:0] led_next;
    generate
        for (a = 0; a < N; a = a + 1) begin : g_pack
            assign stat_next[a*W + W - PAPERS_STATUS_GO_FROM_TOP]  = !go_rd[a];
            assign stat_next[a*W + W - PAPERS_STATUS_INT_FROM_TOP] = int_rd[a];
            assign stat_next[a*W + PAPERS_STATUS_I0 +: MW-1]       = ivec[a*(MW-1) +: MW-1];
            assign stat_next[a*W +: PAPERS_STATUS_I0]              = {PAPERS_STATUS_I0{1'b0}};
            assign led_next[a*LW +: LW] = pe_present[a] ? {ce[a], ir[a], u1[a], u0[a], d[a], s[a], mask[a*MW +: MW]}
                                                        : {LW{1'b0}};
        end
    endgenerate

    // Reset state: GO = 0, so the Busy pin (/GO) is high.
    wire [N*W-1:0] stat_reset;
    generate
        for (a = 0; a < N; a = a + 1) begin : g_reset
            assign stat_reset[a*W +: W] = {1'b1, {(W-1){1'b0}}};
        end
    endgenerate

    always @(posedge clk) begin
        if (rst) begin
            pe_stat <= stat_reset;
            pe_led  <= {(N*LW){1'b0}};
            pe_irq  <= {N{1'b0}};
            pe_bad  <= {N{1'b0}};
            pe_go   <= {N{1'b0}};
            {pe_sv, pe_dv, pe_pv} <= {(3 * N){1'b0}};
        end else begin
            pe_stat <= stat_next;
            pe_led  <= led_next;
            pe_irq  <= irq;
            pe_bad  <= bad_mask;
            pe_go   <= go;
            {pe_sv, pe_dv, pe_pv} <= {s_e, d_e, probe_e};
        end
    end
endmodule
`default_nettype wire
