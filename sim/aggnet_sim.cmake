# aggnet-sim: the virtual hub (sim/aggnet_sim.cpp), serving the Verilated
# papers_hub over Unix sockets.  Included by CMakeLists.txt.
add_executable(aggnet-sim ${CMAKE_SOURCE_DIR}/sim/aggnet_sim.cpp)
target_link_libraries(aggnet-sim PRIVATE papers_models aggnet)
