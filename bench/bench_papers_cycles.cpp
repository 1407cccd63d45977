// bench_papers_cycles: hub latency of the Verilated papers_hub, in clock
// cycles, for N = 4..64 (the figure BRIEF.md holds us to: <= 4 cycles from
// the last arriving PE's S pin to GO on every masked PE's pin, flat in N).
//
// For each N, 200 barriers with a random arrival order and random gaps, with
// all PEs in one mask and with two random disjoint groups; for each barrier,
// the cycles from the edge after the last S pin rose to the first edge at
// which every masked PE's Busy pin shows GO.  Also D -> I and IR -> INT.
// Writes CSV (N, metric, samples, median, max) to argv[1] and prints a table.
#include "papers_pins.hpp"

#include <aggnet/papers_regs.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <random>
#include <vector>

using namespace aggnet;
using namespace aggnet::sim;
namespace R = aggnet::papers_regs;

namespace {

bool go_pin(PapersPins& h, unsigned pe) { return !((h.stat(pe) >> R::STATUS_GO(h.pes())) & 1); }

struct Stat {
    std::vector<unsigned> v;
    unsigned median() {
        std::sort(v.begin(), v.end());
        return v.empty() ? 0 : v[v.size() / 2];
    }
    unsigned max() const { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }
};

// One barrier among the PEs of `group` (each naming exactly `group`);
// returns cycles from the last S to GO on all of them.
unsigned barrier(PapersPins& h, uint64_t group, std::mt19937_64& rng) {
    const unsigned n = h.pes();
    std::vector<unsigned> order;
    for (unsigned pe = 0; pe < n; ++pe)
        if (group >> pe & 1) order.push_back(pe);
    std::shuffle(order.begin(), order.end(), rng);
    const reg_t m = reg_t(group) << R::DATA_B0;
    for (unsigned pe : order) h.set_data(pe, m);
    for (int i = 0; i < 6; ++i) h.tick();
    for (size_t i = 0; i + 1 < order.size(); ++i) {
        h.set_data(order[i], m | (reg_t(1) << R::DATA_S));
        for (unsigned g = rng() % 4; g; --g) h.tick();
    }
    h.set_data(order.back(), m | (reg_t(1) << R::DATA_S));
    unsigned c = 0;
    for (;;) {
        h.tick();
        ++c;
        bool all = true;
        for (unsigned pe : order) all = all && go_pin(h, pe);
        if (all || c > 1000) break;
    }
    for (unsigned pe : order) h.set_data(pe, m);  // drop S: GO resets
    for (int i = 0; i < 6; ++i) h.tick();
    return c;
}

}  // namespace

int main(int argc, char** argv) {
    const char* csv = argc > 1 ? argv[1] : "cycles.csv";
    std::ofstream out(csv);
    out << "N,metric,samples,median_cycles,max_cycles\n";
    std::printf("%-4s %-28s %8s %8s %8s\n", "N", "metric", "samples", "median", "max");
    std::mt19937_64 rng(2026);
    for (unsigned n : {4u, 8u, 16u, 32u, 64u}) {
        auto h = make_papers_rtl(n, "bench_n" + std::to_string(n));
        h->reset(3);
        const uint64_t all = n >= 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1;
        Stat full, part, d2i, ir2int;
        for (int i = 0; i < 200; ++i) full.v.push_back(barrier(*h, all, rng));
        for (int i = 0; i < 200; ++i) {
            uint64_t g = rng() & all;
            if (__builtin_popcountll(g) < 2) g = all;
            part.v.push_back(barrier(*h, g, rng));
        }
        for (int i = 0; i < 50; ++i) {
            // D of PE1 -> I0 of PE0 (PE0's I0 carries PE1's D)
            h->set_data(1, reg_t(1) << R::DATA_D);
            unsigned c = 0;
            do { h->tick(); ++c; } while (!((h->stat(0) >> R::STATUS_I0) & 1) && c < 100);
            d2i.v.push_back(c);
            h->set_data(1, 0);
            for (int k = 0; k < 6; ++k) h->tick();
            // IR of PE1 (mask names PE0) -> INT of PE0
            h->set_data(1, (reg_t(1) << R::DATA_IR) | (reg_t(1) << R::DATA_B0));
            c = 0;
            do { h->tick(); ++c; } while (!((h->stat(0) >> R::STATUS_INT(n)) & 1) && c < 100);
            ir2int.v.push_back(c);
            h->set_data(1, 0);
            for (int k = 0; k < 6; ++k) h->tick();
        }
        struct Row { const char* name; Stat* s; } rows[] = {
            {"S_to_GO_all_pes", &full}, {"S_to_GO_random_group", &part}, {"D_to_I", &d2i}, {"IR_to_INT", &ir2int}};
        for (auto& r : rows) {
            const unsigned med = r.s->median(), mx = r.s->max();
            std::printf("%-4u %-28s %8zu %8u %8u\n", n, r.name, r.s->v.size(), med, mx);
            out << n << "," << r.name << "," << r.s->v.size() << "," << med << "," << mx << "\n";
        }
    }
    std::printf("cycles CSV: %s\n", csv);
    return 0;
}
