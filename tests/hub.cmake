# make bench: the PAPERS barrier over the link (bytes, frames, hub cycles), on
# the `hub` model family of rtl/hub/manifest.json.  Included by CMakeLists.txt.
add_executable(bench_link ${CMAKE_SOURCE_DIR}/bench/bench_link.cpp)
target_include_directories(bench_link PRIVATE ${CMAKE_SOURCE_DIR}/sim)
target_link_libraries(bench_link PRIVATE hub_models aggnet Threads::Threads)
