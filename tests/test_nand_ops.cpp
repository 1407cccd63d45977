// The aggregate operations of seed 002 section 2 (libaggnet's NandPe) over
// the link, on the Verilated aggnet_hub with its NAND engine (sim/link_hub.hpp:
// every PE thread has its own LinkClient on the hub's one byte stream).
// Every PE draws every PE's contribution from the round's seed, so each PE
// checks its result against a C++ reference (max, min, AND, OR, ... over the
// values the PEs contributed) computed independently of the hub.  Also: the
// I/O cycles of each operation against seed 002 Table 2's TTL_PAPERS column,
// the figure 4 multi-way branch table, the signal and its acknowledge, a
// timeout naming the missing PE, and bad input.
#include "link_hub.hpp"
#include "lockstep.hpp"
#include "nand_cable.hpp"
#include "nand_table2.hpp"
#include "pc_port.hpp"
#include "seed.hpp"

#include <aggnet/error.hpp>
#include <aggnet/nand.hpp>
#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

using namespace aggnet;
using aggnet::sim::LinkHub;
using std::chrono::microseconds;
using std::chrono::milliseconds;

namespace {

link::LinkConfig cfg(unsigned n) { return LinkHub::client_config(n); }

void run_pes(LinkHub& hub, unsigned n, const std::function<void(unsigned, NandPe&)>& fn) {
    sim::on_pe_threads(n, [&](unsigned pe) {
        link::LinkClient c(hub.endpoint(pe), "linkhub:pe" + std::to_string(pe), cfg(n));
        NandPe p(c, pe, milliseconds(2000));
        fn(pe, p);
    });
}

uint64_t wmask(unsigned k) { return k >= 64 ? ~uint64_t(0) : (uint64_t(1) << k) - 1; }
int64_t sext(uint64_t u, unsigned k) {
    return k >= 64 ? int64_t(u) : int64_t((u ^ (uint64_t(1) << (k - 1))) - (uint64_t(1) << (k - 1)));
}

/// Collects mismatches from the PE threads.
struct Log {
    std::mutex m;
    std::vector<std::string> bad;
    uint64_t checks = 0;
    template <class A, class B>
    void eq(const A& got, const B& want, const std::string& what) {
        std::lock_guard<std::mutex> l(m);
        ++checks;
        if (!(got == want)) {
            std::ostringstream o;
            o << what << ": got " << got << ", want " << want;
            bad.push_back(o.str());
        }
    }
};

/// How a test runs its PEs: fn(pe, NandPe) on every PE's thread; returns hub cycles.
using Runner = std::function<uint64_t(unsigned, const std::function<void(unsigned, NandPe&)>&)>;

/// Every PE over the link (sim/link_hub.hpp).
uint64_t on_link(unsigned n, const std::function<void(unsigned, NandPe&)>& fn) {
    LinkHub hub(n, "nand_ops_n" + std::to_string(n));
    run_pes(hub, n, fn);
    return hub.cycle();
}

/// Every PE over the link, driving each step itself (a WRITE and a WAIT per
/// step: the path before the sequencer, and the cable's).
uint64_t on_link_steps(unsigned n, const std::function<void(unsigned, NandPe&)>& fn) {
    LinkHub hub(n, "nand_ops_steps_n" + std::to_string(n));
    sim::on_pe_threads(n, [&](unsigned pe) {
        link::LinkClient c(hub.endpoint(pe), "linkhub:pe" + std::to_string(pe), cfg(n));
        LinkNandPort port(c, pe);
        port.use_sequencer(false);
        NandPe p(port, milliseconds(2000));
        fn(pe, p);
    });
    return hub.cycle();
}

/// Every PE on its cable: LptNandPort over a simulated PC parallel port
/// (sim/lockstep.hpp: 1 us per port access at 100 MHz, random OS delays;
/// `access` cycles per access and no OS delays when given).
uint64_t on_cable(unsigned n, const std::function<void(unsigned, NandPe&)>& fn, uint64_t seed = 1,
                  uint64_t access = 0, milliseconds timeout = milliseconds(50)) {
    aggnet::sim::LockstepHub::Options o;
    o.seed = seed;
    if (access) o.access_cycles = access, o.os_delay_percent = 0;
    o.max_cycles = 2'000'000'000;
    aggnet::sim::LockstepHub hub(std::make_unique<aggnet::sim::NandCable<aggnet::sim::HubModel>>(aggnet::sim::make_hub_rtl(n, "nand_cable")), o);
    std::vector<std::function<void(Transport&)>> progs(n);
    for (unsigned pe = 0; pe < n; ++pe)
        progs[pe] = [&, pe](Transport& t) {
            LptNandPort port(t, pe, n);
            NandPe p(port, timeout);
            fn(pe, p);
        };
    aggnet::sim::rethrow_first(hub.run(progs));
    return hub.cycle();
}

/// `frames_per_op`: link frames each operation takes (1 over the link: one
/// CALL to the engine's sequencer; 0 on the cable).
void random_ops(unsigned n, unsigned rounds, const Runner& runner = on_link, const char* how = "link",
                unsigned frames_per_op = 1) {
    const uint64_t seed = aggnet::sim::test_seed(("nand_ops_n" + std::to_string(n) + "_" + how).c_str());
    Log log;
    const uint64_t cycles = runner(n, [&](unsigned pe, NandPe& p) {
        for (unsigned r = 0; r < rounds; ++r) {
            // every PE's contribution, known to every PE
            std::mt19937_64 g(seed * 1000003 + r);
            const unsigned op = unsigned(g() % 13), k = 1 + unsigned(g() % 64);
            std::vector<uint64_t> v(n);
            std::vector<bool> b(n);
            for (unsigned j = 0; j < n; ++j) v[j] = g() & wmask(k), b[j] = g() % 3 == 0;
            if (g() % 4 == 0) std::fill(b.begin(), b.end(), g() % 2 == 0);  // all true or all false
            const unsigned root = unsigned(g() % n);
            const std::string at = "seed " + std::to_string(seed) + " round " + std::to_string(r) + " PE" +
                                   std::to_string(pe) + " k " + std::to_string(k) + " op " + std::to_string(op);
            // operations per case (count_vote: an OR, then one step that depends on it: 2)
            static const unsigned ops_of[13] = {1, 1, 2, 1, 1, 2, 2, 2, 2, 2, 3, 2, 1};
            const uint64_t frames0 = p.link_frames();
            uint64_t a = wmask(k), o = 0, mx = 0, mn = wmask(k);
            int64_t smx = std::numeric_limits<int64_t>::min(), smn = std::numeric_limits<int64_t>::max();
            for (unsigned j = 0; j < n; ++j) {
                a &= v[j], o |= v[j], mx = std::max(mx, v[j]), mn = std::min(mn, v[j]);
                smx = std::max(smx, sext(v[j], k)), smn = std::min(smn, sext(v[j], k));
            }
            switch (op) {
            case 0: p.barrier(); break;
            case 1: log.eq(p.broadcast(root, v[root] * (pe == root), k), v[root], at + " broadcast"); break;
            case 2: {
                bool any = false, all = true;
                for (unsigned j = 0; j < n; ++j) any |= b[j], all = all && b[j];
                log.eq(p.any(b[pe]), any, at + " any");
                log.eq(p.all(b[pe]), all, at + " all");
                break;
            }
            case 3: log.eq(p.reduce_and(v[pe], k), a, at + " AND"); break;
            case 4: log.eq(p.reduce_or(v[pe], k), o, at + " OR"); break;
            case 5:
                log.eq(p.reduce_nand(v[pe], k), ~a & wmask(k), at + " NAND");
                log.eq(p.reduce_nor(v[pe], k), ~o & wmask(k), at + " NOR");
                break;
            case 6:
                log.eq(p.max_u(v[pe], k), mx, at + " max_u");
                log.eq(p.min_u(v[pe], k), mn, at + " min_u");
                break;
            case 7:
                log.eq(p.max_s(sext(v[pe], k), k), smx, at + " max_s");
                log.eq(p.min_s(sext(v[pe], k), k), smn, at + " min_s");
                break;
            case 8: {
                // floats: finite values of both signs, zeros and infinities
                std::vector<float> f(n);
                for (unsigned j = 0; j < n; ++j) {
                    const unsigned c = unsigned(v[j] % 8);
                    f[j] = c == 0 ? 0.0f : c == 1 ? -0.0f : c == 2 ? std::numeric_limits<float>::infinity()
                         : c == 3 ? -std::numeric_limits<float>::infinity()
                                  : float(sext(v[j] >> 3, 40 > k ? 40 : k) % 100000) / 7.0f;
                }
                float fmx = f[0], fmn = f[0];
                for (float x : f) fmx = std::max(fmx, x), fmn = std::min(fmn, x);
                const float gmx = p.max_f(f[pe]), gmn = p.min_f(f[pe]);
                log.eq(gmx == fmx, true, at + " max_f " + std::to_string(gmx) + " vs " + std::to_string(fmx));
                log.eq(gmn == fmn, true, at + " min_f " + std::to_string(gmn) + " vs " + std::to_string(fmn));
                break;
            }
            case 9: {
                double d = double(sext(v[pe], k)) / 3.0, dmx = -INFINITY, dmn = INFINITY;
                for (unsigned j = 0; j < n; ++j) {
                    const double x = double(sext(v[j], k)) / 3.0;
                    dmx = std::max(dmx, x), dmn = std::min(dmn, x);
                }
                log.eq(p.max_d(d) == dmx, true, at + " max_d");
                log.eq(p.min_d(d) == dmn, true, at + " min_d");
                break;
            }
            case 10: {
                unsigned low = n, cnt = 0;
                for (unsigned j = 0; j < n; ++j)
                    if (b[j]) cnt++, low = std::min(low, j);
                log.eq(p.lowest_true(b[pe]), low, at + " lowest_true");
                const VoteCount want = cnt == 0 ? VoteCount::zero : cnt == n ? VoteCount::all
                                     : cnt == 1 ? VoteCount::one : VoteCount::many;
                log.eq(std::string(vote_count_name(p.count_vote(b[pe]))), std::string(vote_count_name(want)),
                       at + " count_vote");
                break;
            }
            case 11: {
                // PE j controls bit (j * 7) % k; bits nobody controls read 0
                uint64_t want = 0;
                std::vector<int> ctl(64, -1);
                for (unsigned j = 0; j < n; ++j)
                    if (ctl[(j * 7) % k] < 0) ctl[(j * 7) % k] = int(j);
                for (unsigned i = 0; i < k; ++i)
                    if (ctl[i] >= 0 && b[unsigned(ctl[i])]) want |= uint64_t(1) << i;
                const unsigned mine = ctl[(pe * 7) % k] == int(pe) ? (pe * 7) % k : 64;
                log.eq(p.vote_vector(b[pe], mine, k), want, at + " vote_vector");
                log.eq(p.resource_vector(v[pe], k), o, at + " resource_vector");
                break;
            }
            case 12:
                // the one-bit-per-step variant (k any operations) agrees
                log.eq(p.max_u_bits(v[pe], k, 1), mx, at + " max_u_bits(1)");
                break;
            }
            log.eq(p.link_frames() - frames0, uint64_t(ops_of[op]) * frames_per_op, at + " link frames");
        }
    });
    INFO(log.bad.size() << " mismatches of " << log.checks << " checks; first: "
                        << (log.bad.empty() ? std::string("-") : log.bad[0]));
    CHECK(log.bad.empty());
    CHECK(log.checks > rounds * n / 2);
    std::printf("[nand] N = %u on the %s: %u rounds of random operations, %llu checks, %llu hub cycles\n", n, how,
                rounds, static_cast<unsigned long long>(log.checks), static_cast<unsigned long long>(cycles));
}

}  // namespace

