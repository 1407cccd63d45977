// bench_nand_ops: what each aggregate operation of seed 002 costs on the NAND
// engine (rtl/nand/, docs/nand.md): I/O cycles, hub clock cycles and host
// time, for N = 4 .. 64, beside seed 002 Table 2's TTL_PAPERS column.
//
// Three paths, every PE running libaggnet's NandPe on its own thread:
//   pins_ideal  every PE on its cable (LptNandPort on sim/lockstep.hpp's PC
//               port, sim/nand_cable.hpp) of a bare Verilated nand_engine
//               (t = 4), each port access taking 1 hub cycle and no OS
//               delays: an ideal PE, so the time is the hub's own, in
//               cycles.  N = 4, 8, 16, 32, 64.
//   pins_lpt    the same with each port access taking 1 us (100 cycles at
//               100 MHz), what a PC's parallel port on the ISA bus costs:
//               host time per operation in simulated us, the figure Table 2
//               measured on 486DX33 PCs.  N = 4, 8, 16, 32, 64.
//   vhub        the virtual hub (aggnet-sim --engines nand, the Verilated
//               aggnet_hub) over its sockets: link frames, one register
//               round trip per I/O cycle; host wall time, and hub cycles per
//               operation from its control socket.  N = 4 and 16.
// Per operation and N: R back-to-back repetitions after a barrier; the time
// of each is PE0's, from the end of the one before (the first: from the
// barrier); the median and maximum are printed.  The signal is timed from
// PE0's request to the last other PE seeing it (wait_signal), then every PE
// acknowledges.  Every result is checked against a C++ reference over what
// every PE contributed (a wrong result stops the bench).  k = 32 except where
// the name says otherwise.
//
// Writes CSV (path, N, op, k, reps, io_cycles, table2_io, median_cycles,
// max_cycles, median_us, max_us, table2_us) to argv[1] and prints a table.
//   bench_nand_ops OUT.csv [--sim PATH] [--reps R] [--pins N,..] [--vhub N,..]
// (--pins: the sizes of the pins paths, 4,8,16,32,64; --vhub: 4,16; empty: none).
// AGGNET_BENCH_VERBOSE=1 names each operation as PE0 starts it (stderr).
#include "lockstep.hpp"
#include "nand_cable.hpp"
#include "nand_table2.hpp"
#include "pe_threads.hpp"

#include "../host/tools/sim_child.hpp"

#include <Vnand_engine_n16.h>
#include <Vnand_engine_n32.h>
#include <Vnand_engine_n4.h>
#include <Vnand_engine_n64.h>
#include <Vnand_engine_n8.h>
#include <aggnet/error.hpp>
#include <aggnet/nand.hpp>
#include <aggnet/papers_device.hpp>
#include <aggnet/sim_control.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#ifndef AGGNET_SIM_EXE
#error "AGGNET_SIM_EXE: path of aggnet-sim"
#endif

using namespace aggnet;
using aggnet::sim::LockstepHub;
using std::chrono::milliseconds;

