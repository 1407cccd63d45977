// link_mux (rtl/link/link_mux.v, docs/link_mux.md) in front of one link_port:
// rtl/link/link_mux_port.v with S streams, one LinkClient per stream, the
// model register bus of tests/link_model.hpp behind.
//
// Each stream is modelled as a UART would present it: one received byte at
// most every `rx_cycles` cycles (40 is the fastest uart_rx takes, CLK_HZ =
// 4 * BAUD; 160 a stream at a quarter of that baud), and a tx that takes a
// byte once every `tx_cycles` cycles, or never while stalled.  Each stream has
// its own fault injector (tests/link_model.hpp) in each direction.
//
// Checked: every command of every client is checked as it completes
// (Workload::check) and at the end each PE's writes and CALL starts on the
// bus equal those its client issued, in order (exactly once); per-stream
// counters (FRAMES, BIND, OVERRUN, TXDROP, PARTIAL) and absent bits against what the
// bench sent; and the median READ/WRITE latency of the well-behaved streams
// under faults on the others stays within a bound of the clean run's (cycles
// of simulated time, printed; no wall clock).
#include "harness.hpp"
#include "link_model.hpp"
#include "link_util.hpp"
#include "seed.hpp"

#include <Vlink_mux_s8.h>
#include <Vlink_mux_s3_own.h>
#include <aggnet/link_client.hpp>
#include <aggnet/link_defs.hpp>
#include <aggnet/link_frame.hpp>
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

using namespace aggnet;
using namespace aggnet::link;
using namespace aggnet::test;
using aggnet::sim::Harness;
using aggnet::sim::test_seed;
using std::chrono::nanoseconds;

namespace {

// link_mux's counters, per stream (docs/link_mux.md)
enum { C_FRAMES = 0, C_BIND = 1, C_OVERRUN = 2, C_TXDROP = 3, C_PARTIAL = 4 };
// the Vlink_mux_s8 model's KEEPALIVE (rtl/link/manifest.json)
constexpr uint64_t KEEPALIVE = 20000;

template <class M>
struct MuxBench;

/// One stream: a UART-like byte pipe between one LinkClient and the mux.
template <class M>
struct Stream : LinkPipe {
    MuxBench<M>* b = nullptr;
    unsigned k = 0;
    Injector up, down;
    std::deque<uint8_t> rxq;         // host -> mux bytes
    std::vector<uint8_t> hostq;      // mux -> host bytes (after the injector)
    std::vector<uint8_t> raw;        // the frame coming out of the mux
    Decoder txdec;
    unsigned rx_cycles = 40, tx_cycles = 40;
    uint64_t rx_next = 0, tx_next = 0;
    bool tx_stalled = false;
    bool ferr_next = false;          // the next byte slot is a framing error instead
    bool obey_room = false;          // a FLAG only while s_rx_room[k] (a sender with CTS)
    uint64_t room_waits = 0;         // cycles a FLAG waited for s_rx_room
    uint8_t rx_last = 0;             // s_rx_data holds the last byte (as uart_rx's register)
    uint64_t tx_frames = 0;          // frames the mux sent on this stream

    Stream(uint64_t seed) : up(seed ^ 11), down(seed ^ 12) {}
    void send(const uint8_t* data, size_t n) override {
        std::vector<uint8_t> out;
        up.apply(std::vector<uint8_t>(data, data + n), out);
        rxq.insert(rxq.end(), out.begin(), out.end());
    }
    size_t recv(uint8_t* buf, size_t cap, nanoseconds until) override {
        while (hostq.empty() && now() < until) b->tick();
        const size_t n = std::min(cap, hostq.size());
        std::copy(hostq.begin(), hostq.begin() + long(n), buf);
        hostq.erase(hostq.begin(), hostq.begin() + long(n));
        return n;
    }
    nanoseconds now() override { return b->now(); }
    void deliver(LinkClient& c) {
        if (!hostq.empty()) {
            c.feed(hostq.data(), hostq.size());
            hostq.clear();
        }
    }
};

template <class T>
void set_field(T& field, uint64_t v) {
    field = static_cast<std::decay_t<T>>(v);
}

template <class M>
struct MuxBench {
    Harness<M> h;
    BusModel bus;
    std::vector<std::unique_ptr<Stream<M>>> s;
    unsigned n;

