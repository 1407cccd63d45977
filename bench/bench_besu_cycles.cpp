// bench_besu_cycles: barrier and eureka latency of the Verilated BESU engine
// (rtl/besu/, seed 001), in hub clock cycles, against tree depth and against
// the number of nodes in a partition.  The fabric is the 4x4x1 mesh (16 nodes,
// 8 BESUs per node; a hop costs the same at any NB).
//
// A latency is counted on the engine's bus: from the cycle the decisive
// BAR_CTL write is presented (the last join, or the eureka) to the cycle of
// the first read of the watched node's BAR_CTL that returns the new state,
// with a read presented every cycle (sim/besu_bus.hpp write_then_sample).
//   vs depth: a chain along a snake over the plane, rooted at its start,
//     depth d = 1..15.  barrier_join_at_far_end: every member but the far
//     end has joined, the far end joins, the far end itself completes (the
//     longest path: d hops up, d down).  barrier_join_at_root: the root joins
//     last, the far end completes (d down).  eureka_from_far_end: the far end
//     sends OP_EUR; watched: its neighbour on the chain, the last member to
//     receive it (d hops up, d - 1 down; the sender's own BESU takes 010 at
//     once, Table 3).
//   vs nodes: k random members of the 16 (k = 2, 4, 8, 12, 16), a random
//     root, the tree of libaggnet's besu::plan (breadth first over the mesh
//     links), a random last joiner; watched: the deepest member.  The CSV
//     also gives the median tree depth.
// Samples per point: 25 (depth) and 60 (nodes), seed 2026 (argv[2] overrides).
// Writes CSV (metric, x_name, x, samples, median_cycles, max_cycles,
// median_depth) to argv[1] and prints a table.
#include "besu_bus.hpp"
#include "besu_model.hpp"

#include <Vbesu_engine_4x4x1.h>
#include <aggnet/besu.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace M = aggnet::sim::besu;
using Bus = M::EngineBus<Vbesu_engine_4x4x1>;

namespace {

unsigned median(std::vector<unsigned> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}
unsigned maxof(const std::vector<unsigned>& v) { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }

/// Depth of node i in the tree of cfg (0 at the root).
unsigned depth_of(const M::Mesh& m, const std::vector<uint32_t>& cfg, unsigned i) {
    unsigned d = 0;
    for (;;) {
        const int dir = M::parent_dir(cfg[i] >> 9 & 0xf);
        if (dir < 0) return d;
        i = unsigned(m.nbr(i, unsigned(dir)));
        if (++d > m.nodes()) throw std::runtime_error("bench: a cycle in the tree");
    }
}

struct Out {
    std::ofstream csv;
    void row(const char* metric, const char* xname, unsigned x, const std::vector<unsigned>& v, unsigned mdepth) {
        const unsigned med = median(v), mx = maxof(v);
        if (std::find(v.begin(), v.end(), 0u) != v.end())
            throw std::runtime_error(std::string("bench: ") + metric + " did not complete within the limit");
        std::printf("%-26s %-6s %4u %8zu %8u %8u %6u\n", metric, xname, x, v.size(), med, mx, mdepth);
        csv << metric << "," << xname << "," << x << "," << v.size() << "," << med << "," << mx << "," << mdepth
            << "\n";
    }
};

}  // namespace

