`default_nettype none
// papers_display: the section 3.2 status display (seed 000, "the prototype
// LED display": one column of 10 LEDs per PE, {CE, IR, U1, U0, D, S,
// B3..B0}) for boards with far fewer LEDs than N columns.  A slow scan
// selects one PE at a time and, within it, one page of its column; the
// board top decides which column bits (and the PE number) each page shows
// on its LEDs (docs/hardware.md, "The status display", has every board's
// table).
//
// Schedule: each page lasts PAGE_CYCLES clock cycles; pages 0..PAGES-1 of
// PE 0, then of PE 1, ... PE N-1, then PE 0 again.  After reset: PE 0,
// page 0.  `col` is PE sel's column straight from papers_hub's registered
// pe_led (a mux on registered select lines: no glitch a person could see).
//
// Parameters: N in 2..64, LW = papers_hub's column width (MW + 6), PAGES in
// 1..8, PAGE_CYCLES >= 1 (a top sets it from its clock: ~0.5 s per page).
module papers_display #(
    parameter integer N           = 4,
    parameter integer LW          = 10,
    parameter integer PAGES       = 2,
    parameter integer PAGE_CYCLES = 1000
) (
    input  wire            clk,
    input  wire            rst,
    input  wire [N*LW-1:0] pe_led,
    output reg  [5:0]      sel /*verilator public_flat_rd*/,
    output reg  [2:0]      page /*verilator public_flat_rd*/,
    output wire [LW-1:0]   col
);
    localparam integer CW = (PAGE_CYCLES > 1) ? $clog2(PAGE_CYCLES) : 1;

    generate
        if (N < 2 || N > 64) begin : g_bad_n
            $error("papers_display: N must be in 2..64");
        end
        if (PAGES < 1 || PAGES > 8) begin : g_bad_pages
            $error("papers_display: PAGES must be in 1..8");
        end
        if (PAGE_CYCLES < 1) begin : g_bad_cycles
            $error("papers_display: PAGE_CYCLES must be >= 1");
        end
    endgenerate

    reg [CW-1:0] cnt;
    always @(posedge clk) begin
        if (rst) begin
            cnt  <= {CW{1'b0}};
            page <= 3'd0;
            sel  <= 6'd0;
        end else if ({{(32 - CW){1'b0}}, cnt} != PAGE_CYCLES - 1) begin
            cnt <= cnt + 1'b1;
        end else begin
            cnt <= {CW{1'b0}};
            if ({29'd0, page} != PAGES - 1) begin
                page <= page + 3'd1;
            end else begin
                page <= 3'd0;
                sel  <= ({26'd0, sel} == N - 1) ? 6'd0 : sel + 6'd1;
            end
        end
    end

    assign col = pe_led[{26'd0, sel} * LW +: LW];
endmodule
`default_nettype wire
