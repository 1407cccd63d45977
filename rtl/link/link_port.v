`default_nettype none
// link_port: one link byte stream in and out, the engine register bus out
// (docs/link.md, generated from tools/linkgen.py, is the specification).
//
// The model is Hall's COP channel (seed 004 chapter IV, "The Compute Node To
// COP Network Interface" and "The COP to COP Network Interface"): the COP
// acknowledges a command as soon as it takes it, the node keeps the command
// until then and resends it on error, and a deadlock timer catches a command
// that is never answered.  Departures, each deliberate:
//   * Hall's Spanceiver flags a bad word and the COP sends "resend"; a UART
//     has no such flag, so a frame with a bad CRC (or length, or PE) is
//     dropped and counted here, and the host's resend timer (Hall's deadlock
//     timer) recovers it.  The retry bound is the host's (libaggnet
//     LinkClient).
//   * Sequence numbers per PE make the resend safe: a frame whose seq equals
//     the PE's last seq is a duplicate, answered again from the stored reply
//     and never applied twice; only last seq + 1 is a new command, so an old
//     frame that arrives late (a link that reorders, such as the virtual
//     hub's fault injector) is stale: never applied, answered ERR STALE from
//     a one-frame side slot that leaves the stored reply alone (a stale
//     frame that finds the slot full goes unanswered).  Both count as DUP.
//     HELLO is never a duplicate and resets the PE's sequence state, unless
//     its seq is 1..HELLO_STALE behind the PE's last seq: that is a late copy
//     of a HELLO the PE has since moved past, and resetting to it would
//     leave the PE's next command stale (and let late copies of the commands
//     after it apply twice).  A PE that never said HELLO takes any seq as
//     new.
//   * Hall's ACK word is kept for WAIT: a WAIT that does not hold at once is
//     answered with ACK (accepted, pending) and later with DATA; a duplicate
//     of a pending WAIT gets ACK again.  A new seq cancels a pending WAIT
//     silently.  No privilege (U/S) bit: engines refuse supervisor-only
//     accesses themselves (bus_rsp_err 2).
//   * Events come from re-reading: a pending WAIT re-reads its register over
//     the bus, round-robin among the PEs with pending WAITs (the pointer
//     moves on after every re-read, held or not), until
//     (rdata & mask) == value, so engines need no event wiring.
//   * CALL (rule 8 of docs/link.md), beyond the seed's word-at-a-time
//     channel: one request frame and one reply frame for a whole operation.
//     The start goes to the engine as a write with bus_req_call; while the
//     engine answers PENDING the CALL is pending like a WAIT (same vector,
//     same round robin), asked again with reads with bus_req_call, and no
//     ACK is sent until its RESULT; a duplicate of a pending CALL gets ACK.
//
// Byte streams (no UART here; link_uart adds one, the virtual hub feeds
// bytes directly):
//   rx_valid/rx_data   received bytes, at most one per cycle, no backpressure.
//   rx_ferr            one-cycle pulse per UART framing error (counted only).
//   rx_held            a received frame waits to be taken (frame_rx's
//                      out_valid): a frame that completes while this is high
//                      is an OVERRUN.  For a simulation that feeds bytes as
//                      fast as the port takes frames (sim/link_stream.hpp: a
//                      frame's first byte waits while rx_held is high); a
//                      UART cannot hold bytes back and leaves it unconnected.
//   tx_valid/tx_ready/tx_data  bytes to send; tx_data is stable while
//                      tx_valid is high and tx_ready low.
//
// Idle, for a simulation that stops its clock when nothing can happen
// (the virtual hub; a board leaves it unconnected and the logic goes):
//   eng_busy           an engine's state moves on by itself (a CALL's
//                      sequence running): pending WAITs and CALLs may change
//                      without a bus access.
//   idle               no byte received in the last 4 cycles, no frame
//                      offered or being handled, no reply due or being
//                      sent, and every pending WAIT or CALL has been asked
//                      once, and found unchanged, since the engines were
//                      last calm: SETTLE cycles after the last bus write
//                      (an engine's registers take their final value
//                      within SETTLE cycles of a write unless it raises
//                      eng_busy) with eng_busy low.  While idle, only a new
//                      byte can change anything the link sees, so the clock
//                      may stop.
//
// Engine register bus (this port is the master; every engine hangs on it):
//   bus_req_valid      a request is offered; fields below stay unchanged
//                      until bus_req_valid && bus_req_ready.
//   bus_req_ready      the engine takes the request.
//   bus_req_we         1 write, 0 read.
//   bus_req_pe[5:0]    the PE the access is made for (PE_ID + index).
//   bus_req_addr[15:0] window (15..12) and register (11..0).
//   bus_req_win[15:0]  bus_req_addr's window, one-hot, from a register of
//                      its own (not part of the engine bus: the hub's window
//                      decode takes one bit instead of a 4-bit compare, which
//                      was the HX8K's critical path into the NAND engine).
//   bus_req_wdata[31:0] write value, right-aligned, 0 above size bytes (0 for
//                      reads).
//   bus_req_size[2:0]  bytes, 1..4.
//   bus_rsp_valid      one response per accepted request, in order, in any
//                      later cycle (at most one request is outstanding).
//   bus_rsp_rdata[31:0] read value, right-aligned; bytes above size ignored.
//   bus_rsp_err[1:0]   0 ok, 1 no such register, 2 refused, 3 reserved (all
//                      three are answered with ERR and that code); for a
//                      CALL access 3 is PENDING (not finished yet).
//   bus_req_call       the access is a CALL's: a write starts it (operands
//                      bus_req_wdata_hi:bus_req_wdata, bus_req_len bytes
//                      0..8, bus_req_size 4), a read asks for its result.
//   bus_rsp_rdata_hi[31:0], bus_rsp_len[3:0]  a finished CALL's result bits
//                      63..32 and its bytes (0..8), beside bus_rsp_rdata.
//
// Statistics: stats[16*i +: 16] are wrapping counters, i = LINK_STAT_* of
// link_defs.vh (frames ok, CRC errors, resyncs, bad length, timeouts,
// overruns, bad PE, duplicates, UART framing errors).
//
// Per-PE state lives in one N-entry RAM (block RAM for large N): last seq,
// the reply (kind, size, value up to 64 bits), and a pending WAIT's
// address, mask and value or a pending CALL's address; plus three N-bit flop
// vectors (entry valid, WAIT or CALL pending, reply due).  One command is handled at a time; replies are sent round-robin.
//
// Timing: a frame's fields are on frame_rx's outputs three cycles after its
// last byte is offered; the next cycle registers the PE's range check (the
// command is decoded beside it, in two stages), the next picks the PE's
// entry (S_IDLE or S_PICK), the next reads it, the next compares the
// sequence number, the next classifies the frame, the next acts on it, and
// the bus request follows: 6 cycles after the fields.  A bus response is
// registered, then checked against a WAIT's condition, the entry to store
// chosen, then acted on: 4 cycles from bus_rsp_valid to the reply being
// due.  Between commands S_IDLE registers whether the round-robin
// pointers' PEs have a reply due or a WAIT pending and S_PICK acts on it: a
// WAIT re-read starts 3 cycles after the state machine comes back idle, a
// reply 4 (the entry is read, then the reply registered).  No decision depends on more than one compare
// of registered values (the unregistered version missed the UP5K's 48 MHz
// by far; the one-hot state machine, the registered hits and frame_rx's
// registered ready are what brought the iCEBreaker's top up to 48 MHz; its
// placed Fmax is in docs/hardware.md, "Measured figures").
//
// Parameters: N in 1..64 PEs on this stream, PE_ID in 0..63 the first, with
// PE_ID + N <= 64; HUB_PES in 1..64 and ENGINES (window bitmap) for HELLO;
// CLK_HZ in 10 kHz..655.35 MHz (HELLO reports it in 10 kHz units);
// IDLE_CYCLES is frame_rx's inter-byte timeout (0 or 2..2^24); STAT_W must be
// LINK_STAT_COUNT * LINK_STAT_BITS; SETTLE in 1..255 (idle, above).
module link_port #(
    parameter integer N           = 1,
    parameter integer PE_ID       = 0,
    parameter integer HUB_PES     = N,
    parameter [15:0]  ENGINES     = 16'h0003,
    parameter integer CLK_HZ      = 48000000,
    parameter integer IDLE_CYCLES = 48000,
    parameter integer STAT_W      = 144,
    parameter integer SETTLE      = 8
) (
    input  wire              clk,
    input  wire              rst,
    input  wire              rx_valid,
    input  wire [7:0]        rx_data,
    input  wire              rx_ferr,
    output wire              tx_valid,
    input  wire              tx_ready,
    output wire [7:0]        tx_data,
    output wire              bus_req_valid,
    input  wire              bus_req_ready,
    output wire              bus_req_we,
    output wire [5:0]        bus_req_pe,
    output wire [15:0]       bus_req_addr,
    output wire [15:0]       bus_req_win,
    output wire [31:0]       bus_req_wdata,
    output wire [2:0]        bus_req_size,
    output wire              bus_req_call,
    output wire [31:0]       bus_req_wdata_hi,
    output wire [3:0]        bus_req_len,
    input  wire              bus_rsp_valid,
    input  wire [31:0]       bus_rsp_rdata,
    input  wire [1:0]        bus_rsp_err,
    input  wire [31:0]       bus_rsp_rdata_hi,
    input  wire [3:0]        bus_rsp_len,
    output wire [STAT_W-1:0] stats,
    output wire              rx_held,
    input  wire              eng_busy,
    output wire              idle
);
`include "link_defs.vh"
`include "bus_codes.vh"

    localparam integer IW  = (N > 1) ? $clog2(N) : 1;   // entry index width
    localparam integer EW  = 96;
    localparam integer CLK_UNITS = CLK_HZ / 10000;

    generate
        if (N < 1 || N > 64) begin : g_bad_n
            $error("link_port: N must be in 1..64");
        end
        if (PE_ID < 0 || PE_ID > 63 || PE_ID + N > 64) begin : g_bad_pe
            $error("link_port: PE_ID must be in 0..63 with PE_ID + N <= 64");
        end
        if (HUB_PES < 1 || HUB_PES > 64) begin : g_bad_hub
            $error("link_port: HUB_PES must be in 1..64");
        end
        if (CLK_UNITS < 1 || CLK_UNITS > 65535) begin : g_bad_clk
            $error("link_port: CLK_HZ must be in 10 kHz..655.35 MHz (HELLO carries it in 16 bits of 10 kHz)");
        end
        if (SETTLE < 1 || SETTLE > 255) begin : g_bad_settle
            $error("link_port: SETTLE must be in 1..255");
        end
        if (STAT_W != LINK_STAT_COUNT * LINK_STAT_BITS) begin : g_bad_statw
            $error("link_port: STAT_W must be LINK_STAT_COUNT * LINK_STAT_BITS (see link_defs.vh)");
        end
        if (LINK_HELLO_STALE != 64) begin : g_bad_hello_stale
            $error("link_port: h_dm1 (the late-HELLO test) is written for LINK_HELLO_STALE = 64");
        end
        if (LINK_HELLO_VERSION != 0 || LINK_HELLO_HUB_PES != 1 || LINK_HELLO_FIRST_PE != 2 ||
            LINK_HELLO_PORT_PES != 3 || LINK_HELLO_ENGINES != 4 || LINK_HELLO_CLK != 6 ||
            LINK_HELLO_LEN != 8 || LINK_HELLO_CLK_UNIT_HZ != 10000) begin : g_bad_hello
            $error("link_port: the HELLO layout in tools/linkgen.py changed; update hello_payload");
        end
    endgenerate

    // ---- frame receiver and transmitter -----------------------------------
    wire        fr_valid;
    reg         fr_ready;
    wire [7:0]  fr_pe, fr_op, fr_seq;
    wire [15:0] fr_addr;
    wire [3:0]  fr_len;
    wire [63:0] fr_pl;
    wire        ev_ok, ev_crc, ev_resync, ev_badlen, ev_timeout, ev_overrun;

    frame_rx #(.IDLE_CYCLES(IDLE_CYCLES)) u_rx (
        .clk(clk), .rst(rst), .in_valid(rx_valid), .in_data(rx_data),
        .out_valid(fr_valid), .out_ready(fr_ready), .out_pe(fr_pe), .out_op(fr_op),
        .out_seq(fr_seq), .out_addr(fr_addr), .out_len(fr_len), .out_payload(fr_pl),
        .ev_ok(ev_ok), .ev_crc(ev_crc), .ev_resync(ev_resync), .ev_badlen(ev_badlen),
        .ev_timeout(ev_timeout), .ev_overrun(ev_overrun)
    );

    reg         ft_valid;
    wire        ft_ready;
    reg  [7:0]  ft_op;
    reg  [3:0]  ft_len;
    reg  [63:0] ft_pl;
    wire [7:0]  ft_pe;
    wire [7:0]  ft_seq;
    wire [15:0] ft_addr;

    frame_tx u_tx (
        .clk(clk), .rst(rst), .in_valid(ft_valid), .in_ready(ft_ready),
        .in_pe(ft_pe), .in_op(ft_op), .in_seq(ft_seq), .in_addr(ft_addr),
        .in_len(ft_len), .in_payload(ft_pl),
        .out_valid(tx_valid), .out_ready(tx_ready), .out_data(tx_data)
    );

    // ---- per-PE state ---------------------------------------------------------
    // entry: {waiting, call, seq[7:0], kind[1:0], size[3:0], addr[15:0], mask[31:0], data[31:0]}
    // A pending WAIT: waiting, mask and data its condition.  A pending CALL:
    // waiting and call.  A finished CALL: call, kind K_DATA, size its result
    // bytes 0..8, {mask, data} the result (sent as RESULT).
    localparam [1:0] K_ACK = 2'd0, K_DATA = 2'd1, K_HELLO = 2'd2, K_ERR = 2'd3;
    reg  [EW-1:0] mem [0:N-1];
    reg  [EW-1:0] q;
    reg           rd_en;
    reg  [IW-1:0] rd_addr;
    reg           wr_en;
    reg  [IW-1:0] wr_addr;
    reg  [EW-1:0] wr_data;
    always @(posedge clk) begin
        if (wr_en) mem[wr_addr] <= wr_data;
        if (rd_en) q <= mem[rd_addr];
    end
    wire        q_waiting = q[95];
    wire        q_call    = q[94];
    wire [7:0]  q_seq     = q[93:86];
    wire [1:0]  q_kind    = q[85:84];
    wire [3:0]  q_size    = q[83:80];
    wire [15:0] q_addr    = q[79:64];
    wire [31:0] q_mask    = q[63:32];
    wire [31:0] q_data    = q[31:0];

    reg [N-1:0] known;   // the entry holds a command
    reg [N-1:0] wpend;   // a WAIT is pending
    reg [N-1:0] tdue;    // a reply (or a pending WAIT's ACK) is due
    // One-hot copies of the indices these vectors are read and written at
    // (f_idx, c_idx, tp, wp), kept beside them: a bit-vector access is then
    // an AND, not an index decode (timing: ECP5 and UP5K built the decode
    // from f_idx as a carry chain on their critical paths).
    reg [N-1:0] f_oh, c_oh, tp_oh, wp_oh;
    localparam [N-1:0] OH0 = 1;
    function [N-1:0] rotl(input [N-1:0] v);
        rotl = (v << 1) | (v >> (N - 1));
    endfunction
    function [N-1:0] onehot(input [IW-1:0] i);
        onehot = OH0 << i;
    endfunction

    // The side slot: one ERR STALE reply, for a frame whose entry must not
    // change (docs/link.md "Exactly once", rule 4).
    reg          sr_valid;
    reg [IW-1:0] sr_idx;
    reg [7:0]    sr_seq;
    reg [15:0]   sr_addr;

    // ---- the command being handled ------------------------------------------
    // S_RDF, S_RDT, S_RDP read the picked entry for a frame, a reply or a
    // WAIT re-read.  Every transition is to a constant state, so that yosys
    // extracts the machine and encodes it one-hot (timing: the binary
    // state's decode ran into every decision on the UP5K).
    localparam [4:0] S_IDLE = 5'd0, S_FRAME = 5'd1, S_POLL = 5'd2, S_TX = 5'd3,
                     S_REQ = 5'd4, S_RSP = 5'd5, S_CHK = 5'd6, S_DONE = 5'd7, S_SEQ = 5'd8,
                     S_RDF = 5'd9, S_TXS = 5'd10, S_PICK = 5'd11, S_RDT = 5'd12, S_RDP = 5'd13,
                     S_SEL = 5'd14, S_TXL = 5'd15, S_CMP = 5'd16;
    (* fsm_encoding = "one-hot" *) reg [4:0] state;
    reg [IW-1:0] ra;        // the entry S_RDF / S_RDT / S_RDP read
    reg [IW-1:0] c_idx;
    reg [7:0]  c_seq;
    reg [1:0]  c_op;      // 0 READ, 1 WRITE, 2 WAIT, 3 CALL
    reg        c_poll;    // a re-read of a pending WAIT, or an ask for a pending CALL's result
    reg [15:0] c_addr;
    reg [15:0] c_win;   // c_addr[15:12] one-hot, loaded with it
    reg [3:0]  c_size;    // bytes: 1..4, a CALL's operands 0..8
    reg [31:0] c_mask;    // WAIT mask, or a CALL's operand bits 63..32
    reg [31:0] c_value;   // write data, WAIT value, or a CALL's operand bits 31..0
    localparam [1:0] C_READ = 2'd0, C_WRITE = 2'd1, C_WAIT = 2'd2, C_CALL = 2'd3;

    reg [IW-1:0] tp, wp;  // round-robin pointers: replies, WAIT re-reads
    reg          t_hit, w_hit;  // tdue at tp, wpend at wp (S_PICK decides on them)
    reg          p_hit;         // wpend at wp, registered in S_RDP for S_POLL
    reg [IW-1:0] f_idx;   // reg: the frame's entry (latched in S_IDLE / S_PICK)
    // The frame's command, decoded in the cycle after frame_rx offers it
    // (d_valid: offered and not yet taken) and held while its fields hold.
    localparam [2:0] F_READ = 3'd0, F_WRITE = 3'd1, F_WAIT = 3'd2, F_HELLO = 3'd3,
                     F_BAD_LEN = 3'd4, F_BAD_OP = 3'd5, F_CALL = 3'd6;
    reg        d_valid;     // a frame for a PE of this port is offered
    reg [IW-1:0] d_idx;
    reg [2:0]  f_cmd;
    reg        f_bus;       // f_cmd is F_READ, F_WRITE, F_WAIT or F_CALL: a bus access
    reg        f_is_hello;  // op HELLO (never a duplicate), whatever its len
    reg [7:0]  f_seq_m1;    // fr_seq - 1: the seq after which fr_seq is new
    reg [3:0]  f_size;
    reg [31:0] f_mask, f_value;
    // The bus response, registered (S_RSP), then checked (S_CHK), then the
    // entry to store chosen (S_SEL).
    reg [31:0] r_val;
    reg [31:0] r_hi;     // a CALL's result bits 63..32
    reg [3:0]  r_len;    // and its bytes
    reg [31:0] r_x;      // (value read & WAIT mask) ^ WAIT value: 0 if the WAIT holds
    reg [1:0]  r_err;
    reg        r_ok;
    reg        r_wait;   // S_DONE: a WAIT or CALL the engine answered (r_ok decides)
    reg        r_pollw;  // and it was a re-read of a pending one
    reg        r_call;   // S_DONE: a CALL (finished if r_ok, else pending)
    // S_DONE's entry, chosen one-hot (timing: as a priority chain after
    // ld_f / ld_d it missed the UP5K's 48 MHz once CALL added a case, and
    // with the WAIT compare in the same cycle as the choice it still did:
    // S_CHK classifies the answer, S_SEL chooses)
    reg        r_bad;    // the engine answered an error: ERR
    reg        r_ack;    // a write the engine took: ACK
    reg        r_res;    // a CALL that finished: RESULT
    reg        r_rd;     // S_CHK: a READ the engine answered
    reg        r_wt;     // S_CHK: a WAIT the engine answered (r_ok: it holds)
    reg        r_cp;     // S_CHK: a CALL still running
    reg        r_dat;    // S_SEL: a READ, or a WAIT that holds: DATA
    reg        r_pend;   // S_SEL: a WAIT that does not hold, or a CALL still running: pending

    // the engine answered a CALL access OK (finished) or PENDING: not refused
    wire r_ok_call = r_err == LINK_BUS_OK || r_err == LINK_BUS_PENDING;
    localparam [IW-1:0] LAST = N[IW-1:0] - 1'b1;
    function [IW-1:0] inc(input [IW-1:0] v);
        inc = (v == LAST) ? {IW{1'b0}} : v + 1'b1;
    endfunction
    function [5:0] ext6(input [IW-1:0] v);
        integer b;
        begin
            ext6 = 6'd0;
            for (b = 0; b < IW; b = b + 1) ext6[b] = v[b];
        end
    endfunction
    function [31:0] bytes_mask(input [2:0] s);
        case (s)
            3'd1: bytes_mask = 32'h0000_00ff;
            3'd2: bytes_mask = 32'h0000_ffff;
            3'd3: bytes_mask = 32'h00ff_ffff;
            default: bytes_mask = 32'hffff_ffff;
        endcase
    endfunction

    // Frame PE range and index.
    wire [7:0]    rel_pe = fr_pe - PE_ID[7:0];
    wire          pe_ok  = rel_pe < N[7:0];   // fr_pe < PE_ID wraps to >= 193
    wire [IW-1:0] fr_idx = rel_pe[IW-1:0];

    // Decode of the frame's op and len (used in S_FRAME).
    wire [7:0] rd_size = fr_pl[7:0];
    wire       len_hello = fr_len == 4'd0;
    // (ranges as bit tests: yosys makes carry chains of the compares, and
    // they were the UP5K's critical path at 48 MHz)
    wire       len_read  = fr_len == 4'd1 && rd_size[7:3] == 5'd0 &&
                           (rd_size[2] ? rd_size[1:0] == 2'd0 : rd_size[1:0] != 2'd0);  // size 1..4
    wire       len_write = !fr_len[3] && (fr_len[2] ? fr_len[1:0] == 2'd0 : fr_len[1:0] != 2'd0);  // 1..4
    wire       len_wait  = !fr_len[0] && (fr_len[3] ? fr_len[2:1] == 2'd0 : fr_len[2:1] != 2'd0);  // 2, 4, 6, 8
    wire [2:0] wait_size = fr_len[3:1];
    reg [31:0] wait_mask, wait_value;
    always @* begin
        case (wait_size)
            3'd1: begin wait_mask = {24'h0, fr_pl[15:8]};  wait_value = {24'h0, fr_pl[7:0]};  end
            3'd2: begin wait_mask = {16'h0, fr_pl[31:16]}; wait_value = {16'h0, fr_pl[15:0]}; end
            3'd3: begin wait_mask = {8'h0,  fr_pl[47:24]}; wait_value = {8'h0,  fr_pl[23:0]}; end
            default: begin wait_mask = fr_pl[63:32];       wait_value = fr_pl[31:0];          end
        endcase
    end
    // S_SEQ compares the frame's seq with the PE's entry, S_CMP classifies
    // the frame from those compares, S_FRAME acts (timing: the entry's
    // read mux, the compares and the classification in one cycle missed the
    // UP5K's 48 MHz once the design grew with CALL).
    // A HELLO is a late copy when 1 <= q_seq - fr_seq <= 64, that is when
    // q_seq - fr_seq - 1 = q_seq + ~fr_seq (mod 256) is below 64: one carry
    // chain and its top two bits.
    reg  f_dup, f_stale;
    reg  s_known, s_eq, s_eqm1, s_late;  // S_SEQ's compares
    wire [7:0] h_dm1 = q_seq + ~fr_seq;
    wire       h_late = h_dm1[7:6] == 2'b00;
    wire       unused_h = &{1'b0, h_dm1[5:0]};

    function [EW-1:0] entry(input waiting, input call, input [7:0] seq, input [1:0] kind, input [3:0] size,
                            input [15:0] addr, input [31:0] mask, input [31:0] data);
        entry = {waiting, call, seq, kind, size, addr, mask, data};
    endfunction

    // ---- counters -------------------------------------------------------------
    reg [LINK_STAT_BITS-1:0] cnt [0:LINK_STAT_COUNT-1];
    reg ev_badpe, ev_dup;
    genvar gi;
    generate
        for (gi = 0; gi < LINK_STAT_COUNT; gi = gi + 1) begin : g_stats
            assign stats[gi*LINK_STAT_BITS +: LINK_STAT_BITS] = cnt[gi];
        end
    endgenerate
    wire [LINK_STAT_COUNT-1:0] ev;
    assign ev[LINK_STAT_FRAMES_OK] = ev_ok;
    assign ev[LINK_STAT_CRC_ERR]   = ev_crc;
    assign ev[LINK_STAT_RESYNC]    = ev_resync;
    assign ev[LINK_STAT_BAD_LEN]   = ev_badlen;
    assign ev[LINK_STAT_TIMEOUT]   = ev_timeout;
    assign ev[LINK_STAT_OVERRUN]   = ev_overrun;
    assign ev[LINK_STAT_BAD_PE]    = ev_badpe;
    assign ev[LINK_STAT_DUP]       = ev_dup;
    assign ev[LINK_STAT_UART_FERR] = rx_ferr;
    integer ci;
    always @(posedge clk) begin
        for (ci = 0; ci < LINK_STAT_COUNT; ci = ci + 1) begin
            if (rst) cnt[ci] <= {LINK_STAT_BITS{1'b0}};
            else if (ev[ci]) cnt[ci] <= cnt[ci] + 1'b1;
        end
    end

    // ---- bus and transmitter outputs --------------------------------------------
    assign rx_held       = fr_valid;
    assign bus_req_valid = state == S_REQ;
    // A CALL's start is a write with its operands, an ask for its result a
    // read (docs/link.md, the engine register bus).
    wire   c_start = c_op == C_CALL && !c_poll;
    assign bus_req_we    = c_op == C_WRITE || c_start;
    assign bus_req_pe    = PE_ID[5:0] + ext6(c_idx);
    assign bus_req_addr  = c_addr;
    assign bus_req_win   = c_win;
    assign bus_req_wdata = (c_op == C_WRITE || c_start) ? c_value : 32'h0;
    assign bus_req_size  = (c_op == C_CALL) ? 3'd4 : c_size[2:0];
    assign bus_req_call  = c_op == C_CALL;
    assign bus_req_wdata_hi = c_start ? c_mask : 32'h0;
    assign bus_req_len   = c_start ? c_size : 4'd0;

    localparam [63:0] HELLO_PAYLOAD = {LINK_VERSION, HUB_PES[7:0], PE_ID[7:0], N[7:0], ENGINES, CLK_UNITS[15:0]};
    // The reply, formed from the entry in S_TXL and registered (timing:
    // the entry read, this decode and frame_tx's shift-register load in one
    // cycle missed the UP5K's 48 MHz), sent in S_TX; or the side slot's ERR
    // STALE, from its registers, in S_TXS.
    wire side = state == S_TXS;  // sending the side slot's ERR STALE
    reg  [7:0]  t_op, t_pe, t_seq;
    reg  [3:0]  t_len;
    reg  [63:0] t_pl;
    reg  [15:0] t_addr;
    reg  [7:0]  e_op;
    reg  [3:0]  e_len;
    reg  [63:0] e_pl;
    always @* begin
        e_op  = LINK_OP_ACK;
        e_len = 4'd0;
        e_pl  = 64'h0;
        if (!q_waiting) begin
            case (q_kind)
                K_DATA:  if (q_call) begin
                             e_op = LINK_OP_RESULT; e_len = q_size; e_pl = {q_mask, q_data};
                         end else begin
                             e_op = LINK_OP_DATA;   e_len = q_size; e_pl = {32'h0, q_data};
                         end
                K_HELLO: begin e_op = LINK_OP_HELLO_R; e_len = 4'd8;           e_pl = HELLO_PAYLOAD;   end
                K_ERR:   begin e_op = LINK_OP_ERR;     e_len = 4'd1;           e_pl = {56'h0, q_data[7:0]}; end
                default: begin e_op = LINK_OP_ACK;     e_len = 4'd0;           e_pl = 64'h0;           end
            endcase
        end
    end
    always @(posedge clk) begin
        if (state == S_TXL) begin
            t_op   <= e_op;
            t_len  <= e_len;
            t_pl   <= e_pl;
            t_pe   <= {2'b00, PE_ID[5:0] + ext6(tp)};
            t_seq  <= q_seq;
            t_addr <= q_addr;
        end
    end
    assign ft_pe   = side ? {2'b00, PE_ID[5:0] + ext6(sr_idx)} : t_pe;
    assign ft_seq  = side ? sr_seq : t_seq;
    assign ft_addr = side ? sr_addr : t_addr;
    always @* begin
        ft_op  = side ? LINK_OP_ERR : t_op;
        ft_len = side ? 4'd1 : t_len;
        ft_pl  = side ? {56'h0, LINK_ERR_STALE} : t_pl;
    end

    // ---- control ------------------------------------------------------------
    always @* begin
        // S_IDLE / S_PICK pick an entry (ra) and S_RDF / S_RDT / S_RDP read
        // it: the entry RAM's address is a register (timing: on the UP5K the
        // pick, the address mux and a 94-bit read mux did not fit 48 MHz in
        // one cycle).  wr_en is registered: the RAM write of the state before
        // S_IDLE happens at the end of S_IDLE, before any read.
        rd_en    = state == S_RDF || state == S_RDT || state == S_RDP;
        rd_addr  = ra;
        // frame_rx's ready is registered (timing: on the UP5K the state
        // decode ran on into frame_rx's clock enables): it is high in
        // S_FRAME, the frame's fields having been used up to there, and in
        // the cycle after a frame for no PE of this port was offered, which
        // takes it without the state machine ever seeing it (d_valid
        // stays low for it).
        fr_ready = fr_take || bp_take;
        ev_badpe = bp_take;
        ft_valid = 1'b0;
        if (state == S_TX || state == S_TXS) ft_valid = 1'b1;
    end

    reg fr_take, bp_take;
    always @(posedge clk) begin
        fr_take <= !rst && state == S_CMP;   // S_CMP is always followed by S_FRAME
        bp_take <= !rst && fr_valid && !fr_ready && !pe_ok;
        d_valid <= fr_valid && !fr_ready && pe_ok && !rst;
        d_idx   <= fr_idx;
        f_seq_m1   <= fr_seq - 8'd1;
    end
    // The decode takes two cycles (timing: the op and length compares, the
    // priority between the commands and the WAIT mask mux did not fit 48
    // MHz on the UP5K in one): stage A classifies the op and length, stage
    // B forms the command.  Nothing reads f_* before S_SEQ (f_seq_m1), S_CMP
    // (f_is_hello) and S_FRAME (the rest), at the earliest 2, 3 and 4 cycles after
    // d_valid, itself a cycle after the fields appear; the fields hold
    // until S_FRAME takes the frame.
    reg       a_read, a_write, a_wait, a_hello, a_call, a_known, a_is_hello;
    reg [2:0] a_rd_size, a_wr_size, a_wt_size;
    reg [3:0] a_len;
    // the operands, laid out per op in stage A (timing: the WAIT mask's
    // mux on len ran into stage B's choice of op on the UP5K)
    reg [31:0] a_wmask, a_wvalue, a_pl_hi, a_pl_lo;
    always @(posedge clk) begin
        a_read     <= fr_op == LINK_OP_READ && len_read;
        a_write    <= fr_op == LINK_OP_WRITE && len_write;
        a_wait     <= fr_op == LINK_OP_WAIT && len_wait;
        a_hello    <= fr_op == LINK_OP_HELLO && len_hello;
        a_call     <= fr_op == LINK_OP_CALL;   // any len: frame_rx drops len > 8
        a_is_hello <= fr_op == LINK_OP_HELLO;
        a_known    <= fr_op == LINK_OP_HELLO || fr_op == LINK_OP_READ ||
                      fr_op == LINK_OP_WRITE || fr_op == LINK_OP_WAIT || fr_op == LINK_OP_CALL;
        a_rd_size  <= rd_size[2:0];
        a_wr_size  <= fr_len[2:0];
        a_len      <= fr_len;
        a_wmask    <= wait_mask;
        a_wvalue   <= wait_value;
        a_pl_hi    <= fr_pl[63:32];
        a_pl_lo    <= fr_pl[31:0];
        a_wt_size  <= wait_size;
        f_is_hello <= a_is_hello;
        f_bus      <= a_read || a_write || a_wait || a_call;
        f_cmd      <= a_read ? F_READ : a_write ? F_WRITE : a_wait ? F_WAIT : a_call ? F_CALL :
                      a_hello ? F_HELLO : a_known ? F_BAD_LEN : F_BAD_OP;
        f_size     <= a_call ? a_len : {1'b0, a_read ? a_rd_size : a_write ? a_wr_size : a_wait ? a_wt_size : 3'd1};
        f_mask     <= a_wait ? a_wmask : a_call ? a_pl_hi : 32'h0;
        f_value    <= (a_write || a_call) ? a_pl_lo : a_wait ? a_wvalue : 32'h0;
    end

    // The command's registers load in every S_FRAME and S_POLL, whatever
    // those states decide (a duplicate, a stale frame or a WAIT no longer
    // pending goes back to S_IDLE, and nothing reads them before the next
    // load): their enable is then a registered state flag, not the decision
    // (the UP5K put the decision, a global buffer and ~110 enables on its
    // critical path).
    // The entry to write is formed the same way: in every S_FRAME (HELLO_R
    // or ERR, written only if S_FRAME answers at once) and every S_DONE (the
    // bus result, written unless a re-read WAIT still does not hold).
    reg ld_f, ld_p, ld_d;  // the state is S_FRAME / S_POLL / S_DONE
    always @(posedge clk) begin
        ld_f <= !rst && state == S_CMP;
        ld_p <= !rst && state == S_RDP;
        ld_d <= !rst && state == S_SEL;
        if (rst) begin
            wr_addr <= {IW{1'b0}};
            wr_data <= {EW{1'b0}};
        end else if (ld_f) begin
            wr_addr <= f_idx;
            if (f_cmd == F_HELLO)
                wr_data <= entry(1'b0, 1'b0, fr_seq, K_HELLO, 4'd0, fr_addr, 32'h0, 32'h0);
            else if (f_cmd == F_BAD_LEN)
                wr_data <= entry(1'b0, 1'b0, fr_seq, K_ERR, 4'd1, fr_addr, 32'h0, {24'h0, LINK_ERR_BAD_LEN});
            else
                wr_data <= entry(1'b0, 1'b0, fr_seq, K_ERR, 4'd1, fr_addr, 32'h0, {24'h0, LINK_ERR_BAD_OP});
        end else if (ld_d) begin
            wr_addr <= c_idx;
            wr_data <= ({EW{r_bad}}  & entry(1'b0, 1'b0, c_seq, K_ERR, 4'd1, c_addr, 32'h0, {30'h0, r_err})) |
                       ({EW{r_ack}}  & entry(1'b0, 1'b0, c_seq, K_ACK, c_size, c_addr, 32'h0, 32'h0)) |
                       ({EW{r_res}}  & entry(1'b0, 1'b1, c_seq, K_DATA, r_len, c_addr, r_hi, r_val)) |
                       ({EW{r_dat}}  & entry(1'b0, 1'b0, c_seq, K_DATA, c_size, c_addr, 32'h0, r_val)) |
                       ({EW{r_pend}} & entry(1'b1, r_call, c_seq, K_DATA, c_size, c_addr, c_mask, c_value));
        end
    end
    always @(posedge clk) begin
        if (rst) begin
            c_idx   <= {IW{1'b0}};
            c_oh    <= OH0;
            c_seq   <= 8'h00;
            c_op    <= C_READ;
            c_poll  <= 1'b0;
            c_addr  <= 16'h0000;
            c_win   <= 16'h0001;
            c_size  <= 4'd1;
            c_mask  <= 32'h0;
            c_value <= 32'h0;
        end else if (ld_f) begin
            c_idx   <= f_idx;
            c_oh    <= f_oh;
            c_seq   <= fr_seq;
            c_addr  <= fr_addr;
            c_win   <= 16'h0001 << fr_addr[15:12];
            c_poll  <= 1'b0;
            c_op    <= (f_cmd == F_WRITE) ? C_WRITE : (f_cmd == F_WAIT) ? C_WAIT :
                       (f_cmd == F_CALL) ? C_CALL : C_READ;
            c_size  <= f_size;
            c_mask  <= f_mask;
            c_value <= f_value;
        end else if (ld_p) begin
            c_idx   <= wp;
            c_oh    <= wp_oh;
            c_seq   <= q_seq;
            c_op    <= q_call ? C_CALL : C_WAIT;
            c_poll  <= 1'b1;
            c_addr  <= q_addr;
            c_win   <= 16'h0001 << q_addr[15:12];
            c_size  <= q_size;
            c_mask  <= q_mask;
            c_value <= q_data;
        end
    end

    always @(posedge clk) begin
        wr_en  <= 1'b0;
        ev_dup <= 1'b0;
        if (rst) begin
            state   <= S_IDLE;
            known   <= {N{1'b0}};
            wpend   <= {N{1'b0}};
            tdue    <= {N{1'b0}};
            tp_oh   <= OH0;
            wp_oh   <= OH0;
            f_oh    <= OH0;
            tp      <= {IW{1'b0}};
            wp      <= {IW{1'b0}};
            t_hit   <= 1'b0;
            w_hit   <= 1'b0;
            p_hit   <= 1'b0;
            f_idx   <= {IW{1'b0}};
            r_val      <= 32'h0;
            r_hi       <= 32'h0;
            r_len      <= 4'd0;
            r_call     <= 1'b0;
            r_x        <= 32'h0;
            r_err      <= 2'd0;
            r_ok       <= 1'b0;
            r_wait     <= 1'b0;
            r_pollw    <= 1'b0;
            r_bad      <= 1'b0;
            r_ack      <= 1'b0;
            r_res      <= 1'b0;
            r_rd       <= 1'b0;
            r_wt       <= 1'b0;
            r_cp       <= 1'b0;
            r_dat      <= 1'b0;
            r_pend     <= 1'b0;
            f_dup      <= 1'b0;
            f_stale    <= 1'b0;
            ra         <= {IW{1'b0}};
            sr_valid   <= 1'b0;
            sr_idx     <= {IW{1'b0}};
            sr_seq     <= 8'h00;
            sr_addr    <= 16'h0000;
        end else begin
            case (state)
            S_IDLE, S_PICK: begin
                // S_IDLE registers whether the pointers' PEs have a reply due
                // (t_hit) or a WAIT pending (w_hit); S_PICK decides from
                // those registers and, while it finds nothing, stays and
                // registers the hits of the next PEs (tdue and wpend do not
                // change in S_PICK).  A frame is taken in either state.
                if (state == S_IDLE) begin
                    t_hit <= |(tdue & tp_oh);
                    w_hit <= |(wpend & wp_oh);
                end else begin
                    t_hit <= |(tdue & rotl(tp_oh));
                    w_hit <= |(wpend & rotl(wp_oh));
                end
                if (d_valid) begin
                    f_idx <= d_idx;
                    f_oh  <= onehot(d_idx);
                    ra    <= d_idx;
                    state <= S_RDF;
                    tp    <= inc(tp);
                    tp_oh <= rotl(tp_oh);
                    wp    <= inc(wp);
                    wp_oh <= rotl(wp_oh);
                end else if (state == S_IDLE) begin
                    state <= S_PICK;
                end else begin
                    if (sr_valid && ft_ready) begin
                        state <= S_TXS;
                    end else if (t_hit && ft_ready) begin
                        ra    <= tp;
                        state <= S_RDT;
                    end else if (w_hit) begin
                        ra    <= wp;
                        state <= S_RDP;
                    end
                    if (!(t_hit && ft_ready)) begin
                        tp    <= inc(tp);
                        tp_oh <= rotl(tp_oh);
                    end
                    if ((t_hit && ft_ready) || !w_hit) begin
                        wp    <= inc(wp);
                        wp_oh <= rotl(wp_oh);
                    end
                end
            end
            S_RDF: state <= S_SEQ;
            S_RDT: state <= S_TXL;
            S_TXL: state <= S_TX;
            S_RDP: begin
                // whether wp's WAIT or CALL is still pending, for S_POLL
                // (timing: computed there, it ran into wpend's enable and
                // missed the UP5K's 48 MHz; wpend and wp do not change here)
                p_hit <= |(wpend & wp_oh);
                state <= S_POLL;
            end
            S_SEQ: begin
                s_known <= |(known & f_oh);
                s_eq    <= q_seq == fr_seq;
                s_eqm1  <= q_seq == f_seq_m1;
                s_late  <= h_late;
                state   <= S_CMP;
            end
            S_CMP: begin
                f_dup   <= s_known && s_eq && !f_is_hello;
                f_stale <= s_known && (f_is_hello ? s_late : !s_eq && !s_eqm1);
                state   <= S_FRAME;
            end
            S_FRAME: begin
                state <= S_IDLE;
                // The side slot's fields load in every S_FRAME that finds it
                // free (nothing reads them while sr_valid is low), so their
                // enable is not the stale decision (timing, UP5K).
                if (!sr_valid) begin
                    sr_idx  <= f_idx;
                    sr_seq  <= fr_seq;
                    sr_addr <= fr_addr;
                end
                if (f_dup) begin
                    ev_dup <= 1'b1;
                    tdue <= tdue | f_oh;
                end else if (f_stale) begin
                    ev_dup <= 1'b1;   // never applied; ERR STALE if the slot is free
                    if (!sr_valid) sr_valid <= 1'b1;  // its fields: loaded above
                end else begin
                    wpend <= wpend & ~f_oh;
                    if (f_bus) begin
                        state <= S_REQ;
                    end else begin
                        // HELLO, or an error answered at once
                        known <= known | f_oh;
                        tdue  <= tdue | f_oh;
                        wr_en <= 1'b1;
                    end
                end
            end
            S_POLL: begin
                // The pointer moves on after every re-read, so PEs with
                // pending WAITs take turns: a WAIT that never holds must not
                // keep another PE's satisfied WAIT from being seen.  (ld_p
                // copies wp and wp_oh into c_idx and c_oh at this same edge,
                // so they still name the PE re-read here.)
                wp    <= inc(wp);
                wp_oh <= rotl(wp_oh);
                if (q_waiting && p_hit) begin
                    state   <= S_REQ;
                end else begin
                    wpend <= wpend & ~wp_oh;
                    state <= S_IDLE;
                end
            end
            S_TX: begin
                tdue <= tdue & ~tp_oh;
                state <= S_IDLE;
            end
            S_TXS: begin
                sr_valid <= 1'b0;
                state <= S_IDLE;
            end
            S_REQ: begin
                if (bus_req_ready) state <= S_RSP;
            end
            S_RSP: begin
                if (bus_rsp_valid) begin
                    r_val <= (c_op == C_CALL) ? bus_rsp_rdata : bus_rsp_rdata & bytes_mask(c_size[2:0]);
                    r_hi  <= bus_rsp_rdata_hi;
                    r_len <= bus_rsp_len;
                    // c_mask and c_value are 0 above the access's size; a
                    // value bit outside the mask never matches, as in
                    // (r_val & c_mask) == c_value
                    r_x   <= (bus_rsp_rdata & c_mask) ^ c_value;
                    r_err <= bus_rsp_err;
                    state <= S_CHK;
                end
            end
            S_CHK: begin
                // A WAIT holds when (r_val & c_mask) == c_value; a CALL has
                // finished unless the engine answered PENDING.
                r_ok    <= (c_op == C_CALL) ? r_err != LINK_BUS_PENDING : r_x == 32'd0;
                r_wait  <= (r_err == LINK_BUS_OK && c_op == C_WAIT) || (r_ok_call && c_op == C_CALL);
                r_pollw <= ((r_err == LINK_BUS_OK && c_op == C_WAIT) || (r_ok_call && c_op == C_CALL)) && c_poll;
                r_call  <= c_op == C_CALL;
                r_bad   <= (c_op == C_CALL) ? !r_ok_call : r_err != LINK_BUS_OK;
                r_ack   <= r_err == LINK_BUS_OK && c_op == C_WRITE;
                r_res   <= r_err == LINK_BUS_OK && c_op == C_CALL;
                r_rd    <= r_err == LINK_BUS_OK && c_op == C_READ;
                r_wt    <= r_err == LINK_BUS_OK && c_op == C_WAIT;
                r_cp    <= r_err == LINK_BUS_PENDING && c_op == C_CALL;
                state   <= S_SEL;
            end
            S_SEL: begin
                r_dat   <= r_rd || (r_wt && r_ok);
                r_pend  <= (r_wt && !r_ok) || r_cp;
                state   <= S_DONE;
            end
            S_DONE: begin
                // A re-read WAIT that still does not hold changes nothing;
                // anything else stores its reply and makes it due.  A WAIT
                // that does not hold is pending afterwards, nothing else is.
                state <= S_IDLE;
                wpend <= (r_wait && !r_ok) ? wpend | c_oh : wpend & ~c_oh;
                if (!r_pollw || r_ok) begin
                    wr_en <= 1'b1;
                    known <= known | c_oh;
                    // a CALL that has not finished is stored but not
                    // answered: no ACK before its RESULT (rule 8)
                    if (!(r_call && !r_ok)) tdue <= tdue | c_oh;
                end
            end
            default: state <= S_IDLE;
            endcase
        end
    end

    // ---- idle (simulation only: nothing on a board reads it) ------------------
    // settle counts down from SETTLE after each bus write the engines take;
    // calm: it has run out and no engine is busy.  quiet[p]: PE p's pending
    // WAIT or CALL was asked with a request made while calm and did not hold
    // (or finish); any moment not calm forgets them all.
    reg  [7:0]   settle;
    reg  [2:0]   rx_quiet;   // cycles since a byte came in, up to 4
    reg          c_calm;     // the request in flight was made while calm
    reg  [N-1:0] quiet;
    wire         calm = settle == 8'd0 && !eng_busy;
    wire         cmd_busy = state == S_RDF || state == S_SEQ || state == S_CMP || state == S_FRAME || state == S_TXS ||
                            state == S_RDT || state == S_TXL || state == S_TX || (!c_poll && (state == S_REQ || state == S_RSP ||
                            state == S_CHK || state == S_SEL || state == S_DONE));
    always @(posedge clk) begin
        if (rst) begin
            settle   <= 8'd0;
            rx_quiet <= 3'd0;
            c_calm   <= 1'b0;
            quiet    <= {N{1'b0}};
        end else begin
            if (bus_req_valid && bus_req_ready && bus_req_we) settle <= SETTLE[7:0];
            else if (settle != 8'd0) settle <= settle - 8'd1;
            if (rx_valid) rx_quiet <= 3'd0;
            else if (rx_quiet != 3'd4) rx_quiet <= rx_quiet + 3'd1;
            if (bus_req_valid && bus_req_ready) c_calm <= calm;
            if (!calm) quiet <= {N{1'b0}};
            else if (state == S_DONE) quiet <= (r_pollw && !r_ok && c_calm) ? quiet | c_oh : quiet & ~c_oh;
        end
    end
    assign idle = calm && rx_quiet == 3'd4 && !fr_valid && !d_valid && !cmd_busy && tdue == {N{1'b0}} &&
                  !sr_valid && ft_ready && !tx_valid && (wpend & ~quiet) == {N{1'b0}};

endmodule
`default_nettype wire
