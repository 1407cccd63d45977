`default_nettype none
// cop_serve_props: formal harness for the service of rtl/cop/cop_core.v:
// whose Data RAM words a command may write and whose word a read returns,
// what the lock lets through, and how soon the round robin serves a ready
// channel (issue 23; the jobs are in rtl/cop/manifest.json, formal/run.py
// runs them).  The core is built with
// the smallest tables (PPN_W = PID_W = RA_W = 1: four processes of two Data
// RAM words each, MB = 1) and without the FPU (EN_FPU = 0), UP = 0.  Every
// request field is free every cycle; the only assumption is reset in the
// first cycle.  PROPS selects the groups (bit i: group i below), so each job
// proves one group with its invariants (bit 3) and each control checks its
// group alone.
//
// The harness's own view, from the bus: when a CALL start for channel c is
// applied (the cycle after the core takes it: its request stage) while c's
// receive buffer is empty, it records the opcode (address bits 10..4) and
// c's PROC (PPN, PID) and ADDR registers as they were when it was taken
// (s_op, s_ridx); the start is accepted exactly when the buffer becomes
// valid, so while it is valid these are the buffered command's.  This is
// the seed's instruction word (figure 13b: the interface inserts PPN and PID
// from its Current Process Register as the command is sent), so a PROC
// write by the supervisor after the start does not move the command to the
// new process.
//
//   (r1) bit 0, no RAM write outside the issuer's process (seed 004, "Data
//        RAM": the COP addresses the word by the address, PPN and PID
//        received from the node; Table I's WSRAM and RMW rows): in every
//        cycle the Data RAM is written, exactly one channel c gets its reply
//        placed (OK), c's command is WSRAM32/64 or RMW32/64, and the written
//        index {PPN, PID, ADDR} is the one recorded at c's start: no other
//        process's word (nor another word of its own) is written.  The RAM
//        has one write port, so no other word changes.
//   (r2) bit 4, a RAM read returns the word of the issuer's process (Table
//        I's RSRAM and RMW rows: the result is the word at {PPN, PID, ADDR},
//        for RMW the old value): one word is tracked, at an address sa taken
//        from the free input sym_sa in the first cycle; its shadow sw is the
//        RAM's word then (zero from configuration: the RAM is not cleared by
//        rst) and after that each write the core makes at sa.  In every
//        EXEC whose leader c gets its OK reply placed, if c's recorded
//        command is RSRAM32/64 or RMW32/64 and its recorded index is sa, the
//        value placed is sw (32-bit: its low half, zero-extended).  Only the
//        step c leads: a reply placed to c by another channel's step (a
//        round's exit, TREE, SCAN, FPUT) is not covered (the harness has no
//        invariants of the key table that would exclude it).  Bit 3 adds
//        that sw is the RAM's word at sa (f_dram), in rst too.
//   (l1) bit 1, nothing else served while a channel holds the lock (seed
//        004, the controller of figure 22: on LOCK "the counter is simply
//        stopped so the selected interface is serviced repeatedly until an
//        unlock command is received"; Table I's LOCK / UNLOCK).  The lock,
//        as the harness sees it: held by c from the cycle after the step
//        c leads places the OK reply of c's LOCK, until a step c leads places
//        the OK reply of c's UNLOCK or a supervisor channel writes the LOCK
//        register (the break); bit 3 shows it is the core's lock register.
//        While it is held by c, every service step is c's: PICK's snapshot
//        holds no other channel and picks c, the leader (LEAD, GROUP, EXEC)
//        is c and EXEC's group holds no other channel.  (A reduction's
//        result placed for a member served before the lock was taken is not
//        a service step.)
//   (f1) bit 2, an unlocked ready channel is served within C steps (figure
//        22's round robin: "each interface is only serviced once for each
//        cycle through them all").  A step starts when IDLE takes its
//        snapshot; channel c waits from its CALL start until it is served
//        (its buffer leaves DATA_RDY-and-not-served).  Proven: (i) a waiting
//        channel that IDLE finds eligible (no lock held by another channel,
//        no supervisor HOLD) is in that step's snapshot; (ii) counting only
//        the steps whose snapshot holds c, c is the leader of the C-th at
//        the latest (c is picked, or is served by another leader's group
//        earlier).  The bound is in steps, not cycles: a step is 5 cycles
//        plus its round's tail (the tree, a prefix sum's C cycles) and HOLD
//        or another channel's lock pauses the count for as long as they
//        last.  It is exact: each step the pointer moves past a leader
//        between itself and c, so the C - 1 others can each lead once
//        first (the cover REACH_FAIR reaches the C-th step with c waiting).
//        C = 3: at C = 2 the channel just served is never ready at the next
//        snapshot (its buffer is freed or its contribution served in EXEC,
//        a new start comes two cycles later at the earliest), so even a fixed
//        priority serves both channels and the property would not tell
//        round robin from it.
//   bit 3: the invariants that make the groups inductive: the buffers hold
//        what the harness recorded; the leader's buffer is valid from LEAD
//        to EXEC and the latched opcode and index are its; the core's lock
//        registers are the harness's lock; PICK's snapshot is nonempty,
//        waiting and split at the pointer; while a lock is held the pointer
//        is just past its holder; a waiting channel's count plus its
//        distance from the pointer is at most C - 1; (r2) the shadow is
//        the RAM's word.
//
// Negative controls (must FAIL from reset; each runs its group alone, as one
// bounded run of its steps, "bmc" in the manifest; step 1 is the reset
// cycle): SELFTEST_RAMPTR builds cop_core with a write index that takes PPN
// and PID from the command buffered at the round-robin pointer (the channel
// after the leader) instead of the leader's, which (r1) catches at step 10
// (channel 1's WSRAM32 of process PPN 0, PID 0 writes into PPN 1, PID 1,
// the process of the command channel 0 has buffered); SELFTEST_LOCKLEAK builds it with a lock that
// holds the round robin only while its holder has a command waiting, which
// (l1) catches at step 10 (channel 1's barrier entry is picked while channel
// 0 holds the lock); SELFTEST_RAMRD builds it with a read index that takes
// PPN and PID from the command buffered at the pointer, which (r2) catches
// at step 14 (channel 0's WSRAM64 of PPN 0, PID 0 writes word 0;
// channel 1's RSRAM64 of PPN 1, PID 0 then reads word 0, channel 0's RMW64
// of PPN 0 being buffered at the pointer); SELFTEST_NORR builds it with a
// pointer that never moves (fixed priority, lowest channel first), which
// (f1) catches at C = 3 at step 20 (channels 1 and 0 lead in turn while channel 2 waits in every
// snapshot).
// Covers, checked by hand (each claims its antecedent never holds and
// FAILS on the real core, so the property is not vacuous; not CI jobs):
// REACH_RAM, a RAM write while the other channel's current process is
// another (within 10 steps, C = 2); REACH_RAMRD, a read of the tracked word
// that returns a value other than zero while the word of the same ADDR in
// another process holds another (within 13 steps, C = 2); REACH_LOCK, a PICK while the lock is held
// and another channel waits (step 13, C = 2); REACH_FAIR, a PICK whose
// snapshot holds c for the C-th time (step 23, C = 3: the bound is reached).
// By hand: formal/run.py's script for the job, with -DREACH_... and
// `sat -seq N` in place of the induction.  The steps are those of the
// shortest failing runs, with the core's request stage (a request takes two
// cycles).
`include "bus_ports.vh"
module cop_serve_props #(
    parameter integer C = 2,
    parameter integer PROPS = 31  // bit i: check group i (0 r1, 1 l1, 2 f1, 3 invariants, 4 r2)
) (
    input wire        clk,
    input wire        rst,
    `AGGNET_BUS_REQ_FREE,
    `AGGNET_BUS_CALL_REQ_FREE,
    input wire [2:0]  sym_sa         // (r2) the word tracked, taken in the first cycle
);
`include "cop_regs.vh"
    localparam integer DW = 3;  // PPN_W + PID_W + RA_W
    wire        bus_req_ready, bus_rsp_valid;
    wire [31:0] bus_rsp_rdata, bus_rsp_rdata_hi;
    wire [1:0]  bus_rsp_err;
    wire [3:0]  bus_rsp_len;
    wire [C-1:0] f_rx_v, f_rx_srv, f_sup, f_pl_ok, f_snap, f_snap_hi, f_grp;
    wire [3:0]  f_st;
    wire        f_ram_we, f_lock_held, f_hold;
    wire [DW-1:0] f_ram_idx, f_l_ridx;
    wire [6:0]  f_l_op;
    wire [18:0] f_l_dec;
    wire [C-1:0] f_rx_x;
    wire        f_l_x, f_u_on;
    wire [C*7-1:0] f_rx_op;
    wire [C*DW-1:0] f_rx_ridx, f_ch_ridx;
    wire [5:0]  f_lead, f_ptr, f_pick, f_lock_ch;
    wire [63:0] f_ram_wd, f_pl_data;
    wire [(64 << DW)-1:0] f_dram;

    cop_core #(.C(C), .PPN_W(1), .PID_W(1), .RA_W(1), .MB(1), .EN_FPU(0)) dut (
        .clk(clk), .rst(rst),
        `AGGNET_BUS_BIND,
        `AGGNET_BUS_CALL_BIND,
        .up_valid(), .up_ready(1'b0), .up_op(), .up_mask(), .up_us(), .up_ppn(), .up_pid(), .up_addr(), .up_data(),
        .up_len(), .dn_valid(1'b0), .dn_ready(), .dn_err(1'b0), .dn_cause(8'd0), .dn_data(64'd0), .dn_len(4'd0), .up_wd(), .ex_idx(6'd0), .ex_data(), .xp_ch(), .xp_idx(), .xp_data(64'd0),
        .idle(),
        .f_rx_v(f_rx_v), .f_rx_srv(f_rx_srv), .f_sup(f_sup), .f_st(f_st), .f_pl_ok(f_pl_ok), .f_snap(f_snap),
        .f_ram_we(f_ram_we), .f_ram_idx(f_ram_idx), .f_ram_wd(f_ram_wd), .f_dram(f_dram), .f_pl_data(f_pl_data), .f_l_ridx(f_l_ridx), .f_l_op(f_l_op), .f_l_dec(f_l_dec), .f_rx_op(f_rx_op),
        .f_rx_x(f_rx_x), .f_l_x(f_l_x), .f_u_on(f_u_on),
        .f_rx_ridx(f_rx_ridx), .f_ch_ridx(f_ch_ridx), .f_lead(f_lead), .f_ptr(f_ptr), .f_pick(f_pick),
        .f_snap_hi(f_snap_hi), .f_grp(f_grp), .f_lock_held(f_lock_held), .f_lock_ch(f_lock_ch), .f_hold(f_hold)
    );

`ifdef FORMAL
    localparam [3:0] S_IDLE = 4'd0, S_PICK = 4'd1, S_LEAD = 4'd2, S_GROUP = 4'd3, S_EXEC = 4'd4;
    localparam [5:0] C6 = C;
    wire [C-1:0]  f_sup_sh = f_sup >> bus_req_pe;
    wire          f_sup_p = f_sup_sh[0];   // the requesting channel is supervisor
    // the request as the core applies it: a cycle after it takes it (its request stage), with
    // the channel's MODE and PROC / ADDR as they were when it was taken
    wire [C*DW-1:0] f_ch_sh = f_ch_ridx >> ({2'd0, bus_req_pe} * DW);  // the requesting channel's PROC, ADDR
    reg           h_v = 1'b0, h_call = 1'b0, h_we = 1'b0, h_sup = 1'b0;
    reg [5:0]     h_pe = 6'd0;
    reg [11:0]    h_addr = 12'd0;
    reg [DW-1:0]  h_ridx = {DW{1'b0}};
    always @(posedge clk) begin
        h_v <= !rst && bus_req_valid && bus_req_ready;
        if (bus_req_valid && bus_req_ready) begin
            h_call <= bus_req_call; h_we <= bus_req_we; h_sup <= f_sup_p; h_pe <= bus_req_pe;
            h_addr <= bus_req_addr[11:0]; h_ridx <= f_ch_sh[DW-1:0];
        end
    end
    wire          take  = h_v && h_pe < C6;
    wire          start = take && h_call && h_we && h_addr != R_CANCEL;
    wire          brk   = take && !h_call && h_we && h_addr == R_LOCK && h_sup;
    wire [C-1:0]  waiting = f_rx_v & ~f_rx_srv;   // DATA_RDY, not yet served
    wire [C-1:0]  lead1 = {{(C-1){1'b0}}, 1'b1} << f_lead;
    wire [C-1:0]  pick1 = {{(C-1){1'b0}}, 1'b1} << f_pick;
    wire [C-1:0]  ptr_lo = ({{(C-1){1'b0}}, 1'b1} << f_ptr) - {{(C-1){1'b0}}, 1'b1};

    reg           init = 1'b1, p_rst = 1'b1;
    reg [6:0]     s_op   [0:C-1];    // the harness's record of each channel's buffered command
    reg [DW-1:0]  s_ridx [0:C-1];
    reg           h_lock = 1'b0;     // the lock, as the bus sees it
    reg [5:0]     h_lch = 6'd0;
    reg [1:0]     cnt [0:C-1];       // steps whose snapshot held c without picking it
    reg           p_idle = 1'b0, p_hold = 1'b0, p_lock = 1'b0;
    reg [5:0]     p_lch = 6'd0;
    reg [C-1:0]   p_waiting = {C{1'b0}};
    reg [DW-1:0]  sa = {DW{1'b0}};   // (r2) the symbolic address: one word, any, fixed after the first cycle
    reg [63:0]    sw = 64'd0;        // (r2) its shadow: the word then, and after that the writes the core makes
    integer k;
    initial for (k = 0; k < C; k = k + 1) cnt[k] = 2'd0;
    always @(posedge clk) begin
        init <= 1'b0;
        p_rst <= rst;
        p_idle <= f_st == S_IDLE; p_hold <= f_hold; p_lock <= f_lock_held; p_lch <= f_lock_ch;
        p_waiting <= waiting;
        if (init) begin
            sa <= sym_sa; sw <= f_dram[sym_sa*64 +: 64];
        end else if (f_ram_we && f_ram_idx == sa) sw <= f_ram_wd;
        for (k = 0; k < C; k = k + 1)
            if (start && h_pe == k && !f_rx_v[k]) begin
                s_op[k] <= h_addr[10:4]; s_ridx[k] <= h_ridx;
            end
        if (rst) begin
            h_lock <= 1'b0; h_lch <= 6'd0;
        end else begin
            for (k = 0; k < C; k = k + 1)
                if (f_st == S_EXEC && f_lead == k && f_pl_ok[k]) begin
                    if (s_op[k] == OP_LOCK) begin h_lock <= 1'b1; h_lch <= k; end
                    if (s_op[k] == OP_UNLOCK) h_lock <= 1'b0;
                end
            if (brk) h_lock <= 1'b0;
        end
        for (k = 0; k < C; k = k + 1)
            if (rst || !waiting[k]) cnt[k] <= 2'd0;
            else if (f_st == S_PICK && f_snap[k]) cnt[k] <= (f_pick == k) ? 2'd0 : cnt[k] + 2'd1;
    end

    reg [C-1:0] wrop;   // channels whose recorded command writes the Data RAM
    reg [C-1:0] rdop;   // ... reads it (its reply is the word), and of these the 64-bit ones
    reg [C-1:0] rd64;
    integer q;
    always @* for (q = 0; q < C; q = q + 1) begin
        wrop[q] = s_op[q] == OP_WSRAM32 || s_op[q] == OP_WSRAM64 || s_op[q] == OP_RMW32 || s_op[q] == OP_RMW64;
        rdop[q] = s_op[q] == OP_RSRAM32 || s_op[q] == OP_RSRAM64 || s_op[q] == OP_RMW32 || s_op[q] == OP_RMW64;
        rd64[q] = s_op[q] == OP_RSRAM64 || s_op[q] == OP_RMW64;
    end

    integer c;
    always @* begin
        if (init) assume(rst);
        // the shadow is the RAM's word (in rst too: the RAM is not cleared, and EXEC may write it then)
        if (!init && PROPS[3] && PROPS[4]) assert(f_dram[sa*64 +: 64] == sw);
        if (!init && !rst) begin
            // (r1) no RAM write outside the issuer's process
            if (PROPS[0] && f_ram_we) begin
                assert(f_pl_ok != {C{1'b0}} && (f_pl_ok & (f_pl_ok - {{(C-1){1'b0}}, 1'b1})) == {C{1'b0}});
                for (c = 0; c < C; c = c + 1)
                    if (f_pl_ok[c]) assert(f_rx_v[c] && wrop[c] && f_ram_idx == s_ridx[c]);
            end
            // (r2) a RAM read returns the word of the issuer's process (RMW: before the modify)
            if (PROPS[4])
                for (c = 0; c < C; c = c + 1)
                    if (f_st == S_EXEC && f_lead == c && f_pl_ok[c] && rdop[c] && s_ridx[c] == sa)
                        assert(f_pl_data == (rd64[c] ? sw : {32'd0, sw[31:0]}));
            // (l1) nothing else served while a channel holds the lock
            if (PROPS[1] && h_lock) begin
                if (f_st == S_PICK) assert((f_snap & ~({{(C-1){1'b0}}, 1'b1} << h_lch)) == {C{1'b0}} &&
                                           f_pick == h_lch);
                if (f_st == S_LEAD || f_st == S_GROUP || f_st == S_EXEC) assert(f_lead == h_lch);
                if (f_st == S_EXEC) assert((f_grp & ~({{(C-1){1'b0}}, 1'b1} << h_lch)) == {C{1'b0}});
            end
            // (f1) an unlocked ready channel is served within C steps
            if (PROPS[2]) begin
                for (c = 0; c < C; c = c + 1) begin
                    // (i) found waiting and eligible by IDLE: in the step's snapshot
                    if (!p_rst && p_idle && p_waiting[c] && !p_hold && (!p_lock || p_lch == c))
                        assert(f_st == S_PICK && f_snap[c]);
                    // (ii) the C-th step whose snapshot holds c picks it
                    if (f_st == S_PICK && f_snap[c] && cnt[c] == C - 1) assert(f_pick == c);
                    assert(cnt[c] <= C - 1);
                end
            end
            // the invariants (bit 3)
            if (PROPS[3]) begin
                // the controller: the pointer and the leader are channels; PICK's snapshot is
                // nonempty, waiting and split at the pointer; from LEAD to EXEC the leader's buffer
                // is valid, the pointer just past it, the latched opcode decoded and without X
                // (UP = 0 refuses X: NOUP), and no entry is at level 2
                assert(f_ptr < C6 && (f_rx_x & f_rx_v) == {C{1'b0}} && !f_u_on);
                if (f_st == S_PICK)
                    assert(f_snap != {C{1'b0}} && (f_snap & ~waiting) == {C{1'b0}} && f_snap_hi == (f_snap & ~ptr_lo));
                if (f_st == S_LEAD || f_st == S_GROUP || f_st == S_EXEC)
                    assert(f_lead < C6 && (f_rx_v & lead1) != {C{1'b0}} &&
                           f_ptr == ((f_lead == C6 - 6'd1) ? 6'd0 : f_lead + 6'd1));
                if (f_st == S_GROUP || f_st == S_EXEC) assert(f_l_dec == cop_dec(f_l_op) && !f_l_x);
                // the lock: its holder is a channel, the pointer just past it, PICK picks only it
                if (f_lock_held) begin
                    assert(f_lock_ch < C6 && f_ptr == ((f_lock_ch == C6 - 6'd1) ? 6'd0 : f_lock_ch + 6'd1));
                    if (f_st == S_PICK) assert((f_snap & ~({{(C-1){1'b0}}, 1'b1} << f_lock_ch)) == {C{1'b0}});
                end
                // the harness's records: the buffers hold them, the leader's latched command is its buffer's
                if (PROPS[0] || PROPS[1] || PROPS[4]) begin
                    for (c = 0; c < C; c = c + 1)
                        if (f_rx_v[c]) assert(f_rx_op[c*7 +: 7] == s_op[c] && f_rx_ridx[c*DW +: DW] == s_ridx[c]);
                    if (f_st == S_GROUP || f_st == S_EXEC)
                        for (c = 0; c < C; c = c + 1)
                            if (f_lead == c) assert(f_l_op == s_op[c] && f_l_ridx == s_ridx[c]);
                end
                // the lock as the bus sees it is the core's
                if (PROPS[1]) begin
                    assert(f_lock_held == h_lock && h_lch < C6);
                    if (h_lock) assert(f_lock_ch == h_lch);
                end
                // a waiting channel's count plus its distance from the pointer is at most C - 1; one
                // that waits with a count but is not in PICK's snapshot was kept out by a lock, so
                // the pick is the holder and the pointer stays where it is (just past it)
                if (PROPS[2])
                    for (c = 0; c < C; c = c + 1) begin
                        if (waiting[c]) assert({4'd0, cnt[c]} + ((c >= f_ptr) ? c - f_ptr : c + C6 - f_ptr) <= C6 - 6'd1);
                        if (f_st == S_PICK && waiting[c] && !f_snap[c] && cnt[c] != 2'd0)
                            assert(f_ptr == ((f_pick == C6 - 6'd1) ? 6'd0 : f_pick + 6'd1));
                    end
            end
`ifdef REACH_RAM
            // cover: a RAM write while the other channel's process is another (must FAIL)
            if (f_ram_we) for (c = 0; c < C; c = c + 1)
                if (!f_pl_ok[c]) assert(f_ch_ridx[c*DW + 1 +: 2] == f_ram_idx[2:1]);
`endif
`ifdef REACH_RAMRD
            // cover: a read of the tracked word returns a value other than zero while the word of
            // the same ADDR in another process (PPN, PID) holds another (must FAIL)
            for (c = 0; c < C; c = c + 1)
                if (f_pl_ok[c] && rdop[c] && s_ridx[c] == sa && sw != 64'd0)
                    assert(f_dram[(sa ^ 3'b110)*64 +: 64] == sw);
`endif
`ifdef REACH_LOCK
            // cover: a step picked while the lock is held and another channel waits (must FAIL)
            assert(!(h_lock && f_st == S_PICK && (waiting & ~({{(C-1){1'b0}}, 1'b1} << h_lch)) != {C{1'b0}}));
`endif
`ifdef REACH_FAIR
            // cover: c in a snapshot for the C-th time (must FAIL: the bound C is reached)
            for (c = 0; c < C; c = c + 1) assert(!(f_st == S_PICK && f_snap[c] && cnt[c] == C - 1));
`endif
        end
    end
    wire f_unused = &{1'b0, bus_req_ready, bus_rsp_valid, bus_rsp_rdata, bus_rsp_rdata_hi, bus_rsp_err, bus_rsp_len,
                      bus_req_size, bus_req_wdata, bus_req_wdata_hi, bus_req_len};
`endif
endmodule
`default_nettype wire
