`default_nettype none
// cop_core: Hall's coordination processor (seed 004, chapter IV: the COP to
// network interface, figures 15-22, Table I) as an engine bus slave with C
// channels, one per PE (PE p = channel p).  The float opcodes run on the
// units of rtl/fpu/ (EN_FPU = 1; 0 refuses them NOFPU).  UP = 1 makes it
// a level 1 COP under a level 2 one (the X bit; docs/cop.md "Two levels"),
// UP = 0 refuses X NOUP; DOWN = 1 makes it a level 2 COP that reads its
// level 1 cores' exact sums (EXMRG), DOWN = 0 refuses EXMRG NODOWN.
// The tables (opcodes, instruction word, causes, registers) are generated
// by tools/copgen.py into cop_regs.vh; docs/cop_regmap.md lists them and
// docs/cop.md says what the COP does and where it departs from the seed.
//
// Bus (docs/link.md, "The engine register bus"; the CALL ports of rule 8):
//   a request taken in cycle t is decided and applied in cycle t+1 (the
//   bus side's two stages, below) and answered in cycle t+2 (bus_rsp_valid
//   high for one cycle; rdata, rdata_hi, len and err 0 while it is low);
//   bus_req_ready is low in rst and in cycle t+1, so the core takes at most
//   one request every other cycle.  addr[15:12] is the hub's
//   window decode and is ignored; bus_req_pe >= C has no registers (NO_REG).
//   Plain READ/WRITE reach the registers of cop_regs.vh (R_*), as the PE's
//   own channel.  A CALL access reaches R_CALL_BASE | opcode << 4 |
//   MASK << 3 | X << 2: its start (write) carries the operand (bus_req_len
//   bytes, bits 63..32 in bus_req_wdata_hi) and is refused at once (err 2,
//   cause in CAUSE) or answered PENDING (err 3) with the command in the
//   channel's receive buffer (DATA_RDY); an ask (read) is PENDING until the
//   reply slot holds the result, which it hands over once (err 0, result in
//   rdata/rdata_hi, bus_rsp_len its bytes) or refuses (err 2, cause).
//   XMIT, ACK and RECV are answered by the bus side (a RECV's start or ask
//   finishes when the channel's mailbox holds a delivery).  CANCEL (a CALL
//   start to R_CANCEL, docs/link.md rule 8) finishes at its start with its
//   outcome: NONE, WITHDRAWN (the command leaves its buffer, and a
//   contribution served into an open round sets its TC bit again; a
//   pending RECV ends), FINISHED (the reply is dropped, a result kept for
//   XMIT) or RUNNING (the controller uses the command in this cycle: eng).
//
// Controller (figure 22), one service step at a time (timing in cycles):
//   IDLE   snapshot of the ready channels (DATA_RDY, not yet served, and
//          only the lock holder while a lock is held; nothing while HOLD)
//   PICK   round robin: the first ready channel at or after the pointer
//          is the leader (the pointer then moves past it)
//   LEAD   the leader's command is latched and decoded
//   GROUP  for a collective opcode (barrier, reduction, scan) every ready
//          channel with the leader's key {PPN, PID, MASK}, opcode and
//          address joins the step (departure: the seed serves one channel
//          per step); the key's mask / TC row and the Data RAM word are read
//   EXEC   the step's effect (RAM write, lock, mask / TC write, mailbox
//          deliveries, TC bits cleared); replies placed in the reply slots
//   TREE   a reduction round that completed: the members' operands, held
//          in their receive buffers, go through a registered binary tree of
//          the ALU (log2 of C rounded up, plus one, cycles), then the result
//          is placed in every member's reply slot
//   SCAN   a prefix round that completed: one member per cycle in channel
//          order
//   FADD   a completed SUMF: fpu_add64 adds the members' terms in channel
//          order, one dependent add at a time (M = 1: 2 cycles, else
//          3 + 6 (M - 1): the adder's second operand comes from a register,
//          op_r, loaded a cycle ahead); a prefix sum of doubles (SCANIF,
//          SCANXF) the same, placing the lowest member's reply in its second
//          cycle (from facc, which took the term in the first) and each
//          next member's when its add is done (FPUT then places nothing)
//   FEX    a completed EXSUMF: fpu_exact_acc takes channel i's term in cycle
//          i (members only), ROUND_CLEAR in cycle C, the result is held by
//          cycle C + 45 (the ROUND's worst case: the timing is data-free;
//          the accumulator takes each command a cycle after it is issued);
//          with X (UP = 1) a ROUND instead, so the accumulator keeps its
//          exact value for level 2 to read (ex_*) until the answer comes
//          down, then a CLEAR.  A completed EXMRG (DOWN = 1): word w of
//          channel i's level 1 export is read (xp_*) in cycle 34 i + w and
//          issued to merge in the next (members only; the accumulator takes
//          it a clock later), ROUND_CLEAR after the last,
//          FPUT when the result is out.  A completed EXSCANIF / EXSCANXF:
//          48 cycles per member in channel order (fnx): ADD its term in
//          cycle 0 and ROUND in 1 (exclusive: ROUND in 0, ADD in 47), its
//          reply (the ROUND's result) placed in cycle 47; CLEAR in FPUT
//   FPUT   the float result is placed in every member's reply slot
//   MAXF / MINF go through TREE, the integer tree's signed maximum or
//   minimum on the members' order keys (rtl/fpu/fpu_key.vh, the order of
//   fpu_minmax64; a NaN member's key wins, the root's key is decoded).
//   UP     (UP = 1) an entry for level 2 is offered on up_* until up_ready:
//          a single command with X from EXEC, a completed X round's
//          combined value from EXEC (barrier), TREE, SCAN or FPUT instead of
//          placing it.  From up_ready until level 2's answer is taken (dn_*,
//          in IDLE) the entry is at level 2 (u_on): its members (u_mem) are
//          RUNNING for CANCEL and get that answer as their reply; the other
//          X commands are not ready meanwhile (one entry at a time).  A
//          prefix sum with X runs SCAN twice: the first run places nothing
//          and sends the members' total up as level 2's exclusive prefix
//          sum (SCANX of its width); level 2's answer, this core's offset,
//          starts the second run, which places the members' sums from it.
//          An EXSUMF with X goes up as EXMRG (no operand): level 2 reads
//          this core's accumulator over ex_* and answers the rounded exact
//          sum of the whole tree; meanwhile this core's other EXSUMF rounds
//          are not ready (the accumulator holds the export).
//   A completed barrier's exit is placed in EXEC.  Replies are visible in
//   the cycle after they are placed.
//   idle: no request is staged, no withdrawn contribution's TC bit is
//   pending (below) and the controller is in IDLE with nothing to serve
//   (no ready channel, or HOLD): until a bus request (or, with
//   UP = 1, level 2's answer on dn_*) nothing in the core changes, so a
//   simulation may stop its clock (cop_slot's busy is !idle).  make formal
//   proves it (the cop_core_props header, p6).
//
// Mask / terminal count (figures 16-17): a table keyed by {PPN, PID, MASK}
// holds the broadcast mask, the TC vector (the template) and the working
// vector of the open round with its opcode and address (fixed by the first
// contribution; a different one is refused MISMATCH).  A round completes
// when the working vector is zero; it is then re-armed from the template
// (departure: the seed writes zero back).  A SETBM or SETTC for a key
// whose round is open ends it: every member that waits in it is refused
// ABORTED.
//
// Parameters (illegal values fail elaboration):
//   C       2..64 channels
//   PPN_W   1..4 PPN bits the tables index (PROC refuses larger PPNs)
//   PID_W   1..8 PID bits the tables index (PROC refuses larger PIDs)
//   RA_W    1..12 Data RAM address bits per process (ADDR refuses more)
//           PPN_W + PID_W <= 5 (key table rows), PPN_W + PID_W + RA_W <= 14
//   MB      1..4 mailbox entries per channel
//   EN_FPU  1: the float opcodes on rtl/fpu/; 0: refused NOFPU (no FPU logic)
//   UP      1: a level 1 COP with the up / down ports and the export port
//           ex_*; 0: X refused NOUP (the ports idle); X on SCANIF,
//           SCANXF, EXSCANIF, EXSCANXF, EXMRG, XMIT or ACK is refused XOP
//   DOWN    1: a level 2 COP whose channel i is level 1 core i's link: EXMRG
//           reads that core's export over xp_*; 0: EXMRG refused NODOWN
//   KEY     the MODE value that makes a channel supervisor
`include "bus_ports.vh"
module cop_core #(
    parameter integer C      = 4,
    parameter integer PPN_W  = 2,
    parameter integer PID_W  = 2,
    parameter integer RA_W   = 4,
    parameter integer MB     = 2,
    parameter integer EN_FPU = 1,
    parameter integer UP     = 0,
    parameter integer DOWN   = 0,
    parameter [31:0]  KEY    = 32'h434F_5053
) (
    input  wire        clk,
    input  wire        rst,
    `AGGNET_BUS_SLAVE,      // the engine bus (rtl/bus/bus_ports.vh)
    `AGGNET_BUS_CALL_SLAVE, // and its CALL ports
    // the up and down ports to a level 2 COP (UP = 1; with UP = 0 up_valid
    // and dn_ready stay low and the dn_ inputs are never taken)
    output wire        up_valid,   // an entry for level 2, held until up_ready
    input  wire        up_ready,
    output wire [6:0]  up_op,      // its opcode (the X bit is level 1's: level 2 gets none)
    output wire        up_mask,
    output wire        up_us,      // U/S of the leader's instruction word
    output wire [3:0]  up_ppn,     // zero-extended PPN and PID of its process
    output wire [7:0]  up_pid,
    output wire [11:0] up_addr,    // its ADDR (a collective's round tag), zero-extended
    output wire [63:0] up_data,    // its operand: a single command's, a round's combined value
    output wire [3:0]  up_len,     // operand bytes (the opcode's: 0, 4 or 8)
    output wire        up_wd,      // withdraw the entry at level 2 (UPLINK written), until its answer comes
    input  wire        dn_valid,   // level 2's answer to the entry, held until dn_ready
    output wire        dn_ready,
    input  wire        dn_err,     // refused, with dn_cause
    input  wire [7:0]  dn_cause,
    input  wire [63:0] dn_data,    // the result, dn_len bytes (0, 4 or 8)
    input  wire [3:0]  dn_len,
    // the exact sum's export (UP = 1): one edge after ex_idx, word ex_idx of this core's
    // accumulator (fpu_exact_acc's rd_*: limbs 0..32, the flag word 33); 0 with UP = 0
    input  wire [5:0]  ex_idx,
    output wire [63:0] ex_data,
    // the level 1 exports (DOWN = 1): xp_data must be, one edge after xp_ch and xp_idx, word
    // xp_idx of the export of the level 1 core behind channel xp_ch (cop_tree wires it);
    // xp_ch and xp_idx are 0 with DOWN = 0, and xp_data is then never used
    output wire [5:0]  xp_ch,
    output wire [5:0]  xp_idx,
    input  wire [63:0] xp_data,
    output wire        idle        // nothing changes without a request or dn_valid (above)
`ifdef FORMAL
    ,
    output wire [C-1:0] f_rx_v,
    output wire [C-1:0] f_rx_srv,
    output wire [C-1:0] f_rp_v,
    output wire [C-1:0] f_rp_err,
    output wire [C-1:0] f_sup,
    output wire [3:0]   f_st,
    output wire [C-1:0] f_pl_ok,
    output wire [C-1:0] f_clr,
    output wire [C-1:0] f_work0,
    output wire [C-1:0] f_tmpl0,
    output wire [C-1:0] f_bm0,
    output wire         f_open0,
    output wire         f_lead_us,     // the leader's instruction word has U/S = supervisor
    output wire         f_lead_set,    // the leader's opcode is SETBM or SETTC
    output wire         f_rx_priv_ok,  // every buffered supervisor opcode came with U/S = supervisor
    output wire [C-1:0] f_coll,        // channels whose buffered command is collective
    output wire         f_complete,    // a collective round completes in this cycle (or its result goes out)
    output wire [C-1:0] f_wd0,         // a CANCEL withdraws these channels' served contributions to key 0
    output wire         f_exec0,       // an EXEC step for key 0 (the only step that clears its TC bits)
    output wire [C-1:0] f_rx_x,        // buffered commands with X
    output wire [C-1:0] f_snap,        // the controller's snapshot (PICK)
    output wire         f_lead_x,      // the leader's buffered command has X
    output wire         f_l_x,         // the latched leader's X
    output wire         f_u_on,        // an entry is at level 2
    // rtl/cop/cop_serve_props.v: the Data RAM, the lock and the round robin
    output wire         f_ram_we,      // the Data RAM is written in this cycle ...
    output wire [PPN_W+PID_W+RA_W-1:0] f_ram_idx,    // ... at this index {PPN, PID, ADDR}
    output wire [63:0]  f_ram_wd,      // ... with this word
    output wire [(64 << (PPN_W+PID_W+RA_W))-1:0] f_dram,  // the Data RAM, word i at [i*64 +: 64]
    output wire [63:0]  f_pl_data,     // the result placed in the f_pl_ok channels' reply slots
    output wire [PPN_W+PID_W+RA_W-1:0] f_l_ridx,     // the latched leader's {PPN, PID, ADDR}
    output wire [6:0]   f_l_op,        // the latched leader's opcode
    output wire [18:0]  f_l_dec,       // and its decode
    output wire [C*7-1:0] f_rx_op,     // channel c's buffered opcode at [c*7 +: 7]
    output wire [C*(PPN_W+PID_W+RA_W)-1:0] f_rx_ridx,  // channel c's buffered {PPN, PID, ADDR}
    output wire [C*(PPN_W+PID_W+RA_W)-1:0] f_ch_ridx,  // channel c's PROC and ADDR registers now
    output wire [5:0]   f_lead,        // the leader (zero-extended)
    output wire [5:0]   f_ptr,         // the round-robin pointer
    output wire [5:0]   f_pick,        // PICK's choice
    output wire [C-1:0] f_snap_hi,     // the snapshot's channels at or after the pointer
    output wire [C-1:0] f_grp,         // the step's group (EXEC)
    output wire         f_lock_held,
    output wire [5:0]   f_lock_ch,
    output wire         f_hold
`endif
);
    generate
        if (C < 2 || C > 64) begin : g_bad_c
            $error("cop_core: C must be in 2..64");
        end
        if (PPN_W < 1 || PPN_W > 4) begin : g_bad_ppn
            $error("cop_core: PPN_W must be in 1..4");
        end
        if (PID_W < 1 || PID_W > 8) begin : g_bad_pid
            $error("cop_core: PID_W must be in 1..8");
        end
        if (RA_W < 1 || RA_W > 12) begin : g_bad_ra
            $error("cop_core: RA_W must be in 1..12");
        end
        if (PPN_W + PID_W > 5) begin : g_bad_key
            $error("cop_core: PPN_W + PID_W must be at most 5 (the key table holds 2^(PPN_W+PID_W+1) rows)");
        end
        if (PPN_W + PID_W + RA_W > 14) begin : g_bad_ram
            $error("cop_core: PPN_W + PID_W + RA_W must be at most 14 (the Data RAM's index)");
        end
        if (MB < 1 || MB > 4) begin : g_bad_mb
            $error("cop_core: MB must be in 1..4");
        end
        if (EN_FPU < 0 || EN_FPU > 1) begin : g_bad_fpu
            $error("cop_core: EN_FPU must be 0 or 1");
        end
        if (UP < 0 || UP > 1) begin : g_bad_up
            $error("cop_core: UP must be 0 or 1");
        end
        if (DOWN < 0 || DOWN > 1) begin : g_bad_down
            $error("cop_core: DOWN must be 0 or 1");
        end
    endgenerate

