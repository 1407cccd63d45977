// nand_engine (rtl/nand/nand_engine.v), the NAND aggregate network of seed
// 002, on its bus, against:
//   * the seed's own failure cases: C++ models of one bare NAND tree (2.1.1)
//     and of two bare trees (2.1.2) break barrier semantics under the
//     interleaving of figure 1 and under random OS delays, found by the same
//     scheduler and checker under which the RTL's two trees and flip-flop
//     (2.1.3, figure 2) pass the figure 1 interleaving and >= 10^6
//     random-delay barriers;
//   * a register-level model of the engine written from the module header
//     (OUT, IN, LIVE, SHAPE; the latched trees; BF; SP and AF), compared
//     after every bus access of random access sequences;
//   * the bus contract: PE beyond N, writes to read-only registers, unknown
//     registers;
//   * the cable (the module header's "Pins"; docs/nand.md "The cable"): PEs
//     on their parallel-port pins mixed with PEs on the bus in the same random
//     sequences, attach and detach, REQ edges, the status pins; floating
//     (pulled-up) pins read as a PE that is not on its cable.
// Checks never depend on the RTL's own outputs for their expectations.
#include "harness.hpp"
#include "seed.hpp"
#include "vbits.hpp"

#include <Vnand_engine_n16.h>
#include <aggnet/nand_regs.hpp>
#include <Vnand_engine_n3.h>
#include <Vnand_engine_t16.h>
#include <Vnand_engine_t8.h>
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

using aggnet::sim::Harness;