namespace {

constexpr double kNsPerCycle = 10.0;  // the pins paths' hub clock: 100 MHz

uint64_t mix(uint64_t x) {  // splitmix64: every PE's contribution, known to every PE
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
uint64_t val(unsigned pe, unsigned rep, unsigned k) {
    const uint64_t v = mix(uint64_t(rep) << 8 | pe);
    return k >= 64 ? v : v & ((uint64_t(1) << k) - 1);
}
bool vote(unsigned pe, unsigned rep) { return mix(uint64_t(rep) << 8 | pe | 1ull << 40) % 3 == 0; }
int64_t sval(unsigned pe, unsigned rep) { return int64_t(int32_t(uint32_t(val(pe, rep, 32)))); }
float fval(unsigned pe, unsigned rep) { return float(sval(pe, rep)) / 7.0f; }
double dval(unsigned pe, unsigned rep) { return double(int64_t(val(pe, rep, 64))) / 3.0; }
template <class T>
uint64_t bits(T x) {
    uint64_t u = 0;
    std::memcpy(&u, &x, sizeof x);
    return u;
}

/// One operation: what PE `pe` does in repetition `rep`, and the result every
/// PE must get (from every PE's contribution).
struct Op {
    const char* name;
    unsigned k;
    std::function<uint64_t(NandPe&, unsigned pe, unsigned rep)> run;
    std::function<uint64_t(unsigned n, unsigned rep)> ref;
};

template <class F>
uint64_t fold(unsigned n, uint64_t init, F f) {
    for (unsigned j = 0; j < n; ++j) init = f(init, j);
    return init;
}

std::vector<Op> ops() {
    const auto K = 32u;
    return {
        {"barrier", 0, [](NandPe& p, unsigned, unsigned) { return p.barrier(), uint64_t(0); },
         [](unsigned, unsigned) { return uint64_t(0); }},
        {"broadcast", K,
         [](NandPe& p, unsigned pe, unsigned r) {
             const unsigned root = r % p.n();
             return p.broadcast(root, pe == root ? val(pe, r, 32) : 0, 32);
         },
         [](unsigned n, unsigned r) { return val(r % n, r, 32); }},
        {"any", 1, [](NandPe& p, unsigned pe, unsigned r) { return uint64_t(p.any(vote(pe, r))); },
         [](unsigned n, unsigned r) { return fold(n, 0, [&](uint64_t a, unsigned j) { return a | vote(j, r); }); }},
        {"all", 1, [](NandPe& p, unsigned pe, unsigned r) { return uint64_t(p.all(!vote(pe, r))); },
         [](unsigned n, unsigned r) { return fold(n, 1, [&](uint64_t a, unsigned j) { return a & !vote(j, r); }); }},
        {"OR", K, [](NandPe& p, unsigned pe, unsigned r) { return p.reduce_or(val(pe, r, 32), 32); },
         [](unsigned n, unsigned r) { return fold(n, 0, [&](uint64_t a, unsigned j) { return a | val(j, r, 32); }); }},
        {"AND", K, [](NandPe& p, unsigned pe, unsigned r) { return p.reduce_and(val(pe, r, 32), 32); },
         [](unsigned n, unsigned r) {
             return fold(n, 0xffffffffu, [&](uint64_t a, unsigned j) { return a & val(j, r, 32); });
         }},
        {"NAND", K, [](NandPe& p, unsigned pe, unsigned r) { return p.reduce_nand(val(pe, r, 32), 32); },
         [](unsigned n, unsigned r) {
             return ~fold(n, 0xffffffffu, [&](uint64_t a, unsigned j) { return a & val(j, r, 32); }) & 0xffffffffu;
         }},
        {"NOR", K, [](NandPe& p, unsigned pe, unsigned r) { return p.reduce_nor(val(pe, r, 32), 32); },
         [](unsigned n, unsigned r) {
             return ~fold(n, 0, [&](uint64_t a, unsigned j) { return a | val(j, r, 32); }) & 0xffffffffu;
         }},
        {"max", K, [](NandPe& p, unsigned pe, unsigned r) { return p.max_u(val(pe, r, 32), 32); },
         [](unsigned n, unsigned r) {
             return fold(n, 0, [&](uint64_t a, unsigned j) { return std::max(a, val(j, r, 32)); });
         }},
        {"min", K, [](NandPe& p, unsigned pe, unsigned r) { return p.min_u(val(pe, r, 32), 32); },
         [](unsigned n, unsigned r) {
             return fold(n, ~0ull, [&](uint64_t a, unsigned j) { return std::min(a, val(j, r, 32)); });
         }},
        {"vote vector", K,
         [](NandPe& p, unsigned pe, unsigned r) { return p.vote_vector(vote(pe, r), pe < 32 ? pe : 64, 32); },
         [](unsigned n, unsigned r) {
             return fold(std::min(n, 32u), 0, [&](uint64_t a, unsigned j) { return a | uint64_t(vote(j, r)) << j; });
         }},
        {"max signed", K, [](NandPe& p, unsigned pe, unsigned r) { return uint64_t(p.max_s(sval(pe, r), 32)); },
         [](unsigned n, unsigned r) {
             int64_t m = sval(0, r);
             for (unsigned j = 1; j < n; ++j) m = std::max(m, sval(j, r));
             return uint64_t(m);
         }},
        {"max float", K, [](NandPe& p, unsigned pe, unsigned r) { return bits(p.max_f(fval(pe, r))); },
         [](unsigned n, unsigned r) {
             float m = fval(0, r);
             for (unsigned j = 1; j < n; ++j) m = std::max(m, fval(j, r));
             return bits(m);
         }},
        {"max double (k=64)", 64, [](NandPe& p, unsigned pe, unsigned r) { return bits(p.max_d(dval(pe, r))); },
         [](unsigned n, unsigned r) {
             double m = dval(0, r);
             for (unsigned j = 1; j < n; ++j) m = std::max(m, dval(j, r));
             return bits(m);
         }},
        {"lowest true", 0, [](NandPe& p, unsigned pe, unsigned r) { return uint64_t(p.lowest_true(vote(pe, r))); },
         [](unsigned n, unsigned r) {
             for (unsigned j = 0; j < n; ++j)
                 if (vote(j, r)) return uint64_t(j);
             return uint64_t(n);
         }},
        {"count vote", 0, [](NandPe& p, unsigned pe, unsigned r) { return uint64_t(p.count_vote(vote(pe, r))); },
         [](unsigned n, unsigned r) {
             const uint64_t c = fold(n, 0, [&](uint64_t a, unsigned j) { return a + vote(j, r); });
             return uint64_t(c == 0 ? VoteCount::zero : c == n ? VoteCount::all : c == 1 ? VoteCount::one : VoteCount::many);
         }},
    };
}

struct Row {
    std::string path;
    unsigned n = 0;
    std::string op;
    unsigned k = 0, reps = 0;
    double io = 0;
    int table2_io = -1;
    double med_cyc = NAN, max_cyc = NAN, med_us = NAN, max_us = NAN, table2_us = 0;
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? NAN : v[v.size() / 2];
}
double maxof(const std::vector<double>& v) { return v.empty() ? NAN : *std::max_element(v.begin(), v.end()); }

/// What one run of every operation measured: per op, PE0's durations in the
/// path's unit, the I/O cycles of PE0, and (for the signal) the latency.
struct Samples {
    std::vector<std::vector<double>> t;  // per op
    std::vector<double> io;              // per op, per repetition
    std::vector<double> sig;             // the signal: request -> last PE sees it
    double sig_io = 0;
};

/// The PE program every path runs: every operation R times, then the signal
/// R times.  now(): the path's clock in its unit (cycles or us).
void pe_program(unsigned pe, NandPe& p, unsigned reps, const std::vector<Op>& list, Samples& s,
                const std::function<double()>& now, std::vector<std::atomic<double>>& seen, std::atomic<double>& t0,
                std::mutex& m, std::vector<std::string>& bad, const std::function<void(size_t, bool)>& mark) {
    const unsigned n = p.n();
    for (size_t o = 0; o < list.size(); ++o) {
        p.barrier();
        if (pe == 0 && std::getenv("AGGNET_BENCH_VERBOSE")) std::fprintf(stderr, "  N = %u: %s\n", n, list[o].name);
        if (pe == 0 && mark) mark(o, false);
        double prev = now();
        const uint64_t io0 = p.io_cycles();
        for (unsigned r = 0; r < reps; ++r) {
            const uint64_t got = list[o].run(p, pe, r), want = list[o].ref(n, r);
            if (got != want) {
                std::lock_guard<std::mutex> l(m);
                bad.push_back(std::string(list[o].name) + " N=" + std::to_string(n) + " rep " + std::to_string(r) +
                              " PE" + std::to_string(pe) + ": got " + std::to_string(got) + ", want " +
                              std::to_string(want));
            }
            if (pe == 0) {
                const double t = now();
                s.t[o].push_back(t - prev);
                prev = t;
            }
        }
        if (pe == 0) {
            s.io[o] = double(p.io_cycles() - io0) / reps;
            if (mark) mark(o, true);
        }
    }
    for (unsigned r = 0; r < reps; ++r) {
        p.barrier();
        if (pe == 0) {
            const uint64_t io0 = p.io_cycles();
            t0 = now();
            p.signal();
            s.sig_io = double(p.io_cycles() - io0);
        } else {
            p.wait_signal(std::chrono::seconds(10));
            seen[pe] = now();
        }
        p.barrier();  // every PE has seen it
        if (pe == 0) {
            double last = t0;
            for (unsigned j = 1; j < n; ++j) last = std::max(last, seen[j].load());
            s.sig.push_back(last - t0);
        }
        p.acknowledge();
    }
    p.barrier();
}

/// Runs pe_program on every PE: on_pes(body) calls body(pe, its NandPe) on
/// each PE's thread.  mark(op, end), if given, is called by PE0 around each
/// operation's repetitions.
Samples run_all(unsigned n, unsigned reps, const std::vector<Op>& list, const std::function<double()>& now,
                const std::function<void(const std::function<void(unsigned, NandPe&)>&)>& on_pes,
                const std::function<void(size_t, bool)>& mark = {}) {
    Samples s;
    s.t.resize(list.size());
    s.io.resize(list.size());
    std::vector<std::atomic<double>> seen(n);
    std::atomic<double> t0{0};
    std::mutex m;
    std::vector<std::string> bad;
    on_pes([&](unsigned pe, NandPe& p) { pe_program(pe, p, reps, list, s, now, seen, t0, m, bad, mark); });
    if (!bad.empty())
        throw std::runtime_error("bench: " + std::to_string(bad.size()) + " wrong results; first: " + bad[0]);
    return s;
}

/// Every PE on its cable of a bare Verilated nand_engine at N, each port
/// access taking `access` hub cycles; times in hub cycles.
template <class V>
Samples on_pins(unsigned n, unsigned reps, uint64_t access, const std::vector<Op>& list) {
    LockstepHub::Options o;
    o.access_cycles = access;
    o.os_delay_percent = 0;
    o.max_cycles = 4'000'000'000ull;
    o.ns_per_cycle = kNsPerCycle;
    LockstepHub hub(std::make_unique<sim::NandCable<sim::NandEngineRtl<V>>>(
                        std::make_unique<sim::NandEngineRtl<V>>(n, "bench_nand_n" + std::to_string(n))),
                    o);
    return run_all(n, reps, list, [&] { return double(hub.cycle()); },
                   [&](const std::function<void(unsigned, NandPe&)>& body) {
                       std::vector<std::function<void(Transport&)>> progs(n);
                       for (unsigned pe = 0; pe < n; ++pe)
                           progs[pe] = [&, pe](Transport& t) {
                               LptNandPort port(t, pe, n);
                               NandPe p(port, milliseconds(100));
                               body(pe, p);
                           };
                       sim::rethrow_first(hub.run(progs));
                   });
}

Samples on_pins(unsigned n, unsigned reps, uint64_t access, const std::vector<Op>& list) {
    switch (n) {
    case 4: return on_pins<Vnand_engine_n4>(n, reps, access, list);
    case 8: return on_pins<Vnand_engine_n8>(n, reps, access, list);
    case 16: return on_pins<Vnand_engine_n16>(n, reps, access, list);
    case 32: return on_pins<Vnand_engine_n32>(n, reps, access, list);
    case 64: return on_pins<Vnand_engine_n64>(n, reps, access, list);
    }
    throw std::invalid_argument("bench: no nand_engine model for N = " + std::to_string(n));
}

/// Every PE over the virtual hub's socket; times in wall-clock us.  Hub
/// cycles per operation: PE0 reads the hub's cycle count on its control
/// socket before and after each operation's repetitions (all PEs' traffic;
/// the clock runs while frames move, docs/vhub.md).
Samples on_vhub(const std::string& sim, unsigned n, unsigned reps, const std::vector<Op>& list,
                std::vector<double>& cycles_per_op) {
    tools::SimChild hub(sim, {"--pes", std::to_string(n), "--engines", "nand"});
    SimControl control(hub.dir());
    const auto start = std::chrono::steady_clock::now();
    auto us = [&] { return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count(); };
    cycles_per_op.assign(list.size(), NAN);
    uint64_t c0 = 0;
    auto mark = [&](size_t o, bool end) {
        const uint64_t c = control.cycle();
        if (end) cycles_per_op[o] = double(c - c0) / reps;
        else c0 = c;
    };
    Samples s = run_all(n, reps, list, us, [&](const std::function<void(unsigned, NandPe&)>& body) {
        sim::on_pe_threads(n, [&](unsigned pe) {
            LinkConnection lc = open_link(hub.dev(pe));
            NandPe p(*lc.client, pe, std::chrono::seconds(20));
            body(pe, p);
        });
    }, mark);
    control.quit();
    hub.stop();
    return s;
}

}  // namespace

int main(int argc, char** argv) try {
    std::string csv, sim = AGGNET_SIM_EXE;
    unsigned reps = 9;
    std::vector<unsigned> pin_sizes{4, 8, 16, 32, 64}, vhub_sizes{4, 16};
    auto sizes = [](const std::string& v) {
        std::vector<unsigned> out;
        size_t at = 0;
        while (at <= v.size()) {
            const size_t end = std::min(v.find(',', at), v.size());
            if (end > at) out.push_back(unsigned(std::strtoul(v.substr(at, end - at).c_str(), nullptr, 10)));
            at = end + 1;
        }
        return out;
    };
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--sim" && i + 1 < argc) sim = argv[++i];
        else if (a == "--reps" && i + 1 < argc) reps = unsigned(std::strtoul(argv[++i], nullptr, 10));
        else if (a == "--pins" && i + 1 < argc) pin_sizes = sizes(argv[++i]);
        else if (a == "--vhub" && i + 1 < argc) vhub_sizes = sizes(argv[++i]);
        else if (csv.empty() && !a.empty() && a[0] != '-') csv = a;
        else {
            std::fprintf(stderr, "usage: bench_nand_ops OUT.csv [--sim PATH] [--reps R] [--pins 4,8,..] [--vhub 4,16]\n");
            return 2;
        }
    }
    if (csv.empty() || reps < 1 || reps > 1000) {
        std::fprintf(stderr, "usage: bench_nand_ops OUT.csv [--sim PATH] [--reps R] (R in 1..1000)\n");
        return 2;
    }
    const std::vector<Op> list = ops();
    std::vector<Row> rows;
    auto add = [&](const std::string& path, unsigned n, const Samples& s, bool cycles, const std::vector<double>* cyc) {
        for (size_t o = 0; o <= list.size(); ++o) {
            Row r;
            r.path = path;
            r.n = n;
            r.reps = reps;
            const bool sig = o == list.size();
            r.op = sig ? "signal" : list[o].name;
            r.k = sig ? 0 : list[o].k;
            r.io = sig ? s.sig_io : s.io[o];
            if (const sim::Table2Row* t2 = sim::nand_table2_row(r.op)) r.table2_io = int(t2->io), r.table2_us = t2->us;
            const std::vector<double>& t = sig ? s.sig : s.t[o];
            if (cycles) {
                r.med_cyc = median(t), r.max_cyc = maxof(t);
                r.med_us = r.med_cyc * kNsPerCycle / 1000, r.max_us = r.max_cyc * kNsPerCycle / 1000;
            } else {
                r.med_us = median(t), r.max_us = maxof(t);
                if (cyc && !sig) r.med_cyc = (*cyc)[o];
            }
            rows.push_back(r);
        }
    };
    const auto wall0 = std::chrono::steady_clock::now();
    for (unsigned n : pin_sizes) {
        add("pins_ideal", n, on_pins(n, reps, 1, list), true, nullptr);
        add("pins_lpt", n, on_pins(n, reps, 100, list), true, nullptr);
        std::fprintf(stderr, "bench_nand_ops: N = %u on the pins done (%.0f s)\n", n,
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count());
    }
    for (unsigned n : vhub_sizes) {
        std::vector<double> cyc;
        const Samples s = on_vhub(sim, n, reps, list, cyc);
        add("vhub", n, s, false, &cyc);
        std::fprintf(stderr, "bench_nand_ops: N = %u over the virtual hub done (%.0f s)\n", n,
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count());
    }

