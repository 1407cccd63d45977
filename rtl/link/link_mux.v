`default_nettype none
// link_mux: S link byte streams into one link_port, frame by frame (issue 24,
// docs/link_mux.md; the link itself is docs/link.md).  What the virtual hub's
// per-PE channels do in C++ (sim/vhub/channel.cpp), in RTL: stream k < S-1
// is a header UART that speaks for PE (PE_BASE + k) only, stream S-1 is the
// board's USB UART.  The model is Hall's COP with one serial channel per
// compute node (seed 004 chapter IV), and its controller's way of serving
// them: one shared unit visits the channels in turn (figure 22's round
// robin).  The departure is that the channels share one link_port (one
// command handled at a time) instead of one interface per channel.
//
// Streams (stream k's fields at [k] and [8*k +: 8], as uart_stream gives
// them):
//   s_rx_valid/s_rx_data  received bytes, no backpressure; s_rx_data[8k +: 8]
//                      holds its byte from s_rx_valid[k] until the stream's
//                      next s_rx_valid (uart_rx's data register does), and a
//                      stream's bytes come at least S + 1 cycles apart (a
//                      UART's at least about 38 hub clocks apart: uart_rx
//                      takes 4 clocks a bit, aggnet_mux_hub checks the
//                      bauds); bytes that come faster are lost and counted
//                      (OVERRUN, below).
//   s_rx_ferr          one-cycle pulse: a byte was lost (UART framing error);
//                      the stream's partial frame is dropped, and the pulse is
//                      passed on to link_port (p_rx_ferr, OR of all streams).
//   s_tx_valid/s_tx_ready/s_tx_data  bytes to send: s_tx_valid[k] is a
//                      one-cycle offer (a register), made only when
//                      s_tx_ready[k] was high the cycle before; the byte is
//                      taken if s_tx_ready[k] is still high, else offered
//                      again on a later visit.  Every stream's s_tx_data
//                      carries the same byte, the one offered.
// The link_port side (p_*) is link_port's byte stream turned around:
// p_rx_valid/p_rx_data/p_rx_ferr into it, p_rx_held from it, p_tx_valid/
// p_tx_data from it and p_tx_ready into it.
//
// Time-shared (the cost per stream is a few registers; docs/link_mux.md,
// "Size"): a slot counter visits stream 0, 1, .., S-1, 0, .. one a cycle.
// Per stream there are only three flags for its received byte (held, a
// framing error, bytes lost), its presence counter, its output FIFO's
// pointers and a count of the whole frames it holds.  Everything else is
// one shared unit and memories: the frame parser, whose per-stream state
// (FIFO pointers, escape and hunt flags, the byte count of the frame) is a
// word of the state memory; the input FIFOs' read pointers (one word each);
// the input FIFOs, one memory of S regions of IN_DEPTH entries (a byte, a
// last-byte bit and an is-ESC bit); the header streams' output FIFOs, one
// memory of S-1 regions of OUT_DEPTH bytes (and the USB stream's own of
// USB_OUT_DEPTH);
// the counters, a word of 5 x CNT_W bits per stream.
//
// Input: in stream k's slot, the byte it holds goes through the parser: a
// frame starts at FLAG, its pe byte (index 0) is checked for binding, its len
// byte (index 5) gives its end (6 + len + 4 unstuffed bytes), and only a
// whole frame is committed.  Dropped without reaching link_port (the stream
// then hunts for the next FLAG):
//   * a partial frame cut by s_rx_ferr (counted by link_port as UART_FERR);
//   * a partial frame cut by a FLAG (at least one byte after its FLAG: two
//     FLAGs in a row are harmless, docs/link.md), or a frame with len > 8
//     (PARTIAL counter);
//   * a frame whose pe byte the stream may not speak for (BIND counter):
//     stream k < S-1 only for PE_BASE + k; stream S-1 for any PE when
//     USB_ANY = 1, else for none of PE_BASE .. PE_BASE + S-2.  Its bytes are
//     not stored, so such frames cannot fill the buffer;
//   * the partial frame of a stream whose FIFO is full when a byte arrives,
//     or whose bytes came faster than its slot takes them (a byte arrived
//     while the one before was still held) (OVERRUN counter): frames
//     already committed stay, other streams lose nothing.
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
// 63 < 0x7D).  p_tx_ready is held low for the 5 cycles after a FLAG while the
// pe byte picks the route and that stream's FIFO is measured; then the whole
// frame goes to that stream's output FIFO, which must have room for the
// longest stuffed frame (MAX_FRAME bytes).  Otherwise the frame is dropped
// (TXDROP counter of that stream): when the stream is absent (below), or its
// FIFO is that full (its tx is slow or stalled), or the pe has no route.  So
// p_tx_ready is never low for more than 5 cycles a frame and one stream's
// slow tx never delays another's replies.  The host's resend recovers a
// dropped reply (link_port answers a duplicate from its stored reply).  In
// stream k's slot, a byte of its output FIFO is read; the next cycle it is
// offered (s_tx_valid[k]) if s_tx_ready[k] is high, else it waits for the
// next visit.
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
// Room (a stream's clear-to-send, for a sender that can pause at a frame
// boundary: a UART cable's RTS/CTS, or the virtual hub's channels, which
// have no wire to lose bytes on): s_rx_room[k] is high while stream k's
// input FIFO holds at most IN_DEPTH - MAX_FRAME - 2 bytes (committed frames
// and the partial one), as measured in its last slot.  A sender that keeps
// its bytes S + 1 cycles apart and starts a frame (its FLAG) only while
// s_rx_room[k] is high never overflows the FIFO: the value is at most S + 2
// cycles old, so at most one byte more than it says went in, and the frame
// that follows is at most MAX_FRAME bytes.  Low from reset until the first
// slot after the clearing round.
//
// idle: nothing in the multiplexer can change but by a new byte or by time
// (presence): no byte held or being parsed, no whole frame waiting or being
// forwarded, no reply being routed, every output FIFO empty, no event
// waiting to be counted.  A simulation may stop its clock when this and
// link_port's idle are high (the virtual hub, docs/vhub.md); a partial frame
// in an input FIFO waits for its next byte.
//
// Counters, wrapping, per stream k: i = 0 FRAMES (whole frames of stream k
// taken in; each is forwarded to link_port), 1 BIND, 2 OVERRUN, 3 TXDROP,
// 4 PARTIAL (partial frames cut by a FLAG, frames with len > 8).  Read
// port: cnt_rdata is, one cycle after cnt_raddr = {k[4:0], i[2:0]}, that
// counter (0 for k >= S or i >= 5).  An event is added in its stream's
// next slot (within S + 2 cycles); for S cycles after reset the counters
// and the parser's state are being cleared.
//
// Timing (cycles): a byte is taken within S cycles of s_rx_valid (its
// stream's slot, stage A), parsed the cycle after (stage B), and its frame
// counted whole the cycle after that (stage C); an idle mux picks the frame
// three cycles later (the candidates and the pick are registered), reads
// the stream's read pointer, then its FIFO, so its FLAG is on p_rx_valid
// at most S + 9 cycles
// after the cycle its last byte was on s_rx_valid, then one byte a cycle;
// FWD_GAP cycles at least between frames.  Output: p_tx_ready low 5 cycles per frame; a byte
// written into an output FIFO is offered within S + 2 cycles.
//
// Parameters: S in 2..32; PE_BASE in 0..63; NPE (PEs link_port serves,
// from PE_BASE) in S-1..64 with PE_BASE + NPE <= 64; USB_ANY 0 or 1;
// IN_DEPTH, OUT_DEPTH and USB_OUT_DEPTH powers of two in 64..4096;
// KEEPALIVE in 1024..2^30; CNT_W in 1..32 (IN_DEPTH >= 64 for s_rx_room);
// LUTRAM 0 (the small per-stream memories in block RAM: iCE40) or 1 (in
// LUT RAM, whose reads come out of a flip-flop: ECP5; rtl/link/link_mux_ram.v).
module link_mux #(
    parameter integer S         = 2,
    parameter integer PE_BASE   = 0,
    parameter integer NPE       = S,
    parameter integer USB_ANY   = 1,
    parameter integer IN_DEPTH  = 128,
    parameter integer OUT_DEPTH = 64,
    parameter integer USB_OUT_DEPTH = 256,
    parameter integer KEEPALIVE = 48000000,
    parameter integer CNT_W     = 16,
    parameter integer LUTRAM    = 0
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
    input  wire [7:0]           cnt_raddr,
    output wire [CNT_W-1:0]     cnt_rdata,
    output wire [S-1:0]         s_rx_room,
    output wire                 idle
`ifdef FORMAL
    ,
    // for rtl/link/link_mux_props.v
    output wire [6*S-1:0]       f_quiet,   // stream k's presence counter at [6k +: 6]
    output wire [31:0]          f_ka_cnt,  // the keep-alive prescaler
    output wire [S-1:0]         f_fwd_end, // stream k's forwarded frame ends this cycle
    output wire [S-1:0]         f_bind,    // stream k's BIND counter steps this cycle
    output wire [S-1:0]         f_part     // stream k's PARTIAL counter steps this cycle
