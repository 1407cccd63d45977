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
//   rsp_valid two cycles after each request (the request is registered,
//   then decoded and applied: timing), rsp_rdata, rsp_err: 0 ok,
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
    // Stage 1 registers the request (and its PE range check); stage 2
    // decodes, reads and writes from those registers.
    assign req_ready = 1'b1;
    reg           s_valid, s_we, pe_ok;
    reg  [PW-1:0] p;
    reg  [11:0]   s_reg;
    reg  [31:0]   s_wdata;
    reg           w_sig, w_mask0, w_mask1, w_ctrl, w_owner;  // the write to apply, decoded
    wire          is_hi_ok = N > 32;
    wire          w_any = req_valid && req_we && {26'd0, req_pe} < N;
    always @(posedge clk) begin
        s_valid <= req_valid && !rst;
        s_we    <= req_we;
        pe_ok   <= {26'd0, req_pe} < N;
        p       <= ({26'd0, req_pe} < N) ? req_pe[PW-1:0] : {PW{1'b0}};
        s_reg   <= req_reg;
        s_wdata <= req_wdata;
        w_sig   <= !rst && w_any && req_reg == PAPERS_W_SIG;
        w_mask0 <= !rst && w_any && req_reg == PAPERS_W_MASK0;
        w_mask1 <= !rst && w_any && req_reg == PAPERS_W_MASK1 && is_hi_ok;
        w_ctrl  <= !rst && w_any && req_reg == PAPERS_W_CTRL;
        w_owner <= !rst && w_any && req_reg == PAPERS_W_OWNER;
    end

    reg [31:0] rd;
    reg [1:0]  err;
    always @(*) begin
        rd  = 32'd0;
        err = ERR_OK;
        if (!pe_ok) begin
            err = ERR_NO_REG;
        end else begin
            case (s_reg)
                PAPERS_W_SIG:   rd[3:0] = sig[p];
                PAPERS_W_MASK0: rd[LO-1:0] = mask[p][LO-1:0];
                PAPERS_W_MASK1: if (is_hi_ok) rd = hi_bits(mask[p]); else err = ERR_NO_REG;
                PAPERS_W_CTRL:  rd[4:0] = ctrl[p];
                PAPERS_W_STAT:  begin
                                    rd[3:0] = stat_of[{26'd0, p} * 4 +: 4];
                                    if (s_we) err = ERR_REFUSED;
                                end
                PAPERS_W_IVEC0: begin
                                    rd[LO-1:0] = ivec_of[{26'd0, p} * N +: LO];
                                    if (s_we) err = ERR_REFUSED;
                                end
                PAPERS_W_IVEC1: begin
                                    if (is_hi_ok) rd = hi_bits(ivec_of[{26'd0, p} * N +: N]); else err = ERR_NO_REG;
                                    if (s_we && is_hi_ok) err = ERR_REFUSED;
                                end
                PAPERS_W_OWNER: rd[0] = owner[p];
                PAPERS_W_PRESENT0: begin
                                    rd[LO-1:0] = hub_present[LO-1:0];
                                    if (s_we) err = ERR_REFUSED;
                                end
                PAPERS_W_PRESENT1: begin
                                    if (is_hi_ok) rd = hi_bits(hub_present); else err = ERR_NO_REG;
                                    if (s_we && is_hi_ok) err = ERR_REFUSED;
                                end
                default:        err = ERR_NO_REG;
            endcase
        end
    end

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

    integer i;
    always @(posedge clk) begin
        if (rst) begin
            rsp_valid <= 1'b0;
            rsp_rdata <= 32'd0;
            rsp_err   <= ERR_OK;
            owner     <= {N{1'b0}};
            for (i = 0; i < N; i = i + 1) begin
                sig[i]  <= 4'd0;
                mask[i] <= {N{1'b0}};
                ctrl[i] <= 5'd1 << PAPERS_CONTROL_CE;  // present once the link owns it
            end
        end else begin
            rsp_valid <= s_valid;
            rsp_rdata <= s_we ? 32'd0 : rd;
            rsp_err   <= err;
            // (the w_* are the writes err above lets through)
            if (w_sig)   begin sig[p] <= s_wdata[3:0]; owner[p] <= 1'b1; end
            if (w_mask0) begin mask[p] <= mask_write(mask[p], s_wdata, 1'b0); owner[p] <= 1'b1; end
            if (w_mask1) begin mask[p] <= mask_write(mask[p], s_wdata, 1'b1); owner[p] <= 1'b1; end
            if (w_ctrl)  begin ctrl[p] <= s_wdata[4:0]; owner[p] <= 1'b1; end
            if (w_owner) owner[p] <= s_wdata[0];
        end
    end
endmodule
`default_nettype wire
