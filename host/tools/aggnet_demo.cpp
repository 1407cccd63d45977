// aggnet_demo: the program each of the 4 host processes of `make demo` runs
// (tools/demo.sh starts aggnet-sim and one of these per PE).  Plain libaggnet
// code: it would run unchanged against a board (serial:...?pe=K, ppdev:...?pe=K),
// except for the hub-cycle figures, which only the virtual hub can tell (its
// control socket, aggnet/sim_control.hpp).
//
//   aggnet_demo DEVICE [--rounds R]
//
// Phases, every one checked (exit 1 on any mismatch):
//   1. barrier with all 4 PEs, R times
//   2. waitvec: every PE sends its PE number, one bit per p_waitvec(); all
//      reconstruct everybody's number
//   3. partitioned barrier: two pairs {PE0,PE1} {PE2,PE3}, R times each, plus
//      one waitvec per pair (bits of the other pair must read 0)
//   4. interrupt: PE1 enqueues {0,1,3} and raises IR; PE0, PE1 and PE3 must see
//      INT, PE2 (not in PE1's mask) must not
#include <aggnet/cli.hpp>
#include <aggnet/device.hpp>
#include <aggnet/papers.hpp>
#include <aggnet/papers_device.hpp>
#include <aggnet/sim_control.hpp>

#include <algorithm>
#include <cstdarg>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

using namespace aggnet;
using clk = std::chrono::steady_clock;

