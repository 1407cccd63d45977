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
//     bounds the module header states (insert, scan = fill + 3).
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
        // ready may be low for a scan: at most DEPTH + 3 cycles, and one after a take
        h.tick_until([&] { return h->bus_req_ready != 0; }, depth + 6);
        const uint64_t at = h.cycle();
        h.tick();
        h->bus_req_valid = 0;
        return at;
    }
    Rsp response() {
        // registered: the request is applied in the first cycle after the take
        // in which no scan runs (a scan may start in the take's cycle) and
        // answered in the one after that: 2 .. DEPTH + 5 cycles after the take
        for (unsigned i = 0; !h->bus_rsp_valid; ++i) {
            REQUIRE(i <= depth + 4);
            REQUIRE(h->bus_rsp_err == 0);
            REQUIRE(h->bus_rsp_rdata == 0);
            h.tick();
        }
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

namespace {

/// Send and collect one message (the destination has room).
template <class V>
void put(Bus<V>& b, unsigned from, unsigned to, uint16_t type, uint32_t value) {
    REQUIRE(b.access(true, true, from, send_reg(to), send_operand(type, value), R::SEND_BYTES).err == S::PENDING);
    b.settle();
    const Rsp r = b.access(false, true, from, R::SEND);
    REQUIRE(r.err == S::OK);
    REQUIRE(r.len == 0);
}
/// One receive at pe, settled and collected: the RECV result.
template <class V>
Rsp take(Bus<V>& b, unsigned pe, bool any_src, unsigned src, bool any_type, uint16_t type, bool block = false) {
    REQUIRE(b.access(true, true, pe, recv_reg(any_src, src, any_type, block), type, R::RECV_BYTES).err == S::PENDING);
    b.settle();
    return b.access(false, true, pe, R::RECV);
}

}  // namespace

TEST_CASE("scalar_engine: screcv()'s walk, wildcards, the others stay in order (seed 003 ch. 6)", "[scalar_engine]") {
    // seed 003 chapter 6, screcv() steps 2-6: from the next message of the
    // buffer, step 5/6 compares the source unless it is -1, steps 2/3 the
    // type unless it is -1; the first message that passes is copied out.
    Bus<Vscalar_engine_n4> b("scalar_walk", 4, 64);
    put(b, 1, 0, 0, 10);
    put(b, 2, 0, 1, 20);
    put(b, 1, 0, 1, 30);
    put(b, 3, 0, 0, 40);
    CHECK(b.read(0, R::FILL) == 4);
    auto is = [](const Rsp& r, unsigned src, uint16_t type, uint32_t v) {
        return r.err == S::OK && r.len == 8 && S::result_what(r.data) == R::WHAT_MESSAGE &&
               S::result_msg(r.data) == Msg{src, type, v};
    };
    CHECK(is(take(b, 0, false, 1, false, 1), 1, 1, 30));  // source 1 and type 1: skips 10 and 20
    CHECK(is(take(b, 0, true, 0, false, 0), 1, 0, 10));   // any source, type 0: the oldest, 10
    CHECK(is(take(b, 0, false, 2, true, 0), 2, 1, 20));   // source 2, any type
    const Rsp none = take(b, 0, false, 1, true, 0);        // source 1: nothing left ("message not found")
    CHECK((none.err == S::OK && none.len == 8 && none.data == S::result(R::WHAT_NONE)));
    CHECK(is(take(b, 0, true, 0, true, 0), 3, 0, 40));    // any, any: the last one
    CHECK(b.read(0, R::FILL) == 0);
}

TEST_CASE("scalar_engine: a full buffer holds sends, never drops them, in order", "[scalar_engine]") {
    Bus<Vscalar_engine_n4> b("scalar_full", 4, 64);
    for (uint32_t i = 0; i < 64; ++i) put(b, 1, 0, 5, i);
    CHECK(b.read(0, R::FILL) == 64);
    // the 65th from PE1 and one from PE2: held
    REQUIRE(b.access(true, true, 1, send_reg(0), send_operand(5, 64), R::SEND_BYTES).err == S::PENDING);
    REQUIRE(b.access(true, true, 2, send_reg(0), send_operand(6, 1000), R::SEND_BYTES).err == S::PENDING);
    b.settle();
    b.h.ticks(500);
    CHECK(b.read(1, R::STATE) == R::ST_SEND);
    CHECK(b.read(2, R::STATE) == R::ST_SEND);
    CHECK(b.access(false, true, 1, R::SEND).err == S::PENDING);
    CHECK(b.read(0, R::FILL) == 64);
    // one receive makes room for one of them; a second for the other
    uint32_t next = 0;
    for (unsigned k = 0; k < 2; ++k) {
        const Rsp r = take(b, 0, false, 1, true, 0);
        CHECK(S::result_msg(r.data) == Msg{1, 5, next++});
        CHECK(b.read(0, R::FILL) == 64);
    }
    CHECK(b.read(1, R::STATE) == R::ST_SENT);
    CHECK(b.read(2, R::STATE) == R::ST_SENT);
    REQUIRE(b.access(false, true, 1, R::SEND).err == S::OK);  // PE1 collects its 65th send
    // PE1's messages in the order sent, the 65th last; PE2's once
    for (; next <= 64; ++next) CHECK(S::result_msg(take(b, 0, false, 1, true, 0).data) == Msg{1, 5, next});
    CHECK(S::result_msg(take(b, 0, true, 0, true, 0).data) == Msg{2, 6, 1000});
    CHECK(S::result_what(take(b, 0, true, 0, true, 0).data) == R::WHAT_NONE);
    // a held send withdrawn: CANCEL says so and the message never arrives
    for (uint32_t i = 0; i < 64; ++i) put(b, 3, 1, 0, i);
    REQUIRE(b.access(false, true, 2, R::SEND).err == S::OK);  // PE2 collects its earlier send
    REQUIRE(b.access(true, true, 2, send_reg(1), send_operand(0, 77), R::SEND_BYTES).err == S::PENDING);
    b.settle();
    const Rsp c = b.access(true, true, 2, R::CANCEL);
    CHECK((c.err == S::OK && c.len == 8 && c.data == S::result(R::WHAT_WITHDRAWN)));
    for (uint32_t i = 0; i < 64; ++i) CHECK(S::result_msg(take(b, 1, true, 0, true, 0).data) == Msg{3, 0, i});
    CHECK(S::result_what(take(b, 1, true, 0, true, 0).data) == R::WHAT_NONE);
}

TEST_CASE("scalar_engine: cycles as the header states them (insert, scan = fill + 3)", "[scalar_engine]") {
    Bus<Vscalar_engine_n4> b("scalar_cycles", 4, 64);
    // a send into a buffer with room: in it (busy low) at most N + 2 cycles after the take
    for (unsigned s = 0; s < 4; ++s) {
        b.offer(true, true, s, send_reg(3), send_operand(0, s), R::SEND_BYTES);
        const uint64_t c = 1 + b.settle();
        INFO("PE" << s << "'s send took " << c << " cycles");
        CHECK(c <= 4 + 2);
        b.h.tick();
        b.access(false, true, s, R::SEND);
    }
    for (unsigned s = 0; s < 4; ++s) take(b, 3, true, 0, true, 0);
    // a receive at fill f with no match: its answer at most N + f + 4 cycles after the take
    unsigned fill = 0;
    for (unsigned f : {0u, 1u, 2u, 10u, 33u, 64u}) {
        while (fill < f) put(b, 1, 2, 0, fill++);
        b.offer(true, true, 2, recv_reg(true, 0, false, false), 9, R::RECV_BYTES);
        const uint64_t c = 1 + b.settle();
        INFO("fill " << f << ": the scan took " << c << " cycles");
        CHECK(c <= 4 + f + 4);
        CHECK(c >= f + 3);  // one read per entry, its word registered, then the result stored
        b.h.tick();
        CHECK(S::result_what(b.access(false, true, 2, R::RECV).data) == R::WHAT_NONE);
    }
}

TEST_CASE("scalar_engine: back-to-back traffic, every message once, the oldest match that was surely there",
          "[scalar_engine]") {
    // No settling between accesses: receives start during scans and
    // inserts, sends pile up on full buffers (depth 4).  Checked without the
    // model: each message taken at most once, every message whose send was
    // answered taken once in the end, and a receive never passes over an
    // older matching message from a send answered before the receive began.
    const uint64_t seed = aggnet::sim::test_seed("scalar_back_to_back");
    const unsigned n = 5, depth = 4;
    Bus<Vscalar_engine_n5d4> b("scalar_back_to_back", n, depth);
    std::mt19937_64 rng(seed);
    struct Sent {
        unsigned src, dest;
        uint16_t type;
        uint64_t start, done;  // cycles; done = UINT64_MAX until answered
        bool taken = false;
    };
    std::map<uint32_t, Sent> msgs;  // by value (unique)
    struct PeOp {
        unsigned st = 0;  // 0 idle, 1 send, 2 recv
        uint32_t value = 0;
        S::Want want{};
        uint64_t start = 0;
    };
    std::vector<PeOp> ops(n);
    uint32_t next_value = 1;
    unsigned taken = 0, nones = 0, checks = 0;
    auto check_take = [&](unsigned d, const PeOp& o, const Rsp& r) {
        const unsigned what = S::result_what(r.data);
        uint32_t got = 0;
        if (what == R::WHAT_MESSAGE) {
            const Msg m = S::result_msg(r.data);
            got = m.value;
            auto it = msgs.find(m.value);
            REQUIRE(it != msgs.end());
            REQUIRE_FALSE(it->second.taken);  // exactly once
            REQUIRE(it->second.dest == d);
            REQUIRE(o.want.matches(m));
            REQUIRE((m.src == it->second.src && m.type == it->second.type));
            it->second.taken = true;
            ++taken;
        } else {
            ++nones;
        }
        // no older matching message that was surely there is passed over
        const uint64_t limit = what == R::WHAT_MESSAGE ? std::min(o.start, msgs[got].start) : o.start;
        for (auto& [v, s] : msgs) {
            if (s.dest != d || s.taken || s.done >= limit || v == got) continue;
            ++checks;
            INFO("PE" << d << " took value " << got << " over value " << v << " from PE" << s.src);
            REQUIRE_FALSE(o.want.matches(Msg{s.src, s.type, v}));
        }
    };
    const unsigned steps = 40000;
    for (unsigned k = 0; k < steps; ++k) {
        const unsigned pe = unsigned(rng() % n);
        PeOp& o = ops[pe];
        if (o.st == 0) {
            o.start = b.h.cycle();
            if (rng() % 2) {
                const unsigned dest = unsigned(rng() % n);
                const uint16_t type = uint16_t(rng() % 2);
                o.value = next_value++;
                msgs[o.value] = Sent{pe, dest, type, o.start, UINT64_MAX};
                REQUIRE(b.access(true, true, pe, send_reg(dest), send_operand(type, o.value), R::SEND_BYTES).err ==
                        S::PENDING);
                o.st = 1;
            } else {
                o.want = S::Want{bool(rng() % 2), bool(rng() % 2), unsigned(rng() % n), uint16_t(rng() % 2)};
                const bool block = rng() % 2;
                REQUIRE(b.access(true, true, pe, recv_reg(o.want.any_src, o.want.src, o.want.any_type, block),
                                 o.want.type, R::RECV_BYTES)
                            .err == S::PENDING);
                o.st = 2;
            }
            continue;
        }
        const bool cancel = rng() % 16 == 0;
        const Rsp r = b.access(cancel, true, pe, cancel ? R::CANCEL : R::SEND);
        if (r.err == S::PENDING) continue;
        REQUIRE(r.err == S::OK);
        const unsigned what = cancel ? S::result_what(r.data) : (o.st == 1 ? R::WHAT_SENT : S::result_what(r.data));
        if (o.st == 1) {
            if (what == R::WHAT_WITHDRAWN) msgs.erase(o.value);  // never sent
            else {
                REQUIRE(what == R::WHAT_SENT);
                msgs[o.value].done = b.h.cycle();
            }
        } else if (what != R::WHAT_WITHDRAWN) {
            check_take(pe, o, r);
        }
        o.st = 0;
    }
    // the end: finish every operation, then drain every buffer
    for (unsigned round = 0; round < 100; ++round) {
        b.settle();
        bool any = false;
        for (unsigned pe = 0; pe < n; ++pe) {
            PeOp& o = ops[pe];
            if (o.st == 2) {  // a pending receive may wait for ever: cancel it (it may hand over a message)
                const Rsp r = b.access(true, true, pe, R::CANCEL);
                if (S::result_what(r.data) == R::WHAT_MESSAGE) check_take(pe, o, r);
                o.st = 0;
            } else if (o.st == 1) {
                // a send held for a full buffer: when every PE holds one, nobody can
                // receive (one operation per PE), as a host's timeout would, cancel it
                const Rsp r = b.access(true, true, pe, R::CANCEL);
                if (S::result_what(r.data) == R::WHAT_SENT) msgs[o.value].done = b.h.cycle();
                else msgs.erase(o.value);
                o.st = 0;
                any = true;
            }
            if (o.st != 0) continue;
            o.start = b.h.cycle();
            o.want = S::Want{};
            const Rsp r = take(b, pe, true, 0, true, 0);
            if (S::result_what(r.data) == R::WHAT_MESSAGE) check_take(pe, o, r), any = true;
        }
        if (!any) break;
    }
    for (unsigned pe = 0; pe < n; ++pe) {
        INFO("PE" << pe << " op " << ops[pe].st);
        CHECK(b.read(pe, R::FILL) == 0);
        CHECK(b.read(pe, R::STATE) == R::ST_IDLE);
    }
    for (auto& [v, s] : msgs) {
        INFO("value " << v << " from PE" << s.src << " to PE" << s.dest << " done " << s.done);
        CHECK(s.taken);
    }
    std::fprintf(stderr, "[scalar] back to back: %u messages taken, %u empty receives, %u passed-over checks, %llu "
                         "cycles\n",
                 taken, nones, checks, (unsigned long long)b.h.cycle());
    CHECK(taken > 1000);
    CHECK(checks > 1000);
}
