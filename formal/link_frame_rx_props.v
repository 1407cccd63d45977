`default_nettype none
// formal/link_frame_rx_props.v: formal harness for rtl/link/frame_rx.v
// (docs/link.md).  The byte stream (in_valid, in_data) and out_ready are free
// every cycle; the only assumption is reset in the first cycle.
// Parameter N is frame_rx's IDLE_CYCLES (formal/run.py sets it).
//
// The harness keeps its own view of the wire, written from docs/link.md
// rather than from the RTL: an unstuffer (ESC -> next byte ^ 0x20), the
// header and payload bytes since the last FLAG, their count, the raw bytes
// since the FLAG, a bit-serial CRC-32/MPEG-2 over the unstuffed bytes,
// and the cycles since the last byte.  While the receiver is inside a frame
// (not hunting; it may give a frame up at any time) the harness takes the
// same bytes.
//
//   (p1) a delivered frame (ev_ok) carries exactly the pe, op, seq, addr, len
//        and payload bytes that came over the wire after its FLAG, and the
//        bit-serial CRC over those bytes followed by the four CRC bytes from
//        the wire is 0, i.e. CRC(pe..payload) equals the frame's CRC:
//        frame_rx never delivers a frame whose CRC fails.
//   (p2) inside a frame at most 35 raw bytes have been taken since the FLAG:
//        after 36 bytes that are not FLAG the receiver is hunting again.
//   (p3) after N cycles without a byte the receiver is hunting.
//   (i*) inductive invariants tying the receiver's state to the harness's
//        (byte index, ESC state, running CRC, header, length and payload
//        registers, the quiet counter).
// SELFTEST negative controls (must FAIL): SELFTEST_DELIVER claims no frame is
// ever delivered; SELFTEST_IDLE claims N-1 quiet cycles already end a frame.
module link_frame_rx_props #(
    parameter integer N = 3
) (
    input wire       clk,
    input wire       rst,
    input wire       in_valid,
    input wire [7:0] in_data,
    input wire       out_ready
);
    wire        out_valid;
    wire [7:0]  out_pe, out_op, out_seq;
    wire [15:0] out_addr;
    wire [3:0]  out_len;
    wire [63:0] out_payload;
    wire        ev_ok, ev_crc, ev_resync, ev_badlen, ev_timeout, ev_overrun;
    wire        f_hunt, f_esc;
    wire [4:0]  f_idx;
    wire [31:0] f_crc;
    wire [39:0] f_hdr;
    wire [3:0]  f_len;
    wire [63:0] f_pay;
    wire [31:0] f_quiet;
    wire        f_lastb, f_fin;
    wire [4:0]  f_pay_end, f_pre_last;
    wire        f_pay_ph, f_qend;

    frame_rx #(.IDLE_CYCLES(N)) dut (
        .clk(clk), .rst(rst), .in_valid(in_valid), .in_data(in_data),
        .out_valid(out_valid), .out_ready(out_ready), .out_pe(out_pe), .out_op(out_op),
        .out_seq(out_seq), .out_addr(out_addr), .out_len(out_len), .out_payload(out_payload),
        .ev_ok(ev_ok), .ev_crc(ev_crc), .ev_resync(ev_resync), .ev_badlen(ev_badlen),
        .ev_timeout(ev_timeout), .ev_overrun(ev_overrun),
        .f_hunt(f_hunt), .f_idx(f_idx), .f_esc(f_esc), .f_crc(f_crc), .f_hdr(f_hdr),
        .f_len(f_len), .f_pay(f_pay), .f_quiet(f_quiet), .f_lastb(f_lastb), .f_fin(f_fin),
        .f_pay_end(f_pay_end), .f_pre_last(f_pre_last), .f_pay_ph(f_pay_ph), .f_qend(f_qend)
    );

`ifdef FORMAL
    localparam [7:0] FLAG = 8'h7E, ESC = 8'h7D;

    function [31:0] crc_bit(input [31:0] c, input b);
        crc_bit = {c[30:0], 1'b0} ^ ((c[31] ^ b) ? 32'h04C11DB7 : 32'h00000000);
    endfunction
    function [31:0] crc_byte(input [31:0] c, input [7:0] d);
        integer i;
        reg [31:0] x;
        begin
            x = c;
            for (i = 7; i >= 0; i = i - 1) x = crc_bit(x, d[i]);
            crc_byte = x;
        end
    endfunction

    // ---- the harness's view of the wire ------------------------------------
    // frame_rx takes its input through a register stage (timing), so the
    // view is of the stream one cycle late: s_valid, s_data.
    reg          s_valid;
    reg  [7:0]   s_data;
    always @(posedge clk) begin
        s_valid <= in_valid && !rst;
        s_data  <= in_data;
    end
    reg          h_esc;
    reg  [4:0]   h_cnt;      // unstuffed bytes since the FLAG
    reg  [5:0]   h_raw;      // raw bytes since the FLAG
    reg  [39:0]  h_hdr;      // pe, op, seq, addr as received (stale bytes kept)
    reg  [3:0]   h_len;
    reg  [63:0]  h_pay;      // payload bytes shifted in, right-aligned
    reg  [31:0]  h_crc;      // bit-serial, over every unstuffed byte since the FLAG
    reg  [31:0]  h_quiet;    // cycles since the last byte (saturating)
    wire [7:0]   u = h_esc ? (s_data ^ 8'h20) : s_data;
    // the harness's view one cycle ago: a frame is delivered two cycles
    // after its last byte, when a FLAG may already have started the next
    reg  [39:0]  d_hdr;
    reg  [3:0]   d_len;
    reg  [63:0]  d_pay;
    reg  [4:0]   d_cnt;
    reg  [31:0]  d_crc;
    always @(posedge clk) begin
        d_hdr <= h_hdr;
        d_len <= h_len;
        d_pay <= h_pay;
        d_cnt <= h_cnt;
        d_crc <= h_crc;
    end

    always @(posedge clk) begin
        if (rst) begin
            h_esc   <= 1'b0;
            h_cnt   <= 5'd0;
            h_raw   <= 6'd0;
            h_hdr   <= 40'h0;
            h_len   <= 4'd0;
            h_pay   <= 64'h0;
            h_crc   <= 32'hFFFFFFFF;
            h_quiet <= 32'd0;
        end else begin
            h_quiet <= s_valid ? 32'd0 : (h_quiet == 32'd255 ? h_quiet : h_quiet + 32'd1);
            if (s_valid && s_data == FLAG) begin
                h_esc <= 1'b0;
                h_cnt <= 5'd0;
                h_raw <= 6'd0;
                h_len <= 4'd0;
                h_pay <= 64'h0;
                h_crc <= 32'hFFFFFFFF;
            end else if (s_valid && !f_hunt) begin
                h_raw <= h_raw + 6'd1;
                if (!h_esc && s_data == ESC) begin
                    h_esc <= 1'b1;
                end else begin
                    h_esc <= 1'b0;
                    h_cnt <= h_cnt + 5'd1;
                    h_crc <= crc_byte(h_crc, u);
                    case (h_cnt)
                        5'd0: h_hdr[39:32] <= u;
                        5'd1: h_hdr[31:24] <= u;
                        5'd2: h_hdr[23:16] <= u;
                        5'd3: h_hdr[15:8]  <= u;
                        5'd4: h_hdr[7:0]   <= u;
                        5'd5: h_len        <= u[3:0];
                        default: if (h_cnt < 5'd6 + {1'b0, h_len}) h_pay <= {h_pay[55:0], u};
                    endcase
                end
            end
        end
    end

    // invariants (i*): the same bytes in the receiver's registers
    wire regs_ok  = f_hdr == h_hdr && f_len == h_len && f_pay == h_pay &&
                    f_pay_end == 5'd6 + {1'b0, f_len} && f_pre_last == f_pay_end + 5'd2 && f_pay_ph == (f_idx >= 5'd6 && f_idx < f_pay_end) &&
                    f_qend == (f_quiet == N - 1);
    wire frame_ok = f_idx == h_cnt && f_esc == h_esc && f_crc == h_crc &&
                    f_quiet == h_quiet &&
                    (h_cnt <= 5'd5 ? h_len == 4'd0 : h_len <= 4'd8) &&
                    f_idx <= 5'd9 + {1'b0, f_len} &&
                    f_lastb == (h_cnt == 5'd9 + {1'b0, h_len}) && !f_fin &&
                    h_raw <= {h_cnt, 1'b0} + {5'd0, h_esc};

    reg past_valid = 1'b0;
    always @(posedge clk) past_valid <= 1'b1;
    initial assume (rst);

    always @* begin
        if (past_valid && !rst) begin
            assert (regs_ok);                 // (i*)
            if (!f_hunt) begin
                assert (frame_ok);            // (i*)
                assert (h_raw <= 6'd35);      // (p2)
            end
            if (f_fin) begin                  // (i*) the last byte came last cycle
                assert (f_hunt && !f_lastb);
                assert (h_cnt == 5'd10 + {1'b0, h_len} && !h_esc);
                assert (f_crc == h_crc);
            end
            if (ev_ok) begin                  // (p1)
                assert (out_valid);
                assert ({out_pe, out_op, out_seq, out_addr} == d_hdr);
                assert (out_len == d_len && out_payload == d_pay);
                assert (d_cnt == 5'd10 + {1'b0, d_len});
                assert (d_crc == 32'h00000000);
            end
            if (h_quiet >= N) assert (f_hunt); // (p3)
`ifdef SELFTEST_DELIVER
            assert (!ev_ok);
`endif
`ifdef SELFTEST_IDLE
            if (h_quiet >= N - 1) assert (f_hunt);
`endif
        end
    end
`endif
endmodule
`default_nettype wire