    MuxBench(const std::string& name, uint64_t seed, unsigned streams) : h(name), bus(seed ^ 1), n(streams) {
        for (unsigned k = 0; k < n; ++k) {
            s.emplace_back(new Stream<M>(seed ^ (uint64_t(k + 1) << 20)));
            s[k]->b = this;
            s[k]->k = k;
        }
        h->s_rx_valid = 0;
        h->s_rx_ferr = 0;
        h->s_tx_ready = 0;
        h->bus_req_ready = 0;
        h->bus_rsp_valid = 0;
        h.reset();
    }
    nanoseconds now() { return nanoseconds(h.cycle() * NS_PER_CYCLE); }
    /// Counter i of stream k, through link_mux's read port (a cycle of the
    /// clock: the counter comes one cycle after its address).
    unsigned count(unsigned k, unsigned i) {
        h->cnt_raddr = uint8_t((k << 3) | i);
        tick();
        return unsigned(h->cnt_rdata);
    }
    unsigned stat(unsigned i) { return unsigned((h->stats[i / 2] >> (16 * (i % 2))) & 0xffff); }
    bool absent(unsigned k) { return (h->absent >> k) & 1; }
    void tick() {
        const uint64_t cyc = h.cycle();
        uint64_t rxv = 0, rxd = 0, txr = 0, ferr = 0;
        for (unsigned k = 0; k < n; ++k) {
            Stream<M>& t = *s[k];
            if (t.ferr_next && cyc >= t.rx_next) {
                ferr |= uint64_t(1) << k;
                t.ferr_next = false;
                t.rx_next = cyc + t.rx_cycles;
            } else if (!t.rxq.empty() && cyc >= t.rx_next && t.obey_room && t.rxq.front() == link_defs::FLAG &&
                       !((uint64_t(h->s_rx_room) >> k) & 1)) {
                ++t.room_waits;
            } else if (!t.rxq.empty() && cyc >= t.rx_next) {
                rxv |= uint64_t(1) << k;
                t.rx_last = t.rxq.front();
                t.rxq.pop_front();
                t.rx_next = cyc + t.rx_cycles;
            }
            rxd |= uint64_t(t.rx_last) << (8 * k);
            if (!t.tx_stalled && cyc >= t.tx_next) txr |= uint64_t(1) << k;
        }
        set_field(h->s_rx_valid, rxv);
        set_field(h->s_rx_ferr, ferr);
        set_field(h->s_rx_data, rxd);
        set_field(h->s_tx_ready, txr);
        const uint64_t txv = uint64_t(h->s_tx_valid) & txr;
        const uint64_t txd = uint64_t(h->s_tx_data);
        bus.cycle = cyc;
        bus.before(h.dut());
        h.tick();
        for (unsigned k = 0; k < n; ++k) {
            if (!((txv >> k) & 1)) continue;
            Stream<M>& t = *s[k];
            const uint8_t x = uint8_t(txd >> (8 * k));
            t.tx_next = cyc + t.tx_cycles;
            if (x == link_defs::FLAG) t.raw.clear();
            t.raw.push_back(x);
            if (t.txdec.push(x)) {
                ++t.tx_frames;
                t.down.apply(t.raw, t.hostq);
            }
        }
    }
};

LinkConfig stream_cfg(unsigned rx_cycles) {
    LinkConfig c;
    c.resend_timeout = nanoseconds(100 * rx_cycles * NS_PER_CYCLE);
    c.max_attempts = 16;
    c.idle_timeout = nanoseconds(20 * rx_cycles * NS_PER_CYCLE);
    return c;
}

/// A client running the random workload on one stream.
struct Runner {
    std::unique_ptr<LinkClient> c;
    std::unique_ptr<Workload> w;
    std::vector<unsigned> pes;
    uint64_t limit = 0, started = 0;   // commands to start
    bool active = true;                // starts commands
    std::vector<uint64_t> t0 = std::vector<uint64_t>(64);
    std::vector<uint64_t> lat;         // cycles, READ and WRITE that completed ok
};

uint64_t median(std::vector<uint64_t> v) {
    if (v.empty()) return 0;
    std::nth_element(v.begin(), v.begin() + long(v.size() / 2), v.end());
    return v[v.size() / 2];
}

/// Step the runners once (start, check), then tick the bench.
template <class M>
void step(MuxBench<M>& b, std::vector<Runner>& rs) {
    for (unsigned k = 0; k < rs.size(); ++k) {
        Runner& r = rs[k];
        if (!r.c) continue;
        for (unsigned pe : r.pes) {
            if (r.c->done(pe)) {
                const LinkResult res = r.c->take(pe);
                r.w->check(pe, res);
                const uint8_t op = r.w->cur[pe].op;
                if (r.w->cur[pe].kind == Expect::plain && (op == link_defs::OP_READ || op == link_defs::OP_WRITE))
                    r.lat.push_back(b.h.cycle() - r.t0[pe]);
            }
            if (r.active && !r.c->busy(pe) && r.started < r.limit) {
                r.t0[pe] = b.h.cycle();
                r.w->start(*r.c, pe, b.now());
                ++r.started;
            }
        }
    }
    b.tick();
    for (unsigned k = 0; k < rs.size(); ++k) {
        if (!rs[k].c) continue;
        b.s[k]->deliver(*rs[k].c);
        if ((b.h.cycle() & 7) == 0) rs[k].c->poll();
    }
}

bool all_done(const std::vector<Runner>& rs) {
    for (const Runner& r : rs)
        if (r.c && r.active && r.w->done < r.limit) return false;
    return true;
}

/// Exactly once, in order, for every PE of every runner.
template <class M>
void check_exact(MuxBench<M>& b, const std::vector<Runner>& rs) {
    for (const Runner& r : rs) {
        if (!r.c) continue;
        for (unsigned pe : r.pes) {
            INFO("PE" << pe);
            REQUIRE(b.bus.wlog[pe] == r.w->writes[pe]);
            REQUIRE(b.bus.calllog[pe] == r.w->calls[pe]);
        }
    }
}

// The s8 model: streams 0..6 are header streams for PEs 0..6, stream 7 the
// USB stream, here speaking for PEs 7, 8, 9 (NPE = 10).
constexpr unsigned S8 = 8, USB = 7;
std::vector<unsigned> pes_of(unsigned k) { return k == USB ? std::vector<unsigned>{7, 8, 9} : std::vector<unsigned>{k}; }

Runner make_runner(MuxBench<Vlink_mux_s8>& b, unsigned k, uint64_t seed, uint64_t commands) {
    Runner r;
    r.pes = pes_of(k);
    r.c.reset(new LinkClient(*b.s[k], "sim:mux/" + std::to_string(k), stream_cfg(b.s[k]->rx_cycles)));
    r.w.reset(new Workload(seed ^ (k * 7919 + 5), r.pes, 0, 10, 10));
    r.limit = commands;
    return r;
}

/// Clean run: every stream busy at once; returns the median READ/WRITE
/// latency of streams 0 and 1.
uint64_t clean_run(uint64_t commands, bool print) {
    const uint64_t seed = test_seed("link_mux_clean");
    MuxBench<Vlink_mux_s8> b("link_mux_clean", seed, S8);
    b.s[USB]->rx_cycles = b.s[USB]->tx_cycles = 160;  // the USB stream at a quarter of the baud
    std::vector<Runner> rs;
    for (unsigned k = 0; k < S8; ++k) rs.push_back(make_runner(b, k, seed, commands));
    b.h.set_max_cycles(commands * 40000 + 200000);
    // a stream whose client is still busy is never absent (its gaps are
    // shorter than KEEPALIVE); one that has finished may become so
    std::vector<uint64_t> absent_busy(S8);
    while (!all_done(rs)) {
        step(b, rs);
        for (unsigned k = 0; k < S8; ++k)
            if (rs[k].w->done < rs[k].limit && b.h.cycle() > 2000 && b.absent(k)) ++absent_busy[k];
    }
    while (!b.s[0]->rxq.empty()) b.tick();
    for (unsigned k = 0; k < 2000; ++k) b.tick();
    check_exact(b, rs);
    std::vector<uint64_t> good;
    for (unsigned k = 0; k < S8; ++k) {
        INFO("stream " << k);
        // every frame each client sent reached link_port; nothing dropped
        CHECK(b.count(k, C_FRAMES) == rs[k].c->stats().frames_sent);
        CHECK(b.count(k, C_BIND) == 0u);
        CHECK(b.count(k, C_OVERRUN) == 0u);
        CHECK(b.count(k, C_TXDROP) == 0u);
        CHECK(b.count(k, C_PARTIAL) == 0u);
        CHECK(absent_busy[k] == 0u);
        if (print)
            std::printf("[link_mux] clean: stream %u: %llu commands, READ/WRITE median %llu cycles (%zu)\n", k,
                        (unsigned long long)rs[k].w->done, (unsigned long long)median(rs[k].lat), rs[k].lat.size());
        if (k < 2) good.insert(good.end(), rs[k].lat.begin(), rs[k].lat.end());
    }
    CHECK(b.stat(link_defs::STAT_CRC_ERR) == 0u);
    CHECK(b.stat(link_defs::STAT_OVERRUN) == 0u);
    CHECK(b.stat(link_defs::STAT_BAD_PE) == 0u);
    std::fflush(stdout);
    return median(good);
}

}  // namespace

