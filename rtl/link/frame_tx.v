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

    // Timing: every byte comes out of one register.  The fields are loaded
    // into a 14-byte shift register, the payload right-aligned as given; in
    // the first active cycle (the FLAG's, which is never also a data byte's)
    // the payload is shifted up to meet the header, so the byte on the wire
    // is always sh's top byte and the CRC bytes are loaded into its top when
    // the last data byte goes out.  No index compare or byte mux lies between
    // a register and the ESC decision (the UP5K placed the indexed version at
    // 28 MHz, this path being the critical one).
    reg         active;
    reg         sflag;      // the FLAG is next
    reg         esc_sent;   // the ESC of the current byte has gone out
    reg         align;      // the payload still has to be shifted up to the header
    reg         data;       // sending header and payload (else the CRC)
    reg  [4:0]  left;       // bytes of this phase still to go, the current one included
    reg  [3:0]  r_len;
    reg  [111:0] sh;        // pe, op, seq, addr (2), len, payload (8)
    reg  [15:0] crc;

    wire [7:0] cur = sh[111:104];
    wire need_esc = cur == LINK_FLAG || cur == LINK_ESC;
    wire [15:0] crc_nx;
    crc16 #(.POLY(LINK_CRC_POLY)) u_crc (.crc_in(crc), .data(cur), .crc_out(crc_nx));

    assign in_ready  = !active;
    assign out_valid = active;
    assign out_data  = sflag ? LINK_FLAG :
                       (need_esc && !esc_sent) ? LINK_ESC :
                       esc_sent ? (cur ^ LINK_ESC_XOR) : cur;

    wire [6:0] pad = {4'd8 - r_len, 3'b000};  // bits above the payload's top byte (len 0: 64, all)

    always @(posedge clk) begin
        if (rst) begin
            active   <= 1'b0;
            sflag    <= 1'b0;
            esc_sent <= 1'b0;
            align    <= 1'b0;
            data     <= 1'b0;
            left     <= 5'd0;
            r_len    <= 4'd0;
            sh       <= 112'h0;
            crc      <= LINK_CRC_INIT;
        end else if (!active) begin
            if (in_valid) begin
                active   <= 1'b1;
                sflag    <= 1'b1;
                esc_sent <= 1'b0;
                align    <= 1'b1;
                data     <= 1'b1;
                left     <= 5'd6 + {1'b0, in_len};
                r_len    <= in_len;
                sh       <= {in_pe, in_op, in_seq, in_addr, 4'h0, in_len, in_payload};
                crc      <= LINK_CRC_INIT;
            end
        end else begin
            if (align) begin
                align    <= 1'b0;
                sh[63:0] <= (r_len == 4'd0) ? 64'h0 : sh[63:0] << pad;
            end
            if (out_ready) begin
                if (sflag) begin
                    sflag <= 1'b0;
                end else if (need_esc && !esc_sent) begin
                    esc_sent <= 1'b1;
                end else begin
                    esc_sent <= 1'b0;
                    left     <= left - 5'd1;
                    if (data) begin
                        crc <= crc_nx;
                        if (left == 5'd1) begin
                            data        <= 1'b0;
                            left        <= 5'd2;
                            sh[111:96]  <= crc_nx;
                        end else begin
                            sh <= sh << 8;
                        end
                    end else begin
                        sh <= sh << 8;
                        if (left == 5'd1) active <= 1'b0;
                    end
                end
            end
        end
    end
endmodule
`default_nettype wire
