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
// PEs barrier together.  Any write of SIG, MASK0/1 or CTRL sets OWNER (the
// PE has moved onto the link); writing OWNER = 0 hands the PE back to its
// pins.  After reset every PE is on its pins.
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
//   req_valid/req_ready/req_we/req_pe/req_reg/req_wdata; always ready.
//   rsp_valid three cycles after each request (the request is registered,
//   then decoded, then read and applied: timing; the UP5K could not place
//   the hub's window decode and this register decode in one 48 MHz cycle),
//   rsp_rdata, rsp_err: 0 ok,
//   1 no such register (also a PE >= N, MASK1/IVEC1 when N <= 32), 2 refused
//   (a write to STAT or IVEC).
//
// Departures from the seed: none in the PAPERS logic (papers_hub is used
// unchanged); the window itself is an aggnet extension.  Mask bits naming
// PEs >= N are not stored (they read 0), so over the link a mask cannot
// name an absent PE (the seed's PARANOID check, in hardware).
//
// Parameters: N in 2..64; MW and W are derived (max(N,4), MW+4).
module papers_bus #(
    parameter integer N  = 4,
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
    output reg             rsp_valid,
    output reg  [31:0]     rsp_rdata,
    output reg  [1:0]      rsp_err,
    input  wire [N*W-1:0]  pin_data,
    input  wire [N*5-1:0]  pin_ctrl,
    output wire [N*W-1:0]  hub_data,
    output wire [N*5-1:0]  hub_ctrl,
    input  wire [N*W-1:0]  hub_stat,
    input  wire [N-1:0]    hub_irq,
    input  wire [N-1:0]    hub_bad,
    input  wire [N-1:0]    hub_present
);
`include "papers_regs.vh"

    generate
        if (N < 2 || N > 64) begin : g_bad_n
            $error("papers_bus: N must be in 2..64");
        end
        if (MW != ((N < PAPERS_MIN_MW) ? PAPERS_MIN_MW : N) || W != MW + 4) begin : g_bad_widths
            $error("papers_bus: MW and W are derived from N; leave them at their defaults");
        end
        if (PAPERS_DATA_D != 0 || PAPERS_DATA_PROBE != 1 || PAPERS_DATA_IR != 2 || PAPERS_DATA_S != 3 ||
            PAPERS_DATA_B0 != 4 || PAPERS_CTRL_WIDTH != 5) begin : g_bad_layout
            $error("papers_bus: SIG and CTRL mirror the data and control registers; tools/regmap.py changed them");
        end
    endgenerate

    localparam [1:0] ERR_OK = 2'd0, ERR_NO_REG = 2'd1, ERR_REFUSED = 2'd2;
    localparam integer LO = (N < 32) ? N : 32;   // PEs in MASK0 / IVEC0
    localparam integer PW = (N > 1) ? $clog2(N) : 1;  // PE index bits

    reg [3:0]    sig   [0:N-1];
    reg [N-1:0]  mask  [0:N-1];
    reg [4:0]    ctrl  [0:N-1];
    reg [N-1:0]  owner;

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
    wire [N*4-1:0] stat_of;   // per PE: BAD, IRQ, INT, GO
    wire [N*N-1:0] ivec_of;   // per PE: bit j = PE j
    generate
        for (a = 0; a < N; a = a + 1) begin : g_rd
            assign stat_of[a*4 + PAPERS_W_STAT_GO]  = !hub_stat[a*W + W - PAPERS_STATUS_GO_FROM_TOP];
            assign stat_of[a*4 + PAPERS_W_STAT_INT] = hub_stat[a*W + W - PAPERS_STATUS_INT_FROM_TOP];
            assign stat_of[a*4 + PAPERS_W_STAT_IRQ] = hub_irq[a];
            assign stat_of[a*4 + PAPERS_W_STAT_BAD] = hub_bad[a];
            for (j = 0; j < N; j = j + 1) begin : g_iv
                if (j == a) begin : g_self
                    assign ivec_of[a*N + j] = 1'b0;
                end else begin : g_other
                    // PE j is I_k of PE a for k = (j - a - 1) mod N (Table 4).
                    assign ivec_of[a*N + j] = hub_stat[a*W + PAPERS_STATUS_I0 + ((j - a - 1 + N) % N)];
                end
            end
        end
    endgenerate

    // ---- requests -------------------------------------------------------------
    // Stage 0 registers the request as it came; stage 1 decodes it (the
    // write to apply, the read's one-hot selects, the answer's error code);
    // stage 2 reads and writes from those registers.
    assign req_ready = 1'b1;
    // stage 0: the request as it came, with its register named one-hot and
    // its PE checked (timing: stage 1's error code from the raw number and
    // PE was the UP5K's critical path at 48 MHz)
    localparam integer K_SIG = 0, K_MASK0 = 1, K_MASK1 = 2, K_CTRL = 3, K_STAT = 4, K_IVEC0 = 5,
                       K_IVEC1 = 6, K_OWNER = 7, K_PRES0 = 8, K_PRES1 = 9, KN = 10;
    reg        q_valid, q_we, q_ok;
    reg [5:0]  q_pe;
    reg [KN-1:0] q_k;
    reg [31:0] q_wdata;
    wire       is_hi_ok = N > 32;
    always @(posedge clk) begin
        q_valid <= req_valid && !rst;
        q_we    <= req_we;
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
    end
    // stage 1: decoded
    reg           s_valid;
    reg  [PW-1:0] p;
    integer       ph;
    reg  [N-1:0]  p_hot;  // p, one-hot: the writes below are per-PE enables, not indexed stores
    reg  [31:0]   s_wdata;
    reg           w_sig, w_mask0, w_mask1, w_ctrl, w_owner;  // the write to apply, decoded
    wire          w_any = q_valid && q_we && q_ok;
    // registers a PE may write, and those it may only read (MASK1, IVEC1,
    // PRESENT1 exist only for N > 32: their q_k bits are 0 otherwise)
    wire          k_rw = |{q_k[K_SIG], q_k[K_MASK0], q_k[K_MASK1], q_k[K_CTRL], q_k[K_OWNER]};
    wire          k_ro = |{q_k[K_STAT], q_k[K_IVEC0], q_k[K_IVEC1], q_k[K_PRES0], q_k[K_PRES1]};
    always @(posedge clk) begin
        s_valid <= q_valid && !rst;
        p       <= q_ok ? q_pe[PW-1:0] : {PW{1'b0}};
        for (ph = 0; ph < N; ph = ph + 1) p_hot[ph] <= {26'd0, q_pe} == ph;
        s_wdata <= q_wdata;
        w_sig   <= !rst && w_any && q_k[K_SIG];
        w_mask0 <= !rst && w_any && q_k[K_MASK0];
        w_mask1 <= !rst && w_any && q_k[K_MASK1];
        w_ctrl  <= !rst && w_any && q_k[K_CTRL];
        w_owner <= !rst && w_any && q_k[K_OWNER];
    end

    // Stage 2's read is then an AND-OR of PE p's values (timing: the
    // register decode and the PE mux in one cycle were the UP5K's critical
    // path at 48 MHz).
    reg        e_sig, e_mask0, e_mask1, e_ctrl, e_stat, e_ivec0, e_ivec1, e_owner, e_pres0, e_pres1;
    reg [1:0]  s_err;
    wire       rq_rd = q_valid && !q_we && q_ok;
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
        s_err   <= (!q_ok || !(k_rw || k_ro)) ? ERR_NO_REG : (k_ro && q_we) ? ERR_REFUSED : ERR_OK;
    end

    // Right-aligned into 32 bits.
    function [31:0] lo32(input [N-1:0] v);
        integer b;
        begin
            lo32 = 32'd0;
            for (b = 0; b < LO; b = b + 1) lo32[b] = v[b];
        end
    endfunction

    wire [N-1:0] ivec_p = ivec_of[{26'd0, p} * N +: N];
    wire [31:0] rd = ({32{e_sig}}   & {28'd0, sig[p]}) |
                     ({32{e_mask0}} & lo32(mask[p])) |
                     ({32{e_mask1}} & hi_bits(mask[p])) |
                     ({32{e_ctrl}}  & {27'd0, ctrl[p]}) |
                     ({32{e_stat}}  & {28'd0, stat_of[{26'd0, p} * 4 +: 4]}) |
                     ({32{e_ivec0}} & lo32(ivec_p)) |
                     ({32{e_ivec1}} & hi_bits(ivec_p)) |
                     ({32{e_owner}} & {31'd0, owner[p]}) |
                     ({32{e_pres0}} & lo32(hub_present)) |
                     ({32{e_pres1}} & hi_bits(hub_present));

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

    always @(posedge clk) begin
        if (rst) begin
            rsp_valid <= 1'b0;
            rsp_rdata <= 32'd0;
            rsp_err   <= ERR_OK;
        end else begin
            rsp_valid <= s_valid;
            rsp_rdata <= rd;
            rsp_err   <= s_err;
        end
    end

    // PE a's registers, written when the write is for a (p_hot[a]); the w_*
    // are the writes s_err above lets through
    genvar ga;
    generate
        for (ga = 0; ga < N; ga = ga + 1) begin : g_w
            always @(posedge clk) begin
                if (rst) begin
                    owner[ga] <= 1'b0;
                    sig[ga]   <= 4'd0;
                    mask[ga]  <= {N{1'b0}};
                    ctrl[ga]  <= 5'd1 << PAPERS_CONTROL_CE;  // present once the link owns it
                end else if (p_hot[ga]) begin
                    if (w_sig)   begin sig[ga] <= s_wdata[3:0]; owner[ga] <= 1'b1; end
                    if (w_mask0) begin mask[ga] <= mask_write(mask[ga], s_wdata, 1'b0); owner[ga] <= 1'b1; end
                    if (w_mask1) begin mask[ga] <= mask_write(mask[ga], s_wdata, 1'b1); owner[ga] <= 1'b1; end
                    if (w_ctrl)  begin ctrl[ga] <= s_wdata[4:0]; owner[ga] <= 1'b1; end
                    if (w_owner) owner[ga] <= s_wdata[0];
                end
            end
        end
    endgenerate
endmodule
`default_nettype wire
