// scratch_regs (rtl/scratch/scratch_regs.v), the test-only engine, against a
// C++ model written from the register map in its header.  Two builds (the
// manifest rtl/scratch/manifest.json verilates both):
//   Vscratch_regs       defaults: WINDOW 2, NREGS 4, LATENCY 1, GAP 0
//   Vscratch_regs_l3g2  WINDOW 7, NREGS 16, LATENCY 3, GAP 2, ID 0x12345678
// A bus master drives requests, holds them until ready, and checks every
// cycle: a response exactly LATENCY cycles after each taken request and at
// no other time (so one per request, in order), its err and rdata equal to
// the model's for that request, rdata/err 0 between responses, ready low in
// reset and for exactly GAP cycles after each taken request.
#include "harness.hpp"
#include "seed.hpp"

#include <Vscratch_regs.h>
#include <Vscratch_regs_l3g2.h>
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <deque>
#include <random>
#include <string>
#include <vector>

using aggnet::sim::Harness;

namespace {

struct Cfg {
    unsigned window, nregs, latency, gap;
    uint32_t id;
};
constexpr Cfg DEFAULT_CFG{15, 4, 1, 0, 0x53435201u};  // window 15: SCRATCH in tools/linkgen.py
constexpr Cfg L3G2_CFG{7, 16, 3, 2, 0x12345678u};

constexpr uint16_t REG_ID = 0x000, REG_PE = 0x001, REG_WCOUNT = 0x002, REG_SCRATCH = 0x010;
enum Err : unsigned { OK = 0, NO_REG = 1, REFUSED = 2 };

struct Req {
    bool we = false;
    unsigned pe = 0;
    uint16_t addr = 0;
    uint32_t wdata = 0;
    unsigned size = 4;
};
struct Rsp {
    unsigned err;
    uint32_t rdata;
};

// The register map of scratch_regs.v's header, as a model.
struct ScratchModel {
    Cfg cfg;
    std::vector<uint32_t> regs;
    uint32_t wcount = 0;
    explicit ScratchModel(Cfg c) : cfg(c), regs(c.nregs, 0) {}
    void reset() {
        std::fill(regs.begin(), regs.end(), 0);
        wcount = 0;
    }
    Rsp apply(const Req& q) {
        const unsigned win = q.addr >> 12, r = q.addr & 0xfff;
        const bool scratch = r >= REG_SCRATCH && r < REG_SCRATCH + cfg.nregs;
        const bool exists = win == cfg.window && (r == REG_ID || r == REG_PE || r == REG_WCOUNT || scratch);
        if (!exists) return {NO_REG, 0};
        if (q.size < 1 || q.size > 4 || (q.we && !scratch)) return {REFUSED, 0};
        if (q.we) {
            const uint32_t mask = q.size == 4 ? 0xffffffffu : (1u << (8 * q.size)) - 1;
            uint32_t& v = regs[r - REG_SCRATCH];
            v = (v & ~mask) | (q.wdata & mask);
            ++wcount;
            return {OK, 0};
        }
        switch (r) {
        case REG_ID: return {OK, cfg.id};
        case REG_PE: return {OK, q.pe};
        case REG_WCOUNT: return {OK, wcount};
        default: return {OK, regs[r - REG_SCRATCH]};
        }
    }
};

// A bus master around one Verilated scratch_regs and its model.
template <class V>
struct Bench {
    Harness<V> h;
    ScratchModel model;
    struct Pending {
        uint64_t due;  // cycle in which the response must be valid
        Rsp rsp;
    };
    std::deque<Pending> pending;
    unsigned gap_left = 0;
    uint64_t responses = 0, taken = 0;

