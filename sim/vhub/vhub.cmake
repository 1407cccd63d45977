# aggnet-sim: the virtual hub (sim/vhub/, docs/vhub.md), serving the Verilated
# aggnet_hub (every model family of HubModel: sim/hub_select.hpp picks one by
# --engines) over Unix sockets and ptys.  Included by
# CMakeLists.txt with every sim/*/*.cmake.
file(GLOB AGGNET_VHUB_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp)
add_executable(aggnet-sim ${AGGNET_VHUB_SOURCES})
target_compile_options(aggnet-sim PRIVATE ${AGGNET_WARNINGS})
target_link_libraries(aggnet-sim PRIVATE HubModel_families aggnet)