namespace {

// The register map and the cable lines are aggnet's, not the seed's, so
// they come from the one table (tools/nandgen.py -> aggnet/nand_regs.hpp)
// rather than being written here again; what the registers do is modelled
// below from the module header.
namespace R = aggnet::nand_regs;
constexpr uint16_t WIN = R::addr(0);
constexpr uint16_t R_OUT = R::OUT, R_IN = R::IN, R_LIVE = R::LIVE, R_SHAPE = R::SHAPE, R_BARS0 = R::BARS0,
                   R_BARS1 = R::BARS1, R_CABLE0 = R::CABLE0, R_CABLE1 = R::CABLE1;
// The cable: lines into the hub per PE (levels on the cable), and out of it.
constexpr unsigned P_LINES = R::CABLE_IN_LINES, P_OUT_LINES = R::CABLE_OUT_LINES;
constexpr unsigned P_BAR = R::CABLE_IN_BAR, P_ACK = R::CABLE_IN_ACK, P_SEL = R::CABLE_IN_SEL, P_REQ = R::CABLE_IN_REQ,
                   P_ATTACH_N = R::CABLE_IN_ATTACH;
constexpr uint16_t PINS_FLOAT = (1u << P_LINES) - 1;  // every line pulled up: not on the cable
constexpr unsigned PIN_LATENCY = 9;    // BAR pin -> Busy pin (module header, "Latency")
constexpr unsigned PIN_SETTLE = 12;    // any pin change -> every status line settled
constexpr uint32_t BAR = 1u << R::OUT_BAR, REQ = 1u << R::OUT_REQ, ACK = 1u << R::OUT_ACK, SEL = 1u << R::OUT_SEL;
constexpr unsigned IN_BS = R::IN_BS, IN_BF = R::IN_BF, IN_SP = R::IN_SP, IN_AF = R::IN_AF, DATA_AT = R::IN_DATA;
static_assert(R::OUT_DATA == R::IN_DATA && R::LIVE_DATA == R::IN_DATA && R::LIVE_BF == R::IN_BF &&
                  R::LIVE_SP == R::IN_SP && R::LIVE_AF == R::IN_AF,
              "the model below reads OUT, IN and LIVE with one layout");
enum Err : unsigned { OK = 0, NO_REG = 1, REFUSED = 2 };

struct Rsp {
    unsigned err;
    uint32_t rdata;
};

/// A bus master on the Verilated engine: one request at a time.
template <class V>
struct Bus {
    Harness<V> h;
    unsigned n;
    Bus(const std::string& name, unsigned n_) : h(name), n(n_) {
        for (unsigned pe = 0; pe < n; ++pe) pins(pe, PINS_FLOAT);
        h.reset();
    }
    /// The 12 lines PE pe's PC drives, as levels on the cable.
    void pins(unsigned pe, uint16_t v) { aggnet::sim::put_bits(h->nand_pins_in, pe * P_LINES, P_LINES, v); }
    /// The 5 status lines to PE pe's PC: DB25 15, 13, 12, 10, 11.
    unsigned status(unsigned pe) {
        return unsigned(aggnet::sim::get_bits(h.dut().nand_pins_out, pe * P_OUT_LINES, P_OUT_LINES));
    }
    Rsp access(bool we, unsigned pe, uint16_t reg, uint32_t wdata = 0) { return raw(we, false, pe, reg, wdata).first; }
    /// Any access, a CALL's too (call: operands 63..0, result rdata_hi:rdata).
    std::pair<Rsp, uint64_t> raw(bool we, bool call, unsigned pe, uint16_t reg, uint64_t wdata = 0) {
        h->bus_req_call = call;
        h->bus_req_wdata_hi = call && we ? uint32_t(wdata >> 32) : 0;
        h->bus_req_len = call && we ? 8 : 0;
        wdata &= 0xffffffffu;
        h->bus_req_valid = 1;
        h->bus_req_we = we;
        h->bus_req_pe = pe;
        h->bus_req_addr = uint16_t(WIN | reg);
        h->bus_req_wdata = uint32_t(wdata);
        h->bus_req_size = 4;
        REQUIRE(h->bus_req_ready);
        h.tick();
        h->bus_req_valid = 0;
        for (unsigned i = 0; i < 8; ++i) {
            if (h->bus_rsp_valid) {
                Rsp r{h->bus_rsp_err, h->bus_rsp_rdata};
                const uint64_t full = uint64_t(h->bus_rsp_rdata_hi) << 32 | h->bus_rsp_rdata;
                if (call && r.err == OK) REQUIRE(h->bus_rsp_len == (we ? 1u : 8u));  // CANCEL 1 byte, a result 8
                h.tick();
                return {r, full};
            }
            h.tick();
        }
        FAIL("nand_engine: no bus response within 8 cycles");
        return {};
    }
    void write(unsigned pe, uint16_t reg, uint32_t v) { REQUIRE(access(true, pe, reg, v).err == OK); }
    uint32_t read(unsigned pe, uint16_t reg) {
        const Rsp r = access(false, pe, reg);
        REQUIRE(r.err == OK);
        return r.rdata;
    }
};

// ---- barrier mechanisms, as the seed describes them --------------------------------
// A PE's barrier program: for barrier b = 1, 2, ...: arrive (one output), then
// poll its input until it shows completion, then (for the bare trees) a reset
// output.  Each scheduler step performs one I/O action of one PE.
struct Mechanism {
    virtual ~Mechanism() = default;
    virtual void arrive(unsigned pe, unsigned b) = 0;        // the output of arrival at barrier b
    virtual bool done(unsigned pe, unsigned b) = 0;          // one poll: does PE see barrier b done?
    virtual bool leave(unsigned pe, unsigned b) = 0;         // an output after passing (false: none)
};

/// 2.1.1: one NAND tree.  Arrive: Out 1; done: In == 0 (NAND of all 1s); leave: Out 0.
struct SingleTree : Mechanism {
    std::vector<int> out;
    explicit SingleTree(unsigned n) : out(n, 0) {}
    int nand() const {
        for (int o : out)
            if (!o) return 1;
        return 0;
    }
    void arrive(unsigned pe, unsigned) override { out[pe] = 1; }
    bool done(unsigned, unsigned) override { return nand() == 0; }
    bool leave(unsigned pe, unsigned) override {
        out[pe] = 0;
        return true;
    }
};

/// 2.1.2: two NAND trees S0, S1 used alternately, without the flip-flop:
/// arrive at a barrier on tree k: Out_k 1; done: NAND_k == 0; after passing,
/// reset the other tree's output (S0 is reset when S1 is reached and so on).
struct TwoTrees : Mechanism {
    std::vector<int> out[2];
    explicit TwoTrees(unsigned n) {
        out[0].assign(n, 0);
        out[1].assign(n, 0);
    }
    int nand(unsigned k) const {
        for (int o : out[k])
            if (!o) return 1;
        return 0;
    }
    void arrive(unsigned pe, unsigned b) override { out[b % 2][pe] = 1; }
    bool done(unsigned, unsigned b) override { return nand(b % 2) == 0; }
    bool leave(unsigned pe, unsigned b) override {
        out[(b + 1) % 2][pe] = 0;
        return true;
    }
};

/// 2.1.3: the RTL, two trees and a flip-flop: arrive: OUT.BAR := b % 2
/// (S1 for odd barriers, and S0's input reset in the same write); done: IN.BF == b % 2.
template <class V>
struct RtlBarrier : Mechanism {
    Bus<V>& bus;
    explicit RtlBarrier(Bus<V>& b) : bus(b) {}
    void arrive(unsigned pe, unsigned b) override { bus.write(pe, R_OUT, b % 2 ? BAR : 0); }
    bool done(unsigned pe, unsigned b) override { return (bus.read(pe, R_IN) >> IN_BF & 1) == b % 2; }
    bool leave(unsigned, unsigned) override { return false; }
};

/// Runs N PE programs of `barriers` barriers each under `pick` (which PE
/// acts next).  Checks the barrier property: no PE passes barrier b before
/// every PE has arrived at b.  Returns "" or what went wrong; a program
/// that makes no progress for `stall_steps` steps is reported as stuck.
std::string run_barriers(Mechanism& m, unsigned n, unsigned barriers, const std::function<unsigned()>& pick,
                         uint64_t stall_steps, uint64_t* steps_out = nullptr) {
    enum Phase { Arrive, Poll, Leave };
    std::vector<unsigned> bar(n, 1);  // the barrier each PE is at
    std::vector<Phase> ph(n, Arrive);
    std::vector<unsigned> arrived(barriers + 2, 0);
    uint64_t steps = 0, since = 0;
    unsigned finished = 0;
    while (finished < n) {
        const unsigned pe = pick();
        ++steps;
        if (++since > stall_steps) return "stuck: no PE passed a barrier in " + std::to_string(stall_steps) + " steps";
        if (bar[pe] > barriers) continue;
        const unsigned b = bar[pe];
        switch (ph[pe]) {
        case Arrive:
            m.arrive(pe, b);
            ++arrived[b];
            ph[pe] = Poll;
            break;
        case Poll:
            if (m.done(pe, b)) {
                if (arrived[b] < n)
                    return "PE" + std::to_string(pe) + " passed barrier " + std::to_string(b) + " when " +
                           std::to_string(arrived[b]) + " of " + std::to_string(n) + " PEs had arrived";
                ph[pe] = Leave;
                since = 0;
            }
            break;
        case Leave:
            m.leave(pe, b);
            ph[pe] = Arrive;
            if (++bar[pe] > barriers) ++finished;
            break;
        }
    }
    if (steps_out) *steps_out = steps;
    return "";
}

/// Figure 1's interleaving for 3 PEs: PE0 runs ahead while PE1 and PE2 are
/// delayed by their OS, then the others poll.
std::function<unsigned()> figure1_schedule() {
    // PE0: arrive, poll (sees done), leave (Out 0), arrive at 2, poll ...;
    // PE1/PE2: arrive, then long OS delays while PE0 goes on.
    auto seq = std::make_shared<std::vector<unsigned>>(std::vector<unsigned>{
        0, 1, 2,           // all Out 1
        0, 0,              // PE0 polls (done), Out 0
        0,                 // PE0 arrives at barrier 2: Out 1
        1, 2,              // PE1 and PE2 poll barrier 1
        0, 0, 0, 0, 0, 0,  // PE0 polls barrier 2 ...
    });
    auto i = std::make_shared<size_t>(0);
    return [seq, i]() { return (*i < seq->size()) ? (*seq)[(*i)++] : unsigned((*i)++ % 3); };
}

}  // namespace

