`default_nettype none
// link_mux: S link byte streams into one link_port, frame by frame (issue 24,
// docs/link_mux.md; the link itself is docs/link.md).  What the virtual hub's
// per-PE channels do in C++ (sim/vhub/channel.cpp), in RTL: stream k < S-1
// is a header UART that speaks for PE (PE_BASE + k) only, stream S-1 is the
// board's USB UART.  The model is Hall's COP with one serial channel per
// compute node (seed 004 chapter IV); the departure is that the channels
// share one link_port (one command handled at a time, as Hall's COP handles
// one channel's word at a time) instead of one interface per channel.
//
// Streams (stream k's fields at [k] and [8*k +: 8], as uart_stream gives
// them):
//   s_rx_valid/s_rx_data  received bytes, at most one per cycle per stream,
//                      no backpressure.
//   s_rx_ferr          one-cycle pulse: a byte was lost (UART framing error);
//                      the stream's partial frame is dropped, and the pulse is
//                      passed on to link_port (p_rx_ferr, OR of all streams).
//   s_tx_valid/s_tx_ready/s_tx_data  bytes to send; s_tx_data is stable while
//                      s_tx_valid is high and s_tx_ready low.
// The link_port side (p_*) is link_port's byte stream turned around:
// p_rx_valid/p_rx_data/p_rx_ferr into it, p_rx_held from it, p_tx_valid/
// p_tx_data from it and p_tx_ready into it.
//
// Input, per stream: a FIFO of IN_DEPTH bytes (one block RAM; entries carry
// a last-byte bit).  A parser un-escapes the stream as docs/link.md frames
// it, only to count: a frame starts at FLAG, its pe byte (index 0) is checked
// for binding, its len byte (index 5) gives its end (6 + len + 2 unstuffed
// bytes), and only a whole frame is committed to the FIFO.  Dropped without
// reaching link_port (the stream then hunts for the next FLAG):
//   * a partial frame cut by s_rx_ferr (counted by link_port as UART_FERR);
//   * a partial frame cut by a FLAG (at least one byte after its FLAG: two
//     FLAGs in a row are harmless, docs/link.md), or a frame with len > 8
//     (PARTIAL counter);
//   * a frame whose pe byte the stream may not speak for (BIND counter):
//     stream k < S-1 only for PE_BASE + k; stream S-1 for any PE when
//     USB_ANY = 1, else for none of PE_BASE .. PE_BASE + S-2.  Its bytes are
//     not stored, so such frames cannot fill the buffer;
//   * the partial frame of a stream whose FIFO is full when a byte arrives
//     (OVERRUN counter): frames already committed stay, other streams lose
//     nothing.
// CRC is not checked here: link_port checks it and counts CRC_ERR.
//
// Forwarding: round robin among the streams holding a committed frame, the
// pointer moving on after each frame; one whole frame at a time, one byte a
// cycle, never two frames' bytes interleaved.  A frame's first byte is sent
// only while p_rx_held is low and FWD_GAP cycles after the byte before it
// (link_port raises rx_held 3 cycles after a frame's last byte), so
// link_port never overruns.  While forwarding, the frame's pe byte sets the
// route of that PE to this stream (PEs PE_BASE .. PE_BASE + NPE - 1 only).
//
// Output: every frame link_port sends starts FLAG, pe (never escaped: pe <=
// 63 < 0x7D).  p_tx_ready is held low for the 3 cycles after a FLAG while the
// pe byte picks the route; then the whole frame goes to that stream's output
// FIFO (OUT_DEPTH bytes, USB_OUT_DEPTH for the USB stream, which carries
// the replies of several PEs; one block RAM), which must have room for the
// longest stuffed frame (MAX_FRAME bytes).  Otherwise the frame is dropped
// (TXDROP counter of that stream): when the stream is absent (below), or its
// FIFO is that full (its tx is slow or stalled), or the pe has no route.  So
// p_tx_ready is never low for more than 3 cycles a frame and one stream's
// slow tx never delays another's replies.  The host's resend recovers a
// dropped reply (link_port answers a duplicate from its stored reply).
//
// Presence: absent[k] is high while stream k has received no byte for a
// while (and from reset until its first byte): it rises after more than
// KEEPALIVE and at most KEEPALIVE + KEEPALIVE/32 + 33 silent cycles (a
// shared prescaler ticks every ceil(KEEPALIVE/32) cycles; each stream
// counts 33 ticks without a byte).
//
// pe_absent[e]: PE (PE_BASE + e) is absent: the stream its replies go to
// (the one it last spoke through; a header stream's own PE starts on it,
// every other PE on the USB stream) is absent.  What the hub uses as that
// PE's presence (rtl/hub/aggnet_mux_hub.v): a silent link is an unplugged
// cable.  Combinational from registers (the route table and absent).
//
// Counters: counts[(5*k + i)*CNT_W +: CNT_W], wrapping, i = 0 FRAMES (frames
// of stream k forwarded to link_port), 1 BIND, 2 OVERRUN, 3 TXDROP,
// 4 PARTIAL (partial frames cut by a FLAG, frames with len > 8).
//
// Timing (cycles): a frame is committed at the edge that takes its last
// byte; an idle mux picks it in the next cycle and reads its FIFO in the one
// after, so its FLAG is on p_rx_valid 4 cycles after the cycle its last byte
// was on s_rx_valid, then one byte a cycle; FWD_GAP cycles at least between
// frames.  Output: p_tx_ready low 3 cycles per frame; a byte written into an
// output FIFO is on s_tx_valid 3 cycles later.
//
// Parameters: S in 2..32; PE_BASE in 0..63; NPE (PEs link_port serves,
// from PE_BASE) in S-1..64 with PE_BASE + NPE <= 64; USB_ANY 0 or 1;
// IN_DEPTH, OUT_DEPTH and USB_OUT_DEPTH powers of two in 64..4096;
// KEEPALIVE in 1024..2^30;
// CNT_W in 1..32.
module link_mux #(
    parameter integer S         = 2,
    parameter integer PE_BASE   = 0,
    parameter integer NPE       = S,
    parameter integer USB_ANY   = 1,
    parameter integer IN_DEPTH  = 128,
    parameter integer OUT_DEPTH = 64,
    parameter integer USB_OUT_DEPTH = 256,
    parameter integer KEEPALIVE = 48000000,
    parameter integer CNT_W     = 16
) (
    input  wire                 clk,
    input  wire                 rst,
    input  wire [S-1:0]         s_rx_valid,
    input  wire [8*S-1:0]       s_rx_data,
    input  wire [S-1:0]         s_rx_ferr,
    output wire [S-1:0]         s_tx_valid,
    input  wire [S-1:0]         s_tx_ready,
    output wire [8*S-1:0]       s_tx_data,
    output reg                  p_rx_valid,
    output reg  [7:0]           p_rx_data,
    output reg                  p_rx_ferr,
    input  wire                 p_rx_held,
    input  wire                 p_tx_valid,
    output wire                 p_tx_ready,
    input  wire [7:0]           p_tx_data,
    output wire [S-1:0]         absent,
    output wire [NPE-1:0]       pe_absent,
    output wire [5*S*CNT_W-1:0] counts
`ifdef FORMAL
    ,
    // for rtl/link/link_mux_props.v's inductive invariants
    output wire [6*S-1:0]       f_quiet,   // stream k's presence counter at [6k +: 6]
    output wire [31:0]          f_ka_cnt   // the keep-alive prescaler
