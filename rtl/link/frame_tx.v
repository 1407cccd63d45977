`default_nettype none
// frame_tx: link frame transmitter (docs/link.md, generated from
// tools/linkgen.py): frame fields in, FLAG and stuffed bytes out, CRC
// appended.  The model is the transmit side of Hall's COP channel (seed 004
// chapter IV: the controller loads the four transmit buffer registers in
// parallel and the interface controller hands the words to the Spanceiver in
// sequence).  Departure: bytes with HDLC-like stuffing and a CRC-16 instead
// of 32-bit Spanceiver words.
//
// Contract:
//   in_valid/in_ready  a frame's fields are taken when both are high; they are
//                      copied, so the source may change them afterwards.
//                      in_ready is high only while idle.
//   in_payload         right-aligned: payload byte i of in_len is
//                      in_payload[8*(in_len-1-i) +: 8] (big-endian value in the
//                      low bytes); in_len 0..8.
//   out_valid/out_ready/out_data  the byte stream: FLAG, then pe, op, seq,
//                      addr (2), len, payload, crc (2), each FLAG or ESC byte
//                      sent as ESC, byte ^ 0x20.  out_data is stable while
//                      out_valid is high and out_ready low.
// A frame of len L takes 9 + L bytes plus one per escaped byte; the first
// byte (FLAG) is offered in the cycle after the fields are taken.
//
// Parameters: none.
module frame_tx (
    input  wire        clk,
    input  wire        rst,
    input  wire        in_valid,
    output wire        in_ready,
    input  wire [7:0]  in_pe,
    input  wire [7:0]  in_op,
    input  wire [7:0]  in_seq,
    input  wire [15:0] in_addr,
    input  wire [3:0]  in_len,
    input  wire [63:0] in_payload,
    output wire        out_valid,
    input  wire        out_ready,
    output wire [7:0]  out_data
);
`include "link_defs.vh"

    reg        active;
    reg        sflag;      // the FLAG is next
    reg        esc_sent;   // the ESC of the current byte has gone out
    reg [4:0]  p;          // unstuffed byte index after the FLAG
    reg [7:0]  r_pe, r_op, r_seq;
    reg [15:0] r_addr;
    reg [3:0]  r_len;
    reg [63:0] r_pay;
    reg [15:0] crc;

    wire [4:0] pay_end = 5'd6 + {1'b0, r_len};   // index of crc_hi
    wire [2:0] j       = r_len[2:0] + 3'd5 - p[2:0];  // payload byte from the LSB: len-1-(p-6) mod 8
    reg  [7:0] cur;
    always @* begin
        case (p)
            5'd0: cur = r_pe;
            5'd1: cur = r_op;
            5'd2: cur = r_seq;
            5'd3: cur = r_addr[15:8];
            5'd4: cur = r_addr[7:0];
            5'd5: cur = {4'h0, r_len};
            default: begin
                if (p < pay_end) cur = r_pay[{j, 3'b000} +: 8];
                else if (p == pay_end) cur = crc[15:8];
                else cur = crc[7:0];
            end
        endcase
    end

    wire need_esc = cur == LINK_FLAG || cur == LINK_ESC;
    wire [15:0] crc_nx;
    crc16 #(.POLY(LINK_CRC_POLY)) u_crc (.crc_in(crc), .data(cur), .crc_out(crc_nx));

    assign in_ready  = !active;
    assign out_valid = active;
    assign out_data  = sflag ? LINK_FLAG :
                       (need_esc && !esc_sent) ? LINK_ESC :
                       esc_sent ? (cur ^ LINK_ESC_XOR) : cur;

    always @(posedge clk) begin
        if (rst) begin
            active   <= 1'b0;
            sflag    <= 1'b0;
            esc_sent <= 1'b0;
            p        <= 5'd0;
            r_pe     <= 8'h00;
            r_op     <= 8'h00;
            r_seq    <= 8'h00;
            r_addr   <= 16'h0000;
            r_len    <= 4'd0;
            r_pay    <= 64'h0;
            crc      <= LINK_CRC_INIT;
        end else if (!active) begin
            if (in_valid) begin
                active <= 1'b1;
                sflag  <= 1'b1;
                esc_sent <= 1'b0;
                p      <= 5'd0;
                r_pe   <= in_pe;
                r_op   <= in_op;
                r_seq  <= in_seq;
                r_addr <= in_addr;
                r_len  <= in_len;
                r_pay  <= in_payload;
                crc    <= LINK_CRC_INIT;
            end
        end else if (out_ready) begin
            if (sflag) begin
                sflag <= 1'b0;
            end else if (need_esc && !esc_sent) begin
                esc_sent <= 1'b1;
            end else begin
                esc_sent <= 1'b0;
                if (p < pay_end) crc <= crc_nx;
                p <= p + 5'd1;
                if (p == pay_end + 5'd1) active <= 1'b0;
            end
        end
    end
endmodule
`default_nettype wire