TEST_CASE("nand: seed 002 2.1.1/2.1.2: bare NAND trees break barriers under figure 1's interleaving and random "
          "delays; 2.1.3's two trees and flip-flop (the RTL) pass them and 10^6 random-delay barriers",
          "[nand][barrier]") {
    {
        SingleTree one(3);
        const std::string e = run_barriers(one, 3, 4, figure1_schedule(), 1000);
        INFO(e);
        CHECK(!e.empty());  // figure 1: PE0 passes barrier 2 alone, or PE1 never sees barrier 1
    }
    {
        Bus<Vnand_engine_n3> bus("nand_fig1", 3);
        RtlBarrier<Vnand_engine_n3> rtl(bus);
        CHECK(run_barriers(rtl, 3, 4, figure1_schedule(), 100000) == "");
    }
    // Random OS delays: a PE is picked at random for each I/O action.
    const uint64_t seed = aggnet::sim::test_seed("nand_barrier_random");
    std::mt19937_64 rng(seed);
    auto pick3 = [&rng]() { return unsigned(rng() % 3); };
    unsigned broken_one = 0, broken_two = 0;
    for (unsigned trial = 0; trial < 200; ++trial) {
        SingleTree one(3);
        TwoTrees two(3);
        if (!run_barriers(one, 3, 20, pick3, 2000).empty()) ++broken_one;
        if (!run_barriers(two, 3, 20, pick3, 2000).empty()) ++broken_two;
    }
    INFO("seed " << seed << ": 200 runs of 20 barriers; single tree broke " << broken_one << ", two trees "
                 << broken_two);
    CHECK(broken_one > 0);
    CHECK(broken_two > 0);
    // The RTL: >= 10^6 barriers (AGGNET_CYCLES_SCALE scales it) with random delays.
    Bus<Vnand_engine_n3> bus("nand_random", 3);
    RtlBarrier<Vnand_engine_n3> rtl(bus);
    const unsigned total = unsigned(1000000 * aggnet::sim::cycles_scale());
    uint64_t steps = 0;
    const std::string e = run_barriers(rtl, 3, total, pick3, 100000, &steps);
    INFO("seed " << seed);
    CHECK(e == "");
    std::printf("[nand] %u random-delay barriers on 3 PEs: %llu PE actions, %llu hub cycles\n", total,
                static_cast<unsigned long long>(steps), static_cast<unsigned long long>(bus.h.cycle()));
}