`endif
);
`include "link_defs.vh"

    localparam integer SW  = (S > 1) ? $clog2(S) : 1;
    localparam integer IAW = $clog2(IN_DEPTH);
    localparam integer KA_TICK = (KEEPALIVE + 31) / 32;  // 32 ticks cover KEEPALIVE
`ifdef FORMAL
    // rtl/link/link_mux_props.v's bounded jobs run fewer than 32 cycles, so
    // a 32-entry input FIFO cannot fill there and halves the proof's size
    localparam integer IN_MIN = 32;
`else
    localparam integer IN_MIN = 64;
`endif
    localparam integer KW  = $clog2(KA_TICK + 1);
    // longest frame on the wire: FLAG, then every unstuffed byte escaped
    localparam integer MAX_FRAME = 1 + 2 * ({24'd0, LINK_HDR_BYTES} + {24'd0, LINK_MAX_PAYLOAD} +
                                              {24'd0, LINK_CRC_BYTES});
    localparam integer FWD_GAP   = {24'd0, LINK_SIM_FRAME_GAP} + 2;
    localparam integer HDR_I    = S - 2;
    localparam [7:0]   HDR_LAST  = HDR_I[7:0];     // last header stream's PE, from PE_BASE        // last PE a header stream owns
    localparam [7:0]   BASE8     = PE_BASE[7:0];
    localparam [7:0]   NPE8      = NPE[7:0];
    localparam [2:0]   FWD_GAP3  = FWD_GAP[2:0];
    localparam integer USB_I    = S - 1;
    localparam [SW-1:0] USB_IDX  = USB_I[SW-1:0];
    localparam integer KA_LASTI = KA_TICK - 1;
    localparam [KW-1:0] KA_LAST  = KA_LASTI[KW-1:0];

    generate
        if (S < 2 || S > 32) begin : g_bad_s
            $error("link_mux: S must be in 2..32");
        end
        if (PE_BASE < 0 || PE_BASE > 63) begin : g_bad_base
            $error("link_mux: PE_BASE must be in 0..63");
        end
        if (NPE < S - 1 || NPE > 64 || PE_BASE + NPE > 64) begin : g_bad_npe
            $error("link_mux: NPE must be in S-1..64 with PE_BASE + NPE <= 64");
        end
        if (USB_ANY != 0 && USB_ANY != 1) begin : g_bad_usb
            $error("link_mux: USB_ANY must be 0 or 1");
        end
        if (IN_DEPTH < IN_MIN || IN_DEPTH > 4096 || (1 << IAW) != IN_DEPTH) begin : g_bad_in
            $error("link_mux: IN_DEPTH must be a power of two in 64..4096");
        end
        if (OUT_DEPTH < 64 || OUT_DEPTH > 4096 || (1 << $clog2(OUT_DEPTH)) != OUT_DEPTH) begin : g_bad_out
            $error("link_mux: OUT_DEPTH must be a power of two in 64..4096");
        end
        if (USB_OUT_DEPTH < 64 || USB_OUT_DEPTH > 4096 || (1 << $clog2(USB_OUT_DEPTH)) != USB_OUT_DEPTH) begin : g_bad_usb_out
            $error("link_mux: USB_OUT_DEPTH must be a power of two in 64..4096");
        end
        if (KEEPALIVE < 1024 || KEEPALIVE > (1 << 30)) begin : g_bad_ka
            $error("link_mux: KEEPALIVE must be in 1024..2^30");
        end
        if (CNT_W < 1 || CNT_W > 32) begin : g_bad_cnt
            $error("link_mux: CNT_W must be in 1..32");
        end
        if (LINK_MAX_PAYLOAD != 8) begin : g_bad_payload
            $error("link_mux: the len check (u_big) is written for LINK_MAX_PAYLOAD = 8");
        end
    endgenerate

    // ---- forwarder state (declared first: the per-stream FIFOs use it) -----
    localparam [1:0] F_IDLE = 2'd0, F_PRIME = 2'd1, F_EMIT = 2'd2;
    reg  [1:0]     fst;
    reg  [SW-1:0]  cur;        // stream being forwarded
    reg  [SW-1:0]  last_pick;  // round-robin pointer
    reg  [2:0]     gap;        // cycles since the last forwarded byte (saturates)
    reg  [1:0]     fpos;       // 0 FLAG next, 1 pe (or ESC) next, 2 escaped pe next, 3 past pe
    wire [S-1:0]   ready;      // stream holds a committed frame
    wire [9*S-1:0] iq_all;     // each stream's FIFO read data {last, byte}
    wire [8:0]     q = iq_all[9*cur +: 9];
    wire           emit = (fst == F_EMIT);
    wire           emit_last = emit && q[8];

    // ---- output state --------------------------------------------------------
    localparam [2:0] O_IDLE = 3'd0, O_PE = 3'd1, O_DEC = 3'd2, O_PASS = 3'd3, O_DROP = 3'd4, O_RT = 3'd5;
    reg  [2:0]    ost;
    reg  [7:0]    ope;         // the outgoing frame's pe byte
    reg  [SW-1:0] odest;
    wire [S-1:0]  room;        // output FIFO can take a whole frame
    reg  [S-1:0]  room_r;      // the same a cycle ago (no write to it since: O_RT comes between)
    reg  [SW-1:0] o_route_r;   // o_route and o_in_range of the frame's pe, registered in O_RT
    reg           o_in_range_r;
    reg  [SW*NPE-1:0] route;   // route[SW*e +: SW]: the stream PE (PE_BASE + e) last spoke through
    wire [7:0]    o_rel = ope - BASE8;
    wire          o_in_range = (o_rel < NPE8);
    reg  [SW-1:0] o_route;
    integer e;
    always @* begin
        o_route = USB_IDX;
        for (e = 0; e < NPE; e = e + 1)
            if (o_rel == e[7:0]) o_route = route[SW*e +: SW];
    end
    // (timing: the route lookup and the FIFO's fill level are registered
    // before O_DEC uses them; on the HX8K the combinational chain from a
    // FIFO pointer through the route to the write enable missed 90 MHz)
    wire          o_ok = o_in_range_r && !absent[o_route_r] && room_r[o_route_r];
    assign p_tx_ready = (ost != O_PE) && (ost != O_RT) && (ost != O_DEC);
    wire          o_wflag = (ost == O_DEC) && o_ok;
    wire          o_wbyte = (ost == O_PASS) && p_tx_valid && (p_tx_data != LINK_FLAG);
    wire [7:0]    o_wdata = o_wflag ? LINK_FLAG : p_tx_data;
    wire          o_drop = (ost == O_DEC) && o_in_range_r && !o_ok;

    // ---- keep-alive prescaler: one ka_tick every KA_TICK cycles ---------------
    reg  [KW-1:0] ka_cnt;
    wire          ka_tick = (ka_cnt == KA_LAST);
`ifdef FORMAL
    assign f_ka_cnt = {{(32 - KW){1'b0}}, ka_cnt};
`endif
    always @(posedge clk) begin
        if (rst || ka_tick) ka_cnt <= 0;
        else ka_cnt <= ka_cnt + 1'b1;
    end

    // ---- per stream ------------------------------------------------------------
    genvar k;
    generate
        for (k = 0; k < S; k = k + 1) begin : g_s
            // -- input parser and FIFO
            reg  [8:0]     imem [0:IN_DEPTH-1];
            reg  [8:0]     iq;
            reg  [IAW:0]   wr, fs, rd;  // write, frame start, read
            reg            hunt, esc, bad;
            reg  [4:0]     cnt;         // unstuffed bytes of the frame after FLAG
            reg  [4:0]     end_cnt;     // cnt of the frame's last byte: len + 7 (31 until len is in)
            reg  [CNT_W-1:0] c_frames, c_bind, c_ovr, c_txdrop, c_part;
            wire           v = s_rx_valid[k];
            wire [7:0]     b = s_rx_data[8*k +: 8];
            wire           is_flag = (b == LINK_FLAG);
            wire           is_esc = !esc && (b == LINK_ESC);
            wire [7:0]     u = esc ? (b ^ LINK_ESC_XOR) : b;
            wire [IAW:0]   used_fs = fs - rd;
            wire [IAW:0]   used_wr = wr - rd;
            wire           bind_ok;
            if (k < S - 1) begin : g_hdr
                localparam integer PK = PE_BASE + k;
`ifdef SELFTEST_BIND
                assign bind_ok = (u == PK[7:0]) || (u == PK[7:0] + 8'd1);  // planted: a neighbour's PE too
`else
                assign bind_ok = (u == PK[7:0]);
`endif
            end else if (USB_ANY != 0) begin : g_usb_any
                assign bind_ok = 1'b1;
            end else begin : g_usb_own
                assign bind_ok = ((u - BASE8) > HDR_LAST);  // u < PE_BASE or u > PE_BASE + S - 2
            end
            // (timing: no adder or magnitude compare on the byte's path; the
            // frame parser's decision missed the iCEBreaker's 36 MHz with them)
            wire           at_end = (cnt == end_cnt);
            wire           u_big = (|u[7:4]) || (u[3] && (|u[2:0]));  // u > LINK_MAX_PAYLOAD (8)
            wire           bad_len = (cnt == 5'd5) && !is_esc && u_big;
            // what this byte does (only one of these when v && !s_rx_ferr)
            wire           in_frame = v && !s_rx_ferr[k] && !is_flag && !hunt;
            wire           start_ok = v && !s_rx_ferr[k] && is_flag && !used_fs[IAW];
            wire           start_ovr = v && !s_rx_ferr[k] && is_flag && used_fs[IAW];
            wire           store = in_frame && !bad && !bad_len;  // the byte goes into the FIFO
            wire           ovr = start_ovr || (store && used_wr[IAW]);
            wire           commit = store && !is_esc && at_end && !used_wr[IAW];
            wire           bind_drop = in_frame && bad && !is_esc && at_end;
            // a partial frame dropped by a FLAG (not a repeated FLAG) or by len
            wire           part = (start_ok && !hunt && (cnt != 5'd0 || esc)) || (bad_len && in_frame);
            wire           we = start_ok || (store && !used_wr[IAW]);
            wire [IAW-1:0] wa = start_ok ? fs[IAW-1:0] : wr[IAW-1:0];
            wire [8:0]     wd = start_ok ? {1'b0, LINK_FLAG} : {commit, b};
            wire           fwd_k = emit && (cur == k);
            wire [IAW-1:0] ra = fwd_k ? rd[IAW-1:0] + 1'b1 : rd[IAW-1:0];

            always @(posedge clk) begin
                if (we) imem[wa] <= wd;
                iq <= imem[ra];
            end

            always @(posedge clk) begin
                if (rst) begin
                    wr <= 0;
                    fs <= 0;
                    hunt <= 1'b1;
                    esc <= 1'b0;
                    bad <= 1'b0;
                    cnt <= 5'd0;
                    end_cnt <= 5'd31;
                end else if (s_rx_ferr[k] || start_ovr || ovr || (bad_len && in_frame)) begin
                    wr <= fs;       // drop the partial frame, hunt for FLAG
                    hunt <= 1'b1;
                end else if (start_ok) begin
                    wr <= fs + 1'b1;
                    hunt <= 1'b0;
                    esc <= 1'b0;
                    bad <= 1'b0;
                    cnt <= 5'd0;
                    end_cnt <= 5'd31;
                end else if (in_frame) begin
                    if (store) wr <= wr + 1'b1;
                    if (is_esc) begin
                        esc <= 1'b1;
                    end else begin
                        esc <= 1'b0;
                        cnt <= cnt + 1'b1;
                        if (cnt == 5'd0 && !bind_ok) bad <= 1'b1;
                        if (cnt == 5'd5) end_cnt <= {1'b0, u[3:0]} + 5'd7;
                        if (commit) begin
                            fs <= wr + 1'b1;
                            hunt <= 1'b1;
                        end else if (bind_drop) begin
                            wr <= fs;
                            hunt <= 1'b1;
                        end
                    end
                end
            end

            wire fwd_done = emit_last && (cur == k);
            always @(posedge clk) begin
                if (rst) rd <= 0;
                else if (fwd_k) rd <= rd + 1'b1;
            end
            // whole frames wait between rd and fs (the forwarder reads only
            // up to a last byte, and a dropped frame rewinds wr, never fs)
            assign ready[k] = (fs != rd);
            assign iq_all[9*k +: 9] = iq;

            // -- presence
            reg [5:0] quiet;  // ka_tick periods without a byte, saturating at 33
            always @(posedge clk) begin
                if (rst) quiet <= 6'd33;
`ifdef SELFTEST_ABSENT_STICKY
                else if (v && quiet != 6'd33) quiet <= 6'd0;  // planted: a byte does not end absent
`elsif SELFTEST_ABSENT_EARLY
                else if (s_rx_ferr[k]) quiet <= 6'd33;        // planted: a framing error is absence
                else if (v) quiet <= 6'd0;
`else
                else if (v) quiet <= 6'd0;
`endif
                else if (ka_tick && quiet != 6'd33) quiet <= quiet + 1'b1;
            end
            assign absent[k] = (quiet == 6'd33);
`ifdef FORMAL
            assign f_quiet[6*k +: 6] = quiet;
`endif

            // -- output FIFO
            localparam integer ODEP = (k == S - 1) ? USB_OUT_DEPTH : OUT_DEPTH;
            localparam integer OW = $clog2(ODEP);
            localparam integer ROOM_I = ODEP - MAX_FRAME;
            localparam [OW:0] ROOM = ROOM_I[OW:0];
            reg  [7:0]   omem [0:ODEP-1];
            reg  [7:0]   oq, od;
            reg  [OW:0] owr, ord;
            reg          ov, orf;       // od holds a byte; a read is in flight
            wire [OW:0] oused = owr - ord;
            wire         owe = (o_wflag && o_route_r == k) || (o_wbyte && odest == k);
            always @(posedge clk) begin
                if (owe) omem[owr[OW-1:0]] <= o_wdata;
                oq <= omem[ord[OW-1:0]];
            end
            always @(posedge clk) begin
                if (rst) begin
                    owr <= 0;
                    ord <= 0;
                    ov <= 1'b0;
                    orf <= 1'b0;
                    od <= 8'd0;
                end else begin
                    if (owe) owr <= owr + 1'b1;
                    if (orf) begin
                        ov <= 1'b1;
                        od <= oq;
                        orf <= 1'b0;
                    end else if (!ov && owr != ord) begin
                        orf <= 1'b1;
                        ord <= ord + 1'b1;
                    end else if (ov && s_tx_ready[k]) begin
                        ov <= 1'b0;
                    end
                end
            end
            assign room[k] = (oused <= ROOM);
            always @(posedge clk) room_r[k] <= !rst && room[k];
            assign s_tx_valid[k] = ov;
            assign s_tx_data[8*k +: 8] = od;

            // -- counters
            always @(posedge clk) begin
                if (rst) begin
                    c_frames <= 0;
                    c_bind <= 0;
                    c_ovr <= 0;
                    c_txdrop <= 0;
                    c_part <= 0;
                end else begin
                    if (fwd_done) c_frames <= c_frames + 1'b1;
                    if (bind_drop) c_bind <= c_bind + 1'b1;
                    if (ovr) c_ovr <= c_ovr + 1'b1;
                    if (o_drop && o_route_r == k) c_txdrop <= c_txdrop + 1'b1;
`ifdef SELFTEST_PARTIAL
                    if (part && !bad_len) c_part <= c_part + 1'b1;  // planted: len > 8 not counted
`else
                    if (part) c_part <= c_part + 1'b1;
`endif
                end
            end
            assign counts[(5*k + 0)*CNT_W +: CNT_W] = c_frames;
            assign counts[(5*k + 1)*CNT_W +: CNT_W] = c_bind;
            assign counts[(5*k + 2)*CNT_W +: CNT_W] = c_ovr;
            assign counts[(5*k + 3)*CNT_W +: CNT_W] = c_txdrop;
            assign counts[(5*k + 4)*CNT_W +: CNT_W] = c_part;
        end
    endgenerate

    // ---- forwarder: round robin over streams with a whole frame --------------
    reg [SW-1:0] pick;
    integer i, j;
    always @* begin
        pick = last_pick;
        for (i = S; i >= 1; i = i - 1) begin
            j = i + {{(32-SW){1'b0}}, last_pick};
            if (j >= S) j = j - S;
            if (ready[j]) pick = j[SW-1:0];
        end
    end

    wire [7:0] fpe = (fpos == 2'd2) ? (q[7:0] ^ LINK_ESC_XOR) : q[7:0];
    wire       fpe_at = emit && ((fpos == 2'd1 && q[7:0] != LINK_ESC) || fpos == 2'd2);
    wire [7:0] f_rel = fpe - BASE8;

    integer r;
    always @(posedge clk) begin
        if (rst) begin
            fst <= F_IDLE;
            cur <= 0;
            last_pick <= USB_IDX;
            gap <= 3'd7;
            fpos <= 2'd0;
            p_rx_valid <= 1'b0;
            p_rx_data <= 8'd0;
            p_rx_ferr <= 1'b0;
            for (r = 0; r < NPE; r = r + 1)
                route[SW*r +: SW] <= (r < S - 1) ? r[SW-1:0] : USB_IDX;
        end else begin
            p_rx_ferr <= |s_rx_ferr;
            p_rx_valid <= emit;
            if (emit) p_rx_data <= q[7:0];
            if (!emit && gap != 3'd7) gap <= gap + 1'b1;
            case (fst)
                F_IDLE:
                    if (gap >= FWD_GAP3 && !p_rx_held && |ready) begin
                        cur <= pick;
                        last_pick <= pick;
                        fst <= F_PRIME;
                    end
                F_PRIME: begin
                    fst <= F_EMIT;
                    fpos <= 2'd0;
                end
                default: begin  // F_EMIT
                    gap <= 3'd0;
                    if (fpos != 2'd3) begin
                        if (fpos == 2'd1 && q[7:0] == LINK_ESC) fpos <= 2'd2;
                        else if (fpos == 2'd0) fpos <= 2'd1;
                        else fpos <= 2'd3;
                    end
                    if (q[8]) fst <= F_IDLE;
`ifdef SELFTEST_INTERLEAVE
                    // planted: past the pe byte, switch to another stream with a frame
                    else if (fpos == 2'd3 && ready[pick] && pick != cur) cur <= pick;
`endif
                end
            endcase
            for (r = 0; r < NPE; r = r + 1)
                if (fpe_at && f_rel == r[7:0]) route[SW*r +: SW] <= cur;
        end
    end

    // ---- presence of each PE: that of the stream its replies go to ------------
    genvar pa;
    generate
        for (pa = 0; pa < NPE; pa = pa + 1) begin : g_pe_absent
            assign pe_absent[pa] = absent[route[SW*pa +: SW]];
        end
    endgenerate

    // ---- output: link_port's frames to their PE's stream ----------------------
    always @(posedge clk) begin
        if (rst) begin
            ost <= O_IDLE;
            ope <= 8'd0;
            odest <= 0;
            o_route_r <= 0;
            o_in_range_r <= 1'b0;
        end else begin
            case (ost)
                O_PE:
                    if (p_tx_valid) begin
                        ope <= p_tx_data;
                        ost <= O_RT;
                    end
                O_RT: begin
                    o_route_r <= o_route;
                    o_in_range_r <= o_in_range;
                    ost <= O_DEC;
                end
                O_DEC: begin
                    odest <= o_route_r;
                    ost <= o_ok ? O_PASS : O_DROP;
                end
                default:  // O_IDLE, O_PASS, O_DROP
                    if (p_tx_valid && p_tx_data == LINK_FLAG) ost <= O_PE;
            endcase
        end
    end
endmodule
`default_nettype wire
