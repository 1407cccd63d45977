`default_nettype none
// rgb_led: an RGB LED on the iCE40 UltraPlus's constant-current LED pins
// (SB_RGBA_DRV; BRIEF: vendor primitives only behind a small wrapper in
// rtl/common/).  The iCEBreaker's RGB LED is on them (pins 39, 40, 41 =
// RGB0, RGB1, RGB2 = red, green, blue; tools/boards/icebreaker.py).
//
// Contract: on[i] lights colour i (0 red, 1 green, 2 blue).  The pads sink
// current, so a pad is low while its colour is lit: pad_n[i] = !on[i].
// The pads must be top-level outputs connected to nothing else.
//
// ARCH (string): "MODEL" (pad_n = ~on: simulation, and what every build
// under Verilator elaborates, so lint and the board-top tests see it), or
// "ICE40_UP" (SB_RGBA_DRV, half-current mode, the lowest current step:
// 2 mA per colour, ample for a status light).
module rgb_led #(
    parameter [63:0] ARCH = "MODEL"
) (
    input  wire [2:0] on,
    output wire [2:0] pad_n
);
    localparam [63:0] A_MODEL = {24'd0, "MODEL"};
    localparam [63:0] A_UP    = "ICE40_UP";
`ifdef VERILATOR
    localparam integer USE_MODEL = 1;
`else
    localparam integer USE_MODEL = (ARCH == A_MODEL) ? 1 : 0;
`endif

    generate
        if (ARCH != A_MODEL && ARCH != A_UP) begin : g_bad_arch
            $error("rgb_led: ARCH must be \"MODEL\" or \"ICE40_UP\"");
        end
        if (USE_MODEL != 0) begin : g_model
            assign pad_n = ~on;
        end else begin : g_ice40
            SB_RGBA_DRV #(
                .CURRENT_MODE("0b1"),
                .RGB0_CURRENT("0b000001"),
                .RGB1_CURRENT("0b000001"),
                .RGB2_CURRENT("0b000001")
            ) u_drv (
                .CURREN(1'b1),
                .RGBLEDEN(1'b1),
                .RGB0PWM(on[0]),
                .RGB1PWM(on[1]),
                .RGB2PWM(on[2]),
                .RGB0(pad_n[0]),
                .RGB1(pad_n[1]),
                .RGB2(pad_n[2])
            );
        end
    endgenerate
endmodule
`default_nettype wire