// (one case per hub size, each its own CTest entry: rtl/nand/manifest.json "parts")
TEST_CASE("nand ops: every operation of seed 002 section 2 against a C++ reference, random values, widths and "
          "thread timing, one CALL per operation over the link, N = 4; and on the cable",
          "[nand][ops]") {
    random_ops(4, 300);
    // The same operations with every PE on its cable (LptNandPort): t = 4
    // trees through a PC parallel port's data and status registers.
    random_ops(4, 60, [](unsigned n, const std::function<void(unsigned, NandPe&)>& fn) {
        return on_cable(n, fn, aggnet::sim::test_seed("nand_ops_cable_timing"));
    }, "cable", 0);
}

TEST_CASE("nand ops: the random operations over the link at N = 16", "[nand][ops][n16]") { random_ops(16, 60); }

TEST_CASE("nand ops: the random operations over the link at N = 40", "[nand][ops][n40]") { random_ops(40, 12); }

TEST_CASE("nand ops: I/O cycles per operation <= seed 002 Table 2's TTL_PAPERS column (t = 4, k = 32)",
          "[nand][ops]") {
    // over the link with the engine's sequencer (one CALL per operation; the
    // I/O cycles the steps stand for), over the link driving each step
    // (register accesses, one frame each), and on the cable (port accesses; a
    // wait that polls counts once)
    for (const char* how : {"link", "link, steps", "cable"}) {
        INFO("PEs on the " << how);
        const std::string h = how;
        const Runner run = h == "link" ? Runner(on_link) : h == "link, steps" ? Runner(on_link_steps)
                         : Runner([](unsigned n, const std::function<void(unsigned, NandPe&)>& fn) {
            return on_cable(n, fn);
        });
        std::mutex m;
        std::vector<std::pair<std::string, uint64_t>> got;  // from PE0
        std::map<std::string, uint64_t> frames;              // PE0's link frames per operation
        run(4, [&](unsigned pe, NandPe& p) {
            auto count = [&](const char* name, const std::function<void()>& fn) {
                const uint64_t before = p.io_cycles(), f0 = p.link_frames();
                fn();
                if (pe == 0) {
                    std::lock_guard<std::mutex> l(m);
                    got.emplace_back(name, p.io_cycles() - before);
                    frames[name] = p.link_frames() - f0;
                }
            };
            count("barrier", [&] { p.barrier(); });
            count("broadcast", [&] { p.broadcast(1, 0x12345678, 32); });
            count("any", [&] { p.any(pe == 2); });
            count("all", [&] { p.all(true); });
            count("OR", [&] { p.reduce_or(pe, 32); });
            count("AND", [&] { p.reduce_and(pe, 32); });
            count("NAND", [&] { p.reduce_nand(pe, 32); });
            count("NOR", [&] { p.reduce_nor(pe, 32); });
            count("max", [&] { p.max_u(pe * 1000, 32); });
            count("min", [&] { p.min_u(pe * 1000, 32); });
            count("vote vector", [&] { p.vote_vector(true, pe, 32); });
            p.barrier();
            count("signal", [&] {
                if (pe == 0) p.signal();
            });
            p.barrier();
            p.acknowledge();
        });
        // Table 2, TTL_PAPERS I/O cycles: barrier 2; any, all 5; 32-bit
        // broadcast, OR, AND, NAND, NOR, vector vote 5*ceil(32/4) = 40; max, min
        // 5*ceil(32/2) = 80; signal 1 (sim/nand_table2.hpp).  Ours (docs/nand.md): 2 per step.
        const std::map<std::string, uint64_t> want = {
            {"barrier", 2}, {"broadcast", 16}, {"any", 2},  {"all", 2},  {"OR", 16},          {"AND", 16},
            {"NAND", 16},   {"NOR", 16},       {"max", 32}, {"min", 32}, {"vote vector", 16}, {"signal", 1},
        };
        REQUIRE(got.size() == want.size());
        REQUIRE(aggnet::sim::nand_table2().size() == want.size());
        for (const auto& [name, n] : got) {
            INFO(name);
            const aggnet::sim::Table2Row* t2 = aggnet::sim::nand_table2_row(name);
            REQUIRE(t2 != nullptr);
            CHECK(n == want.at(name));
            CHECK(n <= t2->io);
            // link frames: one CALL per operation (the signal: one WRITE);
            // driving the steps, one per I/O cycle; none on the cable
            const uint64_t f = h == "link" ? 1 : h == "link, steps" ? n : 0;
            CHECK(frames.at(name) == f);
            std::printf("[nand] %-12s %-11s %3llu I/O cycles (TTL_PAPERS, Table 2: %llu), %3llu link frames\n",
                        name.c_str(), how, static_cast<unsigned long long>(n), static_cast<unsigned long long>(t2->io),
                        static_cast<unsigned long long>(frames.at(name)));
        }
    }
}

