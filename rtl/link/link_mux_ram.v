`default_nettype none
// link_mux_ram: one of link_mux's small per-stream memories (the parser's
// state, the input FIFOs' read pointers, the counters; rtl/link/link_mux.v,
// docs/link_mux.md "Size"): D words of W bits, one write port and one read
// port whose data is registered (rd is the word at ra of the cycle before,
// as it was before that cycle's write).  Where it is built:
//   LUTRAM = 0: block RAM (yosys puts memories this small in flip-flops
//               otherwise; the iCE40 parts have no LUT RAM).  The read comes
//               out of the RAM's own output register, slow to clock-to-out
//               (about 5.8 ns on the ECP5's DP16KD).
//   LUTRAM = 1: LUT RAM (the ECP5's TRELLIS_DPR16X4): an asynchronous read
//               into a flip-flop, so what reads rd starts at a flip-flop.
// NO_RW_CHECK = 1 (block RAM only): no read-during-write logic; the user
// promises that a read never meets a write to the same word in one cycle,
// or that the word read then is never used.  LUT RAM reads the old word
// anyway (the write lands at the clock edge that registers the read).
//
// Parameters: W >= 1, D >= 2, AW with 2^AW >= D, LUTRAM and NO_RW_CHECK 0
// or 1.
module link_mux_ram #(
    parameter integer W           = 8,
    parameter integer D           = 2,
    parameter integer AW          = 1,
    parameter integer LUTRAM      = 0,
    parameter integer NO_RW_CHECK = 0
) (
    input  wire          clk,
    input  wire          we,
    input  wire [AW-1:0] wa,
    input  wire [W-1:0]  wd,
    input  wire [AW-1:0] ra,
    output reg  [W-1:0]  rd
);
    generate
        if (W < 1 || D < 2 || (1 << AW) < D) begin : g_bad
            $error("link_mux_ram: W >= 1, D >= 2 and 2^AW >= D");
        end
        if (LUTRAM != 0 && LUTRAM != 1) begin : g_bad_lut
            $error("link_mux_ram: LUTRAM must be 0 or 1");
        end
        if (LUTRAM != 0) begin : g_lut
            (* ram_style = "distributed" *) reg [W-1:0] m [0:D-1];
            always @(posedge clk) begin
                if (we) m[wa] <= wd;
                rd <= m[ra];
            end
        end else if (NO_RW_CHECK != 0) begin : g_block_nrw
            (* ram_style = "block", no_rw_check *) reg [W-1:0] m [0:D-1];
            always @(posedge clk) begin
                if (we) m[wa] <= wd;
                rd <= m[ra];
            end
        end else begin : g_block
            (* ram_style = "block" *) reg [W-1:0] m [0:D-1];
            always @(posedge clk) begin
                if (we) m[wa] <= wd;
                rd <= m[ra];
            end
        end
    endgenerate
endmodule
`default_nettype wire