    Bench(const std::string& name, Cfg cfg) : h(name, 50'000'000), model(cfg) {
        idle();
        h.reset();
        check_outputs();
    }
    void idle() {
        h->bus_req_valid = 0;
        h->bus_req_we = 0;
        h->bus_req_pe = 0;
        h->bus_req_addr = 0;
        h->bus_req_wdata = 0;
        h->bus_req_size = 0;
    }
    void drive(const Req& q) {
        h->bus_req_valid = 1;
        h->bus_req_we = q.we;
        h->bus_req_pe = q.pe;
        h->bus_req_addr = q.addr;
        h->bus_req_wdata = q.wdata;
        h->bus_req_size = q.size;
    }
    // Outputs in the current cycle (after the last tick) against the model.
    void check_outputs() {
        INFO("cycle " << h.cycle());
        if (!pending.empty() && pending.front().due == h.cycle()) {
            REQUIRE(h->bus_rsp_valid == 1);
            REQUIRE(unsigned(h->bus_rsp_err) == pending.front().rsp.err);
            REQUIRE(uint32_t(h->bus_rsp_rdata) == pending.front().rsp.rdata);
            pending.pop_front();
            ++responses;
        } else {
            REQUIRE(h->bus_rsp_valid == 0);  // no response without a request
            REQUIRE(h->bus_rsp_err == 0);
            REQUIRE(h->bus_rsp_rdata == 0u);
        }
        REQUIRE(bool(h->bus_req_ready) == (gap_left == 0));
    }
    // One clock cycle with whatever is driven; returns whether a request was taken.
    bool cycle(const Req* q) {
        bool take = false;
        if (q) {
            drive(*q);
            take = h->bus_req_ready;
        } else {
            idle();
        }
        if (take) {
            pending.push_back({h.cycle() + model.cfg.latency, model.apply(*q)});
            ++taken;
        }
        h.tick();
        if (take)
            gap_left = model.cfg.gap;
        else if (gap_left)
            --gap_left;
        check_outputs();
        return take;
    }
    // Offer q until it is taken, then return its response (after LATENCY cycles).
    Rsp call(const Req& q) {
        unsigned waited = 0;
        while (!cycle(&q)) REQUIRE(++waited <= model.cfg.gap);
        const Rsp expect = pending.back().rsp;
        while (!pending.empty()) cycle(nullptr);
        return expect;
    }
    Rsp read(uint16_t addr, unsigned size = 4, unsigned pe = 0) { return call({false, pe, addr, 0, size}); }
    Rsp write(uint16_t addr, uint32_t v, unsigned size = 4, unsigned pe = 0) { return call({true, pe, addr, v, size}); }
    uint16_t a(uint16_t r) const { return uint16_t(model.cfg.window << 12 | r); }
    void reset() {
        idle();
        h->rst = 1;
        h.tick();
        REQUIRE(h->bus_req_ready == 0);  // never ready in reset
        h.reset();
        model.reset();
        pending.clear();
        gap_left = 0;
        check_outputs();
    }
};

template <class V>
void fixed_registers(Cfg cfg, const char* name) {
    Bench<V> b(name, cfg);
    for (unsigned size = 1; size <= 4; ++size) {
        const Rsp id = b.read(b.a(REG_ID), size);
        CHECK(id.err == OK);
        CHECK(id.rdata == cfg.id);  // all 32 bits; the master ignores those above size
    }
    for (unsigned pe : {0u, 1u, 5u, 42u, 63u}) {
        const Rsp r = b.read(b.a(REG_PE), 1, pe);
        CHECK(r.err == OK);
        CHECK(r.rdata == pe);
    }
    CHECK(b.read(b.a(REG_WCOUNT)).rdata == 0u);
    // the three read-only registers refuse writes (err 2) and do not change
    for (uint16_t r : {REG_ID, REG_PE, REG_WCOUNT}) {
        for (unsigned size = 1; size <= 4; ++size) {
            const Rsp w = b.write(b.a(r), 0xdeadbeef, size, 3);
            CHECK(w.err == REFUSED);
            CHECK(w.rdata == 0u);
        }
    }
    CHECK(b.read(b.a(REG_ID)).rdata == cfg.id);
    CHECK(b.read(b.a(REG_WCOUNT)).rdata == 0u);
}

template <class V>
void scratch_registers(Cfg cfg, const char* name) {
    Bench<V> b(name, cfg);
    uint32_t writes = 0;
    for (unsigned i = 0; i < cfg.nregs; ++i) {
        const uint16_t r = b.a(uint16_t(REG_SCRATCH + i));
        CHECK(b.read(r).rdata == 0u);
        const uint32_t full = 0x01020304u * (i + 1) ^ 0xa5000000u;
        CHECK(b.write(r, full).err == OK);
        CHECK(b.read(r).rdata == full);
        // a write of size s replaces the low s bytes and keeps the rest
        CHECK(b.write(r, 0xee, 1).err == OK);
        CHECK(b.read(r).rdata == ((full & 0xffffff00u) | 0xee));
        CHECK(b.write(r, 0x7d7e, 2).err == OK);
        CHECK(b.read(r).rdata == ((full & 0xffff0000u) | 0x7d7e));
        CHECK(b.write(r, 0x123456, 3).err == OK);
        CHECK(b.read(r).rdata == ((full & 0xff000000u) | 0x123456));
        writes += 4;
        // sizes outside 1..4 are refused and change nothing
        for (unsigned size : {0u, 5u, 6u, 7u}) {
            CHECK(b.write(r, 0xffffffffu, size).err == REFUSED);
            CHECK(b.read(r, size).err == REFUSED);
        }
        CHECK(b.read(r).rdata == ((full & 0xff000000u) | 0x123456));
    }
    // the registers are independent: each still holds its own value
    for (unsigned i = 0; i < cfg.nregs; ++i) {
        const uint32_t full = 0x01020304u * (i + 1) ^ 0xa5000000u;
        CHECK(b.read(b.a(uint16_t(REG_SCRATCH + i))).rdata == ((full & 0xff000000u) | 0x123456));
    }
    CHECK(b.read(b.a(REG_WCOUNT)).rdata == writes);
    // reset clears registers and the write counter
    b.reset();
    for (unsigned i = 0; i < cfg.nregs; ++i) CHECK(b.read(b.a(uint16_t(REG_SCRATCH + i))).rdata == 0u);
    CHECK(b.read(b.a(REG_WCOUNT)).rdata == 0u);
}

template <class V>
void missing_registers(Cfg cfg, const char* name) {
    Bench<V> b(name, cfg);
    std::vector<uint16_t> missing;
    for (uint16_t r = 0x003; r < REG_SCRATCH; ++r) missing.push_back(b.a(r));
    for (uint16_t r : {uint16_t(REG_SCRATCH + cfg.nregs), uint16_t(0x020), uint16_t(0x100), uint16_t(0x801),
                       uint16_t(0xfff)})
        if (r >= REG_SCRATCH + cfg.nregs) missing.push_back(b.a(r));
    // real offsets in every other window: a mis-routed request is seen
    for (unsigned w = 0; w < 16; ++w)
        if (w != cfg.window)
            for (uint16_t r : {REG_ID, REG_PE, REG_WCOUNT, REG_SCRATCH}) missing.push_back(uint16_t(w << 12 | r));
    for (uint16_t addr : missing) {
        INFO("addr 0x" << std::hex << addr);
        const Rsp rd = b.read(addr);
        CHECK(rd.err == NO_REG);
        CHECK(rd.rdata == 0u);
        CHECK(b.write(addr, 0x5555aaaa).err == NO_REG);
        CHECK(b.write(addr, 1, 0).err == NO_REG);  // "no such register" before a bad size
    }
    CHECK(b.read(b.a(REG_WCOUNT)).rdata == 0u);  // none of them was applied
    CHECK(b.read(b.a(REG_SCRATCH)).rdata == 0u);
}

// valid held high: a new request in every cycle the slave is ready.
template <class V>
void back_to_back(Cfg cfg, const char* name) {
    Bench<V> b(name, cfg);
    std::vector<Req> qs;
    for (unsigned i = 0; i < cfg.nregs; ++i) {
        const uint16_t r = b.a(uint16_t(REG_SCRATCH + i));
        qs.push_back({true, i, r, 0x11111111u * (i + 1), 4});
        qs.push_back({false, i, r, 0, 4});  // the next request sees the write
        qs.push_back({true, i, r, 0xab, 1});
        qs.push_back({false, i, r, 0, 2});
        qs.push_back({false, 63, b.a(REG_PE), 0, 1});
        qs.push_back({false, 0, uint16_t(b.a(REG_SCRATCH) ^ 0x1000), 0, 4});  // wrong window
        qs.push_back({true, 0, b.a(REG_ID), 7, 4});                              // refused
    }
    qs.push_back({false, 0, b.a(REG_WCOUNT), 0, 4});
    size_t i = 0;
    uint64_t start = b.h.cycle(), busy = 0;
    while (i < qs.size()) {
        if (b.cycle(&qs[i])) ++i;
        else ++busy;
    }
    while (!b.pending.empty()) b.cycle(nullptr);
    CHECK(b.responses == qs.size());
    // ready is low only for the GAP cycles after each request
    CHECK(busy == uint64_t(cfg.gap) * (qs.size() - 1));
    std::printf("[scratch] %s: %zu back-to-back requests in %llu cycles (LATENCY %u, GAP %u)\n", name,
                qs.size(), static_cast<unsigned long long>(b.h.cycle() - start), cfg.latency, cfg.gap);
    CHECK(b.model.wcount == 2 * cfg.nregs);
}

// Random requests with random gaps, biased towards the registers that exist.
template <class V>
void random_sequences(Cfg cfg, const char* name) {
    Bench<V> b(name, cfg);
    std::mt19937_64 rng(aggnet::sim::test_seed(name));
    const uint64_t n = uint64_t(200000 * aggnet::sim::cycles_scale());
    uint64_t counts[3] = {0, 0, 0};
    std::vector<Rsp> seen;
    for (uint64_t k = 0; k < n;) {
        if (rng() % 4 == 0) {  // an idle cycle now and then
            b.cycle(nullptr);
            continue;
        }
        Req q;
        q.we = rng() & 1;
        q.pe = unsigned(rng() % 64);
        q.size = (rng() % 16 == 0) ? unsigned(rng() % 8) : unsigned(1 + rng() % 4);
        q.wdata = uint32_t(rng());
        if (q.size < 4) q.wdata &= (1u << (8 * q.size)) - 1;  // the bus: zero above size
        unsigned win = (rng() % 8 == 0) ? unsigned(rng() % 16) : cfg.window;
        uint16_t r;
        switch (rng() % 8) {
        case 0: r = uint16_t(rng() % 3); break;                 // ID, PE, WCOUNT
        case 1: r = uint16_t(rng() % 0x1000); break;           // anywhere
        case 2: r = uint16_t(REG_SCRATCH + cfg.nregs + rng() % 4); break;  // just past the end
        default: r = uint16_t(REG_SCRATCH + rng() % cfg.nregs); break;
        }
        q.addr = uint16_t(win << 12 | r);
        // hold the request until taken; the model answers when it is taken
        while (!b.cycle(&q)) {
        }
        ++counts[b.pending.back().rsp.err];
        ++k;
        if (k % 1000 == 0) b.reset();  // reset with requests in flight: no stale responses after it
    }
    while (!b.pending.empty()) b.cycle(nullptr);
    std::printf("[scratch] %s: %llu random requests (%llu ok, %llu no register, %llu refused), %llu cycles\n",
                name, static_cast<unsigned long long>(n), static_cast<unsigned long long>(counts[OK]),
                static_cast<unsigned long long>(counts[NO_REG]), static_cast<unsigned long long>(counts[REFUSED]),
                static_cast<unsigned long long>(b.h.cycle()));
    CHECK(counts[OK] > n / 4);
    CHECK(counts[NO_REG] > n / 20);
    CHECK(counts[REFUSED] > n / 20);
}

}  // namespace