TEST_CASE("nand ops: a PC port on the cable reads the flag SEL selected: ports faster than the SEL -> Busy "
          "latency, and N = 8 (the status register is 8 bits whatever N)",
          "[nand][ops]") {
    // One hub cycle per port access: BS shows the flag SEL selected only 6
    // cycles after the SEL write (rtl/nand/nand_engine.v), so a port that
    // trusted its next read would take a pending signal for BF = 1 (a
    // barrier passed early) or BF = 1 for a signal.  LptNandPort waits
    // kSelectSettle after each SEL change.  Every PE checks, in each round,
    // that nobody passed the barrier before everybody arrived, and that the
    // broadcast after it carries the round's value.
    // (N = 8: the PC's status register is 8 bits whatever N; the simulated
    // port once inverted PAPERS' widened GO bit instead of Busy there.)
    for (auto [n, access] : {std::pair<unsigned, uint64_t>{4, 1}, {4, 3}, {4, 7}, {8, 7}, {8, 100}}) {
        INFO("N = " << n << ", port access: " << access << " hub cycles");
        const unsigned rounds = 12;
        std::atomic<unsigned> arrived[rounds] = {};
        std::atomic<unsigned> early{0}, wrong{0}, missed{0};
        on_cable(n, [&](unsigned pe, NandPe& p) {
            for (unsigned r = 0; r < rounds; ++r) {
                if (pe == r % n) p.signal();
                else p.wait_signal(milliseconds(2));
                if (!p.signal_pending()) ++missed;
                ++arrived[r];
                p.barrier();
                if (arrived[r] != n) ++early;
                if (p.broadcast(r % n, pe == r % n ? 0xa5u + r : 0, 8) != 0xa5u + r) ++wrong;
                p.acknowledge();
                p.barrier();
            }
        }, 1, access, milliseconds(2));  // short timeouts: a port that reads the wrong bit fails fast
        CHECK(early == 0);
        CHECK(wrong == 0);
        CHECK(missed == 0);
    }
}

