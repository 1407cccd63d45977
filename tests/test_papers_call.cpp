// papers_slot (rtl/papers/papers_slot.v) driven over its engine bus: the
// PAPERS window's CALL operations SYNC and CANCEL and the LAST registers
// (docs/papers_regmap.md, docs/link.md rule 8), for N = 3, 4 and 16.
//
// The reference is the seed's barrier (seed 000 section 4.3.2-4.3.3,
// _p_wait/_p_waitvec, as host/src/papers.cpp's Papers::sync + waitvec
// perform it): a PE's SYNC finishes exactly once, never before the last PE of
// its mask has started the same barrier, with the data vector of its mask
// (PE j's D at bit j, our own bit = our D, 0 outside the mask).  A small bus
// master sends one request at a time (as link_port does) and checks every
// response: three cycles after the request, one per request, rdata, rdata_hi,
// len and err 0 while rsp_valid is low.
#include "harness.hpp"
#include "seed.hpp"
#include "stim.hpp"
#include "vbits.hpp"

#include <Vpapers_slot_link_n4.h>
#include <Vpapers_slot_link_n64.h>
#include <Vpapers_slot_n16.h>
#include <Vpapers_slot_n3.h>
#include <Vpapers_slot_n4.h>
#include <aggnet/link_defs.hpp>
#include <aggnet/papers_regs.hpp>
#include <catch2/catch.hpp>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

using namespace aggnet;
using namespace aggnet::sim;
namespace R = aggnet::papers_regs;
namespace L = aggnet::link_defs;

namespace {

constexpr unsigned OK = L::BUS_OK, NO_REG = L::BUS_NO_REG, REFUSED = L::BUS_REFUSED, PENDING = L::BUS_PENDING;

// papers_bus answers four cycles after a request: the request is taken at
// the edge of the cycle it is offered (T), a write takes effect at the edge
// T+2, and the response is out after T+3.
constexpr uint64_t RSP_TICKS = 3;
constexpr uint64_t WRITE_TICKS = 2;
// papers_bus.v's SETTLE: edges from a SIG write to papers_hub's status
// register holding its effect (2 in sync2, 1 in the status register), both
// for the I bits (D -> IVEC) and for a GO an S caused before it dropped.
// Measured below ("SETTLE ...").
constexpr uint64_t SETTLE = 3;

struct Req {
    bool we = false;
    bool call = false;
    unsigned pe = 0;
    uint16_t reg = 0;
    uint64_t wdata = 0;
    unsigned len = 0;
    unsigned size = 4;
};
struct Rsp {
    unsigned err = 0;
    uint64_t data = 0;
    unsigned len = 0;
    uint64_t cycle = 0;  // the edge after which it was out
};

uint64_t bit(unsigned k) { return uint64_t(1) << k; }

template <class V>
struct Bench {
    unsigned n, w;
    Harness<V> h;
    std::deque<Rsp> rsps;
    std::function<void()> on_tick;  // called after every clock edge (a cabled PE)
    std::mt19937_64 junk{1};

    Bench(unsigned n_, const std::string& name)
        : n(n_), w(R::reg_width(n_)), h(name, 200'000'000) {
        idle_bus();
        // every cable unplugged (CE pin high: absent) until a test plugs one in
        for (unsigned a = 0; a < n; ++a) put_bits(h->pe_ctrl, a * 5, 5, R::CABLE_CONTROL_INVERT);
        h.reset();
    }

    void idle_bus() {
        h->bus_req_valid = 0;
        // fields are don't-care without valid: make them noise
        h->bus_req_we = junk() & 1;
        h->bus_req_call = junk() & 1;
        h->bus_req_pe = junk() & 63;
        h->bus_req_addr = junk() & 0xffff;
        h->bus_req_wdata = uint32_t(junk());
        h->bus_req_wdata_hi = uint32_t(junk());
        h->bus_req_len = junk() & 15;
        h->bus_req_size = junk() & 7;
    }

    void tick() {
        h.tick();
        if (h->bus_rsp_valid) {
            rsps.push_back({h->bus_rsp_err, (uint64_t(h->bus_rsp_rdata_hi) << 32) | h->bus_rsp_rdata,
                            h->bus_rsp_len, h.cycle()});
        } else if (h->bus_rsp_err || h->bus_rsp_rdata || h->bus_rsp_rdata_hi || h->bus_rsp_len) {
            FAIL("cycle " << h.cycle() << ": response fields not 0 while rsp_valid is low");
        }
        if (on_tick) on_tick();
    }
    void ticks(uint64_t k) {
        for (uint64_t i = 0; i < k; ++i) tick();
    }

    /// Offer q for one cycle (always ready); returns the cycle it was taken in.
    uint64_t send(const Req& q) {
        h->bus_req_valid = 1;
        h->bus_req_we = q.we;
        h->bus_req_call = q.call;
        h->bus_req_pe = q.pe;
        h->bus_req_addr = uint16_t((L::WIN_PAPERS << 12) | q.reg);
        h->bus_req_wdata = uint32_t(q.wdata);
        h->bus_req_wdata_hi = uint32_t(q.wdata >> 32);
        h->bus_req_len = q.len;
        h->bus_req_size = q.size;
        h->eval();
        if (!h->bus_req_ready) FAIL("papers_slot not ready");
        tick();
        idle_bus();
        return h.cycle();
    }
    /// The next response, which must come RSP_TICKS after `taken`.
    Rsp collect(uint64_t taken) {
        while (rsps.empty()) {
            if (h.cycle() > taken + RSP_TICKS) FAIL("no response " << RSP_TICKS << " cycles after the request");
            tick();
        }
        Rsp r = rsps.front();
        rsps.pop_front();
        if (r.cycle != taken + RSP_TICKS)
            FAIL("response at cycle " << r.cycle << " for a request taken at " << taken);
        return r;
    }
    Rsp access(const Req& q) { return collect(send(q)); }

