`default_nettype none
// uart_tx: 8N1 UART transmitter for the aggnet link (docs/link.md); the
// model is the serial channel of seed 004 chapter IV (Hall's Spanceiver
// serialises 32-bit words; departure: a plain 8N1 UART, one byte at a time).
//
// Contract:
//   in_valid/in_ready/in_data  a byte is taken when in_valid && in_ready.
//   tx                         the serial line (registered; idle high).
// A taken byte waits in a one-byte buffer; in_ready is that buffer being
// empty, a register (timing: the phase accumulator's compare drove in_ready,
// and through it the byte source's next-state logic, on the UP5K's critical
// path).  A byte taken while idle starts its start bit two clock edges later;
// bit j (0 = start, 1..8 = data LSB first, 9 = stop) begins ceil(j * CLK_HZ /
// BAUD) cycles after that start, so a fractional CLK_HZ/BAUD is exact on
// average (phase accumulator, no rounding of the bit period).  The tick
// that ends a bit is registered a cycle ahead (tick_r: acc + A >= M for the
// accumulator's next value, a compare of this cycle's sum with a constant),
// so the adder and its compare end at a flip-flop instead of running on
// into the start/stop logic (timing: on the ULX3S with three engines, and
// the HX8K with the NAND engine, that chain was the critical path).  A byte
// buffered while another is sent starts as the stop bit ends, so bytes
// offered back to back follow each other with no gap.
//
// Parameters: CLK_HZ >= 2*BAUD, BAUD >= 1, CLK_HZ <= 2^30; the reduced ratio
// CLK_HZ:BAUD must keep its numerator below 2^28.
module uart_tx #(
    parameter integer CLK_HZ = 48000000,
    parameter integer BAUD   = 12000000
) (
    input  wire       clk,
    input  wire       rst,
    input  wire       in_valid,
    output wire       in_ready,
    input  wire [7:0] in_data,
    output reg        tx
);
    function integer gcd(input integer a, input integer b);
        integer x, y, t, i;
        begin
            x = a;
            y = b;
            for (i = 0; i < 64; i = i + 1) begin
                if (y != 0) begin
                    t = x % y;
                    x = y;
                    y = t;
                end
            end
            gcd = x;
        end
    endfunction

    localparam integer G  = gcd(CLK_HZ, BAUD);
    localparam integer M  = CLK_HZ / G;      // bit = M/A clocks
    localparam integer A  = BAUD / G;
    localparam integer AW = $clog2(M + A + 1);
    localparam integer MA = M - A;           // sum >= MA: the next cycle ticks

    generate
        if (BAUD < 1 || CLK_HZ > (1 << 30) || CLK_HZ < 2 * BAUD) begin : g_bad_rate
            $error("uart_tx: need BAUD >= 1, CLK_HZ <= 2^30 and CLK_HZ >= 2*BAUD");
        end
        if (M >= (1 << 28)) begin : g_bad_ratio
            $error("uart_tx: CLK_HZ:BAUD reduces to a numerator >= 2^28; pick rounder rates");
        end
    endgenerate

    reg          active;
    reg [AW-1:0] acc;
    reg [3:0]    nbit;       // bits started so far, 1..10
    reg          on_stop;    // nbit == 10, registered with nbit (timing: the
                             // compare fed start, and through it acc, active
                             // and the shift, on the UP5K's 48 MHz critical path)
    reg [8:0]    shreg;      // bits still to send after the current one

    wire [AW-1:0] sum  = acc + A[AW-1:0];
    // tick == active && acc + A >= M, kept in a register: after a start acc
    // is 0 (no tick, A < M); after a tick acc + A - M + A < M (M >= 2A), so
    // no tick; otherwise the next acc is sum, which ticks next when
    // sum >= M - A.
    reg           tick_r;
    wire          tick = tick_r;
    wire          last = tick && on_stop;
    reg           b_full;
    reg  [7:0]    b_data;
    wire          start = b_full && (!active || last);
    assign in_ready = !b_full;

    always @(posedge clk) begin
        if (rst) begin
            active <= 1'b0;
            acc    <= {AW{1'b0}};
            nbit   <= 4'd0;
            on_stop <= 1'b0;
            shreg  <= 9'h1ff;
            tx     <= 1'b1;
            tick_r <= 1'b0;
            b_full <= 1'b0;
            b_data <= 8'h00;
        end else begin
            if (active) acc <= tick ? sum - M[AW-1:0] : sum;
            tick_r <= active && !start && !last && !tick && sum >= MA[AW-1:0];
            if (in_valid && !b_full) begin
                b_full <= 1'b1;
                b_data <= in_data;
            end
            if (start) begin
                b_full <= 1'b0;
                active <= 1'b1;
                acc    <= {AW{1'b0}};
                nbit   <= 4'd1;
                on_stop <= 1'b0;
                tx     <= 1'b0;                  // start bit
                shreg  <= {1'b1, b_data};        // data LSB first, then stop
            end else if (last) begin
                active <= 1'b0;
                tx     <= 1'b1;
            end else if (tick) begin
                nbit  <= nbit + 4'd1;
                on_stop <= nbit == 4'd9;
                tx    <= shreg[0];
                shreg <= {1'b1, shreg[8:1]};
            end
        end
    end
endmodule
`default_nettype wire
