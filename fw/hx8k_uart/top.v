`default_nettype none
// fw/hx8k_uart/top.v: a cluster of real computers on a Lattice iCE40-HX8K breakout board (ICE40HX8K-B-EVN,
// iCE40HX8K-CT256), issue 24:
// 8 PEs, each on a 3.3 V UART of its own (a USB-TTL cable or a
// single-board computer's UART) on header J2, beside the board's USB
// UART.  Only wiring: pll, por, and rtl/hub/aggnet_mux_hub.v (aggnet_hub
// N = 8, PAPERS link-only, its link port behind rtl/link/link_mux.v with 9
// streams).  Eight, not the sixteen issue 24 asks for: ten need more logic
// cells than the HX8K has (docs/hardware.md, "UART PEs").
//
// Streams: PE k (0..7) on pe_rx[k] (the cable's TXD into the FPGA) and
// pe_tx[k] (to the cable's RXD); header J2 carries PE 0..7, each
// PE on two neighbouring positions of one row, RX on the odd one, TX on the
// even one (constraints/hx8k_uart.pcf; pins from amaranth-lang/amaranth-boards
// amaranth_boards/ice40_hx8k_b_evn.py, commit fd2f0df811a8dbcf6aa0b94ac0788dc71ac79e1e,
// and tools/boards/hx8k.py; docs/wiring.md has the cable table).
// Stream k speaks for PE k only; the USB UART (FT2232H channel B, B10 into the FPGA, B12 out) speaks for any
// PE (USB_ANY = 1): one PC can still be every PE.
//
// Baud: PEs 0..FAST_STREAMS-1 at FAST_BAUD (12 Mbaud: FT232H), the
// others at BAUD (3 Mbaud: FT232R, CP2102N, CH340, CH343); every rate
// is checked against the hub clock when aggnet_mux_hub elaborates.
//
// Presence: a PE whose cable has been silent for KEEPALIVE cycles is absent,
// as an unplugged PAPERS cable (docs/link_mux.md).
//
// LEDs: led[k] lit while PE k is present (the USB stream's presence is in
// INFO, MUX_ABSENT; aggnet board-check shows it).
// Clock: 60 MHz from the PLL, not the 90 MHz of fw/hx8k/top.v: with the
// UART PEs and the multiplexer this top misses 90 MHz (docs/hardware.md,
// "UART PEs").  12 Mbaud is 5 hub clocks a bit.
`include "aggnet_hub_board.vh"

module top (
    input  wire        clk_12mhz,
    input  wire [7:0] pe_rx,     // PE k's cable TXD -> FPGA
    output wire [7:0] pe_tx,     // FPGA -> PE k's cable RXD
    output wire [7:0]  led,
    input  wire        uart_rx,   // the USB UART's TXD -> FPGA
    output wire        uart_tx    // FPGA -> the USB UART's RXD
);
    localparam integer N = 8;
    localparam integer H = 8;          // PEs on header UARTs (PE k on stream k)
    localparam integer W = 12;         // papers_hub's register width at N = 8 (for the tie-offs)
    localparam integer LW = 14;        // and its LED column width
    localparam integer HUB_KHZ = 60000;
    localparam integer BAUD = 3000000;
    localparam integer FAST_BAUD = 12000000;
    localparam integer FAST_STREAMS = 4;
    localparam integer USB_BAUD = 12000000;
    // 0.1 s: more than the hosts' resend timeout (libaggnet: 20 ms); a
    // parameter so that simulation can shorten it.
    parameter integer KEEPALIVE = HUB_KHZ * 100;
    localparam integer CNT_W = 8;       // the mux's counters (docs/link_mux.md), read in INFO

    // icepll -i 12 -o 60: DIVR = 0, DIVF = 79, DIVQ = 4, FILTER_RANGE = 1
    // (PFD 12 MHz, VCO 960 MHz)
    wire clk, pll_locked;
    pll #(.ARCH("ICE40_CORE"), .IN_KHZ(12000), .OUT_KHZ(HUB_KHZ),
          .DIVR(0), .DIVF(79), .DIVQ(4), .FILTER_RANGE(1))
        u_pll (.clk_in(clk_12mhz), .clk_out(clk), .locked(pll_locked));

    wire rst;
    por #(.BITS(4)) u_por (.clk(clk), .ext_rst(!pll_locked), .rst(rst));

    function [32*H-1:0] bauds(input integer fast);
        integer k;
        begin
            for (k = 0; k < H; k = k + 1)
                bauds[32*k +: 32] = (k < fast) ? FAST_BAUD : BAUD;
        end
    endfunction

    wire [H:0] stream_absent;
    `AGGNET_HUB_OPEN_WIRES
    aggnet_mux_hub #(.N(N), .CLK_HZ(HUB_KHZ * 1000), .H(H), .HDR_BAUD(bauds(FAST_STREAMS)),
                     .USB_BAUD(USB_BAUD), .USB_ANY(1), .KEEPALIVE(KEEPALIVE), .CNT_W(CNT_W),
                     .PAPERS_PINS(0)) u_hub (  // no PAPERS pins: every PE is on its UART (link-only PAPERS)
        .clk(clk), .rst(rst),
        `AGGNET_HUB_TIEOFF  // every engine's pins: the PEs are on the UARTs
        .pe_rx(pe_rx), .pe_tx(pe_tx),
        .usb_rx(uart_rx), .usb_tx(uart_tx),
        .stream_absent(stream_absent)
    );

    assign led = ~stream_absent[H-1:0];
    wire unused_usb_absent = stream_absent[H];  // the USB stream: in INFO, not on an LED
endmodule
`default_nettype wire