    Rsp write(unsigned pe, uint16_t reg, uint64_t v) { return access({true, false, pe, reg, v, 0, 4}); }
    Rsp read(unsigned pe, uint16_t reg) { return access({false, false, pe, reg, 0, 0, 4}); }
    Rsp sync(unsigned pe, bool d) { return access({true, true, pe, R::W_SYNC, d ? 1u : 0u, 1}); }
    Rsp cancel(unsigned pe) { return access({true, true, pe, R::W_CANCEL, 0, 0}); }
    Rsp ask(unsigned pe, uint16_t reg = R::W_SYNC) { return access({false, true, pe, reg, 0, 0}); }

    void set_mask(unsigned pe, uint64_t m) {
        REQUIRE(write(pe, R::W_MASK0, m & 0xffffffffu).err == OK);
        if (n > 32) REQUIRE(write(pe, R::W_MASK1, m >> 32).err == OK);
    }
    uint64_t last(unsigned pe) {
        Rsp r = read(pe, R::W_LAST0);
        REQUIRE(r.err == OK);
        uint64_t v = r.data & 0xffffffffu;
        if (n > 32) {
            r = read(pe, R::W_LAST1);
            REQUIRE(r.err == OK);
            v |= (r.data & 0xffffffffu) << 32;
        }
        return v;
    }
    /// Ask until the operation has finished (PENDING meanwhile), every `gap` cycles.
    Rsp ask_until_done(unsigned pe, uint64_t limit, unsigned gap = 1) {
        const uint64_t t0 = h.cycle();
        for (;;) {
            Rsp r = ask(pe);
            if (r.err != PENDING) return r;
            if (h.cycle() - t0 > limit) FAIL("PE" << pe << " still PENDING after " << limit << " cycles");
            ticks(gap);
        }
    }

