`default_nettype none
// cop_slot: Hall's coordination processor (seed 004, chapter IV) as engine
// 4 of the one hub top, rtl/hub/aggnet_hub.v: one cop_core with C = N
// channels, link PE p = channel p.  The hub instantiates it from
// rtl/cop/manifest.json's "slot" entry (tools/hubgen.py writes the
// instance); nothing else names it.
//
// Bus (slave side of rtl/link/link_port.v's engine bus, docs/link.md): the
// hub raises bus_req_valid only for window 4, plain and CALL accesses
// alike ("call": true).  A request is taken into a register here (q_*,
// when it is empty) and offered to cop_core from it in the next cycle: the
// hub's bus comes from the link port, which a board top places far from
// the COP, and the core's request stage reads the PE's own registers in
// the cycle it is offered (timing: the link port's request through that
// stage was the ULX3S top's critical path, docs/cop.md).  So a COP access
// is answered a clock later than the core alone answers it (its header;
// docs/cop_regmap.md for the registers and the CALL addresses 0x800 |
// opcode << 4 | MASK << 3 | X << 2); the responses pass straight through.
//
// busy (the manifest's "busy": the virtual hub keeps its clock running
// while it is high) is a request held here, or !idle of the core: the
// controller has a step under way or a command ready to serve (cop_core's
// header; make formal proves that nothing in the core changes while it is
// idle and no request comes, cop_core_props p6).  Until issue 23's idle output it was a credit of
// cycles per CALL start (a bound of the longest round, kept clocking long
// after most rounds had ended).
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

    // the request register: taken when empty, offered to the core until it takes it
    reg         q_v, q_we, q_call;
    reg  [5:0]  q_pe;
    reg  [15:0] q_addr;
    reg  [31:0] q_wdata, q_wdata_hi;
    reg  [2:0]  q_size;
    reg  [3:0]  q_len;
    wire        c_ready;   // the core takes q_* (q_v && c_ready)
    assign bus_req_ready = !rst && !q_v;
    always @(posedge clk) begin
        if (rst) q_v <= 1'b0;
        else if (bus_req_valid && bus_req_ready) q_v <= 1'b1;
        else if (c_ready) q_v <= 1'b0;
        if (bus_req_valid && bus_req_ready) begin
            q_we <= bus_req_we; q_call <= bus_req_call; q_pe <= bus_req_pe; q_addr <= bus_req_addr;
            q_wdata <= bus_req_wdata; q_wdata_hi <= bus_req_wdata_hi; q_size <= bus_req_size;
            q_len <= bus_req_len;
        end
    end

    wire idle;  // the core's: nothing changes until the next request
    cop_core #(.C(N), .KEY(KEY)) u_core (
        .clk(clk), .rst(rst),
        .bus_req_valid(q_v), .bus_req_ready(c_ready), .bus_req_we(q_we),
        .bus_req_pe(q_pe), .bus_req_addr(q_addr), .bus_req_wdata(q_wdata),
        .bus_req_size(q_size), .bus_req_call(q_call), .bus_req_wdata_hi(q_wdata_hi),
        .bus_req_len(q_len),
        .bus_rsp_valid(bus_rsp_valid), .bus_rsp_rdata(bus_rsp_rdata), .bus_rsp_err(bus_rsp_err),
        .bus_rsp_rdata_hi(bus_rsp_rdata_hi), .bus_rsp_len(bus_rsp_len),
        // one COP in the hub: no level 2 above it (UP = 0: X is refused NOUP)
        .up_valid(up_valid), .up_ready(1'b0), .up_op(up_op), .up_mask(up_mask), .up_us(up_us), .up_ppn(up_ppn),
        .up_pid(up_pid), .up_addr(up_addr), .up_data(up_data), .up_len(up_len),
        .dn_valid(1'b0), .dn_ready(dn_ready), .dn_err(1'b0), .dn_cause(8'd0), .dn_data(64'd0), .dn_len(4'd0),
        // and no level 1 below it (DOWN = 0: EXMRG is refused NODOWN)
        .up_wd(up_wd), .ex_idx(6'd0), .ex_data(ex_data), .xp_ch(xp_ch), .xp_idx(xp_idx), .xp_data(64'd0),
        .idle(idle));
    wire        up_valid, up_mask, up_us, dn_ready, up_wd;
    wire [6:0]  up_op;
    wire [3:0]  up_ppn, up_len;
    wire [7:0]  up_pid;
    wire [11:0] up_addr;
    wire [63:0] up_data;
    wire [63:0] ex_data;
    wire [5:0]  xp_ch, xp_idx;
    wire unused_up = &{1'b0, up_valid, up_op, up_mask, up_us, up_ppn, up_pid, up_addr, up_data, up_len, dn_ready,
                       ex_data, xp_ch, xp_idx, up_wd};

    // busy: a request waits here, or the core has work of its own (above)
    assign busy = q_v || !idle;
endmodule
`default_nettype wire
