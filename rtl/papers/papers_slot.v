`default_nettype none
// papers_slot: the PAPERS unit (seed 000) as an engine of the one hub top,
// rtl/hub/aggnet_hub.v: its register window on the engine bus (papers_bus)
// and its per-PE parallel-port pins (papers_hub), wired together.  The hub
// top instantiates it from rtl/papers/manifest.json's "slot" entry
// (tools/hubgen.py writes the instance); nothing else names it.
//
// Bus (slave side of rtl/link/link_port.v's engine bus, docs/link.md): the
// hub raises bus_req_valid only for addresses in window 1; bus_req_addr[11:0]
// is the register (docs/papers_regmap.md).  Always ready; one response three
// cycles after each request; rdata and err are 0 when rsp_valid is low.
// The engine takes CALLs (docs/link.md rule 8; the manifest's slot says
// "call": true): bus_req_call marks a CALL access (a write starts SYNC or
// CANCEL with bus_req_len operand bytes in bus_req_wdata, a read asks for
// the result), answered PENDING (bus_rsp_err 3) until it has finished, then
// once with the result in bus_rsp_rdata_hi:bus_rsp_rdata, bus_rsp_len bytes
// (papers_bus.v says how).  No PAPERS operation has more than 4 operand
// bytes, so bus_req_wdata_hi is not used; rdata_hi and len are 0 when
// rsp_valid is low, like rdata and err.
//
// Pins: exactly papers_hub's (pe_data, pe_ctrl, pe_stat, pe_led, pe_irq,
// pe_bad; see rtl/papers/papers_hub.v).  For a PE the link owns (OWNER = 1)
// papers_hub gets papers_bus's registers instead of the PE's pins.
// pe_gone[a] (aggnet, issue 24): PE a's link has gone silent (a link
// multiplexer's absent flag, rtl/link/link_mux.v): papers_hub then sees PE a
// exactly as an unplugged cable, every control line high (so CE, read
// active low, is 0 and the PE is absent: alone and idle whatever its data
// lines say, PRESENT clear), whether its pins or
// the link own it.  Its registers keep their values; it is present again as
// soon as pe_gone falls.  A board without such links ties it low.
//
// Link-only (PINS = 0; the hub top's PAPERS_PINS): no PE has pins, every
// one is on the link (OWNER reads 1 and cannot be cleared); the pin ports
// stay (their width is the hub top's) but pe_data and pe_ctrl are not read
// and the outputs show the link PEs as the pins would (a board top leaves
// them unconnected).  Masks reach the barrier logic without synchronizers
// (papers_hub.v, "Link-only").
//
// Departures from the seed: none here (papers_bus lists the window's).
// Parameters: N in 2..64; PINS 1 or 0; MW, W, LW derived as in papers_hub.
`include "bus_ports.vh"
module papers_slot #(
    parameter integer N  = 4,
    parameter integer PINS = 1,
    parameter integer MW = (N < 4) ? 4 : N,
    parameter integer W  = MW + 4,
    parameter integer LW = MW + 6
) (
    input  wire            clk,
    input  wire            rst,
    `AGGNET_BUS_SLAVE,       // the engine bus (rtl/bus/bus_ports.vh)
    `AGGNET_BUS_CALL_SLAVE,  // and its CALL ports: the slot has "call": true
    output wire            busy,
    input  wire [N*W-1:0]  pe_data,
    input  wire [N*5-1:0]  pe_ctrl,
    output wire [N*W-1:0]  pe_stat,
    output wire [N*LW-1:0] pe_led,
    output wire [N-1:0]    pe_irq,
    output wire [N-1:0]    pe_bad,
    input  wire [N-1:0]    pe_gone
);
    generate
        if (N < 2 || N > 64) begin : g_bad_n
            $error("papers_slot: N must be in 2..64");
        end
        if (MW != ((N < 4) ? 4 : N) || W != MW + 4 || LW != MW + 6) begin : g_bad_widths
            $error("papers_slot: MW, W and LW are derived from N; leave them at their defaults");
        end
    endgenerate

    wire [N*W-1:0] hub_data;
    wire [N*5-1:0] hub_ctrl;
    wire           rsp_valid;
    wire [31:0]    rsp_rdata, rsp_rdata_hi;
    wire [3:0]     rsp_len;
    wire [1:0]     rsp_err;
    wire [N-1:0]   present;
    wire [N-1:0]   go;
    wire [N-1:0]   sv, dv, pv;  // S, D, PROBE as the status took them (papers_hub)

    papers_bus #(.N(N), .PINS(PINS)) u_bus (
        .clk(clk), .rst(rst),
        .req_valid(bus_req_valid), .req_ready(bus_req_ready), .req_we(bus_req_we), .req_pe(bus_req_pe),
        .req_reg(bus_req_addr[11:0]), .req_wdata(bus_req_wdata), .req_call(bus_req_call), .req_len(bus_req_len),
        .rsp_valid(rsp_valid), .rsp_rdata(rsp_rdata), .rsp_rdata_hi(rsp_rdata_hi), .rsp_len(rsp_len),
        .rsp_err(rsp_err),
        .pin_data(pe_data), .pin_ctrl(pe_ctrl), .hub_data(hub_data), .hub_ctrl(hub_ctrl),
        .hub_stat(pe_stat), .hub_irq(pe_irq), .hub_bad(pe_bad), .hub_present(present),
        .hub_go(go), .hub_sv(sv), .hub_dv(dv), .hub_pv(pv), .moving(busy)
    );

    // A gone PE's control lines as an unplugged cable leaves them: all
    // high (its data lines need not follow: papers_hub reads an absent PE's
    // data as "alone and idle" whatever they are).
    wire [N*5-1:0] gone_ctrl;
    genvar a;
    generate
        for (a = 0; a < N; a = a + 1) begin : g_gone
            assign gone_ctrl[a*5 +: 5] = pe_gone[a] ? 5'b11111 : hub_ctrl[a*5 +: 5];
        end
    endgenerate

    papers_hub #(.N(N), .PINS(PINS)) u_hub (
        .clk(clk), .rst(rst),
        .pe_data(hub_data), .pe_ctrl(gone_ctrl),
        .pe_stat(pe_stat), .pe_led(pe_led), .pe_irq(pe_irq), .pe_bad(pe_bad), .pe_present(present),
        .pe_go(go), .pe_sv(sv), .pe_dv(dv), .pe_pv(pv)
    );

    assign bus_rsp_valid = rsp_valid;
    assign bus_rsp_rdata = rsp_valid ? rsp_rdata : 32'd0;
    assign bus_rsp_err   = rsp_valid ? rsp_err : 2'd0;
    assign bus_rsp_rdata_hi = rsp_valid ? rsp_rdata_hi : 32'd0;
    assign bus_rsp_len      = rsp_valid ? rsp_len : 4'd0;

    // The window is decoded by the hub; the size is the register's own; no
    // CALL has operands above bit 31.
    wire unused_ok = &{1'b0, bus_req_addr[15:12], bus_req_size, bus_req_wdata_hi};
endmodule
`default_nettype wire