    // The pins of PE a as papers_hub drives them (a cabled PE reads these).
    bool go_pin(unsigned a) { return !get_bits(h->pe_stat, a * w + w - 1, 1); }  // Busy = /GO
    uint64_t ivec_pins(unsigned a) {  // PE order: Ik = PE (a+k+1)%N (seed Table 4)
        uint64_t v = 0;
        for (unsigned k = 0; k + 1 < n; ++k)
            if (get_bits(h->pe_stat, a * w + R::STATUS_I0 + k, 1)) v |= bit((a + k + 1) % n);
        return v;
    }
    // Every PE's pins random (CE, S, masks and all).
    void noise_pins(std::mt19937_64& g) {
        for (unsigned a = 0; a < n; ++a) {
            for (unsigned k = 0; k < w; k += 32) put_bits(h->pe_data, a * w + k, std::min(32u, w - k), g());
            put_bits(h->pe_ctrl, a * 5, 5, g() & 31);
        }
    }
    // A cabled PE's pins: data register (D, S and mask) and CE present.
    void cable(unsigned a, bool d, bool s, uint64_t mask) {
        const reg_t data = (reg_t(mask) << R::DATA_B0) | (s ? reg_t(1) << R::DATA_S : 0) | (d ? 1 : 0);
        put_bits(h->pe_data, a * w, w, data);
        put_bits(h->pe_ctrl, a * 5, 5, (1u << R::CONTROL_CE) ^ R::CABLE_CONTROL_INVERT);
    }
};

uint64_t all_pes(unsigned n) { return n >= 64 ? ~uint64_t(0) : bit(n) - 1; }
unsigned vec_len(unsigned n) { return (n + 7) / 8; }

// ---- the random barrier rounds ---------------------------------------------
// Link PEs (bit set in `link`) SYNC with a random D at random cycles and ask
// every few cycles; the others are cabled PEs a hook drives (or absent).
// d[a][r] is PE a's D in its round r, set when it starts the round.
struct Rounds {
    std::vector<std::vector<int>> d;       // per PE, per round
    std::vector<std::vector<uint64_t>> t;  // per PE, per round: cycle it started
    explicit Rounds(unsigned n) : d(n), t(n) {}
};

template <class V>
void run_rounds(Bench<V>& b, std::mt19937_64& rng, const std::vector<uint64_t>& part, uint64_t link,
                unsigned rounds, Rounds& rec, uint64_t& finished) {
    const unsigned n = b.n;
    struct Pe {
        unsigned round = 0;
        bool pending = false;
        uint64_t next = 0;
    };
    std::vector<Pe> pe(n);
    for (unsigned a = 0; a < n; ++a) pe[a].next = b.h.cycle() + rng() % 40;
    const uint64_t start = b.h.cycle();
    const uint64_t limit = 200000 + uint64_t(rounds) * n * 400;
    for (;;) {
        std::vector<unsigned> due;
        bool left = false;
        for (unsigned a = 0; a < n; ++a) {
            if (!(link >> a & 1)) continue;
            if (pe[a].pending || pe[a].round < rounds) left = true;
            if ((pe[a].pending || pe[a].round < rounds) && b.h.cycle() >= pe[a].next) due.push_back(a);
        }
        if (!left) break;
        if (b.h.cycle() - start > limit) FAIL("rounds did not complete within " << limit << " cycles");
        if (due.empty()) {
            b.tick();
            continue;
        }
        const unsigned a = due[rng() % due.size()];
        Pe& p = pe[a];
        if (!p.pending) {
            const bool d = rng() & 1;
            const Rsp r = b.sync(a, d);
            INFO("PE" << a << " SYNC start, round " << p.round);
            REQUIRE(r.err == PENDING);  // a barrier with others cannot finish at once
            rec.d[a].push_back(d);
            rec.t[a].push_back(r.cycle);
            p.pending = true;
            p.next = b.h.cycle() + 1 + rng() % 12;
            continue;
        }
        const Rsp r = b.ask(a, (rng() & 1) ? R::W_SYNC : R::W_CANCEL);  // an ask names either C register
        if (r.err == PENDING) {
            p.next = b.h.cycle() + 1 + rng() % 12;
            continue;
        }
        INFO("N=" << n << " PE" << a << " round " << p.round << " mask " << test::hex(part[a]) << " cycle "
                  << r.cycle);
        REQUIRE(r.err == OK);
        REQUIRE(r.len == vec_len(n));
        // Seed 000 4.3.2: nobody leaves before the last PE of its mask has arrived;
        // 4.3.3: the vector is the mask's D bits.
        uint64_t want = 0;
        for (unsigned j = 0; j < n; ++j) {
            if (!(part[a] >> j & 1)) continue;
            INFO("PE" << j << " of the mask");
            REQUIRE(rec.d[j].size() > p.round);
            REQUIRE(rec.t[j][p.round] < r.cycle);
            if (rec.d[j][p.round]) want |= bit(j);
        }
        REQUIRE(test::hex(r.data) == test::hex(want));
        ++finished;
        p.pending = false;
        ++p.round;
        // exactly once: the result is gone; LAST keeps it
        if (rng() % 8 == 0) {
            REQUIRE(b.ask(a).err == REFUSED);
            REQUIRE(b.last(a) == want);
        }
        const unsigned k = rng() % 8;
        p.next = b.h.cycle() + (k < 3 ? 0 : k < 6 ? rng() % 30 : rng() % 400);
    }
}

/// pin_noise: every PE's pins take random values every cycle (a link-only
/// slot, PINS = 0, must not read them).
template <class V>
void random_rounds(unsigned n, unsigned total_rounds, bool pin_noise = false) {
    const std::string name = std::string(pin_noise ? "papers_call_link_n" : "papers_call_n") + std::to_string(n);
    std::mt19937_64 rng(test_seed(name.c_str()));
    Bench<V> b(n, name);
    std::mt19937_64 noise(pin_noise ? rng() : 0);  // (the rounds without noise draw as before)
    if (pin_noise) b.on_tick = [&] { b.noise_pins(noise); };
    uint64_t finished = 0, partitions = 0;
    unsigned done = 0;
    for (unsigned epoch = 0; done < total_rounds; ++epoch) {
        const std::vector<uint64_t> part =
            epoch % 3 == 0 ? std::vector<uint64_t>(n, all_pes(n)) : test::random_partition(rng, n);
        partitions += epoch % 3 != 0;
        // a mask changes only after every PE's barrier has reset (enqueue's rule)
        b.ticks(2 * SETTLE + 4);
        for (unsigned a = 0; a < n; ++a) {
            REQUIRE_FALSE(b.go_pin(a));
            b.set_mask(a, part[a]);
        }
        const unsigned rounds = 2 + rng() % 8;
        Rounds rec(n);
        run_rounds(b, rng, part, all_pes(n), rounds, rec, finished);
        done += rounds;
    }
    INFO("finished " << finished << " SYNCs, " << partitions << " random partitions");
    CHECK(finished >= uint64_t(total_rounds) * n);
    CHECK(partitions > 0);
}

// ---- directed cases ---------------------------------------------------------

/// pins: the slot has pins (PINS = 1): OWNER reads 0 until the link takes
/// the PE; link-only (PINS = 0), 1 from reset on.
template <class V>
void directed(unsigned n, bool pins = true) {
    const std::string name = "papers_call_dir_n" + std::to_string(n);
    const uint64_t all = all_pes(n);
    const uint64_t owner0 = pins ? 0 : 1;

    SECTION("CANCEL with nothing pending answers NONE at once; an ask is refused") {
        Bench<V> b(n, name);
        for (unsigned a = 0; a < n; ++a) {
            const Rsp r = b.cancel(a);
            REQUIRE(r.err == OK);
            REQUIRE(r.len == 1);
            REQUIRE(r.data == R::W_CANCEL_NONE);
            REQUIRE(b.ask(a).err == REFUSED);
            REQUIRE(b.read(a, R::W_OWNER).data == owner0);  // untouched
        }
    }

    SECTION("4.3.2: one PE never calls; the others stay PENDING, then CANCEL gives WITHDRAWN") {
        Bench<V> b(n, name);
        for (unsigned a = 0; a < n; ++a) b.set_mask(a, all);
        const unsigned missing = n - 1;
        std::vector<bool> d(n);
        std::mt19937_64 rng(n);
        for (unsigned a = 0; a < missing; ++a) {
            d[a] = rng() & 1;
            REQUIRE(b.sync(a, d[a]).err == PENDING);
        }
        for (unsigned i = 0; i < 60; ++i) {  // thousands of cycles
            for (unsigned a = 0; a < missing; ++a) REQUIRE(b.ask(a).err == PENDING);
            b.ticks(50);
        }
        // seen arrived during the wait: every PE of the mask but the missing
        // one, those withdrawn before included (they came, then left)
        const uint64_t seen = all & ~bit(missing);
        for (unsigned a = 0; a < missing; ++a) {
            INFO("PE" << a << " cancels");
            // what a SYNC in progress holds: SIG = D|S|PROBE, writes refused
            REQUIRE(b.read(a, R::W_SIG).data ==
                    ((d[a] ? 1u : 0u) | bit(R::DATA_S) | bit(R::DATA_PROBE)));
            Rsp r = b.cancel(a);
            REQUIRE(r.err == PENDING);  // S is being withdrawn
            r = b.ask_until_done(a, 20);
            REQUIRE(r.err == OK);
            REQUIRE(r.len == 1);
            REQUIRE(r.data == R::W_CANCEL_WITHDRAWN);
            REQUIRE(test::hex(b.last(a)) == test::hex(seen & ~bit(a)));
            REQUIRE(b.read(a, R::W_SIG).data == (d[a] ? 1u : 0u));  // S, PROBE low; D kept
            REQUIRE(b.ask(a).err == REFUSED);
        }
        REQUIRE(b.cancel(missing).data == R::W_CANCEL_NONE);
        // The engine barriers again after the withdrawals (its own reset).
        for (unsigned a = 0; a < n; ++a) REQUIRE(b.sync(a, a & 1).err == PENDING);
        uint64_t want = 0;
        for (unsigned a = 0; a < n; ++a)
            if (a & 1) want |= bit(a);
        for (unsigned a = 0; a < n; ++a) REQUIRE(b.ask_until_done(a, 200).data == want);
    }

    SECTION("PROBE's I bits and CANCEL's arrivals name only PEs whose masks name us (seed Table 4)") {
        // papers_core: with PROBE, PE a's I bit for PE j is S_j AND (j's mask
        // names a); without it, D_j.  PE1 arrives for PE0 (S, mask names 0,
        // D = 0); PE2 has S and D up but its mask {1, 2} leaves PE0 out.
        if (n < 3) return;
        Bench<V> b(n, name);
        b.set_mask(0, 0b111);
        b.set_mask(1, 0b111);
        b.set_mask(2, 0b110);
        REQUIRE(b.write(1, R::W_SIG, bit(R::DATA_S)).err == OK);
        REQUIRE(b.write(2, R::W_SIG, bit(R::DATA_S) | bit(R::DATA_D)).err == OK);
        REQUIRE(b.write(0, R::W_SIG, 0).err == OK);
        b.ticks(10);
        REQUIRE(test::hex(b.read(0, R::W_IVEC0).data) == test::hex(bit(2)));  // D
        REQUIRE(b.write(0, R::W_SIG, bit(R::DATA_PROBE)).err == OK);
        b.ticks(10);
        REQUIRE(test::hex(b.read(0, R::W_IVEC0).data) == test::hex(bit(1)));  // arrived for PE0
        REQUIRE(b.write(0, R::W_SIG, 0).err == OK);
        // PE0's SYNC cannot fire (PE2 does not name it); CANCEL lists PE1 alone
        REQUIRE(b.sync(0, true).err == PENDING);
        b.ticks(200);
        REQUIRE(b.ask(0).err == PENDING);
        // while the SYNC waits for GO, LAST shows the arrivals seen so far
        // (docs/papers_regmap.md LAST0)
        REQUIRE(test::hex(b.last(0)) == test::hex(bit(1)));
        REQUIRE(b.cancel(0).err == PENDING);
        const Rsp r = b.ask_until_done(0, 20);
        REQUIRE(r.err == OK);
        REQUIRE(r.data == R::W_CANCEL_WITHDRAWN);
        REQUIRE(test::hex(b.last(0)) == test::hex(bit(1)));
    }

    SECTION("CANCEL of a finished, uncollected SYNC gives FINISHED and LAST its vector") {
        Bench<V> b(n, name);
        for (unsigned a = 0; a < n; ++a) b.set_mask(a, all);
        uint64_t want = 0;
        for (unsigned a = 0; a < n; ++a) {
            const bool d = (a % 3) == 0;
            if (d) want |= bit(a);
            REQUIRE(b.sync(a, d).err == PENDING);
        }
        b.ticks(100);
        const Rsp r = b.cancel(1);
        REQUIRE(r.err == OK);
        REQUIRE(r.data == R::W_CANCEL_FINISHED);
        REQUIRE(b.last(1) == want);
        REQUIRE(b.ask(1).err == REFUSED);  // handed over by the CANCEL: gone
        for (unsigned a = 0; a < n; ++a)
            if (a != 1) REQUIRE(b.ask(a).data == want);
    }

    SECTION("4.3.2: a SYNC waits for the previous barrier's reset; CANCEL then gives RESET_WAIT") {
        Bench<V> b(n, name);
        b.set_mask(0, 0b11);
        b.set_mask(1, 0b11);
        REQUIRE(b.write(1, R::W_SIG, bit(R::DATA_S) | 1).err == OK);  // PE1 arrives by hand and stays
        REQUIRE(b.sync(0, false).err == PENDING);
        REQUIRE(b.ask_until_done(0, 50).data == 0b10);  // PE1's D, our D = 0
        // GO stays up while PE1 holds S: the next SYNC cannot raise S
        REQUIRE(b.sync(0, true).err == PENDING);
        b.ticks(200);
        REQUIRE(b.ask(0).err == PENDING);
        REQUIRE(b.read(0, R::W_SIG).data == 0);  // S never raised, D not yet changed
        const Rsp r = b.cancel(0);
        REQUIRE(r.err == OK);
        REQUIRE(r.data == R::W_CANCEL_RESET_WAIT);
        REQUIRE(b.read(0, R::W_SIG).data == 0);
        REQUIRE(b.last(0) == 0b10);  // untouched
        // PE1 lets go; now a SYNC of PE0 waits for PE1 only
        REQUIRE(b.write(1, R::W_SIG, 0).err == OK);
        REQUIRE(b.sync(0, true).err == PENDING);
        b.ticks(30);
        REQUIRE(b.ask(0).err == PENDING);
        REQUIRE(b.sync(1, false).err == PENDING);
        REQUIRE(b.ask_until_done(0, 50).data == 0b01);
        REQUIRE(b.ask_until_done(1, 50).data == 0b01);
    }

    SECTION("refused: a second SYNC, plain writes during a SYNC, wrong len, C/plain mix-ups") {
        Bench<V> b(n, name);
        b.set_mask(0, all);
        REQUIRE(b.sync(0, true).err == PENDING);
        REQUIRE(b.sync(0, true).err == REFUSED);
        const uint64_t sig = b.read(0, R::W_SIG).data;
        REQUIRE(sig == (1u | bit(R::DATA_S) | bit(R::DATA_PROBE)));
        for (uint16_t reg : {R::W_SIG, R::W_MASK0, R::W_CTRL, R::W_OWNER})
            REQUIRE(b.write(0, reg, 0).err == REFUSED);
        REQUIRE(b.read(0, R::W_SIG).data == sig);
        REQUIRE(b.read(0, R::W_MASK0).data == all);
        REQUIRE(b.read(0, R::W_CTRL).data == bit(R::CONTROL_CE));
        REQUIRE(b.read(0, R::W_OWNER).data == 1);  // the SYNC start set it
        REQUIRE(b.read(0, R::W_STAT).err == OK);  // reads are answered as ever
        // another PE is not affected
        REQUIRE(b.write(1, R::W_CTRL, bit(R::CONTROL_CE)).err == OK);
        // wrong len or operand of a start
        for (unsigned len : {0u, 2u, 4u, 8u})
            REQUIRE(b.access({true, true, 1, R::W_SYNC, 0, len}).err == REFUSED);
        REQUIRE(b.access({true, true, 1, R::W_SYNC, 2, 1}).err == REFUSED);
        REQUIRE(b.access({true, true, 1, R::W_CANCEL, 0, 1}).err == REFUSED);
        // a CALL access to a plain register, a plain one to a CALL register
        REQUIRE(b.access({true, true, 1, R::W_STAT, 0, 1}).err == REFUSED);
        REQUIRE(b.access({false, true, 1, R::W_STAT, 0, 0}).err == REFUSED);
        REQUIRE(b.access({true, true, 1, R::W_SIG, 0, 1}).err == REFUSED);
        REQUIRE(b.write(1, R::W_SYNC, 0).err == REFUSED);
        REQUIRE(b.read(1, R::W_SYNC).err == REFUSED);
        REQUIRE(b.write(1, R::W_CANCEL, 0).err == REFUSED);
        REQUIRE(b.write(1, R::W_LAST0, 0).err == REFUSED);
        REQUIRE(b.ask(1).err == REFUSED);  // nothing in progress
        // no such register / PE
        REQUIRE(b.access({true, true, 1, 0x0FF, 0, 0}).err == NO_REG);
        REQUIRE(b.access({true, true, n, R::W_SYNC, 0, 1}).err == NO_REG);
        if (n <= 32) REQUIRE(b.read(1, R::W_LAST1).err == NO_REG);
        // PE1 was not started by any of them
        REQUIRE(b.read(1, R::W_SIG).data == 0);
        // a CANCEL is always taken; the SYNC's PE is free again afterwards
        REQUIRE(b.cancel(0).err == PENDING);
        REQUIRE(b.ask_until_done(0, 20).data == R::W_CANCEL_WITHDRAWN);
        REQUIRE(b.write(0, R::W_SIG, 0).err == OK);
    }

    SECTION("IR is kept through a SYNC, and an IR interrupt (Table 7: GO reads 0) does not hold it up") {
        Bench<V> b(n, name);
        b.set_mask(0, 0b11);
        b.set_mask(1, 0b11);
        REQUIRE(b.write(0, R::W_SIG, bit(R::DATA_IR)).err == OK);
        REQUIRE(b.sync(0, true).err == PENDING);
        b.ticks(20);
        REQUIRE(b.read(0, R::W_SIG).data == (1u | bit(R::DATA_IR) | bit(R::DATA_S) | bit(R::DATA_PROBE)));
        REQUIRE(b.sync(1, false).err == PENDING);
        b.ticks(20);
        // PE1's STAT shows the interrupt, not GO (Table 7), yet both finish
        REQUIRE((b.read(1, R::W_STAT).data >> R::W_STAT_INT & 1) == 1);
        REQUIRE(b.ask_until_done(0, 50).data == 0b01);
        REQUIRE(b.ask_until_done(1, 50).data == 0b01);
        REQUIRE(b.read(0, R::W_SIG).data == (1u | bit(R::DATA_IR)));
    }

    SECTION("a PE alone in its mask finishes by itself with its own D") {
        Bench<V> b(n, name);
        b.set_mask(2 % n, bit(2 % n));
        for (int d : {1, 0, 1, 1}) {
            REQUIRE(b.sync(2 % n, d).err == PENDING);
            REQUIRE(b.ask_until_done(2 % n, 40).data == (d ? bit(2 % n) : 0));
        }
    }
}

// ---- link-only (PINS = 0; papers_hub.v "Link-only", issue 24's 64-PE hub) ----
// Every PE is on the link from reset on, alone in its mask; the pins are
// never read; OWNER cannot be cleared; a mask write reaches the barrier
// logic without a register stage of papers_hub's (one edge sooner than an S
// write), an S write exactly as with pins (SETTLE, S -> GO 4 cycles), its
// second stage the core's partials (papers_core PIPE = 1).
template <class V>
void link_only(unsigned n) {
    const std::string name = "papers_call_link_dir_n" + std::to_string(n);
    std::mt19937_64 rng(test_seed(name.c_str()));
    const unsigned words = (n + 31) / 32;
    auto read_vec = [&](Bench<V>& b, unsigned a, uint16_t r0, uint16_t r1) {
        uint64_t v = b.read(a, r0).data & 0xffffffffu;
        if (words > 1) v |= (b.read(a, r1).data & 0xffffffffu) << 32;
        return v;
    };

    SECTION("after reset: every PE on the link, alone, present, GO at rest; pins never read") {
        Bench<V> b(n, name);
        b.on_tick = [&] { b.noise_pins(rng); };
        b.ticks(200);
        for (unsigned a = 0; a < n; ++a) {
            INFO("PE" << a);
            REQUIRE(b.read(a, R::W_OWNER).data == 1);
            REQUIRE(read_vec(b, a, R::W_MASK0, R::W_MASK1) == bit(a));
            REQUIRE(b.read(a, R::W_CTRL).data == bit(R::CONTROL_CE));
            REQUIRE(b.read(a, R::W_SIG).data == 0);
            REQUIRE(b.read(a, R::W_STAT).data == 0);  // no GO, no INT, whatever the pins say
            REQUIRE(read_vec(b, a, R::W_IVEC0, R::W_IVEC1) == 0);
        }
        REQUIRE(read_vec(b, 0, R::W_PRESENT0, R::W_PRESENT1) == all_pes(n));
        // GO never toggles on the noise: sample the status pins for a while
        for (unsigned i = 0; i < 300; ++i) {
            b.tick();
            for (unsigned a = 0; a < n; ++a) REQUIRE_FALSE(b.go_pin(a));
        }
    }

    SECTION("OWNER := 0 is refused and changes nothing; OWNER := 1 is taken") {
        Bench<V> b(n, name);
        for (unsigned a : {0u, n - 1}) {
            REQUIRE(b.write(a, R::W_OWNER, 0).err == REFUSED);
            REQUIRE(b.read(a, R::W_OWNER).data == 1);
            REQUIRE(b.write(a, R::W_OWNER, 1).err == OK);
            REQUIRE(b.read(a, R::W_OWNER).data == 1);
            REQUIRE(b.write(a, R::W_OWNER, 2).err == REFUSED);  // bit 0 clear: the same request
        }
    }

    SECTION("edges to GO on the pins: a mask write 1 fewer than an S write, which takes 4 + 2") {
        Bench<V> b(n, name);
        b.on_tick = [&] { b.noise_pins(rng); };
        const unsigned x = n - 1;  // PE0 and PE x barrier
        // PE0 names PE1 too, whose mask (itself alone) does not name PE0:
        // PE0's barrier cannot fire (seed 000 3.1: B_1[0] = 0 in CLKSET)
        b.set_mask(0, bit(0) | bit(x) | bit(1));
        b.set_mask(x, bit(0) | bit(x));
        REQUIRE(b.write(0, R::W_SIG, bit(R::DATA_S)).err == OK);
        // S write: the edge it lands in the register (taken + 2), then 4 to GO on the pins
        uint64_t taken = b.send({true, false, x, R::W_SIG, bit(R::DATA_S), 0, 4});
        uint64_t s_edges = 0;
        for (uint64_t t = 1; t <= 20 && !s_edges; ++t) {
            b.tick();
            if (b.go_pin(0)) s_edges = b.h.cycle() - taken;
        }
        b.rsps.clear();
        REQUIRE(s_edges == 0);  // no GO for PE0
        REQUIRE(b.go_pin(x));   // PE x's own barrier (PE0 names it) has fired
        // PE0's mask without PE1: its GO follows the write
        taken = b.send({true, false, 0, R::W_MASK0, bit(0) | bit(x), 0, 4});
        uint64_t m_edges = 0;
        for (uint64_t t = 1; t <= 20 && !m_edges; ++t) {
            b.tick();
            if (b.go_pin(0)) m_edges = b.h.cycle() - taken;
        }
        b.rsps.clear();
        REQUIRE(read_vec(b, 0, R::W_MASK0, R::W_MASK1) == (bit(0) | bit(x)));
        // S of PE x low, then high again: GO falls and rises as S writes make it
        REQUIRE(b.write(x, R::W_SIG, 0).err == OK);
        REQUIRE(b.write(0, R::W_SIG, 0).err == OK);
        b.ticks(10);
        REQUIRE_FALSE(b.go_pin(0));
        REQUIRE(b.write(0, R::W_SIG, bit(R::DATA_S)).err == OK);
        taken = b.send({true, false, x, R::W_SIG, bit(R::DATA_S), 0, 4});
        for (uint64_t t = 1; t <= 20 && !s_edges; ++t) {
            b.tick();
            if (b.go_pin(0)) s_edges = b.h.cycle() - taken;
        }
        INFO("S write -> GO pin " << s_edges << " edges, mask write -> GO pin " << m_edges);
        // taken + 2: the register; + 2 register stages (papers_hub's, the
        // core's partials) + GO + the status register
        REQUIRE(s_edges == WRITE_TICKS + 4);
        // the register, the core's precomputed mask agreement (papers_hub
        // has no register stage for the mask: the core's takes its place),
        // the partials, GO, the status: as an S write
        REQUIRE(m_edges == WRITE_TICKS + 4);
    }
}

// SETTLE, measured: a SIG write's D reaches another PE's I bit, and a GO an S
// caused before it dropped reaches the status, SETTLE edges after the write.
template <class V>
void measure_settle(unsigned n) {
    Bench<V> b(n, "papers_call_settle_n" + std::to_string(n));
    b.set_mask(0, 0b11);
    b.set_mask(1, 0b11);
    // D -> I: the write takes effect RSP_TICKS - WRITE_TICKS edges before
    // the response comes out
    const uint64_t late = RSP_TICKS - WRITE_TICKS;
    const Rsp r = b.write(0, R::W_SIG, 1);
    REQUIRE(r.err == OK);
    uint64_t k = late;
    while (!(b.ivec_pins(1) & 1)) {
        b.tick();
        REQUIRE(++k <= 10);
    }
    CHECK(k == SETTLE);
    // A one-cycle S pulse of PE0 (PE1 already arrived): back-to-back writes
    // S=1, S=0.  The GO it causes shows SETTLE edges after the drop.
    REQUIRE(b.write(1, R::W_SIG, bit(R::DATA_S)).err == OK);
    b.ticks(10);
    REQUIRE_FALSE(b.go_pin(0));
    const uint64_t t1 = b.send({true, false, 0, R::W_SIG, bit(R::DATA_S) | 1, 0, 1});
    const uint64_t t2 = b.send({true, false, 0, R::W_SIG, 1, 0, 1});
    REQUIRE(b.collect(t1).err == OK);
    const Rsp drop = b.collect(t2);  // S fell `late` edges before this one
    k = late;
    while (!b.go_pin(0)) {
        b.tick();
        REQUIRE(++k <= 10);
    }
    CHECK(k == SETTLE);
    CHECK(b.h.cycle() == drop.cycle - late + SETTLE);
}

// CANCEL racing GO: PE1 is a cabled PE that raises S `off` cycles after PE0's
// CANCEL is offered (before it when negative), so that its S can reach the
// hub in any cycle relative to PE0's withdrawal.  The outcome is FINISHED,
// FIRED or WITHDRAWN, and each agrees with what PE1 saw on its GO pin: the
// withdrawal's settle window must be long enough to see a GO PE0's S caused
// before it dropped (papers_bus.v SETTLE).
template <class V>
void cancel_race(unsigned n) {
    std::map<unsigned, unsigned> seen;
    for (int hold = -1; hold <= 2; ++hold)
    for (int off = -14; off <= 8; ++off) {
        INFO("PE1's S " << off << " cycles after PE0's CANCEL; PE1 drops S " << hold
                        << " cycles after its GO (-1: never)");
        Bench<V> b(n, "papers_call_race_n" + std::to_string(n));
        b.cable(1, false, false, 0b11);
        // PE1 watches its GO pin; a fast PE1 lets go of S soon after it,
        // so that PE0's GO falls again inside the withdrawal's window
        bool pe1_go = false;
        uint64_t go_at = 0;
        b.on_tick = [&] {
            if (!pe1_go && b.go_pin(1)) {
                pe1_go = true;
                go_at = b.h.cycle();
            }
            if (pe1_go && hold >= 0 && b.h.cycle() >= go_at + unsigned(hold)) b.cable(1, false, false, 0b11);
        };
        b.set_mask(0, 0b11);
        REQUIRE(b.sync(0, true).err == PENDING);
        b.ticks(20);
        const int cx_at = 14, s_at = cx_at + off;
        uint64_t taken = 0;
        for (int i = 0; i < 40; ++i) {
            if (i == s_at) b.cable(1, false, true, 0b11);
            if (i == cx_at) taken = b.send({true, true, 0, R::W_CANCEL, 0, 0});
            else b.tick();
        }
        Rsp rc = b.collect(taken);
        if (rc.err == PENDING) rc = b.ask_until_done(0, 20);
        REQUIRE(rc.err == OK);
        const unsigned o = unsigned(rc.data);
        ++seen[o];
        b.ticks(2 * SETTLE + 2);
        const uint64_t last = b.last(0);
        REQUIRE(b.read(0, R::W_SIG).data == 1);  // S and PROBE low, D kept
        switch (o) {
        case R::W_CANCEL_FINISHED: REQUIRE(pe1_go); REQUIRE(last == 0b01); break;  // PE0's D only
        case R::W_CANCEL_FIRED: REQUIRE(pe1_go); REQUIRE((last & ~uint64_t(0b10)) == 0); break;
        case R::W_CANCEL_WITHDRAWN: REQUIRE_FALSE(pe1_go); REQUIRE((last & ~uint64_t(0b10)) == 0); break;
        default: FAIL("CANCEL outcome " << o);
        }
    }
    CHECK(seen[R::W_CANCEL_FINISHED] > 0);
    CHECK(seen[R::W_CANCEL_FIRED] > 0);
    CHECK(seen[R::W_CANCEL_WITHDRAWN] > 0);
}

// A cabled PE (the PC's own _p_waitvec on its pins, seed 000 4.3.3) and link
// PEs barrier together.
template <class V>
void cabled_and_link(unsigned n) {
    const std::string name = "papers_call_cable_n" + std::to_string(n);
    std::mt19937_64 rng(test_seed(name.c_str()));
    Bench<V> b(n, name);
    const unsigned rounds = 40;
    const uint64_t mask = all_pes(n);
    const uint64_t link = mask & ~uint64_t(1);  // PE0 is on its cable
    for (unsigned a = 1; a < n; ++a) b.set_mask(a, mask);
    Rounds rec(n);
    struct Cab {
        int state = 0;  // 0 wait for reset, 1 wait for GO, 3 hold S, 2 pause
        unsigned round = 0;
        bool d = false;
        uint64_t until = 0;
    } cab;
    b.cable(0, false, false, mask);
    std::string fail;
    b.on_tick = [&] {
        if (!fail.empty() || cab.round >= rounds) return;
        switch (cab.state) {
        case 0:  // while (P_IN() & GO);  P_OUT(b | S);
            if (!b.go_pin(0)) {
                cab.d = rng() & 1;
                b.cable(0, cab.d, true, mask);
                rec.d[0].push_back(cab.d);
                rec.t[0].push_back(b.h.cycle());
                cab.state = 1;
            }
            break;
        case 1:  // while (!(P_IN() & GO));  x = P_IN();  P_OUT(b)
            if (b.go_pin(0)) {
                uint64_t want = cab.d ? 1 : 0, got = (b.ivec_pins(0) & mask) | (cab.d ? 1 : 0);
                for (unsigned j = 1; j < n; ++j) {
                    if (rec.d[j].size() <= cab.round) {
                        fail = "cabled PE0 passed round " + std::to_string(cab.round) + " before PE" +
                               std::to_string(j) + " started it";
                        return;
                    }
                    if (rec.d[j][cab.round]) want |= bit(j);
                }
                if (got != want) fail = "cabled PE0 read " + test::hex(got) + ", want " + test::hex(want);
                // a slow PC: P_OUT(b) some cycles later, so that the link
                // PEs' next SYNCs must wait for this barrier's reset
                cab.until = b.h.cycle() + (rng() % 2 ? rng() % 60 : 0);
                cab.state = 3;
            }
            break;
        case 3:
            if (b.h.cycle() >= cab.until) {
                b.cable(0, cab.d, false, mask);
                ++cab.round;
                cab.until = b.h.cycle() + rng() % 50;
                cab.state = 2;
            }
            break;
        default:
            if (b.h.cycle() >= cab.until) cab.state = 0;
        }
    };
    uint64_t finished = 0;
    run_rounds(b, rng, std::vector<uint64_t>(n, mask), link, rounds, rec, finished);
    for (unsigned i = 0; i < 10000 && cab.round < rounds && fail.empty(); ++i) b.tick();
    INFO(fail);
    REQUIRE(fail.empty());
    REQUIRE(cab.round == rounds);
    REQUIRE(finished == uint64_t(rounds) * (n - 1));
}

}  // namespace