TEST_CASE("nand ops: seed 002 figure 4, the multi-way branch table", "[nand][ops]") {
    // nand() arguments of PE0..PE3 and the result (the jump table index)
    const uint64_t rows[8][5] = {
        {0xf, 0xf, 0xf, 0xf, 0x0}, {0xe, 0xf, 0xf, 0xf, 0x1}, {0xf, 0xf, 0xd, 0xf, 0x2}, {0xe, 0xf, 0xd, 0xf, 0x3},
        {0xf, 0xf, 0xb, 0xf, 0x4}, {0xe, 0xf, 0xb, 0xf, 0x5}, {0xf, 0xf, 0x9, 0xf, 0x6}, {0xe, 0xf, 0x9, 0xf, 0x7},
    };
    LinkHub hub(4, "nand_fig4");
    Log log;
    run_pes(hub, 4, [&](unsigned pe, NandPe& p) {
        for (unsigned r = 0; r < 8; ++r)
            log.eq(p.branch_key(rows[r][pe], 4), rows[r][4], "figure 4 row " + std::to_string(r));
    });
    INFO((log.bad.empty() ? std::string("-") : log.bad[0]));
    CHECK(log.bad.empty());
    CHECK(log.checks == 32);
}

TEST_CASE("nand ops: a signal is pending until every PE acknowledged; a barrier timeout names the missing PE; "
          "bad input is refused without touching the hub",
          "[nand][ops]") {
    {
        LinkHub hub(4, "nand_signal");
        std::atomic<int> after_three{-1}, after_all{-1};
        std::atomic<unsigned> refused{0};
        std::string second_ack;
        run_pes(hub, 4, [&](unsigned pe, NandPe& p) {
            // bad input: specific errors, no I/O
            const uint64_t io = p.io_cycles();
            try {
                p.reduce_or(1, 65);
            } catch (const std::invalid_argument& e) {
                if (std::string(e.what()).find("65") != std::string::npos) ++refused;
            }
            try {
                p.broadcast(4, 1, 8);
            } catch (const std::invalid_argument& e) {
                if (std::string(e.what()).find("PE4") != std::string::npos) ++refused;
            }
            try {
                p.max_s(200, 8);
            } catch (const std::invalid_argument&) {
                ++refused;
            }
            if (p.io_cycles() != io) refused = 1000;
            // 2.7: PE0 signals; every PE sees it; it stays until all acknowledged
            if (pe == 0) p.signal();
            p.wait_signal(milliseconds(2000));
            if (pe != 3) p.acknowledge();
            p.barrier();
            if (pe == 0) after_three = p.signal_pending();
            if (pe == 0) {
                // out of protocol order: a second acknowledge before PE3 made
                // its first; refused, PE0's acknowledge stands
                try {
                    p.acknowledge();
                } catch (const ProtocolError& e) {
                    second_ack = e.what();
                }
            }
            p.barrier();
            if (pe == 3) p.acknowledge();
            p.barrier();
            if (pe == 0) after_all = p.signal_pending();
        });
        CHECK(refused == 12);
        CHECK(after_three == 1);
        INFO(second_ack);
        CHECK(second_ack.find("previous acknowledge has not completed") != std::string::npos);
        CHECK(after_all == 0);  // PE3's acknowledge completes it: PE0's first one stood
    }
    {
        // Driving the steps (no sequencer: the cable's way): PEs 0..2
        // arrive; PE3 holds back until all three have timed out; their
        // barrier stays open and their next one waits for it first.
        LinkHub hub(4, "nand_timeout");
        std::vector<std::string> msg(4);
        std::vector<uint64_t> missing(4);
        std::atomic<unsigned> timed_out{0}, after{0};
        sim::on_pe_threads(4, [&](unsigned pe) {
            link::LinkClient c(hub.endpoint(pe), "linkhub:pe" + std::to_string(pe), cfg(4));
            LinkNandPort port(c, pe);
            port.use_sequencer(false);
            NandPe p(port, milliseconds(pe == 3 ? 2000 : 10));
            if (pe == 3) {
                while (timed_out < 3) std::this_thread::sleep_for(milliseconds(1));
                p.barrier();  // the one the others gave up on
                p.barrier();
                ++after;
                return;
            }
            try {
                p.barrier();
            } catch (const TimeoutError& e) {
                msg[pe] = e.what();
                missing[pe] = e.missing_pes;
            }
            ++timed_out;
            p.barrier();  // waits for the open one first, then this one
            ++after;
        });
        for (unsigned pe = 0; pe < 3; ++pe) {
            INFO("PE" << pe << ": " << msg[pe]);
            CHECK(missing[pe] == (1u << 3));
            CHECK(msg[pe].find("never arrived: 3") != std::string::npos);
        }
        CHECK(after == 4);
    }
}