int main(int argc, char** argv) try {
    const char* path = argc > 1 ? argv[1] : "bench_besu_cycles.csv";
    const uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : 2026;
    Out out{std::ofstream(path)};
    out.csv << "metric,x_name,x,samples,median_cycles,max_cycles,median_depth\n";
    std::printf("bench_besu_cycles: 4x4x1 mesh, 8 BESUs per node, seed %llu\n", (unsigned long long)seed);
    std::printf("%-26s %-6s %4s %8s %8s %8s %6s\n", "metric", "x", "", "samples", "median", "max", "depth");
    std::mt19937_64 rng(seed);
    const auto wall0 = std::chrono::steady_clock::now();
    Bus bus("bench_besu");
    const M::Mesh m{4, 4, 1};
    const aggnet::besu::Mesh hm{m.X, m.Y, m.Z};
    const std::vector<unsigned> snake = M::snake(m);
    unsigned b = 0;

    for (unsigned len = 2; len <= 16; ++len) {
        const unsigned d = len - 1;
        const std::vector<uint32_t> cfg = M::chain_cfg(m, snake, len);
        aggnet::besu::validate(hm, cfg);
        std::vector<unsigned> far, root, eur;
        for (unsigned rep = 0; rep < 25; ++rep) {
            b = (b + 1) % 8;
            bus.load(b, cfg);  // a BAR_CFG write leaves the BESU idle with an empty router record
            std::vector<unsigned> order(snake.begin(), snake.begin() + len - 1);
            std::shuffle(order.begin(), order.end(), rng);
            for (unsigned i : order) bus.write(i, uint16_t(M::R_CTL + b), M::OP_BAR);
            bus.settle();
            far.push_back(bus.write_then_sample(snake[len - 1], b, M::OP_BAR, snake[len - 1], M::S_BAR));

            b = (b + 1) % 8;
            bus.load(b, cfg);
            order.assign(snake.begin() + 1, snake.begin() + len);
            std::shuffle(order.begin(), order.end(), rng);
            for (unsigned i : order) bus.write(i, uint16_t(M::R_CTL + b), M::OP_BAR);
            bus.settle();
            root.push_back(bus.write_then_sample(snake[0], b, M::OP_BAR, snake[len - 1], M::S_BAR));

            b = (b + 1) % 8;
            bus.load(b, cfg);
            eur.push_back(bus.write_then_sample(snake[len - 1], b, M::OP_EUR, snake[len - 2], M::S_EUR));
            bus.settle();
        }
        out.row("barrier_join_at_far_end", "depth", d, far, d);
        out.row("barrier_join_at_root", "depth", d, root, d);
        out.row("eureka_from_far_end", "depth", d, eur, d);  // watched at depth d - 1
    }

    for (unsigned k : {2u, 4u, 8u, 12u, 16u}) {
        std::vector<unsigned> lat, depths;
        for (unsigned rep = 0; rep < 60; ++rep) {
            std::vector<unsigned> all(m.nodes());
            for (unsigned i = 0; i < all.size(); ++i) all[i] = i;
            std::shuffle(all.begin(), all.end(), rng);
            const std::vector<unsigned> members(all.begin(), all.begin() + k);
            const unsigned rootn = members[rng() % k];
            const std::vector<uint32_t> cfg = aggnet::besu::plan(hm, members, rootn);
            unsigned deepest = rootn, dmax = 0;
            for (unsigned i : members) {
                const unsigned dd = depth_of(m, cfg, i);
                if (dd > dmax) dmax = dd, deepest = i;
            }
            depths.push_back(dmax);
            b = (b + 1) % 8;
            bus.load(b, cfg);
            std::vector<unsigned> order = members;
            std::shuffle(order.begin(), order.end(), rng);
            for (unsigned j = 0; j + 1 < k; ++j) bus.write(order[j], uint16_t(M::R_CTL + b), M::OP_BAR);
            bus.settle();
            lat.push_back(bus.write_then_sample(order[k - 1], b, M::OP_BAR, deepest, M::S_BAR));
        }
        out.row("barrier_random_partition", "nodes", k, lat, median(depths));
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    std::printf("simulated %llu hub cycles in %.2f s (%.0f cycles/s of the Verilated 4x4x1 engine)\n",
                (unsigned long long)bus.h.cycle(), secs, double(bus.h.cycle()) / secs);
    std::printf("cycles CSV: %s\n", path);
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "bench_besu_cycles: %s\n", e.what());
    return 1;
}
