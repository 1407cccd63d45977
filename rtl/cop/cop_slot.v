`default_nettype none
// cop_slot: Hall's coordination processor (seed 004, chapter IV) as engine
// 4 of the one hub top, rtl/hub/aggnet_hub.v: one cop_core with C = N
// channels, link PE p = channel p.  The hub instantiates it from
// rtl/cop/manifest.json's "slot" entry (tools/hubgen.py writes the
// instance); nothing else names it.
//
// Bus (slave side of rtl/link/link_port.v's engine bus, docs/link.md): the
// hub raises bus_req_valid only for window 4, plain and CALL accesses
// alike ("call": true); every port goes straight to cop_core, which answers
// in the cycle after it takes a request (its header; docs/cop_regmap.md for
// the registers and the CALL addresses 0x800 | opcode << 4 | MASK << 3 |
// X << 2).
//
// busy (the manifest's "busy": the virtual hub keeps its clock running
// while it is high): the core's controller serves the commands waiting in
// its receive buffers by itself, one service step after another; a step
// takes 5 cycles (IDLE to EXEC) and then at most R more for the round it
// completes, R = max(C, 6 C - 3, C + 46) (a prefix sum; SUMF's chain of
// adds and its placing; EXSUMF's terms, ROUND and placing; a reduction's
// tree is shorter), and serves at least one waiting command.
// Every command comes with a bus write, its CALL start, and so does every
// release of commands held back (HOLD cleared, a lock broken or unlocked).
// So the slot keeps credit: each CALL start adds one step (5 + R cycles,
// plus 2 for the request and its response), each HOLD or LOCK register
// write and each UNLOCK start C steps (every channel's command may have
// waited); busy is high while credit is left, one cycle used per cycle.
// The work the controller has left never exceeds the credit.  This is a
// bound, not the controller's own state: the core has no idle output yet
// (docs/cop.md).  Reads never move the core on (an ask hands over a reply,
// a RECV ask a mailbox entry; neither readies a command).
//
// Departures from the seed: none here (cop_core lists the COP's).
// Parameters: N in 2..64 (cop_core's C); KEY the MODE value that makes a
// channel supervisor (the hub's COP_KEY, docs/cop.md).
`include "bus_ports.vh"
module cop_slot #(
    parameter integer N   = 4,
    parameter [31:0]  KEY = 32'h434F_5053
) (
    input  wire clk,
    input  wire rst,
    `AGGNET_BUS_SLAVE,       // the engine bus (rtl/bus/bus_ports.vh)
    `AGGNET_BUS_CALL_SLAVE,  // and its CALL ports: the slot has "call": true
    output wire busy
);
    generate
        if (N < 2 || N > 64) begin : g_bad_n
            $error("cop_slot: N must be in 2..64");
        end
    endgenerate

    cop_core #(.C(N), .KEY(KEY)) u_core (
        .clk(clk), .rst(rst),
        .bus_req_valid(bus_req_valid), .bus_req_ready(bus_req_ready), .bus_req_we(bus_req_we),
        .bus_req_pe(bus_req_pe), .bus_req_addr(bus_req_addr), .bus_req_wdata(bus_req_wdata),
        .bus_req_size(bus_req_size), .bus_req_call(bus_req_call), .bus_req_wdata_hi(bus_req_wdata_hi),
        .bus_req_len(bus_req_len),
        .bus_rsp_valid(bus_rsp_valid), .bus_rsp_rdata(bus_rsp_rdata), .bus_rsp_err(bus_rsp_err),
        .bus_rsp_rdata_hi(bus_rsp_rdata_hi), .bus_rsp_len(bus_rsp_len),
        // one COP in the hub: no level 2 above it (UP = 0: X is refused NOUP)
        .up_valid(up_valid), .up_ready(1'b0), .up_op(up_op), .up_mask(up_mask), .up_us(up_us), .up_ppn(up_ppn),
        .up_pid(up_pid), .up_addr(up_addr), .up_data(up_data), .up_len(up_len),
        .dn_valid(1'b0), .dn_ready(dn_ready), .dn_err(1'b0), .dn_cause(8'd0), .dn_data(64'd0), .dn_len(4'd0));
    wire        up_valid, up_mask, up_us, dn_ready;
    wire [6:0]  up_op;
    wire [3:0]  up_ppn, up_len;
    wire [7:0]  up_pid;
    wire [11:0] up_addr;
    wire [63:0] up_data;
    wire unused_up = &{1'b0, up_valid, up_op, up_mask, up_us, up_ppn, up_pid, up_addr, up_data, up_len, dn_ready};

    // busy: the service credit (above)
`include "cop_regs.vh"
    localparam integer RSUM = (6 * N - 3 > N + 46) ? 6 * N - 3 : N + 46;  // SUMF's or EXSUMF's round
    localparam integer RND  = (RSUM > N) ? RSUM : N;
    localparam integer STEP = 5 + RND + 2;
    localparam integer ALL  = N * (5 + RND) + 2;
    wire        take   = bus_req_valid && bus_req_ready && bus_req_we;
    wire        start  = take && bus_req_call && bus_req_addr[11:0] >= R_CALL_BASE;
    wire        unlock = start && bus_req_addr[10:4] == OP_UNLOCK;
    wire        relreg = take && !bus_req_call && (bus_req_addr[11:0] == R_HOLD || bus_req_addr[11:0] == R_LOCK);
    wire [16:0] add    = (unlock || relreg) ? ALL[16:0] : start ? STEP[16:0] : 17'd0;
    reg  [15:0] credit;
    wire [16:0] left   = {1'b0, credit} - {16'd0, credit != 16'd0};
    wire [16:0] sum    = left + add;
    always @(posedge clk) begin
        if (rst) credit <= 16'd0;
        else     credit <= sum[16] ? 16'hFFFF : sum[15:0];
    end
    assign busy = credit != 16'd0;
endmodule
`default_nettype wire