TEST_CASE("link_mux: 8 streams at once, clean, exactly once", "[link][mux]") {
    clean_run(uint64_t(400 * sim::cycles_scale()), true);
}

// Streams 0 and 1 well behaved; 2 babbles; 3 sends frames for other PEs; 4
// goes silent, then comes back; 5 has 10% of frames damaged each way; 6 has
// its tx stalled for a while; 7 (USB, slow baud) well behaved for PEs 7..9.
TEST_CASE("link_mux: faulty streams cost the others nothing", "[link][mux]") {
    const uint64_t commands = uint64_t(400 * sim::cycles_scale());
    const uint64_t base = clean_run(commands, false);
    const uint64_t seed = test_seed("link_mux_faults");
    MuxBench<Vlink_mux_s8> b("link_mux_faults", seed, S8);
    std::mt19937_64 rng(seed ^ 99);
    b.s[USB]->rx_cycles = b.s[USB]->tx_cycles = 160;
    b.s[5]->up.rate = b.s[5]->down.rate = 0.10;
    std::vector<Runner> rs(S8);
    for (unsigned k : {0u, 1u, 4u, 5u, 6u, USB}) rs[k] = make_runner(b, k, seed, commands);
    rs[4].limit = commands / 4;  // then silent
    b.h.set_max_cycles(commands * 60000 + 400000);
    uint64_t impostor_frames = 0, babble_bytes = 0;
    uint8_t iseq = 0;
    bool stalled_once = false, rejoined = false;
    uint64_t silent_from = 0, stall_at = 0;
    // shorter than the client's give-up time (16 resends of 4000 cycles)
    constexpr uint64_t STALL = 40000;
    while (!all_done(rs) || !rejoined) {
        // stream 2 babbles: random bytes, FLAG and ESC often
        if (b.s[2]->rxq.empty()) {
            b.s[2]->rxq.push_back(spicy_byte(rng));
            ++babble_bytes;
        }
        // stream 3 sends good frames for PEs it does not own
        if (b.s[3]->rxq.empty() && rng() % 200 == 0) {
            const uint8_t pes[] = {0, 1, 5, 7, 9};
            const std::vector<uint8_t> f = encode(req(pes[rng() % 5], link_defs::OP_WRITE, iseq++, 0x1000, {0x66}));
            b.s[3]->rxq.insert(b.s[3]->rxq.end(), f.begin(), f.end());
            ++impostor_frames;
        }
        // stream 6's tx stalls once for STALL cycles, a third of the way in
        if (!stalled_once && rs[6].w->done >= commands / 3) {
            stalled_once = b.s[6]->tx_stalled = true;
            stall_at = b.h.cycle();
        }
        if (b.s[6]->tx_stalled && b.h.cycle() >= stall_at + STALL) b.s[6]->tx_stalled = false;
        // stream 4: silent after its commands; once absent, it comes back
        if (!rejoined && rs[4].w->done >= rs[4].limit && !rs[4].c->busy(4)) {
            if (!silent_from) silent_from = b.h.cycle();
            if (b.absent(4)) {
                CHECK(b.h.cycle() - silent_from >= KEEPALIVE - 2000);
                rejoined = true;
                rs[4].limit += commands / 4;  // and it carries on where it stopped
            }
        }
        step(b, rs);
    }
    for (unsigned k = 0; k < 2000; ++k) b.tick();
    check_exact(b, rs);
    for (unsigned k = 0; k < S8; ++k) {
        if (rs[k].c)
            std::printf("[link_mux] faults: stream %u: %llu commands, READ/WRITE median %llu cycles (clean run: "
                        "%llu); frames %u bind %u overrun %u txdrop %u; client resends %llu\n",
                        k, (unsigned long long)rs[k].w->done, (unsigned long long)median(rs[k].lat),
                        (unsigned long long)base, b.count(k, C_FRAMES), b.count(k, C_BIND), b.count(k, C_OVERRUN),
                        b.count(k, C_TXDROP), (unsigned long long)rs[k].c->stats().resends);
        else
            std::printf("[link_mux] faults: stream %u: frames %u bind %u overrun %u txdrop %u\n", k,
                        b.count(k, C_FRAMES), b.count(k, C_BIND), b.count(k, C_OVERRUN), b.count(k, C_TXDROP));
    }
    std::printf("[link_mux] faults: babble %llu bytes, impostor %llu frames; link_port: ok %u crc %u resync %u "
                "badlen %u bad_pe %u overrun %u\n",
                (unsigned long long)babble_bytes, (unsigned long long)impostor_frames, b.stat(link_defs::STAT_FRAMES_OK),
                b.stat(link_defs::STAT_CRC_ERR), b.stat(link_defs::STAT_RESYNC), b.stat(link_defs::STAT_BAD_LEN),
                b.stat(link_defs::STAT_BAD_PE), b.stat(link_defs::STAT_OVERRUN));
    std::fflush(stdout);
    // the well-behaved streams: nothing lost, nothing resent, latency bounded
    for (unsigned k : {0u, 1u, USB}) {
        INFO("stream " << k);
        CHECK(b.count(k, C_FRAMES) == rs[k].c->stats().frames_sent);
        CHECK(b.count(k, C_BIND) + b.count(k, C_OVERRUN) + b.count(k, C_TXDROP) == 0u);
    }
    std::vector<uint64_t> good = rs[0].lat;
    good.insert(good.end(), rs[1].lat.begin(), rs[1].lat.end());
    // a good frame waits at most for one frame of each other stream ahead of
    // it in link_port; the bound is generous and in simulated cycles
    CHECK(median(good) <= base + base / 8);
    // the impostor: every frame refused and counted, none forwarded
    CHECK(b.count(3, C_BIND) == impostor_frames);
    CHECK(b.count(3, C_FRAMES) == 0u);
    // the stalled stream lost replies (dropped, counted) and still finished
    CHECK(b.count(6, C_TXDROP) > 0u);
    CHECK(b.count(6, C_OVERRUN) == 0u);
    // the babbler: its frames are mostly for other PEs; it reaches link_port
    // only with frames for its own PE
    CHECK(b.count(2, C_BIND) > 0u);
    CHECK(!b.absent(2));
    CHECK(b.stat(link_defs::STAT_OVERRUN) == 0u);
}

