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
// boundary; set BESU_KEY per site).  Waiting: a PE waits for BAR_CTL[n] to
// reach a state, or for its IR_STATUS bit (the interrupt method), with one
// link WAIT; the hub re-reads the register, the host does not poll.
//
// Bus: always ready; stage 1 registers the request, stage 2 makes the
// access and registers the response (two cycles, as nand_engine).
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
    input  wire        bus_req_valid,
    output wire        bus_req_ready,
    input  wire        bus_req_we,
    input  wire [5:0]  bus_req_pe,
    input  wire [15:0] bus_req_addr,
    input  wire [31:0] bus_req_wdata,
    input  wire [2:0]  bus_req_size,
    output reg         bus_rsp_valid,
    output reg  [31:0] bus_rsp_rdata,
    output reg  [1:0]  bus_rsp_err
);
    localparam integer NODES = X * Y * Z;
    localparam [1:0] ERR_NO_REG = 2'd1;

    assign bus_req_ready = 1'b1;
    reg        q_valid, q_we, q_ok;
    reg [5:0]  q_pe;
    reg [11:0] q_reg;
    reg [31:0] q_wdata;
    always @(posedge clk) begin
        q_valid <= bus_req_valid && !rst;
        q_we    <= bus_req_we;
        q_ok    <= {26'd0, bus_req_pe} < NODES && {26'd0, bus_req_pe} < N;
        q_pe    <= bus_req_pe;
        q_reg   <= bus_req_addr[11:0];
        q_wdata <= bus_req_wdata;
    end

    wire [31:0] rdata;
    wire [1:0]  err;
    wire [NODES-1:0] irq;
    besu_fabric #(.NB(NB), .X(X), .Y(Y), .Z(Z), .KEY(KEY)) u_fabric (
        .clk(clk), .rst(rst),
        .acc_valid(q_valid && q_ok), .acc_node(q_pe), .acc_we(q_we), .acc_reg(q_reg),
        .acc_wdata(q_wdata), .acc_rdata(rdata), .acc_err(err), .irq(irq));

    always @(posedge clk) begin
        if (rst) begin
            bus_rsp_valid <= 1'b0;
            bus_rsp_rdata <= 32'd0;
            bus_rsp_err   <= 2'd0;
        end else begin
            bus_rsp_valid <= q_valid;
            bus_rsp_rdata <= (q_valid && q_ok) ? rdata : 32'd0;
            bus_rsp_err   <= !q_valid ? 2'd0 : q_ok ? err : ERR_NO_REG;
        end
    end

    // The window is decoded by the hub; sizes are the register's own.  The
    // nodes' interrupt outputs are IR_STATUS != 0, which a PE waits on.
    wire unused_ok = &{1'b0, bus_req_addr[15:12], bus_req_size, irq};
endmodule
`default_nettype wire
