# Host side of issue 3: the aggnet CLI, the demo and benchmark programs, and
# the host / system test suites.  Included by CMakeLists.txt.
add_executable(aggnet-cli ${CMAKE_SOURCE_DIR}/host/tools/aggnet.cpp)
set_target_properties(aggnet-cli PROPERTIES OUTPUT_NAME aggnet)
target_link_libraries(aggnet-cli PRIVATE aggnet)

# One PE of the 4-PE demo (tools/demo.sh runs four of them against aggnet-sim).
add_executable(aggnet_demo ${CMAKE_SOURCE_DIR}/host/tools/aggnet_demo.cpp)
target_link_libraries(aggnet_demo PRIVATE aggnet)

# Device strings and the ppdev transport against a fake ioctl layer.
aggnet_test(test_host_device SOURCES ${CMAKE_SOURCE_DIR}/tests/test_host_device.cpp LIBS papers_models)
set_tests_properties(test_host_device PROPERTIES TIMEOUT 60)

# SocketPipe (the link over a Unix socket: sim:) on socketpairs and against a
# Verilated aggnet_hub behind a listening socket; SimControl against a fake
# control server.  Neither needs aggnet-sim.
aggnet_test(test_socket_pipe SOURCES ${CMAKE_SOURCE_DIR}/tests/test_socket_pipe.cpp LIBS hub_models util)
set_tests_properties(test_socket_pipe PROPERTIES TIMEOUT 120)
aggnet_test(test_sim_control SOURCES ${CMAKE_SOURCE_DIR}/tests/test_sim_control.cpp)
set_tests_properties(test_sim_control PROPERTIES TIMEOUT 60)

# System tests: aggnet-sim as a child process, clients over its sockets.
aggnet_test(test_system_vhub SOURCES ${CMAKE_SOURCE_DIR}/tests/test_system_vhub.cpp)
aggnet_runs(test_system_vhub aggnet-sim)
set_tests_properties(test_system_vhub PROPERTIES TIMEOUT 120)

# Host-side benchmark for `make bench` (starts aggnet-sim itself); its PE
# threads go through sim/pe_threads.hpp (header-only, no model).
add_executable(aggnet_bench_host ${CMAKE_SOURCE_DIR}/host/tools/aggnet_bench_host.cpp)
target_include_directories(aggnet_bench_host PRIVATE ${CMAKE_SOURCE_DIR}/sim)
target_link_libraries(aggnet_bench_host PRIVATE aggnet)
aggnet_runs(aggnet_bench_host aggnet-sim)

# Load and idle figures of the virtual hub for `make bench` (PE processes, not threads).
add_executable(aggnet_bench_load ${CMAKE_SOURCE_DIR}/host/tools/aggnet_bench_load.cpp)
target_link_libraries(aggnet_bench_load PRIVATE aggnet)
aggnet_runs(aggnet_bench_load aggnet-sim)

# Simulation cost per hub cycle of every model plugin aggnet-sim runs (make bench).
add_executable(aggnet_bench_sim ${CMAKE_SOURCE_DIR}/host/tools/aggnet_bench_sim.cpp)
target_include_directories(aggnet_bench_sim PRIVATE ${CMAKE_SOURCE_DIR}/sim)
target_link_libraries(aggnet_bench_sim PRIVATE aggnet ${CMAKE_DL_LIBS})
aggnet_runs(aggnet_bench_sim aggnet-sim)

# Faults: PEs that leave, die, stall or stop reading; a stopped hub; bad
# options; a hub out of file descriptors (issue 8).
aggnet_test(test_vhub_faults SOURCES ${CMAKE_SOURCE_DIR}/tests/test_vhub_faults.cpp)
aggnet_runs(test_vhub_faults aggnet-sim aggnet-cli)
# seeded: `make test-fresh` (ctest -L seeded) runs it again with a fresh seed.
set_tests_properties(test_vhub_faults PROPERTIES TIMEOUT 180 LABELS seeded)

# aggnet board-check (issue 10 item 10): the CLI against aggnet-sim's pty and
# sockets (with faults, with the link cut), and the pin-by-pin check against
# the fake ppdev layer with broken wires.
aggnet_test(test_board_check SOURCES ${CMAKE_SOURCE_DIR}/tests/test_board_check.cpp LIBS papers_models)
aggnet_runs(test_board_check aggnet-sim aggnet-cli)
set_tests_properties(test_board_check PROPERTIES TIMEOUT 120)