namespace {

/// The engine's registers as its header describes them.
struct NandModel {
    unsigned n, t;
    std::vector<int> bar, ack, sel, cab, req_prev;
    std::vector<uint32_t> data;
    int bf = 0, sp = 0, af = 0;
    uint32_t latched = 0;
    NandModel(unsigned n_, unsigned t_)
        : n(n_), t(t_), bar(n_), ack(n_), sel(n_), cab(n_), req_prev(n_, 1), data(n_, (1u << t_) - 1) {}
    uint32_t tree() const {
        uint32_t a = (1u << t) - 1;
        for (uint32_t d : data) a &= d;
        return ~a & ((1u << t) - 1);
    }
    bool all(const std::vector<int>& v, int x) const {
        for (int e : v)
            if (e != x) return false;
        return true;
    }
    /// PE pe's cable lines changed to v (and stayed long enough to be seen):
    /// on its cable (pin 17 low) its OUT follows D0..D6, a D7 0 -> 1 edge is
    /// a request; trees 4.. get 1 from a cabled PE.
    void cable(unsigned pe, uint16_t v) {
        const bool edge = (v >> P_REQ & 1) && !req_prev[pe];
        req_prev[pe] = v >> P_REQ & 1;
        cab[pe] = !(v >> P_ATTACH_N & 1);
        if (!cab[pe]) return;
        const uint32_t d = (v >> R::CABLE_IN_DATA & ((1u << R::CABLE_IN_DATA_W) - 1)) | (~0u << R::CABLE_IN_DATA_W);
        write_out(pe, uint32_t(v >> P_BAR & 1) * BAR | uint32_t(v >> P_ACK & 1) * ACK | uint32_t(v >> P_SEL & 1) * SEL |
                          (edge ? REQ : 0) | (d & ((1u << t) - 1)) << DATA_AT);
    }
    /// The status lines PE pe's PC sees: latched trees 0..3, then /BS.
    unsigned status(unsigned pe) const {
        return (latched & ((1u << R::CABLE_OUT_DATA_W) - 1)) << R::CABLE_OUT_DATA |
               unsigned(!(sel[pe] ? sp : bf)) << R::CABLE_OUT_BS;
    }
    void write_out(unsigned pe, uint32_t v) {
        bar[pe] = v & BAR ? 1 : 0;
        ack[pe] = v & ACK ? 1 : 0;
        sel[pe] = v & SEL ? 1 : 0;
        data[pe] = (v >> DATA_AT) & ((1u << t) - 1);
        // the cycle after the write: BF, AF and SP move
        if (all(bar, 1) && !bf) bf = 1, latched = tree();
        else if (all(bar, 0) && bf) bf = 0, latched = tree();
        const bool ack_done = (all(ack, 1) && !af) || (all(ack, 0) && af);
        if (ack_done) af = !af;
        if (v & REQ) sp = 1;
        else if (ack_done) sp = 0;
    }
    uint32_t flags(unsigned pe, bool with_bs) const {
        return uint32_t(with_bs ? (sel[pe] ? sp : bf) : 0) << IN_BS | uint32_t(bf) << IN_BF | uint32_t(sp) << IN_SP |
               uint32_t(af) << IN_AF;
    }
    Rsp access(bool we, unsigned pe, uint16_t reg, uint32_t v) {
        if (pe >= n) return {NO_REG, 0};
        switch (reg) {
        case R_OUT:
            if (we && cab[pe]) return {REFUSED, 0};  // the cable drives it
            // out of protocol order: BAR moved while the PE's barrier is open
            // (BAR != BF), ACK moved while its acknowledge is (ACK != AF)
            if (we && ((bool(v & BAR) != bool(bar[pe]) && bar[pe] != bf) ||
                       (bool(v & ACK) != bool(ack[pe]) && ack[pe] != af)))
                return {REFUSED, 0};
            if (we) return write_out(pe, v), Rsp{OK, 0};
            return {OK, data[pe] << DATA_AT | (sel[pe] ? SEL : 0) | (ack[pe] ? ACK : 0) | (bar[pe] ? BAR : 0)};
        case R_IN: return we ? Rsp{REFUSED, 0} : Rsp{OK, latched << DATA_AT | flags(pe, true)};
        case R_LIVE: return we ? Rsp{REFUSED, 0} : Rsp{OK, tree() << DATA_AT | flags(pe, false)};
        case R_SHAPE: return we ? Rsp{REFUSED, 0} : Rsp{OK, t << R::SHAPE_T | n << R::SHAPE_N};
        case R_BARS0:
        case R_BARS1: {
            uint64_t b = 0;
            for (unsigned j = 0; j < n; ++j) b |= uint64_t(bar[j]) << j;
            return we ? Rsp{REFUSED, 0} : Rsp{OK, uint32_t(reg == R_BARS0 ? b : b >> 32)};
        }
        case R_CABLE0:
        case R_CABLE1: {
            uint64_t b = 0;
            for (unsigned j = 0; j < n; ++j) b |= uint64_t(cab[j]) << j;
            return we ? Rsp{REFUSED, 0} : Rsp{OK, uint32_t(reg == R_CABLE0 ? b : b >> 32)};
        }
        // no CALLs here (test_nand_ops has them): nobody ever left an operation;
        // CANCEL, SLICES and VOTE take only CALLs (plain accesses: NO_REG, below)
        case R::LEFT0:
        case R::LEFT1: return we ? Rsp{REFUSED, 0} : Rsp{OK, 0};
        default: return {NO_REG, 0};
        }
    }
};

template <class V>
void random_accesses(const char* name, unsigned n, unsigned t, unsigned count) {
    const uint64_t seed = aggnet::sim::test_seed(name);
    std::mt19937_64 rng(seed);
    Bus<V> bus(name, n);
    NandModel m(n, t);
    unsigned sp_set = 0, sp_cleared = 0, bf_toggles = 0, cable_moves = 0, refused = 0, out_of_order = 0;
    std::vector<uint16_t> lines(n, PINS_FLOAT);
    // With 16 PEs, independent random writes almost never leave every BAR (or
    // every ACK) equal, so BF and AF would rarely move and the coverage checks
    // below would depend on the seed.  Now and then a sweep visits every PE in
    // turn and moves its BAR and ACK toward the next barrier and acknowledge
    // (through the cable for a cabled PE, an OUT write otherwise).
    unsigned sweep = 0, sweeps = 0;
    for (unsigned i = 0; i < count; ++i) {
        if (sweep == 0 && rng() % 500 == 0) sweep = n, ++sweeps;
        const bool sweeping = sweep > 0;
        const unsigned swept = n - sweep;
        if (sweeping) --sweep;
        // Now and then a PE's cable changes: plugged in (pin 17 low) or out
        // (every line floats high), or its PC writes new D0..D7.
        if (sweeping ? m.cab[swept] : rng() % 8 == 0) {
            const unsigned pe = sweeping ? swept : unsigned(rng() % n);
            uint16_t v = lines[pe];
            const unsigned what = sweeping ? 2 : unsigned(rng() % 16);
            if (what == 0) v = PINS_FLOAT;                               // unplugged
            else if (what == 1) v = uint16_t(rng() & 0x7ff);              // plugged in, any lines
            else if (v >> P_ATTACH_N & 1) continue;                      // not on its cable: leave it
            else {
                v = uint16_t((v & ~0xffu) | (rng() & 0xff));
                if (sweeping || rng() % 2) v = uint16_t((v & ~(1u << P_BAR)) | (m.bf ? 0 : 1u << P_BAR));  // toward a barrier
                if (sweeping || rng() % 3 == 0) v = uint16_t((v & ~(1u << P_ACK)) | (m.af ? 0 : 1u << P_ACK));
            }
            const int bf0 = m.bf, sp0 = m.sp;
            lines[pe] = v;
            bus.pins(pe, v);
            for (unsigned c = 0; c < PIN_SETTLE; ++c) bus.h.tick();
            m.cable(pe, v);
            ++cable_moves;
            sp_set += !sp0 && m.sp;
            sp_cleared += sp0 && !m.sp;
            bf_toggles += bf0 != m.bf;
            for (unsigned j = 0; j < n; ++j) {
                INFO("seed " << seed << ", access " << i << ": PE" << pe << " cable 0x" << std::hex << v
                              << ", status pins of PE" << std::dec << j);
                REQUIRE(bus.status(j) == m.status(j));
            }
        }
        const unsigned r = sweeping ? 0 : unsigned(rng() % 100);
        bool we = false;
        unsigned pe = sweeping ? swept : unsigned(rng() % n);
        uint16_t reg = R_OUT;
        uint32_t v = 0;
        if (r < 55) {
            we = true;
            // mostly meaningful OUT words; REQ rarely, so SP is seen both ways
            v = uint32_t(rng()) & ((((1u << t) - 1) << DATA_AT) | BAR | ACK | SEL);
            if (rng() % 8 || sweeping) v &= ~REQ;
            else v |= REQ;
            if (sweeping || rng() % 4 == 0) v = (v & ~BAR) | (m.bf ? 0 : BAR);  // push toward a barrier
            if (sweeping || rng() % 4 == 0) v = (v & ~ACK) | (m.af ? 0 : ACK);
        } else if (r < 80) {
            reg = R_IN;
        } else if (r < 93) {
            reg = R_LIVE;
        } else if (r < 96) {
            const unsigned k = unsigned(rng() % 3);
            reg = k == 0 ? R_SHAPE : uint16_t((k == 1 ? R_BARS0 : R_CABLE0) + rng() % 2);
        } else if (r < 98) {
            pe = n + unsigned(rng() % (64 - n));  // beyond N
            reg = uint16_t(rng() % 4);
            we = rng() % 2;
        } else {
            reg = uint16_t(8 + rng() % 0xff7);  // no such register
            we = rng() % 2;
        }
        if (!we && r >= 55 && r < 96 && rng() % 10 == 0) we = true;  // writes to IN, LIVE, SHAPE: refused
        const int bf0 = m.bf, sp0 = m.sp;
        const Rsp want = m.access(we, pe, reg, v);
        const Rsp got = bus.access(we, pe, reg, v);
        INFO("seed " << seed << ", access " << i << ": " << (we ? "write" : "read") << " PE" << pe << " reg " << reg
                     << " value 0x" << std::hex << v);
        REQUIRE(got.err == want.err);
        REQUIRE(got.rdata == want.rdata);
        if (we && reg == R_OUT && want.err == REFUSED) ++(m.cab[pe] ? refused : out_of_order);
        sp_set += !sp0 && m.sp;
        sp_cleared += sp0 && !m.sp;
        bf_toggles += bf0 != m.bf;
    }
    std::printf("[nand] %s: %u accesses, %u cable changes (%u OUT writes refused for a cabled PE, %u out of "
                "protocol order), %u sweeps: BF toggled %u times, SP set %u and cleared %u times\n",
                name, count, cable_moves, refused, out_of_order, sweeps, bf_toggles, sp_set, sp_cleared);
    CHECK(cable_moves > 100);
    CHECK(refused > 100);
    CHECK(out_of_order > 100);
    CHECK(bf_toggles > 10);
    CHECK(sp_set > 10);
    CHECK(sp_cleared > 10);
}

}  // namespace