TEST_CASE("nand ops over CALL: a PE that never calls makes the others time out naming it; they cancel; the next "
          "operation works",
          "[nand][ops][call]") {
    const uint64_t seed = aggnet::sim::test_seed("nand_call_timeout");
    LinkHub hub(4, "nand_call_timeout");
    std::vector<std::string> msg(4);
    std::vector<uint64_t> missing(4);
    std::vector<unsigned> again(4, 99);
    std::atomic<unsigned> timed_out{0}, attached{0};
    Log log;
    sim::on_pe_threads(4, [&](unsigned pe) {
        link::LinkClient c(hub.endpoint(pe), "linkhub:pe" + std::to_string(pe), cfg(4));
        // 20 ms on the hub's clock for the operation PE3 never joins (every
        // waiting PE advances that clock: sim/link_hub.hpp), then the usual
        // 2 s for the rest; every PE attaches before any starts, so that a
        // PE whose thread starts late is not taken for one that never came
        NandPe p(c, pe, milliseconds(20));
        ++attached;
        while (attached < 4) std::this_thread::yield();
        std::mt19937_64 g(seed);
        std::vector<uint64_t> v(4);
        for (auto& x : v) x = g() & wmask(40);
        if (pe != 3) {
            const uint64_t f0 = p.link_frames();
            try {
                p.max_u(v[pe], 40);  // PE3 never makes this call
            } catch (const TimeoutError& e) {
                msg[pe] = e.what();
                missing[pe] = e.never_arrived;
            }
            // the CALL, BARS, LEFT, CANCEL
            log.eq(p.link_frames() - f0, uint64_t(4), "PE" + std::to_string(pe) + " frames of a timed-out operation");
            again[pe] = p.cancel();  // cancelled already: nothing left
            ++timed_out;
            // nobody starts the next operation (which clears its LEFT bit)
            // before every PE has read LEFT for its own message
            while (timed_out < 3) std::this_thread::yield();
        } else {
            while (timed_out < 3) std::this_thread::sleep_for(milliseconds(1));
            again[pe] = p.cancel();
        }
        // every PE: the next operations work
        p.set_timeout(milliseconds(2000));
        uint64_t mx = 0, o = 0;
        for (uint64_t x : v) mx = std::max(mx, x), o |= x;
        log.eq(p.max_u(v[pe], 40), mx, "PE" + std::to_string(pe) + " max after the cancel");
        log.eq(p.reduce_or(v[pe], 40), o, "PE" + std::to_string(pe) + " OR after the cancel");
        p.barrier();
        // the signal still goes through plain writes (BAR kept in step)
        if (pe == 1) p.signal();
        p.wait_signal(milliseconds(2000));
        p.acknowledge();
        p.barrier();
    });
    for (unsigned pe = 0; pe < 3; ++pe) {
        INFO("PE" << pe << ": " << msg[pe]);
        CHECK(missing[pe] == (1u << 3));
        CHECK(msg[pe].find("never arrived: 3") != std::string::npos);
        CHECK(msg[pe].find("cancelled") != std::string::npos);
    }
    for (unsigned pe = 0; pe < 4; ++pe) CHECK(again[pe] == nand_regs::CANCEL_WAS_IDLE);
    INFO((log.bad.empty() ? std::string("-") : log.bad[0]));
    CHECK(log.bad.empty());
    CHECK(log.checks == 4 * 2 + 3);
}

