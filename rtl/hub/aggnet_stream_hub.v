`default_nettype none
// aggnet_stream_hub: the one hub top, rtl/hub/aggnet_hub.v, behind one link
// multiplexer (rtl/link/link_mux.v, docs/link_mux.md) with H + 1 byte
// streams: H header streams (stream k speaks for PE k only) and the USB
// stream (stream H).  Not a second hub: it instantiates aggnet_hub unchanged,
// with its parameters and engine ports passed through by name as
// aggnet_uart_hub does.  Two users: aggnet_mux_hub puts a UART on every
// stream (a board with one cable per PE, issue 24), and the virtual hub's
// `hub_mux` model family feeds the streams from its per-PE channels
// directly (sim/hub_rtl.hpp, docs/vhub.md), so that every byte a channel
// carries passes the multiplexer the boards carry.  The model is Hall's COP
// with one serial channel per compute node (seed 004 chapter IV); the
// departures are link_mux's (the channels share one link port).
//
// Streams: stream k < H speaks for PE k only; stream H speaks for any PE
// when USB_ANY = 1 (one PC driving every PE, as on a board without header
// UARTs) or only for PEs H .. LINK_PES-1 when USB_ANY = 0.
//
// Presence: a PE whose stream (the one it last spoke through) is silent for
// more than KEEPALIVE cycles, or has not spoken since reset, is absent:
// link_mux's pe_absent drives aggnet_hub's link_gone, and every engine that
// takes it (PAPERS) then sees that PE exactly as an unplugged cable.  It is
// present again with its stream's next byte (a host that reconnects says
// HELLO first).  KEEPALIVE must exceed the hosts' resend timeout, which keeps
// a waiting host's stream alive (docs/link_mux.md, Presence).
//
// The INFO window shows the multiplexer (MUX_STREAMS = H + 1, MUX_ABSENT,
// MUX_CNT_W, MUX_USB_ANY, MUX_COUNT + 8k + i: its counters, CNT_W bits,
// docs/link.md).
//
// Ports: clk, rst; every engine's pins, as aggnet_hub's (a hub with only
// link PEs ties them off with aggnet_hub_board.vh); stream k's
// s_rx_valid/s_rx_data/s_rx_ferr, s_tx_valid/s_tx_ready/s_tx_data and
// s_rx_room at [k] and [8k +: 8], as link_mux's (bytes of a stream at least
// H + 2 cycles apart, s_rx_data held until the stream's next byte);
// stream_absent: link_mux's absent, registered (stream H is the USB
// stream), for a board's LEDs; idle: link_port's idle and link_mux's (a
// simulation may stop its clock while it is high and no byte is offered).
//
// Parameters: N, LINK_PES, CLK_HZ, IDLE_CYCLES and the engines' as
// aggnet_hub's; H in 1..31 header streams, H <= LINK_PES (default: one per
// link PE, up to 31); USB_ANY, IN_DEPTH,
// OUT_DEPTH, USB_OUT_DEPTH, KEEPALIVE and CNT_W (1..16 here: the INFO
// window's 16-bit counters) as link_mux's; MUX_LUTRAM link_mux's LUTRAM (1
// on the ECP5: its small memories in LUT RAM, for the clock).
module aggnet_stream_hub #(
    parameter integer N             = 9,
    parameter integer LINK_PES      = N,
    parameter integer CLK_HZ        = 48000000,
    parameter integer IDLE_CYCLES   = CLK_HZ / 1000,
    parameter integer H             = (LINK_PES > 31) ? 31 : LINK_PES,
    parameter integer USB_ANY       = 1,
    parameter integer IN_DEPTH      = 64,
    parameter integer OUT_DEPTH     = 64,
    parameter integer USB_OUT_DEPTH = 256,
    parameter integer KEEPALIVE     = CLK_HZ / 4,
    parameter integer CNT_W         = 16,
    parameter integer MUX_LUTRAM    = 0
`include "aggnet_hub_params.vh"
) (
    input  wire           clk,
    input  wire           rst,
`include "aggnet_hub_ports.vh"
    input  wire [H:0]     s_rx_valid,
    input  wire [8*H+7:0] s_rx_data,
    input  wire [H:0]     s_rx_ferr,
    output wire [H:0]     s_rx_room,
    output wire [H:0]     s_tx_valid,
    input  wire [H:0]     s_tx_ready,
    output wire [8*H+7:0] s_tx_data,
    output reg  [H:0]     stream_absent,
    output wire           idle
);
`include "aggnet_hub_pass.vh"
    localparam integer S = H + 1;

    generate
        if (H < 1 || H > 31 || H > LINK_PES) begin : g_bad_h
            $error("aggnet_stream_hub: H (header streams) must be in 1..31 and at most LINK_PES");
        end
        if (CNT_W < 1 || CNT_W > 16) begin : g_bad_cnt
            $error("aggnet_stream_hub: CNT_W must be in 1..16 (the INFO window's counters are 16 bits)");
        end
    endgenerate

    wire         p_rx_valid, p_rx_ferr, p_rx_held, p_tx_valid, p_tx_ready;
    wire [7:0]   p_rx_data, p_tx_data;
    wire [S-1:0] absent;
    wire [LINK_PES-1:0]    pe_absent;
    wire [7:0]             cnt_raddr;
    wire [CNT_W-1:0]       cnt_rdata;
    wire                   mux_idle, port_idle;

    link_mux #(
        .S(S), .PE_BASE(0), .NPE(LINK_PES), .USB_ANY(USB_ANY), .IN_DEPTH(IN_DEPTH),
        .OUT_DEPTH(OUT_DEPTH), .USB_OUT_DEPTH(USB_OUT_DEPTH), .KEEPALIVE(KEEPALIVE), .CNT_W(CNT_W),
        .LUTRAM(MUX_LUTRAM)
    ) u_mux (
        .clk(clk), .rst(rst),
        .s_rx_valid(s_rx_valid), .s_rx_data(s_rx_data), .s_rx_ferr(s_rx_ferr),
        .s_tx_valid(s_tx_valid), .s_tx_ready(s_tx_ready), .s_tx_data(s_tx_data),
        .p_rx_valid(p_rx_valid), .p_rx_data(p_rx_data), .p_rx_ferr(p_rx_ferr), .p_rx_held(p_rx_held),
        .p_tx_valid(p_tx_valid), .p_tx_ready(p_tx_ready), .p_tx_data(p_tx_data),
        .absent(absent), .pe_absent(pe_absent), .cnt_raddr(cnt_raddr), .cnt_rdata(cnt_rdata),
        .s_rx_room(s_rx_room), .idle(mux_idle)
    );

    always @(posedge clk) stream_absent <= absent;
    assign idle = mux_idle && port_idle;

    // PEs past LINK_PES have no link: their presence is their pins' alone.
    wire [N-1:0] gone;
    generate
        if (N > LINK_PES) begin : g_gone_pins
            assign gone = {{(N - LINK_PES){1'b0}}, pe_absent};
        end else begin : g_gone_all
            assign gone = pe_absent;
        end
    endgenerate

    aggnet_hub #(
        .N(N), .LINK_PES(LINK_PES), .CLK_HZ(CLK_HZ), .IDLE_CYCLES(IDLE_CYCLES),
        .MUX_S(S), .MUX_CNT_W(CNT_W), .MUX_USB_ANY(USB_ANY) `AGGNET_HUB_PARAMS
    ) u_hub (
        .clk(clk), .rst(rst),
        `AGGNET_HUB_PORTS
        .link_rx_valid(p_rx_valid), .link_rx_data(p_rx_data), .link_rx_ferr(p_rx_ferr),
        .link_tx_valid(p_tx_valid), .link_tx_ready(p_tx_ready), .link_tx_data(p_tx_data),
        .link_rx_held(p_rx_held),  // the multiplexer holds whole frames back
        .link_idle(port_idle),
        .link_gone(gone),
        .mux_absent(absent), .mux_cnt_raddr(cnt_raddr), .mux_cnt_rdata(cnt_rdata)
    );
endmodule
`default_nettype wire