// Stream 0 sends COPIES copies of one WRITE back to back, a byte every
// rx_cycles cycles, from cycle 3000, while streams 1..7 run their random
// workload; slow_bus: the bus answers slowly (up to 400 cycles a request)
// while the copies come.  The other streams are checked exact, as is every
// frame they sent and that none of theirs was refused, lost or dropped.
namespace {
constexpr unsigned COPIES = 30;
void flood_stream0(MuxBench<Vlink_mux_s8>& b, uint64_t seed, uint64_t commands, unsigned rx_cycles, bool slow_bus,
                   bool obey_room = false) {
    std::vector<Runner> rs(S8);
    for (unsigned k = 1; k < S8; ++k) rs[k] = make_runner(b, k, seed, commands);
    b.s[0]->rx_cycles = rx_cycles;
    b.s[0]->obey_room = obey_room;
    const std::vector<uint8_t> f = encode(req(0, link_defs::OP_WRITE, 1, 0x1003, {0x77}));
    b.h.set_max_cycles(commands * 40000 + 200000);
    bool flooded = false;
    while (!all_done(rs)) {
        if (!flooded && b.h.cycle() > 3000) {
            for (unsigned i = 0; i < COPIES; ++i) b.s[0]->rxq.insert(b.s[0]->rxq.end(), f.begin(), f.end());
            if (slow_bus) b.bus.max_delay = 400;
            flooded = true;
        }
        if (flooded && b.s[0]->rxq.empty()) b.bus.max_delay = 4;
        step(b, rs);
    }
    for (unsigned k = 0; k < 2000; ++k) b.tick();
    check_exact(b, rs);
    for (unsigned k = 1; k < S8; ++k) {
        INFO("stream " << k);
        CHECK(b.count(k, C_FRAMES) == rs[k].c->stats().frames_sent);
        CHECK(b.count(k, C_BIND) + b.count(k, C_OVERRUN) + b.count(k, C_TXDROP) == 0u);
    }
}
}  // namespace