TEST_CASE("scratch: ID, PE and WCOUNT read, refuse writes", "[scratch]") {
    fixed_registers<Vscratch_regs>(DEFAULT_CFG, "scratch_fixed");
    fixed_registers<Vscratch_regs_l3g2>(L3G2_CFG, "scratch_fixed_l3g2");
}

TEST_CASE("scratch: every scratch register, every size; reset clears", "[scratch]") {
    scratch_registers<Vscratch_regs>(DEFAULT_CFG, "scratch_regs");
    scratch_registers<Vscratch_regs_l3g2>(L3G2_CFG, "scratch_regs_l3g2");
}

TEST_CASE("scratch: missing registers and other windows answer err 1", "[scratch]") {
    missing_registers<Vscratch_regs>(DEFAULT_CFG, "scratch_missing");
    missing_registers<Vscratch_regs_l3g2>(L3G2_CFG, "scratch_missing_l3g2");
}

TEST_CASE("scratch: back-to-back requests, one response each, in order", "[scratch]") {
    back_to_back<Vscratch_regs>(DEFAULT_CFG, "scratch_b2b");
    back_to_back<Vscratch_regs_l3g2>(L3G2_CFG, "scratch_b2b_l3g2");
}

TEST_CASE("scratch: random seeded request sequences against the model", "[scratch]") {
    random_sequences<Vscratch_regs>(DEFAULT_CFG, "scratch_random");
    random_sequences<Vscratch_regs_l3g2>(L3G2_CFG, "scratch_random_l3g2");
}
