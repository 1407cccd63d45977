`default_nettype none
// cop_tree: two levels of Hall's COP (seed 004, chapter IV: the X bit, a
// tree of COPs): NCOP level 1 cores of C channels each (cop_core, UP = 1)
// and one level 2 core of NCOP channels above them (cop_core, UP = 0),
// level 1 core k being level 2 channel k through its cop_up link.  PE p is
// level 1 core p / C, channel p mod C (issue 23's numbering for several
// COPs in a hub).  docs/cop.md "Two levels" says what goes up and how.
//
// Bus: one engine bus slave (rtl/bus/bus_ports.vh) for every PE; the
// request goes to core p / C as its PE p mod C, and every core answers two
// cycles after it takes a request (cop_core's contract: its request stage;
// ready is low in between), so the answers are ORed (a core's rsp_* are 0
// while its bus_rsp_valid is low).  bus_req_pe >= NCOP * C has no
// registers (NO_REG, with the same timing: two cycles, ready low between).
//
// Level 2's bus: the NCOP cop_up links are its masters through a round
// robin arbiter (cop_arb): the grant goes to the first requesting link at
// or after the pointer, which then moves past it, whenever the level 2 core
// is ready (every other cycle); it answers two cycles after it takes the
// request and the answer goes to the link granted then.
//
// Exact sums: level 2 is built with DOWN = 1, and its export port reads
// the level 1 cores' accumulators directly: every level 1 core's ex_idx is
// level 2's xp_idx, and level 2's xp_data is core xp_ch's ex_data, chosen
// by xp_ch a cycle later (the accumulators answer one edge after the
// index).  An EXSUMF with X reaches level 2 as an EXMRG from each core's
// link, which merges the 34 words of every member core's export.  No outside access to level 2: it is
// configured by supervisor commands with X from level 1 (SETTC, SETBM for
// the level 2 key of the issuing process: one bit per level 1 core).
//
// Parameters (illegal values fail elaboration):
//   NCOP   2..8 level 1 cores
//   C      2, 4, 8, 16, 32 or 64 channels per level 1 core; NCOP * C <= 64
//   PPN_W, PID_W, RA_W, MB, EN_FPU, KEY: every core's (cop_core's ranges)
`include "bus_ports.vh"
module cop_tree #(
    parameter integer NCOP   = 4,
    parameter integer C      = 16,
    parameter integer PPN_W  = 2,
    parameter integer PID_W  = 2,
    parameter integer RA_W   = 4,
    parameter integer MB     = 2,
    parameter integer EN_FPU = 1,
    parameter [31:0]  KEY    = 32'h434F_5053
) (
    input  wire clk,
    input  wire rst,
    `AGGNET_BUS_SLAVE,
    `AGGNET_BUS_CALL_SLAVE
);
    generate
        if (NCOP < 2 || NCOP > 8) begin : g_bad_ncop
            $error("cop_tree: NCOP must be in 2..8");
        end
        if (C != 2 && C != 4 && C != 8 && C != 16 && C != 32 && C != 64) begin : g_bad_c
            $error("cop_tree: C must be a power of two in 2..64");
        end
        if (NCOP * C > 64) begin : g_bad_n
            $error("cop_tree: NCOP * C must be at most 64 (the bus names 64 PEs)");
        end
    endgenerate
