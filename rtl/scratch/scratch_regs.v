`default_nettype none
// scratch_regs: a test-only engine, a slave on the engine register bus that
// rtl/link/link_port.v masters (docs/link.md, "The engine register bus").  It
// implements no seed section: it exists to prove that an engine is one folder
// and one manifest (docs/engines.md), and to give link tests a loopback
// register window with known contents, a write counter and optional latency
// and back-pressure.
//
// Bus contract (slave side):
//   bus_req_valid/ready  a request is taken in a cycle where both are high;
//                        its fields (we, pe, addr, wdata, size) are sampled
//                        in that cycle.  ready is low during rst and for GAP
//                        cycles after each taken request, else high.
//   bus_rsp_valid        high for one cycle exactly LATENCY cycles after the
//                        cycle a request was taken (so one response per
//                        request, in order, never without a request);
//                        rdata and err are 0 whenever rsp_valid is low.
//   bus_rsp_err          0 ok, 1 no such register, 2 refused (3 never).
//   bus_rsp_rdata        a read's value, right-aligned, all 32 bits (the
//                        master ignores bytes above size); 0 for writes and
//                        errors.
//   Writes take effect at the end of the cycle they are taken in, so a read
//   taken in the next cycle sees them.
//
// Register map: the slave answers addr[15:12] == WINDOW; any other window is
// "no such register" (err 1), so a mis-routed request is seen.  addr[11:0]:
//   0x000  ID      read-only: the ID parameter; a write is refused (err 2)
//   0x001  PE      read-only: the requesting PE (bus_req_pe); write refused
//   0x002  WCOUNT  read-only: writes applied to the scratch registers since
//                  reset, wrapping at 2^32; write refused
//   0x010 + i, i in 0..NREGS-1
//          SCRATCH[i]  read/write, 0 after reset; a write of size s (bytes)
//                  replaces the low s bytes and keeps the others
//   anything else  no such register (err 1)
// A request whose size is outside 1..4 (the bus never sends one) to an
// existing register is refused (err 2) and has no effect.
//
// Parameters (illegal values fail elaboration):
//   WINDOW   0..15, the bus window (addr[15:12]) this slave answers
//   NREGS    1..16 scratch registers
//   LATENCY  1..8 cycles from a taken request to its response
//   GAP      0..15 cycles of ready low after each taken request
//   ID       32-bit value of the ID register (default "SCR" 0x01)
`include "bus_ports.vh"
module scratch_regs #(
    parameter integer WINDOW  = 15,
    parameter integer NREGS   = 4,
    parameter integer LATENCY = 1,
    parameter integer GAP     = 0,
    parameter [31:0]  ID      = 32'h5343_5201
) (
    input  wire        clk,
    input  wire        rst,
    `AGGNET_BUS_SLAVE  // the engine bus, no CALL ports (rtl/bus/bus_ports.vh)
`ifdef FORMAL
    ,
    output wire [32*NREGS-1:0] f_regs,
    output wire [31:0]         f_wcount
`endif
);
    generate
        if (WINDOW < 0 || WINDOW > 15) begin : g_bad_window
            $error("scratch_regs: WINDOW must be in 0..15");
        end
        if (NREGS < 1 || NREGS > 16) begin : g_bad_nregs
            $error("scratch_regs: NREGS must be in 1..16");
        end
        if (LATENCY < 1 || LATENCY > 8) begin : g_bad_latency
            $error("scratch_regs: LATENCY must be in 1..8");
        end
        if (GAP < 0 || GAP > 15) begin : g_bad_gap
            $error("scratch_regs: GAP must be in 0..15");
        end
    endgenerate
`include "bus_codes.vh"

    localparam [11:0] REG_ID      = 12'h000;
    localparam [11:0] REG_PE      = 12'h001;
    localparam [11:0] REG_WCOUNT  = 12'h002;
    localparam [11:0] REG_SCRATCH = 12'h010;
    localparam integer NREGS_W    = NREGS;
    localparam [11:0] NREGS_12    = NREGS_W[11:0];
    localparam integer WINDOW_I   = WINDOW;
    localparam [3:0]  WINDOW_4    = WINDOW_I[3:0];
    localparam integer GAP_I      = GAP;
    localparam [3:0]  GAP_4       = GAP_I[3:0];

    reg [32*NREGS-1:0]   sregs;
    reg [31:0]           wcount;
    reg [3:0]            gap;
    reg [LATENCY-1:0]    p_valid;
    reg [2*LATENCY-1:0]  p_err;
    reg [32*LATENCY-1:0] p_data;

    assign bus_req_ready = !rst && gap == 4'd0;
    wire take = bus_req_valid && bus_req_ready;

    // ---- decode of the offered request ---------------------------------------
    wire [11:0] r       = bus_req_addr[11:0];
    wire [11:0] off     = r - REG_SCRATCH;
    wire        in_win  = bus_req_addr[15:12] == WINDOW_4;
    wire        is_scr  = in_win && r >= REG_SCRATCH && off < NREGS_12;
    wire [3:0]  idx     = off[3:0];
    wire        size_ok = bus_req_size >= 3'd1 && bus_req_size <= 3'd4;
    wire [31:0] bmask   = bus_req_size == 3'd1 ? 32'h0000_00FF :
                          bus_req_size == 3'd2 ? 32'h0000_FFFF :
                          bus_req_size == 3'd3 ? 32'h00FF_FFFF : 32'hFFFF_FFFF;
    // the addressed scratch register (0 when none is): a plain mux, no shifter
    reg  [31:0] cur;
    integer j;
    always @* begin
        cur = 32'h0;
        for (j = 0; j < NREGS; j = j + 1)
            if (idx == j[3:0]) cur = sregs[32*j +: 32];
    end

    reg [1:0]  err_n;
    reg [31:0] data_n;
    always @* begin
        err_n  = LINK_BUS_NO_REG;
        data_n = 32'h0;
        if (in_win && (r == REG_ID || r == REG_PE || r == REG_WCOUNT || is_scr)) begin
            if (!size_ok || (bus_req_we && !is_scr)) begin
                err_n = LINK_BUS_REFUSED;
            end else begin
                err_n = LINK_BUS_OK;
                if (!bus_req_we) begin
                    if (r == REG_ID)          data_n = ID;
                    else if (r == REG_PE)     data_n = {26'h0, bus_req_pe};
                    else if (r == REG_WCOUNT) data_n = wcount;
                    else                      data_n = cur;
                end
            end
        end
    end
    wire apply = take && bus_req_we && is_scr && size_ok;

    // ---- state and the response pipeline ---------------------------------------
    integer k;
    always @(posedge clk) begin
        if (rst) begin
            sregs   <= {32*NREGS{1'b0}};
            wcount  <= 32'h0;
            gap     <= 4'd0;
            p_valid <= {LATENCY{1'b0}};
            p_err   <= {2*LATENCY{1'b0}};
            p_data  <= {32*LATENCY{1'b0}};
        end else begin
            for (k = 0; k < NREGS; k = k + 1)
                if (apply && idx == k[3:0])
                    sregs[32*k +: 32] <= (cur & ~bmask) | (bus_req_wdata & bmask);
            if (apply) wcount <= wcount + 32'd1;
            if (take)              gap <= GAP_4;
            else if (gap != 4'd0)  gap <= gap - 4'd1;
            for (k = LATENCY - 1; k > 0; k = k - 1) begin
                p_valid[k]         <= p_valid[k-1];
                p_err[2*k +: 2]    <= p_err[2*(k-1) +: 2];
                p_data[32*k +: 32] <= p_data[32*(k-1) +: 32];
            end
            p_valid[0]   <= take;
            p_err[1:0]   <= take ? err_n : 2'd0;
            p_data[31:0] <= take ? data_n : 32'h0;
        end
    end

    assign bus_rsp_valid = p_valid[LATENCY-1];
    assign bus_rsp_err   = p_err[2*(LATENCY-1) +: 2];
    assign bus_rsp_rdata = p_data[32*(LATENCY-1) +: 32];
`ifdef FORMAL
    assign f_regs   = sregs;
    assign f_wcount = wcount;
`endif
endmodule
`default_nettype wire
