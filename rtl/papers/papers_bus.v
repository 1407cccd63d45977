`default_nettype none
// papers_bus: the PAPERS window on the hub's register bus (docs/link.md,
// docs/papers_regmap.md "The PAPERS window on the link"), so that a PC
// without a parallel port runs the PAPERS unit of seed 000 over the link.
//
// Per PE it holds the registers such a PC would hold in its port (SIG = the
// data register's D, PROBE, IR and S bits; MASK = its barrier mask bits;
// CTRL = the control register at logic level) and an OWNER bit.  For a PE
// the link owns, papers_hub gets these registers instead of the PE's pins;
// for the others, the pins pass through untouched, so cabled PEs and link
// PEs barrier together.  Any write of SIG, MASK0/1 or CTRL, and a SYNC
// start, sets OWNER (the PE has moved onto the link); writing OWNER = 0
// hands the PE back to its pins.  After reset every PE is on its pins.
//
// The registers enter papers_hub through its 2-flop synchronizers like the
// pins do, so a link-owned PE sees exactly the timing of a cabled one: 4
// cycles from the write of S to GO (seed 000 section 3.1 via papers_hub).
//
// PRESENT0/1 read papers_hub's presence vector (a PE whose CE is 1; for a
// link PE, CE in its CTRL).
//
// Reads of STAT and IVEC come from papers_hub's registered status outputs,
// decoded as the PC would read them (GO = NOT Busy pin, seed 000 Table 4/7)
// and with the I bits of Table 4 (I_k = PE (a+k+1)%N) put back in PE order:
// IVEC bit j = PE j.  The bus PE's own bit reads 0.
//
// Bus (a slave on link_port's engine bus, window already decoded):
//   req_valid/req_ready/req_we/req_pe/req_reg/req_wdata, and for a CALL
//   access (docs/link.md rule 8) req_call and req_len; always ready.
//   rsp_valid four cycles after each request (the request is registered,
//   then decoded, then read and applied, then the answer put together:
//   timing; the UP5K could not place the hub's window decode and this
//   register decode in one 48 MHz cycle, nor the ECP5 the PE multiplexers
//   and the answer in one 100 MHz cycle at N = 32),
//   rsp_rdata (and rsp_rdata_hi, rsp_len for a finished CALL), rsp_err: 0 ok,
//   1 no such register (also a PE >= N, MASK1/IVEC1/LAST1 when N <= 32), 2
//   refused (a write to a read-only register; a CALL access to a register
//   that is not a CALL's, or a plain one to SYNC/CANCEL; a bad CALL len or
//   operand; see CALL below), 3 PENDING (a CALL that has not finished).
//
// CALL: SYNC and CANCEL (docs/papers_regmap.md).  Each PE has a small state
// machine (g_call) that performs, on that PE's own registers, the PC's
// _p_wait/_p_waitvec of seed 000 section 4.3.2-4.3.3 as libaggnet's
// Papers::sync + waitvec do it over the link in four round trips:
//   RWAIT   wait for GO low (the previous barrier's reset; our D may still
//           be read by the PEs of that barrier, so D is not changed yet)
//   ARRIVE  SIG := D|S|PROBE (IR kept); wait for GO high; once PROBE has
//           settled, collect in LAST every PE of our mask seen arrived (I
//           bits with PROBE), for a CANCEL to tell those that arrived and
//           left from those that never came
//   SETTLE  SIG := D|S (PROBE off, S kept so that nobody's GO resets and
//           changes D under us); wait SETTLE cycles for the I bits to show D
//   SDONE   LAST := the I bits (PE order) of our mask, our own bit = D;
//           SIG := D (S off: the barrier resets); the result waits for its ask
// and for CANCEL:
//   WDRAW1  (from ARRIVE) wait until PROBE has settled, LAST |= arrivals
//           (I bits with PROBE, of our mask: with what ARRIVE collected,
//           every PE seen arrived during the wait), SIG := D (S and PROBE off)
//   WDRAW2  SETTLE cycles more, watching GO (sticky): a GO our S caused
//           before it dropped shows within them; outcome FIRED or WITHDRAWN
//   CDONE   the outcome waits for its ask
// A CANCEL in the other states is answered at once: IDLE NONE, RWAIT
// RESET_WAIT (back to IDLE, nothing changed), SDONE FINISHED (the vector
// stays in LAST), CDONE the outcome not yet collected; in SETTLE (GO has
// come) it waits for the SYNC to finish and answers FINISHED.  With a mask
// naming us, a GO our S caused cannot fall before WDRAW2's last sample (it
// needs our S low in the core), so the sticky bit only matters for a mask
// that leaves us out.
// A CALL start or ask is answered from the state in stage 2 (below), in the
// same cycle as the state machine takes it, so back-to-back requests see
// each other's effects in order.  While a PE's state is not IDLE its plain
// writes of SIG, MASK0/1, CTRL and OWNER are refused (the machine owns
// them), and so is a second SYNC; a CANCEL is always taken.  The machine
// reads GO from papers_hub's pe_go, the PAL's GO register registered in the
// same cycle as the status: the seed's _p_wait reads it through Table 7,
// where an IR interrupt of a PE naming us reads GO = 0, and a PC would then
// take the interrupt and clear IR; the hub cannot, and SIG writes (IR) are
// refused during a SYNC, so the machine looks past the interrupt.
// Timing: the states are one-hot, the settle counter keeps its own zero
// flag, SIG is written bit by bit from set and clear terms and the answer
// is read like a register (each was once the UP5K's critical path; the
// board tops' placed Fmax is in docs/figures/bitstreams.csv).
//
// SETTLE (the one settle constant, measured by tests/test_papers_call.cpp):
// a SIG write at clock edge E lands in papers_hub's 2-flop synchronizer at
// E+1 and E+2 and in its registered status (I bits, GO) at E+3; the core's
// GO register, fed from the synchronized S before it changes, sets at E+2 at
// the latest, so a GO our old S caused is in the status by E+3 too.  The
// machine loads its counter with SETTLE = 3 at E and acts when it reads 0,
// at E+4, where it samples what the status register took at E+3.
//
// Departures from the seed: none in the PAPERS logic (papers_hub is used
// unchanged but for its pe_go output); the window itself is an aggnet extension.  Mask bits naming
// PEs >= N are not stored (they read 0), so over the link a mask cannot
// name an absent PE (the seed's PARANOID check, in hardware).  With SYNC
// the hub, not the PC, performs the PC's barrier sequence (one CALL and
// one RESULT per barrier); the pins papers_hub sees are the ones the PC's
// sequence would drive, so cabled and link PEs barrier together.  Per PE
// the machine keeps LAST (N bits), so the window costs about N*N more
// flip-flops (MASK is N*N already).
//
// Link-only (PINS = 0, papers_hub's link-only mode): every PE is on the
// link for good.  OWNER reads 1 from reset on; writing it 1 is taken and
// changes nothing, writing it 0 (hand the PE to pins it does not have) is
// REFUSED; pin_data and pin_ctrl are not read.  After reset each PE's MASK
// names only itself (with pins, 0: the pins decide until the link owns it).
//
// Parameters: N in 2..64; PINS 1 (pins and link, the default) or 0
// (link-only); MW and W are derived (max(N,4), MW+4).
module papers_bus #(
    parameter integer N  = 4,
    parameter integer PINS = 1,
    parameter integer MW = (N < 4) ? 4 : N,
    parameter integer W  = MW + 4
) (
    input  wire            clk,
    input  wire            rst,
    input  wire            req_valid,
    output wire            req_ready,
    input  wire            req_we,
    input  wire [5:0]      req_pe,
    input  wire [11:0]     req_reg,
    input  wire [31:0]     req_wdata,
    input  wire            req_call,
    input  wire [3:0]      req_len,
    output reg             rsp_valid,
    output reg  [31:0]     rsp_rdata,
    output reg  [31:0]     rsp_rdata_hi,
    output reg  [3:0]      rsp_len,
    output reg  [1:0]      rsp_err,
    input  wire [N*W-1:0]  pin_data,
    input  wire [N*5-1:0]  pin_ctrl,
    output wire [N*W-1:0]  hub_data,
    output wire [N*5-1:0]  hub_ctrl,
    input  wire [N*W-1:0]  hub_stat,
    input  wire [N-1:0]    hub_irq,
    input  wire [N-1:0]    hub_bad,
    input  wire [N-1:0]    hub_present,
    input  wire [N-1:0]    hub_go,
    input  wire [N-1:0]    hub_sv,
    input  wire [N-1:0]    hub_dv,
    input  wire [N-1:0]    hub_pv,
    output wire            moving
);
`include "papers_regs.vh"

    generate
        if (N < 2 || N > 64) begin : g_bad_n
            $error("papers_bus: N must be in 2..64");
        end
        if (MW != ((N < PAPERS_MIN_MW) ? PAPERS_MIN_MW : N) || W != MW + 4) begin : g_bad_widths
            $error("papers_bus: MW and W are derived from N; leave them at their defaults");
        end
        if (PINS != 0 && PINS != 1) begin : g_bad_pins
            $error("papers_bus: PINS must be 1 (pins) or 0 (link-only)");
        end
        if (PAPERS_DATA_D != 0 || PAPERS_DATA_PROBE != 1 || PAPERS_DATA_IR != 2 || PAPERS_DATA_S != 3 ||
            PAPERS_DATA_B0 != 4 || PAPERS_CTRL_WIDTH != 5) begin : g_bad_layout
            $error("papers_bus: SIG and CTRL mirror the data and control registers; tools/regmap.py changed them");
        end
    endgenerate

