`default_nettype none
// frame_rx: link frame receiver (docs/link.md, generated from
// tools/linkgen.py): a byte stream in, unstuffed and CRC-checked frame fields
// out.  The model is the receiving end of Hall's COP channel (seed 004
// chapter IV, "The COP to COP Network Interface": receive buffer registers
// filled word by word, DATA_RDY once a whole command arrived without error).
// Departures: a frame is bytes with HDLC-like stuffing and a CRC-32 instead
// of Spanceiver words with hardware error detection, and a bad frame is
// dropped and counted (the host's resend timer recovers it) instead of
// answered with a "resend" word.
//
// Byte stream in: in_valid/in_data, one byte per cycle at most, no
// backpressure (a UART cannot wait).
//
// Framing: FLAG (0x7E) starts a frame anywhere, aborting a partial one
// (ev_resync).  Outside a frame (hunting) every other byte is ignored.  ESC
// (0x7D) makes the next byte count as byte ^ 0x20.  Unstuffed fields: pe, op,
// seq, addr (2, big-endian), len, payload (len bytes), crc (4, big-endian).
// len > 8 drops the frame at once (ev_badlen).  The frame ends with its last
// CRC byte; it is delivered if the CRC-32/MPEG-2 run over everything
// after the FLAG ends at 0 (ev_ok), else dropped (ev_crc).  IDLE_CYCLES
// consecutive cycles without a byte inside a frame drop it (ev_timeout).
//
// Input stage: in_valid/in_data are registered first, with the FLAG and ESC
// compares (timing: on the UP5K the compares, the byte decision and its
// fan-out to the field registers did not fit 48 MHz in one cycle), so
// everything below sees the stream one cycle late.
//
// Frame out: out_valid rises three cycles after the last CRC byte is
// offered (the input stage, then the CRC is checked from its register in the
// cycle between: the UP5K could not place the check of the CRC still being
// computed at 48 MHz) and the
// fields hold until out_ready is high in a cycle where out_valid is high.  A
// good frame completed while out_valid is still high is dropped
// (ev_overrun).  out_payload is right-aligned: payload byte i of len is at
// bits [8*(len-1-i) +: 8] and bits above 8*len are 0, so a 4-byte big-endian
// value is out_payload[31:0].  ev_* are one-cycle pulses (link_port counts
// them).
//
// Bounds (checked by formal/link_frame_rx_props.v): a frame is at most 18
// unstuffed = 36 stuffed bytes after its FLAG, so the receiver is hunting
// again after at most 36 bytes that are not FLAG, or after IDLE_CYCLES
// cycles without a byte; a delivered frame's CRC is always right.
//
// Parameters: IDLE_CYCLES = 0 (no timeout) or 2..2^24.
module frame_rx #(
    parameter integer IDLE_CYCLES = 48000
) (
    input  wire        clk,
    input  wire        rst,
    input  wire        in_valid,
    input  wire [7:0]  in_data,
    output reg         out_valid,
    input  wire        out_ready,
    output reg  [7:0]  out_pe,
    output reg  [7:0]  out_op,
    output reg  [7:0]  out_seq,
    output reg  [15:0] out_addr,
    output reg  [3:0]  out_len,
    output reg  [63:0] out_payload,
    output reg         ev_ok,
    output reg         ev_crc,
    output reg         ev_resync,
    output reg         ev_badlen,
    output reg         ev_timeout,
    output reg         ev_overrun
`ifdef FORMAL
    ,
    output wire        f_hunt,
    output wire [4:0]  f_idx,
    output wire        f_esc,
    output wire [31:0] f_crc,
    output wire [39:0] f_hdr,
    output wire [3:0]  f_len,
    output wire [63:0] f_pay,
    output wire [31:0] f_quiet,
    output wire        f_lastb,
    output wire        f_fin,
    output wire [4:0]  f_pay_end,
    output wire [4:0]  f_pre_last,
    output wire        f_pay_ph,
    output wire        f_qend
