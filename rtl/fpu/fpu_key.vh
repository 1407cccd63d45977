// fpu_key.vh: the total order on binary64 that fpu_minmax64 and the COP's
// MAXF / MINF tree (rtl/cop/cop_core.v) share; included inside a module.
//
// fpu_okey(x) maps a double to a signed 64-bit key: a positive double's
// bits unchanged, a negative double's sign bit kept and its other bits
// inverted.  For non-NaN doubles a and b, a < b in IEEE 754-2019's
// maximum / minimum order (-0 below +0, infinities at the ends) exactly when
// $signed(fpu_okey(a)) < $signed(fpu_okey(b)), and equal keys are equal
// bits.  fpu_okey is its own inverse.  The NaNs' keys lie beyond both
// infinities' (positive NaNs above +inf, negative ones below -inf): a user
// of the order treats NaN itself (fpu_is_nan).
function automatic [63:0] fpu_okey(input [63:0] x);
    begin
        fpu_okey = {x[63], x[62:0] ^ {63{x[63]}}};
    end
endfunction
/* verilator lint_off UNUSEDSIGNAL */  // the sign of a NaN does not matter
function automatic fpu_is_nan(input [63:0] x);
    begin
        fpu_is_nan = (&x[62:52]) & (|x[51:0]);
    end
endfunction
/* verilator lint_on UNUSEDSIGNAL */
