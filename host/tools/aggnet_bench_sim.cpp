// aggnet_bench_sim: the simulation cost of every hub model the virtual hub
// can run, for `make bench`.
//
//   aggnet_bench_sim OUT.csv [--ms T] [--only FAMILY]
//
// For every model plugin built (BUILD/models/<family>_n<size>.so, the ones
// aggnet-sim loads; sim/rtl_families.hpp) it resets the model, keeps every
// stream idle with its transmitter ready, and clocks it for at least T ms of
// wall time (default 300), three times; it reports the median rate in hub
// cycles per second and microseconds of host time per hub cycle.
//
// A Verilated model evaluates its logic on every clock whether or not the
// link is busy, so the idle rate is the model's cost per cycle: what every
// collective over the virtual hub pays for each of its hub cycles, and what
// a long test at a large N pays.  An RTL change that makes a model slower to
// simulate shows here, per family and size, before it slows the test suite.
#include <aggnet/cli.hpp>

#include "hub_rtl.hpp"
#include "rtl_families.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

using namespace aggnet;
using clk = std::chrono::steady_clock;

namespace aggnet::sim {
template <>
const std::vector<RtlFamily<HubModel>>& rtl_families<HubModel>() {
    static const std::vector<RtlFamily<HubModel>> families =
        load_rtl_families<HubModel>(rtl_plugin_dir(), "HubModel");
    return families;
}
}  // namespace aggnet::sim

namespace {

[[noreturn]] void usage(const std::string& msg) {
    if (!msg.empty()) std::fprintf(stderr, "aggnet_bench_sim: %s\n", msg.c_str());
    std::fprintf(stderr, "usage: aggnet_bench_sim OUT.csv [--ms T] [--only FAMILY]\n");
    std::exit(msg.empty() ? 0 : cli::kUsageExit);
}

/// Hub cycles per second of `m`, clocked idle for at least `ms` ms.
double idle_rate(sim::HubModel& m, unsigned ms) {
    const auto want = std::chrono::milliseconds(ms);
    uint64_t cycles = 0;
    const auto t0 = clk::now();
    auto t = t0;
    while (t - t0 < want) {
        for (unsigned i = 0; i < 1000; ++i) m.tick();  // the clock read stays off the rate
        cycles += 1000;
        t = clk::now();
    }
    return double(cycles) / std::chrono::duration<double>(t - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
    std::string csv, only;
    unsigned ms = 300;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto val = [&]() -> std::string {
            if (i + 1 >= argc) usage(a + " needs a value");
            return argv[++i];
        };
        if (a == "--help" || a == "-h") usage("");
        else if (a == "--ms") {
            try {
                ms = unsigned(cli::number(a, val(), 10, 60000));
            } catch (const cli::UsageError& e) {
                usage(e.what());
            }
        } else if (a == "--only") only = val();
        else if (!a.empty() && a[0] == '-') usage("unknown option " + a);
        else if (csv.empty()) csv = a;
        else usage("one output file, not " + a);
    }
    if (csv.empty()) usage("no output file");

    std::vector<sim::RtlFamily<sim::HubModel>> fams;
    try {
        fams = sim::rtl_families<sim::HubModel>();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "aggnet_bench_sim: %s\n", e.what());
        return 1;
    }
    if (fams.empty()) {
        std::fprintf(stderr, "aggnet_bench_sim: no hub model plugin in %s (build aggnet-sim first)\n",
                     sim::rtl_plugin_dir().c_str());
        return 1;
    }
    if (!only.empty() && std::none_of(fams.begin(), fams.end(), [&](const auto& f) { return f.name == only; })) {
        std::string names;
        for (const auto& f : fams) names += (names.empty() ? "" : ", ") + f.name;
        std::fprintf(stderr, "aggnet_bench_sim: no built model of family '%s' (built: %s)\n", only.c_str(),
                     names.c_str());
        return 1;
    }
    std::ofstream out(csv);
    if (!out) {
        std::fprintf(stderr, "aggnet_bench_sim: cannot write %s\n", csv.c_str());
        return 1;
    }
    out << "family,N,streams,cycles_per_s,us_per_cycle,ms_per_run,runs\n";
    std::printf("Simulation cost of the virtual hub's models (idle link, every engine clocked; median of 3 runs)\n");
    std::printf("%-14s %4s %8s %14s %13s\n", "family", "N", "streams", "cycles/s", "us/cycle");
    for (const auto& f : fams) {
        if (!only.empty() && f.name != only) continue;
        for (unsigned n : f.sizes()) {
            auto m = f.make(n, f.name + "_bench", UINT64_MAX);
            m->reset();
            for (unsigned k = 0; k < m->streams(); ++k) {
                m->s_rx(k, false, 0);
                m->s_tx_ready(k, true);
            }
            std::vector<double> r;
            for (int run = 0; run < 3; ++run) r.push_back(idle_rate(*m, ms));
            std::sort(r.begin(), r.end());
            const double rate = r[1];
            std::printf("%-14s %4u %8u %14.0f %13.3f\n", f.name.c_str(), n, m->streams(), rate, 1e6 / rate);
            out << f.name << ',' << n << ',' << m->streams() << ',' << rate << ',' << 1e6 / rate << ',' << ms
                << ",3\n";
        }
    }
    return 0;
}
