`default_nettype none
// uart_stream: a UART's two pins as the link's byte streams (docs/link.md):
// rtl/common/sync2.v on the rx pin, uart_rx, uart_tx.  What a board top puts
// between its USB UART pins and rtl/hub/aggnet_hub.v's link port, and what
// link_uart puts in front of its own link_port.  The model is the serial
// channel of Hall's compute node to COP link (seed 004 chapter IV); the
// departure is uart_rx's and uart_tx's: an 8N1 UART carrying bytes, with a
// framing-error flag, instead of Spanceiver words.
//
// Pins: rx (asynchronous, idle high; synchronized here), tx (registered,
// idle high).
// Streams: rx_valid/rx_data/rx_ferr: one-cycle pulses, a received byte (or a
// framing error instead), one per character time at most; tx_valid/
// tx_ready/tx_data: a byte is taken when both are high, sent at once.
//
// Timing (clk cycles): a bit is sampled mid-bit 2 cycles after it reaches the
// pin (sync2); the byte comes out the cycle after the middle of its stop bit
// (uart_rx).  tx starts the start bit the cycle after a byte is taken.
//
// Parameters: CLK_HZ and BAUD as uart_rx and uart_tx (CLK_HZ >= 4*BAUD;
// the receiver tolerates a sender at least 2% fast or slow); checked there.
module uart_stream #(
    parameter integer CLK_HZ = 48000000,
    parameter integer BAUD   = 12000000
) (
    input  wire       clk,
    input  wire       rst,
    input  wire       rx,
    output wire       tx,
    output wire       rx_valid,
    output wire [7:0] rx_data,
    output wire       rx_ferr,
    input  wire       tx_valid,
    output wire       tx_ready,
    input  wire [7:0] tx_data
);
    wire rx_q;
    sync2 #(.W(1)) u_sync (.clk(clk), .rst(rst), .d(rx), .q(rx_q));

    uart_rx #(.CLK_HZ(CLK_HZ), .BAUD(BAUD)) u_urx (
        .clk(clk), .rst(rst), .rx(rx_q), .valid(rx_valid), .data(rx_data),
        .ferr(rx_ferr)
    );

    uart_tx #(.CLK_HZ(CLK_HZ), .BAUD(BAUD)) u_utx (
        .clk(clk), .rst(rst), .in_valid(tx_valid), .in_ready(tx_ready),
        .in_data(tx_data), .tx(tx)
    );
endmodule
`default_nettype wire