    std::ofstream f(csv);
    f << "path,N,op,k,reps,io_cycles,table2_io,median_cycles,max_cycles,median_us,max_us,table2_us\n";
    auto num = [](double x, int prec) {
        if (std::isnan(x)) return std::string();
        char b[32];
        std::snprintf(b, sizeof b, "%.*f", prec, x);
        return std::string(b);
    };
    for (const Row& r : rows)
        f << r.path << ',' << r.n << ',' << r.op << ',' << r.k << ',' << r.reps << ',' << num(r.io, 1) << ','
          << (r.table2_io < 0 ? "" : std::to_string(r.table2_io)) << ',' << num(r.med_cyc, 1) << ','
          << num(r.max_cyc, 1) << ',' << num(r.med_us, 2) << ',' << num(r.max_us, 2) << ','
          << (r.table2_io < 0 ? "" : num(r.table2_us, 1)) << '\n';
    if (!f) throw std::runtime_error("cannot write " + csv);

    // Barrier hub cycles must stay flat in N (seed 002 section 4: "independent of machine size").
    double bmin = 1e18, bmax = 0;
    for (const Row& r : rows)
        if (r.path == "pins_ideal" && r.op == "barrier") bmin = std::min(bmin, r.med_cyc), bmax = std::max(bmax, r.med_cyc);

