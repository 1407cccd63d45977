`default_nettype none
// link_crc: one byte step of the link CRC, CRC-32/MPEG-2 (polynomial
// 0x04C11DB7, not reflected, no final XOR; the register starts at
// 0xFFFFFFFF and the check value over "123456789" is 0x0376E6E7).
// docs/link.md, generated from tools/linkgen.py, is the specification, and
// says why 32 bits; seed 004 chapter IV is the model for the link it
// protects (Hall's Spanceiver checks each word in hardware; a UART does not,
// so every frame carries this CRC instead).
//
// Contract: crc_out = the CRC register after shifting `data` (most
// significant bit first) into crc_in.  Purely combinational, 8 unrolled
// shift/XOR steps; frame_rx and frame_tx instantiate it once each.
// Parameters: W, the CRC width (16..32), and POLY, the polynomial (frame_rx
// and frame_tx pass LINK_CRC_POLY from link_defs.vh); any W-bit value with
// bit 0 set.
module link_crc #(
    parameter integer  W    = 32,
    parameter [W-1:0]  POLY = 32'h04C11DB7
) (
    input  wire [W-1:0] crc_in,
    input  wire [7:0]   data,
    output reg  [W-1:0] crc_out
);
    generate
        if (W < 16 || W > 32) begin : g_bad_w
            $error("link_crc: W must be 16..32");
        end
        if (!POLY[0]) begin : g_bad_poly
            $error("link_crc: POLY must have bit 0 set (x^0 term)");
        end
    endgenerate

    integer i;
    reg [W-1:0] c;
    always @* begin
        c = crc_in ^ ({{(W - 8){1'b0}}, data} << (W - 8));
        for (i = 0; i < 8; i = i + 1) begin
            c = c[W-1] ? ({c[W-2:0], 1'b0} ^ POLY) : {c[W-2:0], 1'b0};
        end
        crc_out = c;
    end
endmodule
`default_nettype wire