// Stream 0 floods at the fastest rate link_mux takes a stream's bytes (a byte
// every S + 1 cycles) while the bus is slow, so faster than link_port takes
// frames.  Its FIFO overruns: each copy is either forwarded or dropped and
// counted; the write is applied once (the copies are duplicates); the other
// streams lose nothing.
TEST_CASE("link_mux: a flooding stream overruns only its own buffer", "[link][mux]") {
    const uint64_t seed = test_seed("link_mux_flood");
    MuxBench<Vlink_mux_s8> b("link_mux_flood", seed, S8);
    flood_stream0(b, seed, uint64_t(150 * sim::cycles_scale()), S8 + 1, true);
    std::printf("[link_mux] flood: stream 0: frames %u overrun %u txdrop %u of %u copies\n", b.count(0, C_FRAMES),
                b.count(0, C_OVERRUN), b.count(0, C_TXDROP), COPIES);
    std::fflush(stdout);
    CHECK(b.count(0, C_OVERRUN) > 0u);
    CHECK(b.count(0, C_FRAMES) + b.count(0, C_OVERRUN) == COPIES);
    REQUIRE(b.bus.wlog[0].size() == 1u);
    CHECK(b.bus.wlog[0][0] == std::pair<uint16_t, uint32_t>(0x1003, 0x77));
    CHECK(b.stat(link_defs::STAT_OVERRUN) == 0u);
}

