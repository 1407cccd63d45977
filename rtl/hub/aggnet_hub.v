`default_nettype none
// aggnet_hub: the one hub top.  Every engine hangs on one register bus with
// its own address window (docs/link.md, "Engine windows"); one link port
// carries reads, writes and waits for every engine over a byte stream; the
// wire-level engines keep their per-PE pins as well.  Board tops wire this
// to pins, a UART and a PLL clock; the virtual hub simulates it unchanged.
//
//   pins (per PE) -------------------------------------.
//                                                      v
//   link bytes -> link_port -> bus -> [window 0: INFO (here)]
//                                      [window w: engine slot w] -> pins
//
// The engines are not named here: each engine's manifest declares a "slot"
// (its slot module, the parameters and pins it adds to this top, its map
// hash) and tools/hubgen.py writes the three includes below from them
// (docs/engines.md).  Each engine is built in while its parameter
// EN_<ENGINE> is 1 (the manifest gives the default); with 0 its pins are
// tied low and its window answers NO_REG.  Today: PAPERS (seed 000, window
// 1, EN_PAPERS = 1) and the test-only scratch registers (window 15,
// EN_SCRATCH = 0).  The INFO window (0) is this module's: the hub's
// identity, size, engines, clock, a cycle counter, each engine's
// register-map hash and the link statistics (tools/linkgen.py INFO).
//
// Ports: clk, rst; every engine's pins (aggnet_hub_ports.vh; PAPERS:
// pe_data, pe_ctrl, pe_stat, pe_led, pe_irq, pe_bad exactly as papers_hub's);
// link_rx_valid/link_rx_data/link_rx_ferr, link_tx_valid/link_tx_ready/
// link_tx_data: link_port's byte streams (a UART's, or the virtual hub's
// socket bytes, at most one byte per cycle in); link_rx_held: link_port's
// rx_held, for a simulation's flow control (a UART leaves it unconnected);
// link_idle: link_port's idle (nothing can change without a new byte), for a
// simulation that stops its clock then; the engines' settle times and busy
// outputs (ENG_SETTLE, eng_busy) come from aggnet_hub_engines.vh.
// link_gone[a]: PE a's own link has gone silent (a multiplexer's stream
// past its keep-alive bound): every engine whose slot says "gone": true
// (its input pe_gone) then treats PE a as unplugged; 0 for a single stream.
// mux_absent, mux_cnt_raddr/mux_cnt_rdata: a link multiplexer's absent
// flags and its counters' read port (rtl/link/link_mux.v, docs/link_mux.md:
// the counter at {k, i} one cycle after the address) when MUX_S streams feed
// the link port through one (rtl/hub/aggnet_mux_hub.v), shown in the INFO
// window (MUX_STREAMS, MUX_ABSENT, MUX_COUNT + 8k + i); ignored when
// MUX_S = 0.
//
// Bus contract for slots (rtl/link/link_port.v is the master): a request is
// taken when bus_req_valid && bus_req_ready, the slave's own window only;
// exactly one response per request, in a later cycle; rdata and err are 0
// while rsp_valid is low, so the responses are ORed.  A CALL access
// (bus_req_call) reaches only a slot that takes CALLs ("call": true in its
// manifest, with the five CALL ports); to INFO or any other window it finds
// no engine and is answered NO_REG.
//
// Parameters: N in 2..64 PEs.  LINK_PES in 1..N: PEs 0..LINK_PES-1 may be
// reached over the link (default all).  CLK_HZ in 10 kHz..655.35 MHz (HELLO
// and INFO report it).  IDLE_CYCLES: the link's inter-byte timeout
// (default 1 ms).  MUX_S: 0 (no multiplexer) or 2..32, the streams of the
// multiplexer in front of the link port; MUX_CNT_W in 1..16, its counters'
// width; MUX_USB_ANY its USB_ANY (both shown in INFO).  EN_<ENGINE> and the engines' derived parameters (PAPERS:
// MW, W, LW) come from aggnet_hub_params.vh.
module aggnet_hub #(
    parameter integer N           = 4,
    parameter integer LINK_PES    = N,
    parameter integer CLK_HZ      = 48000000,
    parameter integer IDLE_CYCLES = CLK_HZ / 1000,
    parameter integer MUX_S       = 0,
    parameter integer MUX_CNT_W   = 16,
    parameter integer MUX_USB_ANY = 1,
    parameter integer MUX_SW      = (MUX_S > 0) ? MUX_S : 1  // derived: leave at its default
`include "aggnet_hub_params.vh"
) (
    input  wire            clk,
    input  wire            rst,
`include "aggnet_hub_ports.vh"
    input  wire            link_rx_valid,
    input  wire [7:0]      link_rx_data,
    input  wire            link_rx_ferr,
    output wire            link_tx_valid,
    input  wire            link_tx_ready,
    output wire [7:0]      link_tx_data,
    output wire            link_rx_held,
    output wire            link_idle,
    input  wire [N-1:0]                    link_gone,
    input  wire [MUX_SW-1:0]               mux_absent,
    output wire [7:0]                      mux_cnt_raddr,
    input  wire [MUX_CNT_W-1:0]            mux_cnt_rdata
);
`include "link_defs.vh"
`include "bus_codes.vh"
    localparam integer STAT_W = LINK_STAT_COUNT * LINK_STAT_BITS;

    generate
        if (N < 2 || N > 64) begin : g_bad_n
            $error("aggnet_hub: N must be in 2..64");
        end
        if (LINK_PES < 1 || LINK_PES > N) begin : g_bad_link
            $error("aggnet_hub: LINK_PES must be in 1..N");
        end
        if (MUX_S < 0 || MUX_S == 1 || MUX_S > 32) begin : g_bad_mux
            $error("aggnet_hub: MUX_S must be 0 (no multiplexer) or in 2..32");
        end
        if (MUX_CNT_W < 1 || MUX_CNT_W > 16) begin : g_bad_mux_w
            $error("aggnet_hub: MUX_CNT_W must be in 1..16");
        end
        if (MUX_USB_ANY != 0 && MUX_USB_ANY != 1) begin : g_bad_mux_usb
            $error("aggnet_hub: MUX_USB_ANY must be 0 or 1");
        end
        if (MUX_SW != ((MUX_S > 0) ? MUX_S : 1)) begin : g_bad_mux_sw
            $error("aggnet_hub: MUX_SW is derived from MUX_S; leave it at its default");
        end
        if (LINK_MUX_COUNTERS != 5) begin : g_bad_mux_cnt
            $error("aggnet_hub: link_mux has five counters per stream (tools/linkgen.py MUX_COUNTERS)");
        end
    endgenerate

    // ---- the link port: master of the register bus ----------------------------
    wire        bus_req_valid, bus_req_ready, bus_req_we;
    wire [5:0]  bus_req_pe;
    wire [15:0] bus_req_addr;
    wire [31:0] bus_req_wdata;
    wire [2:0]  bus_req_size;
    wire        bus_req_call;
    wire [31:0] bus_req_wdata_hi;
    wire [3:0]  bus_req_len;
    wire        bus_rsp_valid;
    wire [31:0] bus_rsp_rdata;
    wire [1:0]  bus_rsp_err;
    wire [STAT_W-1:0] stats;

    // ---- window decode: INFO here, the engines' windows in
    // aggnet_hub_engines.vh; link_port has at most one request outstanding,
    // so the responses are simply ORed.
    wire [15:0] bus_req_win;  // the window, one-hot (link_port registers it)
    wire [11:0] reg_no = bus_req_addr[11:0];
    wire        to_info   = bus_req_valid && bus_req_win[LINK_WIN_INFO] && !bus_req_call;  // INFO takes no CALL

`include "aggnet_hub_engines.vh"

    localparam [15:0] ENGINES = 16'd1 << LINK_WIN_INFO | ENGINE_BITS;

    link_port #(
        .N(LINK_PES), .PE_ID(0), .HUB_PES(N), .ENGINES(ENGINES), .CLK_HZ(CLK_HZ),
        .IDLE_CYCLES(IDLE_CYCLES), .STAT_W(STAT_W), .SETTLE(ENG_SETTLE)
    ) u_link (
        .clk(clk), .rst(rst),
        .rx_valid(link_rx_valid), .rx_data(link_rx_data), .rx_ferr(link_rx_ferr),
        .tx_valid(link_tx_valid), .tx_ready(link_tx_ready), .tx_data(link_tx_data), .rx_held(link_rx_held),
        .bus_req_valid(bus_req_valid), .bus_req_ready(bus_req_ready), .bus_req_we(bus_req_we),
        .bus_req_pe(bus_req_pe), .bus_req_addr(bus_req_addr), .bus_req_win(bus_req_win), .bus_req_wdata(bus_req_wdata),
        .bus_req_size(bus_req_size), .bus_req_call(bus_req_call), .bus_req_wdata_hi(bus_req_wdata_hi),
        .bus_req_len(bus_req_len),
        .bus_rsp_valid(bus_rsp_valid), .bus_rsp_rdata(bus_rsp_rdata), .bus_rsp_err(bus_rsp_err),
        .bus_rsp_rdata_hi(eng_rsp_rdata_hi), .bus_rsp_len(eng_rsp_len),
        .stats(stats),
        .eng_busy(eng_busy), .idle(link_idle)
    );

    wire        to_none   = bus_req_valid && !to_info && !eng_present;
    assign bus_req_ready = eng_req_ready;

    // ---- window 0: INFO --------------------------------------------------------
    // Two stages (timing: on the UP5K the one-cycle decode and mux missed
    // the iCEBreaker's 48 MHz by far): the request's register number is
    // classified and registered, and
    // the next cycle muxes the value from registered selects.  The 64-bit
    // cycle counter is two 32-bit halves: the high half counts when the low
    // half wraps, told a cycle ahead by a registered compare (the low half
    // counts every cycle, so it is all ones exactly when it was ...FFFE the
    // cycle before), so both halves are always one instant's count and no
    // carry reaches a 32-bit adder through routing (timing: the UP5K placed
    // a registered carry into cyc_hi + carry, and into the latch's adder, as
    // its critical path).  A read of CYCLE_LO latches the high half, so the
    // pair read is one instant's count.
    generate
        if (LINK_INFO_MAP_HASH[3:0] != 4'd0 || LINK_INFO_STAT[3:0] != 4'd0 || LINK_STAT_COUNT > 16 ||
            LINK_INFO_CYCLE_HI > 12'h00f) begin : g_bad_info
            $error("aggnet_hub: the INFO decode needs MAP_HASH and STAT 16-aligned, <= 16 counters and the plain registers below 0x010");
        end
    endgenerate
    reg  [31:0] cyc_lo, cyc_hi, cycle_hi_latched;
    reg         cyc_wrap;   // cyc_lo is all ones: both halves step at this edge
    reg         info_rsp_valid, none_rsp_valid;
    reg  [31:0] info_rsp_rdata;
    reg  [1:0]  info_rsp_err;
    // stage 1: what the request names
    reg         i_pend;            // an INFO request was taken last cycle
    reg         i_hash, i_stat, i_plain, i_mux;
    reg  [3:0]  i_idx;             // reg_no[3:0]
    reg         i_we;
    wire [7:0]  reg_hi = reg_no[11:4];
    // Stage 1 also says whether the register exists (i_ok), so that stage 2's
    // error code is a function of two registered bits (timing: on the UP5K
    // neither the error decode after the selects nor one from the raw number
    // in stage 1 met 48 MHz).
    reg         i_ok;
    reg         plain_ok;
    always @(*) begin
        case ({8'd0, reg_no[3:0]})
            LINK_INFO_MAGIC, LINK_INFO_VERSION, LINK_INFO_HUB_PES, LINK_INFO_ENGINES,
            LINK_INFO_CLK_KHZ, LINK_INFO_CYCLE_LO, LINK_INFO_CYCLE_HI,
            LINK_INFO_MUX_STREAMS, LINK_INFO_MUX_ABSENT, LINK_INFO_MUX_CNT_W,
            LINK_INFO_MUX_USB_ANY: plain_ok = 1'b1;
            default: plain_ok = 1'b0;
        endcase
    end
    wire [1:0]  i_err = !i_ok ? LINK_BUS_NO_REG : i_we ? LINK_BUS_REFUSED : LINK_BUS_OK;  // all read-only
    // stage 2: the value
    reg  [31:0] info_rd;
    always @(*) begin
        info_rd  = 32'd0;
        if (i_hash) begin
            info_rd = eng_map_hash(i_idx);
        end else if (i_stat) begin
            info_rd = {16'd0, stat_at(i_idx)};
        end else if (i_mux) begin
            info_rd = {{(32 - MUX_CNT_W){1'b0}}, mux_cnt_rdata};
        end else if (i_plain) begin
            case ({8'd0, i_idx})
                LINK_INFO_MAGIC:    info_rd = LINK_INFO_MAGIC_VALUE;
                LINK_INFO_VERSION:  info_rd = {24'd0, LINK_VERSION};
                LINK_INFO_HUB_PES:  info_rd = N;
                LINK_INFO_ENGINES:  info_rd = {16'd0, ENGINES};
                LINK_INFO_CLK_KHZ:  info_rd = CLK_HZ / 1000;
                LINK_INFO_CYCLE_LO: info_rd = cyc_lo;
                LINK_INFO_CYCLE_HI: info_rd = cycle_hi_latched;
                LINK_INFO_MUX_STREAMS: info_rd = MUX_S;
                LINK_INFO_MUX_ABSENT:  info_rd = MUX_S > 0 ? {{(32 - MUX_SW){1'b0}}, mux_absent} : 32'd0;
                LINK_INFO_MUX_CNT_W:   info_rd = MUX_S > 0 ? MUX_CNT_W : 0;
                LINK_INFO_MUX_USB_ANY: info_rd = MUX_S > 0 ? MUX_USB_ANY : 0;
                default:            info_rd = 32'd0;
            endcase
        end
    end

    function [15:0] stat_at(input [3:0] i);
        integer k;
        begin
            stat_at = 16'd0;
            for (k = 0; k < LINK_STAT_COUNT; k = k + 1)
                if ({28'd0, i} == k) stat_at = stats[k*LINK_STAT_BITS +: 16];
        end
    endfunction

    // A MUX_COUNT register: stream k = reg_no[7:3] < MUX_S, counter i =
    // reg_no[2:0] < 5; the multiplexer's read port takes the address with
    // stage 1 and gives the counter in stage 2.
    assign mux_cnt_raddr = reg_no[7:0];
    wire [7:0] m_k = {3'd0, reg_no[7:3]};
    wire [7:0] m_i = {5'd0, reg_no[2:0]};
    localparam [7:0] MUX_S8 = MUX_S[7:0];
    localparam [7:0] MUX_NI = LINK_MUX_COUNTERS[7:0];
    wire       m_ok;
    generate
        if (MUX_S > 0) begin : g_mux_ok
            assign m_ok = (reg_no[11:8] == LINK_INFO_MUX_COUNT[11:8]) && (m_k < MUX_S8) && (m_i < MUX_NI);
        end else begin : g_no_mux_ok
            assign m_ok = 1'b0;
        end
    endgenerate
    generate
        if (LINK_INFO_MUX_COUNT[7:0] != 8'd0) begin : g_bad_mux_info
            $error("aggnet_hub: the INFO decode needs MUX_COUNT 256-aligned");
        end
    endgenerate

    always @(posedge clk) begin
        if (rst) begin
            cyc_lo           <= 32'd0;
            cyc_hi           <= 32'd0;
            cyc_wrap         <= 1'b0;
            cycle_hi_latched <= 32'd0;
            i_pend           <= 1'b0;
            i_hash           <= 1'b0;
            i_stat           <= 1'b0;
            i_plain          <= 1'b0;
            i_mux            <= 1'b0;
            i_idx            <= 4'd0;
            i_we             <= 1'b0;
            i_ok             <= 1'b0;
            info_rsp_valid   <= 1'b0;
            info_rsp_rdata   <= 32'd0;
            info_rsp_err     <= LINK_BUS_OK;
            none_rsp_valid   <= 1'b0;
        end else begin
            cyc_lo   <= cyc_lo + 32'd1;
            cyc_wrap <= cyc_lo == 32'hffff_fffe;
            if (cyc_wrap) cyc_hi <= cyc_hi + 32'd1;
            i_pend  <= to_info;
            i_hash  <= reg_hi == LINK_INFO_MAP_HASH[11:4];
            i_stat  <= reg_hi == LINK_INFO_STAT[11:4];
            i_plain <= reg_hi == 8'd0;
            i_mux   <= reg_no[11:8] == LINK_INFO_MUX_COUNT[11:8];
            i_idx   <= reg_no[3:0];
            i_we    <= bus_req_we;
            i_ok    <= (reg_hi == LINK_INFO_MAP_HASH[11:4]) ||
                       (reg_hi == LINK_INFO_STAT[11:4] && {28'd0, reg_no[3:0]} < LINK_STAT_COUNT) ||
                       (reg_hi == 8'd0 && plain_ok) || m_ok;
            info_rsp_valid <= i_pend;
            info_rsp_rdata <= i_pend ? info_rd : 32'd0;
            info_rsp_err   <= i_pend ? i_err : LINK_BUS_OK;
            none_rsp_valid <= to_none;
            if (i_pend && !i_we && i_plain && {8'd0, i_idx} == LINK_INFO_CYCLE_LO)
                cycle_hi_latched <= cyc_hi;
        end
    end

    // (With every engine left out, nothing reads the write fields.)
    wire unused_bus = &{1'b0, bus_req_pe, bus_req_wdata, bus_req_size, bus_req_wdata_hi, bus_req_len};
    // (Without a multiplexer its inputs are not read.)
    wire unused_mux = &{1'b0, mux_absent, mux_cnt_rdata, link_gone, m_k, m_i};

    assign bus_rsp_valid = info_rsp_valid | eng_rsp_valid | none_rsp_valid;
    assign bus_rsp_rdata = info_rsp_rdata | eng_rsp_rdata;
    assign bus_rsp_err   = none_rsp_valid ? LINK_BUS_NO_REG : (info_rsp_err | eng_rsp_err);

endmodule
`default_nettype wire
