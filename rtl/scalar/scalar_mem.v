`default_nettype none
// scalar_mem: the receive buffers of the scalar engine (seed 003, chapter 6,
// "Modifications to Inprdy Interrupt Service Routine": the scalar
// communication buffer area, two words per message) as one simple
// dual-port memory of WORDS entries of W bits: one write port and one
// registered read port, the shape iCE40 EBR and ECP5 DP16KD/PDPW16KD infer
// from (no vendor primitive).
//
// Interface: in a cycle with we high, mem[waddr] <= wdata.  In a cycle with
// re high, rdata holds mem[raddr] from the next cycle on (until the next
// cycle with re high); a read of the address written in the same cycle
// returns the old word (scalar_engine never does both).  No reset: the
// contents are undefined until written, and the engine reads only entries
// it wrote.
// Parameters: WORDS 2..4096, W 1..72, AW >= clog2(WORDS).
module scalar_mem #(
    parameter integer WORDS = 256,
    parameter integer W     = 54,
    parameter integer AW    = 8
) (
    input  wire          clk,
    input  wire          we,
    input  wire [AW-1:0] waddr,
    input  wire [W-1:0]  wdata,
    input  wire          re,
    input  wire [AW-1:0] raddr,
    output reg  [W-1:0]  rdata
`ifdef FORMAL
    ,
    output wire [WORDS*W-1:0] f_mem  // every word, for the engine's harness: entry a at [a*W +: W]
`endif
);
    generate
        if (WORDS < 2 || WORDS > 4096) begin : g_bad_words
            $error("scalar_mem: WORDS must be in 2..4096");
        end
        if (W < 1 || W > 72) begin : g_bad_w
            $error("scalar_mem: W must be in 1..72");
        end
        if ((1 << AW) < WORDS) begin : g_bad_aw
            $error("scalar_mem: AW too narrow for WORDS");
        end
    endgenerate

    reg [W-1:0] mem [0:WORDS-1];
`ifdef FORMAL
    genvar g;
    generate
        for (g = 0; g < WORDS; g = g + 1) begin : g_f
            assign f_mem[g*W +: W] = mem[g];
        end
    endgenerate
`endif
    always @(posedge clk) begin
        if (we) mem[waddr] <= wdata;
        if (re) rdata <= mem[raddr];
    end
endmodule
`default_nettype wire