namespace {

int g_fail = 0;
unsigned g_pe = 0;

void say(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void say(const char* fmt, ...) {
    char b[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    std::printf("PE%u: %s\n", g_pe, b);
    std::fflush(stdout);
}

void check(bool ok, const std::string& what) {
    if (!ok) {
        ++g_fail;
        say("FAIL: %s", what.c_str());
    }
}

std::string bin(uint64_t v, unsigned n) {
    std::string s;
    for (unsigned k = n; k-- > 0;) s += (v >> k & 1) ? '1' : '0';
    return s;
}

struct Timing {
    std::vector<double> us;
    uint64_t cycles = 0, accesses = 0, ops = 0;
    double median() {
        if (us.empty()) return 0;
        std::sort(us.begin(), us.end());
        return us[us.size() / 2];
    }
};

/// Runs `op` `count` times, measuring host round trip, hub cycles and port accesses.
Timing timed(Papers& p, SimControl* sim, unsigned count, const std::function<void()>& op) {
    Timing t;
    const uint64_t c0 = sim ? sim->cycle() : 0;
    const uint64_t a0 = p.port().accesses();
    for (unsigned i = 0; i < count; ++i) {
        const auto t0 = clk::now();
        op();
        t.us.push_back(std::chrono::duration<double, std::micro>(clk::now() - t0).count());
    }
    t.cycles = sim ? sim->cycle() - c0 : 0;
    t.accesses = p.port().accesses() - a0;
    t.ops = count;
    return t;
}

void report(const char* what, Timing t) {
    if (t.cycles)
        say("  %-26s median %7.1f us host round trip, %6.1f hub cycles, %4.2f port accesses per op (%llu ops)", what,
            t.median(), double(t.cycles) / double(t.ops), double(t.accesses) / double(t.ops), (unsigned long long)t.ops);
    else
        say("  %-26s median %7.1f us host round trip, %4.2f port accesses per op (%llu ops)", what, t.median(),
            double(t.accesses) / double(t.ops), (unsigned long long)t.ops);
}

}  // namespace

int main(int argc, char** argv) {
    std::string device;
    unsigned rounds = 200;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--help" || a == "-h") {
            std::printf("usage: aggnet_demo DEVICE [--rounds R]\n  One PE of the 4-PE demo (tools/demo.sh).\n");
            return 0;
        } else if (a == "--rounds") {
            try {
                if (i + 1 >= argc) throw cli::UsageError("--rounds needs a value");
                rounds = unsigned(cli::number("--rounds", argv[++i], 1, 1000000));
            } catch (const cli::UsageError& e) {
                std::fprintf(stderr, "aggnet_demo: %s\n", e.what());
                return cli::kUsageExit;
            }
        } else if (device.empty() && a[0] != '-') {
            device = a;
        } else {
            std::fprintf(stderr, "aggnet_demo: unexpected argument '%s' (try --help)\n", a.c_str());
            return 2;
        }
    }
    if (device.empty() || rounds == 0) {
        std::fprintf(stderr, "usage: aggnet_demo DEVICE [--rounds R]\n");
        return 2;
    }
    try {
        auto t = open_papers_port(device);
        const std::string dir = sim_dir_of(device);
        std::unique_ptr<SimControl> simc = dir.empty() ? nullptr : std::make_unique<SimControl>(dir);
        SimControl* sim = simc.get();
        Papers p(*t);
        g_pe = p.pe();
        if (p.pes() != 4) throw Error("the demo wants a 4-PE hub, this one has " + std::to_string(p.pes()));
        const auto to = std::chrono::seconds(10);
        const unsigned me = p.pe();
        say("attached: %s", t->describe().c_str());

        // 1. Barrier with everybody.
        p.enqueue(0xf, to);
        p.wait(to);  // everybody attached
        Timing bar = timed(p, sim, rounds, [&] { p.wait(to); });
        say("barrier with all 4: %u barriers done", rounds);

        // 2. waitvec: send our PE number, bit by bit; reconstruct everybody's.
        uint64_t numbers[4] = {0, 0, 0, 0};
        {
            std::vector<uint64_t> vecs;
            timed(p, sim, 2, [&] { vecs.push_back(p.waitvec((me >> vecs.size()) & 1, to)); });
            for (unsigned b = 0; b < 2; ++b)
                for (unsigned k = 0; k < 4; ++k) numbers[k] |= ((vecs[b] >> k) & 1) << b;
            say("waitvec: sent my number %u as 2 bits; vectors (PE3..PE0) %s %s -> numbers %llu %llu %llu %llu", me,
                bin(vecs[0], 4).c_str(), bin(vecs[1], 4).c_str(), (unsigned long long)numbers[0],
                (unsigned long long)numbers[1], (unsigned long long)numbers[2], (unsigned long long)numbers[3]);
            for (unsigned k = 0; k < 4; ++k)
                check(numbers[k] == k, "waitvec: PE" + std::to_string(k) + "'s number read as " + std::to_string(numbers[k]));
        }
        Timing wvmore = timed(p, sim, rounds, [&] { p.waitvec(me & 1, to); });

        // 3. Two partitions.
        const uint64_t pair = me < 2 ? 0x3 : 0xc;
        p.enqueue(pair, to);
        Timing part = timed(p, sim, rounds, [&] { p.wait(to); });
        const uint64_t pv = p.waitvec(true, to);
        say("partitioned barrier with %s: %u barriers done; waitvec(1) in the pair = %s", pe_list(pair).c_str(), rounds,
            bin(pv, 4).c_str());
        check(pv == pair, "pair waitvec read " + bin(pv, 4) + ", expected " + bin(pair, 4));

        // Back together.
        p.enqueue(0xf, to);
        p.wait(to);

        // 4. Interrupt: PE1 interrupts the PEs of its mask {0,1,3}.
        const uint64_t irmask = 0xb;
        bool saw_int = false;
        if (me == 1) {
            p.enqueue(irmask, to);
            p.set_interrupt_request(true);
            saw_int = p.status().intr;
            // Wait until PE0 and PE3 have seen INT and arrived for {0,1,3}.
            const auto deadline = clk::now() + to;
            while ((p.arrived() & irmask & ~p.our_mask()) != (irmask & ~p.our_mask())) {
                saw_int |= p.status().intr;
                if (clk::now() > deadline) throw Error("PE0/PE3 never acknowledged the interrupt");
            }
            p.set_interrupt_request(false);
            p.wait(to);
        } else if (irmask >> me & 1) {
            const auto deadline = clk::now() + to;
            while (!(saw_int = p.status().intr))
                if (clk::now() > deadline) break;
            p.enqueue(irmask, to);
            p.wait(to);  // completes once PE1 drops IR and joins
        } else {
            // PE2: watch INT until everybody else is back at the all-PE barrier.
            const auto deadline = clk::now() + to;
            while ((p.arrived() & 0xb) != 0xb) {
                saw_int |= p.status().intr;
                if (clk::now() > deadline) throw Error("the others never came back from the interrupt phase");
            }
        }
        p.enqueue(0xf, to);
        p.wait(to);
        const bool expect = irmask >> me & 1;
        say("interrupt: PE1 raised IR with mask {PE0, PE1, PE3}; I %s INT (expected: %s)", saw_int ? "saw" : "did not see",
            expect ? "INT" : "no INT");
        check(saw_int == expect, "interrupt seen = " + std::to_string(saw_int));

        say("latencies (%s):", sim ? "virtual hub; hub cycles from its control socket, all PEs' traffic included" : "host round trips over this port");
        report("barrier, all 4 PEs", bar);
        report("waitvec, all 4 PEs", wvmore);
        report("barrier, pair", part);
        p.enqueue(p.our_mask(), to);
        if (g_fail) say("%d check(s) FAILED", g_fail);
        else say("all checks passed");
        return g_fail ? 1 : 0;
    } catch (const std::exception& e) {
        std::printf("PE%u: ERROR: %s\n", g_pe, e.what());
        return 1;
    }
}
