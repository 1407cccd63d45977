`default_nettype none
// rtl/link/link_mux_props.v: formal harness for rtl/link/link_mux.v
// (docs/link_mux.md; frames as docs/link.md).  Every stream input
// (s_rx_valid, s_rx_data, s_rx_ferr, s_tx_ready) and the link_port side
// (p_rx_held, p_tx_valid, p_tx_data) are free every cycle; the only
// assumption is reset in the first cycle.  sel_in, taken at reset, picks the
// stream the harness shadows (symbolic: every stream is covered).
//
// Parameters: the mux's S, PE_BASE, USB_ANY and KEEPALIVE (the other mux
// parameters small: NPE = S, a 32-entry input FIFO (legal under FORMAL
// only), 64-entry output FIFOs, 4-bit counters), and BMC.  BMC = 0: the assertions are proven by
// k-induction.  BMC = d > 0: the harness assumes fewer than d cycles since
// reset, so the induction step has no path of d steps and the job is the
// base case alone, a bounded check of depth d from reset (its manifest name
// says so).  Groups, one define each (formal/run.py passes a job's defines):
//
// P_FRAMES (bounded: the shadow below assumes the input FIFO never fills,
// which holds for fewer than IN_DEPTH cycles):
//   The harness parses the chosen stream from docs/link.md, not from the RTL
//   (FLAG starts a frame and aborts a partial one, ESC un-escapes the next
//   byte, the pe byte at index 0, len at index 5, the frame ends 10 + len
//   unstuffed bytes after its FLAG: 6 header bytes, the payload, 4 CRC
//   bytes; a framing error aborts) and keeps the raw
//   bytes of the first whole frame the stream may send (the binding rule of
//   docs/link_mux.md, written here again).  On link_port's rx side it records
//   each frame from its FLAG; the frame belongs to stream k when the mux
//   says k's forwarded frame ends (f_fwd_end).  The streams' bytes come at
//   least S + 1 cycles apart (assumed: the rate link_mux requires).
//   (f1) frames never interleave: every frame on p_rx starts with FLAG,
//        carries one byte every cycle until its end and no FLAG inside, and
//        at its end exactly one stream's frame ends;
//   (f2) the chosen stream's first forwarded frame is, byte for byte, the
//        first whole frame it may send;
//   (f3) binding: no frame a stream may not send reaches link_port (the pe
//        byte, un-escaped, of every forwarded frame is allowed for the
//        stream whose frame ends), and the chosen stream's BIND steps
//        (f_bind) equal the number of such frames it received whole (or one
//        fewer while its last byte waits for the stream's slot);
//   (f4) the chosen stream's PARTIAL steps (f_part) equal the partial
//        frames cut by a FLAG plus the frames with len > 8 it received (the
//        same slack).
// P_ABSENT (k-induction):
//   (a1) absent[k] falls in the cycle after stream k's byte;
//   (a2) absent[k] is high only after more than KEEPALIVE cycles without a
//        byte (or since reset);
//   (a3) after 33 * ceil(KEEPALIVE / 32) cycles without a byte absent[k] is
//        high (within the bound docs/link_mux.md states);
//   (i*) the presence counter and the prescaler against the harness's count
//        of silent cycles.
// Negative controls (must FAIL with a trace from reset; each plants a bug in
// link_mux.v): SELFTEST_INTERLEAVE switches streams in the middle of a frame
// (f1, f2); SELFTEST_BIND lets a header stream speak for its neighbour's PE
// (f3); SELFTEST_PARTIAL leaves len > 8 uncounted (f4);
// SELFTEST_ABSENT_STICKY keeps absent up through a byte (a1);
// SELFTEST_ABSENT_EARLY makes a framing error mark the stream absent at
// once (a2).
module link_mux_props #(
    parameter integer S         = 2,
    parameter integer PE_BASE   = 1,
    parameter integer USB_ANY   = 0,
    parameter integer KEEPALIVE = 1024,
    parameter integer BMC       = 0
) (
    input wire           clk,
    input wire           rst,
    input wire [S-1:0]   s_rx_valid,
    input wire [8*S-1:0] s_rx_data,
    input wire [S-1:0]   s_rx_ferr,
    input wire [S-1:0]   s_tx_ready,
    input wire           p_rx_held,
    input wire           p_tx_valid,
    input wire [7:0]     p_tx_data,
    input wire [7:0]     sel_in
);
    localparam integer CW = 4;
`ifdef P_FRAMES
    // the bounded jobs: a 32-entry input FIFO (link_mux allows it under
    // FORMAL; fewer than 32 cycles cannot fill it) and no reply traffic (the
    // output FIFOs then hold nothing and drop out of the proof)
    localparam integer IN_D = 32;
    wire tx_v = 1'b0;