TEST_CASE("nand ops over CALL: refusals, NO_REG, CANCEL of a running and of a finished operation",
          "[nand][ops][call]") {
    namespace R = nand_regs;
    LinkHub hub(2, "nand_call_refuse");
    link::LinkClient c0(hub.endpoint(0), "linkhub:pe0", cfg(2));
    link::LinkClient c1(hub.endpoint(1), "linkhub:pe1", cfg(2));
    NandPe p0(c0, 0), p1(c1, 1);  // attach: each cancels whatever was left (nothing)
    const uint16_t barrier = R::addr(R::SLICES | 3 << R::CA_SLICES_W | 3 << R::CA_SLICES_K);  // k = 4, w = 4: 1 step
    auto code = [](const std::function<void()>& fn) -> int {
        try {
            fn();
        } catch (const RegisterError& e) {
            return e.code;
        }
        return 0;
    };
    // NO_REG: a CALL to a plain register, a plain access to a CALL register,
    // parameters this engine's t = 4 cannot run (w = 5; i = 3 needs 7 trees)
    CHECK(code([&] { c0.call(0, R::addr(R::OUT), 0, 0, milliseconds(100)); }) == link_defs::ERR_NO_REG);
    CHECK(code([&] { c0.read(0, R::addr(R::CANCEL), 4); }) == link_defs::ERR_NO_REG);
    CHECK(code([&] { c0.write(0, R::addr(R::SLICES), 0, 4); }) == link_defs::ERR_NO_REG);
    CHECK(code([&] { c0.call(0, R::addr(R::SLICES | 4 << R::CA_SLICES_W), 0, 8, milliseconds(100)); }) ==
          link_defs::ERR_NO_REG);
    CHECK(code([&] { c0.call(0, R::addr(R::VOTE | 2 << R::CA_SLICES_W), 0, 8, milliseconds(100)); }) ==
          link_defs::ERR_NO_REG);
    // a running operation: PE0 alone starts one and gives up waiting
    CHECK_THROWS_AS(c0.call(0, barrier, ~uint64_t(0), 8, milliseconds(2)), TimeoutError);
    const uint32_t out = c0.read(0, R::addr(R::OUT), 4);
    CHECK((out >> R::OUT_BAR & 1) == 1);  // it arrived at its step's barrier
    // plain OUT writes and a second start are refused while it runs
    CHECK(code([&] { c0.write(0, R::addr(R::OUT), out, 4); }) == link_defs::ERR_REFUSED);
    CHECK(code([&] { c0.call(0, barrier, 0, 8, milliseconds(2)); }) == link_defs::ERR_REFUSED);
    // cancel: it was running; the open barrier is withdrawn
    uint64_t r = c0.call(0, R::addr(R::CANCEL), 0, 0, milliseconds(100)).value;
    CHECK((r >> R::CANCEL_WAS & 3) == R::CANCEL_WAS_RUNNING);
    CHECK((r >> R::CANCEL_BAR & 1) == 0);
    CHECK((c0.read(0, R::addr(R::OUT), 4) >> R::OUT_BAR & 1) == 0);
    CHECK(c1.read(1, R::addr(R::LEFT0), 4) == 1u);  // PE0 left (until its next start)
    r = c0.call(0, R::addr(R::CANCEL), 0, 0, milliseconds(100)).value;
    CHECK((r >> R::CANCEL_WAS & 3) == R::CANCEL_WAS_IDLE);
    // a finished operation whose RESULT nobody took: PE0 starts, gives up,
    // and its next command (a READ) makes the hub forget the CALL; PE1 then
    // completes the step, so PE0's operation finishes in the engine
    CHECK_THROWS_AS(c0.call(0, barrier, ~uint64_t(0), 8, milliseconds(2)), TimeoutError);
    CHECK(c1.read(1, R::addr(R::LEFT0), 4) == 0u);  // PE0 started again
    c0.read(0, R::addr(R::SHAPE), 4);
    CHECK(c1.call(1, barrier, 0x5ull << 60, 8, milliseconds(2000)).value == 0xa);  // NAND(1111, 0101)
    // the step is done for PE0 too: its next start is refused until it cancels
    CHECK(code([&] { c0.call(0, barrier, 0, 8, milliseconds(2)); }) == link_defs::ERR_REFUSED);
    r = c0.call(0, R::addr(R::CANCEL), 0, 0, milliseconds(100)).value;
    CHECK((r >> R::CANCEL_WAS & 3) == R::CANCEL_WAS_FINISHED);
    CHECK((r >> R::CANCEL_BAR & 1) == 1);  // the step's barrier completed: BAR stays
    // and NandPe on both works from there (PE0's phase from a fresh attach)
    NandPe q0(c0, 0);
    std::atomic<uint64_t> got0{0}, got1{0};
    std::thread t([&] { got1 = p1.broadcast(0, 0, 32); });
    got0 = q0.broadcast(0, 0xdeadbeef, 32);
    t.join();
    CHECK(got0 == 0xdeadbeefu);
    CHECK(got1 == 0xdeadbeefu);
}
