// aggnet_bench_host: host-side figures over the virtual hub, for `make
// bench`.  Starts aggnet-sim --pty with N PEs (default 4) and runs one client
// thread per PE, first over its sockets (sim:DIR/peK), then over its
// pseudo-terminals as serial lines (serial:DIR/pty-peK@3000000?pe=K): the
// same libaggnet link path as a board's UART.  Per path it measures one link
// READ (the bare round trip), PAPERS wait and waitvec: host round trip
// (median, p99), port accesses (per PE: register operations over the link),
// and hub clock cycles (from the hub's control socket, SimControl::cycle()).
//
//   aggnet_bench_host OUT.csv [--sim PATH] [--pes N] [--barriers B] [--waitvecs W]
#include <aggnet/cli.hpp>
#include <aggnet/link_defs.hpp>
#include <aggnet/link_papers.hpp>
#include <aggnet/papers.hpp>
#include <aggnet/papers_device.hpp>
#include <aggnet/sim_control.hpp>

#include "pe_threads.hpp"  // sim/ (tests/host.cmake adds it to this tool's include path)
#include "sim_child.hpp"
#include "socket_floor.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#ifndef AGGNET_SIM_EXE
#define AGGNET_SIM_EXE "aggnet-sim"
#endif

using namespace aggnet;
using clk = std::chrono::steady_clock;

namespace {

struct Result {
    std::string path, what;
    double median_us, p99_us, max_us, accesses, cycles;
    uint64_t ops;
};

double pct(std::vector<double>& v, double q) {
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, size_t(q * double(v.size() - 1) + 0.5))];
}

}  // namespace