// The same flood from a sender that starts a frame only while its stream's
// s_rx_room is high (a UART cable's CTS; how the virtual hub's channels
// feed aggnet-sim --mux): it waits instead of overrunning, so every copy is
// forwarded and nothing is lost.  Then, with every byte in and every reply
// out, the multiplexer says idle, and not while a frame waits.  Without the
// wait (obey_room false) the same flood overruns (the case above).
TEST_CASE("link_mux: a sender that waits for s_rx_room loses nothing; idle", "[link][mux]") {
    const uint64_t seed = test_seed("link_mux_room");
    MuxBench<Vlink_mux_s8> b("link_mux_room", seed, S8);
    flood_stream0(b, seed, uint64_t(150 * sim::cycles_scale()), S8 + 1, true, true);
    std::printf("[link_mux] room: stream 0: frames %u overrun %u of %u copies; %llu cycles waited for room\n",
                b.count(0, C_FRAMES), b.count(0, C_OVERRUN), COPIES,
                static_cast<unsigned long long>(b.s[0]->room_waits));
    std::fflush(stdout);
    CHECK(b.s[0]->room_waits > 0u);  // the FIFO did fill: room mattered
    CHECK(b.count(0, C_OVERRUN) == 0u);
    CHECK(b.count(0, C_FRAMES) == COPIES);
    REQUIRE(b.bus.wlog[0].size() == 1u);
    CHECK(b.stat(link_defs::STAT_OVERRUN) == 0u);
    for (unsigned k = 0; k < S8; ++k) CHECK(((b.h->s_rx_room >> k) & 1) == 1);
    CHECK(b.h->mux_idle == 1);
    // a frame in: not idle until it is forwarded, answered and the reply sent
    const std::vector<uint8_t> f = encode(req(0, link_defs::OP_READ, 2, 0x1003, {4}));
    b.s[0]->rxq.insert(b.s[0]->rxq.end(), f.begin(), f.end());
    const uint64_t before = b.s[0]->tx_frames;
    unsigned busy = 0;
    while (b.s[0]->tx_frames == before && busy < 100000) {
        b.tick();
        if (!b.h->mux_idle) ++busy;
        if (b.s[0]->rxq.empty() && b.s[0]->tx_frames == before) CHECK((b.h->mux_idle == 0 || b.h->idle == 0));
    }
    CHECK(b.s[0]->tx_frames == before + 1);
    CHECK(busy > 0u);
    for (unsigned k = 0; k < 200; ++k) b.tick();
    CHECK(b.h->mux_idle == 1);
}

// Stream 0 sends faster than its slot takes bytes (a byte every cycle; no
// UART does that, aggnet_mux_hub's baud check forbids it): bytes are lost
// while one is held, and each loss drops the frame it was part of and is
// counted (OVERRUN).  No frame with a byte missing reaches link_port (its CRC
// error count stays 0), the write is applied at most once and with its value,
// and the other streams lose nothing.  It fails if the holding flags forget a
// lost byte.
TEST_CASE("link_mux: bytes faster than the slot rate are dropped and counted", "[link][mux]") {
    const uint64_t seed = test_seed("link_mux_fast");
    MuxBench<Vlink_mux_s8> b("link_mux_fast", seed, S8);
    flood_stream0(b, seed, uint64_t(100 * sim::cycles_scale()), 1, false);
    std::printf("[link_mux] too fast: stream 0: frames %u overrun %u partial %u of %u copies\n", b.count(0, C_FRAMES),
                b.count(0, C_OVERRUN), b.count(0, C_PARTIAL), COPIES);
    std::fflush(stdout);
    CHECK(b.count(0, C_OVERRUN) > 0u);
    CHECK(b.count(0, C_FRAMES) < COPIES);
    CHECK(b.stat(link_defs::STAT_CRC_ERR) == 0u);
    REQUIRE(b.bus.wlog[0].size() <= 1u);
    if (!b.bus.wlog[0].empty()) CHECK(b.bus.wlog[0][0] == std::pair<uint16_t, uint32_t>(0x1003, 0x77));
}