TEST_CASE("nand: registers against the header's model (trees, latch, BF, SP/AF, SEL, errors), N = 3 and 16",
          "[nand][regs]") {
    random_accesses<Vnand_engine_n3>("nand_regs_n3", 3, 4, 200000);
    random_accesses<Vnand_engine_n16>("nand_regs_n16", 16, 4, 200000);
}

TEST_CASE("nand: directed: reset values, SHAPE, a NAND tree, the latch holds until the next barrier, a signal is "
          "cleared only by every PE's acknowledge",
          "[nand][regs]") {
    Bus<Vnand_engine_n3> b("nand_directed", 3);
    CHECK(b.read(0, R_SHAPE) == (4u << R::SHAPE_T | 3u << R::SHAPE_N));
    CHECK(b.read(2, R_OUT) == (0xfu << DATA_AT));  // DATA all 1, BAR/ACK/SEL 0
    CHECK(b.read(1, R_IN) == 0u);                  // BF 0, SP 0, latched 0
    CHECK(b.access(false, 3, R_IN).err == NO_REG);
    CHECK(b.access(true, 0, R_IN, 0).err == REFUSED);
    CHECK(b.access(false, 0, 0x010).err == NO_REG);
    // NAND of data 0b1100, 0b1010, 0b1111: ~(1000) = 0111
    b.write(0, R_OUT, 0xcu << DATA_AT);
    b.write(1, R_OUT, 0xau << DATA_AT);
    CHECK((b.read(2, R_LIVE) >> DATA_AT) == 0x7u);
    CHECK((b.read(2, R_IN) >> DATA_AT) == 0x0u);  // not latched yet
    // barrier 1 (S1) with those data: latched when the last PE arrives
    b.write(0, R_OUT, 0xcu << DATA_AT | BAR);
    b.write(1, R_OUT, 0xau << DATA_AT | BAR);
    CHECK((b.read(0, R_IN) >> IN_BF & 1) == 0u);
    b.write(2, R_OUT, 0xfu << DATA_AT | BAR);
    CHECK((b.read(0, R_IN) >> IN_BF & 1) == 1u);
    CHECK((b.read(0, R_IN) >> DATA_AT) == 0x7u);
    // PE0 runs ahead to barrier 2 with new data: the latch holds for the others
    b.write(0, R_OUT, 0x0u << DATA_AT);
    CHECK((b.read(1, R_IN) >> DATA_AT) == 0x7u);
    CHECK((b.read(1, R_LIVE) >> DATA_AT) == 0xfu);
    // a signal from PE1: SP set; SEL picks it onto BS
    b.write(1, R_OUT, 0xau << DATA_AT | BAR | REQ);
    CHECK((b.read(2, R_IN) >> IN_SP & 1) == 1u);
    CHECK((b.read(2, R_IN) >> IN_BS & 1) == 1u);  // PE2: SEL 0, BS = BF = 1
    b.write(2, R_OUT, 0xfu << DATA_AT | BAR | SEL);
    CHECK((b.read(2, R_IN) >> IN_BS & 1) == 1u);  // SEL 1: BS = SP = 1
    // two of three acknowledge: still pending; the third clears it
    b.write(0, R_OUT, ACK);
    b.write(1, R_OUT, 0xau << DATA_AT | BAR | ACK);
    CHECK((b.read(2, R_IN) >> IN_SP & 1) == 1u);
    b.write(2, R_OUT, 0xfu << DATA_AT | BAR | SEL | ACK);
    CHECK((b.read(2, R_IN) >> IN_SP & 1) == 0u);
    CHECK((b.read(2, R_IN) >> IN_AF & 1) == 1u);
    // the ACKs resting at 1 do not swallow the next request
    b.write(0, R_OUT, ACK | REQ);
    CHECK((b.read(1, R_IN) >> IN_SP & 1) == 1u);
}

