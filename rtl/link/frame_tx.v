`default_nettype none
// frame_tx: link frame transmitter (docs/link.md, generated from
// tools/linkgen.py): frame fields in, FLAG and stuffed bytes out, CRC
// appended.  The model is the transmit side of Hall's COP channel (seed 004
// chapter IV: the controller loads the four transmit buffer registers in
// parallel and the interface controller hands the words to the Spanceiver in
// sequence).  Departure: bytes with HDLC-like stuffing and a CRC-32 instead
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
//                      addr (2), len, payload, crc (4), each FLAG or ESC byte
//                      sent as ESC, byte ^ 0x20.  out_data is stable while
//                      out_valid is high and out_ready low.
// A frame of len L takes 11 + L bytes plus one per escaped byte; the first
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
    // a register and the ESC decision (the indexed version missed the
    // UP5K's 48 MHz by far, this path being the critical one).
    reg         active;
    reg         sflag;      // the FLAG is next
    reg         esc_sent;   // the ESC of the current byte has gone out
    reg         align;      // the payload still has to be shifted up to the header
    reg         data;       // sending header and payload (else the CRC)
    reg  [4:0]  left;       // bytes of this phase still to go, the current one included
    reg         one_left;   // left == 1, registered with left (timing)
    reg  [111:0] sh;        // pe, op, seq, addr (2), len, payload (8)
    reg  [31:0] crc;

    wire [7:0] cur = sh[111:104];
    // need_esc: cur is FLAG or ESC, registered with every change of cur
    // (timing: the compare fed the shift's enable on the UP5K's critical path)
    reg need_esc;
    // plain: the byte offered is neither the FLAG nor an ESC, so the next
    // out_ready consumes cur (= !sflag && (!need_esc || esc_sent)), kept as a
    // register (timing: on the UP5K at 48 MHz the path need_esc -> that
    // decode -> the UART's ready -> the 112-bit shift was the critical one).
    reg plain;
    function special(input [7:0] b);
        special = b == LINK_FLAG || b == LINK_ESC;
    endfunction
    wire [31:0] crc_nx;
    link_crc #(.W(32), .POLY(LINK_CRC_POLY)) u_crc (.crc_in(crc), .data(cur), .crc_out(crc_nx));

    assign in_ready  = !active;
    assign out_valid = active;
    assign out_data  = sflag ? LINK_FLAG :
                       (need_esc && !esc_sent) ? LINK_ESC :
                       esc_sent ? (cur ^ LINK_ESC_XOR) : cur;

    // Bytes above the payload's top byte, registered at the load (len 0: a
    // zero payload, nothing to align); the align shift is then a 3-level mux.
    reg  [2:0]  r_pad;
    reg         r_none;
    wire [63:0] al0 = r_pad[2] ? {sh[31:0], 32'h0} : sh[63:0];
    wire [63:0] al1 = r_pad[1] ? {al0[47:0], 16'h0} : al0;
    wire [63:0] al2 = r_pad[0] ? {al1[55:0], 8'h0} : al1;

    always @(posedge clk) begin
        if (rst) begin
            active   <= 1'b0;
            sflag    <= 1'b0;
            esc_sent <= 1'b0;
            align    <= 1'b0;
            data     <= 1'b0;
            left     <= 5'd0;
            one_left <= 1'b0;
            r_pad    <= 3'd0;
            r_none   <= 1'b1;
            sh       <= 112'h0;
            need_esc <= 1'b0;
            plain    <= 1'b0;
            crc      <= LINK_CRC_INIT;
        end else if (!active) begin
            // Idle, the fields are copied in every cycle and in_valid only
            // starts the frame: it enables none of the 112 + bits (timing).
            active   <= in_valid;
            sflag    <= 1'b1;
            esc_sent <= 1'b0;
            align    <= 1'b1;
            data     <= 1'b1;
            left     <= 5'd6 + {1'b0, in_len};
            one_left <= 1'b0;
            r_pad    <= 3'd0 - in_len[2:0];  // 8 - len, mod 8 (len 8: 0)
            r_none   <= in_len == 4'd0;
            sh       <= {in_pe, in_op, in_seq, in_addr, 4'h0, in_len, in_payload};
            need_esc <= special(in_pe);
            plain    <= 1'b0;  // the FLAG first
            crc      <= LINK_CRC_INIT;
        end else begin
            if (align) begin
                align    <= 1'b0;
                sh[63:0] <= r_none ? 64'h0 : al2;
            end
            if (out_ready) begin
                if (!plain) begin
                    // The FLAG, or the ESC before a FLAG or ESC byte; cur stays.
                    sflag    <= 1'b0;
                    esc_sent <= !sflag;
                    plain    <= !sflag || !need_esc;
                end else begin
                    esc_sent <= 1'b0;
                    left     <= left - 5'd1;
                    one_left <= left == 5'd2;
                    if (data) begin
                        crc <= crc_nx;
                        if (one_left) begin
                            data        <= 1'b0;
                            left        <= LINK_CRC_BYTES[4:0];
                            one_left    <= 1'b0;
                            sh[111:80]  <= crc_nx;
                            need_esc    <= special(crc_nx[31:24]);
                            plain       <= !special(crc_nx[31:24]);
                        end else begin
                            sh <= sh << 8;
                            need_esc <= special(sh[103:96]);
                            plain    <= !special(sh[103:96]);
                        end
                    end else begin
                        sh <= sh << 8;
                        need_esc <= special(sh[103:96]);
                        plain    <= !special(sh[103:96]);
                        if (one_left) active <= 1'b0;
                    end
                end
            end
        end
    end
endmodule
`default_nettype wire
