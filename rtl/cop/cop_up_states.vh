// cop_up_states.vh: the states of rtl/cop/cop_up.v, shared with its formal
// harness rtl/cop/cop_link_props.v (included inside each module).
localparam [3:0] U_IDLE = 4'd0, U_MODE = 4'd1, U_PROC = 4'd2, U_ADDR = 4'd3, U_START = 4'd4, U_ASK = 4'd5,
                 U_CAUSE = 4'd6, U_DOWN = 4'd7, U_CANC = 4'd8, U_XMIT = 4'd9;
