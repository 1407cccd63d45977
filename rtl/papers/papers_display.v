`default_nettype none
// papers_display: the section 3.2 status display (seed 000, "the prototype
// LED display": one column of 10 LEDs per PE, {CE, IR, U1, U0, D, S,
// B3..B0}) for boards with far fewer LEDs than N columns.  A slow scan
// shows one PE at a time and, within it, one page of its column on the
// board's LEDs, with the PE's number (docs/hardware.md, "The status
// display", has the same tables for users).
//
// Schedule: each page lasts PAGE_CYCLES clock cycles; pages 0..PAGES-1 of
// PE 0, then of PE 1, ... PE N-1, then PE 0 again.  After reset: PE 0,
// page 0.  An absent PE's column is dark (papers_hub, Presence).
//
// LAYOUT (string) chooses the board's LEDs.  Two register stages (the PE's
// column, then the LEDs, so that a flop drives each LED pin and the hub
// keeps its clock): the LEDs show the PE, page and column of two cycles
// before.
// Lit = 1.  Column bits: c[9] CE, c[8] IR, c[7] U1, c[6] U0, c[5] D,
// c[4] S, c[3:0] B3..B0.
//   "LED8"  8 LEDs, 2 pages: leds[7:6] = the PE (binary);
//           page 0 leds[5:0] = {CE, IR, U1, U0, D, S};
//           page 1 leds[5:0] = {0, 0, B3, B2, B1, B0}.
//   "LED5"  4 red leds[3:0] and a green leds[4], 3 pages:
//           page 0 red = the PE (LED k for PE k), green = CE;
//           page 1 red = {IR, U1, U0, D}, green = S;
//           page 2 red = B3..B0, green off.
//   "RGB"   a red leds[0], a green leds[1] and an RGB LED leds[4:2] =
//           {blue, green, red}, 5 pages of {red, green}: {CE, S}, {IR, D},
//           {U1, U0}, {B1, B0}, {B3, B2}; on page 0 the RGB LED names the
//           PE (PE0 red, PE1 green, PE2 blue, PE3 white), dark otherwise.
// The PE number fits 4 PEs: these layouts need N <= 4 (boards are PAPERS-4).
//
// `sel` and `page` are readable from simulation (verilator public) so that
// tests/test_board_tops.cpp checks the LEDs against the reference model.
//
// Parameters: N in 2..4, LW = papers_hub's column width (10 for N <= 4),
// LAYOUT as above, PAGE_CYCLES >= 1 (a top sets it from its clock: 0.5 s).
module papers_display #(
    parameter integer N           = 4,
    parameter integer LW          = 10,
    parameter [31:0]  LAYOUT      = "LED8",
    parameter integer PAGE_CYCLES = 1000
) (
    input  wire            clk,
    input  wire            rst,
    input  wire [N*LW-1:0] pe_led,
    output reg  [7:0]      leds
);
    localparam [31:0] L_LED8 = "LED8";
    localparam [31:0] L_LED5 = "LED5";
    localparam [31:0] L_RGB  = {8'd0, "RGB"};
    localparam integer PAGES = (LAYOUT == L_LED8) ? 2 : (LAYOUT == L_LED5) ? 3 : 5;
    localparam integer CW    = (PAGE_CYCLES > 1) ? $clog2(PAGE_CYCLES) : 1;

    generate
        if (N < 2 || N > 4) begin : g_bad_n
            $error("papers_display: N must be in 2..4 (the LED layouts show at most 4 PE numbers)");
        end
        if (LW != 10) begin : g_bad_lw
            $error("papers_display: LW must be papers_hub's column width, 10 for N <= 4");
        end
        if (LAYOUT != L_LED8 && LAYOUT != L_LED5 && LAYOUT != L_RGB) begin : g_bad_layout
            $error("papers_display: LAYOUT must be \"LED8\", \"LED5\" or \"RGB\"");
        end
        if (PAGE_CYCLES < 1) begin : g_bad_cycles
            $error("papers_display: PAGE_CYCLES must be >= 1");
        end
    endgenerate

    reg [1:0]    sel  /*verilator public_flat_rd*/;
    reg [2:0]    page /*verilator public_flat_rd*/;
    // A down-counter with a sign bit: PAGE_CYCLES - 2 down to -1 is one page
    // (no wide compare on the hub clock's path).
    localparam integer RELOAD_I = PAGE_CYCLES - 2;
    localparam [CW:0]  RELOAD   = RELOAD_I[CW:0];
    reg [CW:0] cnt;
    always @(posedge clk) begin
        if (rst) begin
            cnt  <= RELOAD;
            page <= 3'd0;
            sel  <= 2'd0;
        end else if (!cnt[CW]) begin
            cnt <= cnt - 1'b1;
        end else begin
            cnt <= RELOAD;
            if ({29'd0, page} != PAGES - 1) begin
                page <= page + 3'd1;
            end else begin
                page <= 3'd0;
                sel  <= ({30'd0, sel} == N - 1) ? 2'd0 : sel + 2'd1;
            end
        end
    end

    // Stage 1: the shown PE's column, with the PE and page it belongs to.
    reg [9:0] c;
    reg [1:0] sel_q;
    reg [2:0] page_q;
    integer k;
    always @(posedge clk) begin
        c <= pe_led[0 +: LW];
        for (k = 1; k < N; k = k + 1)
            if ({30'd0, sel} == k) c <= pe_led[k*LW +: LW];
        sel_q  <= sel;
        page_q <= page;
    end

    // Stage 2: the board's LEDs.
    wire [3:0] onehot = 4'b0001 << sel_q;
    wire [2:0] colour = (sel_q == 2'd3) ? 3'b111 : onehot[2:0];  // {blue, green, red}
    reg  [7:0] next;
    always @(*) begin
        next = 8'd0;
        if (LAYOUT == L_LED8) begin
            next = {sel_q, (page_q == 3'd0) ? c[9:4] : {2'b00, c[3:0]}};
        end else if (LAYOUT == L_LED5) begin
            case (page_q)
                3'd0:    next[4:0] = {c[9], onehot};
                3'd1:    next[4:0] = {c[4], c[8:5]};
                default: next[4:0] = {1'b0, c[3:0]};
            endcase
        end else begin
            case (page_q)
                3'd0:    next[4:0] = {colour, c[4], c[9]};
                3'd1:    next[4:0] = {3'b000, c[5], c[8]};
                3'd2:    next[4:0] = {3'b000, c[6], c[7]};
                3'd3:    next[4:0] = {3'b000, c[0], c[1]};
                default: next[4:0] = {3'b000, c[2], c[3]};
            endcase
        end
    end

    always @(posedge clk) leds <= next;
endmodule
`default_nettype wire