    std::printf("\nbench_nand_ops: NandPe on every PE, t = 4 data trees, k = 32 unless named; %u repetitions each,\n"
                "medians of PE0's times.  pins_ideal: every PE on its cable, 1 hub cycle per port access (the\n"
                "hub's own time); pins_lpt: 1 us per port access (a PC's parallel port), simulated us at 100 MHz;\n"
                "vhub: the virtual hub over its sockets, host wall time (hub cycles: control socket).  Table 2:\n"
                "seed 002's TTL_PAPERS I/O cycles and the time measured on four 486DX33 PCs.\n\n",
                reps);
    std::printf("%-18s %3s %5s %6s | %11s %9s | %10s | %10s %9s | %8s %8s\n", "op", "N", "I/O", "T2 I/O",
                "ideal cyc", "max cyc", "lpt us", "vhub us", "vhub cyc", "T2 us", "");
    for (unsigned n : {4u, 8u, 16u, 32u, 64u})
        for (size_t o = 0; o <= list.size(); ++o) {
            const std::string name = o == list.size() ? "signal" : list[o].name;
            const Row *ideal = nullptr, *lpt = nullptr, *vh = nullptr;
            for (const Row& r : rows)
                if (r.n == n && r.op == name) {
                    if (r.path == "pins_ideal") ideal = &r;
                    else if (r.path == "pins_lpt") lpt = &r;
                    else if (r.path == "vhub") vh = &r;
                }
            if (!ideal) continue;
            std::printf("%-18s %3u %5.1f %6s | %11.0f %9.0f | %10.2f | %10s %9s | %8s\n", name.c_str(), n, ideal->io,
                        ideal->table2_io < 0 ? "-" : std::to_string(ideal->table2_io).c_str(), ideal->med_cyc,
                        ideal->max_cyc, lpt ? lpt->med_us : NAN, vh ? num(vh->med_us, 1).c_str() : "",
                        vh && !std::isnan(vh->med_cyc) ? num(vh->med_cyc, 0).c_str() : "",
                        ideal->table2_io < 0 ? "-" : num(ideal->table2_us, 1).c_str());
        }
    std::string ns;
    for (unsigned n : pin_sizes) ns += (ns.empty() ? "" : ", ") + std::to_string(n);
    if (!pin_sizes.empty())
        std::printf("\nbarrier, pins_ideal: %.0f .. %.0f hub cycles over N = %s (%s)\n", bmin, bmax, ns.c_str(),
                    bmax - bmin <= 1 ? "flat in N" : "NOT flat in N");
    std::printf("wrote %s (%.0f s)\n", csv.c_str(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count());
    return bmax - bmin <= 1 ? 0 : 1;
} catch (const std::exception& e) {
    std::fprintf(stderr, "bench_nand_ops: %s\n", e.what());
    return 1;
}
