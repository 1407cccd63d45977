`default_nettype none
// aggnet_mux_hub: the one hub top, rtl/hub/aggnet_hub.v, with one UART per
// PE on header pins beside the board's USB UART, all through one link
// multiplexer (rtl/link/link_mux.v, docs/link_mux.md) into its one link
// port (issue 24, "A cluster of real computers").  What a board top puts
// behind H header UARTs and its USB UART (fw/<board>_uart/top.v).  Not a
// second hub: it instantiates aggnet_hub unchanged, with its parameters and
// engine ports passed through by name as aggnet_uart_hub does.  The model is
// Hall's COP with one serial channel per compute node (seed 004 chapter
// IV); the departures are link_mux's (the channels share one link port).
//
// Streams: stream k < H is the UART on pe_rx[k] / pe_tx[k] and speaks for
// PE k only; stream H is the USB UART (usb_rx / usb_tx), which speaks for
// any PE when USB_ANY = 1 (one PC driving every PE, as on a board without
// header UARTs) or only for PEs H .. LINK_PES-1 when USB_ANY = 0.
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
// MUX_COUNT + 8k + i: its counters, CNT_W bits, docs/link.md).
//
// Ports: clk, rst; every engine's pins, as aggnet_hub's (a board with only
// UART PEs ties them off with aggnet_hub_board.vh); pe_rx[k] (from PE k's
// cable TXD, asynchronous, idle high; synchronized in uart_stream) and
// pe_tx[k] (to its RXD, registered, idle high); usb_rx, usb_tx the same
// for the board's USB UART; stream_absent: link_mux's absent, registered
// (stream H is the USB stream), for a board's LEDs.
//
// Parameters: N, LINK_PES, CLK_HZ, IDLE_CYCLES and the engines' as
// aggnet_hub's; H in 1..31 header streams, H <= LINK_PES; HDR_BAUD: stream
// k's baud at [32k +: 32]; USB_BAUD the USB stream's; every baud in 1..
// CLK_HZ/4 (uart_rx takes at least 4 clocks per bit; checked here per
// stream, naming it, and in uart_rx/uart_tx); USB_ANY, IN_DEPTH, OUT_DEPTH,
// USB_OUT_DEPTH, KEEPALIVE and CNT_W (1..16 here: the INFO window's 16-bit
// counters) as link_mux's.
module aggnet_mux_hub #(
    parameter integer N             = 9,
    parameter integer LINK_PES      = N,
    parameter integer CLK_HZ        = 48000000,
    parameter integer IDLE_CYCLES   = CLK_HZ / 1000,
    parameter integer H             = 8,
    parameter [32*H-1:0] HDR_BAUD   = {H{32'd3000000}},
    parameter integer USB_BAUD      = 3000000,
    parameter integer USB_ANY       = 1,
    parameter integer IN_DEPTH      = 64,
    parameter integer OUT_DEPTH     = 64,
    parameter integer USB_OUT_DEPTH = 256,
    parameter integer KEEPALIVE     = CLK_HZ / 4,
    parameter integer CNT_W         = 16
`include "aggnet_hub_params.vh"
) (
    input  wire         clk,
    input  wire         rst,
`include "aggnet_hub_ports.vh"
    input  wire [H-1:0] pe_rx,
    output wire [H-1:0] pe_tx,
    input  wire         usb_rx,
    output wire         usb_tx,
    output reg  [H:0]   stream_absent
);
`include "aggnet_hub_pass.vh"
    localparam integer S = H + 1;

    generate
        if (H < 1 || H > 31 || H > LINK_PES) begin : g_bad_h
            $error("aggnet_mux_hub: H (header streams) must be in 1..31 and at most LINK_PES");
        end
        if (CNT_W < 1 || CNT_W > 16) begin : g_bad_cnt
            $error("aggnet_mux_hub: CNT_W must be in 1..16 (the INFO window's counters are 16 bits)");
        end
        if (USB_BAUD < 1 || USB_BAUD > CLK_HZ / 4) begin : g_bad_usb_baud
            $error("aggnet_mux_hub: USB_BAUD must be in 1..CLK_HZ/4 (uart_rx needs 4 hub clocks per bit)");
        end
    endgenerate

    wire [S-1:0]   s_rx_valid, s_rx_ferr, s_tx_valid, s_tx_ready;
    wire [8*S-1:0] s_rx_data, s_tx_data;

    genvar k;
    generate
        for (k = 0; k < H; k = k + 1) begin : g_hdr
            localparam integer BAUD_K = HDR_BAUD[32*k +: 32];
            if (BAUD_K < 1 || BAUD_K > CLK_HZ / 4) begin : g_bad_baud
                $error("aggnet_mux_hub: a header stream's baud (HDR_BAUD[32k +: 32], this is g_hdr[k]) must be in 1..CLK_HZ/4 (uart_rx needs 4 hub clocks per bit)");
            end
            uart_stream #(.CLK_HZ(CLK_HZ), .BAUD(BAUD_K)) u_uart (
                .clk(clk), .rst(rst), .rx(pe_rx[k]), .tx(pe_tx[k]),
                .rx_valid(s_rx_valid[k]), .rx_data(s_rx_data[8*k +: 8]), .rx_ferr(s_rx_ferr[k]),
                .tx_valid(s_tx_valid[k]), .tx_ready(s_tx_ready[k]), .tx_data(s_tx_data[8*k +: 8])
            );
        end
    endgenerate

    uart_stream #(.CLK_HZ(CLK_HZ), .BAUD(USB_BAUD)) u_usb (
        .clk(clk), .rst(rst), .rx(usb_rx), .tx(usb_tx),
        .rx_valid(s_rx_valid[H]), .rx_data(s_rx_data[8*H +: 8]), .rx_ferr(s_rx_ferr[H]),
        .tx_valid(s_tx_valid[H]), .tx_ready(s_tx_ready[H]), .tx_data(s_tx_data[8*H +: 8])
    );

    wire         p_rx_valid, p_rx_ferr, p_rx_held, p_tx_valid, p_tx_ready;
    wire [7:0]   p_rx_data, p_tx_data;
    wire [S-1:0] absent;
    wire [LINK_PES-1:0]    pe_absent;
    wire [7:0]             cnt_raddr;
    wire [CNT_W-1:0]       cnt_rdata;

    link_mux #(
        .S(S), .PE_BASE(0), .NPE(LINK_PES), .USB_ANY(USB_ANY), .IN_DEPTH(IN_DEPTH),
        .OUT_DEPTH(OUT_DEPTH), .USB_OUT_DEPTH(USB_OUT_DEPTH), .KEEPALIVE(KEEPALIVE), .CNT_W(CNT_W)
    ) u_mux (
        .clk(clk), .rst(rst),
        .s_rx_valid(s_rx_valid), .s_rx_data(s_rx_data), .s_rx_ferr(s_rx_ferr),
        .s_tx_valid(s_tx_valid), .s_tx_ready(s_tx_ready), .s_tx_data(s_tx_data),
        .p_rx_valid(p_rx_valid), .p_rx_data(p_rx_data), .p_rx_ferr(p_rx_ferr), .p_rx_held(p_rx_held),
        .p_tx_valid(p_tx_valid), .p_tx_ready(p_tx_ready), .p_tx_data(p_tx_data),
        .absent(absent), .pe_absent(pe_absent), .cnt_raddr(cnt_raddr), .cnt_rdata(cnt_rdata)
    );

    always @(posedge clk) stream_absent <= absent;

    // PEs past LINK_PES have no link: their presence is their pins' alone.
    wire [N-1:0] gone;
    generate
        if (N > LINK_PES) begin : g_gone_pins
            assign gone = {{(N - LINK_PES){1'b0}}, pe_absent};
        end else begin : g_gone_all
            assign gone = pe_absent;
        end
    endgenerate

    wire unused_idle;
    aggnet_hub #(
        .N(N), .LINK_PES(LINK_PES), .CLK_HZ(CLK_HZ), .IDLE_CYCLES(IDLE_CYCLES),
        .MUX_S(S), .MUX_CNT_W(CNT_W) `AGGNET_HUB_PARAMS
    ) u_hub (
        .clk(clk), .rst(rst),
        `AGGNET_HUB_PORTS
        .link_rx_valid(p_rx_valid), .link_rx_data(p_rx_data), .link_rx_ferr(p_rx_ferr),
        .link_tx_valid(p_tx_valid), .link_tx_ready(p_tx_ready), .link_tx_data(p_tx_data),
        .link_rx_held(p_rx_held),  // the multiplexer holds whole frames back
        .link_idle(unused_idle),   // for a simulation's clock only
        .link_gone(gone),
        .mux_absent(absent), .mux_cnt_raddr(cnt_raddr), .mux_cnt_rdata(cnt_rdata)
    );
endmodule
`default_nettype wire
