// cop_up_props: formal harness for the up / down handshake of
// rtl/cop/cop_core.v built as a level 1 COP (UP = 1; docs/cop.md "Two
// levels"), at C = 2 with the smallest tables and no FPU.  Every bus
// request field and the level 2 side (up_ready, dn_*) are free every cycle;
// the assumptions are reset in the first cycle and the level 2 side's
// contract: an answer (dn_valid) only while an entry is at level 2 (taken
// by up_ready, not yet answered), held with its fields until dn_ready.
//   (h1) an offered entry (up_valid) stays offered with every field
//        unchanged until up_ready takes it;
//   (h2) one entry at a time: up_valid is low while an entry is at level 2;
//   (h3) dn_ready only while an entry is at level 2.
// The core's own view of "at level 2" (u_on) equals the harness's, and
// while it is set the controller never leads an X command (the invariants
// that make h2 inductive: the snapshot, the leader and the latched step
// hold no X).
// Negative control (must FAIL): SELFTEST_UPNEVER claims up_valid never
// rises, which a user X command refutes (its entry is offered within 10
// cycles of reset), so the assumptions do let entries go up.
`include "bus_ports.vh"
module cop_up_props #(
    parameter integer C = 2
) (
    input wire        clk,
    input wire        rst,
    `AGGNET_BUS_REQ_FREE,
    `AGGNET_BUS_CALL_REQ_FREE,
    input wire        up_ready,
    input wire        dn_valid,
    input wire        dn_err,
    input wire [7:0]  dn_cause,
    input wire [63:0] dn_data,
    input wire [3:0]  dn_len
);
    wire        bus_req_ready, bus_rsp_valid;
    wire [31:0] bus_rsp_rdata, bus_rsp_rdata_hi;
    wire [1:0]  bus_rsp_err;
    wire [3:0]  bus_rsp_len;
    wire        up_valid, up_mask, up_us, dn_ready;
    wire [6:0]  up_op;
    wire [3:0]  up_ppn, up_len;
    wire [7:0]  up_pid;
    wire [11:0] up_addr;
    wire [63:0] up_data;
    wire [C-1:0] f_rx_x, f_snap, f_rx_v, f_rx_srv;
    wire [3:0]  f_st;
    wire        f_lead_x, f_l_x, f_u_on;

    cop_core #(.C(C), .PPN_W(1), .PID_W(1), .RA_W(1), .MB(1), .EN_FPU(0), .UP(1)) dut (
        .clk(clk), .rst(rst),
        `AGGNET_BUS_BIND,
        `AGGNET_BUS_CALL_BIND,
        .up_valid(up_valid), .up_ready(up_ready), .up_op(up_op), .up_mask(up_mask), .up_us(up_us),
        .up_ppn(up_ppn), .up_pid(up_pid), .up_addr(up_addr), .up_data(up_data), .up_len(up_len),
        .dn_valid(dn_valid), .dn_ready(dn_ready), .dn_err(dn_err), .dn_cause(dn_cause), .dn_data(dn_data),
        .dn_len(dn_len), .up_wd(), .ex_idx(6'd0), .ex_data(), .xp_ch(), .xp_idx(), .xp_data(64'd0), .idle(),
        .f_rx_v(f_rx_v), .f_rx_srv(f_rx_srv), .f_st(f_st),
        .f_rx_x(f_rx_x), .f_snap(f_snap), .f_lead_x(f_lead_x), .f_l_x(f_l_x), .f_u_on(f_u_on)
    );

`ifdef FORMAL
    localparam [3:0] S_IDLE = 4'd0, S_PICK = 4'd1, S_LEAD = 4'd2, S_UP = 4'd10;
    reg         init = 1'b1, p_rst = 1'b1;
    reg         fl = 1'b0;          // an entry is at level 2 (taken, not yet answered)
    reg         p_upv = 1'b0, p_upr = 1'b0, p_dnv = 1'b0, p_dnr = 1'b0;
    reg [6:0]   p_op;
    reg         p_mask, p_us;
    reg [3:0]   p_ppn, p_len;
    reg [7:0]   p_pid;
    reg [11:0]  p_addr;
    reg [63:0]  p_data;
    reg         p_derr;
    reg [7:0]   p_dcause;
    reg [63:0]  p_ddata;
    reg [3:0]   p_dlen;
    always @(posedge clk) begin
        init <= 1'b0;
        p_rst <= rst;
        if (rst) fl <= 1'b0;
        else if (up_valid && up_ready) fl <= 1'b1;
        else if (dn_valid && dn_ready) fl <= 1'b0;
        p_upv <= up_valid; p_upr <= up_ready; p_dnv <= dn_valid; p_dnr <= dn_ready;
        p_op <= up_op; p_mask <= up_mask; p_us <= up_us; p_ppn <= up_ppn; p_pid <= up_pid; p_addr <= up_addr;
        p_data <= up_data; p_len <= up_len;
        p_derr <= dn_err; p_dcause <= dn_cause; p_ddata <= dn_data; p_dlen <= dn_len;
    end
    always @* begin
        if (init) assume(rst);
        // level 2's contract
        if (!fl) assume(!dn_valid);
        if (!init && !p_rst && p_dnv && !p_dnr && !rst)
            assume(dn_valid && dn_err == p_derr && dn_cause == p_dcause && dn_data == p_ddata && dn_len == p_dlen);
        if (!init && !rst) begin
            // (h1) an offered entry holds until taken
            if (!p_rst && p_upv && !p_upr)
                assert(up_valid && up_op == p_op && up_mask == p_mask && up_us == p_us && up_ppn == p_ppn &&
                       up_pid == p_pid && up_addr == p_addr && up_data == p_data && up_len == p_len);
            // (h2) one entry at a time
            assert(!(up_valid && fl));
            // (h3) an answer is taken only for an entry at level 2
            assert(!dn_ready || fl);
`ifdef SELFTEST_UPNEVER
            assert(!up_valid);  // negative control: an X command does reach the up port
`endif
            // the core's view, and no X command led while an entry is up
            assert(f_u_on == fl);
            if (f_u_on) begin
                assert(f_st != S_UP);
                if (f_st == S_PICK) assert((f_snap & f_rx_x) == {C{1'b0}});
                if (f_st == S_LEAD) assert(!f_lead_x);
                if (f_st != S_IDLE && f_st != S_PICK && f_st != S_LEAD) assert(!f_l_x);
            end
        end
    end
    wire f_unused = &{1'b0, bus_req_ready, bus_rsp_valid, bus_rsp_rdata, bus_rsp_rdata_hi, bus_rsp_err, bus_rsp_len,
                      f_rx_v, f_rx_srv};
`endif
endmodule
