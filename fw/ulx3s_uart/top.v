`default_nettype none
// fw/ulx3s_uart/top.v: a cluster of real computers on a Radiona ULX3S (ECP5 LFE5U-85F-6BG381C), issue 24:
// 16 PEs, each on a 3.3 V UART of its own (a USB-TTL cable or a
// single-board computer's UART) on GPIO pairs 0..10 (J1) and 18..22 (J2), beside the board's USB
// UART.  Only wiring: pll, por, and rtl/hub/aggnet_mux_hub.v (aggnet_hub
// N = 16, PAPERS, its link port behind rtl/link/link_mux.v with 17 streams).
//
// Streams: PE k (0..15) on pe_rx[k] (the cable's TXD into the FPGA) and
// pe_tx[k] (to the cable's RXD); PE k on GPIO pair n (n = 0..10, then 18..22), RX on
// GPn, TX on GNn beside it; pairs 11..13 (ESP32) and 14..17 (ADC) carry no PE
// (constraints/ulx3s_uart.lpf; pins from emard/ulx3s doc/constraints/ulx3s_v20.lpf,
// commit 6a92cec6b177191c5b0f80e260013a1f8ec147dd, and tools/boards/ulx3s.py;
// docs/wiring.md has the cable table).  wifi_en holds the ESP32 in reset.
// The button FIRE1 resets the hub.
// Stream k speaks for PE k only; the USB UART (the FT231X on US1, M1 into the FPGA, L4 out) speaks for any
// PE (USB_ANY = 1): one PC can still be every PE.
//
// Baud: PEs 0..FAST_STREAMS-1 at FAST_BAUD (12 Mbaud: FT232H), the
// others at BAUD (3 Mbaud: FT232R, CP2102N, CH340, CH343); every rate
// is checked against the hub clock when aggnet_mux_hub elaborates.
//
// Presence: a PE whose cable has been silent for KEEPALIVE cycles is absent,
// as an unplugged PAPERS cable (docs/link_mux.md).
//
// LEDs: led[k] lit while PE k and PE k+8 are both present.
// Clock: 90 MHz from the PLL, with the settings of fw/ulx3s/top.v.
`include "aggnet_hub_board.vh"

module top (
    input  wire        clk_25mhz,
    input  wire        btn_fire1,
    output wire        wifi_en,   // ESP32 EN: low keeps the ESP32 in reset
    input  wire [15:0] pe_rx,     // PE k's cable TXD -> FPGA
    output wire [15:0] pe_tx,     // FPGA -> PE k's cable RXD
    output wire [7:0]  led,
    input  wire        uart_rx,   // the USB UART's TXD -> FPGA
    output wire        uart_tx    // FPGA -> the USB UART's RXD
);
    localparam integer N = 16;
    localparam integer H = 16;          // PEs on header UARTs (PE k on stream k)
    localparam integer W = 20;         // papers_hub's register width at N = 16 (for the tie-offs)
    localparam integer LW = 22;        // and its LED column width
    localparam integer HUB_KHZ = 90000;
    localparam integer BAUD = 3000000;
    localparam integer FAST_BAUD = 12000000;
    localparam integer FAST_STREAMS = 4;
    localparam integer USB_BAUD = 3000000;
    // 0.1 s: more than the hosts' resend timeout (libaggnet: 20 ms); a
    // parameter so that simulation can shorten it.
    parameter integer KEEPALIVE = HUB_KHZ * 100;
    localparam integer CNT_W = 16;       // the mux's counters (docs/link_mux.md), read in INFO

    // CLKI_DIV = 5, CLKFB_DIV = 18, CLKOP_DIV = 6, CLKOP_CPHASE = 2 (PFD 5 MHz, VCO 540 MHz)
    wire clk, pll_locked;
    pll #(.ARCH("ECP5"), .IN_KHZ(25000), .OUT_KHZ(HUB_KHZ),
          .CLKI_DIV(5), .CLKFB_DIV(18), .CLKOP_DIV(6), .CLKOP_CPHASE(2))
        u_pll (.clk_in(clk_25mhz), .clk_out(clk), .locked(pll_locked));

    wire rst;
    por #(.BITS(4)) u_por (.clk(clk), .ext_rst(btn_fire1 || !pll_locked), .rst(rst));

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
                     .PAPERS_PINS(0),  // no PAPERS pins: every PE is on its UART (link-only PAPERS)
                     .MUX_LUTRAM(1)) u_hub (  // the mux's small memories in LUT RAM: reads from a flip-flop
        .clk(clk), .rst(rst),
        `AGGNET_HUB_TIEOFF  // every engine's pins: the PEs are on the UARTs
        .pe_rx(pe_rx), .pe_tx(pe_tx),
        .usb_rx(uart_rx), .usb_tx(uart_tx),
        .stream_absent(stream_absent)
    );

    assign led = ~(stream_absent[7:0] | stream_absent[15:8]);
    wire unused_ok = &{1'b0, stream_absent[H]};  // the USB stream: no LED left for it
    assign wifi_en = 1'b0;
endmodule
`default_nettype wire