TEST_CASE("nand: out of protocol order: a second barrier or acknowledge before the first completed is refused "
          "and changes nothing",
          "[nand][regs]") {
    // issue 11, "Bad input": calls out of protocol order get a specific
    // error and leave the hub's state unchanged (rtl/nand/nand_engine.v, OUT)
    Bus<Vnand_engine_n3> b("nand_order", 3);
    b.write(0, R_OUT, 0x5u << DATA_AT | BAR);                 // PE0 arrives at barrier 1 (BF 0)
    const uint32_t out0 = b.read(0, R_OUT), bars = b.read(0, R_BARS0), in1 = b.read(1, R_IN);
    CHECK(b.access(true, 0, R_OUT, 0x5u << DATA_AT).err == REFUSED);        // BAR back: a second barrier
    CHECK(b.access(true, 0, R_OUT, 0x0u << DATA_AT).err == REFUSED);        // with new data too
    CHECK(b.read(0, R_OUT) == out0);
    CHECK(b.read(0, R_BARS0) == bars);
    CHECK(b.read(1, R_IN) == in1);
    CHECK((b.read(1, R_LIVE) >> DATA_AT) == (~0x5u & 0xfu));  // PE0's data still 0101
    b.write(0, R_OUT, 0x5u << DATA_AT | BAR | SEL | REQ);     // BAR unchanged: SEL and a request are fine
    CHECK((b.read(1, R_IN) >> IN_SP & 1) == 1u);
    b.write(0, R_OUT, 0x5u << DATA_AT | BAR | SEL | ACK);     // PE0 acknowledges (AF 0)
    CHECK(b.access(true, 0, R_OUT, 0x5u << DATA_AT | BAR | SEL).err == REFUSED);  // ACK back: a second acknowledge
    CHECK((b.read(0, R_OUT) >> 2 & 1) == 1u);
    CHECK((b.read(1, R_IN) >> IN_SP & 1) == 1u);              // still pending
    // PE1 and PE2 arrive: barrier 1 completes; PE0 may now go on to barrier 2
    b.write(1, R_OUT, 0xfu << DATA_AT | BAR | ACK);
    b.write(2, R_OUT, 0xfu << DATA_AT | BAR | ACK);
    CHECK((b.read(0, R_IN) >> IN_BF & 1) == 1u);
    CHECK((b.read(0, R_IN) >> IN_AF & 1) == 1u);
    CHECK((b.read(0, R_IN) >> IN_SP & 1) == 0u);
    CHECK(b.access(true, 0, R_OUT, 0xfu << DATA_AT).err == OK);  // barrier 2 and the next acknowledge
    CHECK((b.read(0, R_OUT) & (BAR | ACK)) == 0u);
}

