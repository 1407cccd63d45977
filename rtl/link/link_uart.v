`default_nettype none
// link_uart: a link port on a UART's pins (docs/link.md): uart_stream
// (rtl/common/sync2.v on the rx pin, uart_rx, uart_tx) and link_port.  The
// model is Hall's compute node to COP serial channel (seed 004 chapter IV); the departures are those
// of link_port and uart_rx/uart_tx (8N1 UART and byte frames with CRC instead
// of Spanceiver words).
//
// With N PEs sharing the one UART (a board's USB UART, one PC acting as every
// PE) or N = 1 and PE_ID = k (one UART per PE on header pins).  The engine
// register bus and the statistics are link_port's, passed through; UART
// framing errors are counted in stats (LINK_STAT_UART_FERR).
//
// Pins: rx (asynchronous, idle high; synchronized here), tx (registered,
// idle high).
//
// Timing (clk cycles): a byte's bits are sampled mid-bit 2 cycles after they
// reach the pin (sync2); the byte reaches link_port the cycle after the
// middle of its stop bit; from there see link_port.
//
// Parameters: CLK_HZ >= 4*BAUD (uart_rx); N, PE_ID, HUB_PES, ENGINES, STAT_W
// as link_port; IDLE_CYCLES (inter-byte timeout inside a frame) defaults to
// 1 ms of clk.
module link_uart #(
    parameter integer CLK_HZ      = 48000000,
    parameter integer BAUD        = 12000000,
    parameter integer N           = 1,
    parameter integer PE_ID       = 0,
    parameter integer HUB_PES     = N,
    parameter [15:0]  ENGINES     = 16'h0003,
    parameter integer IDLE_CYCLES = CLK_HZ / 1000,
    parameter integer STAT_W      = 144
) (
    input  wire              clk,
    input  wire              rst,
    input  wire              rx,
    output wire              tx,
    output wire              bus_req_valid,
    input  wire              bus_req_ready,
    output wire              bus_req_we,
    output wire [5:0]        bus_req_pe,
    output wire [15:0]       bus_req_addr,
    output wire [31:0]       bus_req_wdata,
    output wire [2:0]        bus_req_size,
    output wire              bus_req_call,
    output wire [31:0]       bus_req_wdata_hi,
    output wire [3:0]        bus_req_len,
    input  wire              bus_rsp_valid,
    input  wire [31:0]       bus_rsp_rdata,
    input  wire [1:0]        bus_rsp_err,
    input  wire [31:0]       bus_rsp_rdata_hi,
    input  wire [3:0]        bus_rsp_len,
    output wire [STAT_W-1:0] stats
);
    // Parameter ranges are checked by the submodules (uart_rx: CLK_HZ/BAUD;
    // link_port: N, PE_ID, HUB_PES, CLK_HZ, STAT_W; frame_rx: IDLE_CYCLES).

    wire       rx_valid, rx_ferr;
    wire [7:0] rx_data;
    wire       tx_valid, tx_ready;
    wire [7:0] tx_data;
    uart_stream #(.CLK_HZ(CLK_HZ), .BAUD(BAUD)) u_uart (
        .clk(clk), .rst(rst), .rx(rx), .tx(tx),
        .rx_valid(rx_valid), .rx_data(rx_data), .rx_ferr(rx_ferr),
        .tx_valid(tx_valid), .tx_ready(tx_ready), .tx_data(tx_data)
    );

    wire unused_rx_held, unused_idle;
    wire [15:0] unused_win;  // the hub's window decode; this bus has one slave
    link_port #(
        .N(N), .PE_ID(PE_ID), .HUB_PES(HUB_PES), .ENGINES(ENGINES),
        .CLK_HZ(CLK_HZ), .IDLE_CYCLES(IDLE_CYCLES), .STAT_W(STAT_W)
    ) u_port (
        .clk(clk), .rst(rst),
        .rx_valid(rx_valid), .rx_data(rx_data), .rx_ferr(rx_ferr),
        .tx_valid(tx_valid), .tx_ready(tx_ready), .tx_data(tx_data),
        .bus_req_valid(bus_req_valid), .bus_req_ready(bus_req_ready),
        .bus_req_we(bus_req_we), .bus_req_pe(bus_req_pe), .bus_req_addr(bus_req_addr), .bus_req_win(unused_win),
        .bus_req_wdata(bus_req_wdata), .bus_req_size(bus_req_size),
        .bus_req_call(bus_req_call), .bus_req_wdata_hi(bus_req_wdata_hi), .bus_req_len(bus_req_len),
        .bus_rsp_valid(bus_rsp_valid), .bus_rsp_rdata(bus_rsp_rdata),
        .bus_rsp_err(bus_rsp_err), .bus_rsp_rdata_hi(bus_rsp_rdata_hi), .bus_rsp_len(bus_rsp_len),
        .stats(stats),
        .rx_held(unused_rx_held),  // a UART cannot hold bytes back
        .eng_busy(1'b0), .idle(unused_idle)  // idle: for a simulation's clock only
    );
endmodule
`default_nettype wire