`endif
);
`include "link_defs.vh"

    localparam integer SW  = (S > 1) ? $clog2(S) : 1;
    localparam integer IAW = $clog2(IN_DEPTH);
    localparam integer OHW = $clog2(OUT_DEPTH);
    localparam integer UOW = $clog2(USB_OUT_DEPTH);
    localparam integer PW  = ((OHW > UOW) ? OHW : UOW) + 1;  // output pointers (free-running)
    localparam integer NFW = IAW - 3;    // whole frames held: at most IN_DEPTH / 9 < 2^NFW
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
    localparam integer MAX_FRAME = {24'd0, LINK_MAX_FRAME};
    localparam integer FWD_GAP   = {24'd0, LINK_SIM_FRAME_GAP} + 2;
    // the index of a frame's last unstuffed byte is len + END_LEN0
    localparam [4:0]   END_LEN0  = LINK_HDR_BYTES[4:0] + LINK_CRC_BYTES[4:0] - 5'd1;
    localparam integer HDR_I    = S - 2;
    localparam [7:0]   HDR_LAST  = HDR_I[7:0];     // last header stream's PE, from PE_BASE
    localparam [7:0]   BASE8     = PE_BASE[7:0];
    localparam [7:0]   NPE8      = NPE[7:0];
    localparam [2:0]   FWD_GAP3  = FWD_GAP[2:0];
    localparam integer USB_I    = S - 1;
    localparam [SW-1:0] USB_IDX  = USB_I[SW-1:0];
    localparam integer KA_LASTI = KA_TICK - 1;
    localparam [KW-1:0] KA_LAST  = KA_LASTI[KW-1:0];
    localparam integer HROOM_I  = OUT_DEPTH - MAX_FRAME;
    localparam integer UROOM_I  = USB_OUT_DEPTH - MAX_FRAME;
    localparam [PW-1:0] HROOM   = HROOM_I[PW-1:0];
    localparam [PW-1:0] UROOM   = UROOM_I[PW-1:0];
    localparam integer IROOM_I  = (IN_DEPTH > MAX_FRAME + 2) ? IN_DEPTH - MAX_FRAME - 2 : 0;
    localparam [IAW:0]  IROOM   = IROOM_I[IAW:0];   // s_rx_room's bound on an input FIFO's bytes
    localparam integer HMASK_I  = (1 << (OHW + 1)) - 1;
    localparam [PW-1:0] HMASK   = HMASK_I[PW-1:0];   // a header stream's pointer bits
    localparam integer STW = 2 * (IAW + 1) + 13;  // the parser's state word
    localparam integer CWW = 5 * CNT_W;           // the counters' word

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
        if (OUT_DEPTH < 64 || OUT_DEPTH > 4096 || (1 << OHW) != OUT_DEPTH) begin : g_bad_out
            $error("link_mux: OUT_DEPTH must be a power of two in 64..4096");
        end
        if (USB_OUT_DEPTH < 64 || USB_OUT_DEPTH > 4096 || (1 << UOW) != USB_OUT_DEPTH) begin : g_bad_usb_out
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

    // ---- the slot counter and clearing after reset -----------------------------
    reg  [SW-1:0] sl;      // the stream whose slot this cycle is (stage A)
    reg           ini;     // the first round after reset: clear the memories
    always @(posedge clk) begin
        if (rst) begin
            sl <= 0;
            ini <= 1'b1;
        end else begin
            sl <= (sl == USB_IDX) ? {SW{1'b0}} : sl + 1'b1;
            if (sl == USB_IDX) ini <= 1'b0;
        end
    end

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

    // ---- shared state declared before the per-stream registers use it ----------
    // stage B of the parser (the stream taken in the cycle before)
    reg           b_go, b_ini, b_v, b_f, b_l;
    reg  [SW-1:0] b_k;
    reg  [7:0]    b_d, b_exp;
    wire [IAW:0]  b_rd;         // the stream's input FIFO read pointer (rmem, registered there)
    reg  [1:0]    b_txp;
    reg           w_commit;     // stage C: the frame parsed in stage B is whole
    reg  [SW-1:0] w_k;
    // forwarder
    localparam [1:0] F_IDLE = 2'd0, F_PRIME = 2'd1, F_ADDR = 2'd2, F_EMIT = 2'd3;
    reg  [1:0]    fst;
    reg  [SW-1:0] cur;         // stream being forwarded
    reg  [IAW:0]  frd;         // forwarder's read pointer (one past the byte read)
    reg  [2:0]    gap;         // cycles since the last forwarded byte (saturates)
    reg  [1:0]    fpos;        // 0 FLAG next, 1 pe (or ESC) next, 2 escaped pe next, 3 past pe
    reg  [9:0]    q;           // the input memory's read data {is ESC, last, byte}
    wire          emit = (fst == F_EMIT);
    wire          emit_last = emit && q[8];
    reg           fe_r;        // emit_last, a cycle later
    always @(posedge clk) fe_r <= !rst && emit_last;
    // output
    localparam [2:0] O_IDLE = 3'd0, O_PE = 3'd1, O_RT = 3'd2, O_RM = 3'd3, O_DEC = 3'd4,
                     O_PASS = 3'd5, O_DROP = 3'd6;
    reg  [2:0]    ost;
    reg  [7:0]    ope;         // the outgoing frame's pe byte
    reg  [SW-1:0] o_route_r;   // the route of ope, registered in O_RT
    reg           o_in_range_r;
    reg  [SW-1:0] odest;       // registered in O_RM
    reg  [PW-1:0] o_used, ow;  // the destination FIFO's fill level and write pointer
    reg           o_usb;       // the destination is the USB stream
    wire          o_room = o_usb ? (o_used <= UROOM) : (o_used <= HROOM);
    reg           o_abs;       // the destination stream was absent (registered in O_RM)
    reg  [S-1:0]  od_oh;       // odest, one-hot (registered in O_RM; timing)
    wire          o_ok = o_in_range_r && !o_abs && o_room;
    wire          o_wflag = (ost == O_DEC) && o_ok;
    // link_port's byte, registered when taken (timing: on the UP5K the path
    // from frame_tx's escape state through the FLAG compare to the output
    // FIFOs' enables missed 36 MHz); a FLAG taken holds p_tx_ready low
    // while it is here, so the pe byte after it waits at link_port for O_PE
    reg           r_v;
    reg  [7:0]    r_d;
    reg           r_isf;       // r_d is a FLAG (compared on the way in)
    wire          r_flag = r_v && r_isf;
    wire          o_wbyte = (ost == O_PASS) && r_v && !r_flag;
    wire          o_we = o_wflag || o_wbyte;
    wire [7:0]    o_wdata = o_wflag ? LINK_FLAG : r_d;
    wire          o_drop = (ost == O_DEC) && o_in_range_r && !o_ok;
    // p_tx_ready is a register (timing: link_port's frame_tx steps on it):
    // high where the router takes a byte (O_IDLE, O_PASS, O_DROP) unless a
    // FLAG was taken the cycle before, i.e. next cycle's value of
    // (ost in those states) && !r_flag
    reg           rdy;
    assign p_tx_ready = rdy;
    wire          acc_flag = p_tx_valid && rdy && (p_tx_data == LINK_FLAG);
    wire          rdy_n = !acc_flag && ((((ost == O_IDLE) || (ost == O_PASS) || (ost == O_DROP)) && !r_flag) ||
                                        (ost == O_DEC));
    // tx feeder (stage TB: the stream whose slot was last cycle)
    reg           t_v;
    reg  [SW-1:0] t_k;
    reg  [7:0]    t_hq, t_uq;  // the output memories' read data
    reg  [PW-1:0] t_ord1;      // the stream's read pointer after this byte
    wire [7:0]    t_byte = (t_k == USB_IDX) ? t_uq : t_hq;
    wire          t_take = t_v && s_tx_ready[t_k];

    wire          room_n;      // stage B: the stream's input FIFO has room (s_rx_room)

    // ---- per stream: the received byte's flags, presence, pointers, counts -----
    wire [S-1:0]        hv_all, hf_all, hl_all;
    wire [2*S-1:0]      txp_all;
    wire [PW*S-1:0]     owr_all, ord_all;
    wire [S-1:0]        ready;     // stream holds a committed frame

    genvar k;
    generate
        for (k = 0; k < S; k = k + 1) begin : g_s
            wire       v = s_rx_valid[k];
            wire       fe = s_rx_ferr[k];
            wire       take = (sl == k) && !ini;  // (held through the clearing round)
            // -- the received byte (in s_rx_data), held until the stream's slot
            reg        hv, hf, hl;
            always @(posedge clk) begin
                if (rst) begin
                    hv <= 1'b0;
                    hf <= 1'b0;
                    hl <= 1'b0;
                end else if (take) begin
                    hv <= v;
                    hf <= fe;
                    hl <= 1'b0;
                end else if (v || fe) begin
                    if (hv || hf) begin
                        hl <= 1'b1;   // the one before is still held: lost
                    end else begin
                        hv <= v;
                        hf <= fe;
                    end
                end
            end
            assign hv_all[k] = hv;
            assign hf_all[k] = hf;
            // a byte in the slot's own cycle overwrites the held one's data
            assign hl_all[k] = hl || (hv && v);

            // -- input FIFO: whole frames held
            reg  [NFW-1:0] nf;
            // (counted a cycle after the frame's last byte left the input
            // memory: timing, its last-byte bit comes out of a block RAM
            // late; cur holds for FWD_GAP cycles after a frame)
            wire           fwd_done = fe_r && (cur == k);
            wire           cmt = w_commit && (w_k == k);
            always @(posedge clk) begin
                if (rst) begin
                    nf <= 0;
                end else begin
                    if (cmt && !fwd_done) nf <= nf + 1'b1;
                    else if (fwd_done && !cmt) nf <= nf - 1'b1;
                end
            end
            assign ready[k] = (nf != 0);

            // -- room in the input FIFO, measured in the stream's stage B
            reg            room;
            always @(posedge clk) begin
                if (rst) room <= 1'b0;
                else if (b_go && b_k == k) room <= !b_ini && room_n;
            end
            assign s_rx_room[k] = room;
`ifdef FORMAL
            assign f_fwd_end[k] = emit_last && (cur == k);
`endif

            // -- replies dropped, waiting to be counted in the stream's slot
            // (at most one drop per 14 cycles, a frame of 9 bytes at least and
            // 5 cycles of routing; the slot comes every S <= 32 cycles: 3 at
            // most wait, and the count saturates rather than wraps)
            reg  [1:0] txp;
            wire       tinc = o_drop && (odest == k);
            wire [1:0] tdec = (b_go && !b_ini && b_k == k) ? b_txp : 2'd0;
            always @(posedge clk) begin
                if (rst) txp <= 2'd0;
                else if (tinc && txp - tdec != 2'd3) txp <= txp - tdec + 2'd1;
                else txp <= txp - tdec;
            end
            assign txp_all[2*k +: 2] = txp;

            // -- output FIFO pointers
            // (pointers of OHW + 1 bits, UOW + 1 for the USB stream; the
            // shared paths see them zero-extended to PW bits)
            localparam integer KPW = (k == S - 1) ? UOW + 1 : OHW + 1;
            reg  [KPW-1:0] owr, ord;
            always @(posedge clk) begin
                if (rst) begin
                    owr <= 0;
                    ord <= 0;
                end else begin
                    if (o_we && od_oh[k]) owr <= ow[KPW-1:0] + 1'b1;
                    if (t_take && t_k == k) ord <= t_ord1[KPW-1:0];
                end
            end
            if (KPW < PW) begin : g_ext
                assign owr_all[PW*k +: PW] = {{(PW - KPW){1'b0}}, owr};
                assign ord_all[PW*k +: PW] = {{(PW - KPW){1'b0}}, ord};
            end else begin : g_full
                assign owr_all[PW*k +: PW] = owr;
                assign ord_all[PW*k +: PW] = ord;
            end
            assign s_tx_valid[k] = t_v && (t_k == k);
            assign s_tx_data[8*k +: 8] = t_byte;

            // -- presence
            reg [5:0] quiet;  // ka_tick periods without a byte, saturating at 33
            always @(posedge clk) begin
                if (rst) quiet <= 6'd33;
`ifdef SELFTEST_ABSENT_STICKY
                else if (v && quiet != 6'd33) quiet <= 6'd0;  // planted: a byte does not end absent
`elsif SELFTEST_ABSENT_EARLY
                else if (fe) quiet <= 6'd33;                  // planted: a framing error is absence
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
        end
    endgenerate

    // ---- parser, stage A: the slot's stream, its state and counters read ------
    // The small per-stream memories (rtl/link/link_mux_ram.v: block RAM, or
    // LUT RAM with LUTRAM = 1): smem, the parser's state per stream, read
    // for the slot's stream and written for the one before it (so no
    // read-during-write logic: NO_RW_CHECK); cmem, the counters per stream
    // (read for stage B's stream and written for stage C's; a second copy
    // for the read port); rmem, the input FIFOs' read pointers: the parser
    // reads its stream's (b_rd, a cycle old at most: it frees space, never
    // takes it), the forwarder its own (f_rd, a second copy) and writes it
    // back after each frame, and the clearing round writes zeros (the
    // forwarder's write never meets the parser's read of the same stream: it
    // waits a cycle when the slot is its stream's; what the forwarder's own
    // copy reads in the cycle of a write is unused).
    wire [STW-1:0] st;
    wire [CWW-1:0] cn;
    wire [7:0]     sl8 = {{(8 - SW){1'b0}}, sl};
    wire [IAW:0]   f_rd;
    wire           sm_we, cm_we, rm_we;
    wire [SW-1:0]  rm_wa;
    wire [IAW:0]   rm_wd;
    wire [STW-1:0] sm_wd;
    wire [CWW-1:0] cm_wd;
    link_mux_ram #(.W(STW), .D(S), .AW(SW), .LUTRAM(LUTRAM), .NO_RW_CHECK(1)) u_smem (
        .clk(clk), .we(sm_we), .wa(b_k), .wd(sm_wd), .ra(sl), .rd(st));
    link_mux_ram #(.W(IAW + 1), .D(S), .AW(SW), .LUTRAM(LUTRAM), .NO_RW_CHECK(1)) u_rmem_b (
        .clk(clk), .we(rm_we), .wa(rm_wa), .wd(rm_wd), .ra(sl), .rd(b_rd));
    link_mux_ram #(.W(IAW + 1), .D(S), .AW(SW), .LUTRAM(LUTRAM), .NO_RW_CHECK(1)) u_rmem_f (
        .clk(clk), .we(rm_we), .wa(rm_wa), .wd(rm_wd), .ra(cur), .rd(f_rd));
    link_mux_ram #(.W(CWW), .D(S), .AW(SW), .LUTRAM(LUTRAM), .NO_RW_CHECK(0)) u_cmem (
        .clk(clk), .we(cm_we), .wa(w_k), .wd(cm_wd), .ra(b_k), .rd(cn));
    always @(posedge clk) begin
        if (rst) begin
            b_go <= 1'b0;
            b_ini <= 1'b1;
            b_k <= 0;
            b_v <= 1'b0;
            b_f <= 1'b0;
            b_l <= 1'b0;
            b_d <= 8'd0;
            b_exp <= 8'd0;
            b_txp <= 2'd0;
        end else begin
            b_go <= 1'b1;
            b_ini <= ini;
            b_k <= sl;
            b_v <= hv_all[sl];
            b_f <= hf_all[sl];
            b_l <= hl_all[sl];
            b_d <= s_rx_data[8*sl +: 8];
            b_exp <= BASE8 + sl8;
            b_txp <= txp_all[2*sl +: 2];
        end
    end

    // ---- parser, stage B: the byte against the stream's state -----------------
    wire [IAW:0] wr = st[STW-1 -: IAW+1];
    wire [IAW:0] fs = st[STW-IAW-2 -: IAW+1];
    wire         hunt = st[12];
    wire         esc = st[11];
    wire         bad = st[10];
    wire [4:0]   cnt = st[9:5];
    wire [4:0]   end_cnt = st[4:0];
    wire         bv = b_v && !b_l;   // the byte (none when bytes were lost)
    wire         bfe = b_f && !b_l;  // a framing error
    wire [7:0]   b = b_d;
    wire         is_flag = (b == LINK_FLAG);
    wire         is_esc = !esc && (b == LINK_ESC);
    wire [7:0]   u = esc ? (b ^ LINK_ESC_XOR) : b;
    wire [IAW:0] used_fs = fs - b_rd;
    wire [IAW:0] used_wr = wr - b_rd;
    wire         is_usb = (b_k == USB_IDX);
    wire         bind_ok;
    generate
        if (USB_ANY != 0) begin : g_usb_any
`ifdef SELFTEST_BIND
            assign bind_ok = is_usb || (u == b_exp) || (u == b_exp + 8'd1);  // planted: a neighbour's PE too
`else
            assign bind_ok = is_usb || (u == b_exp);
`endif
        end else begin : g_usb_own
`ifdef SELFTEST_BIND
            assign bind_ok = is_usb ? ((u - BASE8) > HDR_LAST) : ((u == b_exp) || (u == b_exp + 8'd1));
`else
            // the USB stream: u < PE_BASE or u > PE_BASE + S - 2
            assign bind_ok = is_usb ? ((u - BASE8) > HDR_LAST) : (u == b_exp);
`endif
        end
    endgenerate
    wire         at_end = (cnt == end_cnt);
    wire         u_big = (|u[7:4]) || (u[3] && (|u[2:0]));  // u > LINK_MAX_PAYLOAD (8)
    wire         bad_len = (cnt == 5'd5) && !is_esc && u_big;
    // what this byte does (only one of these when bv && !bfe)
    wire         in_frame = bv && !bfe && !is_flag && !hunt;
    wire         start_ok = bv && !bfe && is_flag && !used_fs[IAW];
    wire         start_ovr = bv && !bfe && is_flag && used_fs[IAW];
    wire         store = in_frame && !bad && !bad_len;  // the byte goes into the FIFO
    wire         ovr = start_ovr || (store && used_wr[IAW]);
    wire         commit = store && !is_esc && at_end && !used_wr[IAW];
    wire         bind_drop = in_frame && bad && !is_esc && at_end;
    // a partial frame dropped by a FLAG (not a repeated FLAG) or by len
    wire         part = (start_ok && !hunt && (cnt != 5'd0 || esc)) || (bad_len && in_frame);
    wire         live = b_go && !b_ini;

    reg  [IAW:0] n_wr, n_fs;
    reg          n_hunt, n_esc, n_bad;
    reg  [4:0]   n_cnt, n_end;
    always @* begin
        n_wr = wr;
        n_fs = fs;
        n_hunt = hunt;
        n_esc = esc;
        n_bad = bad;
        n_cnt = cnt;
        n_end = end_cnt;
        if (b_ini) begin
            n_wr = 0;
            n_fs = 0;
            n_hunt = 1'b1;
            n_esc = 1'b0;
            n_bad = 1'b0;
            n_cnt = 5'd0;
            n_end = 5'd31;
        end else if (b_l || bfe || start_ovr || ovr || (bad_len && in_frame)) begin
            n_wr = fs;      // drop the partial frame, hunt for FLAG
            n_hunt = 1'b1;
        end else if (start_ok) begin
            n_wr = fs + 1'b1;
            n_hunt = 1'b0;
            n_esc = 1'b0;
            n_bad = 1'b0;
            n_cnt = 5'd0;
            n_end = 5'd31;
        end else if (in_frame) begin
            if (store) n_wr = wr + 1'b1;
            if (is_esc) begin
                n_esc = 1'b1;
            end else begin
                n_esc = 1'b0;
                n_cnt = cnt + 1'b1;
                if (cnt == 5'd0 && !bind_ok) n_bad = 1'b1;
                if (cnt == 5'd5) n_end = {1'b0, u[3:0]} + END_LEN0;
                if (commit) begin
                    n_fs = wr + 1'b1;
                    n_hunt = 1'b1;
                end else if (bind_drop) begin
                    n_wr = fs;
                    n_hunt = 1'b1;
                end
            end
        end
    end

    // the FIFO's bytes after this one (s_rx_room; b_rd may be a cycle old,
    // which only overstates them)
    wire [IAW:0] used_n = n_wr - b_rd;
    assign room_n = (used_n <= IROOM);

    // counters: {PARTIAL, TXDROP, OVERRUN, BIND, FRAMES}, stage B's events,
    // added in stage C (timing: on the UP5K the parse through the add into
    // the counters' memory missed 36 MHz)
    wire         i_frames = live && commit;
    wire         i_bind = live && bind_drop;
    wire         i_ovr = live && (b_l || ovr);
`ifdef SELFTEST_PARTIAL
    wire         i_part = live && part && !bad_len;  // planted: len > 8 not counted
`else
    wire         i_part = live && part;
`endif
    wire [1:0]   i_tx = live ? b_txp : 2'd0;
    // the input memory: S regions of IN_DEPTH entries {is ESC, last, byte}
    // (no_rw_check: the forwarder reads only whole frames, which stage C no
    // longer writes, but for the entry after a frame's last byte, read and
    // dropped in the same cycle).  The byte's compare with ESC is made as it
    // is written (timing: on the ECP5 the block RAM's late output through
    // the compare into the forwarder's escape state missed 90 MHz).
    (* no_rw_check *) reg [9:0] imem [0:S*IN_DEPTH-1];
    wire         i_we = live && (start_ok || (store && !used_wr[IAW]));
    wire [IAW-1:0] i_wa = start_ok ? fs[IAW-1:0] : wr[IAW-1:0];
    wire [9:0]   i_wd = start_ok ? {2'b00, LINK_FLAG} : {b == LINK_ESC, commit, b};

    // stage C: stage B's byte into the input memory, its frame counted whole,
    // its events added to the stream's counters (read in stage B)
    reg          w_go, w_ini, w_frames, w_bind, w_ovr, w_part, w_we;
    reg  [1:0]   w_tx;
    reg  [IAW-1:0] w_wa;
    reg  [9:0]   w_wd;
    always @(posedge clk) begin
        if (rst) begin
            w_go <= 1'b0;
            w_ini <= 1'b1;
            w_k <= 0;
            w_commit <= 1'b0;
            w_frames <= 1'b0;
            w_bind <= 1'b0;
            w_ovr <= 1'b0;
            w_part <= 1'b0;
            w_tx <= 2'd0;
            w_we <= 1'b0;
            w_wa <= 0;
            w_wd <= 10'd0;
        end else begin
            w_go <= b_go;
            w_ini <= b_ini;
            w_k <= b_k;
            w_commit <= live && commit;
            w_frames <= i_frames;
            w_bind <= i_bind;
            w_ovr <= i_ovr;
            w_part <= i_part;
            w_tx <= i_tx;
            w_we <= i_we;
            w_wa <= i_wa;
            w_wd <= i_wd;
        end
    end
    wire [CWW-1:0] n_cn;
    assign n_cn[0*CNT_W +: CNT_W] = cn[0*CNT_W +: CNT_W] + {{(CNT_W-1){1'b0}}, w_frames};
    assign n_cn[1*CNT_W +: CNT_W] = cn[1*CNT_W +: CNT_W] + {{(CNT_W-1){1'b0}}, w_bind};
    assign n_cn[2*CNT_W +: CNT_W] = cn[2*CNT_W +: CNT_W] + {{(CNT_W-1){1'b0}}, w_ovr};
    generate
        if (CNT_W > 2) begin : g_tx_wide
            assign n_cn[3*CNT_W +: CNT_W] = cn[3*CNT_W +: CNT_W] + {{(CNT_W-2){1'b0}}, w_tx};
        end else begin : g_tx_narrow
            assign n_cn[3*CNT_W +: CNT_W] = cn[3*CNT_W +: CNT_W] + w_tx[CNT_W-1:0];
        end
    endgenerate
    assign n_cn[4*CNT_W +: CNT_W] = cn[4*CNT_W +: CNT_W] + {{(CNT_W-1){1'b0}}, w_part};
`ifdef FORMAL
    generate
        for (k = 0; k < S; k = k + 1) begin : g_fev
            assign f_bind[k] = w_bind && (w_k == k);
            assign f_part[k] = w_part && (w_k == k);
        end
    endgenerate
`endif

    assign sm_we = b_go;
    assign sm_wd = {n_wr, n_fs, n_hunt, n_esc, n_bad, n_cnt, n_end};
    assign cm_we = w_go;
    assign cm_wd = w_ini ? {CWW{1'b0}} : n_cn;

    wire [IAW-1:0] f_ra = (fst == F_ADDR) ? f_rd[IAW-1:0] : frd[IAW-1:0];
    always @(posedge clk) begin
        if (w_we) imem[{w_k, w_wa}] <= w_wd;
        q <= imem[{cur, f_ra}];
    end
    // The read pointer goes back after a frame's last byte, a cycle later or
    // two (timing: the last-byte bit comes out of the input memory late), in
    // a cycle whose slot is not that stream's (the parser's copy is read in
    // its slot); the next frame of that stream is read FWD_GAP cycles later
    // at the earliest, and frames are at least 9 bytes long, so at most one
    // write is pending.  (No frame is forwarded during the clearing round:
    // nf is 0 from reset.)
    reg            rm_p;
    reg  [SW-1:0]  rm_k;
    reg  [IAW:0]   rm_v;
    wire rm_clr = b_go && b_ini;
    wire rm_go = rm_p && sl != rm_k;
    assign rm_we = rm_clr || rm_go;
    assign rm_wa = rm_clr ? b_k : rm_k;
    assign rm_wd = rm_clr ? {(IAW + 1){1'b0}} : rm_v;
    always @(posedge clk) begin
        if (rst) rm_p <= 1'b0;
        else if (emit_last) rm_p <= 1'b1;
        else if (rm_go) rm_p <= 1'b0;
        if (emit_last) begin
            rm_k <= cur;
            rm_v <= frd;
        end
    end

    // ---- the counters' read port ----------------------------------------------
    wire [4:0]     c_k = cnt_raddr[7:3];
    wire           c_ok = ({27'd0, c_k} < S) && (cnt_raddr[2:0] < 3'd5);
    wire [SW-1:0]  c_a = c_ok ? c_k[SW-1:0] : {SW{1'b0}};
    wire [CWW-1:0] c_q;
    reg  [2:0]     c_i;
    reg            c_v;
    link_mux_ram #(.W(CWW), .D(S), .AW(SW), .LUTRAM(LUTRAM), .NO_RW_CHECK(0)) u_cmem_r (
        .clk(clk), .we(cm_we), .wa(w_k), .wd(cm_wd), .ra(c_a), .rd(c_q));
    always @(posedge clk) begin
        c_i <= cnt_raddr[2:0];
        c_v <= c_ok;
    end
    assign cnt_rdata = c_v ? c_q[{29'd0, c_i} * CNT_W +: CNT_W] : {CNT_W{1'b0}};

    // ---- forwarder: round robin over streams with a whole frame --------------
    // The next stream: the lowest one above the stream picked last (cur)
    // that holds a whole frame, else the lowest that does (the lowest set bit isolated by
    // v & -v, a carry chain, then one-hot to binary).  Two registers (timing:
    // on the ECP5 the rotate-and-scan of S candidates missed 90 MHz, then
    // the frame counts through the candidates, the carry chain and the
    // encoder into pick did): the candidates (cand) and the pick, so pick is
    // two cycles old, which is safe because ready only rises while the
    // forwarder is idle (a frame leaves only while it emits), the
    // forwarder waits FWD_GAP cycles after a frame before it picks again,
    // and it starts only a stream whose ready is high in that cycle.
    // hi, the streams above the one picked last, is a register set with
    // cur (from the one-hot pick: ~(p | (p - 1))); none from reset, as if
    // the USB stream, the last, had been picked.
    reg  [S-1:0] hi;
    wire [S-1:0] above = ready & hi;
    reg  [S-1:0] cand;
    always @(posedge clk) cand <= rst ? {S{1'b0}} : (|above) ? above : ready;
    wire [S-1:0] low1 = cand & (~cand + {{(S-1){1'b0}}, 1'b1});
    reg  [SW-1:0] pick_n, pick;
    reg  [S-1:0]  pick_oh;
    wire [S-1:0]  hi_of_pick = ~(pick_oh | (pick_oh - {{(S-1){1'b0}}, 1'b1}));
    integer i;
    always @* begin
        pick_n = {SW{1'b0}};
        for (i = 0; i < S; i = i + 1)
            if (low1[i]) pick_n = pick_n | i[SW-1:0];
    end
    always @(posedge clk) begin
        pick <= pick_n;
        pick_oh <= low1;
    end

    wire [7:0] fpe = (fpos == 2'd2) ? (q[7:0] ^ LINK_ESC_XOR) : q[7:0];
    wire       fpe_at = emit && ((fpos == 2'd1 && !q[9]) || fpos == 2'd2);
    wire [7:0] f_rel = fpe - BASE8;
    // The route is learnt a cycle after the pe byte goes out (timing: on the
    // ECP5 the input memory's late output through the escape, the subtract
    // and the compare into via_usb's enables missed 90 MHz); a reply to the
    // frame comes many cycles after its last byte, so it finds the route set.
    reg        v_at;
    reg  [7:0] v_rel;
    reg        v_usb;
    always @(posedge clk) begin
        v_at  <= !rst && fpe_at;
        v_rel <= f_rel;
        v_usb <= cur == USB_IDX;
    end

    // Routes: a header stream speaks only for its own PE, so the stream PE
    // (PE_BASE + e) last spoke through is either its own header stream (e <
    // S - 1) or the USB stream: one bit each, via_usb[e].
    reg  [NPE-1:0] via_usb;
    integer r;
    always @(posedge clk) begin
        if (rst) begin
            fst <= F_IDLE;
            cur <= 0;
            hi <= {S{1'b0}};  // (nothing above the last stream)
            frd <= 0;
            gap <= 3'd7;
            fpos <= 2'd0;
            p_rx_valid <= 1'b0;
            p_rx_data <= 8'd0;
            p_rx_ferr <= 1'b0;
            for (r = 0; r < NPE; r = r + 1)
                via_usb[r] <= (r >= S - 1);
        end else begin
            p_rx_ferr <= |s_rx_ferr;
            p_rx_valid <= emit;
            if (emit) p_rx_data <= q[7:0];
            if (!emit && gap != 3'd7) gap <= gap + 1'b1;
            case (fst)
                F_IDLE:
                    if (gap >= FWD_GAP3 && !p_rx_held && ready[pick]) begin
                        cur <= pick;
                        hi <= hi_of_pick;
                        fst <= F_PRIME;
                    end
                F_PRIME:  // rmem reads cur's read pointer
                    fst <= F_ADDR;
                F_ADDR: begin
                    frd <= f_rd + 1'b1;
                    fst <= F_EMIT;
                    fpos <= 2'd0;
                end
                default: begin  // F_EMIT
                    gap <= 3'd0;
                    frd <= frd + 1'b1;
                    if (fpos != 2'd3) begin
                        if (fpos == 2'd1 && q[9]) fpos <= 2'd2;
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
                if (v_at && v_rel == r[7:0]) via_usb[r] <= v_usb;
        end
    end

    // ---- presence of each PE: that of the stream its replies go to ------------
    genvar pa;
    generate
        for (pa = 0; pa < NPE; pa = pa + 1) begin : g_pe_absent
            if (pa < S - 1) begin : g_hdr
                assign pe_absent[pa] = via_usb[pa] ? absent[USB_I] : absent[pa];
            end else begin : g_usb
                // (via_usb[pa] is 1 from reset: no header stream may speak for it)
                assign pe_absent[pa] = absent[USB_I] || !via_usb[pa];
            end
        end
    endgenerate

    // ---- output: link_port's frames to their PE's stream ----------------------
    wire [7:0]    o_rel = ope - BASE8;
    wire          o_in_range = (o_rel < NPE8);
    reg  [SW-1:0] o_route;
    integer e;
    always @* begin
        o_route = USB_IDX;
        for (e = 0; e < NPE && e < S - 1; e = e + 1)
            if (o_rel == e[7:0] && !via_usb[e]) o_route = e[SW-1:0];
    end
    always @(posedge clk) begin
        r_v <= !rst && p_tx_valid && p_tx_ready;
        r_d <= p_tx_data;
        r_isf <= (p_tx_data == LINK_FLAG);
        rdy <= !rst && rdy_n;
    end
    always @(posedge clk) begin
        if (rst) begin
            ost <= O_IDLE;
            ope <= 8'd0;
            o_route_r <= 0;
            o_in_range_r <= 1'b0;
            odest <= 0;
            od_oh <= 0;
            o_abs <= 1'b0;
            o_used <= 0;
            o_usb <= 1'b0;
            ow <= 0;
        end else begin
            if (o_we) ow <= ow + 1'b1;
            case (ost)
                O_PE:
                    if (p_tx_valid) begin
                        ope <= p_tx_data;
                        ost <= O_RT;
                    end
                O_RT: begin
                    o_route_r <= o_route;
                    o_in_range_r <= o_in_range;
                    ost <= O_RM;
                end
                O_RM: begin
                    // (timing: the route, then the FIFO's pointers, then the
                    // decision, each a register apart)
                    odest <= o_route_r;
                    od_oh <= {{(S-1){1'b0}}, 1'b1} << o_route_r;
                    o_abs <= absent[o_route_r];
                    o_usb <= (o_route_r == USB_IDX);
                    ow <= owr_all[PW*o_route_r +: PW];
                    // (a header stream's pointers wrap at OHW + 1 bits)
                    o_used <= (owr_all[PW*o_route_r +: PW] - ord_all[PW*o_route_r +: PW]) &
                              ((o_route_r == USB_IDX) ? {PW{1'b1}} : HMASK);
                    ost <= O_DEC;
                end
                O_DEC:
                    ost <= o_ok ? O_PASS : O_DROP;
                default:  // O_IDLE, O_PASS, O_DROP
                    if (r_flag) ost <= O_PE;
            endcase
        end
    end

    // the output memories: S - 1 header regions of OUT_DEPTH bytes, and the
    // USB stream's own
    // (no_rw_check: the feeder uses a byte it reads only if the FIFO held it
    // before the cycle's write)
    (* no_rw_check *) reg [7:0] hmem [0:(S-1)*OUT_DEPTH-1];
    (* no_rw_check *) reg [7:0] umem [0:USB_OUT_DEPTH-1];
    wire [PW-1:0] sl_ord = ord_all[PW*sl +: PW];
    wire [SW-1:0] sl_h = (sl == USB_IDX) ? {SW{1'b0}} : sl;  // (the USB stream reads umem)
    wire [PW-1:0] usb_ord = ord_all[PW*USB_I +: PW];
    // addresses {stream, pointer}: below (S - 1) * OUT_DEPTH, so HAW bits
    localparam integer HAW = $clog2((S - 1) * OUT_DEPTH);
    wire [SW+OHW-1:0] h_wa = {odest, ow[OHW-1:0]};
    wire [SW+OHW-1:0] h_ra = {sl_h, sl_ord[OHW-1:0]};
    always @(posedge clk) begin
        if (o_we && odest != USB_IDX) hmem[h_wa[HAW-1:0]] <= o_wdata;
        if (o_we && odest == USB_IDX) umem[ow[UOW-1:0]] <= o_wdata;
        t_hq <= hmem[h_ra[HAW-1:0]];
        t_uq <= umem[usb_ord[UOW-1:0]];
    end
    // (the pointers' high bits only count wraps; the addresses' top bits are
    // zero by the range of the stream number)
    wire unused_ptr = &{1'b0, usb_ord[PW-1:UOW], h_wa, h_ra};
    // tx feeder, stage TA: the slot's stream has a byte and a tx that takes one
    always @(posedge clk) begin
        if (rst) begin
            t_v <= 1'b0;
            t_k <= 0;
            t_ord1 <= 0;
        end else begin
            t_ord1 <= sl_ord + 1'b1;
            t_v <= (owr_all[PW*sl +: PW] != sl_ord) && s_tx_ready[sl];
            t_k <= sl;
        end
    end

    // ---- idle (see the header) -------------------------------------------------
    wire o_wait = ((ost == O_IDLE) || (ost == O_PASS) || (ost == O_DROP)) && !r_v;
    assign idle = !ini && !b_ini && !w_ini && !(|hv_all) && !(|hf_all) && !(|hl_all) && !(|txp_all) &&
                  !b_v && !b_f && !b_l && !w_we && !w_commit && !w_frames && !w_bind && !w_ovr && !w_part &&
                  (w_tx == 2'd0) && !(|ready) && (fst == F_IDLE) && !p_rx_valid && !rm_p && !fe_r &&
                  o_wait && !t_v && (owr_all == ord_all);
endmodule
`default_nettype wire