// USB_ANY = 0 (the s3_own model: PE_BASE 8, streams 0 and 1 for PEs 8 and 9,
// the USB stream 2 for the others, link_port serving 8..11): the USB stream
// may not speak for a header stream's PE.  Also absent from reset until the
// first byte.
TEST_CASE("link_mux: USB_ANY = 0 binds the USB stream to the PEs no header owns", "[link][mux]") {
    const uint64_t seed = test_seed("link_mux_own");
    MuxBench<Vlink_mux_s3_own> b("link_mux_own", seed, 3);
    for (unsigned k = 0; k < 3; ++k) CHECK(b.absent(k));
    LinkClient usb(*b.s[2], "sim:own/usb", stream_cfg(40));
    LinkClient h1(*b.s[1], "sim:own/1", stream_cfg(40));
    b.h.set_max_cycles(2000000);
    usb.write(10, 0x1001, 0xa1, 1);
    usb.write(11, 0x1001, 0xb1, 1);
    h1.write(9, 0x1001, 0x91, 1);
    CHECK(usb.read(10, 0x1001, 1) == 0xa1u);
    CHECK(h1.read(9, 0x1001, 1) == 0x91u);
    CHECK(!b.absent(1));
    CHECK(!b.absent(2));
    CHECK(b.absent(0));
    // refused: the USB stream for PEs 8 and 9, stream 0 for PE 9
    auto push = [&](unsigned k, const Frame& f) {
        const std::vector<uint8_t> bytes = encode(f);
        b.s[k]->rxq.insert(b.s[k]->rxq.end(), bytes.begin(), bytes.end());
    };
    push(2, req(8, link_defs::OP_WRITE, 1, 0x1002, {1}));
    push(2, req(9, link_defs::OP_WRITE, 1, 0x1002, {2}));
    push(0, req(9, link_defs::OP_WRITE, 1, 0x1002, {3}));
    // an escaped pe byte is un-escaped before the check (7D 28 is PE 8)
    std::vector<uint8_t> esc = encode(req(8, link_defs::OP_WRITE, 1, 0x1002, {4}));
    esc[1] = link_defs::ESC;
    esc.insert(esc.begin() + 2, uint8_t(8 ^ link_defs::ESC_XOR));
    b.s[2]->rxq.insert(b.s[2]->rxq.end(), esc.begin(), esc.end());
    // allowed: the USB stream for a PE outside link_port's range (link_port drops it)
    push(2, req(12, link_defs::OP_WRITE, 1, 0x1002, {5}));
    for (unsigned k = 0; k < 3000; ++k) b.tick();
    CHECK(b.count(2, C_BIND) == 3u);
    CHECK(b.count(0, C_BIND) == 1u);
    CHECK(b.count(0, C_FRAMES) == 0u);
    CHECK(b.stat(link_defs::STAT_BAD_PE) == 1u);
    CHECK(b.bus.wlog[8].empty());
    CHECK(b.bus.wlog[9].size() == 1u);
    CHECK(b.bus.wlog[12].empty());
    // the header stream's own PE still works, and replies reach it
    CHECK(h1.read(9, 0x1001, 1) == 0x91u);
}

// A reply due to a stream that has gone absent is dropped and counted, and
// blocks nothing: stream 1 (PE 9) leaves a WAIT pending and falls silent; once
// it is absent the bench makes the WAIT hold (on the model bus), and the DATA
// that link_port then sends is dropped, while the USB stream carries on.
TEST_CASE("link_mux: a reply for an absent stream is dropped", "[link][mux]") {
    const uint64_t seed = test_seed("link_mux_absent");
    MuxBench<Vlink_mux_s3_own> b("link_mux_absent", seed, 3);
    LinkClient usb(*b.s[2], "sim:absent/usb", stream_cfg(40));
    b.h.set_max_cycles(2000000);
    auto push = [&](unsigned k, const Frame& f) {
        const std::vector<uint8_t> bytes = encode(f);
        b.s[k]->rxq.insert(b.s[k]->rxq.end(), bytes.begin(), bytes.end());
    };
    push(1, req(9, link_defs::OP_HELLO, 1, 0));
    push(1, req(9, link_defs::OP_WAIT, 2, 0x1005, {0xff, 0x5a}));  // 0x1005 reads 0: pending
    for (unsigned k = 0; k < 3000; ++k) b.tick();
    REQUIRE(b.s[1]->tx_frames == 2u);  // HELLO_R and the WAIT's ACK
    CHECK(!b.absent(1));
    while (!b.absent(1)) b.tick();
    const uint64_t frames = b.s[1]->tx_frames;
    b.bus.rw[{9, 0x1005}] = 0x5a;  // the WAIT holds now: link_port sends DATA
    for (unsigned k = 0; k < 2000; ++k) b.tick();
    CHECK(b.count(1, C_TXDROP) == 1u);
    CHECK(b.s[1]->tx_frames == frames);
    // the other streams are not held up
    usb.write(10, 0x1001, 0x33, 1);
    CHECK(usb.read(10, 0x1001, 1) == 0x33u);
    CHECK(b.count(2, C_TXDROP) == 0u);
}