`endif
);
`include "link_defs.vh"

    localparam integer TW = (IDLE_CYCLES > 1) ? $clog2(IDLE_CYCLES + 1) : 1;

    generate
        if (IDLE_CYCLES != 0 && (IDLE_CYCLES < 2 || IDLE_CYCLES > (1 << 24))) begin : g_bad_idle
            $error("frame_rx: IDLE_CYCLES must be 0 (no timeout) or in 2..2^24");
        end
    endgenerate

    reg        hunt;
    reg        esc;
    reg [4:0]  idx;      // unstuffed bytes since the FLAG, 0..17 inside a frame
    reg [31:0] crc;
    reg [7:0]  w_pe, w_op, w_seq;
    reg [15:0] w_addr;
    reg [3:0]  w_len;
    reg [63:0] w_pay;
    reg [TW-1:0] quiet;  // cycles without a byte inside a frame
    reg        lastb;    // the next unstuffed byte is the frame's last
    reg        fin;      // the frame's last byte came: check the CRC, deliver
    reg [4:0]  pay_end;
    // pre_last: the index of the byte before the frame's last, pay_end +
    // LINK_CRC_BYTES - 2, a register beside pay_end (timing, as pay_end)
    reg [4:0]  pre_last;
    // pay_ph: 6 <= idx < pay_end, the next unstuffed byte is a payload byte,
    // kept in a register (timing: the index compares and the byte
    // classification fed w_pay's 64 enables through a long chain of LUTs,
    // the critical path of the HX8K at 100 MHz and the UP5K at 48 MHz); formal
    // checks it against idx and pay_end.
    reg        pay_ph;
    // q_end: quiet == IDLE_CYCLES - 1, kept in a register (timing: the
    // counter compare fed hunt's enable on the UP5K's critical path);
    // formal checks it against quiet.
    reg        q_end;
    localparam integer QB = (IDLE_CYCLES >= 2) ? IDLE_CYCLES - 2 : 0;
    localparam [TW-1:0] Q_BEFORE_END = QB[TW-1:0];
    localparam [4:0] PRE_LAST0 = 5'd6 + LINK_CRC_BYTES[4:0] - 5'd2;  // pre_last of len 0

