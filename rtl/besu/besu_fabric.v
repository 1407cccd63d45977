`default_nettype none
// besu_fabric: X*Y*Z besu_node's in a 3-D mesh (seed 001, figures 3 and 4),
// node i = x + X*(y + Y*z) at (x, y, z), its six links to its neighbours
// (none past the mesh's edges), and every node's register port, one access
// at a time (acc_sel picks the node; besu_engine decodes the request once
// for every node, acc_dec).  Partitions are whatever trees the
// nodes' BAR_CFG registers describe; different BESUs carry different
// partitions with different roots at the same time.
//
// Link d of node i (d = 0..5: +X, -X, +Y, -Y, +Z, -Z) is node i's link_out
// lanes d into the neighbour's link_in lanes opposite(d), and back.  A node's
// FAULT bit d cuts that link both ways (both directions read 00): a broken
// cable, injected to test the diagnostic.
module besu_fabric #(
    parameter integer NB = 32,
    parameter integer X = 2,
    parameter integer Y = 2,
    parameter integer Z = 2,
    parameter integer NODES = X * Y * Z
) (
    input  wire             clk,
    input  wire             rst,
    input  wire [NODES-1:0] acc_sel,    // the node accessed, one-hot (none: no access)
    input  wire             acc_we,
    input  wire [11:0]      acc_reg,
    input  wire [31:0]      acc_wdata,
    input  wire [NB+25:0]   acc_dec,    // the request predecoded (besu_decode)
    input  wire [NODES-1:0] acc_cfg_ok, // per node: the BAR_CFG word suits it (besu_cfg_ok)
    output wire [31:0]      acc_rdata,
    output wire [1:0]       acc_err,
    output wire [NODES-1:0] irq
`ifdef FORMAL
    ,
    output wire [NODES*NB*3-1:0] f_state,
    output wire [NODES*NB*7-1:0] f_joined,
    output wire [NODES*NB*11-1:0] f_cfg,
    output wire [NODES*NB*2-1:0] f_pe_op,
    output wire [NODES*6*NB*2-1:0] f_link
`endif
);
    generate
        if (X < 1 || Y < 1 || Z < 1 || X > 15 || Y > 15 || Z > 15 || NODES > 64 || NODES != X * Y * Z) begin : g_bad
            $error("besu_fabric: X, Y, Z must be in 1..15 with X*Y*Z <= 64");
        end
    endgenerate
    localparam integer LW = 6 * NB * 2;   // one node's lanes, all six links
    localparam integer DW = NB * 2;       // one link's lanes

    // the lanes a node drives toward the mesh's edge go nowhere
    /* verilator lint_off UNUSEDSIGNAL */
    wire [NODES*LW-1:0] lout;
    /* verilator lint_on UNUSEDSIGNAL */
    wire [NODES*LW-1:0] lin;
    wire [NODES*6-1:0]  fault;
    wire [NODES*32-1:0] rdata;
    wire [NODES*2-1:0]  err;

    // the neighbour of node i on direction d, or -1 past the edge
    function integer nbr(input integer i, input integer d);
        integer x, y, z;
        begin
            x = i % X;
            y = (i / X) % Y;
            z = i / (X * Y);
            case (d)
                0: x = x + 1;
                1: x = x - 1;
                2: y = y + 1;
                3: y = y - 1;
                4: z = z + 1;
                default: z = z - 1;
            endcase
            if (x < 0 || x >= X || y < 0 || y >= Y || z < 0 || z >= Z) nbr = -1;
            else nbr = x + X * (y + Y * z);
        end
    endfunction

    genvar gi, gd;
    generate
        for (gi = 0; gi < NODES; gi = gi + 1) begin : g_node
            for (gd = 0; gd < 6; gd = gd + 1) begin : g_link
                localparam integer J = nbr(gi, gd);
                localparam integer OD = gd ^ 1;  // opposite direction
                if (J < 0) begin : g_edge
                    assign lin[gi*LW + gd*DW +: DW] = {DW{1'b0}};
                end else begin : g_wire
                    wire cut = fault[gi*6 + gd] || fault[J*6 + OD];
                    assign lin[gi*LW + gd*DW +: DW] = cut ? {DW{1'b0}} : lout[J*LW + OD*DW +: DW];
                end
            end
            besu_node #(.NB(NB), .X(X), .Y(Y), .Z(Z), .NODE(gi)) u_node (
                .clk(clk), .rst(rst),
                .acc_valid(acc_sel[gi]), .acc_we(acc_we), .acc_reg(acc_reg),
                .acc_wdata(acc_wdata), .acc_dec(acc_dec), .acc_cfg_ok(acc_cfg_ok[gi]), .acc_rdata(rdata[gi*32 +: 32]), .acc_err(err[gi*2 +: 2]),
                .link_in(lin[gi*LW +: LW]), .link_out(lout[gi*LW +: LW]),
                .fault(fault[gi*6 +: 6]), .irq(irq[gi])
`ifdef FORMAL
                , .f_state(f_state[gi*NB*3 +: NB*3]), .f_joined(f_joined[gi*NB*7 +: NB*7]),
                .f_cfg(f_cfg[gi*NB*11 +: NB*11]), .f_pe_op(f_pe_op[gi*NB*2 +: NB*2]), .f_acc_ok()
`endif
            );
        end
    endgenerate
`ifdef FORMAL
    assign f_link = lin;
`endif

    // responses: only the addressed node answers (the others give 0)
    reg [31:0] rd;
    reg [1:0]  er;
    integer k;
    always @* begin
        rd = 32'd0;
        er = 2'd0;
        for (k = 0; k < NODES; k = k + 1) begin
            rd = rd | rdata[k*32 +: 32];
            er = er | err[k*2 +: 2];
        end
    end
    assign acc_rdata = rd;
    assign acc_err = er;
endmodule
`default_nettype wire
