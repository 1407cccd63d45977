`default_nettype none
// link_mux_port: link_mux in front of one link_port (issue 24,
// docs/link_mux.md): S byte streams, each as uart_stream presents it, served
// by one link port whose engine register bus and statistics are passed
// through.  The model is Hall's COP with one serial channel per compute node
// (seed 004 chapter IV); the departures are link_mux's and link_port's.
// What a board top puts behind its header UARTs and its USB UART, and what
// tests/test_link_mux.cpp drives.
//
// Ports: the streams, absent, pe_absent, the counters' read port
// (cnt_raddr, cnt_rdata) and s_rx_room as link_mux, mux_idle its idle; the bus, stats,
// eng_busy and idle as link_port (link_port's rx_held and byte streams stay
// inside).
//
// Timing: link_mux's plus link_port's (see both headers).
//
// Parameters: S, USB_ANY, IN_DEPTH, OUT_DEPTH, USB_OUT_DEPTH, KEEPALIVE, CNT_W as
// link_mux; PE_BASE and NPE are link_mux's and link_port's PE_ID and N;
// HUB_PES, ENGINES, CLK_HZ, IDLE_CYCLES, STAT_W as link_port.  Ranges are
// checked in the two submodules.
module link_mux_port #(
    parameter integer S           = 2,
    parameter integer PE_BASE     = 0,
    parameter integer NPE         = S,
    parameter integer USB_ANY     = 1,
    parameter integer IN_DEPTH    = 128,
    parameter integer OUT_DEPTH   = 64,
    parameter integer USB_OUT_DEPTH = 256,
    parameter integer KEEPALIVE   = 48000000,
    parameter integer CNT_W       = 16,
    parameter integer HUB_PES     = NPE,
    parameter [15:0]  ENGINES     = 16'h0003,
    parameter integer CLK_HZ      = 48000000,
    parameter integer IDLE_CYCLES = 48000,
    parameter integer STAT_W      = 144
) (
    input  wire                 clk,
    input  wire                 rst,
    input  wire [S-1:0]         s_rx_valid,
    input  wire [8*S-1:0]       s_rx_data,
    input  wire [S-1:0]         s_rx_ferr,
    output wire [S-1:0]         s_tx_valid,
    input  wire [S-1:0]         s_tx_ready,
    output wire [8*S-1:0]       s_tx_data,
    output wire [S-1:0]         absent,
    output wire [NPE-1:0]       pe_absent,
    input  wire [7:0]           cnt_raddr,
    output wire [CNT_W-1:0]     cnt_rdata,
    output wire [S-1:0]         s_rx_room,
    output wire                 mux_idle,
    output wire                 bus_req_valid,
    input  wire                 bus_req_ready,
    output wire                 bus_req_we,
    output wire [5:0]           bus_req_pe,
    output wire [15:0]          bus_req_addr,
    output wire [15:0]          bus_req_win,     // link_port's one-hot window (the bench checks it)
    output wire [31:0]          bus_req_wdata,
    output wire [2:0]           bus_req_size,
    output wire                 bus_req_call,
    output wire [31:0]          bus_req_wdata_hi,
    output wire [3:0]           bus_req_len,
    input  wire                 bus_rsp_valid,
    input  wire [31:0]          bus_rsp_rdata,
    input  wire [1:0]           bus_rsp_err,
    input  wire [31:0]          bus_rsp_rdata_hi,
    input  wire [3:0]           bus_rsp_len,
    output wire [STAT_W-1:0]    stats,
    input  wire                 eng_busy,
    output wire                 idle
);
    wire       p_rx_valid, p_rx_ferr, p_rx_held;
    wire [7:0] p_rx_data;
    wire       p_tx_valid, p_tx_ready;
    wire [7:0] p_tx_data;

    link_mux #(
        .S(S), .PE_BASE(PE_BASE), .NPE(NPE), .USB_ANY(USB_ANY), .IN_DEPTH(IN_DEPTH),
        .OUT_DEPTH(OUT_DEPTH), .USB_OUT_DEPTH(USB_OUT_DEPTH), .KEEPALIVE(KEEPALIVE), .CNT_W(CNT_W)
    ) u_mux (
        .clk(clk), .rst(rst),
        .s_rx_valid(s_rx_valid), .s_rx_data(s_rx_data), .s_rx_ferr(s_rx_ferr),
        .s_tx_valid(s_tx_valid), .s_tx_ready(s_tx_ready), .s_tx_data(s_tx_data),
        .p_rx_valid(p_rx_valid), .p_rx_data(p_rx_data), .p_rx_ferr(p_rx_ferr), .p_rx_held(p_rx_held),
        .p_tx_valid(p_tx_valid), .p_tx_ready(p_tx_ready), .p_tx_data(p_tx_data),
        .absent(absent), .pe_absent(pe_absent), .cnt_raddr(cnt_raddr), .cnt_rdata(cnt_rdata),
        .s_rx_room(s_rx_room), .idle(mux_idle)
    );

    link_port #(
        .N(NPE), .PE_ID(PE_BASE), .HUB_PES(HUB_PES), .ENGINES(ENGINES),
        .CLK_HZ(CLK_HZ), .IDLE_CYCLES(IDLE_CYCLES), .STAT_W(STAT_W)
    ) u_port (
        .clk(clk), .rst(rst),
        .rx_valid(p_rx_valid), .rx_data(p_rx_data), .rx_ferr(p_rx_ferr),
        .tx_valid(p_tx_valid), .tx_ready(p_tx_ready), .tx_data(p_tx_data),
        .bus_req_valid(bus_req_valid), .bus_req_ready(bus_req_ready),
        .bus_req_we(bus_req_we), .bus_req_pe(bus_req_pe), .bus_req_addr(bus_req_addr), .bus_req_win(bus_req_win),
        .bus_req_wdata(bus_req_wdata), .bus_req_size(bus_req_size),
        .bus_req_call(bus_req_call), .bus_req_wdata_hi(bus_req_wdata_hi), .bus_req_len(bus_req_len),
        .bus_rsp_valid(bus_rsp_valid), .bus_rsp_rdata(bus_rsp_rdata),
        .bus_rsp_err(bus_rsp_err), .bus_rsp_rdata_hi(bus_rsp_rdata_hi), .bus_rsp_len(bus_rsp_len),
        .stats(stats), .rx_held(p_rx_held), .eng_busy(eng_busy), .idle(idle)
    );
endmodule
`default_nettype wire