`else
    localparam integer IN_D = 32;  // presence does not depend on it
    wire tx_v = p_tx_valid;
`endif
    wire [S-1:0]      s_tx_valid;
    wire [8*S-1:0]    s_tx_data;
    wire              p_rx_valid, p_rx_ferr, p_tx_ready;
    wire [7:0]        p_rx_data;
    wire [S-1:0]      absent;
    wire [CW-1:0]     cnt_rdata;
    wire [6*S-1:0]    f_quiet;
    wire [31:0]       f_ka_cnt;
    wire [S-1:0]      f_fwd_end, f_bind, f_part;

    link_mux #(
        .S(S), .PE_BASE(PE_BASE), .NPE(S), .USB_ANY(USB_ANY), .IN_DEPTH(IN_D), .OUT_DEPTH(64),
        .USB_OUT_DEPTH(64), .KEEPALIVE(KEEPALIVE), .CNT_W(CW)
    ) dut (
        .clk(clk), .rst(rst),
        .s_rx_valid(s_rx_valid), .s_rx_data(s_rx_data), .s_rx_ferr(s_rx_ferr),
        .s_tx_valid(s_tx_valid), .s_tx_ready(s_tx_ready), .s_tx_data(s_tx_data),
        .p_rx_valid(p_rx_valid), .p_rx_data(p_rx_data), .p_rx_ferr(p_rx_ferr), .p_rx_held(p_rx_held),
        .p_tx_valid(tx_v), .p_tx_ready(p_tx_ready), .p_tx_data(p_tx_data),
        .absent(absent), .cnt_raddr(8'd0), .cnt_rdata(cnt_rdata), .f_quiet(f_quiet),
        .f_ka_cnt(f_ka_cnt), .f_fwd_end(f_fwd_end), .f_bind(f_bind), .f_part(f_part),
        .s_rx_room(), .idle()
    );

`ifdef FORMAL
    localparam [7:0] FLAG = 8'h7E, ESC = 8'h7D;
`include "link_defs.vh"
    localparam integer MAXB = {24'd0, LINK_MAX_FRAME};  // FLAG + every unstuffed byte escaped

    reg past_valid = 1'b0;
    always @(posedge clk) past_valid <= 1'b1;
    initial assume (rst);
    // past_valid is low only in the first cycle, which is a reset cycle (this
    // also ties the induction step's first cycle to reset)
    always @* if (!past_valid) assume (rst);

    reg [7:0] t;  // cycles since reset (saturating)
    always @(posedge clk) t <= rst ? 8'd0 : (t == 8'hFF ? t : t + 8'd1);
    always @* if (BMC > 0) assume (t < BMC);

    // the binding rule of docs/link_mux.md
    function allowed(input integer k, input [7:0] pe);
        if (k < S - 1) allowed = (pe == PE_BASE + k);
        else if (USB_ANY != 0) allowed = 1'b1;
        else allowed = !(pe >= PE_BASE && pe <= PE_BASE + S - 2);
    endfunction

`ifdef P_FRAMES
    // ---- the chosen stream, parsed from docs/link.md ------------------------
    reg  [7:0]      sel;
    always @(posedge clk) if (rst) sel <= sel_in % S;
    wire            v  = s_rx_valid[sel];
    wire [7:0]      b  = s_rx_data[8 * sel +: 8];
    wire            fe = s_rx_ferr[sel];
    reg             h_hunt, h_esc;
    reg  [4:0]      h_cnt;          // unstuffed bytes after the FLAG
    reg  [3:0]      h_len;
    reg  [7:0]      h_pe;
    reg  [5:0]      h_n;            // raw bytes, FLAG included
    reg  [8*MAXB-1:0] h_buf;        // raw bytes shifted in, the newest at [7:0]
    reg             g_have;         // the first whole frame it may send
    reg  [5:0]      g_n;
    reg  [8*MAXB-1:0] g_buf;
    reg  [CW-1:0]   e_bind, e_part;
    wire [7:0]      u = h_esc ? (b ^ 8'h20) : b;
    // the last unstuffed byte: after the header, the payload and the CRC
    wire            h_end = (h_cnt >= LINK_HDR_BYTES[4:0]) &&
                            (h_cnt == LINK_HDR_BYTES[4:0] + LINK_CRC_BYTES[4:0] - 5'd1 + {1'b0, h_len});
    always @(posedge clk) begin
        if (rst) begin
            h_hunt <= 1'b1;
            h_esc <= 1'b0;
            h_cnt <= 5'd0;
            h_len <= 4'd0;
            h_pe <= 8'd0;
            h_n <= 6'd0;
            h_buf <= 0;
            g_have <= 1'b0;
            g_n <= 6'd0;
            g_buf <= 0;
            e_bind <= 0;
            e_part <= 0;
        end else if (fe) begin
            h_hunt <= 1'b1;
        end else if (v && b == FLAG) begin
            if (!h_hunt && (h_cnt != 5'd0 || h_esc)) e_part <= e_part + 1'b1;
            h_hunt <= 1'b0;
            h_esc <= 1'b0;
            h_cnt <= 5'd0;
            h_len <= 4'd0;
            h_n <= 6'd1;
            h_buf <= {{(8 * MAXB - 8){1'b0}}, FLAG};
        end else if (v && !h_hunt) begin
            h_buf <= {h_buf[8 * MAXB - 9:0], b};
            h_n <= h_n + 6'd1;
            if (!h_esc && b == ESC) begin
                h_esc <= 1'b1;
            end else begin
                h_esc <= 1'b0;
                h_cnt <= h_cnt + 5'd1;
                if (h_cnt == 5'd0) h_pe <= u;
                if (h_cnt == 5'd5) begin
                    if (u > 8'd8) begin
                        e_part <= e_part + 1'b1;
                        h_hunt <= 1'b1;
                    end else begin
                        h_len <= u[3:0];
                    end
                end
                if (h_end) begin
                    h_hunt <= 1'b1;
                    if (!allowed(sel, h_pe)) begin
                        e_bind <= e_bind + 1'b1;
                    end else if (!g_have) begin
                        g_have <= 1'b1;
                        g_n <= h_n + 6'd1;
                        g_buf <= {h_buf[8 * MAXB - 9:0], b};
                    end
                end
            end
        end
    end

    // ---- link_port's rx side -------------------------------------------------
    wire [S-1:0]    fdone = f_fwd_end;  // stream k's forwarded frame ends
    reg  [CW-1:0]   n_fwd;          // frames of the chosen stream forwarded so far
    reg  [CW-1:0]   m_bind, m_part; // the chosen stream's BIND and PARTIAL steps so far
    always @(posedge clk) begin
        if (rst) begin
            n_fwd <= 0;
            m_bind <= 0;
            m_part <= 0;
        end else begin
            if (fdone[sel]) n_fwd <= n_fwd + 1'b1;
            if (f_bind[sel]) m_bind <= m_bind + 1'b1;
            if (f_part[sel]) m_part <= m_part + 1'b1;
        end
    end
    // a stream's bytes come at most once per S cycles (link_mux's slot rate)
    genvar gk;
    generate
        for (gk = 0; gk < S; gk = gk + 1) begin : g_rate
            reg [7:0] since;
            always @(posedge clk)
                since <= (rst || s_rx_valid[gk] || s_rx_ferr[gk]) ? 8'd0 : (since == 8'hFF ? since : since + 8'd1);
            always @* if (!rst && (s_rx_valid[gk] || s_rx_ferr[gk])) assume (since >= S - 1);
        end
    endgenerate
    reg             o_act;          // inside a frame on p_rx
    reg  [5:0]      o_n;
    reg  [8*MAXB-1:0] o_buf;
    always @(posedge clk) begin
        if (rst) begin
            o_act <= 1'b0;
            o_n <= 6'd0;
            o_buf <= 0;
        end else if (p_rx_valid) begin
            if (p_rx_data == FLAG) begin
                o_n <= 6'd1;
                o_buf <= {{(8 * MAXB - 8){1'b0}}, FLAG};
            end else if (o_n < MAXB) begin
                o_buf <= {o_buf[8 * MAXB - 9:0], p_rx_data};
                o_n <= o_n + 6'd1;
            end
            o_act <= (fdone == 0);
        end
    end
    // the forwarded frame's pe, un-escaped (its bytes 1 and 2, kept when they pass)
    reg  [7:0]      o_b1, o_b2;
    always @(posedge clk) begin
        if (p_rx_valid && o_n == 6'd1) o_b1 <= p_rx_data;
        if (p_rx_valid && o_n == 6'd2) o_b2 <= p_rx_data;
    end
    wire [7:0]      o_pe = (o_b1 == ESC) ? (o_b2 ^ 8'h20) : o_b1;

    integer k;
    always @* begin
        if (past_valid && !rst) begin
            // (f1)
            assert ((fdone & (fdone - 1'b1)) == 0);
            if (fdone != 0) assert (p_rx_valid && o_act && o_n >= 6'd3);
            if (o_act) assert (p_rx_valid && p_rx_data != FLAG);
            if (p_rx_valid && !o_act) assert (p_rx_data == FLAG);
            // (f3)
            for (k = 0; k < S; k = k + 1)
                if (fdone[k]) assert (allowed(k, o_pe));
            // (the mux counts a byte's event after the stream's slot, within S + 2
            // cycles, before the stream's next byte)
            assert (m_bind == e_bind || m_bind + 1'b1 == e_bind);
            // (f4)
            assert (m_part == e_part || m_part + 1'b1 == e_part);
            // (f2)
            if (fdone[sel] && n_fwd == 0) begin
                // both start from zeros at their FLAG, so equal lengths and
                // equal shift registers are the same bytes in the same order
                assert (g_have && o_n + 6'd1 == g_n && {o_buf[8 * MAXB - 9:0], p_rx_data} == g_buf);
            end
        end
    end
`endif

`ifdef P_ABSENT
    // ---- presence ---------------------------------------------------------------
    localparam integer KA_TICK = (KEEPALIVE + 31) / 32;
    localparam integer SAT = 33 * KA_TICK + 1;
    genvar ak;
    generate
        for (ak = 0; ak < S; ak = ak + 1) begin : g_ab
            reg  [31:0] sil;   // cycles since the stream's last byte (saturating; reset: SAT)
            reg         pv;    // a byte last cycle
            always @(posedge clk) begin
                pv <= s_rx_valid[ak] && !rst;
                if (rst) sil <= SAT;
                else if (s_rx_valid[ak]) sil <= 0;
                else if (sil < SAT) sil <= sil + 1;
            end
            wire [31:0] q = {26'd0, f_quiet[6 * ak +: 6]};
            wire [31:0] tq = q * KA_TICK + f_ka_cnt;  // prescaler cycles since the byte, plus its phase
            always @* begin
                if (past_valid && !rst) begin
                    if (pv) assert (!absent[ak]);                    // (a1)
                    if (absent[ak]) assert (sil > KEEPALIVE);        // (a2)
                    if (sil >= 33 * KA_TICK) assert (absent[ak]);   // (a3)
`ifndef SELFTEST_ABSENT_EARLY
                    assert (q <= 33 && f_ka_cnt < KA_TICK);          // (i*)
                    if (q < 33) assert (sil <= tq && tq < sil + KA_TICK && !pv == (sil != 0));
                    else assert (sil <= SAT && sil >= 32 * KA_TICK + 1);
`endif
                end
            end
        end
    endgenerate
`endif
`endif
endmodule
`default_nettype wire