`include "cop_regs.vh"
`include "bus_codes.vh"

    localparam integer CW    = (C <= 2) ? 1 : (C <= 4) ? 2 : (C <= 8) ? 3 : (C <= 16) ? 4 : (C <= 32) ? 5 : 6;
    localparam integer P2    = 1 << CW;             // tree leaves
    localparam integer KW    = PPN_W + PID_W + 1;   // key {PPN, PID, MASK}
    localparam integer KEYS  = 1 << KW;
    localparam integer DW    = PPN_W + PID_W + RA_W; // Data RAM index {PPN, PID, ADDR}
    localparam integer DEPTH = 1 << DW;
    localparam [1:0] E_OK = LINK_BUS_OK, E_NOREG = LINK_BUS_NO_REG, E_REF = LINK_BUS_REFUSED,
                     E_PEND = LINK_BUS_PENDING;
    localparam [3:0] S_IDLE = 4'd0, S_PICK = 4'd1, S_LEAD = 4'd2, S_GROUP = 4'd3, S_EXEC = 4'd4,
                     S_TREE = 4'd5, S_SCAN = 4'd6, S_FADD = 4'd7, S_FEX = 4'd8, S_FPUT = 4'd9,
                     S_UP = 4'd10;
    localparam [63:0] F_QNAN = 64'h7FF8_0000_0000_0000;
    // EXSUMF: fpu_exact_acc's ROUND answers at most EX_RND cycles after the
    // cycle that issued it: a clock in the command register (ex_*_q, below),
    // its 43 edges (its header), a clock into facc
    localparam integer EX_RND = 45;
    localparam integer FEX_END_I = C + EX_RND;
    localparam [7:0] FEX_END = FEX_END_I[7:0];
    // EXSCANIF / EXSCANXF: per member, ADD (cycle 0) and ROUND (1), or ROUND (0) and ADD (XS_LAST),
    // and the reply in cycle XS_LAST, when the ROUND's result is in facc: XS_LAST + 1 = EX_RND + 3 (48)
    localparam integer XS_LAST_I = EX_RND + 2;
    localparam [7:0] XS_LAST = XS_LAST_I[7:0];
    localparam integer C_I = C, PPN_I = PPN_W, PID_I = PID_W, RA_I = RA_W, MB_I = MB, FPU_I = EN_FPU;
    localparam [7:0] C8 = C_I[7:0];
    localparam integer UP_I = UP, DOWN_I = DOWN;
    localparam [31:0] CONFIG = {7'd0, DOWN_I[0], UP_I[0], MB_I[2:0], RA_I[3:0], PID_I[3:0], PPN_I[3:0], FPU_I[0], C_I[6:0]};
    localparam [63:0] CHAN_ALL = (C == 64) ? {64{1'b1}} : ((64'd1 << C) - 64'd1);
    localparam integer CW_I = CW;
    localparam [CW:0] TREE_DONE = CW_I[CW:0];  // leaves valid in EXEC, one tree level per cycle after
    localparam integer CLAST_I = C - 1;
    localparam [CW-1:0] CLAST = CLAST_I[CW-1:0];
    localparam [2:0] MB3 = MB_I[2:0];

    // ---- per-channel state -------------------------------------------------------
    reg [C-1:0]     rx_v, rx_srv, rp_v, rp_err, recv_w, last_v, sup;
    reg [C-1:0]     rx_x;  // the buffered command has the X bit (UP = 1): it goes on to level 2
    reg [C-1:0]     rx_exs; // the buffered command is an EXSUMF (it waits while an export is at level 2)
    reg             u_on;   // an entry of this core is at level 2 (UP = 1; below)
    reg             u_wd;   // a supervisor asked (UPLINK) that it be withdrawn there
    reg [C-1:0]     eng;   // commands the controller's step (or a completed round) is using: CANCEL says RUNNING
    reg [6:0]       rx_op   [0:C-1];
    reg             rx_mask [0:C-1];
    reg [PPN_W-1:0] rx_ppn  [0:C-1];
    reg [PID_W-1:0] rx_pid  [0:C-1];
    reg [RA_W-1:0]  rx_addr [0:C-1];
    reg [63:0]      rx_data [0:C-1];
    reg [63:0]      rp_data [0:C-1];
    reg [1:0]       rp_len  [0:C-1];   // byte counts 0, 4, 8 kept as codes 0, 1, 2 (lcode / ldec)
    reg [7:0]       rp_cause[0:C-1];
    reg [63:0]      last_data [0:C-1];
    reg [1:0]       last_len  [0:C-1];
    reg [PPN_W-1:0] pr_ppn  [0:C-1];
    reg [PID_W-1:0] pr_pid  [0:C-1];
    reg [RA_W-1:0]  ch_addr [0:C-1];
    reg [14:0]      cause   [0:C-1];
    reg [31:0]      instr   [0:C-1];
    reg [2:0]       mb_cnt  [0:C-1];
    // each channel's mailbox is a ring of MB words: mb_hd its head's word
    // (timing: a pop moves the head, so no word's enable waits for the
    // bus side's decision; a shift on pop made every word's enable that)
    reg [1:0]       mb_hd   [0:C-1];
    reg [63:0]      mb_data [0:C*MB-1];
    reg [1:0]       mb_len  [0:C*MB-1];
    // ---- the key table (figures 16-17) and globals -------------------------------
    reg [C-1:0]     tc_tmpl [0:KEYS-1];
    reg [C-1:0]     tc_work [0:KEYS-1];
    reg [C-1:0]     bmask   [0:KEYS-1];
    reg [KEYS-1:0]  r_open;
    reg [6:0]       r_op    [0:KEYS-1];
    reg [RA_W-1:0]  r_addr  [0:KEYS-1];
    reg [KEYS-1:0]  r_x;    // the open round's X bit (fixed by its first contribution, like its opcode)
    reg [31:0]      privcnt, errcnt;
    reg [6:0]       nref_q;     // refusals the controller placed in the last cycle, not yet in errcnt
    reg             bref_q;     // the bus side refused in the last cycle, not yet in errcnt (it
                                // decides at most every other cycle, so no ERRCNT read sees it pending)
    reg             wdp_v;      // a withdrawn contribution's TC bit is set again in this cycle ...
    reg [KW-1:0]    wdp_key;    // ... in this key's row
    reg [C-1:0]     wdp_one;    // ... for this channel
    reg             lock_held, hold;
    reg [CW-1:0]    lock_ch;
    // ---- the Data RAM: zero at configuration, not cleared by rst -----------------
    reg [63:0]      dram [0:DEPTH-1];
    reg [63:0]      ram_q;
    integer ri;
    initial for (ri = 0; ri < DEPTH; ri = ri + 1) dram[ri] = 64'd0;

    // ---- the ALU (figure 18) of the tree ---------------------------------------------
    // MAX and MIN share one signed compare, made of two 32-bit halves side by
    // side (a shorter carry chain than one of 64 bits), and the select is one
    // level behind it: pick_b then b or a per bit, the other functions beside
    // it (timing: two compares and a case of six behind them were one tree
    // level's critical path).  With a == b MAX and MIN pick either: the same value.
    function automatic [63:0] alu(input [2:0] fn, input [63:0] a, input [63:0] b);
        reg        lt, pick_b, mm;
        reg [63:0] other;
        begin
            lt = ($signed(a[63:32]) < $signed(b[63:32])) || (a[63:32] == b[63:32] && a[31:0] < b[31:0]);
            pick_b = (fn == FN_MAX) ? lt : !lt;   // MAX: b when a < b; MIN: b unless a < b
            mm = fn == FN_MAX || fn == FN_MIN;
            case (fn)
                FN_SUM:  other = a + b;
                FN_OR:   other = a | b;
                FN_AND:  other = a & b;
                default: other = a ^ b;
            endcase
            alu = mm ? (pick_b ? b : a) : other;
        end
    endfunction
    function automatic [63:0] ident(input [2:0] fn);
        begin
            case (fn)
                FN_MAX:  ident = 64'h8000_0000_0000_0000;
                FN_MIN:  ident = 64'h7FFF_FFFF_FFFF_FFFF;
                FN_AND:  ident = {64{1'b1}};
                default: ident = 64'd0;
            endcase
        end
    endfunction
    // an operand as the ALU takes it: a 32-bit one sign-extended (the low 32
    // bits of every function are then the 32-bit function's)
    function automatic [63:0] ext(input w64, input [63:0] v);
        begin
            ext = w64 ? v : {{32{v[31]}}, v[31:0]};
        end
    endfunction
    // MAXF / MINF on the same tree: a member's double as its order key
    // (fpu_key.vh; signed keys order the doubles as fpu_minmax64 does), a
    // NaN as the key that wins every comparison (the opposite function's
    // identity), so the root decodes to the one NaN if any member had one
`include "fpu_key.vh"
    function automatic [63:0] leaf(input flt, input [2:0] fn, input w64, input [63:0] v);
        begin
            if (!flt) leaf = ext(w64, v);
            else if (fpu_is_nan(v)) leaf = ~ident(fn);
            else leaf = fpu_okey(v);
        end
    endfunction

    // a double as placed: any NaN the canonical one (docs/fpu.md)
    function automatic [63:0] fcanon(input [63:0] v);
        begin
            fcanon = (v[62:52] == 11'h7FF && v[51:0] != 52'd0) ? F_QNAN : v;
        end
    endfunction
    // a channel vector, or a PPN / PID, zero-extended
    function automatic [63:0] zx(input [C-1:0] v);
        begin
            zx = 64'd0;
            zx[C-1:0] = v;
        end
    endfunction
    function automatic [31:0] proc_word(input [PPN_W-1:0] ppn, input [PID_W-1:0] pid);
        begin
            proc_word = 32'd0;
            proc_word[PPN_W-1:0] = ppn;
            proc_word[4 +: PID_W] = pid;
        end
    endfunction

    // a mailbox ring's next word, and its tail (the word after the count held)
    function automatic [1:0] mb_next(input [1:0] h);
        begin
            mb_next = ({1'b0, h} + 3'd1 == MB3) ? 2'd0 : h + 2'd1;
        end
    endfunction
    function automatic [2:0] mb_tail(input [1:0] h, input [2:0] n);
        reg [2:0] t;
        begin
            t = {1'b0, h} + n;
            mb_tail = (t >= MB3) ? t - MB3 : t;
        end
    endfunction

    // result byte counts (0, 4 or 8) as 2-bit codes, so a stored count never exceeds 8
    function automatic [1:0] lcode(input [3:2] len);
        begin
            lcode = {len[3], len[2] & ~len[3]};
        end
    endfunction
    function automatic [3:0] ldec(input [1:0] c);
        begin
            ldec = {c[1], c[0] & ~c[1], 2'b00};
        end
    endfunction

    // ==== the bus side ==================================================================
    // Two stages.  The request stage takes a request (one every other cycle:
    // ready is low while a request is staged) and looks up what only the bus
    // side writes: the PE's own registers (MODE, PROC, ADDR, CAUSE, INSTR,
    // the last reply), its buffered command's key, and the opcode's decode.
    // Nothing writes those between the lookup and the use (the bus side
    // writes them only in the decide stage, and the next request is taken a
    // cycle after it).  The decide stage, a cycle later, decides the access
    // from those and from the state the controller shares (the channel's
    // buffer and reply flags, the key rows, the mailbox, the lock) as it is
    // in that cycle, and applies it; the response is registered.  So the
    // core behaves as if the request had arrived a cycle later (the
    // reference model steps it then: tests/test_cop_core.cpp).
    reg            s_v;                 // a request is staged: decided and applied in this cycle
    reg            s_call, s_pe_ok, s_sup;
    reg [CW-1:0]   s_p;
    reg [11:0]     s_r;
    reg [31:0]     s_wd, s_wdhi;
    reg [PPN_W-1:0] s_ppn;
    reg [PID_W-1:0] s_pid;
    reg [RA_W-1:0] s_chaddr;
    assign bus_req_ready = !rst && !s_v;
    wire in_take = bus_req_valid && bus_req_ready;
    wire [CW-1:0] in_p = bus_req_pe[CW-1:0];
    wire take = s_v;
    wire [11:0] r = s_r;
    wire pe_ok = s_pe_ok;
    wire [CW-1:0] p = s_p;
    wire [6:0] c_op = r[10:4];
    wire [KW-1:0] p_key0 = {s_ppn, s_pid, 1'b0};
    wire [KW-1:0] p_key1 = {s_ppn, s_pid, 1'b1};
    wire [63:0] tmpl0 = zx(tc_tmpl[p_key0]), tmpl1 = zx(tc_tmpl[p_key1]);
    wire [63:0] wait0 = r_open[p_key0] ? zx(tc_work[p_key0]) : 64'd0;
    wire [63:0] wait1 = r_open[p_key1] ? zx(tc_work[p_key1]) : 64'd0;
    wire [63:0] bm0 = zx(bmask[p_key0]), bm1 = zx(bmask[p_key1]);
    localparam integer MBW = (C * MB <= 2) ? 1 : (C * MB <= 4) ? 2 : (C * MB <= 8) ? 3 : (C * MB <= 16) ? 4 :
                             (C * MB <= 32) ? 5 : (C * MB <= 64) ? 6 : (C * MB <= 128) ? 7 : 8;
    // channel p's head word: its ring's first word plus the head pointer, found
    // in the request stage (s_mbase; only the decide stage's pop moves a head)
    wire [8:0] mb_base9 = {{(9-CW){1'b0}}, in_p} * {6'd0, MB3} + {7'd0, mb_hd[in_p]};
    reg  [MBW-1:0] s_mbase;
    wire [MBW-1:0] mb_base = s_mbase;
    wire [31:0] p_proc = proc_word(s_ppn, s_pid);  // for INSTR (its low 12 bits)
    wire [7:0] lock_ch8 = {{(8-CW){1'b0}}, lock_ch};
    wire [63:0] mb_head = mb_data[mb_base];
    wire [3:0]  mb_hlen = ldec(mb_len[mb_base]);
    wire [1:0]  wc = s_wc;
    reg  [KW-1:0] p_rkey;  // the key of channel p's buffered command (looked up in the request stage)
    reg  [C-1:0]  p_one;
    always @(posedge clk) begin
        if (rst) s_v <= 1'b0;
        else s_v <= in_take;
        if (in_take) begin
            s_call <= bus_req_call; s_p <= in_p; s_r <= bus_req_addr[11:0];
            s_pe_ok <= CHAN_ALL[bus_req_pe];  // PE < C, as a table (a compare is a carry chain)
            s_wd <= bus_req_wdata; s_wdhi <= bus_req_wdata_hi;
            s_sup <= sup[in_p]; s_ppn <= pr_ppn[in_p]; s_pid <= pr_pid[in_p]; s_chaddr <= ch_addr[in_p];
            p_rkey <= {rx_ppn[in_p], rx_pid[in_p], rx_mask[in_p]};
            p_one <= {{(C-1){1'b0}}, 1'b1} << in_p;
            s_mbase <= mb_base9[MBW-1:0];
        end
    end

    // ---- the request stage's plan: everything that depends only on the request and the PE's
    // own registers (MODE, PROC, ADDR, CAUSE, INSTR, the last reply, PRIVCNT, HOLD) ----
    // s_cls: what the decide stage still has to look at (one-hot)
    localparam integer A_FIX = 0, A_START = 1, A_ASK = 2, A_CANCEL = 3, A_DREAD = 4;
    wire [31:0] in_wd = bus_req_wdata;
    wire [11:0] in_r = bus_req_addr[11:0];
    wire [18:0] in_dec = cop_dec(in_r[10:4]);
    wire [3:0]  in_kind = in_dec[3:0];
    wire        in_sup = sup[in_p];
    wire        in_lastv = last_v[in_p];
    wire [63:0] in_lastd = last_data[in_p];
    wire [1:0]  in_lastl = last_len[in_p];
    // a CALL start's refusal causes that follow BUSY, in their order (0: none)
    reg [7:0]  in_scause;
    always @* begin
        in_scause = 8'd0;
        if (bus_req_len != in_dec[11:8])                   in_scause = C_BADLEN;
        else if (in_dec[16] && !in_sup)                     in_scause = C_PRIV;
        else if (in_kind == K_FLT && EN_FPU == 0)           in_scause = C_NOFPU;
        else if (in_kind == K_FLT && in_dec[6:4] == 3'd6 && DOWN == 0) in_scause = C_NODOWN;
        else if (in_r[2] && UP == 0)                        in_scause = C_NOUP;
        else if (in_r[2] && (in_kind == K_XMIT || in_kind == K_ACK || (in_kind == K_FLT && in_dec[6])))
                                                             in_scause = C_XOP;
    end
    // the plan, registered as the request is taken
    reg [4:0]  s_cls;
    reg [1:0]  s_err;
    reg [31:0] s_rd, s_rdhi;
    reg [3:0]  s_alen;
    reg [7:0]  s_acause;
    reg        s_priv, s_recv, s_startp, s_mode, s_mode_v, s_proc, s_addr, s_lockbrk, s_hold, s_upwd;
    reg [1:0]  s_wc;     // the opcode's word count code (the instruction word's WC)
    always @(posedge clk) if (in_take) begin
        s_wc <= in_dec[18:17];
        s_cls <= 5'd1 << A_FIX;
        s_err <= E_OK; s_rd <= 32'd0; s_rdhi <= 32'd0; s_alen <= 4'd0; s_acause <= 8'd0; s_priv <= 1'b0;
        s_recv <= 1'b0; s_startp <= 1'b0;
        s_mode <= 1'b0; s_mode_v <= 1'b0; s_proc <= 1'b0; s_addr <= 1'b0; s_lockbrk <= 1'b0; s_hold <= 1'b0;
        s_upwd <= 1'b0;
        if (!CHAN_ALL[bus_req_pe]) begin
            s_err <= E_NOREG;
        end else if (bus_req_call && in_r == R_CANCEL) begin
            // CANCEL (docs/link.md rule 8): finishes at its start, no asks
            if (!bus_req_we) begin
                s_err <= E_NOREG;
            end else if (bus_req_len != 4'd0) begin
                s_err <= E_REF; s_acause <= C_BADLEN;
            end else begin
                s_cls <= 5'd1 << A_CANCEL;
            end
        end else if (bus_req_call) begin
            if (!in_r[11]) begin
                s_err <= E_NOREG;
            end else if (bus_req_we) begin
                // a CALL start: BADOP precedes BUSY (the decide stage's), the others follow it
                if (in_kind == K_NONE || in_r[1:0] != 2'd0) begin
                    s_err <= E_REF; s_acause <= C_BADOP;
                end else begin
                    s_cls <= 5'd1 << A_START;
                    s_acause <= in_scause; s_priv <= in_scause == C_PRIV;
                    if (in_scause != 8'd0) begin
                        s_err <= E_REF;
                    end else if (in_kind == K_ACK) begin
                        s_err <= E_OK;
                    end else if (in_kind == K_XMIT) begin
                        if (in_lastv) begin
                            s_rd <= in_lastd[31:0]; s_rdhi <= in_lastd[63:32]; s_alen <= ldec(in_lastl);
                        end else begin
                            s_err <= E_REF; s_acause <= C_NOREPLY;
                        end
                    end else if (in_kind == K_RECV && !in_r[2]) begin
                        s_recv <= 1'b1;
                    end else begin
                        s_startp <= 1'b1;
                    end
                end
            end else begin
                s_cls <= 5'd1 << A_ASK;
            end
        end else if (bus_req_we) begin
            case (in_r)
                R_MODE: begin
                    s_mode <= 1'b1;
                    s_mode_v <= in_wd == KEY;
                    if (in_wd != KEY && in_wd != 32'd0) begin s_err <= E_REF; s_acause <= C_KEY; end
                end
                R_PROC: begin
                    if (!in_sup) begin s_err <= E_REF; s_acause <= C_PRIV; s_priv <= 1'b1; end
                    else if ((in_wd[3:0] >> PPN_W) != 4'd0 || (in_wd[11:4] >> PID_W) != 8'd0 ||
                             in_wd[31:12] != 20'd0) begin s_err <= E_REF; s_acause <= C_RANGE; end
                    else s_proc <= 1'b1;
                end
                R_ADDR: begin
                    if ((in_wd >> RA_W) != 32'd0) begin s_err <= E_REF; s_acause <= C_RANGE; end
                    else s_addr <= 1'b1;
                end
                R_LOCK: begin
                    if (!in_sup) begin s_err <= E_REF; s_acause <= C_PRIV; s_priv <= 1'b1; end
                    else s_lockbrk <= 1'b1;
                end
                R_HOLD: begin
                    if (!in_sup) begin s_err <= E_REF; s_acause <= C_PRIV; s_priv <= 1'b1; end
                    else s_hold <= 1'b1;
                end
                R_UPLINK: begin
                    if (!in_sup) begin s_err <= E_REF; s_acause <= C_PRIV; s_priv <= 1'b1; end
                    else if (UP == 0) begin s_err <= E_REF; s_acause <= C_NOUP; end
                    else s_upwd <= 1'b1;
                end
                R_ID, R_CONFIG, R_CAUSE, R_STATUS, R_INSTR, R_WAIT0_LO, R_WAIT0_HI, R_WAIT1_LO, R_WAIT1_HI,
                R_TC0_LO, R_TC0_HI, R_TC1_LO, R_TC1_HI, R_BM0_LO, R_BM0_HI, R_BM1_LO, R_BM1_HI,
                R_PRIVCNT, R_ERRCNT: begin
                    s_err <= E_REF; s_acause <= C_RDONLY;
                end
                default: s_err <= E_NOREG;
            endcase
        end else begin
            case (in_r)
                R_ID:       s_rd <= 32'h434F_5001;
                R_CONFIG:   s_rd <= CONFIG;
                R_MODE:     s_rd <= {31'd0, in_sup};
                R_PROC:     s_rd <= proc_word(pr_ppn[in_p], pr_pid[in_p]);
                R_ADDR:     s_rd <= {{(32-RA_W){1'b0}}, ch_addr[in_p]};
                R_CAUSE:    s_rd <= {17'd0, cause[in_p]};
                R_INSTR:    s_rd <= instr[in_p];
                R_PRIVCNT:  s_rd <= privcnt;
                R_HOLD:     s_rd <= {31'd0, hold};
                R_UPLINK:   s_rd <= {30'd0, u_wd, u_on};
                R_STATUS, R_WAIT0_LO, R_WAIT0_HI, R_WAIT1_LO, R_WAIT1_HI, R_TC0_LO, R_TC0_HI, R_TC1_LO, R_TC1_HI,
                R_BM0_LO, R_BM0_HI, R_BM1_LO, R_BM1_HI, R_ERRCNT, R_LOCK:
                            s_cls <= 5'd1 << A_DREAD;   // what the controller also writes
                default:    s_err <= E_NOREG;
            endcase
        end
    end

    // ---- the decide stage: the plan against what the controller also writes, as it is now ----
    reg [1:0]  b_err;
    reg [31:0] b_rd, b_rdhi;
    reg [3:0]  b_len;
    reg [7:0]  b_cause;        // a refusal's cause (0: none)
    reg        b_priv;         // count in PRIVCNT
    reg        b_start;        // load the receive buffer
    reg        b_recv;         // set recv_w
    reg        b_pop;          // pop the mailbox head (handed over)
    reg        b_hand;         // hand the reply slot over
    reg        b_last;         // remember the value handed over (b_lastd, b_lastl) for XMIT
    reg        b_mode, b_mode_v, b_proc, b_addr, b_lockbrk, b_hold;
    reg        b_keep;         // CANCEL of a finished reply: it becomes the last reply (XMIT)
    reg        b_unrecv;       // CANCEL of a pending RECV
    reg        b_wd;           // CANCEL withdraws the command in the receive buffer
    // channel p's flags through its one-hot (p_one, registered with s_p): an AND-OR per flag
    // instead of a multiplexer on s_p, whose fan-out was the decide stage's critical path
    wire       p_rxv = |(rx_v & p_one), p_rpv = |(rp_v & p_one), p_rcw = |(recv_w & p_one);
    wire       p_rpe = |(rp_err & p_one), p_eng = |(eng & p_one), p_srv = |(rx_srv & p_one);
    reg  [C-1:0] mb_any;   // a channel's mailbox holds a delivery
    integer      ma;
    always @* for (ma = 0; ma < C; ma = ma + 1) mb_any[ma] = mb_cnt[ma] != 3'd0;
    wire       p_mbn = |(mb_any & p_one);
    // channel p's reply slot, the same way
    reg  [63:0] p_rpd;
    reg  [7:0]  p_rpc;
    reg  [1:0]  p_rpl;
    reg  [2:0]  p_mbc;
    always @* begin
        p_rpd = 64'd0; p_rpc = 8'd0; p_rpl = 2'd0; p_mbc = 3'd0;
        for (ma = 0; ma < C; ma = ma + 1) begin
            p_rpd = p_rpd | ({64{p_one[ma]}} & rp_data[ma]);
            p_rpc = p_rpc | ({8{p_one[ma]}} & rp_cause[ma]);
            p_rpl = p_rpl | ({2{p_one[ma]}} & rp_len[ma]);
            p_mbc = p_mbc | ({3{p_one[ma]}} & mb_cnt[ma]);
        end
    end
    wire       p_busy = p_rxv || p_rpv || p_rcw;
    // the last reply (XMIT) when b_last: a reply handed over or the mailbox's head, taken
    // straight from its slot rather than from the answer's multiplexer (timing)
    wire        l_from_rp = s_cls[A_ASK] && !p_rcw;
    wire [63:0] b_lastd = l_from_rp ? p_rpd : mb_head;
    wire [1:0]  b_lastl = l_from_rp ? p_rpl : mb_len[mb_base];
    always @* begin
        b_keep = 1'b0; b_unrecv = 1'b0; b_wd = 1'b0;
        b_err = s_err; b_rd = s_rd; b_rdhi = s_rdhi; b_len = s_alen; b_cause = s_acause; b_priv = s_priv;
        b_start = 1'b0; b_recv = 1'b0; b_pop = 1'b0; b_hand = 1'b0; b_last = 1'b0;
        b_mode = s_mode; b_mode_v = s_mode_v; b_proc = s_proc; b_addr = s_addr; b_lockbrk = s_lockbrk;
        b_hold = s_hold;
        if (s_cls[A_START]) begin
            if (p_busy) begin
                b_err = E_REF; b_cause = C_BUSY; b_priv = 1'b0; b_rd = 32'd0; b_rdhi = 32'd0; b_len = 4'd0;
            end else if (s_recv) begin
                if (p_mbn) begin
                    b_pop = 1'b1; b_last = 1'b1;
                    b_rd = mb_head[31:0]; b_rdhi = mb_head[63:32]; b_len = mb_hlen;
                end else begin
                    b_err = E_PEND; b_recv = 1'b1;
                end
            end else if (s_startp) begin
                b_err = E_PEND; b_start = 1'b1;
            end
        end else if (s_cls[A_ASK]) begin
            // a CALL ask
            if (p_rcw) begin
                if (p_mbn) begin
                    b_pop = 1'b1; b_last = 1'b1;
                    b_rd = mb_head[31:0]; b_rdhi = mb_head[63:32]; b_len = mb_hlen;
                end else begin
                    b_err = E_PEND;
                end
            end else if (p_rpv) begin
                b_hand = 1'b1;
                if (p_rpe) begin
                    b_err = E_REF; b_cause = p_rpc;
                end else begin
                    b_last = 1'b1;
                    b_rd = p_rpd[31:0]; b_rdhi = p_rpd[63:32]; b_len = ldec(p_rpl);
                end
            end else if (p_rxv) begin
                b_err = E_PEND;
            end else begin
                b_err = E_REF; b_cause = C_NOCALL;
            end
        end else if (s_cls[A_CANCEL]) begin
            b_len = 4'd4;
            if (p_rpv) begin
                b_hand = 1'b1; b_keep = !p_rpe;
                b_rd = {16'd0, p_rpc, 5'd0, p_rpe, CX_FINISHED};
            end else if (p_rcw) begin
                b_unrecv = 1'b1; b_rd = {30'd0, CX_WITHDRAWN};
            end else if (p_rxv && p_eng) begin
                b_rd = {30'd0, CX_RUNNING};
            end else if (p_rxv) begin
                b_wd = 1'b1; b_rd = {30'd0, CX_WITHDRAWN};
            end else begin
                b_rd = {30'd0, CX_NONE};
            end
        end else if (s_cls[A_DREAD]) begin
            case (r)
                R_STATUS:   b_rd = {21'd0, p_mbc, 2'd0, s_sup, lock_held && lock_ch == p, p_rcw, p_rpv, p_srv, p_rxv};
                R_WAIT0_LO: b_rd = wait0[31:0];
                R_WAIT0_HI: b_rd = wait0[63:32];
                R_WAIT1_LO: b_rd = wait1[31:0];
                R_WAIT1_HI: b_rd = wait1[63:32];
                R_TC0_LO:   b_rd = tmpl0[31:0];
                R_TC0_HI:   b_rd = tmpl0[63:32];
                R_TC1_LO:   b_rd = tmpl1[31:0];
                R_TC1_HI:   b_rd = tmpl1[63:32];
                R_BM0_LO:   b_rd = bm0[31:0];
                R_BM0_HI:   b_rd = bm0[63:32];
                R_BM1_LO:   b_rd = bm1[31:0];
                R_BM1_HI:   b_rd = bm1[63:32];
                R_ERRCNT:   b_rd = errcnt + {25'd0, nref_q};   // ERRCNT: with the refusals still pending
                default:    b_rd = {24'd0, lock_held, 1'b0, lock_ch8[5:0]};   // R_LOCK
            endcase
        end
    end

    // ==== the controller ===================================================================
    reg [3:0]      st;
    reg [CW-1:0]   ptr, lead;
    reg [C-1:0]    snap, snap_hi, grp;
    reg [6:0]      l_op;
    reg            l_mask, l_x;
    reg [PPN_W-1:0] l_ppn;
    reg [PID_W-1:0] l_pid;
    reg [RA_W-1:0] l_addr;
    reg [63:0]     l_data;
    reg [18:0]     l_dec;
    reg [C-1:0]    t_tmpl, t_work, t_bm;
    reg            t_open, t_full, t_diff;
    // the entry to level 2 (UP = 1): S_UP offers it; u_on from then until
    // level 2's answer is placed in the replies of u_mem (its members)
    reg [C-1:0]    u_mem;
    reg [63:0]     u_data;
    reg            u_us;
    // a prefix sum with X: its local sums wait for level 2's offset (the exclusive prefix of
    // this core's total over the cores), then SCAN runs again from it placing the replies
    reg            u_scan;   // the entry at level 2 is a prefix sum's total
    reg [6:0]      u_op;     // its opcode, for the second SCAN (the leader registers move on)
    reg            u_exm;    // the entry at level 2 is an exact sum: the accumulator holds its export
    reg            sc_dn;    // SCAN's second run, from level 2's offset: replies placed
    reg [CW:0]     tcnt;
    reg [CW-1:0]   scnt;
    reg [63:0]     sacc;
    reg [63:0]     tn [1:2*P2-1];
    // the FPU's sequencing (SUMF, EXSUMF) and its result
    reg [C-1:0]    frem;    // SUMF: members not yet added
    reg [CW-1:0]   fnx;     // lowest(frem), see op_q
    reg [1:0]      fph;     // SUMF: 0 first term, 3 op_r loads, 1 first add, 2 waiting for the adder
    reg [7:0]      fcnt;    // EXSUMF: cycles since the first term
    // EXMRG (DOWN = 1): the export word being read (channel, word), and the one read a cycle before
    reg [CW-1:0]   m_ch;
    reg [5:0]      m_w;
    reg            m_rd, m_q, m_qmem, m_rnd;  // reading; a word to merge; of a member; ROUND_CLEAR issued
    reg [5:0]      m_qw;
    reg [63:0]     facc;
    reg [C-1:0]    fs_one;  // SCANIF / SCANXF: the member whose add is in the adder ...
    reg            fs_first;  // ... the lowest member's reply is placed now (FADD's second cycle) ...
    reg [C-1:0]    fs0_one;   // ... in this member's slot
    reg [63:0]     fs_prev; // ... and the running sum before it (its exclusive sum)
    wire           fa_valid, ex_valid;  // fpu_add64, fpu_exact_acc results
    wire [63:0]    fa_z, ex_z;

    wire [3:0]    l_kind = l_dec[3:0];
    wire [2:0]    l_fn   = l_dec[6:4];
    wire          l_w64  = l_dec[7];
    wire [KW-1:0] l_key  = {l_ppn, l_pid, l_mask};
    wire [DW-1:0] l_ridx = {l_ppn, l_pid, l_addr};
    // the float kinds, flags registered with l_dec (timing: decoded from l_dec they sat at the
    // head of the FPU's operand select, op_idx, and of the accumulator's command)
    function automatic [4:0] lflags(input [6:0] d);  // l_dec's kind and fn
        reg flt;
        begin
            flt = d[3:0] == K_FLT;
            lflags = {flt && d[6:4] == 3'd7,           // EXSCANIF, EXSCANXF (opcode bit 0: exclusive)
                      DOWN != 0 && d[6:4] == 3'd6,     // EXMRG (FEX's merge of exports)
                      flt && d[6:4] == 3'd3,           // EXSUMF
                      flt && d[6:5] == 2'b10,          // SCANIF, SCANXF
                      flt};
        end
    endfunction
    reg  [4:0]    l_fl;
    wire [18:0]   lead_dec = cop_dec(rx_op[lead]);
    wire [18:0]   u_dec    = cop_dec(u_op);
    wire          l_flt  = l_fl[0];
    wire          l_fscan = l_fl[1];
    wire          l_exs  = l_fl[2];
    wire          fx_mrg = l_fl[3];
    wire          fx_xs  = l_fl[4];
    // the tree's result: MAXF / MINF decoded from the root's key, a NaN key
    // made the canonical NaN; a 32-bit function's low word
    wire [63:0]   t_dbl  = fpu_okey(tn[1]);
    wire [63:0]   t_res  = l_flt ? (fpu_is_nan(t_dbl) ? F_QNAN : t_dbl) : l_w64 ? tn[1] : {32'd0, tn[1][31:0]};
    wire          l_coll = l_kind == K_RED || l_kind == K_BAR || l_kind == K_SCAN || l_flt;
    wire [C-1:0]  l_one  = {{(C-1){1'b0}}, 1'b1} << lead;
`ifdef SELFTEST_LOCKLEAK
    // negative control of cop_serve_props (l1): the lock holds the round robin only while its
    // holder has a command waiting, so other channels are served between the holder's commands
    wire [C-1:0]  elig   = (lock_held && rx_v[lock_ch] && !rx_srv[lock_ch]) ?
                           ({{(C-1){1'b0}}, 1'b1} << lock_ch) : {C{1'b1}};
`else
    wire [C-1:0]  elig   = lock_held ? ({{(C-1){1'b0}}, 1'b1} << lock_ch) : {C{1'b1}};
`endif
    // an X command waits while the entry before it is at level 2 (one at a time), and an EXSUMF
    // while this core's exact sum is there (the accumulator holds its export)
    // (u_exm is set only with u_on, which UP = 0 never sets)
    wire          exm_on = UP != 0 && u_on && u_exm;
    wire [C-1:0]  ready  = rx_v & ~rx_srv & elig & ~(rx_x & {C{u_on}}) & ~(rx_exs & {C{exm_on}});
`ifdef SELFTEST_IDLE
    // negative control of cop_core_props (p6): idle whenever the controller is in IDLE, even
    // with a channel ready to serve
    assign idle = !rst && !s_v && !wdp_v && st == S_IDLE;
`else
    assign idle = !rst && !s_v && !wdp_v && st == S_IDLE && (hold || ready == {C{1'b0}});
`endif
    wire          dn_take = dn_valid && dn_ready;
    wire          dn_scan = dn_take && u_scan && !dn_err;  // the offset of a prefix sum with X
    wire [C-1:0]  ptr_lo = ({{(C-1){1'b0}}, 1'b1} << ptr) - {{(C-1){1'b0}}, 1'b1};
    reg  [C-1:0]  mbfull;
    integer mi;
    always @* for (mi = 0; mi < C; mi = mi + 1) mbfull[mi] = mb_cnt[mi] == MB3;

    // the first set bit of the round-robin snapshot
    reg [CW-1:0] pick;
    reg [C-1:0]  pick_v;
    integer pi;
    always @* begin
        pick_v = (snap_hi != {C{1'b0}}) ? snap_hi : snap;
        pick = {CW{1'b0}};
        for (pi = C - 1; pi >= 0; pi = pi - 1)
            if (pick_v[pi]) pick = pi[CW-1:0];
    end

    // the group of the leader's step
    reg [C-1:0] grp_n;
    integer gi;
    always @* begin
        for (gi = 0; gi < C; gi = gi + 1)
            grp_n[gi] = ready[gi] && rx_op[gi] == l_op && rx_mask[gi] == l_mask && rx_ppn[gi] == l_ppn &&
                        rx_pid[gi] == l_pid && rx_addr[gi] == l_addr && rx_x[gi] == l_x;
        if (!l_coll) grp_n = l_one;
    end

    // what CANCEL may not touch: the commands the controller is using now.
    // IDLE: the ready channels (the snapshot); PICK: the snapshot; LEAD: the
    // leader; GROUP: every ready channel (the group is among them), the
    // leader and the served members of the leader's key (their row is read
    // and written); EXEC: the step's group, the leader and those served
    // members; a completed round's states: its members until their replies
    // are placed.  PICK and GROUP name a superset of what they use (the
    // snapshot, not its pick; the ready channels, not the group being
    // formed), so that CANCEL's decision does not wait for the pick's
    // priority encoder or the group's compares (timing: docs/cop.md).
    // same_key (GROUP, EXEC): the served channels whose buffered key is the leader's, from
    // the key compares made in LEAD (sk_q; a channel whose buffer is loaded after LEAD is not
    // served before the step's EXEC ends, so rx_srv leaves it out)
    reg [C-1:0] sk_q;
    integer ei;
    always @(posedge clk)
        if (st == S_LEAD)
            for (ei = 0; ei < C; ei = ei + 1)
                sk_q[ei] <= {rx_ppn[ei], rx_pid[ei], rx_mask[ei]} == {rx_ppn[lead], rx_pid[lead], rx_mask[lead]};
    wire [C-1:0] same_key = rx_srv & sk_q;
    always @* begin
        case (st)
            S_IDLE:  eng = hold ? {C{1'b0}} : ready;
            S_PICK:  eng = snap;
            S_LEAD:  eng = l_one;
            S_GROUP: eng = ready | l_one | same_key;
            S_EXEC:  eng = grp | l_one | same_key;
            S_UP:    eng = u_mem;
            // a completed round (TREE, SCAN, FADD, FEX, FPUT): its members not yet answered (SCAN
            // and the prefix sums of doubles answer one member at a time, who may start another
            // command meanwhile: that one is not running)
            default: eng = t_tmpl & rx_srv;
        endcase
        if (u_on) eng = eng | u_mem;
    end

    // EXEC: the step's effect, decided from the latched leader and table row
    reg [C-1:0]  x_ok, x_ref, x_srv, x_push;
    reg [7:0]    x_cause;
    reg [63:0]   x_data, x_push_data;
    reg [3:0]    x_len;
    reg          x_ram_we, x_tc_we, x_bm_we, x_lock, x_unlock;
    reg [63:0]   x_ram_wd;
    reg [C-1:0]  x_tmpl, x_work;
    reg          x_open;
    reg [3:0]    x_next;
    reg          x_done;   // a collective step that completes its round: the working vector is then zero
    reg [C-1:0]  gin;
    wire [C-1:0] l_val = l_data[C-1:0];
    // a mask or TC naming a channel >= C: from the latched operand, registered in GROUP (timing)
    reg          l_range;
    always @(posedge clk) if (st == S_GROUP) l_range <= (l_data & ~CHAN_ALL) != 64'd0;
    always @* begin
        x_ok = {C{1'b0}}; x_ref = {C{1'b0}}; x_srv = {C{1'b0}}; x_push = {C{1'b0}};
        x_cause = 8'd0; x_data = 64'd0; x_push_data = l_data; x_len = 4'd0;
        x_ram_we = 1'b0; x_ram_wd = 64'd0; x_tc_we = 1'b0; x_bm_we = 1'b0; x_lock = 1'b0; x_unlock = 1'b0;
        x_tmpl = t_tmpl; x_work = t_work; x_open = t_open; x_next = S_IDLE; x_done = 1'b0;
        gin = grp & t_work;
        if (l_x && !l_coll) begin
            // a single command with X (Data RAM, broadcast, RECV, lock, mask / TC
            // write) goes up unchanged; its reply comes down
            x_srv = l_one; x_next = S_UP;
        end else case (l_kind)
            K_RAMR: begin
                x_ok = l_one; x_data = l_w64 ? ram_q : {32'd0, ram_q[31:0]}; x_len = l_dec[15:12];
            end
            K_RAMW: begin
                x_ok = l_one; x_ram_we = 1'b1; x_ram_wd = l_w64 ? l_data : {ram_q[63:32], l_data[31:0]};
            end
            K_RMW: begin
                x_ok = l_one; x_ram_we = 1'b1; x_len = l_dec[15:12];
                x_data = l_w64 ? ram_q : {32'd0, ram_q[31:0]};
                x_ram_wd = l_w64 ? ram_q + l_data : {ram_q[63:32], ram_q[31:0] + l_data[31:0]};
            end
            K_BCAST: begin
                if (t_full) begin
                    x_ref = l_one; x_cause = C_MBFULL;
                end else begin
                    x_ok = l_one; x_push = t_bm & ~l_one;
                    x_push_data = l_w64 ? l_data : {32'd0, l_data[31:0]};
                end
            end
            K_LOCK: begin
                x_ok = l_one; x_lock = 1'b1;
            end
            K_UNLOCK: begin
                if (lock_held && lock_ch == lead) begin x_ok = l_one; x_unlock = 1'b1; end
                else begin x_ref = l_one; x_cause = C_NOTLOCKER; end
            end
            K_SETBM, K_SETTC: begin
                if (l_range) begin
                    x_ref = l_one; x_cause = C_RANGE;
                end else begin
                    x_ok = l_one;
                    if (t_open) begin x_ref = t_tmpl & ~t_work; x_cause = C_ABORTED; end
                    x_open = 1'b0; x_tc_we = 1'b1;
                    if (l_kind == K_SETTC) begin
                        x_tmpl = l_val; x_work = l_val;
                    end else begin
                        x_bm_we = 1'b1; x_work = t_tmpl;
                    end
                end
            end
            K_BAR, K_RED, K_SCAN, K_FLT: begin
                if (t_tmpl == {C{1'b0}}) begin
                    x_ref = l_one; x_cause = C_NOTC;
                end else if (t_open && t_diff) begin
                    x_ref = l_one; x_cause = C_MISMATCH;
                end else begin
                    // a step of refusals only (no member of the TC in it) changes no row
                    x_ref = grp & ~t_tmpl; x_cause = C_NOTINTC;
                    x_srv = gin;
                    x_tc_we = gin != {C{1'b0}};
                    if ((t_work & ~gin) == {C{1'b0}}) begin
                        // the round is complete: re-arm from the template
                        x_done = 1'b1; x_work = t_tmpl; x_open = 1'b0;
                        if (l_kind == K_BAR && l_x) x_next = S_UP;
                        else if (l_kind == K_BAR) x_ok = t_tmpl;
                        else if (l_kind == K_RED) x_next = S_TREE;
                        else if (l_kind == K_SCAN) x_next = S_SCAN;
                        else if (l_fn == 3'd0 || l_fscan) x_next = S_FADD;   // SUMF, SCANIF, SCANXF
                        else if (l_fn == 3'd3 || l_fn[2:1] == 2'b11) x_next = S_FEX;  // EXSUMF, EXMRG, EXSCAN*F
                        else x_next = S_TREE;                     // MAXF, MINF
                    end else begin
                        x_work = t_work & ~gin; x_open = 1'b1;
`ifdef SELFTEST_EARLY
                        // negative control of the formal harness: a reply before the TC is complete
                        if (l_kind == K_BAR) x_ok = gin;
`endif
                    end
                end
            end
            default: begin
                x_ref = l_one; x_cause = C_BADOP;
            end
        endcase
    end

    // one channel's operand: the scan's, SUMF's next term, EXSUMF's term
    // fnx: the lowest member not yet added, lowest(frem), kept as a
    // register beside frem (timing: frem's priority encoder in front of the
    // receive buffers' multiplexer was one path into every user of op_q)
    function automatic [CW-1:0] lowest(input [C-1:0] v);
        integer ni;
        begin
            lowest = {CW{1'b0}};
            for (ni = C - 1; ni >= 0; ni = ni - 1)
                if (v[ni]) lowest = ni[CW-1:0];
        end
    endfunction
    wire [C-1:0]  fnx_one = {{(C-1){1'b0}}, 1'b1} << fnx;
    wire [C-1:0]  frem_nx = frem & ~fnx_one;   // frem once fnx is taken
    wire [CW-1:0] op_idx = (st == S_FADD || fx_xs) ? fnx : fcnt[CW-1:0];
    wire [63:0]   op_q = rx_data[op_idx];
    // fpu_add64's second operand: op_q a cycle later (timing: the member's
    // index, its receive buffer's multiplexer and the adder's first-stage
    // compare were one path); op_idx is the next member's by then (FADD's
    // state 3 waits for it before the first add)
    reg  [63:0]   op_r;
    always @(posedge clk) op_r <= op_q;
    // the prefix sum's operand, read a cycle ahead: channel 0's in EXEC, channel scnt + 1's
    // in SCAN (a member's buffer holds until its own reply is placed; timing)
    reg  [63:0]   sc_q;
    always @(posedge clk)
        if (st == S_EXEC || dn_scan) sc_q <= rx_data[{CW{1'b0}}];
        else if (st == S_SCAN) sc_q <= rx_data[scnt + 1'b1];
    wire [63:0]   s_op = ext(l_w64, sc_q);
    wire [63:0] s_sum = sacc + s_op;

    // what is placed in the reply slots this cycle: one case at a time, each a
    // flag of the state it happens in (the states are exclusive, and level 2's
    // answer is taken only in IDLE: dn_ready), the data an AND-OR of the cases'
    // (timing: as a priority chain of a dozen 64-bit cases it was the FPU
    // core's critical path)
    wire        c_exec = st == S_EXEC;
    wire        c_dnok = dn_take && !dn_err && !u_scan;  // level 2's answer to the entry's members ...
    wire        c_dner = dn_take && dn_err;              // ... or its refusal (a prefix sum's offset
                                                         // is not a reply: SCAN places them from it)
    wire        c_tree = st == S_TREE && tcnt == TREE_DONE && !l_x;
    // a prefix sum of doubles: the lowest member's reply is its term (exclusive: +0),
    // placed from facc a cycle after FADD's first (timing: from op_q, the receive
    // buffers' multiplexer, it was the core's critical path) ...
    wire        c_fs0  = EN_FPU != 0 && fs_first;
    // ... and each next member's when its add is done
    wire        c_fs   = EN_FPU != 0 && st == S_FADD && l_fscan && fph == 2'd2 && fa_valid;
    // an exact prefix sum: the member's ROUND result (inclusive: after its own term)
    wire        c_xs   = EN_FPU != 0 && st == S_FEX && fx_xs && fcnt == XS_LAST;
    // SUMF, EXSUMF, EXMRG: the result (SUMF of one member is that term: its NaN is made
    // canonical too, docs/fpu.md)
    wire        c_put  = st == S_FPUT && !l_x && !l_fscan && !fx_xs;
    wire        c_scan = st == S_SCAN && t_tmpl[scnt] && (UP == 0 || !l_x || sc_dn);
    wire [63:0] scan_d = l_fn[0] ? sacc : s_sum;
    reg [C-1:0] pl_ok, pl_ref;
    reg [7:0]   pl_cause;
    reg [63:0]  pl_data;
    reg [3:0]   pl_len;
    always @* begin
        pl_ok = ({C{c_exec}} & x_ok) | ({C{c_dnok}} & u_mem) | ({C{c_tree || c_put}} & t_tmpl) |
                ({C{c_fs0}} & fs0_one) | ({C{c_fs}} & fs_one) | ({C{c_xs}} & fnx_one) |
                ({C{c_scan}} & ({{(C-1){1'b0}}, 1'b1} << scnt));
        pl_ref = ({C{c_exec}} & x_ref) | ({C{c_dner}} & u_mem);
        pl_cause = c_dner ? dn_cause : x_cause;
        pl_len = ({4{c_exec}} & x_len) | ({4{c_dnok}} & dn_len) |
                 ({4{c_tree || c_fs0 || c_fs || c_xs || c_put || c_scan}} & l_dec[15:12]);
        pl_data = ({64{c_exec}} & x_data) | ({64{c_dnok}} & dn_data) | ({64{c_tree}} & t_res) |
                  ({64{c_fs0 && !l_fn[0]}} & fcanon(facc)) |
                  ({64{c_fs}} & fcanon(l_fn[0] ? fs_prev : fa_z)) | ({64{c_xs}} & facc) |
                  ({64{c_put}} & fcanon(facc)) |
                  ({64{c_scan}} & (l_w64 ? scan_d : {32'd0, scan_d[31:0]}));
    end
    wire [C-1:0] pl_clr = pl_ok | pl_ref;  // these commands are finished: the buffers are free
    // SCANIF / SCANXF: which member an add is for, and the running sum before it; the
    // lowest member's reply waits a cycle (fs_first, fs0_one)
    always @(posedge clk) begin
        if (fa_go) begin fs_one <= fnx_one; fs_prev <= (fph == 2'd2) ? fa_z : facc; end
        fs_first <= !rst && st == S_FADD && l_fscan && fph == 2'd0;
        fs0_one <= fnx_one;
    end

    reg [6:0] nref;
    integer ci;
    always @* begin
        nref = 7'd0;
        for (ci = 0; ci < C; ci = ci + 1) nref = nref + {6'd0, pl_ref[ci]};
    end

    // a CANCEL that withdraws a served contribution: its TC bit is set again a cycle later
    always @(posedge clk) begin
        wdp_v <= !rst && take && pe_ok && b_wd && p_srv;
        wdp_key <= p_rkey; wdp_one <= p_one;
    end
    wire [C-1:0]  wdp_row  = tc_work[wdp_key] | (wdp_one & tc_tmpl[wdp_key]);
    wire          wdp_hit  = wdp_v && wdp_key == l_key;   // GROUP reads that row now
    wire [C-1:0]  wdp_lrow = tc_work[l_key] | (wdp_one & tc_tmpl[l_key]);

    // ==== state updates ==================================================================
    integer i, j, ki;
    wire [C-1:0] b_pop_v = (take && pe_ok && b_pop) ? p_one : {C{1'b0}};
    always @(posedge clk) begin
        if (rst) begin
            rx_v <= {C{1'b0}}; rx_srv <= {C{1'b0}}; rp_v <= {C{1'b0}}; rp_err <= {C{1'b0}};
            recv_w <= {C{1'b0}}; last_v <= {C{1'b0}}; sup <= {C{1'b0}};
            for (i = 0; i < C; i = i + 1) begin
                pr_ppn[i] <= {PPN_W{1'b0}}; pr_pid[i] <= {PID_W{1'b0}}; ch_addr[i] <= {RA_W{1'b0}};
                cause[i] <= 15'd0; instr[i] <= 32'd0; mb_cnt[i] <= 3'd0; mb_hd[i] <= 2'd0;
            end
            for (i = 0; i < KEYS; i = i + 1) begin
                tc_tmpl[i] <= {C{1'b0}}; tc_work[i] <= {C{1'b0}}; bmask[i] <= {C{1'b0}};
            end
            r_open <= {KEYS{1'b0}}; u_on <= 1'b0; u_scan <= 1'b0; u_exm <= 1'b0; u_wd <= 1'b0; sc_dn <= 1'b0;
            privcnt <= 32'd0; errcnt <= 32'd0; nref_q <= 7'd0; bref_q <= 1'b0; lock_held <= 1'b0; lock_ch <= {CW{1'b0}}; hold <= 1'b0;
            st <= S_IDLE; ptr <= {CW{1'b0}};
        end else begin
            // ---- the bus side's effects (for channel p: p_one, a registered one-hot, enables
            // channel i's flip-flops; timing: a decoder of s_p in front of every enable put s_p's
            // fan-out on the critical path; the registers only the bus side reads, by the
            // request's PE, stay LUT RAM written at s_p) ----
            if (take && pe_ok) begin
                if (b_cause != 8'd0) cause[p] <= {c_op & {7{s_call}}, b_cause};
                if (b_start) instr[p] <= {8'd0, wc, p_proc[11:0], r[3], s_sup, r[2], c_op};
                if (b_proc) begin pr_ppn[p] <= s_wd[PPN_W-1:0]; pr_pid[p] <= s_wd[4 +: PID_W]; end
                if (b_addr) ch_addr[p] <= s_wd[RA_W-1:0];
                if (b_last) begin last_data[p] <= b_lastd; last_len[p] <= b_lastl; end
                for (i = 0; i < C; i = i + 1) if (p_one[i]) begin
                    if (b_start) begin
                        rx_op[i] <= c_op; rx_mask[i] <= r[3]; rx_ppn[i] <= s_ppn; rx_pid[i] <= s_pid;
                        rx_addr[i] <= s_chaddr; rx_data[i] <= {s_wdhi, s_wd}; rx_x[i] <= r[2];
                        rx_exs[i] <= c_op == OP_EXSUMF;
                        rx_v[i] <= 1'b1;
                    end
                    if (b_recv) recv_w[i] <= 1'b1;
                    if (b_pop && !b_recv) recv_w[i] <= 1'b0;
                    if (b_last) last_v[i] <= 1'b1;
                    if (b_mode) sup[i] <= b_mode_v;
                    if (b_hand) rp_v[i] <= 1'b0;
                end
                if (b_hold) hold <= s_wd[0];
                if (s_upwd && u_on) u_wd <= 1'b1;   // (UPLINK's write: no entry at level 2, nothing to withdraw)
            end
            privcnt <= privcnt + {31'd0, take && b_priv};
            // a step's refusals are counted a cycle after they are placed (timing); ERRCNT's
            // read adds those still pending, so it reads as if counted at once
            nref_q  <= nref;
            // the bus side's refusal a cycle later too (timing: its decision into the adder)
            bref_q  <= take && b_cause != 8'd0 && !b_hand;
            errcnt  <= errcnt + {31'd0, bref_q} + {25'd0, nref_q};

            // ---- the mailboxes: the bus pops channel p's head, the controller pushes ----
            for (i = 0; i < C; i = i + 1) begin
                if (b_pop_v[i]) mb_hd[i] <= mb_next(mb_hd[i]);
                // a push goes after the words held (the ring's tail: the
                // head and the count before any pop in this cycle)
                if (x_push[i] && st == S_EXEC) begin
                    for (j = 0; j < MB; j = j + 1)
                        if (j[2:0] == mb_tail(mb_hd[i], mb_cnt[i])) begin
                            mb_data[i*MB + j] <= x_push_data;
                            mb_len[i*MB + j]  <= lcode(l_dec[11:10]);
                        end
                end
                mb_cnt[i] <= mb_cnt[i] + {2'd0, x_push[i] && st == S_EXEC}
                                       - {2'd0, b_pop_v[i]};
            end

            // ---- replies placed, buffers freed ----
            for (i = 0; i < C; i = i + 1) begin
                if (pl_clr[i]) begin
                    rx_v[i] <= 1'b0; rx_srv[i] <= 1'b0; rp_v[i] <= 1'b1; rp_err[i] <= pl_ref[i];
                    rp_data[i] <= pl_ok[i] ? pl_data : 64'd0; rp_len[i] <= pl_ok[i] ? lcode(pl_len[3:2]) : 2'd0;
                    rp_cause[i] <= pl_ref[i] ? pl_cause : 8'd0;
                end
            end
            if (st == S_EXEC) rx_srv <= (rx_srv | x_srv) & ~pl_clr;

            // ---- the controller ----
            case (st)
                S_IDLE: if (!hold && ready != {C{1'b0}}) begin
                    snap <= ready; snap_hi <= ready & ~ptr_lo; st <= S_PICK;
                end
                S_PICK: begin
`ifdef SELFTEST_NORR
                    // negative control of cop_serve_props (f1): the pointer never moves (fixed
                    // priority, lowest ready channel first) instead of moving past the leader
                    lead <= pick; ptr <= {CW{1'b0}};
`else
                    lead <= pick; ptr <= (pick == CLAST) ? {CW{1'b0}} : pick + 1'b1;
`endif
                    st <= S_LEAD;
                end
                S_LEAD: begin
                    l_op <= rx_op[lead]; l_mask <= rx_mask[lead]; l_ppn <= rx_ppn[lead]; l_pid <= rx_pid[lead];
                    l_addr <= rx_addr[lead]; l_data <= rx_data[lead]; l_dec <= lead_dec;
                    l_fl <= lflags(lead_dec[6:0]);
                    l_x <= rx_x[lead];
                    st <= S_GROUP;
                end
                S_GROUP: begin
                    grp <= grp_n;
                    t_tmpl <= tc_tmpl[l_key]; t_bm <= bmask[l_key];
                    // the row with a withdrawn contribution's TC bit that is set again in this cycle
                    t_work <= (wdp_hit ? wdp_one & tc_tmpl[l_key] : {C{1'b0}}) | tc_work[l_key];
                    t_open <= r_open[l_key] && !(wdp_hit && wdp_lrow == tc_tmpl[l_key]);
                    // the open round's opcode, address and X against the leader's, compared here
                    // (timing: in EXEC the compare sat in front of the key row's write)
                    t_diff <= r_op[l_key] != l_op || r_addr[l_key] != l_addr || r_x[l_key] != l_x;
                    t_full <= (bmask[l_key] & ~l_one & mbfull) != {C{1'b0}};
                    st <= S_EXEC;
                end
                S_EXEC: begin
                    if (x_tc_we) begin
                        tc_tmpl[l_key] <= x_tmpl; tc_work[l_key] <= x_work;
                        if (x_open && !t_open) begin r_op[l_key] <= l_op; r_addr[l_key] <= l_addr; end
                        // the flag vectors bit by bit through a decoder of the key (timing: as a
                        // bit-select at l_key yosys built the write from an adder on the key)
                        for (ki = 0; ki < KEYS; ki = ki + 1)
                            if (l_key == ki[KW-1:0]) begin
                                r_open[ki] <= x_open;
                                if (x_open && !t_open) r_x[ki] <= l_x;
                            end
                    end
                    if (x_bm_we) bmask[l_key] <= l_val;
                    if (x_lock) begin lock_held <= 1'b1; lock_ch <= lead; end
                    if (x_unlock) lock_held <= 1'b0;
                    t_tmpl <= x_tmpl;  // the members of a completed round (TREE, SCAN)
                    tcnt <= {(CW+1){1'b0}}; scnt <= {CW{1'b0}}; sacc <= 64'd0;
                    frem <= x_tmpl; fnx <= lowest(x_tmpl); fph <= 2'd0; fcnt <= 8'd0;
                    // the entry's members and operand (a round's combined value comes later)
                    u_mem <= l_coll ? x_tmpl : l_one; u_us <= instr[lead][IW_US];
                    u_scan <= l_kind == K_SCAN; u_op <= l_op; sc_dn <= 1'b0;
                    u_data <= (l_dec[11:8] == 4'd8) ? l_data : (l_dec[11:8] == 4'd4) ? {32'd0, l_data[31:0]} : 64'd0;
                    st <= x_next;
                end
                S_TREE: begin
                    tcnt <= tcnt + 1'b1;
                    if (tcnt == TREE_DONE) begin
                        st <= l_x ? S_UP : S_IDLE;
                        u_data <= t_res;
                    end
                end
                S_SCAN: begin
                    if (t_tmpl[scnt]) sacc <= s_sum;
                    scnt <= scnt + 1'b1;
                    if (scnt == CLAST) begin
                        // with X, the first run's total goes up (as level 2's exclusive prefix sum)
                        st <= (l_x && !sc_dn) ? S_UP : S_IDLE;
                        u_data <= t_tmpl[scnt] ? s_sum : sacc;
                        if (!l_w64) u_data[63:32] <= 32'd0;
                        sc_dn <= 1'b0;
                    end
                end
                S_FADD: begin
                    // SUMF: the members' terms in channel order, each rounded add waiting for the last
                    case (fph)
                        2'd0: begin
                            facc <= op_q; frem <= frem_nx; fnx <= lowest(frem_nx);
                            fph <= (frem_nx == {C{1'b0}}) ? 2'd1 : 2'd3;  // (one member: no add)
                        end
                        2'd3: fph <= 2'd1;  // op_r takes the second member's term
                        2'd1: begin
                            if (frem == {C{1'b0}}) st <= S_FPUT;
                            else begin frem <= frem_nx; fnx <= lowest(frem_nx); fph <= 2'd2; end
                        end
                        default: if (fa_valid) begin
                            if (frem == {C{1'b0}}) begin facc <= fa_z; st <= S_FPUT; end
                            else begin frem <= frem_nx; fnx <= lowest(frem_nx); end
                        end
                    endcase
                end
                S_FEX: begin
                    // EXSUMF: one term per cycle (channel fcnt), ROUND_CLEAR at C, the result by FEX_END;
                    // EXMRG: the exports merged (below), FPUT once the result is out
                    fcnt <= fcnt + 1'b1;
                    if (fx_xs) begin
                        // an exact prefix sum: 48 cycles per member (fcnt 0..47), its reply in the last
                        if (fcnt == XS_LAST) begin
                            fcnt <= 8'd0; frem <= frem_nx; fnx <= lowest(frem_nx);
                            if (frem_nx == {C{1'b0}}) st <= S_FPUT;
                        end
                    end else if (fx_mrg ? ex_valid : fcnt == FEX_END) st <= S_FPUT;
                end
                S_FPUT: begin
                    st <= l_x ? S_UP : S_IDLE;
                    u_data <= (facc[62:52] == 11'h7FF && facc[51:0] != 52'd0) ? F_QNAN : facc;
                end
                S_UP: if (up_ready) begin
                    u_on <= 1'b1; st <= S_IDLE;
                    u_exm <= l_exs;
                end
                default: st <= S_IDLE;
            endcase
            if (take && pe_ok && b_lockbrk) lock_held <= 1'b0;
            if (dn_take) begin u_on <= 1'b0; u_exm <= 1'b0; u_wd <= 1'b0; end
            if (dn_scan) begin
                // SCAN again over the entry's members, from level 2's offset, placing the replies
                l_op <= u_op; l_dec <= u_dec; l_fl <= lflags(u_dec[6:0]); l_x <= 1'b1; t_tmpl <= u_mem;
                scnt <= {CW{1'b0}}; sacc <= dn_data; sc_dn <= 1'b1; st <= S_SCAN;
            end
            if (ex_valid) facc <= ex_z;
            // ---- CANCEL (after the controller's writes: the channel is not in its step) ----
            if (take && pe_ok && b_hand && b_keep) begin last_data[p] <= p_rpd; last_len[p] <= p_rpl; end
            if (take && pe_ok)
                for (i = 0; i < C; i = i + 1) if (p_one[i]) begin
                    if (b_hand && b_keep) last_v[i] <= 1'b1;
                    if (b_unrecv) recv_w[i] <= 1'b0;
                    if (b_wd) begin
                        rx_v[i] <= 1'b0; rx_srv[i] <= 1'b0;
                    end
                end
            // a served contribution withdrawn (wdp_*, from the decide stage's CANCEL a cycle
            // before) goes back out of its round: the TC bit is set again, and a round left with
            // no contribution is not open (its first one fixes it anew).  A cycle later than the
            // withdrawal itself (timing): no EXEC writes that row in this cycle (in the cycle of
            // the CANCEL the controller was not in GROUP with the contribution's key, or it would
            // have been RUNNING), and a GROUP that reads it now takes the restored row (above).
            // (A served channel is always in its round's TC; the mask keeps the working vector
            // within the template in every state, reachable or not.)
            if (wdp_v) begin
`ifdef SELFTEST_WDCLR
                tc_work[wdp_key] <= {C{1'b0}};
`else
                tc_work[wdp_key] <= wdp_row;
`endif
                if (wdp_row == tc_tmpl[wdp_key])
                    for (ki = 0; ki < KEYS; ki = ki + 1) if (wdp_key == ki[KW-1:0]) r_open[ki] <= 1'b0;
            end
        end
    end

    // the Data RAM (one read and one write port).  The leader's word is read in LEAD, from the
    // index its buffer holds (the one LEAD latches as l_ridx; only EXEC writes the RAM, so the
    // word is the one GROUP would read), and registered twice: the block RAM's read register,
    // then one in the fabric, so that EXEC takes it from a flip-flop (timing: the block RAM's
    // clock to output is over half a 100 MHz cycle).  EXEC writes it.
`ifdef SELFTEST_RAMPTR
    // negative control of cop_serve_props (r1): the write index takes its PPN and PID from the
    // command buffered at the round-robin pointer (the channel after the leader) instead of the leader's
    wire [DW-1:0] ram_widx = {rx_ppn[ptr], rx_pid[ptr], l_addr};
`else
    wire [DW-1:0] ram_widx = l_ridx;
`endif
`ifdef SELFTEST_RAMRD
    // negative control of cop_serve_props (r2): the read index takes its PPN and PID from the
    // command buffered at the round-robin pointer (the channel after the leader) instead of the leader's
    wire [DW-1:0] ram_ridx = {rx_ppn[ptr], rx_pid[ptr], rx_addr[lead]};
`else
    wire [DW-1:0] ram_ridx = {rx_ppn[lead], rx_pid[lead], rx_addr[lead]};
`endif
    reg  [63:0]   ram_a;
    always @(posedge clk) begin
        if (st == S_EXEC && x_ram_we) dram[ram_widx] <= x_ram_wd;
        ram_a <= dram[ram_ridx];
        ram_q <= ram_a;
    end

    // the tree: leaves reloaded every cycle from the held operands, one
    // registered ALU level per cycle
    integer ti;
    always @(posedge clk) begin
        for (ti = 0; ti < P2; ti = ti + 1)
            tn[P2 + ti] <= (ti < C && t_tmpl[ti % C]) ? leaf(l_flt, l_fn, l_w64, rx_data[ti % C]) : ident(l_fn);
        for (ti = 1; ti < P2; ti = ti + 1)
            tn[ti] <= alu(l_fn, tn[2*ti], tn[2*ti + 1]);
    end

    // ---- the FPU (rtl/fpu/, docs/fpu.md) ----
    // MAXF / MINF run on the ALU tree above (order keys); SUMF: fpu_add64,
    // one dependent add at a time; EXSUMF: fpu_exact_acc, one term per cycle
    wire        fa_go = st == S_FADD && frem != {C{1'b0}} && (fph == 2'd1 || (fph == 2'd2 && fa_valid));
    // EXSUMF: ADD each member's term, then ROUND_CLEAR (with X: ROUND, the export kept until
    // level 2's answer comes down, then CLEAR); EXMRG: MERGE_LIMB 0..32 and MERGE_FLAGS of each
    // member's export, then ROUND_CLEAR
    // EXSCANIF: ADD at fcnt 0, ROUND at 1; EXSCANXF: ROUND at 0, ADD at XS_LAST (the ROUND is
    // out by then); both: CLEAR in FPUT
    wire        xs_add = fx_xs && fcnt == (l_op[0] ? XS_LAST : 8'd0);
    wire        xs_rnd = fx_xs && fcnt == (l_op[0] ? 8'd0 : 8'd1);
    wire        ex_go = (st == S_FEX && !fx_mrg && !fx_xs && (fcnt < C8 ? t_tmpl[fcnt[CW-1:0]] : fcnt == C8)) ||
                        (st == S_FEX && fx_mrg && ((m_q && m_qmem) || (!m_rd && !m_q && !m_rnd))) ||
                        (st == S_FEX && (xs_add || xs_rnd)) || (st == S_FPUT && fx_xs) ||
                        (dn_take && u_exm);
    wire [2:0]  ex_op = ((dn_take && u_exm) || st == S_FPUT) ? 3'd1 :
                        fx_mrg ? (m_q ? ((m_qw == 6'd33) ? 3'd5 : 3'd4) : 3'd3) :
                        fx_xs ? (xs_add ? 3'd0 : 3'd2) :
                        (fcnt < C8) ? 3'd0 : (l_x ? 3'd2 : 3'd3);
    localparam integer MLAST_I = C - 1;
    localparam [CW-1:0] MLAST = MLAST_I[CW-1:0];
    always @(posedge clk) begin
        if (rst || st != S_FEX || !fx_mrg || DOWN == 0 || EN_FPU == 0) begin
            m_ch <= {CW{1'b0}}; m_w <= 6'd0; m_rd <= st == S_EXEC; m_q <= 1'b0; m_qmem <= 1'b0; m_qw <= 6'd0;
            m_rnd <= 1'b0;
        end else begin
            // the read side: word m_w of channel m_ch is on xp_data in the next cycle
            m_q <= m_rd; m_qw <= m_w; m_qmem <= t_tmpl[m_ch];
            if (m_rd) begin
                if (m_w == 6'd33) begin
                    m_w <= 6'd0;
                    if (m_ch == MLAST) m_rd <= 1'b0; else m_ch <= m_ch + 1'b1;
                end else m_w <= m_w + 1'b1;
            end
            if (!m_rd && !m_q) m_rnd <= 1'b1;
        end
    end
    assign xp_ch  = (DOWN != 0) ? {{(6-CW){1'b0}}, m_ch} : 6'd0;
    assign xp_idx = (DOWN != 0) ? m_w : 6'd0;
    generate
        if (EN_FPU != 0) begin : g_fpu
            wire          fa_t, ex_rdy;
            wire [63:0]   ex_rd;
            fpu_add64 #(.TW(1)) u_add (
                .clk(clk), .rst(rst), .in_valid(fa_go), .in_a(fph == 2'd2 ? fa_z : facc), .in_b(op_r),
                .in_tag(1'b0), .out_valid(fa_valid), .out_z(fa_z), .out_tag(fa_t)
            );
            // the accumulator's command a clock later, from registers (timing: the operand's
            // channel, the receive buffers' multiplexer and the accumulator's first stage were
            // one path, and at C = 64 it is a 64-way multiplexer); EX_RND counts the clock
            reg           ex_go_q;
            reg  [2:0]    ex_op_q;
            reg  [5:0]    ex_idx_q;
            reg  [63:0]   ex_x_q;
            always @(posedge clk) begin
                ex_go_q  <= !rst && ex_go;
                ex_op_q  <= ex_op;
                ex_idx_q <= (DOWN != 0 && fx_mrg) ? m_qw : 6'd0;
                ex_x_q   <= (DOWN != 0 && fx_mrg) ? xp_data : op_q;
            end
            fpu_exact_acc u_exact (
                .clk(clk), .rst(rst), .cmd_valid(ex_go_q), .cmd_ready(ex_rdy), .cmd_op(ex_op_q),
                .cmd_idx(ex_idx_q), .cmd_x(ex_x_q),
                .res_valid(ex_valid), .res_z(ex_z), .rd_idx(UP != 0 ? ex_idx : 6'd0), .rd_data(ex_rd)
            );
            assign ex_data = (UP != 0) ? ex_rd : 64'd0;
            wire unused_fpu = &{1'b0, fa_t, ex_rdy};
        end else begin : g_nofpu
            assign fa_valid = 1'b0; assign fa_z = 64'd0; assign ex_valid = 1'b0; assign ex_z = 64'd0;
            assign ex_data = 64'd0;
            wire unused_nofpu = &{1'b0, fa_go, ex_go, ex_op, ex_idx, xp_data, m_qw};
        end
    endgenerate

    // ---- the up and down ports (UP = 1) ----
    reg [3:0]  l_ppn4;
    reg [7:0]  l_pid8;
    reg [11:0] l_addr12;
    always @* begin
        l_ppn4 = 4'd0; l_pid8 = 8'd0; l_addr12 = 12'd0;
        l_ppn4[PPN_W-1:0] = l_ppn; l_pid8[PID_W-1:0] = l_pid; l_addr12[RA_W-1:0] = l_addr;
    end
    assign up_valid = UP != 0 && st == S_UP;
    // a prefix sum's total goes up as the exclusive prefix sum of its width (SCANX = SCANI | 1),
    // an exact sum as EXMRG (level 2 reads the export: no operand)
    assign up_op    = (l_kind == K_SCAN) ? (l_op | 7'd1) : l_exs ? OP_EXMRG : l_op;
    assign up_mask  = l_mask;
    assign up_us    = u_us;
    assign up_ppn   = l_ppn4;
    assign up_pid   = l_pid8;
    assign up_addr  = l_addr12;
    assign up_data  = u_data;
    assign up_len   = l_exs ? 4'd0 : l_dec[11:8];
    assign dn_ready = UP != 0 && !rst && u_on && st == S_IDLE;
    assign up_wd    = UP != 0 && u_wd;

    // ---- the response ----
    reg        rsp_valid;
    reg [31:0] rsp_rdata, rsp_rdata_hi;
    reg [1:0]  rsp_err;
    reg [3:0]  rsp_len;
    always @(posedge clk) begin
        if (rst) begin
            rsp_valid <= 1'b0; rsp_rdata <= 32'd0; rsp_rdata_hi <= 32'd0; rsp_err <= E_OK; rsp_len <= 4'd0;
        end else begin
            rsp_valid    <= take;
            rsp_err      <= take ? b_err : E_OK;
            // b_rd, b_rdhi and b_len are 0 whenever b_err is not OK (the plan's
            // s_rd, s_rdhi and s_alen are, and the decide stage's refusals and
            // PENDINGs leave them or clear them), so they are not gated with it
            // (timing: b_err into every data bit's gate was the critical path);
            // cop_core_props asserts it on the response
            rsp_rdata    <= take ? b_rd : 32'd0;
            rsp_rdata_hi <= (take && s_call) ? b_rdhi : 32'd0;
            rsp_len      <= (take && s_call) ? b_len : 4'd0;
        end
    end
    assign bus_rsp_valid = rsp_valid;
    assign bus_rsp_rdata = rsp_rdata;
    assign bus_rsp_rdata_hi = rsp_rdata_hi;
    assign bus_rsp_err = rsp_err;
    assign bus_rsp_len = rsp_len;

    wire unused_ok = &{1'b0, bus_req_addr[15:12], bus_req_size, l_dec[18:16], l_dec[9:8], pl_len[1:0], l_fn[2:1],
                       in_dec[15:12], in_dec[7:4],
                       mb_base9, lock_ch8[7:6], x_done, p_proc[31:12]};
`ifdef FORMAL
    assign f_rx_v = rx_v;
    assign f_rx_srv = rx_srv;
    assign f_rp_v = rp_v;
    assign f_rp_err = rp_err;
    assign f_sup = sup;
    assign f_st = st;
    assign f_pl_ok = pl_ok;
    assign f_clr = pl_clr;
    assign f_work0 = tc_work[0];
    assign f_tmpl0 = tc_tmpl[0];
    assign f_bm0 = bmask[0];
    assign f_open0 = r_open[0];
    assign f_lead_us = instr[lead][IW_US];
    assign f_lead_set = l_kind == K_SETBM || l_kind == K_SETTC;
    reg         fv_priv;
    reg [C-1:0] fv_coll;
    reg [18:0]  fv_dec;
    integer fi;
    always @* begin
        fv_priv = 1'b1;
        for (fi = 0; fi < C; fi = fi + 1) begin
            fv_dec = cop_dec(rx_op[fi]);
            if (rx_v[fi] && fv_dec[16] && !instr[fi][IW_US]) fv_priv = 1'b0;
            fv_coll[fi] = rx_v[fi] && (fv_dec[3:0] == K_BAR || fv_dec[3:0] == K_RED || fv_dec[3:0] == K_SCAN ||
                                       fv_dec[3:0] == K_FLT);
        end
    end
    assign f_rx_priv_ok = fv_priv;
    wire f_unused = &{1'b0, fv_dec[18:17], fv_dec[15:4]};
    assign f_coll = fv_coll;
    // (FADD and FEX follow a completing step only; SCANIF / SCANXF place their replies in FADD)
    assign f_complete = (st == S_EXEC && x_done) || (st == S_TREE && tcnt == TREE_DONE) || st == S_SCAN ||
                        st == S_FADD || st == S_FEX || st == S_FPUT;
    assign f_wd0 = (wdp_v && wdp_key == {KW{1'b0}}) ? wdp_one : {C{1'b0}};
    assign f_exec0 = st == S_EXEC && l_key == {KW{1'b0}};
    assign f_rx_x = rx_x;
    assign f_snap = snap;
    assign f_lead_x = rx_x[lead];
    assign f_l_x = l_x;
    assign f_u_on = u_on;
    assign f_ram_we = st == S_EXEC && x_ram_we;
    assign f_ram_idx = ram_widx;
    assign f_ram_wd = x_ram_wd;
    assign f_pl_data = pl_data;
    assign f_l_ridx = l_ridx;
    assign f_l_op = l_op;
    assign f_l_dec = l_dec;
    genvar gv;
    for (gv = 0; gv < C; gv = gv + 1) begin : g_fv
        assign f_rx_op[gv*7 +: 7] = rx_op[gv];
        assign f_rx_ridx[gv*DW +: DW] = {rx_ppn[gv], rx_pid[gv], rx_addr[gv]};
        assign f_ch_ridx[gv*DW +: DW] = {pr_ppn[gv], pr_pid[gv], ch_addr[gv]};
    end
    for (gv = 0; gv < DEPTH; gv = gv + 1) begin : g_fram
        assign f_dram[gv*64 +: 64] = dram[gv];
    end
    wire [7:0] fv_lead = {{(8-CW){1'b0}}, lead}, fv_ptr = {{(8-CW){1'b0}}, ptr}, fv_pick = {{(8-CW){1'b0}}, pick};
    assign f_lead = fv_lead[5:0];
    assign f_ptr = fv_ptr[5:0];
    assign f_pick = fv_pick[5:0];
    wire f_unused_w = &{1'b0, fv_lead[7:6], fv_ptr[7:6], fv_pick[7:6]};
    assign f_snap_hi = snap_hi;
    assign f_grp = grp;
    assign f_lock_held = lock_held;
    assign f_lock_ch = lock_ch8[5:0];
    assign f_hold = hold;

`endif
endmodule
`default_nettype wire