TEST_CASE("papers CALL: SETTLE measured (SIG write to IVEC, S drop to GO), N=3, 4, 16", "[papers_call]") {
    measure_settle<Vpapers_slot_n3>(3);
    measure_settle<Vpapers_slot_n4>(4);
    measure_settle<Vpapers_slot_n16>(16);
}

TEST_CASE("papers CALL, seed 000 4.3.2-4.3.3: random SYNC rounds and partitions, N=3", "[papers_call]") {
    random_rounds<Vpapers_slot_n3>(3, unsigned(2000 * cycles_scale()));
}
TEST_CASE("papers CALL, seed 000 4.3.2-4.3.3: random SYNC rounds and partitions, N=4", "[papers_call]") {
    random_rounds<Vpapers_slot_n4>(4, unsigned(2000 * cycles_scale()));
}
TEST_CASE("papers CALL, seed 000 4.3.2-4.3.3: random SYNC rounds and partitions, N=16", "[papers_call]") {
    random_rounds<Vpapers_slot_n16>(16, unsigned(600 * cycles_scale()));
}

TEST_CASE("papers CALL directed: CANCEL outcomes, refusals, alone, N=3", "[papers_call]") {
    directed<Vpapers_slot_n3>(3);
}
TEST_CASE("papers CALL directed: CANCEL outcomes, refusals, alone, N=4", "[papers_call]") {
    directed<Vpapers_slot_n4>(4);
}
TEST_CASE("papers CALL directed: CANCEL outcomes, refusals, alone, N=16", "[papers_call]") {
    directed<Vpapers_slot_n16>(16);
}

