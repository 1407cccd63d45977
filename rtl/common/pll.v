`default_nettype none
// pll: the hub clock, made from a board oscillator by the FPGA's PLL.  The
// only place a vendor PLL primitive appears (BRIEF: vendor primitives only
// behind a small wrapper in rtl/common/); board tops instantiate this.
//
// Contract: clk_out runs at OUT_KHZ once locked is high; locked is
// asynchronous to clk_out (feed it to por through its synchronizer).
//
// ARCH (string) selects the implementation:
//   "MODEL"       pass-through: clk_out = clk_in, locked = 1.  Simulation and
//                 the virtual hub run a board top on this (minus the PLL).
//   "ICE40_CORE"  SB_PLL40_CORE, reference from the fabric / a global buffer
//                 (iCEstick pin 21, HX8K breakout ball J3).
//   "ICE40_PAD"   SB_PLL40_PAD, clk_in must be the PLL's own pad
//                 (iCEBreaker pin 35).
//   "ECP5"        EHXPLLL, feedback from CLKOP.
// Under Verilator (`VERILATOR, i.e. `make lint` and every simulation) all of
// them elaborate as "MODEL", but the divider checks below still run for the
// ARCH asked for, so lint rejects illegal settings too.
//
// Parameters and their legal ranges (illegal values fail elaboration):
//   IN_KHZ        reference frequency in kHz, 1000..400000.
//   OUT_KHZ       the output frequency the settings give, in kHz (+-1 kHz);
//                 the top writes it down and elaboration checks the math.
//   iCE40 (SB_PLL40_*, FEEDBACK_PATH "SIMPLE"; iCE40 LP/HX and UltraPlus
//   sysCLOCK PLL limits; compute with `icepll -i <MHz> -o <MHz>`):
//     f_pfd = IN/(DIVR+1)         10..133 MHz
//     f_vco = f_pfd*(DIVF+1)      533..1066 MHz
//     f_out = f_vco / 2**DIVQ     16..275 MHz
//     DIVR 0..15, DIVF 0..127, DIVQ 1..6, FILTER_RANGE 0..7 (icepll's value).
//   ECP5 (EHXPLLL, CLKOP fed back; compute with `ecppll -i <MHz> -o <MHz>`):
//     f_pfd = IN/CLKI_DIV         3.125..400 MHz
//     f_out = f_pfd*CLKFB_DIV     3.125..400 MHz
//     f_vco = f_out*CLKOP_DIV     400..800 MHz
//     CLKI_DIV, CLKFB_DIV, CLKOP_DIV 1..128; CLKOP_CPHASE 0..127 (ecppll's).
// Parameters of the other family are ignored.
module pll #(
    parameter [79:0]   ARCH         = "MODEL",   // up to 10 characters
    parameter integer  IN_KHZ       = 12000,
    parameter integer  OUT_KHZ      = 12000,
    parameter integer  DIVR         = 0,
    parameter integer  DIVF         = 0,
    parameter integer  DIVQ         = 1,
    parameter integer  FILTER_RANGE = 1,
    parameter integer  CLKI_DIV     = 1,
    parameter integer  CLKFB_DIV    = 1,
    parameter integer  CLKOP_DIV    = 1,
    parameter integer  CLKOP_CPHASE = 0
) (
    input  wire clk_in,
    output wire clk_out,
    output wire locked
);
    // string literals zero-extended to ARCH's 80 bits, as Verilog compares them
    localparam [79:0] A_MODEL = {40'd0, "MODEL"};
    localparam [79:0] A_CORE  = "ICE40_CORE";
    localparam [79:0] A_PAD   = {8'd0, "ICE40_PAD"};
    localparam [79:0] A_ECP5  = {48'd0, "ECP5"};
    localparam integer IS_MODEL = (ARCH == A_MODEL) ? 1 : 0;
    localparam integer IS_ICE40 = (ARCH == A_CORE || ARCH == A_PAD) ? 1 : 0;
    localparam integer IS_ECP5  = (ARCH == A_ECP5) ? 1 : 0;
`ifdef VERILATOR
    localparam integer USE_MODEL = 1;
`else
    localparam integer USE_MODEL = IS_MODEL;
`endif

    // divider arithmetic in kHz; 32 bits hold every product whose factors are
    // in range (an out-of-range factor fails its own check first)
    localparam integer ICE_PFD = IN_KHZ / (DIVR + 1);
    localparam integer ICE_VCO = ICE_PFD * (DIVF + 1);
    localparam integer ICE_OUT = (DIVQ >= 0 && DIVQ < 16) ? (ICE_VCO >>> DIVQ) : 0;
    localparam integer ECP_PFD = IN_KHZ / CLKI_DIV;
    localparam integer ECP_OUT = ECP_PFD * CLKFB_DIV;
    localparam integer ECP_VCO = ECP_OUT * CLKOP_DIV;
    localparam integer WANT    = OUT_KHZ;

    generate
        if (IS_MODEL + IS_ICE40 + IS_ECP5 != 1) begin : g_bad_arch
            $error("pll: ARCH must be \"MODEL\", \"ICE40_CORE\", \"ICE40_PAD\" or \"ECP5\"");
        end
        if (IN_KHZ < 1000 || IN_KHZ > 400000) begin : g_bad_in
            $error("pll: IN_KHZ must be in 1000..400000");
        end
        if (IS_MODEL != 0 && OUT_KHZ != IN_KHZ) begin : g_bad_model
            $error("pll: ARCH \"MODEL\" passes the clock through: OUT_KHZ must equal IN_KHZ");
        end
        if (IS_ICE40 != 0) begin : g_check_ice40
            if (DIVR < 0 || DIVR > 15 || DIVF < 0 || DIVF > 127 || DIVQ < 1 || DIVQ > 6
                || FILTER_RANGE < 0 || FILTER_RANGE > 7) begin : g_range
                $error("pll: iCE40 needs DIVR 0..15, DIVF 0..127, DIVQ 1..6, FILTER_RANGE 0..7");
            end
            if (ICE_PFD < 10000 || ICE_PFD > 133000) begin : g_pfd
                $error("pll: iCE40 PFD frequency IN/(DIVR+1) must be 10..133 MHz");
            end
            if (ICE_VCO < 533000 || ICE_VCO > 1066000) begin : g_vco
                $error("pll: iCE40 VCO frequency IN/(DIVR+1)*(DIVF+1) must be 533..1066 MHz");
            end
            if (ICE_OUT < 16000 || ICE_OUT > 275000) begin : g_out
                $error("pll: iCE40 output frequency must be 16..275 MHz");
            end
            if (ICE_OUT + 1 < WANT || ICE_OUT > WANT + 1) begin : g_want
                $error("pll: DIVR/DIVF/DIVQ do not give OUT_KHZ");
            end
        end
        if (IS_ECP5 != 0) begin : g_check_ecp5
            if (CLKI_DIV < 1 || CLKI_DIV > 128 || CLKFB_DIV < 1 || CLKFB_DIV > 128
                || CLKOP_DIV < 1 || CLKOP_DIV > 128 || CLKOP_CPHASE < 0 || CLKOP_CPHASE > 127) begin : g_range
                $error("pll: ECP5 needs CLKI_DIV, CLKFB_DIV, CLKOP_DIV 1..128, CLKOP_CPHASE 0..127");
            end
            if (ECP_PFD < 3125 || ECP_PFD > 400000) begin : g_pfd
                $error("pll: ECP5 PFD frequency IN/CLKI_DIV must be 3.125..400 MHz");
            end
            if (ECP_OUT < 3125 || ECP_OUT > 400000) begin : g_out
                $error("pll: ECP5 output frequency must be 3.125..400 MHz");
            end
            if (ECP_VCO < 400000 || ECP_VCO > 800000) begin : g_vco
                $error("pll: ECP5 VCO frequency (output * CLKOP_DIV) must be 400..800 MHz");
            end
            if (ECP_OUT + 1 < WANT || ECP_OUT > WANT + 1) begin : g_want
                $error("pll: CLKI_DIV/CLKFB_DIV do not give OUT_KHZ");
            end
        end

        if (USE_MODEL != 0) begin : g_model
            assign clk_out = clk_in;
            assign locked  = 1'b1;
        end else if (ARCH == A_CORE) begin : g_ice40_core
            SB_PLL40_CORE #(
                .FEEDBACK_PATH("SIMPLE"),
                .DIVR(DIVR),
                .DIVF(DIVF),
                .DIVQ(DIVQ),
                .FILTER_RANGE(FILTER_RANGE)
            ) u_pll (
                .REFERENCECLK(clk_in),
                .PLLOUTGLOBAL(clk_out),
                .LOCK(locked),
                .RESETB(1'b1),
                .BYPASS(1'b0),
                .EXTFEEDBACK(1'b0),
                .DYNAMICDELAY(8'h00),
                .LATCHINPUTVALUE(1'b0),
                .SCLK(1'b0),
                .SDI(1'b0)
            );
        end else if (ARCH == A_PAD) begin : g_ice40_pad
            SB_PLL40_PAD #(
                .FEEDBACK_PATH("SIMPLE"),
                .DIVR(DIVR),
                .DIVF(DIVF),
                .DIVQ(DIVQ),
                .FILTER_RANGE(FILTER_RANGE)
            ) u_pll (
                .PACKAGEPIN(clk_in),
                .PLLOUTGLOBAL(clk_out),
                .LOCK(locked),
                .RESETB(1'b1),
                .BYPASS(1'b0),
                .EXTFEEDBACK(1'b0),
                .DYNAMICDELAY(8'h00),
                .LATCHINPUTVALUE(1'b0),
                .SCLK(1'b0),
                .SDI(1'b0)
            );
        end else begin : g_ecp5
            wire clkop;
            (* ICP_CURRENT = "12", LPF_RESISTOR = "8", MFG_ENABLE_FILTEROPAMP = "1", MFG_GMCREF_SEL = "2" *)
            EHXPLLL #(
                .PLLRST_ENA("DISABLED"),
                .INTFB_WAKE("DISABLED"),
                .STDBY_ENABLE("DISABLED"),
                .DPHASE_SOURCE("DISABLED"),
                .OUTDIVIDER_MUXA("DIVA"),
                .OUTDIVIDER_MUXB("DIVB"),
                .OUTDIVIDER_MUXC("DIVC"),
                .OUTDIVIDER_MUXD("DIVD"),
                .CLKI_DIV(CLKI_DIV),
                .CLKOP_ENABLE("ENABLED"),
                .CLKOP_DIV(CLKOP_DIV),
                .CLKOP_CPHASE(CLKOP_CPHASE),
                .CLKOP_FPHASE(0),
                .FEEDBK_PATH("CLKOP"),
                .CLKFB_DIV(CLKFB_DIV)
            ) u_pll (
                .RST(1'b0),
                .STDBY(1'b0),
                .CLKI(clk_in),
                .CLKOP(clkop),
                .CLKFB(clkop),
                .PHASESEL0(1'b0),
                .PHASESEL1(1'b0),
                .PHASEDIR(1'b1),
                .PHASESTEP(1'b1),
                .PHASELOADREG(1'b1),
                .PLLWAKESYNC(1'b0),
                .ENCLKOP(1'b0),
                .LOCK(locked)
            );
            assign clk_out = clkop;
        end
    endgenerate
endmodule
`default_nettype wire
