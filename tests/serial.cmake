# The serial link's byte pipe (issue 9, host part): SerialPipe over real pty
# pairs (frames, deadlines, baud round trip, hangup, exclusive open, a
# LinkClient against a C++ hub on the master side) and over a fake system
# call layer (FTDI latency timer, baud rounding, open errors, vanishing
# devices).  Two translation units: the fake needs <asm/termbits.h>, the pty
# side needs <pty.h>/<termios.h>, and the two cannot share one.
aggnet_test(test_serial_pipe SOURCES ${CMAKE_SOURCE_DIR}/tests/test_serial_pipe.cpp
                                     ${CMAKE_SOURCE_DIR}/tests/test_serial_sys.cpp
                             LIBS util)
set_tests_properties(test_serial_pipe PROPERTIES TIMEOUT 120)

# serial: end to end: the aggnet CLI over a pty bridged to a Verilated
# aggnet_hub (tests/hub.cmake's hub_models), with a PE cabled to its pins.
aggnet_test(test_serial_hub SOURCES ${CMAKE_SOURCE_DIR}/tests/test_serial_hub.cpp LIBS hub_models util)
aggnet_runs(test_serial_hub aggnet-sim aggnet-cli)
set_tests_properties(test_serial_hub PROPERTIES TIMEOUT 120)
