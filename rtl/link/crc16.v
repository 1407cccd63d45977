`default_nettype none
// crc16: one byte step of the link CRC, CRC-16/CCITT-FALSE (polynomial
// 0x1021, not reflected, no final XOR; the register starts at 0xFFFF and the
// check value over "123456789" is 0x29B1).  docs/link.md, generated from
// tools/linkgen.py, is the specification; seed 004 chapter IV is the model
// for the link it protects (Hall's Spanceiver checks each word in hardware;
// a UART does not, so every frame carries this CRC instead).
//
// Contract: crc_out = the CRC register after shifting `data` (most
// significant bit first) into crc_in.  Purely combinational, 8 unrolled
// shift/XOR steps; frame_rx and frame_tx instantiate it once each.
// Parameters: POLY, the polynomial (frame_rx and frame_tx pass
// LINK_CRC_POLY from link_defs.vh); any 16-bit value with bit 0 set.
module crc16 #(
    parameter [15:0] POLY = 16'h1021
) (
    input  wire [15:0] crc_in,
    input  wire [7:0]  data,
    output reg  [15:0] crc_out
);
    generate
        if (!POLY[0]) begin : g_bad_poly
            $error("crc16: POLY must have bit 0 set (x^0 term)");
        end
    endgenerate

    integer i;
    reg [15:0] c;
    always @* begin
        c = crc_in ^ {data, 8'h00};
        for (i = 0; i < 8; i = i + 1) begin
            c = c[15] ? ({c[14:0], 1'b0} ^ POLY) : {c[14:0], 1'b0};
        end
        crc_out = c;
    end
endmodule
`default_nettype wire
