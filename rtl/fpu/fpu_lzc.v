`default_nettype none
// fpu_lzc: leading-zero count of a 2^L-bit word, as a balanced tree (no
// priority chain), for the normalizing shifts of rtl/fpu/.  Combinational.
//
// n = the number of zero bits above the most significant 1 of x (bit
// 2^L-1 is the most significant); n = 2^L when x is 0.
//
// The tree: at level l every group of 2^l bits holds "has a one" (v) and
// the count of its leading zeros when it has one (c, l bits).  A group's
// count is its upper half's when that half has a one, else 2^(l-1) plus
// its lower half's.  Depth: L levels of a 2:1 choice.
//
// Parameters: L = 1..8 (2- to 256-bit words).
module fpu_lzc #(
    parameter integer L = 6
) (
    input  wire [(1<<L)-1:0] x,
    output wire [L:0]        n
);
    generate
        if (L < 1 || L > 8) begin : g_bad_l
            $error("fpu_lzc: L must be in 1..8");
        end
    endgenerate

    localparam integer W = 1 << L;

    function automatic [L:0] count(input [W-1:0] bits);
        reg [W-1:0]   v;
        reg [W*L-1:0] c;
        reg [L-1:0]   ch, cl;
        reg           vh, vl;
        reg [L-1:0]   half;
        integer       lv, g;
        begin
            v = bits;
            c = {W*L{1'b0}};
            // level lv combines groups 2g+1 (upper) and 2g of level lv-1 into
            // group g, in place: group g is written after 2g and 2g+1 are read
            for (lv = 1; lv <= L; lv = lv + 1) begin
                for (g = 0; g < (W >> lv); g = g + 1) begin
                    vh = v[2*g+1];
                    vl = v[2*g];
                    ch = c[(2*g+1)*L +: L];
                    cl = c[(2*g)*L +: L];
                    v[g] = vh | vl;
                    half = {L{1'b0}};
                    half[lv-1] = 1'b1;
                    c[g*L +: L] = vh ? ch : (cl | half);
                end
            end
            count = v[0] ? {1'b0, c[L-1:0]} : {1'b1, {L{1'b0}}};
        end
    endfunction

    assign n = count(x);
endmodule
`default_nettype wire
