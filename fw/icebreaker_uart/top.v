`default_nettype none
// fw/icebreaker_uart/top.v: a cluster of real computers on a 1BitSquared
// iCEBreaker (iCE40UP5K-SG48), issue 24: two PEs, each on a 3.3 V UART
// of its own (a USB-TTL cable or a single-board computer's UART) on Pmod
// 1A, beside the board's USB UART.  Only wiring: pll, por, and
// rtl/hub/aggnet_mux_hub.v (aggnet_hub N = 2, PAPERS, its link port behind
// rtl/link/link_mux.v with 3 streams).  Two, not the eight issue 24 asks
// for: more do not fit the UP5K (docs/hardware.md, "UART PEs").
//
// Streams: PE k (0..1) on pe_rx[k] (the cable's TXD into the FPGA) and
// pe_tx[k] (to the cable's RXD); Pmod 1A positions 1..2 carry PE 0..1's RX,
// positions 7..8 their TX; ground on
// positions 5 and 11 (constraints/icebreaker_uart.pcf; pins from
// icebreaker-fpga/icebreaker-examples icebreaker/icebreaker.pcf, commit
// de9e3f89cf752d48009629c16d932104ff691114, and tools/boards/icebreaker.py;
// docs/wiring.md has the cable table).  Stream k speaks for PE k only; the
// USB UART (FT2232H channel B, as fw/icebreaker/top.v) speaks for any PE
// (USB_ANY = 1): one PC can still be every PE, serial:/dev/ttyUSB1@6000000?pe=K.
//
// Baud: PEs 0..FAST_STREAMS-1 at FAST_BAUD (6 Mbaud: FT232H, CH343), the
// others at BAUD (3 Mbaud: FT232R, CP2102N, CH340); every rate is checked
// against the hub clock when aggnet_mux_hub elaborates.
//
// Presence: a PE whose cable has been silent for KEEPALIVE cycles is absent,
// as an unplugged PAPERS cable (docs/link_mux.md).
//
// LEDs: LEDG_N lit while every PE's cable is present; LEDR_N lit while the
// USB stream is present.  The user button BTN_N resets the hub.
// Clock: 24 MHz from the PLL, not the 36 MHz of fw/icebreaker/top.v: with
// the multiplexer and two UARTs more this top misses 36 MHz on the UP5K
// (docs/hardware.md, "UART PEs").  6 Mbaud is 4 hub clocks a bit, the
// least uart_rx takes.
`include "aggnet_hub_board.vh"

module top (
    input  wire        clk_12mhz,
    input  wire        btn_n,
    input  wire [1:0]  pe_rx,     // PE k's cable TXD -> FPGA
    output wire [1:0]  pe_tx,     // FPGA -> PE k's cable RXD
    output wire        ledr_n,
    output wire        ledg_n,
    input  wire        uart_rx,   // FT2232H channel B TXD -> FPGA (pin 6)
    output wire        uart_tx    // FPGA -> FT2232H channel B RXD (pin 9)
);
    localparam integer N = 2;
    localparam integer H = 2;          // PEs on header UARTs (PE k on stream k)
    localparam integer W = 8;          // papers_hub's register width at N = 2 (for the tie-offs)
    localparam integer LW = 10;        // and its LED column width
    localparam integer HUB_KHZ = 24000;
    localparam integer BAUD = 3000000;
    localparam integer FAST_BAUD = 6000000;
    localparam integer FAST_STREAMS = 1;
    localparam integer USB_BAUD = 6000000;
    // 0.1 s: more than the hosts' resend timeout (libaggnet: 20 ms); a
    // parameter so that simulation can shorten it.
    parameter integer KEEPALIVE = HUB_KHZ * 100;
    localparam integer CNT_W = 8;       // the mux's counters (docs/link_mux.md), read in INFO

    // icepll -i 12 -o 24: DIVR = 0, DIVF = 63, DIVQ = 5, FILTER_RANGE = 1
    // (PFD 12 MHz, VCO 768 MHz)
    wire clk, pll_locked;
    pll #(.ARCH("ICE40_PAD"), .IN_KHZ(12000), .OUT_KHZ(HUB_KHZ),
          .DIVR(0), .DIVF(63), .DIVQ(5), .FILTER_RANGE(1))
        u_pll (.clk_in(clk_12mhz), .clk_out(clk), .locked(pll_locked));

    wire rst;
    por #(.BITS(4)) u_por (.clk(clk), .ext_rst(!btn_n || !pll_locked), .rst(rst));

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

    assign ledg_n = |stream_absent[H-1:0];
    assign ledr_n = stream_absent[H];
endmodule
`default_nettype wire