`ifdef FORMAL
    assign f_hunt = hunt;
    assign f_idx = idx;
    assign f_esc = esc;
    assign f_crc = crc;
    assign f_hdr = {w_pe, w_op, w_seq, w_addr};
    assign f_len = w_len;
    assign f_pay = w_pay;
    assign f_quiet = {{(32 - TW){1'b0}}, quiet};
    assign f_lastb = lastb;
    assign f_fin = fin;
    assign f_pay_end = pay_end;
    assign f_pre_last = pre_last;
    assign f_pay_ph = pay_ph;
    assign f_qend = q_end;
`endif

    // the input stage: the byte, and whether it is FLAG or ESC
    // and whether it, or it unescaped, is a length beyond LINK_MAX_PAYLOAD
    // (timing: that compare was a carry chain into hunt's enable, the
    // UP5K's critical path at 48 MHz)
    reg         b_valid, is_flag, is_esc, big_raw, big_esc;
    reg  [7:0]  b_data;
    always @(posedge clk) begin
        b_valid <= in_valid && !rst;
        b_data  <= in_data;
        is_flag <= in_data == LINK_FLAG;
        is_esc  <= in_data == LINK_ESC;
        big_raw <= in_data > LINK_MAX_PAYLOAD;
        big_esc <= (in_data ^ LINK_ESC_XOR) > LINK_MAX_PAYLOAD;
    end
    wire [7:0]  u       = esc ? (b_data ^ LINK_ESC_XOR) : b_data;
    wire        u_big   = esc ? big_esc : big_raw;   // u > LINK_MAX_PAYLOAD
    wire [31:0] crc_nx;
    link_crc #(.W(32), .POLY(LINK_CRC_POLY)) u_crc (.crc_in(crc), .data(u), .crc_out(crc_nx));

    // pay_end: index of the first CRC byte, 6 + w_len, kept in a register
    // beside w_len (timing: the adder fed the payload compare on the UP5K's
    // critical path); formal checks the two agree.
    wire        byte_in = b_valid && !is_flag && !hunt && !(is_esc && !esc);
    wire        last    = byte_in && lastb;
    wire        timeout = (IDLE_CYCLES != 0) && !hunt && !b_valid && q_end;
    // hunt in its own block, from one set and one clear term (timing: as the
    // priority chain of the block below it missed the UP5K's 48 MHz on some
    // placements): a FLAG clears it; an inter-byte timeout, a len > 8 (the
    // byte at idx 5) or the frame's last byte set it.
    wire        set_hunt = timeout || (byte_in && ((idx == 5'd5 && u_big) || lastb));
    always @(posedge clk) begin
        if (rst) hunt <= 1'b1;
        else if (b_valid && is_flag) hunt <= 1'b0;
        else if (set_hunt) hunt <= 1'b1;
    end
    // esc the same way, with no enable (timing, as hunt): a byte inside a
    // frame sets it if it is an ESC not itself escaped and clears it
    // otherwise, a FLAG clears it, anything else keeps it.
    always @(posedge clk) begin
        if (rst) esc <= 1'b0;
        else if (b_valid) esc <= !is_flag && (hunt ? esc : (is_esc && !esc));
    end

    always @(posedge clk) begin
        ev_ok      <= 1'b0;
        ev_crc     <= 1'b0;
        ev_resync  <= 1'b0;
        ev_badlen  <= 1'b0;
        ev_timeout <= 1'b0;
        ev_overrun <= 1'b0;
        if (out_valid && out_ready) out_valid <= 1'b0;
        if (rst) begin
            idx       <= 5'd0;
            crc       <= LINK_CRC_INIT;
            w_pe      <= 8'h00;
            w_op      <= 8'h00;
            w_seq     <= 8'h00;
            w_addr    <= 16'h0000;
            w_len     <= 4'd0;
            pay_end   <= 5'd6;
            pre_last  <= PRE_LAST0;
            pay_ph    <= 1'b0;
            quiet     <= {TW{1'b0}};
            q_end     <= 1'b0;
            lastb     <= 1'b0;
            fin       <= 1'b0;
            out_valid <= 1'b0;
            out_pe    <= 8'h00;
            out_op    <= 8'h00;
            out_seq   <= 8'h00;
            out_addr  <= 16'h0000;
            out_len   <= 4'd0;
            out_payload <= 64'h0;
        end else begin
            if (b_valid || hunt) quiet <= {TW{1'b0}};
            else quiet <= quiet + 1'b1;
            // the next quiet is IDLE_CYCLES - 1 (>= 1): it counts up from IDLE_CYCLES - 2
            q_end <= (IDLE_CYCLES >= 2) && !(b_valid || hunt) && quiet == Q_BEFORE_END;

            // The frame ended last cycle (hunt is set): its CRC register
            // holds the CRC over everything after the FLAG.  A FLAG in this
            // same cycle starts the next frame below; the fields read here
            // are still this frame's.
            fin <= 1'b0;
            if (fin) begin
                if (crc != LINK_CRC_RESIDUE) begin
                    ev_crc <= 1'b1;
                end else if (out_valid && !out_ready) begin
                    ev_overrun <= 1'b1;
                end else begin
                    ev_ok       <= 1'b1;
                    out_valid   <= 1'b1;
                    out_pe      <= w_pe;
                    out_op      <= w_op;
                    out_seq     <= w_seq;
                    out_addr    <= w_addr;
                    out_len     <= w_len;
                    out_payload <= w_pay;
                end
            end

            if (b_valid && is_flag) begin
                if (!hunt && (idx != 5'd0 || esc)) ev_resync <= 1'b1;
                idx   <= 5'd0;
                lastb <= 1'b0;
                crc   <= LINK_CRC_INIT;
                w_len <= 4'd0;
                pay_end <= 5'd6;
                pre_last <= PRE_LAST0;
                pay_ph <= 1'b0;
            end else if (timeout) begin
                ev_timeout <= 1'b1;
            end else if (b_valid && !hunt && is_esc && !esc) begin
                // (ESC: esc is set in its own block below)
            end else if (byte_in) begin
                crc <= crc_nx;
                idx <= idx + 5'd1;
                // idx 5 is the length: a payload follows if it is not 0
                pay_ph <= (idx == 5'd5) ? u[3:0] != 4'd0 : idx > 5'd5 && idx + 5'd1 < pay_end;
                lastb <= idx == pre_last;  // idx + 1 is the last CRC byte's
                case (idx)
                    5'd0: w_pe  <= u;
                    5'd1: w_op  <= u;
                    5'd2: w_seq <= u;
                    5'd3: w_addr[15:8] <= u;
                    5'd4: w_addr[7:0]  <= u;
                    5'd5: begin
                        w_len <= u[3:0];
                        pay_end <= 5'd6 + {1'b0, u[3:0]};
                        pre_last <= PRE_LAST0 + {1'b0, u[3:0]};
                        if (u_big) ev_badlen <= 1'b1;
                    end
                    default: ;  // payload (w_pay, below) or CRC
                endcase
                if (last) begin
                    lastb <= 1'b0;
                    fin   <= 1'b1;
                end
            end
        end
    end

    // The payload register: cleared by a FLAG, shifted by each payload byte
    // (a byte_in is never a FLAG, so the two never meet).
    always @(posedge clk) begin
        if (rst || (b_valid && is_flag)) w_pay <= 64'h0;
        else if (byte_in && pay_ph) w_pay <= {w_pay[55:0], u};
    end
endmodule
`default_nettype wire
