`default_nettype none
// nand_engine: the bitwise aggregate network of TTL_PAPERS (seed 002,
// "Bitwise Aggregate Networks", sections 2 and 3) as an engine of the one hub
// top, rtl/hub/aggnet_hub.v, in bus window 2 (docs/nand.md).
//
// Per PE a the engine holds what the PE's parallel port would drive (its
// OUT register, written over the link) and every PE reads the trees' outputs
// (its IN register):
//   * t data NAND trees (parameter T, TTL_PAPERS has 4): tree k is the NAND
//     over every PE of OUT.DATA bit k, flat in N (a LUT tree).
//   * the barrier subsystem (sections 2.1.3 and 3.1, figure 2): two barrier
//     NAND trees S0 and S1 and one flip-flop BF.  PE a's OUT.BAR bit is its
//     set-and-reset pair: S1's input is BAR, S0's is NOT BAR, so a PE that
//     arrives at an S1 barrier (BAR := 1) resets its S0 input in the same
//     write.  S1 done (every PE's BAR is 1, the tree's NAND 0) sets BF, S0
//     done resets it; BF toggles once per barrier and a PE waits for
//     BF == BAR.  One write and one read: 2 I/O cycles (Table 2).  The two
//     trees can never be done at once (a PE's inputs to them are complements).
//   * the parallel signalling subsystem (sections 2.7 and 3.3): an interrupt
//     request tree (any PE's write with OUT.REQ set) sets the pending-signal
//     flip-flop SP; a second pair of trees, the acknowledge barrier, resets
//     it.  The acknowledge barrier toggles like the barrier above (every
//     PE's OUT.ACK 1 sets the flip-flop AF, every ACK 0 resets it), so an
//     acknowledge is one write; each toggle of AF clears SP, and only a
//     toggle does (a PE's later request is not lost while the ACKs rest).
//     A request in the same cycle as a toggle wins.  OUT.SEL
//     chooses what IN.BS shows, as the TTL_PAPERS select bit chooses what
//     the port's one barrier/signal input pin shows: BF (SEL 0) or SP (1).
//
// Departure (docs/nand.md): the trees' outputs are latched into IN.DATA in
// the cycle BF toggles.  Over the link each PE's I/O cycle is a register
// access, and a PE that passed a barrier may write its next step's data
// before a slower PE has read this step's result; the paper's SPP protocol
// spends five I/O cycles per step on that race (two barriers and a guard,
// Table 2), the latch makes it two: a step's result changes only when the
// next barrier completes, and that needs every PE's next write, which each
// PE makes after its read.  IN.LIVE shows the trees unlatched.
//
// Registers (docs/nand_regmap.md; names and bits from nand_regs.vh, which
// tools/nandgen.py generates): OUT (rw), IN, LIVE, SHAPE, BARS0/1, CABLE0/1,
// LEFT0/1 (ro), 32 bits each, per PE; a PE beyond N: no such register.
// After reset OUT holds BAR 0, ACK 0, SEL 0, DATA all 1 (neutral in a NAND).
// Writes to the read-only registers are refused, and so is a write to the
// OUT of a PE on its cable (the cable drives it), a write to OUT out of
// protocol order: one that changes BAR while BAR != BF (the PE's barrier
// has not completed) or ACK while ACK != AF, and a write to OUT while the
// PE's sequenced operation runs; anything else is no such register.
//
// CALL registers (link rule 8; only a CALL reaches them, and a CALL reaches
// nothing else): SLICES and VOTE start a whole section-2 operation on the
// step sequencer (rtl/nand/nand_seq.v), their parameters in the address
// (SLICES | (w-1) << 6 | (k-1)); the engine answers PENDING until it has
// finished, then the 8-byte result once.  A start is refused while the
// PE's previous operation runs or its result waits, and for a PE on its
// cable; a w or i this T cannot run is no such register.  CANCEL (answered
// at once) ends the PE's operation, withdrawing a barrier it had arrived
// at that has not completed (BAR back to BF, DATA all 1, the PE into LEFT
// until its next start; not if the barrier completes in that very cycle,
// which the withdrawal would turn into an arrival at the next one).
//
// Pins (docs/nand.md, "The cable"; the lines in docs/nand_regmap.md): each
// PE may instead drive its outputs from a PC's parallel port, 12 lines in
// and 5 out per PE, as TTL_PAPERS' PEs do (seed 002 section 3: "the SPP
// provides up to 12 output bits, it only provides five bits of input").
// Levels as on the DB25 cable: nand_pins_in[a*12 +: 12] carries PE a's
// DATA 0..3, BAR, ACK, SEL, REQ (each 0 -> 1 edge is one request) and
// /ATTACH; nand_pins_out[a*5 +: 5] its IN.DATA 0..3 (0 beyond T) and /BS,
// which the PC, inverting Busy, reads as BS.
// Every input goes through a 2-flop synchronizer that resets to "all lines
// high".  A PE is on its cable while its /ATTACH line (pin 17) is low: a
// running port drives it low, an unplugged cable or a PC that is off floats
// high (the board's pull-ups), so a PE is never taken from a cable that
// nobody drives.  While on its cable, the PE's OUT register follows the
// pins every cycle and the link may not write it; off its cable it keeps
// its last value (a PE whose cable is pulled stays where it was: it never
// arrives at a later barrier, and BARS names it to the others).  With more
// than 4 data trees a cabled PE outputs 1 on trees 4..T-1 (neutral).
// Skew: a PC writes D0..D7 at once, but the lines reach the synchronizers
// with some skew and each bit may resolve a cycle late, so a PE's new BAR
// could be seen up to two cycles before its new data; the cable's BAR is
// therefore delayed two more cycles than its data, and a barrier completed
// by a cable write latches that PE's data of the same write.  The other way,
// the PC reads S3..S7 at once: the latched trees change on the data lines
// two cycles before /BS does, so a PC that sees BS change reads the new data.
// Latency: BAR pin -> the barrier flip-flop 6 cycles (sync 2, skew guard 2,
// OUT 1, BF 1); BF -> Busy pin 3 (skew guard 2, output register 1): 9 cycles
// pin to pin, whatever N (90 ns at 100 MHz, against about 1 us per PC port
// access).  Data lines and SEL reach the trees and the status lines sooner.
// Bus: a slave on link_port's engine bus (docs/link.md); always ready; one
// response two cycles after each request (registered request, then read and
// applied).  After reset BF = 0 with every BAR 0: the S0 barrier is the one
// just done, the first barrier is an S1 barrier.
//
// CALL ports (docs/link.md, "The engine register bus"): bus_req_call marks
// a CALL access (write: start, operands bus_req_wdata_hi:bus_req_wdata;
// read: ask); the answer's bus_rsp_rdata_hi and bus_rsp_len carry a
// finished CALL's result (bus_rsp_err 3 while it runs).  bus_req_len is not
// needed: the operand is always the 64-bit value (short frames zero-extend).
//
// Parameters: N in 1..64 PEs, T in 1..16 data trees.
`include "bus_ports.vh"
module nand_engine #(
    parameter integer N = 4,
    parameter integer T = 4
) (
    input  wire        clk,
    input  wire        rst,
    `AGGNET_BUS_SLAVE,       // the engine bus (rtl/bus/bus_ports.vh)
    `AGGNET_BUS_CALL_SLAVE,  // and its CALL ports: the slot has "call": true
    output wire        busy,
    input  wire [N*12-1:0] nand_pins_in,
    output reg  [N*5-1:0]  nand_pins_out
`ifdef FORMAL
    ,
    output wire [N-1:0] f_bar,
    output wire [N-1:0] f_ack,
    output wire         f_bf,
    output wire         f_sp,
    output wire         f_af,
    output wire         f_req_any
`endif
);
`include "nand_regs.vh"
`include "bus_codes.vh"

    generate
        if (N < 1 || N > 64) begin : g_bad_n
            $error("nand_engine: N must be in 1..64");
        end
        if (T < 1 || T > NAND_OUT_DATA_W) begin : g_bad_t
            $error("nand_engine: T must be in 1..16");
        end
        if (NAND_CA_VOTE_K != NAND_CA_SLICES_K || NAND_CA_VOTE_I != NAND_CA_SLICES_W ||
            NAND_CA_SLICES_K_W != 6 || NAND_CA_SLICES_W_W != 4 || NAND_CA_VOTE_I_W != 4 ||
            NAND_R_SLICES != 12'h800 || NAND_R_VOTE != 12'hC00 || NAND_SEQ_BYTES != 8) begin : g_bad_calls
            $error("nand_engine: the CALL address layout is decoded as SLICES | (w-1) << 6 | (k-1), VOTE above it (nand_regs.vh)");
        end
        if (NAND_CABLE_IN_LINES != 12 || NAND_CABLE_OUT_LINES != 5) begin : g_bad_cable
            $error("nand_engine: the ports carry 12 cable lines in and 5 out per PE (nand_regs.vh)");
        end
    endgenerate

    localparam integer PW = (N > 1) ? $clog2(N) : 1;
    localparam integer N_I = N, T_I = T;

    // ---- the cable: synchronized pins, attach and request edges -------------
    localparam integer PINW = NAND_CABLE_IN_LINES;
    wire [N*PINW-1:0] pq;
    sync2 #(.W(N*PINW), .RESET({(N*PINW){1'b1}})) u_sync (.clk(clk), .rst(rst), .d(nand_pins_in), .q(pq));
    wire [N-1:0] cab, cab_req;
    reg  [N-1:0] req_prev;
    genvar g;
    generate
        for (g = 0; g < N; g = g + 1) begin : g_cab
            assign cab[g]     = !pq[g*PINW + NAND_CABLE_IN_ATTACH];  // active low
            assign cab_req[g] = cab[g] && pq[g*PINW + NAND_CABLE_IN_REQ] && !req_prev[g];
        end
    endgenerate
    integer c, cw, co;  // one loop variable per always block (yosys: one driver each)
    always @(posedge clk) begin
        for (c = 0; c < N; c = c + 1) req_prev[c] <= pq[c*PINW + NAND_CABLE_IN_REQ];
        if (rst) req_prev <= {N{1'b1}};
    end
    // the skew guard on the cable's BAR (see Skew above)
    // and on attach: the delayed BAR counts only once it was sampled while
    // the PE was on its cable (else the floating level of the lines before
    // the plug went in, BAR high, would arrive for two cycles).
    reg [N-1:0] cab_bar1, cab_bar2, cab1, cab2;
    integer cb;
    always @(posedge clk) begin
        for (cb = 0; cb < N; cb = cb + 1) cab_bar1[cb] <= pq[cb*PINW + NAND_CABLE_IN_BAR];
        cab_bar2 <= cab_bar1;
        cab1 <= rst ? {N{1'b0}} : cab;
        cab2 <= rst ? {N{1'b0}} : cab1;
    end
    // the data lines a cabled PE drives: DATA 0..3, 1 on trees 4..T-1
    function [T-1:0] cab_data(input [PINW-1:0] p);
        integer b;
        begin
            cab_data = {T{1'b1}};
            for (b = 0; b < T && b < NAND_CABLE_IN_DATA_W; b = b + 1) cab_data[b] = p[NAND_CABLE_IN_DATA + b];
        end
    endfunction

    // ---- per-PE outputs (the OUT registers) -----------------------------------
    reg [N-1:0] bar, ack, sel;
    reg [N*T-1:0] data;     // PE a's DATA at [a*T +: T]
    reg         req_any;   // a write with REQ set was applied last cycle, or a cable REQ edge

    // ---- the trees, flat in N ------------------------------------------------
    wire s1_done = &bar;     // S1's NAND is 0: every PE set BAR
    wire s0_done = &(~bar);  // S0's NAND is 0: every PE reset BAR
    wire a1_done = &ack;     // the acknowledge barrier, set and reset trees
    wire a0_done = &(~ack);
    reg  [T-1:0] tree;       // NAND of each data tree
    integer a;
    always @* begin
        tree = {T{1'b1}};
        for (a = 0; a < N; a = a + 1) tree = tree & data[a*T +: T];
        tree = ~tree;
    end

    reg         bf, sp, af;
    reg [N-1:0] cab_req_q;   // a cable REQ edge, aligned with the OUT registers
    always @(posedge clk) cab_req_q <= rst ? {N{1'b0}} : cab_req;
    reg [T-1:0] latched;
    wire        ack_done = (a1_done && !af) || (a0_done && af);
    always @(posedge clk) begin
        if (rst) begin
            bf      <= 1'b0;
            sp      <= 1'b0;
            af      <= 1'b0;
            latched <= {T{1'b0}};
        end else begin
            if (ack_done) af <= !af;
            if (s1_done && !bf) begin
                bf      <= 1'b1;
                latched <= tree;
            end else if (s0_done && bf) begin
                bf      <= 1'b0;
                latched <= tree;
            end
            if (req_any || |cab_req_q) sp <= 1'b1;
            else if (ack_done) sp <= 1'b0;
        end
    end

    // ---- bus: stage 1 registers the request, stage 2 reads and writes -------
    assign bus_req_ready = 1'b1;
    reg          q_valid, q_we, q_pe_ok;
    reg [PW-1:0] q_p;
    reg [N-1:0]  q_hot;   // q_p one-hot (none beyond N): OUT writes are per-PE enables, not indexed stores
    reg [11:0]   q_reg;
    reg [31:0]   q_wdata, q_whi;
    // A CALL, decoded here (registered, off the answer's path): CANCEL, or
    // SLICES / VOTE with their parameters in the address (nand_regs.vh
    // NAND_CA_*) and whether this engine's T runs them.
    wire [3:0]   a_sw1 = bus_req_addr[NAND_CA_SLICES_W +: NAND_CA_SLICES_W_W];  // w - 1 or i - 1
    wire         a_vote = bus_req_addr[11] && bus_req_addr[10];                   // NAND_R_VOTE (checked above)
    // the widest VOTE step this T runs: i with 2^i - 1 <= T
    localparam integer IMAX = (T >= 15) ? 4 : (T >= 7) ? 3 : (T >= 3) ? 2 : 1;
    // bit j: w - 1 = j (SLICES) or i - 1 = j (VOTE) runs on this T (a table, not a compare)
    localparam [15:0] W_OK = 16'hFFFF >> (16 - T), I_OK = 16'hFFFF >> (16 - IMAX);
    wire         a_call_ok = bus_req_call && {26'd0, bus_req_pe} < N &&
                             (bus_req_addr[11:0] == NAND_R_CANCEL ||
                              (bus_req_addr[11] && (a_vote ? I_OK[a_sw1] : W_OK[a_sw1])));
    reg          q_call, q_vote, q_run, q_fin, q_start, q_canc, q_ask, q_fresh, q_bar, q_ack;
    reg [4:0]    q_sw;   // w (SLICES) or i (VOTE)
    reg [6:0]    q_sk;   // k
    wire [N-1:0]  sq_run, sq_fin;   // the sequencer's: an operation runs; a result waits
    wire [63:0]   sq_run64 = {{(64 - N){1'b0}}, sq_run}, sq_fin64 = {{(64 - N){1'b0}}, sq_fin};
    wire [63:0]   bar64 = {{(64 - N){1'b0}}, bar}, ack64 = {{(64 - N){1'b0}}, ack};
    wire          cm_step, cm_any;  // its commit this cycle: a step's OUT for cm_p; any commit
    wire [PW-1:0] cm_p;
    integer qh, ow;
    always @(posedge clk) begin
        q_valid <= bus_req_valid && !rst;
        q_we    <= bus_req_we;
        q_call  <= bus_req_call;
        q_whi   <= bus_req_wdata_hi;
        q_vote  <= a_vote;
        q_sw    <= {1'b0, a_sw1} + 5'd1;
        q_sk    <= {1'b0, bus_req_addr[NAND_CA_SLICES_K +: NAND_CA_SLICES_K_W]} + 7'd1;
        // what a CALL asks for, decided here (the answer's cycle only adds
        // the PE's state): a start, a cancel, an ask; or a CALL to a
        // register that takes none (or with a w or i this T cannot run)
        q_start <= a_call_ok && bus_req_we && bus_req_addr[11];
        q_canc  <= a_call_ok && bus_req_we && !bus_req_addr[11];
        q_ask   <= a_call_ok && !bus_req_we;
        // the row the ask reads in this cycle is the one a commit in this
        // cycle is replacing: answer PENDING, the next ask gets the new one
        q_fresh <= cm_any && cm_p == bus_req_pe[PW-1:0];
        q_pe_ok <= {26'd0, bus_req_pe} < N;
        q_p     <= bus_req_pe[PW-1:0];
        for (qh = 0; qh < N; qh = qh + 1) q_hot[qh] <= {26'd0, bus_req_pe} == qh;
        // the PE's sequencer state, looked up here and not on the answer's
        // path; it can change before the answer only by the sequencer
        // finishing (run 1 -> 0, fin 0 -> 1), where the answer is then the
        // cautious one (an OUT write or a start refused, an ask PENDING: the
        // host asks again), so the early look is safe
        q_run <= sq_run64[bus_req_pe];  // a mux, not a chain of compares; 0 beyond N
        q_bar <= bar64[bus_req_pe];
        q_ack <= ack64[bus_req_pe];
        q_fin <= sq_fin64[bus_req_pe];
        q_reg   <= bus_req_addr[11:0];
        q_wdata <= bus_req_wdata;
    end

    wire [T-1:0] data_p = data[q_p*T +: T];
    wire        bs = sel[q_p] ? sp : bf;
    // What a read returns, field by field (nand_regs.vh); other bits read 0.
    reg [31:0] shape, out_rd, in_rd, live_rd;
    always @* begin
        shape = 32'd0;
        shape[NAND_SHAPE_N +: NAND_SHAPE_N_W] = N_I[NAND_SHAPE_N_W-1:0];
        shape[NAND_SHAPE_T +: NAND_SHAPE_T_W] = T_I[NAND_SHAPE_T_W-1:0];
        out_rd = 32'd0;
        out_rd[NAND_OUT_BAR] = bar[q_p];
        out_rd[NAND_OUT_ACK] = ack[q_p];
        out_rd[NAND_OUT_SEL] = sel[q_p];
        out_rd[NAND_OUT_DATA +: T] = data_p;
        in_rd = 32'd0;
        in_rd[NAND_IN_BS] = bs;
        in_rd[NAND_IN_BF] = bf;
        in_rd[NAND_IN_SP] = sp;
        in_rd[NAND_IN_AF] = af;
        in_rd[NAND_IN_DATA +: T] = latched;
        live_rd = 32'd0;
        live_rd[NAND_LIVE_BF] = bf;
        live_rd[NAND_LIVE_SP] = sp;
        live_rd[NAND_LIVE_AF] = af;
        live_rd[NAND_LIVE_DATA +: T] = tree;
    end
    wire [63:0] bars64 = {{(64 - N){1'b0}}, bar} ;
    // Out of protocol order (refused, nothing changes): a write that moves
    // the PE's BAR while its barrier is still open (BAR != BF: it arrived
    // and the others have not), i.e. a second barrier before the first
    // completed, or that moves its ACK while its acknowledge is still open
    // (ACK != AF).  A PE on its cable cannot be refused: its pins are what
    // its PC drives.
    wire        bar_p = |(bar & q_hot);  // now (a cancel's answer and LEFT)
    // (the PE's BAR and ACK as they stood in the request's first stage:
    // between the stages only its cable or its sequencer can move them, and
    // a write is refused then anyway; off the write enables' path)
    wire        out_of_order = (q_wdata[NAND_OUT_BAR] != q_bar && q_bar != bf) ||
                               (q_wdata[NAND_OUT_ACK] != q_ack && q_ack != af);
    wire [63:0] cab64 = {{(64 - N){1'b0}}, cab} ;

    // ---- the sequencer (rtl/nand/nand_seq.v): CALLs ------------------------------
    // Second stage: what a CALL does (at most one of start, cancel, take).
    // A start is refused while the PE has an operation on (run) or a result
    // not handed over (fin: CANCEL drops it), and for a PE on its cable.
    wire [63:0]   sq_row;
    wire [T-1:0]  cm_data;
    wire          q_ok_call = q_valid && (q_start || q_canc || q_ask);
    wire          run_p = q_run, fin_p = q_fin, cab_p = |(cab & q_hot);
    wire          st_v = q_valid && q_start && !run_p && !fin_p && !cab_p;
    wire          cx_v = q_valid && q_canc;
    wire          tk_v = q_valid && q_ask && fin_p && !q_fresh;
    wire          ask_v = bus_req_valid && bus_req_call && !bus_req_we;
    // The barrier completes in this cycle (BF toggles at its end): a cancel
    // then leaves BAR where it is (the step is done; withdrawing it would
    // make the PE arrive at the next barrier).
    wire          bdone = (s1_done && !bf) || (s0_done && bf);
    // busy: the sequencer moves on by itself (for the link port's idle,
    // which only a simulation reads): for two of its rounds after it
    // committed a step or a result (the step's OUT reaches the trees and BF,
    // and each PE is visited again within a round, max(N, 5) + 4 cycles)
    localparam integer MOVE_CYCLES = 2 * ((N < 5) ? 5 : N) + 16;
    reg [7:0] mv_cnt;
    always @(posedge clk) begin
        if (rst) mv_cnt <= 8'd0;
        else if (cm_any) mv_cnt <= MOVE_CYCLES[7:0];
        else if (mv_cnt != 8'd0) mv_cnt <= mv_cnt - 8'd1;
    end
    assign busy = cm_any || mv_cnt != 8'd0;

    nand_seq #(.N(N), .T(T), .PW(PW)) u_seq (
        .clk(clk), .rst(rst), .bf(bf), .latched(latched), .bar(bar), .cab(cab),
        .ask_v(ask_v), .ask_p(bus_req_pe[PW-1:0]),
        .st_v(st_v), .cx_v(cx_v), .tk_v(tk_v), .st_p(q_p), .st_vote(q_vote), .st_w(q_sw), .st_k(q_sk),
        .st_row({q_whi, q_wdata}),
        .run(sq_run), .fin(sq_fin), .row_rd(sq_row),
        .cm_step(cm_step), .cm_any(cm_any), .cm_p(cm_p), .cm_data(cm_data)
    );

    // LEFT: a PE whose CANCEL withdrew a barrier it had arrived at (until
    // its next start), so the others' timeouts can tell it from a PE that
    // never arrived (BARS alone cannot).
    reg [N-1:0] left;
    wire [63:0] left64 = {{(64 - N){1'b0}}, left};
    reg [N-1:0] cm_hot;  // cm_p one-hot
    integer ch;
    always @* for (ch = 0; ch < N; ch = ch + 1) cm_hot[ch] = {{(32 - PW){1'b0}}, cm_p} == ch;

    // the bus response, registered (rdata and err 0 while no response)
    reg        rsp_valid;
    reg [31:0] rsp_rdata, rsp_rdata_hi;
    reg [1:0]  rsp_err;
    reg [3:0]  rsp_len;
    assign bus_rsp_valid    = rsp_valid;
    assign bus_rsp_rdata    = rsp_rdata;
    assign bus_rsp_err      = rsp_err;
    assign bus_rsp_rdata_hi = rsp_rdata_hi;
    assign bus_rsp_len      = rsp_len;

    always @(posedge clk) begin
        req_any <= 1'b0;
        if (rst) begin
            bar           <= {N{1'b0}};
            ack           <= {N{1'b0}};
            sel           <= {N{1'b0}};
            data          <= {(N*T){1'b1}};
            left          <= {N{1'b0}};
            rsp_valid <= 1'b0;
            rsp_rdata <= 32'd0;
            rsp_err   <= LINK_BUS_OK;
            rsp_rdata_hi <= 32'd0;
            rsp_len   <= 4'd0;
        end else begin
            rsp_valid <= q_valid;
            rsp_rdata <= 32'd0;
            rsp_err   <= LINK_BUS_OK;
            rsp_rdata_hi <= 32'd0;
            rsp_len   <= 4'd0;
            // The sequencer's step for PE cm_p: its next data, BAR flipped
            // (no bus write races it: plain OUT writes are refused while the
            // PE's operation runs, a cancel or start drops the commit).
            if (cm_step)
                for (ow = 0; ow < N; ow = ow + 1)
                    if (cm_hot[ow]) begin
                        bar[ow] <= !bar[ow];
                        data[ow*T +: T] <= cm_data;
                    end
            if (q_valid) begin
                if (!q_pe_ok || (q_call && !q_ok_call)) begin  // (q_ok_call implies q_call)
                    // a PE beyond N; a CALL to a register that takes none, or
                    // with parameters this engine's T cannot run
                    rsp_err <= LINK_BUS_NO_REG;
                end else if (q_canc) begin
                    // CANCEL: answered at once; a running operation's open
                    // barrier is withdrawn (BAR back to BF) unless it
                    // completes in this very cycle, DATA back to all 1s
                    rsp_len <= 4'd1;
                    rsp_rdata[NAND_CANCEL_WAS +: NAND_CANCEL_WAS_W] <=
                        fin_p ? NAND_CANCEL_WAS_FINISHED[NAND_CANCEL_WAS_W-1:0] :
                        run_p ? NAND_CANCEL_WAS_RUNNING[NAND_CANCEL_WAS_W-1:0] : NAND_CANCEL_WAS_IDLE[NAND_CANCEL_WAS_W-1:0];
                    rsp_rdata[NAND_CANCEL_BAR] <= (run_p && !bdone) ? bf : bar_p;
                    if (run_p)
                        for (ow = 0; ow < N; ow = ow + 1)
                            if (q_hot[ow]) begin
                                if (!bdone) bar[ow] <= bf;
                                if (!bdone && bar_p != bf) left[ow] <= 1'b1;
                                data[ow*T +: T] <= {T{1'b1}};
                            end
                end else if (q_start) begin
                    // SLICES / VOTE start: pending until finished
                    rsp_err <= st_v ? LINK_BUS_PENDING : LINK_BUS_REFUSED;
                    if (st_v) left <= left & ~q_hot;
                end else if (q_ask) begin
                    // an ask: the result once (fresh: the row read predates
                    // the commit that finished it: ask again)
                    if (tk_v) begin
                        rsp_rdata    <= sq_row[31:0];
                        rsp_rdata_hi <= sq_row[63:32];
                        rsp_len      <= 4'd8;
                    end else begin
                        rsp_err <= (run_p || fin_p) ? LINK_BUS_PENDING : LINK_BUS_REFUSED;
                    end
                end else begin
                    case (q_reg)
                        NAND_R_OUT: begin
                            if (q_we && (cab_p || out_of_order || run_p)) begin
                                rsp_err <= LINK_BUS_REFUSED;
                            end else if (q_we) begin
                                req_any <= q_wdata[NAND_OUT_REQ];
                                for (ow = 0; ow < N; ow = ow + 1)
                                    if (q_hot[ow]) begin
                                        bar[ow] <= q_wdata[NAND_OUT_BAR];
                                        ack[ow] <= q_wdata[NAND_OUT_ACK];
                                        sel[ow] <= q_wdata[NAND_OUT_SEL];
                                        data[ow*T +: T] <= q_wdata[NAND_OUT_DATA +: T];
                                    end
                            end else begin
                                rsp_rdata <= out_rd;
                            end
                        end
                        NAND_R_IN:     if (q_we) rsp_err <= LINK_BUS_REFUSED; else rsp_rdata <= in_rd;
                        NAND_R_LIVE:   if (q_we) rsp_err <= LINK_BUS_REFUSED; else rsp_rdata <= live_rd;
                        NAND_R_SHAPE:  if (q_we) rsp_err <= LINK_BUS_REFUSED; else rsp_rdata <= shape;
                        NAND_R_BARS0:  if (q_we) rsp_err <= LINK_BUS_REFUSED; else rsp_rdata <= bars64[31:0];
                        NAND_R_BARS1:  if (q_we) rsp_err <= LINK_BUS_REFUSED; else rsp_rdata <= bars64[63:32];
                        NAND_R_CABLE0: if (q_we) rsp_err <= LINK_BUS_REFUSED; else rsp_rdata <= cab64[31:0];
                        NAND_R_CABLE1: if (q_we) rsp_err <= LINK_BUS_REFUSED; else rsp_rdata <= cab64[63:32];
                        NAND_R_LEFT0:  if (q_we) rsp_err <= LINK_BUS_REFUSED; else rsp_rdata <= left64[31:0];
                        NAND_R_LEFT1:  if (q_we) rsp_err <= LINK_BUS_REFUSED; else rsp_rdata <= left64[63:32];
                        default: rsp_err <= LINK_BUS_NO_REG;
                    endcase
                end
            end
            // A PE on its cable: its OUT follows the pins (a link write to it
            // was refused above, so nothing here races a bus write).
            for (cw = 0; cw < N; cw = cw + 1)
                if (cab[cw]) begin
                    if (cab2[cw]) bar[cw] <= cab_bar2[cw];
                    ack[cw]  <= pq[cw*PINW + NAND_CABLE_IN_ACK];
                    sel[cw]  <= pq[cw*PINW + NAND_CABLE_IN_SEL];
                    data[cw*T +: T] <= cab_data(pq[cw*PINW +: PINW]);
                end
        end
    end

    // The cable's outputs, registered (no glitches on the cable): the
    // latched trees as IN.DATA holds them (0 beyond T) on DB25 15, 13, 12,
    // 10 and /BS on Busy (pin 11).
    localparam integer POUTW = NAND_CABLE_OUT_LINES;
    wire [NAND_IN_DATA_W-1:0] in_data = in_rd[NAND_IN_DATA +: NAND_IN_DATA_W];
    reg [N-1:0] bs1, bs2;  // /BS two cycles behind the data lines (see Skew above)
    always @(posedge clk) begin
        for (co = 0; co < N; co = co + 1) begin
            bs1[co] <= sel[co] ? sp : bf;
            nand_pins_out[co*POUTW + NAND_CABLE_OUT_DATA +: NAND_CABLE_OUT_DATA_W] <=
                in_data[NAND_CABLE_OUT_DATA_W-1:0];
            nand_pins_out[co*POUTW + NAND_CABLE_OUT_BS] <= !bs2[co];  // active low
        end
        bs2 <= bs1;
        if (rst) nand_pins_out <= {(N*POUTW){1'b0}};
    end

`ifdef FORMAL
    assign f_bar = bar;
    assign f_ack = ack;
    assign f_bf = bf;
    assign f_sp = sp;
    assign f_af = af;
    assign f_req_any = req_any;
`endif

    // The window is decoded by the hub; sizes are the register's own.
    wire unused_ok = &{1'b0, bus_req_addr[15:12], bus_req_size, bus_req_len, q_wdata, pq,
                        in_data[NAND_IN_DATA_W-1:NAND_CABLE_OUT_DATA_W]};
endmodule
`default_nettype wire
