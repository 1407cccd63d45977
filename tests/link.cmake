# The link (issue 9, link part): tools/linkgen.py tables, rtl/link/*, the
# host codec and LinkClient.  Included by CMakeLists.txt; `ctest -R link`.
set(LINK_RTL ${RTL}/link)
set(LINK_VARGS -Wno-fatal -O3 --x-assign fast --x-initial fast)

# CRC-16/CCITT-FALSE vectors in C++ and against rtl/link/crc16.v.
aggnet_test(test_link_crc SOURCES ${CMAKE_SOURCE_DIR}/tests/test_link_crc.cpp)
verilate(test_link_crc PREFIX Vcrc16 TOP_MODULE crc16 SOURCES ${LINK_RTL}/crc16.v TRACE_FST)
set_tests_properties(test_link_crc PROPERTIES TIMEOUT 60)

# uart_rx / uart_tx: 48 MHz at 12 Mbaud (4 clocks per bit), 100 MHz at
# 12 Mbaud (8.33, fractional), 12 MHz at 115200 (104.17).
aggnet_test(test_link_uart SOURCES ${CMAKE_SOURCE_DIR}/tests/test_link_uart.cpp)
foreach(cfg "48_12:48000000:12000000" "100_12:100000000:12000000" "12_115k:12000000:115200")
  string(REPLACE ":" ";" c "${cfg}")
  list(GET c 0 tag)
  list(GET c 1 clk)
  list(GET c 2 baud)
  verilate(test_link_uart PREFIX Vuart_rx_${tag} TOP_MODULE uart_rx SOURCES ${LINK_RTL}/uart_rx.v
    TRACE_FST VERILATOR_ARGS -GCLK_HZ=${clk} -GBAUD=${baud} ${LINK_VARGS})
  verilate(test_link_uart PREFIX Vuart_tx_${tag} TOP_MODULE uart_tx SOURCES ${LINK_RTL}/uart_tx.v
    TRACE_FST VERILATOR_ARGS -GCLK_HZ=${clk} -GBAUD=${baud} ${LINK_VARGS})
endforeach()
set_tests_properties(test_link_uart PROPERTIES TIMEOUT 120)

# frame_rx / frame_tx against the C++ codec; decoder fuzz loops.
aggnet_test(test_link_frame SOURCES ${CMAKE_SOURCE_DIR}/tests/test_link_frame.cpp)
verilate(test_link_frame PREFIX Vframe_rx TOP_MODULE frame_rx
  SOURCES ${LINK_RTL}/frame_rx.v ${LINK_RTL}/crc16.v INCLUDE_DIRS ${LINK_RTL}
  TRACE_FST VERILATOR_ARGS -GIDLE_CYCLES=64 ${LINK_VARGS})
verilate(test_link_frame PREFIX Vframe_tx TOP_MODULE frame_tx
  SOURCES ${LINK_RTL}/frame_tx.v ${LINK_RTL}/crc16.v INCLUDE_DIRS ${LINK_RTL}
  TRACE_FST VERILATOR_ARGS ${LINK_VARGS})
set_tests_properties(test_link_frame PROPERTIES TIMEOUT 120)

# LinkClient alone, over fake pipes and a C++ hub.
aggnet_test(test_link_client SOURCES ${CMAKE_SOURCE_DIR}/tests/test_link_client.cpp)
set_tests_properties(test_link_client PROPERTIES TIMEOUT 60)

# link_port (N = 4 shared, N = 1 with PE_ID) and link_uart, with LinkClient
# and a fault injector, against a C++ model register bus.
aggnet_test(test_link_port SOURCES ${CMAKE_SOURCE_DIR}/tests/test_link_port.cpp)
verilate(test_link_port PREFIX Vlink_port_n4 TOP_MODULE link_port
  SOURCES ${LINK_RTL}/link_port.v ${LINK_RTL}/frame_rx.v ${LINK_RTL}/frame_tx.v ${LINK_RTL}/crc16.v
  INCLUDE_DIRS ${LINK_RTL} TRACE_FST
  VERILATOR_ARGS -GN=4 -GPE_ID=0 -GHUB_PES=4 -GIDLE_CYCLES=2000 -GCLK_HZ=48000000 ${LINK_VARGS})
verilate(test_link_port PREFIX Vlink_port_p5 TOP_MODULE link_port
  SOURCES ${LINK_RTL}/link_port.v ${LINK_RTL}/frame_rx.v ${LINK_RTL}/frame_tx.v ${LINK_RTL}/crc16.v
  INCLUDE_DIRS ${LINK_RTL} TRACE_FST
  VERILATOR_ARGS -GN=1 -GPE_ID=5 -GHUB_PES=16 -GIDLE_CYCLES=2000 -GCLK_HZ=12000000 ${LINK_VARGS})
verilate(test_link_port PREFIX Vlink_uart TOP_MODULE link_uart
  SOURCES ${LINK_RTL}/link_uart.v ${LINK_RTL}/link_port.v ${LINK_RTL}/frame_rx.v ${LINK_RTL}/frame_tx.v
          ${LINK_RTL}/crc16.v ${LINK_RTL}/uart_rx.v ${LINK_RTL}/uart_tx.v ${RTL}/common/sync2.v
  INCLUDE_DIRS ${LINK_RTL} TRACE_FST
  VERILATOR_ARGS -GCLK_HZ=48000000 -GBAUD=12000000 -GN=4 -GHUB_PES=4 ${LINK_VARGS})
set_tests_properties(test_link_port PROPERTIES TIMEOUT 300)
