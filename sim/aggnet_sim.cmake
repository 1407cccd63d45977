# aggnet-sim: the virtual hub (sim/aggnet_sim.cpp), serving the Verilated
# aggnet_hub (the `hub` model family) over Unix sockets and ptys.  Included by
# CMakeLists.txt.
add_executable(aggnet-sim ${CMAKE_SOURCE_DIR}/sim/aggnet_sim.cpp)
target_link_libraries(aggnet-sim PRIVATE hub_models aggnet)