`include "bus_codes.vh"

    localparam integer CW = (C <= 2) ? 1 : (C <= 4) ? 2 : (C <= 8) ? 3 : (C <= 16) ? 4 : (C <= 32) ? 5 : 6;
    localparam integer NW = (NCOP <= 2) ? 1 : (NCOP <= 4) ? 2 : 3;
    localparam integer N_I = NCOP * C;
    localparam [6:0] NPE = N_I[6:0];

    // ---- level 1: the PE's core, its channel ----
    wire [5:0]  sub_pe = {{(6-CW){1'b0}}, bus_req_pe[CW-1:0]};
    wire [5:0]  which  = bus_req_pe >> CW;
    wire        pe_in  = {1'b0, bus_req_pe} < NPE;
    wire [NCOP-1:0] rdy1, rv1;
    wire [31:0] rd1 [0:NCOP-1];
    wire [31:0] rdh1 [0:NCOP-1];
    wire [1:0]  re1 [0:NCOP-1];
    wire [3:0]  rl1 [0:NCOP-1];
    // level 1 <-> links
    wire [NCOP-1:0] u_valid, u_ready, u_mask, u_us, u_wd, d_valid, d_ready, d_err;
    wire [NCOP-1:0] idle1;  // the cores' idle outputs (this test top has no busy)
    wire            idle2;
    wire [6:0]  u_op [0:NCOP-1];
    wire [3:0]  u_ppn [0:NCOP-1];
    wire [7:0]  u_pid [0:NCOP-1];
    wire [11:0] u_addr [0:NCOP-1];
    wire [63:0] u_data [0:NCOP-1];
    wire [3:0]  u_len [0:NCOP-1];
    wire [7:0]  d_cause [0:NCOP-1];
    wire [63:0] d_data [0:NCOP-1];
    wire [3:0]  d_len [0:NCOP-1];
    // level 1 exports -> level 2 (exact sums)
    wire [63:0] ex_d [0:NCOP-1];
    wire [5:0]  xp_ch, xp_idx;
    reg  [5:0]  xp_ch_q;
    wire [5:0]  xc1 [0:NCOP-1];  // the level 1 cores' own xp_* (DOWN = 0: 0)
    wire [5:0]  xi1 [0:NCOP-1];
    always @(posedge clk) xp_ch_q <= xp_ch;
    localparam integer NCOP_I = NCOP;
    localparam [5:0] NCOP6 = NCOP_I[5:0];
    wire [63:0] xp_data = (xp_ch_q < NCOP6) ? ex_d[xp_ch_q[NW-1:0]] : 64'd0;
    // links <-> level 2's arbiter
    wire [NCOP-1:0] m_valid, m_we, m_call;
    wire [NCOP-1:0] m_ready, m_rspv;
    wire [15:0] m_addr [0:NCOP-1];
    wire [31:0] m_wd [0:NCOP-1];
    wire [31:0] m_wdh [0:NCOP-1];
    wire [3:0]  m_len [0:NCOP-1];
    wire        b2_ready, b2_rsp_valid;
    wire [31:0] b2_rdata, b2_rdata_hi;
    wire [1:0]  b2_err;
    wire [3:0]  b2_len;

    genvar k;
    generate
        for (k = 0; k < NCOP; k = k + 1) begin : g_l1
            cop_core #(.C(C), .PPN_W(PPN_W), .PID_W(PID_W), .RA_W(RA_W), .MB(MB), .EN_FPU(EN_FPU), .UP(1),
                       .KEY(KEY)) u_core (
                .clk(clk), .rst(rst),
                .bus_req_valid(bus_req_valid && bus_req_ready && which == k), .bus_req_ready(rdy1[k]), .bus_req_we(bus_req_we),
                .bus_req_pe(sub_pe), .bus_req_addr(bus_req_addr), .bus_req_wdata(bus_req_wdata),
                .bus_req_size(bus_req_size), .bus_req_call(bus_req_call), .bus_req_wdata_hi(bus_req_wdata_hi),
                .bus_req_len(bus_req_len),
                .bus_rsp_valid(rv1[k]), .bus_rsp_rdata(rd1[k]), .bus_rsp_err(re1[k]),
                .bus_rsp_rdata_hi(rdh1[k]), .bus_rsp_len(rl1[k]),
                .up_valid(u_valid[k]), .up_ready(u_ready[k]), .up_op(u_op[k]), .up_mask(u_mask[k]),
                .up_us(u_us[k]), .up_ppn(u_ppn[k]), .up_pid(u_pid[k]), .up_addr(u_addr[k]), .up_data(u_data[k]),
                .up_len(u_len[k]),
                .dn_valid(d_valid[k]), .dn_ready(d_ready[k]), .dn_err(d_err[k]), .dn_cause(d_cause[k]),
                .dn_data(d_data[k]), .dn_len(d_len[k]), .up_wd(u_wd[k]), .ex_idx(xp_idx), .ex_data(ex_d[k]),
                .xp_ch(xc1[k]), .xp_idx(xi1[k]), .xp_data(64'd0), .idle(idle1[k]));
            cop_up #(.KEY2(KEY)) u_up (
                .clk(clk), .rst(rst),
                .up_valid(u_valid[k]), .up_ready(u_ready[k]), .up_op(u_op[k]), .up_mask(u_mask[k]),
                .up_us(u_us[k]), .up_ppn(u_ppn[k]), .up_pid(u_pid[k]), .up_addr(u_addr[k]), .up_data(u_data[k]),
                .up_len(u_len[k]), .up_wd(u_wd[k]),
                .dn_valid(d_valid[k]), .dn_ready(d_ready[k]), .dn_err(d_err[k]), .dn_cause(d_cause[k]),
                .dn_data(d_data[k]), .dn_len(d_len[k]),
                .m_valid(m_valid[k]), .m_ready(m_ready[k]), .m_we(m_we[k]), .m_call(m_call[k]),
                .m_addr(m_addr[k]), .m_wdata(m_wd[k]), .m_wdata_hi(m_wdh[k]), .m_len(m_len[k]),
                .m_rsp_valid(m_rspv[k]), .m_rsp_rdata(b2_rdata), .m_rsp_rdata_hi(b2_rdata_hi),
                .m_rsp_err(b2_err), .m_rsp_len(b2_len));
        end
    endgenerate

    // the PE bus's answer: the cores' ORed, or NO_REG for a PE beyond them
    reg         nr_q;
    reg         o_valid;
    reg  [31:0] o_rd, o_rdh;
    reg  [1:0]  o_err;
    reg  [3:0]  o_len;
    integer i;
    always @* begin
        o_valid = nr_q; o_rd = 32'd0; o_rdh = 32'd0; o_err = nr_q ? LINK_BUS_NO_REG : LINK_BUS_OK; o_len = 4'd0;
        for (i = 0; i < NCOP; i = i + 1) begin
            o_valid = o_valid | rv1[i]; o_rd = o_rd | rd1[i]; o_rdh = o_rdh | rdh1[i]; o_err = o_err | re1[i];
            o_len = o_len | rl1[i];
        end
    end
    reg         nr_s;   // a request for a PE beyond the cores, staged as a core would
    always @(posedge clk) begin
        nr_s <= !rst && bus_req_valid && bus_req_ready && !pe_in;
        nr_q <= !rst && nr_s;
    end
    assign bus_req_ready = &rdy1 && !nr_s;
    assign bus_rsp_valid = o_valid;
    assign bus_rsp_rdata = o_rd;
    assign bus_rsp_rdata_hi = o_rdh;
    assign bus_rsp_err = o_err;
    assign bus_rsp_len = o_len;

    // ---- level 2's arbiter: round robin, one request whenever level 2 is ready ----
    wire [NW-1:0] gnt;
    wire          b2_take;
    cop_arb #(.N(NCOP)) u_arb (
        .clk(clk), .rst(rst), .req(m_valid), .ready(b2_ready), .rsp_valid(b2_rsp_valid),
        .grant(m_ready), .take(b2_take), .sel(gnt), .rsp(m_rspv));
    wire [5:0] gnt_pe = {{(6-NW){1'b0}}, gnt};
    // the level 2 core has no level above (UP = 0): its up port is idle
    wire        l2_uv, l2_um, l2_uus, l2_dr;
    wire [6:0]  l2_uop;
    wire [3:0]  l2_uppn, l2_ulen;
    wire [7:0]  l2_upid;
    wire [11:0] l2_uaddr;
    wire [63:0] l2_udata;

    cop_core #(.C(NCOP), .PPN_W(PPN_W), .PID_W(PID_W), .RA_W(RA_W), .MB(MB), .EN_FPU(EN_FPU), .UP(0),
               .DOWN(1), .KEY(KEY)) u_l2 (
        .clk(clk), .rst(rst),
        .bus_req_valid(b2_take), .bus_req_ready(b2_ready), .bus_req_we(m_we[gnt]), .bus_req_pe(gnt_pe),
        .bus_req_addr(m_addr[gnt]), .bus_req_wdata(m_wd[gnt]), .bus_req_size(3'd4), .bus_req_call(m_call[gnt]),
        .bus_req_wdata_hi(m_wdh[gnt]), .bus_req_len(m_len[gnt]),
        .bus_rsp_valid(b2_rsp_valid), .bus_rsp_rdata(b2_rdata), .bus_rsp_err(b2_err),
        .bus_rsp_rdata_hi(b2_rdata_hi), .bus_rsp_len(b2_len),
        .up_valid(l2_uv), .up_ready(1'b0), .up_op(l2_uop), .up_mask(l2_um), .up_us(l2_uus), .up_ppn(l2_uppn),
        .up_pid(l2_upid), .up_addr(l2_uaddr), .up_data(l2_udata), .up_len(l2_ulen),
        .dn_valid(1'b0), .dn_ready(l2_dr), .dn_err(1'b0), .dn_cause(8'd0), .dn_data(64'd0), .dn_len(4'd0),
        .up_wd(l2_uwd), .ex_idx(6'd0), .ex_data(l2_ex), .xp_ch(xp_ch), .xp_idx(xp_idx), .xp_data(xp_data), .idle(idle2));
    wire [63:0] l2_ex;
    wire        l2_uwd;

    wire unused_ok = &{1'b0, idle1, idle2, bus_req_size, which[5:3], l2_uv, l2_uop, l2_um, l2_uus, l2_uppn, l2_upid, l2_uaddr,
                       l2_udata, l2_ulen, l2_dr, l2_ex, l2_uwd, xp_ch_q[5:NW]};
    genvar u;
    for (u = 0; u < NCOP; u = u + 1) begin : g_unused
        wire unused_x = &{1'b0, xc1[u], xi1[u]};
    end
endmodule
`default_nettype wire
