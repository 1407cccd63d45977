`default_nettype none
// uart_rx: 8N1 UART receiver for the aggnet link (docs/link.md).  The model
// is the serial channel of seed 004 chapter IV (Hall's compute node to COP
// link); departure: Hall's Spanceiver reports a bad word and the COP asks
// for a resend, while this receiver only flags a bad stop bit (ferr) and the
// link's CRC catches the rest.
//
// Contract:
//   rx      the serial line, idle high, ALREADY SYNCHRONIZED to clk (link_uart
//           puts rtl/common/sync2.v in front of it).
//   valid   one-cycle pulse: data holds a byte whose stop bit was high.
//   ferr    one-cycle pulse instead of valid when the stop bit was low
//           (framing error); the receiver then waits for the line to return
//           high before it looks for the next start bit.
// For formal/link_uart_rx_props.v only (under `ifdef FORMAL): f_busy (a
// character is being received), f_sample (rx is sampled in this cycle: start
// re-check, 8 data bits, stop bit), f_half, f_acc and f_shreg (the half-bit
// counter, the phase accumulator and the shift register).
//
// Timing: a start bit is a falling edge of rx (high in one cycle, low in the
// next); call the cycle where rx is first low t = 0.  Bit k (0 = start,
// 1..8 = data LSB first, 9 = stop) is sampled in cycle
//   t_k = ceil((k + 1/2) * CLK_HZ / BAUD),
// i.e. at the middle of the bit as the receiver's clock sees it.  A fractional
// CLK_HZ/BAUD is exact on average: a phase accumulator counts half bits in
// units of gcd(CLK_HZ, 2*BAUD), so there is no rounding of the bit period.
// The start bit is checked again at t_0: a glitch shorter than half a bit is
// ignored.  The byte (valid or ferr) comes out in the cycle after t_9.
//
// Tolerance: the sample of bit k falls in the sender's bit k as long as the
// sender's bit period differs by less than about 1/(2*9.5) from nominal, less
// the clock quantisation (at 4 clocks per bit: -2.5% .. +5.5%); test_link_uart
// checks +-2% and shows that +-7% fails.
//
// Parameters: CLK_HZ >= 4*BAUD (at least 4 clocks per bit), BAUD >= 1,
// CLK_HZ <= 2^30; the reduced ratio CLK_HZ:2*BAUD must keep its numerator
// below 2^28.
module uart_rx #(
    parameter integer CLK_HZ = 48000000,
    parameter integer BAUD   = 12000000
) (
    input  wire       clk,
    input  wire       rst,
    input  wire       rx,
    output reg        valid,
    output reg  [7:0] data,
    output reg        ferr
`ifdef FORMAL
    ,
    output wire       f_busy,
    output wire       f_sample,
    output wire [4:0] f_half,
    output wire [31:0] f_acc,
    output wire [7:0] f_shreg
`endif
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

    localparam integer G  = gcd(CLK_HZ, 2 * BAUD);
    localparam integer M  = CLK_HZ / G;      // half bit = M/A clocks
    localparam integer A  = (2 * BAUD) / G;
    localparam integer AW = $clog2(M + A + 1);
    localparam integer DW = AW + 1;           // d below, signed
    localparam integer DAM_I = A - M;
    localparam [DW-1:0] D_A  = A[DW-1:0];
    localparam [DW-1:0] D_AM = DAM_I[DW-1:0];

    generate
        if (BAUD < 1 || CLK_HZ > (1 << 30) || CLK_HZ < 4 * BAUD) begin : g_bad_rate
            $error("uart_rx: need BAUD >= 1, CLK_HZ <= 2^30 and CLK_HZ >= 4*BAUD");
        end
        if (M >= (1 << 28)) begin : g_bad_ratio
            $error("uart_rx: CLK_HZ:2*BAUD reduces to a numerator >= 2^28; pick rounder rates");
        end
    endgenerate

    reg          active;
    reg          prev;       // rx in the previous cycle (edge detection)
    reg [4:0]    half;       // half-bit ticks so far, 0..19
    reg [7:0]    shreg;
    // The phase accumulator acc = t*A - ticks*M is kept as d = acc + A - M,
    // so that "a half bit is complete" (acc + A >= M) is d's sign bit, a
    // flop (timing: the add and the compare in front of the data register's
    // clock enable were the ECP5 link hub's critical path):
    //   no tick: acc' = acc + A      -> d' = d + A
    //   tick:    acc' = acc + A - M  -> d' = d + A - M
    reg [DW-1:0] d;

    wire          tick = active && !d[DW-1];
    wire          sample = tick && !half[0];   // ticks 1, 3, ..., 19: middle of bit half/2
`ifdef FORMAL
    wire [DW-1:0] acc_of_d = d - D_AM;
    assign f_busy   = active;
    assign f_sample = sample;
    assign f_half   = half;
    assign f_acc    = {{(32 - DW){1'b0}}, acc_of_d};
    assign f_shreg  = shreg;
`endif

    always @(posedge clk) begin
        valid <= 1'b0;
        ferr  <= 1'b0;
        prev  <= rx;
        if (rst) begin
            active <= 1'b0;
            prev   <= 1'b1;
            d      <= D_AM;
            half   <= 5'd0;
            shreg  <= 8'h00;
            data   <= 8'h00;
        end else if (!active) begin
            if (prev && !rx) begin
                active <= 1'b1;
                d      <= D_AM;
                half   <= 5'd0;
            end
        end else begin
            d <= d + (tick ? D_AM : D_A);
            if (tick) begin
                half <= half + 5'd1;
                if (sample) begin
                    if (half == 5'd0) begin
                        if (rx) active <= 1'b0;           // not a start bit after all
                    end else if (half == 5'd18) begin     // stop bit
                        active <= 1'b0;
                        if (rx) begin
                            valid <= 1'b1;
                            data  <= shreg;
                        end else begin
                            ferr  <= 1'b1;
                        end
                    end else begin
                        shreg <= {rx, shreg[7:1]};
                    end
                end
            end
        end
    end
endmodule
`default_nettype wire