TEST_CASE("nand: the cable: floating pins are no PE, PEs on pins and on the bus barrier together, BAR pin to "
          "Busy pin in 9 cycles, the skew guards",
          "[nand][pins]") {
    Bus<Vnand_engine_n3> b("nand_cable", 3);
    // Every line pulled up (as after reset): nobody on a cable; the bus owns every OUT.
    CHECK(b.read(0, R_CABLE0) == 0u);
    CHECK(b.read(0, R_CABLE1) == 0u);
    CHECK(b.access(true, 0, R_CABLE0, 1).err == REFUSED);
    for (unsigned pe = 0; pe < 3; ++pe) CHECK(b.status(pe) == (0u | 1u << 4));  // latched 0, BS = BF = 0: /BS 1
    // PE0 and PE1 plug in, idle (BAR 0, DATA 1111, REQ 0, pin 17 low).
    const uint16_t idle = 0x00f;
    b.pins(0, idle);
    b.pins(1, idle);
    for (unsigned c = 0; c < PIN_SETTLE; ++c) b.h.tick();
    CHECK(b.read(2, R_CABLE0) == 0x3u);
    CHECK(b.access(true, 1, R_OUT, BAR).err == REFUSED);  // the cable drives PE1
    CHECK(b.read(1, R_OUT) == (0xfu << DATA_AT));
    // Barrier S1: PE0 (data 1100) and PE1 (1010) on pins, PE2 (1111) on the bus.
    b.pins(0, uint16_t(0xc | 1u << P_BAR));
    b.pins(1, uint16_t(0xa | 1u << P_BAR));
    for (unsigned c = 0; c < PIN_SETTLE; ++c) b.h.tick();
    CHECK((b.read(0, R_IN) >> IN_BF & 1) == 0u);  // PE2 has not arrived
    CHECK(b.read(0, R_BARS0) == 0x3u);
    b.write(2, R_OUT, 0xfu << DATA_AT | BAR);
    for (unsigned c = 0; c < PIN_SETTLE; ++c) b.h.tick();
    CHECK((b.read(2, R_IN) >> IN_BF & 1) == 1u);
    CHECK((b.read(2, R_IN) >> DATA_AT) == 0x7u);  // ~(1100 & 1010 & 1111)
    // On the pins: trees 0..3 on DB25 15, 13, 12, 10; /BS on Busy is 0 now.
    CHECK(b.status(0) == 0x7u);
    CHECK(b.status(1) == 0x7u);
    // Latency: PE0 and PE1 go to S0 with new data, PE2 last on the bus; then
    // PE1's SEL: its Busy line follows SP (0: /BS 1) exactly PIN_LATENCY
    // cycles after the pin changes, never earlier.
    b.pins(0, uint16_t(0x0));
    b.pins(1, uint16_t(0x0));
    for (unsigned c = 0; c < PIN_SETTLE; ++c) b.h.tick();
    b.write(2, R_OUT, 0x0u << DATA_AT);
    for (unsigned c = 0; c < PIN_SETTLE; ++c) b.h.tick();
    CHECK((b.read(0, R_IN) >> IN_BF & 1) == 0u);
    CHECK(b.status(1) == (0xfu | 1u << 4));  // NAND of zeros = 1111; BF 0: /BS 1
    b.write(2, R_OUT, 0xfu << DATA_AT | BAR);  // PE2 at S1 already: BF will follow the pins
    b.pins(0, uint16_t(0xf | 1u << P_BAR));
    for (unsigned c = 0; c < PIN_SETTLE; ++c) b.h.tick();
    b.pins(1, uint16_t(0xf | 1u << P_BAR));  // the last arrival, by pin
    unsigned seen = 0;
    for (unsigned c = 1; c <= 20 && !seen; ++c) {
        b.h.tick();
        if (!(b.status(0) >> 4 & 1)) seen = c;  // /BS low: BF is 1
    }
    INFO("the barrier's completion reached PE0's Busy pin " << seen << " cycles after PE1's BAR pin");
    CHECK(seen == PIN_LATENCY);
    // A request on the pins is an edge of D7: held high it asks once.
    CHECK((b.read(0, R_IN) >> IN_SP & 1) == 0u);
    b.pins(0, uint16_t(0xf | 1u << P_BAR | 1u << P_REQ));
    for (unsigned c = 0; c < PIN_SETTLE; ++c) b.h.tick();
    CHECK((b.read(2, R_IN) >> IN_SP & 1) == 1u);
    // Everyone acknowledges (the acknowledge barrier: ACK 1 everywhere): SP clears while REQ stays high.
    b.pins(0, uint16_t(0xf | 1u << P_BAR | 1u << P_REQ | 1u << P_ACK));
    b.pins(1, uint16_t(0xf | 1u << P_BAR | 1u << P_ACK));
    b.write(2, R_OUT, 0xfu << DATA_AT | BAR | ACK);
    for (unsigned c = 0; c < PIN_SETTLE; ++c) b.h.tick();
    CHECK((b.read(2, R_IN) >> IN_SP & 1) == 0u);
    // SEL on PE1's pins: its Busy shows SP (0), PE0's still shows BF (1).
    b.pins(1, uint16_t(0xf | 1u << P_BAR | 1u << P_ACK | 1u << P_SEL));
    for (unsigned c = 0; c < PIN_SETTLE; ++c) b.h.tick();
    CHECK((b.status(1) >> 4 & 1) == 1u);
    CHECK((b.status(0) >> 4 & 1) == 0u);
    // Unplugged: PE0's lines float high; it is off the cable and keeps its
    // last OUT (BAR 1: it never arrives at the next S0 barrier); the bus may write it again.
    b.pins(0, PINS_FLOAT);
    for (unsigned c = 0; c < PIN_SETTLE; ++c) b.h.tick();
    CHECK(b.read(1, R_CABLE0) == 0x2u);
    CHECK((b.read(1, R_OUT) & BAR) == BAR);
    CHECK(b.access(true, 0, R_OUT, 0xfu << DATA_AT).err == OK);
}

