`default_nettype none
// por: power-on reset for board tops.  Holds rst high for 2**BITS cycles after
// configuration (iCE40 and ECP5 flops power up at 0), and again while the
// active-high request input ext_rst is held (after a 2-flop synchronizer).
//
// Parameters: BITS in 2..24.
module por #(
    parameter integer BITS = 4
) (
    input  wire clk,
    input  wire ext_rst,
    output wire rst
);
    generate
        if (BITS < 2 || BITS > 24) begin : g_bad_bits
            $error("por: BITS must be in 2..24");
        end
    endgenerate

    reg [1:0] ext_sync = 2'b00;
    reg [BITS-1:0] count = {BITS{1'b0}};
    reg done = 1'b0;

    always @(posedge clk) begin
        ext_sync <= {ext_sync[0], ext_rst};
        if (ext_sync[1]) begin
            count <= {BITS{1'b0}};
            done  <= 1'b0;
        end else if (!done) begin
            count <= count + 1'b1;
            done  <= &count;
        end
    end

    assign rst = !done;
endmodule
`default_nettype wire
