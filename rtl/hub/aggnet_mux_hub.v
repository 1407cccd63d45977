`default_nettype none
// aggnet_mux_hub: the one hub top, rtl/hub/aggnet_hub.v, with one UART per
// PE on header pins beside the board's USB UART, all through one link
// multiplexer into its one link port (issue 24, "A cluster of real
// computers"): rtl/hub/aggnet_stream_hub.v (the hub behind link_mux, where
// the streams, presence and the INFO window are described) with a
// uart_stream on each of its streams.  What a board top puts behind H
// header UARTs and its USB UART (fw/<board>_uart/top.v).
//
// Ports: clk, rst; every engine's pins, as aggnet_hub's (a board with only
// UART PEs ties them off with aggnet_hub_board.vh); pe_rx[k] (from PE k's
// cable TXD, asynchronous, idle high; synchronized in uart_stream) and
// pe_tx[k] (to its RXD, registered, idle high); usb_rx, usb_tx the same
// for the board's USB UART; stream_absent: link_mux's absent, registered
// (stream H is the USB stream), for a board's LEDs.
//
// Parameters: N, LINK_PES, CLK_HZ, IDLE_CYCLES and the engines' as
// aggnet_hub's; H, USB_ANY, IN_DEPTH, OUT_DEPTH, USB_OUT_DEPTH, KEEPALIVE
// CNT_W and MUX_LUTRAM as aggnet_stream_hub's; HDR_BAUD: stream k's baud at
// [32k +: 32]; USB_BAUD the USB stream's; every baud in 1..CLK_HZ/4
// (uart_rx takes at least 4 clocks per bit; checked here per stream, naming
// it, and in uart_rx/uart_tx; at CLK_HZ/4 a byte takes 40 clocks, far more
// than the multiplexer's H + 2).
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
    parameter integer CNT_W         = 16,
    parameter integer MUX_LUTRAM    = 0
`include "aggnet_hub_params.vh"
) (
    input  wire         clk,
    input  wire         rst,
`include "aggnet_hub_ports.vh"
    input  wire [H-1:0] pe_rx,
    output wire [H-1:0] pe_tx,
    input  wire         usb_rx,
    output wire         usb_tx,
    output wire [H:0]   stream_absent
);
`include "aggnet_hub_pass.vh"
    generate
        if (USB_BAUD < 1 || USB_BAUD > CLK_HZ / 4) begin : g_bad_usb_baud
            $error("aggnet_mux_hub: USB_BAUD must be in 1..CLK_HZ/4 (uart_rx needs 4 hub clocks per bit)");
        end
    endgenerate

    wire [H:0]     s_rx_valid, s_rx_ferr, s_tx_valid, s_tx_ready;
    wire [8*H+7:0] s_rx_data, s_tx_data;

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

    // (a UART cannot pause its sender: s_rx_room and idle are unused here)
    wire [H:0] unused_room;
    wire       unused_idle;
    aggnet_stream_hub #(
        .N(N), .LINK_PES(LINK_PES), .CLK_HZ(CLK_HZ), .IDLE_CYCLES(IDLE_CYCLES), .H(H),
        .USB_ANY(USB_ANY), .IN_DEPTH(IN_DEPTH), .OUT_DEPTH(OUT_DEPTH), .USB_OUT_DEPTH(USB_OUT_DEPTH),
        .KEEPALIVE(KEEPALIVE), .CNT_W(CNT_W), .MUX_LUTRAM(MUX_LUTRAM) `AGGNET_HUB_PARAMS
    ) u_shub (
        .clk(clk), .rst(rst),
        `AGGNET_HUB_PORTS
        .s_rx_valid(s_rx_valid), .s_rx_data(s_rx_data), .s_rx_ferr(s_rx_ferr), .s_rx_room(unused_room),
        .s_tx_valid(s_tx_valid), .s_tx_ready(s_tx_ready), .s_tx_data(s_tx_data),
        .stream_absent(stream_absent), .idle(unused_idle)
    );
endmodule
`default_nettype wire