TEST_CASE("papers CALL: CANCEL racing GO gives FINISHED, FIRED or WITHDRAWN, as PE1 saw it", "[papers_call]") {
    cancel_race<Vpapers_slot_n4>(4);
    cancel_race<Vpapers_slot_n16>(16);
}

TEST_CASE("papers CALL link-only (PINS=0): SETTLE, rounds with noise on every pin, N=4, 64", "[papers_call]") {
    measure_settle<Vpapers_slot_link_n4>(4);
    random_rounds<Vpapers_slot_link_n4>(4, unsigned(1000 * cycles_scale()), true);
    random_rounds<Vpapers_slot_link_n64>(64, unsigned(40 * cycles_scale()), true);
}
TEST_CASE("papers CALL link-only (PINS=0) directed: the CALL cases, N=4", "[papers_call]") {
    directed<Vpapers_slot_link_n4>(4, false);
}
TEST_CASE("papers CALL link-only (PINS=0): reset, OWNER, pins ignored, mask and S latency, N=4, 64",
          "[papers_call]") {
    link_only<Vpapers_slot_link_n4>(4);
    link_only<Vpapers_slot_link_n64>(64);
}

TEST_CASE("papers CALL, seed 000 4.3.3: a cabled PE and link PEs barrier together", "[papers_call]") {
    cabled_and_link<Vpapers_slot_n4>(4);
    cabled_and_link<Vpapers_slot_n3>(3);
}
