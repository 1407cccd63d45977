# aggnet-sim: the virtual hub (sim/vhub/, docs/vhub.md), serving the Verilated
# aggnet_hub over Unix sockets and ptys.  Its models are plugins
# (BUILD/models/*.so, target HubModel_plugins; sim/hub_select.hpp picks one by
# --engines and --pes): it runs with whichever are built.  Included by
# CMakeLists.txt with every sim/*/*.cmake.
file(GLOB AGGNET_VHUB_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp)
add_executable(aggnet-sim ${AGGNET_VHUB_SOURCES})
target_compile_options(aggnet-sim PRIVATE ${AGGNET_WARNINGS})
target_include_directories(aggnet-sim PRIVATE ${CMAKE_SOURCE_DIR}/sim)
target_link_libraries(aggnet-sim PRIVATE aggnet ${CMAKE_DL_LIBS})