TEST_CASE("nand: the cable's skew guards: a BAR seen up to 2 cycles before its data latches the new data; the "
          "status data lines change 2 cycles before Busy",
          "[nand][pins]") {
    for (unsigned skew = 0; skew <= 2; ++skew) {
        INFO("PE1's data lines reach the hub " << skew << " cycles after its BAR line");
        Bus<Vnand_engine_n3> b("nand_skew", 3);
        b.pins(0, 0x00f);
        b.pins(1, 0x00f);
        for (unsigned c = 0; c < PIN_SETTLE; ++c) b.h.tick();
        REQUIRE(b.read(2, R_CABLE0) == 0x3u);
        // S1 barrier: PE0 (data 1111) and PE2 (1111) arrive first; PE1 (new
        // data 0101) last, its BAR line ahead of its data lines.
        b.pins(0, uint16_t(0xf | 1u << P_BAR));
        b.write(2, R_OUT, 0xfu << DATA_AT | BAR);
        for (unsigned c = 0; c < PIN_SETTLE; ++c) b.h.tick();
        b.pins(1, uint16_t(0xf | 1u << P_BAR));
        for (unsigned c = 0; c < skew; ++c) b.h.tick();
        b.pins(1, uint16_t(0x5 | 1u << P_BAR));
        // Watch PE0's status lines: the data lines must change before Busy.
        unsigned data_at = 0, busy_at = 0;
        const unsigned s0 = b.status(0);
        for (unsigned c = 1; c <= 30; ++c) {
            b.h.tick();
            const unsigned s = b.status(0);
            if (!data_at && (s & 0xf) != (s0 & 0xf)) data_at = c;
            if (!busy_at && (s >> 4) != (s0 >> 4)) busy_at = c;
        }
        CHECK((b.read(0, R_IN) >> DATA_AT) == 0xau);  // ~(1111 & 0101 & 1111): PE1's new data
        CHECK((b.status(0) & 0xf) == 0xau);
        CHECK(busy_at != 0);
        CHECK(data_at != 0);
        CHECK(busy_at >= data_at + 2);
    }
}

// ---- the step sequencer (rtl/nand/nand_seq.v) at t = 8 and 16 -----------------------
// test_nand_ops runs every operation over CALL at t = 4; here the widths
// only a wider engine allows: SLICES of w = 1..t, VOTE of i = 1..log2(t+1)
// (3 and 4: groups on 7 and 15 trees), random k and values, every PE
// starting the same operation and asking until it has finished, against
// the NAND of the values (SLICES) and their maximum (VOTE).
template <class V>
void sequencer_widths(const char* name, unsigned n, unsigned t, unsigned rounds) {
    const uint64_t seed = aggnet::sim::test_seed(name);
    std::mt19937_64 g(seed);
    Bus<V> b(name, n);
    unsigned imax = 1;
    while ((1u << (imax + 1)) - 1 <= t) ++imax;
    // a width the engine cannot run: NO_REG
    if (t < 16)  // (at t = 16 every w the field can say runs)
        CHECK(b.raw(true, true, 0, uint16_t(R::SLICES | t << R::CA_SLICES_W), 0).first.err == NO_REG);
    CHECK(b.raw(true, true, 0, uint16_t(R::VOTE | imax << R::CA_SLICES_W), 0).first.err == NO_REG);
    uint64_t checks = 0, max_asks = 0;
    for (unsigned r = 0; r < rounds; ++r) {
        const bool vote = g() % 2;
        const unsigned k = 1 + unsigned(g() % 64), w = 1 + unsigned(g() % (vote ? imax : t));
        const uint64_t km = k >= 64 ? ~uint64_t(0) : (uint64_t(1) << k) - 1;
        std::vector<uint64_t> v(n);
        uint64_t all = km, mx = 0;
        for (auto& x : v) {
            x = g() & km;
            if (g() % 4 == 0) x = g() % 2 ? km : 0;  // ties and extremes
            all &= x, mx = std::max(mx, x);
        }
        const uint16_t reg = uint16_t((vote ? R::VOTE : R::SLICES) | (w - 1) << R::CA_SLICES_W | (k - 1));
        INFO(name << " seed " << seed << " round " << r << (vote ? " VOTE" : " SLICES") << " k " << k << " w " << w);
        for (unsigned pe = 0; pe < n; ++pe)
            REQUIRE(b.raw(true, true, pe, reg, v[pe] << (64 - k)).first.err == 3u);  // PENDING
        std::vector<bool> done(n, false);
        unsigned left = n, asks = 0;
        while (left) {
            REQUIRE(++asks < 10000);
            for (unsigned pe = 0; pe < n; ++pe) {
                if (done[pe]) continue;
                const auto [rsp, res] = b.raw(false, true, pe, reg);
                if (rsp.err == 3u) continue;
                REQUIRE(rsp.err == OK);
                CHECK((res & km) == (vote ? mx : ~all & km));
                CHECK((res & ~km) == 0u);  // the operand's low bits, 0 here
                done[pe] = true, --left, ++checks;
            }
        }
        max_asks = std::max<uint64_t>(max_asks, asks);
    }
    CHECK(checks == uint64_t(rounds) * n);
    std::printf("[nand] sequencer at t = %u, N = %u: %u random operations, at most %llu asks per PE\n", t, n, rounds,
                static_cast<unsigned long long>(max_asks));
}

TEST_CASE("nand: the step sequencer's SLICES and VOTE at every width t = 8 and 16 allow, against NAND and max",
          "[nand][call]") {
    sequencer_widths<Vnand_engine_t8>("nand_seq_t8", 5, 8, 400);
    sequencer_widths<Vnand_engine_t16>("nand_seq_t16", 2, 16, 300);
}