`include "bus_codes.vh"
    localparam integer LO = (N < 32) ? N : 32;   // PEs in MASK0 / IVEC0
    localparam integer PW = (N > 1) ? $clog2(N) : 1;  // PE index bits
    // the stride of the per-PE N-bit vectors below: a power of two up to
    // N = 16 (the UART-PE boards' sizes; "PE a's fields" below says why), N
    // above: the simulator shifts these vectors every cycle, and padding a
    // 40-PE model's to 64 cost it more than the barrel shifter costs a
    // synthesis (the larger built hubs, 32 and 64 PEs, are powers of two)
    localparam integer VS = (N <= 16) ? (1 << PW) : N;

    reg [3:0]    sig   [0:N-1];
    reg [N-1:0]  mask  [0:N-1];
    reg [4:0]    ctrl  [0:N-1];
    reg [N-1:0]  owner_r;  // with pins: the PE is on the link
    // link-only: every PE is on the link for good, a constant (so that no
    // pin/register choice is built for it)
    wire [N-1:0] owner = (PINS == 0) ? {N{1'b1}} : owner_r;
    reg [N-1:0]  last  [0:N-1];  // LAST0/1: the last SYNC's vector (or CANCEL's arrivals)

    // ---- what papers_hub sees -------------------------------------------------
    genvar a, j;
    generate
        for (a = 0; a < N; a = a + 1) begin : g_pe
            wire [MW-1:0] mask_mw;
            if (MW > N) begin : g_pad
                assign mask_mw = {{(MW - N){1'b0}}, mask[a]};
            end else begin : g_nopad
                assign mask_mw = mask[a];
            end
            assign hub_data[a*W +: W] = owner[a] ? {mask_mw, sig[a]} : pin_data[a*W +: W];
            // CTRL holds logic levels; papers_hub takes the cable's (CE active low).
            assign hub_ctrl[a*5 +: 5] = owner[a] ? ctrl[a] ^ PAPERS_CTRL_CABLE_INVERT : pin_ctrl[a*5 +: 5];
        end
    endgenerate

    // ---- read-back: status decoded, I bits in PE order ----------------------
    // With pins, PE a's I bits come from papers_hub's status (hub_stat).
    // Link-only, every mask is one of our registers, so the I bits of the
    // PEs that need them are computed here, from every PE's S, D and PROBE
    // as the status took them (hub_sv, hub_dv, hub_pv, registered with
    // hub_stat) and the masks: PE a's I bit for PE j is D_j, or with a's
    // PROBE S_j AND (j's mask names a), as papers_core's.  So nothing reads
    // hub_stat's N*(N-1) I bits, and synthesis drops them and papers_core's
    // PROBE multiplexers (docs/hardware.md, "64 PEs on the link", has the
    // sizes).  The masks are taken as they are now, where hub_stat's I bits
    // took them a cycle before: a mask changes only by a write, which the
    // bus takes one at a time, several cycles apart.
    wire [N*4-1:0] stat_of;   // per PE: BAD, IRQ, INT, GO
    wire [N*VS-1:0] ivec_of;  // with pins, per PE a at [a*VS +: N]: bit j = PE j (zeros up to VS)
    wire [N*VS-1:0] col_at;   // link-only, per PE a at [a*VS +: N]: bit j = PE j's mask names a
    generate
        for (a = 0; a < N; a = a + 1) begin : g_rd
            assign stat_of[a*4 + PAPERS_W_STAT_GO]  = !hub_stat[a*W + W - PAPERS_STATUS_GO_FROM_TOP];
            assign stat_of[a*4 + PAPERS_W_STAT_INT] = hub_stat[a*W + W - PAPERS_STATUS_INT_FROM_TOP];
            assign stat_of[a*4 + PAPERS_W_STAT_IRQ] = hub_irq[a];
            assign stat_of[a*4 + PAPERS_W_STAT_BAD] = hub_bad[a];
            for (j = 0; j < N; j = j + 1) begin : g_iv
                if (PINS == 0) begin : g_link
                    assign ivec_of[a*VS + j] = 1'b0;
                    assign col_at[a*VS + j] = mask[j][a];
                end else if (j == a) begin : g_self
                    assign ivec_of[a*VS + j] = 1'b0;
                    assign col_at[a*VS + j] = 1'b0;
                end else begin : g_other
                    // PE j is I_k of PE a for k = (j - a - 1) mod N (Table 4).
                    assign ivec_of[a*VS + j] = hub_stat[a*W + PAPERS_STATUS_I0 + ((j - a - 1 + N) % N)];
                    assign col_at[a*VS + j] = 1'b0;
                end
            end
            if (VS > N) begin : g_pad
                assign ivec_of[a*VS + N +: VS - N] = {(VS - N){1'b0}};
                assign col_at[a*VS + N +: VS - N] = {(VS - N){1'b0}};
            end
        end
    endgenerate

    // ---- requests -------------------------------------------------------------
    // Stage 0 registers the request as it came; stage 1 decodes it (the
    // write to apply, the read's one-hot selects, the answer's error code);
    // stage 2 reads (PE p's registers, into x_*) and writes from those
    // registers; stage 3 puts the answer together.
    assign req_ready = 1'b1;
    // stage 0: the request as it came, with its register named one-hot and
    // its PE checked (timing: stage 1's error code from the raw number and
    // PE was the UP5K's critical path at 48 MHz)
    localparam integer K_SIG = 0, K_MASK0 = 1, K_MASK1 = 2, K_CTRL = 3, K_STAT = 4, K_IVEC0 = 5,
                       K_IVEC1 = 6, K_OWNER = 7, K_PRES0 = 8, K_PRES1 = 9, K_SYNC = 10, K_CANCEL = 11,
                       K_LAST0 = 12, K_LAST1 = 13, KN = 14;
    reg        q_valid, q_we, q_ok, q_call;
    reg [5:0]  q_pe;
    reg [KN-1:0] q_k;
    reg [31:0] q_wdata;
    reg        q_len0, q_len1;  // the CALL's len is 0 / 1 (the only ones SYNC and CANCEL take)
    wire       is_hi_ok = N > 32;
    always @(posedge clk) begin
        q_valid <= req_valid && !rst;
        q_we    <= req_we;
        q_call  <= req_call;
        q_len0  <= req_len == 4'd0;
        q_len1  <= req_len == 4'd1;
        q_pe    <= req_pe;
        q_ok    <= {26'd0, req_pe} < N;
        q_wdata <= req_wdata;
        q_k[K_SIG]   <= req_reg == PAPERS_W_SIG;
        q_k[K_MASK0] <= req_reg == PAPERS_W_MASK0;
        q_k[K_MASK1] <= req_reg == PAPERS_W_MASK1 && is_hi_ok;
        q_k[K_CTRL]  <= req_reg == PAPERS_W_CTRL;
        q_k[K_STAT]  <= req_reg == PAPERS_W_STAT;
        q_k[K_IVEC0] <= req_reg == PAPERS_W_IVEC0;
        q_k[K_IVEC1] <= req_reg == PAPERS_W_IVEC1 && is_hi_ok;
        q_k[K_OWNER] <= req_reg == PAPERS_W_OWNER;
        q_k[K_PRES0] <= req_reg == PAPERS_W_PRESENT0;
        q_k[K_PRES1] <= req_reg == PAPERS_W_PRESENT1 && is_hi_ok;
        q_k[K_SYNC]   <= req_reg == PAPERS_W_SYNC;
        q_k[K_CANCEL] <= req_reg == PAPERS_W_CANCEL;
        q_k[K_LAST0]  <= req_reg == PAPERS_W_LAST0;
        q_k[K_LAST1]  <= req_reg == PAPERS_W_LAST1 && is_hi_ok;
    end
    // stage 1: decoded
    reg           s_valid;
    reg  [PW-1:0] p;
    integer       ph;
    reg  [N-1:0]  p_hot;  // p, one-hot: the writes below are per-PE enables, not indexed stores
    reg  [31:0]   s_wdata;
    reg           w_sig, w_mask0, w_mask1, w_ctrl, w_owner;  // the write to apply, decoded
    reg           w_guard;  // one of them: refused in stage 2 if the PE's machine is busy
    reg           c_sync, c_cancel, c_ask;  // a well-formed CALL start of SYNC / CANCEL, or an ask
    // the same per PE, one-hot (timing: the machines take these flops
    // directly instead of ANDing c_* with p_hot in front of their enables)
    reg  [N-1:0]  h_sync, h_cancel, h_ask;
    wire          w_any = q_valid && q_we && q_ok && !q_call;
    // registers a PE may write, those it may only read (MASK1, IVEC1,
    // PRESENT1, LAST1 exist only for N > 32: their q_k bits are 0 otherwise)
    // and the CALL registers
    wire          k_rw = |{q_k[K_SIG], q_k[K_MASK0], q_k[K_MASK1], q_k[K_CTRL], q_k[K_OWNER]};
    wire          k_ro = |{q_k[K_STAT], q_k[K_IVEC0], q_k[K_IVEC1], q_k[K_PRES0], q_k[K_PRES1],
                           q_k[K_LAST0], q_k[K_LAST1]};
    wire          k_call = q_k[K_SYNC] || q_k[K_CANCEL];
    wire          cq = q_valid && q_ok && q_call;
    // A CALL start's operands: SYNC takes one byte, D at bit 0 (7..1 reserved, 0); CANCEL none
    wire          sync_ok = q_k[K_SYNC] && q_len1 && q_wdata[7:1] == 7'd0;
    wire          cancel_ok = q_k[K_CANCEL] && q_len0;
    always @(posedge clk) begin
        s_valid <= q_valid && !rst;
        p       <= q_ok ? q_pe[PW-1:0] : {PW{1'b0}};
        for (ph = 0; ph < N; ph = ph + 1) begin
            p_hot[ph]    <= {26'd0, q_pe} == ph;
            h_sync[ph]   <= !rst && cq && q_we && sync_ok && {26'd0, q_pe} == ph;
            h_cancel[ph] <= !rst && cq && q_we && cancel_ok && {26'd0, q_pe} == ph;
            h_ask[ph]    <= !rst && cq && !q_we && k_call && {26'd0, q_pe} == ph;
        end
        s_wdata <= q_wdata;
        w_sig   <= !rst && w_any && q_k[K_SIG];
        w_mask0 <= !rst && w_any && q_k[K_MASK0];
        w_mask1 <= !rst && w_any && q_k[K_MASK1];
        w_ctrl  <= !rst && w_any && q_k[K_CTRL];
        w_owner <= !rst && w_any && q_k[K_OWNER];
        w_guard <= !rst && w_any && k_rw;
        c_sync   <= !rst && cq && q_we && sync_ok;
        c_cancel <= !rst && cq && q_we && cancel_ok;
        c_ask    <= !rst && cq && !q_we && k_call;
    end

    // The read's selects, one-hot (timing: the register decode and the PE
    // mux in one cycle were the UP5K's critical path at 48 MHz).
    reg        e_sig, e_mask0, e_mask1, e_ctrl, e_stat, e_ivec0, e_ivec1, e_owner, e_pres0, e_pres1;
    reg        e_last0, e_last1;
    reg [1:0]  s_err;
    wire       owner_off = PINS == 0 && q_k[K_OWNER];  // link-only: OWNER := 0 is refused
    wire       rq_rd = q_valid && !q_we && q_ok && !q_call;
    always @(posedge clk) begin
        e_sig   <= rq_rd && q_k[K_SIG];
        e_mask0 <= rq_rd && q_k[K_MASK0];
        e_mask1 <= rq_rd && q_k[K_MASK1];
        e_ctrl  <= rq_rd && q_k[K_CTRL];
        e_stat  <= rq_rd && q_k[K_STAT];
        e_ivec0 <= rq_rd && q_k[K_IVEC0];
        e_ivec1 <= rq_rd && q_k[K_IVEC1];
        e_owner <= rq_rd && q_k[K_OWNER];
        e_pres0 <= rq_rd && q_k[K_PRES0];
        e_pres1 <= rq_rd && q_k[K_PRES1];
        e_last0 <= rq_rd && q_k[K_LAST0];
        e_last1 <= rq_rd && q_k[K_LAST1];
        // refused: a write to a read-only register, a CALL access to a plain
        // register or a plain one to a CALL register, a CALL start whose len
        // or operand does not fit (stage 2 adds what depends on the machine)
        s_err   <= (!q_ok || !(k_rw || k_ro || k_call)) ? LINK_BUS_NO_REG :
                   (k_ro && q_we) || (q_call != k_call) || (owner_off && q_we && !q_wdata[0]) ||
                   (q_call && q_we && !sync_ok && !cancel_ok) ? LINK_BUS_REFUSED : LINK_BUS_OK;
    end

    // Right-aligned into 32 bits.
    function [31:0] lo32(input [N-1:0] v);
        integer b;
        begin
            lo32 = 32'd0;
            for (b = 0; b < LO; b = b + 1) lo32[b] = v[b];
        end
    endfunction

    // Stage 2 selects PE p's registers and registers them (x_*), with the
    // read's selects (f_*); stage 3 puts the answer together (timing: the
    // PE multiplexers and the answer's AND-OR in one cycle were the ECP5
    // link hub's critical path at N = 32).
    //
    // Each group of SG bits of the selected row has its own copy of p
    // (timing: one p drove every first-level multiplexer LUT, about 16 (3N +
    // 14) loads at N = 32, and its routing was half the link hub's critical
    // path on the ECP5).  The copies' always blocks are (* keep *): without
    // it yosys merges identical flops back into one.  Each group reads PE
    // p's fields by a shift of p times the field's width out of one packed
    // vector per field (a multiplexer tree on p's bits; synthesis keeps only
    // the group's bits of each).  Not from the per-PE arrays directly: yosys
    // reads those through a decoder of p per group.  Not from a packed row
    // of every PE's fields cut into a column per group: the simulator copies
    // that row and every column each cycle.
    localparam integer RW = 4 + 4 + 5 + 1 + 3 * N;       // sig, stat, ctrl, owner, mask, ivec, last
    localparam integer SG = 8;
    localparam integer NG = (RW + SG - 1) / SG;
    wire [RW-1:0] x_row;
    // PE a's N-bit fields at a power-of-two stride (VS bits up to N = 16,
    // zeros between), so that PE p's are a shift by p's bits alone: with a
    // stride of N yosys multiplies p by it and builds a barrel shifter over
    // every PE's bits (docs/hardware.md, "UART PEs", has papers_bus's size
    // both ways).  CTRL's stride of 5 is left: padding it to 8 changed
    // nothing but the netlists.
    wire [4*N-1:0]  sig_of;
    wire [5*N-1:0]  ctrl_of;
    wire [VS*N-1:0] mask_at, last_at;
    generate
        for (a = 0; a < N; a = a + 1) begin : g_pk
            assign sig_of[a*4 +: 4] = sig[a];
            assign ctrl_of[a*5 +: 5] = ctrl[a];
            assign mask_at[a*VS +: N] = mask[a];
            assign last_at[a*VS +: N] = last[a];
            if (VS > N) begin : g_pad
                assign mask_at[a*VS + N +: VS - N] = {(VS - N){1'b0}};
                assign last_at[a*VS + N +: VS - N] = {(VS - N){1'b0}};
            end
        end
    endgenerate
    // the row's I-bit field: PE p's I bits with pins, link-only the column
    // of masks naming p (x_ivec below computes p's I bits from it)
    wire [VS*N-1:0] iv_at = (PINS != 0) ? ivec_of : col_at;
    genvar gs;
    generate
        for (gs = 0; gs < NG; gs = gs + 1) begin : g_sel
            localparam integer LOB = gs * SG;
            localparam integer WB = (RW - LOB < SG) ? RW - LOB : SG;
            reg  [PW-1:0]   pc;
            wire [31:0]     pw = {{(32 - PW){1'b0}}, pc};
            /* verilator lint_off UNUSEDSIGNAL */ // the group keeps its WB bits of the row
            wire [RW-1:0]   row_p = {sig_of[pw * 4 +: 4], stat_of[pw * 4 +: 4], ctrl_of[pw * 5 +: 5], owner[pc],
                                     mask_at[pw * VS +: N], iv_at[pw * VS +: N], last_at[pw * VS +: N]};
            /* verilator lint_on UNUSEDSIGNAL */
            reg  [WB-1:0]   xr;
            (* keep *) always @(posedge clk) pc <= q_ok ? q_pe[PW-1:0] : {PW{1'b0}};
            always @(posedge clk) xr <= row_p[LOB +: WB];
            assign x_row[LOB +: WB] = xr;
        end
    endgenerate
    wire [3:0]   x_sig, x_stat;
    wire [4:0]   x_ctrl;
    wire         x_owner;
    wire [N-1:0] x_mask, x_iv, x_last;  // x_last: read, and an ask's answer (gated after)
    assign {x_sig, x_stat, x_ctrl, x_owner, x_mask, x_iv, x_last} = x_row;
    // PE p's I bits: with pins read as they are; link-only from the column
    // of masks naming p (x_iv), S, D and p's PROBE as the status took them,
    // p's own bit 0 (papers_core's I bits)
    wire [N-1:0] x_ivec;
    generate
        if (PINS != 0) begin : g_xiv_pins
            assign x_ivec = x_iv;
            wire unused_link = &{1'b0, hub_sv, hub_dv, hub_pv};  // the I bits come from hub_stat
        end else begin : g_xiv_link
            reg [N-1:0] x_sv, x_dv, x_self;
            reg         x_pv;
            always @(posedge clk) begin
                x_sv <= hub_sv;
                x_dv <= hub_dv;
                x_pv <= |(hub_pv & p_hot);
                x_self <= p_hot;
            end
            assign x_ivec = (x_pv ? (x_sv & x_iv) : x_dv) & ~x_self;
        end
    endgenerate
    reg  [N-1:0] x_pres;
    reg          f_sig, f_mask0, f_mask1, f_ctrl, f_stat, f_ivec0, f_ivec1, f_owner, f_pres0, f_pres1;
    reg          f_last0, f_last1;
    always @(posedge clk) begin
        x_pres  <= hub_present;
        {f_sig, f_mask0, f_mask1, f_ctrl, f_stat, f_ivec0, f_ivec1, f_owner, f_pres0, f_pres1, f_last0, f_last1} <=
            {e_sig, e_mask0, e_mask1, e_ctrl, e_stat, e_ivec0, e_ivec1, e_owner, e_pres0, e_pres1, e_last0, e_last1};
    end
    wire [31:0] rd = ({32{f_sig}}   & {28'd0, x_sig}) |
                     ({32{f_mask0}} & lo32(x_mask)) |
                     ({32{f_mask1}} & hi_bits(x_mask)) |
                     ({32{f_ctrl}}  & {27'd0, x_ctrl}) |
                     ({32{f_stat}}  & {28'd0, x_stat}) |
                     ({32{f_ivec0}} & lo32(x_ivec)) |
                     ({32{f_ivec1}} & hi_bits(x_ivec)) |
                     ({32{f_owner}} & {31'd0, x_owner}) |
                     ({32{f_pres0}} & lo32(x_pres)) |
                     ({32{f_pres1}} & hi_bits(x_pres)) |
                     ({32{f_last0}} & lo32(x_last)) |
                     ({32{f_last1}} & hi_bits(x_last));

    // Bits 32..N-1 of an N-bit vector, right-aligned (0 when N <= 32).
    function [31:0] hi_bits(input [N-1:0] v);
        integer b;
        begin
            hi_bits = 32'd0;
            for (b = 32; b < N; b = b + 1) hi_bits[b - 32] = v[b];
        end
    endfunction

    // The write data for MASK0 / MASK1, merged into PE p's N-bit mask.
    function [N-1:0] mask_write(input [N-1:0] old, input [31:0] d, input hi);
        integer b;
        begin
            mask_write = old;
            for (b = 0; b < N; b = b + 1) begin
                if (!hi && b < 32) mask_write[b] = d[b];
                if (hi && b >= 32) mask_write[b] = d[b - 32];
            end
        end
    endfunction

    // ---- CALL: per-PE state machines (see the header) ----------------------
    localparam [2:0] CX_NONE = PAPERS_W_CANCEL_NONE, CX_RESET_WAIT = PAPERS_W_CANCEL_RESET_WAIT,
                     CX_WITHDRAWN = PAPERS_W_CANCEL_WITHDRAWN, CX_FINISHED = PAPERS_W_CANCEL_FINISHED,
                     CX_FIRED = PAPERS_W_CANCEL_FIRED;
    // Edges from a SIG write (edge E) to the status register holding its
    // effect (E+3: 2 in sync2, 1 in papers_hub's status register; a GO the
    // old S caused is in the core's GO register by E+2, the status by E+3);
    // the machine samples the status at E+SETTLE+1.  See the header.
    localparam integer SETTLE = 3;
    localparam [1:0] SETTLE_CNT = SETTLE[1:0];
    // Result bytes of a SYNC: one bit per PE.
    localparam integer LEN_VEC_I = (N + 7) / 8;
    localparam [3:0] LEN_VEC = LEN_VEC_I[3:0];

    // What stage 2 needs of PE a's machine, as flags (one AND-OR over p_hot each)
    wire [N-1:0] busy;      // anything in progress or uncollected: plain writes and SYNC refused
    wire [N-1:0] res_sync;  // a SYNC result waits for its ask (SDONE)
    wire [N-1:0] res_cx;    // a CANCEL outcome waits for its ask (CDONE)
    wire [N-1:0] cx_now;    // a CANCEL now is answered at once (cx_code), not PENDING
    wire [N*3-1:0] cx_code; // ... with this outcome (0 when not cx_now)
    wire [N*3-1:0] outc_of; // the CANCEL outcome an ask in CDONE is answered
    // and what it writes into PE a's registers (g_w)
    wire [N-1:0]   m_start;            // a SYNC start taken: OWNER := 1
    wire [N*4-1:0] sig_next;           // PE a's SIG next cycle (a plain write, or the machine's)
    wire [N-1:0]   m_last_we, m_last_clr;
    wire [N*N-1:0] m_last;
    wire [N-1:0]   m_count;   // a machine counts its settle cycles
    wire [N-1:0]   m_sig;     // a machine changes its SIG this cycle

    genvar gc;
    generate
        for (gc = 0; gc < N; gc = gc + 1) begin : g_call
            // The state, one-hot (timing: at 48 MHz on the UP5K a binary
            // state's decode in front of each enable was the critical path)
            reg       st_idle, st_rwait, st_arrive, st_settle, st_sdone, st_wdraw1, st_wdraw2, st_cdone;
            // The settle counter runs down by itself to 0 and is loaded with
            // SETTLE on entry to ARRIVE, SETTLE and WDRAW2; cz is "it reads
            // 0", kept as a flop so that no state waits on a compare.
            reg [1:0] cnt;
            reg       cz;
            reg       dop;       // the SYNC's D
            reg       cxl;       // a CANCEL came while the SYNC was settling: outcome FINISHED
            reg       sticky;    // GO seen while S was being withdrawn
            reg [2:0] outc;      // the CANCEL's outcome (CDONE)
            wire      go = hub_go[gc];  // the PAL's GO, registered with the status (not Table 7's read)
            // The data vector (PE order) of our mask, our own bit = our D;
            // the arrivals (with PROBE on) of our mask, our own bit 0 as IVEC reads.
            wire [N-1:0] own = {{(N-1){1'b0}}, dop} << gc;
            wire [N-1:0] vec, arrived;
            if (PINS != 0) begin : g_iv_pins
                wire [N-1:0] ivec = ivec_of[gc*VS +: N];
                assign vec = (ivec & mask[gc]) | own;
                assign arrived = ivec & mask[gc];
            end else begin : g_iv_link
                // link-only: the I bits the machine reads, from S and D (see
                // "read-back"): vec is read in SETTLE, where our PROBE is
                // off (dropped at SETTLE's entry, settled before cz), and
                // arrived in ARRIVE and WDRAW1 once cz says our PROBE (raised
                // at ARRIVE's entry) has settled: so no PROBE select is needed
                wire [N-1:0] other = ~({{(N-1){1'b0}}, 1'b1} << gc);
                assign vec = (hub_dv & mask[gc] & other) | own;
                assign arrived = hub_sv & col_at[gc*VS +: N] & mask[gc] & other;
            end
            wire start = h_sync[gc] && st_idle;   // answered PENDING (REFUSED unless IDLE)
            wire cx    = h_cancel[gc];
            wire ask   = h_ask[gc];
            // the transitions
            wire to_arrive = st_rwait && !cx && !go;         // SIG := D|S|PROBE
            wire to_settle = st_arrive && go;                // SIG := D|S: PROBE off, let D settle
            wire to_wdraw1 = st_arrive && !go && cx;
            wire to_wdraw2 = st_wdraw1 && cz;                // LAST := arrived, SIG := D
            wire fin_sync  = st_settle && cz;                // LAST := vec, SIG := D
            wire to_sdone  = fin_sync && !cxl && !cx;
            wire to_cdone  = (fin_sync && (cxl || cx)) || (st_wdraw2 && cz);
            wire handed    = (st_sdone || st_cdone) && (ask || cx);  // the result is handed over
            assign busy[gc]     = !st_idle;
            assign res_sync[gc] = st_sdone;
            assign res_cx[gc]   = st_cdone;
            assign cx_now[gc]   = st_idle || st_rwait || st_sdone || st_cdone;
            assign cx_code[gc*3 +: 3] = ({3{st_rwait}} & CX_RESET_WAIT) | ({3{st_sdone}} & CX_FINISHED) |
                                        ({3{st_cdone}} & outc);
            assign outc_of[gc*3 +: 3] = outc;
            always @(posedge clk) begin
                if (rst) begin
                    {st_idle, st_rwait, st_arrive, st_settle, st_sdone, st_wdraw1, st_wdraw2, st_cdone} <= 8'b1000_0000;
                    cnt <= 2'd0;
                    cz <= 1'b1;
                    dop <= 1'b0;
                    cxl <= 1'b0;
                    sticky <= 1'b0;
                    outc <= CX_NONE;
                end else begin
                    st_idle   <= (st_idle && !start) || (st_rwait && cx) || handed;  // RWAIT: RESET_WAIT, nothing changed
                    st_rwait  <= start || (st_rwait && !cx && go);
                    st_arrive <= to_arrive || (st_arrive && !go && !cx);
                    st_settle <= to_settle || (st_settle && !cz);
                    st_sdone  <= to_sdone || (st_sdone && !ask && !cx);
                    st_wdraw1 <= to_wdraw1 || (st_wdraw1 && !cz);
                    st_wdraw2 <= to_wdraw2 || (st_wdraw2 && !cz);
                    st_cdone  <= to_cdone || (st_cdone && !ask && !cx);
                    if (to_arrive || to_settle || to_wdraw2) begin
                        cnt <= SETTLE_CNT;
                        cz  <= 1'b0;
                    end else if (!cz) begin
                        cnt <= cnt - 2'd1;
                        cz  <= cnt == 2'd1;
                    end
                    if (start) dop <= s_wdata[0];
                    if (start) cxl <= 1'b0;
                    else if ((to_settle || st_settle) && cx) cxl <= 1'b1;
                    if (to_wdraw1) sticky <= 1'b0;
                    else if (go) sticky <= 1'b1;
                    if (st_wdraw2 && cz) outc <= (sticky || go) ? CX_FIRED : CX_WITHDRAWN;
                    else if (fin_sync) outc <= CX_FINISHED;
                end
            end
            // What g_w writes for this machine.  SIG bit by bit as set and
            // clear terms (timing: a 4-bit mux behind a write enable was the
            // UP5K's critical path): a plain write (only while IDLE) takes
            // the bus value; else S and PROBE rise on entry to ARRIVE, PROBE
            // falls on entry to SETTLE, both fall when the SYNC finishes or
            // S is withdrawn; D takes the SYNC's D on entry to ARRIVE; IR is
            // kept.
            wire plain = w_sig && p_hot[gc] && st_idle;
            wire s_clr = fin_sync || to_wdraw2;
            wire p_clr = to_settle || to_wdraw2;
            assign sig_next[gc*4 + PAPERS_DATA_S] =
                plain ? s_wdata[PAPERS_DATA_S] : to_arrive || (sig[gc][PAPERS_DATA_S] && !s_clr);
            assign sig_next[gc*4 + PAPERS_DATA_PROBE] =
                plain ? s_wdata[PAPERS_DATA_PROBE] : to_arrive || (sig[gc][PAPERS_DATA_PROBE] && !p_clr);
            assign sig_next[gc*4 + PAPERS_DATA_D] =
                plain ? s_wdata[PAPERS_DATA_D] : to_arrive ? dop : sig[gc][PAPERS_DATA_D];
            assign sig_next[gc*4 + PAPERS_DATA_IR] = plain ? s_wdata[PAPERS_DATA_IR] : sig[gc][PAPERS_DATA_IR];
            assign m_start[gc]   = start;
            assign m_count[gc]   = st_settle || st_wdraw1 || st_wdraw2;
            assign m_sig[gc]     = to_arrive || to_settle || fin_sync || to_wdraw2;
            // LAST collects the arrivals itself: cleared while ARRIVE waits
            // for PROBE to settle (cz low), then every cycle of ARRIVE ORs in
            // the arrivals of that moment, and so does a withdrawal at
            // WDRAW1's end; a finished SYNC overwrites it with the data
            // vector.  So LAST keeps the previous SYNC's vector until S is
            // raised, and shows the arrivals seen so far while we wait for
            // GO.  Its clear and enable are the state flops and cz alone
            // (timing: an enable through the CANCEL decode and the state's
            // next value was once the UP5K's critical path), and no second
            // N-bit register per PE holds the arrivals.
            assign m_last_clr[gc] = st_arrive && !cz;
            assign m_last_we[gc] = (st_arrive && cz) || fin_sync || to_wdraw2;
            assign m_last[gc*N +: N] = st_settle ? vec : (last[gc] | arrived);
        end
    endgenerate

    // moving: the machines' state moves on by itself (for the link port's
    // idle, which only a simulation reads; a board leaves it unused): one
    // counts its settle cycles, or one changed its SIG in the last SETTLE + 1
    // cycles, which reaches every machine's GO and I bits through
    // papers_hub's synchronizers and status register.
    reg [2:0] mv_cnt;
    always @(posedge clk) begin
        if (rst) mv_cnt <= 3'd0;
        else if (|m_sig) mv_cnt <= SETTLE[2:0] + 3'd1;
        else if (mv_cnt != 3'd0) mv_cnt <= mv_cnt - 3'd1;
    end
    assign moving = |m_count || |m_sig || mv_cnt != 3'd0;

    // Stage 2's answer to a CALL, from PE p's machine as it is in this cycle
    wire       busy_p = |(busy & p_hot);
    wire       rsync_p = |(res_sync & p_hot);
    wire       rcx_p = |(res_cx & p_hot);
    wire       cxnow_p = |(cx_now & p_hot);
    wire       give_vec  = c_ask && rsync_p;                          // the SYNC's vector (LAST)
    wire       give_code = (c_ask && rcx_p) || (c_cancel && cxnow_p);  // a CANCEL's outcome
    wire [1:0] err2 = c_sync   ? (busy_p ? LINK_BUS_REFUSED : LINK_BUS_PENDING) :
                      c_cancel ? (cxnow_p ? LINK_BUS_OK : LINK_BUS_PENDING) :
                      c_ask    ? (!busy_p ? LINK_BUS_REFUSED : (rsync_p || rcx_p) ? LINK_BUS_OK : LINK_BUS_PENDING) :
                      (w_guard && busy_p) ? LINK_BUS_REFUSED : s_err;
    // The result data: an ask reads PE p's LAST through the read
    // multiplexer, gated after it with "p's SYNC had finished" (rsync_p; the
    // CANCEL outcome with rcx_p), a CANCEL start its cx_code (0 unless
    // answered at once), so rdata is 0 whenever err is not.  (Gating every
    // PE's LAST before the multiplexer cost N*N LUTs: at N = 64 the hub's
    // link-only build is sized in docs/hardware.md.)  All of it decided in
    // stage 2, from the machine's state in that cycle, and registered for
    // stage 3.
    reg         f_valid, f_ask, f_cancel, f_rsync;
    reg  [2:0]  f_outc, f_cxc;
    reg  [3:0]  f_len;
    reg  [1:0]  f_err;
    always @(posedge clk) begin
        f_valid  <= s_valid && !rst;
        f_ask    <= c_ask;
        f_cancel <= c_cancel;
        f_rsync  <= rsync_p;
        f_outc   <= {3{rcx_p}} & outc_of[{26'd0, p} * 3 +: 3];
        f_cxc    <= cx_code[{26'd0, p} * 3 +: 3];
        f_len    <= give_vec ? LEN_VEC : give_code ? 4'd1 : 4'd0;
        f_err    <= err2;
    end
    wire [N-1:0] ans = {N{f_rsync}} & x_last;
    wire [31:0]  rd_call = ({32{f_ask}} & (lo32(ans) | {29'd0, f_outc})) |
                           ({32{f_cancel}} & {29'd0, f_cxc});

    always @(posedge clk) begin
        if (rst) begin
            rsp_valid    <= 1'b0;
            rsp_rdata    <= 32'd0;
            rsp_rdata_hi <= 32'd0;
            rsp_len      <= 4'd0;
            rsp_err      <= LINK_BUS_OK;
        end else begin
            rsp_valid    <= f_valid;
            rsp_rdata    <= rd | rd_call;
            rsp_rdata_hi <= {32{f_ask}} & hi_bits(ans);
            rsp_len      <= f_len;
            rsp_err      <= f_err;
        end
    end

    // PE a's registers, written when the write is for a (p_hot[a]) and a's
    // machine is idle (busy: refused in err2); the w_* are the writes s_err
    // above lets through.  SIG comes from sig_next (g_call: a plain write,
    // or the machine's), LAST from the machine.
    genvar ga;
    generate
        for (ga = 0; ga < N; ga = ga + 1) begin : g_w
            always @(posedge clk) begin
                if (rst) begin
                    owner_r[ga] <= 1'b0;
                    sig[ga]   <= 4'd0;
                    // link-only: every PE starts alone (its own bit), as an
                    // absent PE reads, so that no GO toggles on an empty mask
                    mask[ga]  <= (PINS == 0) ? {{(N-1){1'b0}}, 1'b1} << ga : {N{1'b0}};
                    ctrl[ga]  <= 5'd1 << PAPERS_CONTROL_CE;  // present once the link owns it
                    last[ga]  <= {N{1'b0}};
                end else begin
                    sig[ga] <= sig_next[ga*4 +: 4];  // a plain write of SIG is in sig_next
                    if (m_last_clr[ga]) last[ga] <= {N{1'b0}};
                    else if (m_last_we[ga]) last[ga] <= m_last[ga*N +: N];
                    if (p_hot[ga] && !busy[ga]) begin
                        if (w_sig)   owner_r[ga] <= 1'b1;
                        if (w_mask0) begin mask[ga] <= mask_write(mask[ga], s_wdata, 1'b0); owner_r[ga] <= 1'b1; end
                        if (w_mask1) begin mask[ga] <= mask_write(mask[ga], s_wdata, 1'b1); owner_r[ga] <= 1'b1; end
                        if (w_ctrl)  begin ctrl[ga] <= s_wdata[4:0]; owner_r[ga] <= 1'b1; end
                        if (w_owner) owner_r[ga] <= s_wdata[0];  // link-only: not read (owner is 1)
                        if (m_start[ga]) owner_r[ga] <= 1'b1;      // a SYNC start: the PE is on the link
                    end
                end
            end
        end
    endgenerate
endmodule
`default_nettype wire
