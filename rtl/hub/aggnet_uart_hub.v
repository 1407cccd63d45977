`default_nettype none
// aggnet_uart_hub: the one hub top, rtl/hub/aggnet_hub.v, with its link port
// on a UART's two pins (rtl/link/uart_stream.v): what a board top puts
// behind its USB UART (fw/<board>/top.v), so that the boards share this
// wiring instead of repeating it.  Not a second hub: it instantiates
// aggnet_hub unchanged, with the same parameters and the same engine ports,
// passed through by name (tools/hubgen.py writes both lists from the
// engines' manifests: aggnet_hub_params.vh, aggnet_hub_ports.vh,
// aggnet_hub_pass.vh).  Seed: as aggnet_hub and uart_stream; no departure
// of its own.
//
// Ports: clk, rst; every engine's pins, as aggnet_hub's; uart_rx (from the
// bridge's TXD, asynchronous, idle high) and uart_tx (to its RXD).
// Parameters: N, LINK_PES, CLK_HZ, IDLE_CYCLES and the engines' as
// aggnet_hub's; BAUD of the UART (CLK_HZ >= 4 * BAUD; checked in uart_rx and
// uart_tx).
module aggnet_uart_hub #(
    parameter integer N           = 4,
    parameter integer LINK_PES    = N,
    parameter integer CLK_HZ      = 48000000,
    parameter integer IDLE_CYCLES = CLK_HZ / 1000,
    parameter integer BAUD        = 3000000
`include "aggnet_hub_params.vh"
) (
    input  wire clk,
    input  wire rst,
`include "aggnet_hub_ports.vh"
    input  wire uart_rx,
    output wire uart_tx
);
`include "aggnet_hub_pass.vh"

    wire       rx_valid, rx_ferr, tx_valid, tx_ready;
    wire [7:0] rx_data, tx_data;

    uart_stream #(.CLK_HZ(CLK_HZ), .BAUD(BAUD)) u_uart (
        .clk(clk), .rst(rst), .rx(uart_rx), .tx(uart_tx),
        .rx_valid(rx_valid), .rx_data(rx_data), .rx_ferr(rx_ferr),
        .tx_valid(tx_valid), .tx_ready(tx_ready), .tx_data(tx_data)
    );

    wire unused_rx_held, unused_idle;
    wire [7:0] unused_cnt_raddr;  // no multiplexer: its counters are not read
    aggnet_hub #(
        .N(N), .LINK_PES(LINK_PES), .CLK_HZ(CLK_HZ), .IDLE_CYCLES(IDLE_CYCLES) `AGGNET_HUB_PARAMS
    ) u_hub (
        .clk(clk), .rst(rst),
        `AGGNET_HUB_PORTS
        .link_rx_valid(rx_valid), .link_rx_data(rx_data), .link_rx_ferr(rx_ferr),
        .link_tx_valid(tx_valid), .link_tx_ready(tx_ready), .link_tx_data(tx_data),
        .link_rx_held(unused_rx_held),  // a UART cannot hold bytes back
        .link_idle(unused_idle),  // for a simulation's clock only
        .link_gone({N{1'b0}}),  // one byte stream: presence is each engine's own
        .mux_absent(1'b0), .mux_cnt_raddr(unused_cnt_raddr), .mux_cnt_rdata(16'd0)  // one byte stream, no multiplexer
    );
endmodule
`default_nettype wire