int main(int argc, char** argv) {
    std::string csv, sim = AGGNET_SIM_EXE;
    unsigned n = 4, barriers = 10000, waitvecs = 10000;
    auto num = [](const std::string& opt, const std::string& v, uint64_t lo, uint64_t hi) {
        try {
            return cli::number(opt, v, lo, hi);
        } catch (const cli::UsageError& e) {
            std::fprintf(stderr, "aggnet_bench_host: %s\n", e.what());
            std::exit(cli::kUsageExit);
        }
    };
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto val = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "aggnet_bench_host: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--help" || a == "-h") {
            std::printf("usage: aggnet_bench_host OUT.csv [--sim PATH] [--pes N] [--barriers B] [--waitvecs W]\n");
            return 0;
        } else if (a == "--sim") sim = val();
        else if (a == "--pes") n = unsigned(num(a, val(), 2, 64));
        else if (a == "--barriers") barriers = unsigned(num(a, val(), 1, 10000000));
        else if (a == "--waitvecs") waitvecs = unsigned(num(a, val(), 1, 10000000));
        else if (csv.empty() && a[0] != '-') csv = a;
        else {
            std::fprintf(stderr, "aggnet_bench_host: unexpected argument '%s'\n", a.c_str());
            return 2;
        }
    }
    if (csv.empty() || !barriers || !waitvecs || n < 2) {
        std::fprintf(stderr, "usage: aggnet_bench_host OUT.csv [--sim PATH] [--pes N] [--barriers B] [--waitvecs W]\n");
        return 2;
    }

    std::unique_ptr<tools::SimChild> hub;
    try {
        hub = std::make_unique<tools::SimChild>(
            sim, std::vector<std::string>{"--pes", std::to_string(n), "--pty", "--engines", "papers"});
    } catch (const std::exception& e) {
        std::fprintf(stderr, "aggnet_bench_host: %s\n", e.what());
        return 1;
    }
    const std::string dir = hub->dir();

    std::vector<Result> results;
    int rc = 0;
    try {
        SimControl control(dir);
        std::vector<std::unique_ptr<PapersPort>> ts;
        const uint64_t all = n >= 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1;
        enum Kind { Read, Wait, Waitvec };
        std::string path;
        auto phase = [&](const std::string& what, unsigned count, Kind kind) {
            std::vector<std::vector<double>> us(n);
            std::vector<uint64_t> acc(n);
            uint64_t c0 = 0, c1 = 0;
            sim::on_pe_threads(n, [&](unsigned pe) {
                Papers p(*ts[pe]);
                p.enqueue(all);
                p.wait();  // everybody attached
                if (pe == 0) c0 = control.cycle();
                p.wait();
                const uint64_t a0 = p.port().accesses();
                us[pe].reserve(count);
                link::LinkClient& c = link_of(*ts[pe])->client();
                const uint16_t magic = uint16_t(link_defs::WIN_INFO << 12 | link_defs::INFO_MAGIC);
                for (unsigned i = 0; i < count; ++i) {
                    const auto t0 = clk::now();
                    if (kind == Read) c.read(pe, magic, 4);
                    else if (kind == Waitvec) p.waitvec(i & 1);
                    else p.wait();
                    us[pe].push_back(std::chrono::duration<double, std::micro>(clk::now() - t0).count());
                }
                acc[pe] = kind == Read ? count : p.port().accesses() - a0;
                p.wait();
                if (pe == 0) c1 = control.cycle();
            });
            std::vector<double> allus;
            uint64_t accsum = 0;
            for (unsigned pe = 0; pe < n; ++pe) allus.insert(allus.end(), us[pe].begin(), us[pe].end()), accsum += acc[pe];
            Result r;
            r.path = path;
            r.what = what;
            r.ops = count;
            r.median_us = pct(allus, 0.5);
            r.p99_us = pct(allus, 0.99);
            r.max_us = allus.back();
            r.accesses = double(accsum) / double(n) / double(count);
            r.cycles = double(c1 - c0) / double(count + 2);
            results.push_back(r);
        };
        for (const char* via : {"socket", "pty"}) {
            path = via;
            ts.clear();
            for (unsigned pe = 0; pe < n; ++pe)
                ts.push_back(open_papers_port(path == "socket" ? hub->dev(pe)
                                                               : "serial:" + dir + "/pty-pe" + std::to_string(pe) +
                                                                     "@3000000?pe=" + std::to_string(pe)));
            phase("read", barriers, Read);
            phase("wait", barriers, Wait);
            phase("waitvec", waitvecs, Waitvec);
        }
        ts.clear();
        control.quit();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "aggnet_bench_host: %s\n", e.what());
        rc = 1;
    }
    hub->stop();
    if (rc) return rc;
    // The floor, in the same run: a socket star with nothing behind it, one
    // exchange per barrier (a CALL and its RESULT, 11 and 10 bytes) and four
    // (the barrier before CALL).
    std::vector<tools::StarFloor> floors;
    try {
        for (unsigned msgs : {1u, 4u}) floors.push_back(tools::socket_star(n, barriers, msgs, 11, 10, false));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "aggnet_bench_host: %s\n", e.what());
        return 1;
    }

    std::printf("\nThe virtual hub: %u PEs, one client thread per PE, link frames over Unix sockets (sim:DIR/peK)\n"
                "and over its ptys (serial:DIR/pty-peK@3000000); read = one link READ round trip; hub cycles from\n"
                "its control socket, all PEs' traffic included\n\n", n);
    std::printf("%-7s %-8s %8s %12s %12s %12s %16s %18s\n", "path", "op", "count", "median_us", "p99_us", "max_us",
                "accesses_per_op", "hub_cycles_per_op");
    for (auto& r : results)
        std::printf("%-7s %-8s %8llu %12.1f %12.1f %12.1f %16.2f %18.1f\n", r.path.c_str(), r.what.c_str(),
                    (unsigned long long)r.ops, r.median_us, r.p99_us, r.max_us, r.accesses, r.cycles);
    for (auto& f : floors)
        std::printf("%-7s %-8s %8u %12.1f %12.1f %12s %16u %18s\n", "star", f.msgs == 1 ? "1-msg" : "4-msg", f.rounds,
                    f.median_us, f.p99_us, "-", f.msgs, "-");
    std::printf("\nstar: the socket-star floor in the same run (socket_floor.hpp): one thread per PE, a hub process\n"
                "that answers each PE once all have sent, with nothing simulated; 1-msg is one exchange per\n"
                "barrier (a CALL and its RESULT), 4-msg four in a row.  ratio = median / 1-msg floor.\n");
    std::printf("\naccesses_per_op: port accesses per PE per op (seed 000: 4 per barrier without timing guarantees;\n"
                "more when a PE polls GO while others are still arriving).  Round trips are host wall time, all PEs pooled.\n");
    std::ofstream f(csv);
    f << "path,op,pes,count,median_us,p99_us,max_us,accesses_per_op,hub_cycles_per_op\n";
    for (auto& r : results)
        f << r.path << ',' << r.what << ',' << n << ',' << r.ops << ',' << r.median_us << ',' << r.p99_us << ',' << r.max_us << ','
          << r.accesses << ',' << r.cycles << '\n';
    for (auto& fl : floors)
        f << "star," << (fl.msgs == 1 ? "1-msg" : "4-msg") << ',' << n << ',' << fl.rounds << ',' << fl.median_us << ','
          << fl.p99_us << ",," << fl.msgs << ",\n";
    if (!f) {
        std::fprintf(stderr, "aggnet_bench_host: cannot write %s\n", csv.c_str());
        return 1;
    }
    std::printf("wrote %s\n", csv.c_str());
    return 0;
}
