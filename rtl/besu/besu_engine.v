`default_nettype none
// besu_engine: the barrier/eureka fabric of seed 001 as an engine of the one
// hub top, rtl/hub/aggnet_hub.v, in bus window 3 (docs/besu.md).  A mesh of
// X*Y*Z nodes (rtl/besu/besu_fabric.v), each with NB BESUs
// (rtl/besu/besu_node.v); link PE p is node p's processing element: its
// accesses reach node p's registers (the table in besu_node.v), a PE beyond
// the mesh or beyond N has no registers (NO_REG).
//
// The link carries no privilege: a PE is in supervisor mode after it wrote
// KEY to its node's MODE register, until it writes 0 (docs/besu.md: a guard
// against a user program that loads BAR_CFG by mistake, not a security
// boundary; set BESU_KEY per site).  Waiting: a PE arms and waits for a
// barrier or a eureka with one link CALL to BAR_CALL[n] (below), or waits
// for BAR_CTL[n] or its IR_STATUS bit (the interrupt method) with one link
// WAIT; the hub asks or re-reads, the host does not poll.
//
// Bus: always ready; stage 1 registers the request with its decode
// (besu_decode), stage 2 makes the access in the node, which registers its
// response, stage 3 registers the response on the bus: three cycles, one
// access per cycle (docs/besu.md, "Timing").
//
// CALL (docs/link.md rule 8; the slot has "call": true): a PE's barrier or
// eureka wait is one link CALL to BAR_CALL[n] and CANCEL withdraws it
// (docs/besu_regmap.md, "CALL registers").  The CALL record lives in the
// PE's node (besu_node, one pending BAR_CALL per PE); this module passes
// bus_req_call and bus_req_len into the decode (operands: 1 byte for
// BAR_CALL, none for CANCEL, so bus_req_wdata_hi is never needed) and gives
// a finished CALL's result (bus_rsp_err 0 to a CALL access) 1 byte, the
// node's rdata; bus_rsp_rdata_hi is 0.  An answer of 3 to a CALL access is
// PENDING, and link_port asks again later.
`include "bus_ports.vh"
module besu_engine #(
    parameter integer N = 8,
    parameter integer NB = 32,
    parameter integer X = 2,
    parameter integer Y = 2,
    parameter integer Z = 2,
    parameter [31:0]  KEY = 32'h5345_5550
) (
    input  wire        clk,
    input  wire        rst,
    `AGGNET_BUS_SLAVE,      // the engine bus (rtl/bus/bus_ports.vh)
    `AGGNET_BUS_CALL_SLAVE  // and its CALL ports: the slot has "call": true
);
`include "bus_codes.vh"
    localparam integer NODES = X * Y * Z;

    assign bus_req_ready = 1'b1;
    // stage 1: the request, with what every node would decode from it (the
    // register, the BESU one-hot, the BAR_CFG and MODE words' checks) and
    // the node it is for, one-hot: the nodes' access paths start at these
    // flip-flops (docs/besu.md, "Timing")
    wire [NB+25:0] dec;
    besu_decode #(.NB(NB), .KEY(KEY)) u_decode (.acc_reg(bus_req_addr[11:0]), .acc_wdata(bus_req_wdata),
                                                 .acc_call(bus_req_call), .acc_len(bus_req_len), .dec(dec));
    reg              q_valid, q_we, q_ok, q_call;
    reg [NODES-1:0]  q_sel;
    reg [11:0]       q_reg;
    reg [31:0]       q_wdata;
    reg [NB+25:0]    q_dec;
    reg [NODES-1:0]  q_cfg_ok;
`include "besu_dec.vh"
    integer i;
    always @(posedge clk) begin
        q_valid <= bus_req_valid && !rst;
        q_we    <= bus_req_we;
        q_call  <= bus_req_call;
        q_ok    <= {26'd0, bus_req_pe} < NODES && {26'd0, bus_req_pe} < N;
        for (i = 0; i < NODES; i = i + 1) q_sel[i] <= bus_req_valid && !rst && i < N && {26'd0, bus_req_pe} == i;
        q_reg   <= bus_req_addr[11:0];
        q_wdata <= bus_req_wdata;
        q_dec   <= dec;
        for (i = 0; i < NODES; i = i + 1) q_cfg_ok[i] <= besu_cfg_ok(dec, besu_has(i, X, Y, Z));
    end

    wire [31:0] rdata;
    wire [1:0]  err;
    wire [NODES-1:0] irq;
    besu_fabric #(.NB(NB), .X(X), .Y(Y), .Z(Z)) u_fabric (
        .clk(clk), .rst(rst),
        .acc_sel(q_sel), .acc_we(q_we), .acc_reg(q_reg), .acc_wdata(q_wdata), .acc_dec(q_dec), .acc_cfg_ok(q_cfg_ok),
        .acc_rdata(rdata), .acc_err(err), .irq(irq));

    // stage 2: the nodes make the access; their responses are registered
    // (besu_node), so stage 3 forwards them: three cycles in all
    reg r_valid, r_ok, r_call;
    always @(posedge clk) begin
        r_valid <= q_valid && !rst;
        r_ok    <= q_ok;
        r_call  <= q_call;
    end

    // stage 3: the response registers (rdata and err 0 while no response)
    reg        rsp_valid;
    reg [31:0] rsp_rdata;
    reg [1:0]  rsp_err;
    reg [3:0]  rsp_len;
    always @(posedge clk) begin
        if (rst) begin
            rsp_valid <= 1'b0;
            rsp_rdata <= 32'd0;
            rsp_err   <= 2'd0;
            rsp_len   <= 4'd0;
        end else begin
            rsp_valid <= r_valid;
            rsp_rdata <= (r_valid && r_ok) ? rdata : 32'd0;
            rsp_err   <= !r_valid ? 2'd0 : r_ok ? err : LINK_BUS_NO_REG;
            // a finished CALL (answered OK): its result is the state byte
            rsp_len   <= (r_valid && r_ok && r_call && err == LINK_BUS_OK) ? 4'd1 : 4'd0;
        end
    end
    assign bus_rsp_valid    = rsp_valid;
    assign bus_rsp_rdata    = rsp_rdata;
    assign bus_rsp_err      = rsp_err;
    assign bus_rsp_len      = rsp_len;
    assign bus_rsp_rdata_hi = 32'd0;

    // The window is decoded by the hub; sizes are the register's own.  The
    // nodes' interrupt outputs are IR_STATUS != 0, which a PE waits on.
    wire unused_ok = &{1'b0, bus_req_addr[15:12], bus_req_size, bus_req_wdata_hi, irq};
endmodule
`default_nettype wire
