`default_nettype none
// formal/link_uart_rx_props.v: formal harness for rtl/link/uart_rx.v.  The
// (synchronized) line rx is free every cycle; reset in the first cycle is the
// only assumption.  Parameter N is CLK_HZ, with BAUD = 3 (formal/run.py:
// N = 12 is 4 clocks per bit, N = 25 is 8.33, a fractional ratio).
//
// With cycle 0 the cycle in which the receiver sees the start edge (rx low,
// high the cycle before), and t the cycles since, written from the module's
// contract (bit k's middle is at (k + 1/2) * CLK_HZ / BAUD):
//   (s1) a character starts only on a falling edge of rx.
//   (s2) the k-th sample (k = 0 start, 1..8 data, 9 stop) is taken in cycle
//        t_k = ceil((k + 1/2) * CLK_HZ / BAUD): the first clock at or after
//        the middle of bit k, so always inside bit k's window
//        [k, k+1) * CLK_HZ/BAUD; there are at most 10 samples and none
//        outside a character.
//   (s3) a byte (valid) holds the 8 data samples, LSB first, and comes only
//        when the stop sample was high; ferr only when it was low.
//   (i*) invariants: the phase accumulator and half-bit count against t.
// SELFTEST negative controls (must FAIL): SELFTEST_EARLY claims every sample
// is at least a cycle after t_k; SELFTEST_NOBYTE claims no byte is received.
module link_uart_rx_props #(
    parameter integer N = 12
) (
    input wire clk,
    input wire rst,
    input wire rx
);
    localparam integer CLK_HZ = N;
    localparam integer BAUD   = 3;

    wire       valid, ferr, f_busy, f_sample;
    wire [7:0] data, f_shreg;
    wire [4:0] f_half;
    wire [31:0] f_acc;

    uart_rx #(.CLK_HZ(CLK_HZ), .BAUD(BAUD)) dut (
        .clk(clk), .rst(rst), .rx(rx), .valid(valid), .data(data), .ferr(ferr),
        .f_busy(f_busy), .f_sample(f_sample), .f_half(f_half), .f_acc(f_acc), .f_shreg(f_shreg)
    );

`ifdef FORMAL
    // half a bit is M/A clocks, the ratio CLK_HZ : 2*BAUD in lowest terms
    // (computed here again, not taken from the RTL)
    function integer gcd(input integer x, input integer y);
        integer p, q, r, i;
        begin
            p = x;
            q = y;
            for (i = 0; i < 64; i = i + 1)
                if (q != 0) begin
                    r = p % q;
                    p = q;
                    q = r;
                end
            gcd = p;
        end
    endfunction
    localparam integer M = CLK_HZ / gcd(CLK_HZ, 2 * BAUD);
    localparam integer A = 2 * BAUD / gcd(CLK_HZ, 2 * BAUD);

    reg        h_prev;     // rx in the previous cycle
    reg [7:0]  h_t;        // while busy: the current cycle, counted from the start edge (cycle 0)
    reg [3:0]  h_k;        // samples taken so far in this character
    reg [7:0]  h_sh;       // data samples, LSB first

    always @(posedge clk) begin
        if (rst) begin
            h_prev <= 1'b1;
            h_t    <= 8'd0;
            h_k    <= 4'd0;
            h_sh   <= 8'h00;
        end else begin
            h_prev <= rx;
            if (!f_busy) begin
                h_t <= 8'd1;
                h_k <= 4'd0;
            end else begin
                h_t <= h_t + 8'd1;
                if (f_sample) begin
                    h_k <= h_k + 4'd1;
                    if (h_k >= 4'd1 && h_k <= 4'd8) h_sh <= {rx, h_sh[7:1]};
                end
            end
        end
    end

    wire [31:0] t  = {24'h0, h_t};
    wire [31:0] hf = {27'h0, f_half};
    wire [31:0] k  = {28'h0, h_k};

    reg past_valid = 1'b0;
    always @(posedge clk) past_valid <= 1'b1;
    initial assume (rst);

    always @* begin
        if (past_valid && !rst) begin
            assert (f_shreg == h_sh);                               // (i*)
            if (f_busy) begin
                assert (f_acc == (t - 1) * A - hf * M);             // (i*) acc = (t-1)A - ticks*M
                assert (f_acc < M);
                assert (f_half <= 5'd18);
                assert (h_k == ((f_half + 5'd1) >> 1));
            end else begin
                assert (!f_sample);                                 // (s2) no sample outside a character
            end
            if (f_sample) begin                                     // (s2) t = ceil((2k+1) M / A)
                assert (t * A >= (2 * k + 1) * M);
                assert ((t - 1) * A < (2 * k + 1) * M);
                assert (h_k <= 4'd9);
`ifdef SELFTEST_EARLY
                assert (t * A >= (2 * k + 1) * M + A);
`endif
            end
        end
    end

    always @(posedge clk) begin
        if (past_valid && !$past(rst)) begin
            if (f_busy && !$past(f_busy)) assert ($past(h_prev) && !$past(rx));      // (s1)
            if (valid) assert (data == h_sh && $past(rx) && $past(f_sample) && $past(h_k) == 4'd9);   // (s3)
            if (ferr)  assert (!$past(rx) && $past(f_sample) && $past(h_k) == 4'd9);
            if (($past(f_sample) && $past(h_k) == 4'd9)) assert (valid != ferr);
`ifdef SELFTEST_NOBYTE
            assert (!valid);
`endif
        end
    end
`endif
endmodule
`default_nettype wire
