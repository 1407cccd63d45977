# aggnet_hub (rtl/hub): the one hub top behind its link port, with the
# PAPERS window (rtl/papers/papers_bus.v).  Included by CMakeLists.txt.
# The hub is verilated once per size into hub_models, which the hub's tests
# and the link benchmark share.
set(HUB_RTL ${RTL}/common/sync2.v ${RTL}/papers/papers_core.v ${RTL}/papers/papers_hub.v
    ${RTL}/papers/papers_bus.v ${RTL}/link/crc16.v ${RTL}/link/frame_rx.v ${RTL}/link/frame_tx.v
    ${RTL}/link/link_port.v ${RTL}/hub/aggnet_hub.v)
add_library(hub_models STATIC)
foreach(n 3 4 40)
  verilate(hub_models PREFIX Vaggnet_hub_n${n} TOP_MODULE aggnet_hub SOURCES ${HUB_RTL}
    INCLUDE_DIRS ${RTL}/papers ${RTL}/link TRACE_FST
    VERILATOR_ARGS -GN=${n} -GCLK_HZ=48000000 -Wno-fatal -O3 --x-assign fast --x-initial fast)
endforeach()
target_include_directories(hub_models PUBLIC ${CMAKE_SOURCE_DIR}/sim)
target_link_libraries(hub_models PUBLIC aggnet Threads::Threads)

aggnet_test(test_aggnet_hub SOURCES ${CMAKE_SOURCE_DIR}/tests/test_aggnet_hub.cpp LIBS hub_models)
set_tests_properties(test_aggnet_hub PROPERTIES TIMEOUT 300)

# The PAPERS routines (libaggnet's Papers) over the link into aggnet_hub, one
# thread and one LinkClient per PE on the hub's one byte stream.
aggnet_test(test_papers_link SOURCES ${CMAKE_SOURCE_DIR}/tests/test_papers_link.cpp LIBS hub_models)
set_tests_properties(test_papers_link PROPERTIES TIMEOUT 300)

# make bench: the PAPERS barrier over the link (bytes, frames, hub cycles).
add_executable(bench_link ${CMAKE_SOURCE_DIR}/bench/bench_link.cpp)
target_link_libraries(bench_link PRIVATE hub_models)