// A UART framing error in the middle of a frame (uart_stream reports it
// instead of the byte it lost): the partial frame is dropped, the error is
// passed on to link_port's UART_FERR counter, and the next frame is taken.
TEST_CASE("link_mux: a framing error drops the stream's partial frame", "[link][mux]") {
    const uint64_t seed = test_seed("link_mux_ferr");
    MuxBench<Vlink_mux_s3_own> b("link_mux_ferr", seed, 3);
    b.h.set_max_cycles(200000);
    const std::vector<uint8_t> f = encode(req(9, link_defs::OP_WRITE, 1, 0x1001, {0x11}));
    const std::vector<uint8_t> g = encode(req(9, link_defs::OP_WRITE, 2, 0x1002, {0x22}));
    Stream<Vlink_mux_s3_own>& t = *b.s[1];
    t.rxq.insert(t.rxq.end(), f.begin(), f.begin() + 5);
    while (!t.rxq.empty()) b.tick();
    t.ferr_next = true;  // byte 5 is lost
    t.rxq.insert(t.rxq.end(), f.begin() + 6, f.end());
    t.rxq.insert(t.rxq.end(), g.begin(), g.end());
    for (unsigned k = 0; k < 3000; ++k) b.tick();
    CHECK(b.stat(link_defs::STAT_UART_FERR) == 1u);
    CHECK(b.count(1, C_FRAMES) == 1u);
    REQUIRE(b.bus.wlog[9].size() == 1u);
    CHECK(b.bus.wlog[9][0] == std::pair<uint16_t, uint32_t>(0x1002, 0x22));
    CHECK(b.stat(link_defs::STAT_CRC_ERR) == 0u);
    CHECK(t.tx_frames == 1u);  // g's ACK
}

// Partial frames dropped before link_port are counted (PARTIAL): one cut by
// a FLAG, one whose len byte exceeds 8; a repeated FLAG is not a partial
// frame (docs/link.md: two FLAGs in a row are harmless) and a framing error
// is link_port's UART_FERR, not PARTIAL.
TEST_CASE("link_mux: partial frames and len > 8 are counted", "[link][mux]") {
    const uint64_t seed = test_seed("link_mux_partial");
    MuxBench<Vlink_mux_s3_own> b("link_mux_partial", seed, 3);
    b.h.set_max_cycles(200000);
    const std::vector<uint8_t> f = encode(req(9, link_defs::OP_WRITE, 1, 0x1001, {0x11}));
    const std::vector<uint8_t> g = encode(req(9, link_defs::OP_WRITE, 2, 0x1002, {0x22}));
    std::vector<uint8_t> longf = encode(req(9, link_defs::OP_WRITE, 3, 0x1003, {0x33}));
    REQUIRE(longf[6] == 1u);  // len (unstuffed index 5, no escape before it)
    longf[6] = 9;
    Stream<Vlink_mux_s3_own>& t = *b.s[1];
    t.rxq.insert(t.rxq.end(), f.begin(), f.begin() + 5);  // cut by g's FLAG
    t.rxq.push_back(link_defs::FLAG);                      // a repeated FLAG: harmless
    t.rxq.insert(t.rxq.end(), g.begin(), g.end());
    t.rxq.insert(t.rxq.end(), longf.begin(), longf.end());  // len 9: dropped
    for (unsigned k = 0; k < 3000; ++k) b.tick();
    CHECK(b.count(1, C_PARTIAL) == 2u);
    CHECK(b.count(1, C_FRAMES) == 1u);
    CHECK(b.count(1, C_OVERRUN) == 0u);
    CHECK(b.count(0, C_PARTIAL) + b.count(2, C_PARTIAL) == 0u);
    REQUIRE(b.bus.wlog[9].size() == 1u);
    CHECK(b.bus.wlog[9][0] == std::pair<uint16_t, uint32_t>(0x1002, 0x22));
    CHECK(b.stat(link_defs::STAT_UART_FERR) == 0u);
}
