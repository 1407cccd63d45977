`default_nettype none
// scratch_regs_props: formal harness for rtl/scratch/scratch_regs.v (its
// manifest names the jobs; formal/run.py runs them).  Every request field is
// free every cycle; the only assumption is reset in the first cycle.
//
// The harness keeps its own view, written from the register map in the
// header of scratch_regs.v rather than from its RTL: shadow scratch
// registers and write counter, and a LATENCY-deep pipeline of the responses
// the map gives for each taken request.
//   (p1) bus_rsp_valid is high exactly LATENCY cycles after a request was
//        taken and at no other time: one response per request, in order,
//        never a response without a request.
//   (p2) every response carries the err and rdata the map gives for its
//        request (against the shadow registers); rdata and err are 0 while
//        bus_rsp_valid is low.
//   (p3) bus_req_ready is low in reset and for exactly GAP cycles after a
//        taken request, and high otherwise.
//   (i)  inductive invariants: the slave's scratch registers and write
//        counter equal the shadow ones; the harness's gap count is at most
//        GAP (so a slave whose ready disagrees is caught within GAP cycles:
//        the jobs' steps are at least GAP + 2 and LATENCY + 1).
// Negative controls (must FAIL): SELFTEST_NORSP claims no response ever
// comes; SELFTEST_STUCK claims scratch register 0 always reads 0.
`include "bus_ports.vh"
module scratch_regs_props #(
    parameter integer NREGS   = 2,
    parameter integer LATENCY = 1,
    parameter integer GAP     = 0,
    parameter integer WINDOW  = 2
) (
    input wire        clk,
    input wire        rst,
    `AGGNET_BUS_REQ_FREE
);
`include "bus_codes.vh"
    localparam [31:0] ID = 32'hC0DE_5C7A;
    wire                bus_req_ready, bus_rsp_valid;
    wire [31:0]         bus_rsp_rdata;
    wire [1:0]          bus_rsp_err;
    wire [32*NREGS-1:0] f_regs;
    wire [31:0]         f_wcount;

    scratch_regs #(.WINDOW(WINDOW), .NREGS(NREGS), .LATENCY(LATENCY), .GAP(GAP), .ID(ID)) dut (
        .clk(clk), .rst(rst),
        `AGGNET_BUS_BIND,
        .f_regs(f_regs), .f_wcount(f_wcount)
    );

`ifdef FORMAL
    // ---- the map, written from the header -------------------------------------
    wire        take   = bus_req_valid && bus_req_ready;
    wire [3:0]  win    = bus_req_addr[15:12];
    wire [11:0] reg_no = bus_req_addr[11:0];
    reg  [32*NREGS-1:0] h_regs;
    reg  [31:0]         h_wcount;
    reg         exists, scratch, sz_ok;
    reg  [1:0]  e_err;
    reg  [31:0] e_data, e_mask;
    integer i;
    always @* begin
        scratch = 1'b0;
        for (i = 0; i < NREGS; i = i + 1)
            if (reg_no == 12'h010 + i) scratch = 1'b1;
        exists = win == WINDOW && (reg_no == 12'h000 || reg_no == 12'h001 || reg_no == 12'h002 || scratch);
        sz_ok  = bus_req_size != 3'd0 && bus_req_size <= 3'd4;
        e_mask = 32'h0;
        for (i = 0; i < 4; i = i + 1)
            if (i < bus_req_size) e_mask[8*i +: 8] = 8'hFF;
        e_err  = !exists ? LINK_BUS_NO_REG : (!sz_ok || (bus_req_we && !scratch)) ? LINK_BUS_REFUSED : LINK_BUS_OK;
        e_data = 32'h0;
        if (e_err == LINK_BUS_OK && !bus_req_we) begin
            case (reg_no)
                12'h000: e_data = ID;
                12'h001: e_data = {26'h0, bus_req_pe};
                12'h002: e_data = h_wcount;
                default: for (i = 0; i < NREGS; i = i + 1)
                             if (reg_no == 12'h010 + i) e_data = h_regs[32*i +: 32];
            endcase
        end
    end

    // ---- shadow state, expected-response pipeline, ready model -------------------
    reg [LATENCY-1:0]    h_valid;
    reg [2*LATENCY-1:0]  h_err;
    reg [32*LATENCY-1:0] h_data;
    reg [4:0]            h_gap;
    integer k;
    always @(posedge clk) begin
        if (rst) begin
            h_regs   <= {32*NREGS{1'b0}};
            h_wcount <= 32'h0;
            h_valid  <= {LATENCY{1'b0}};
            h_err    <= {2*LATENCY{1'b0}};
            h_data   <= {32*LATENCY{1'b0}};
            h_gap    <= 5'd0;
        end else begin
            if (take && bus_req_we && e_err == LINK_BUS_OK) begin
                for (i = 0; i < NREGS; i = i + 1)
                    if (reg_no == 12'h010 + i)
                        h_regs[32*i +: 32] <= (h_regs[32*i +: 32] & ~e_mask) | (bus_req_wdata & e_mask);
                h_wcount <= h_wcount + 32'd1;
            end
            for (k = LATENCY - 1; k > 0; k = k - 1) begin
                h_valid[k]         <= h_valid[k-1];
                h_err[2*k +: 2]    <= h_err[2*(k-1) +: 2];
                h_data[32*k +: 32] <= h_data[32*(k-1) +: 32];
            end
            h_valid[0]   <= take;
            h_err[1:0]   <= take ? e_err : 2'd0;
            h_data[31:0] <= take ? e_data : 32'h0;
            h_gap        <= take ? GAP : (h_gap != 0 ? h_gap - 5'd1 : 5'd0);
        end
    end

    reg past_valid = 1'b0;
    always @(posedge clk) past_valid <= 1'b1;
    initial assume (rst);

    always @* begin
        if (rst) assert (!bus_req_ready);                                   // (p3)
        if (past_valid && !rst) begin
            assert (f_regs == h_regs && f_wcount == h_wcount);             // (i)
            assert (bus_rsp_valid == h_valid[LATENCY-1]);                   // (p1)
            assert (bus_rsp_err == h_err[2*(LATENCY-1) +: 2]);              // (p2)
            assert (bus_rsp_rdata == h_data[32*(LATENCY-1) +: 32]);         // (p2)
            assert (bus_rsp_valid || (bus_rsp_err == 2'd0 && bus_rsp_rdata == 32'h0));
            assert (bus_rsp_err != LINK_BUS_PENDING);
            assert (bus_req_ready == (h_gap == 5'd0));                      // (p3)
            assert (h_gap <= GAP);                                          // (i)
`ifdef SELFTEST_NORSP
            assert (!bus_rsp_valid);
`endif
`ifdef SELFTEST_STUCK
            assert (f_regs[31:0] == 32'h0);
`endif
        end
    end
`endif
endmodule
`default_nettype wire
