// counting_pipe.hpp: a LinkPipe that counts what crosses it, for the link
// benchmarks (bench/bench_link.cpp, bench/bench_cop_link.cpp): bytes and
// send() calls out (LinkClient sends one frame a call), bytes in.
#pragma once

#include <aggnet/link_client.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace aggnet::sim {

struct CountingPipe final : link::LinkPipe {
    link::LinkPipe& p;
    std::atomic<uint64_t> out_bytes{0}, out_frames{0}, in_bytes{0};
    explicit CountingPipe(link::LinkPipe& pipe) : p(pipe) {}
    void send(const uint8_t* d, size_t n) override {
        out_bytes += n;
        ++out_frames;
        p.send(d, n);
    }
    size_t recv(uint8_t* b, size_t cap, std::chrono::nanoseconds until) override {
        const size_t n = p.recv(b, cap, until);
        in_bytes += n;
        return n;
    }
    std::chrono::nanoseconds now() override { return p.now(); }
};

}  // namespace aggnet::sim
