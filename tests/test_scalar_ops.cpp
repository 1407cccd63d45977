// libaggnet's scalar API (aggnet/scalar.hpp) over the link, on the
// Verilated aggnet_hub of the hub family at N = 4, which carries the scalar
// engine (rtl/scalar/manifest.json's hub_models; sim/link_hub.hpp: every PE
// thread has its own LinkClient on the hub's one byte stream), with and
// without damaged frames (LinkHub::Faults):
//   * random traffic among the PEs with wildcard receives (seed 003 chapter
//     6, screcv(): source and type, each possibly -1 = Any): every message
//     received exactly once, and each one the oldest of those from its
//     sender that match the receive (so messages of one pair that a receive
//     could take come in the order they were sent); also on the virtual hub
//     (aggnet-sim --engines scalar, a process with a socket per PE) with its
//     fault injector on (drops, bit flips, bursts, duplicates, reordering,
//     garbage: the link's resend and duplicate rules must keep every message
//     exactly once);
//   * the full buffer (aggnet's rule, docs/scalar.md): the 65th send is held
//     in the hub, times out naming the full buffer and is withdrawn, or goes
//     in once the receiver makes room -- never dropped;
//   * bad input with its cause: no such destination or source, a reserved
//     address bit, operand bytes, an operation left pending (BUSY);
//   * timeouts that say what they waited for; one request and one reply
//     frame per send and per receive.
#include "hub_rtl.hpp"
#include "link_hub.hpp"
#include "pe_check.hpp"
#include "pe_threads.hpp"
#include "seed.hpp"
#include "vhub_process.hpp"

#include <aggnet/error.hpp>
#include <aggnet/link_defs.hpp>
#include <aggnet/scalar.hpp>
#include <aggnet/socket_pipe.hpp>
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <vector>

using namespace aggnet;
using aggnet::sim::LinkHub;
using std::chrono::milliseconds;
namespace Sc = aggnet::scalar;
namespace R = aggnet::scalar_regs;

namespace {

constexpr unsigned N = 4;

struct Bench {
    LinkHub hub;
    explicit Bench(const std::string& name, LinkHub::Faults f = {}) : hub(N, name, 20, 400'000'000, f) {}
    link::LinkConfig cfg() const { return LinkHub::client_config(N); }
    void run(const std::function<void(unsigned, Sc::Port&, link::LinkClient&)>& fn, uint64_t pes = ~uint64_t(0),
             milliseconds timeout = milliseconds(5000)) {
        sim::on_pe_threads(N, [&](unsigned pe) {
            if (!(pes >> pe & 1)) return;
            link::LinkClient c(hub.endpoint(pe), "linkhub:pe" + std::to_string(pe), cfg());
            Sc::Port p(c, pe, timeout);
            fn(pe, p, c);
        });
        // one client per PE: no port spoke for another PE
        CHECK(hub.foreign_frames() == 0);
    }
};

/// A planned message: value = source << 24 | its number among the source's messages.
struct Planned {
    unsigned src, dest, seq;
    uint16_t type;
    uint32_t value() const { return src << 24 | seq; }
};

/// One receive as PE dest made it: what it asked for and what it got.
struct Took {
    int src, type;
    Sc::Message m;
};

/// Runs fn(pe, port) on every PE's own thread, each with its own client.
using PeRunner = std::function<void(const std::function<void(unsigned, Sc::Port&)>&)>;

/// The random traffic below on the Verilated hub in this process.
void random_traffic(const char* name, unsigned per_pe, LinkHub::Faults faults);
void random_traffic_on(const char* name, unsigned per_pe, const PeRunner& run);

void random_traffic(const char* name, unsigned per_pe, LinkHub::Faults faults) {
    Bench b(name, faults);
    random_traffic_on(name, per_pe, [&](const std::function<void(unsigned, Sc::Port&)>& fn) {
        b.run([&](unsigned pe, Sc::Port& port, link::LinkClient&) { fn(pe, port); });
    });
    std::fprintf(stderr, "[scalar] %s: %llu frames damaged on the wire\n", name,
                 (unsigned long long)b.hub.damaged());
    if (faults.percent) CHECK(b.hub.damaged() > 0);
}

void random_traffic_on(const char* name, unsigned per_pe, const PeRunner& run) {
    const uint64_t seed = sim::test_seed(name);
    // the plan every thread knows: per source, its messages in order
    std::mt19937_64 rng(seed);
    std::vector<std::vector<Planned>> plan(N);
    for (unsigned s = 0; s < N; ++s)
        for (unsigned i = 0; i < per_pe; ++i) plan[s].push_back({s, unsigned(rng() % N), i, uint16_t(rng() % 3)});
    std::vector<std::vector<Took>> took(N);
    std::vector<std::atomic<unsigned>> sent(N);  // per source, its messages sent so far
    for (auto& x : sent) x = 0;
    run([&](unsigned pe, Sc::Port& port) {
        PE_CHECK(port.pes() == N && port.depth() == 64);
        std::mt19937_64 r(seed * 31 + pe);
        // what this PE will receive (from everyone's plan), not yet taken
        std::vector<Planned> expect;
        for (unsigned s = 0; s < N; ++s)
            for (const auto& p : plan[s])
                if (p.dest == pe) expect.push_back(p);
        size_t next_send = 0;
        while (next_send < plan[pe].size() || !expect.empty()) {
            const bool do_send = next_send < plan[pe].size() && (expect.empty() || r() % 2);
            if (do_send) {
                const Planned& p = plan[pe][next_send++];
                port.send(p.dest, p.type, p.value());
                sent[pe] = unsigned(next_send);
                continue;
            }
            // a receive: pick one expected message and ask for its source, its
            // type, both or neither; blocking only if it has been sent (a
            // blocking receive of a message its sender sends only after its
            // own receive of ours would wait for ever)
            std::vector<const Planned*> out;
            for (const auto& x : expect)
                if (x.seq < sent[x.src].load()) out.push_back(&x);
            const Planned& e = out.empty() ? expect[r() % expect.size()] : *out[r() % out.size()];
            const unsigned how = unsigned(r() % 4);
            const int src = how & 1 ? int(e.src) : Sc::Any, type = how & 2 ? int(e.type) : Sc::Any;
            Sc::Message m;
            if (out.empty() || r() % 4 == 0) {  // the seed's non-blocking screcv()
                auto t = port.try_recv(src, type);
                if (!t) continue;
                m = *t;
            } else {
                m = port.recv(src, type);
            }
            took[pe].push_back({src, type, m});
            auto it = std::find_if(expect.begin(), expect.end(), [&](const Planned& x) {
                return x.src == m.source && x.value() == m.value && x.type == m.type;
            });
            PE_CHECK_MSG(it != expect.end(), "PE" << pe << " got a message it did not expect or got twice: value 0x"
                                                  << std::hex << m.value << std::dec << " from PE" << m.source);
            expect.erase(it);
        }
    });
    // exactly once: nothing is left in any buffer (a send applied twice
    // would leave its copy behind: every PE's loop ends once it has taken
    // what was planned for it, and every send had returned by then)
    run([&](unsigned pe, Sc::Port& port) {
        const auto left = port.try_recv();
        PE_CHECK_MSG(!left, "PE" << pe << "'s buffer still holds value 0x" << std::hex << (left ? left->value : 0)
                                 << std::dec << " from PE" << (left ? left->source : 0));
    });
    // and everything planned was taken, each once (checked as taken)
    size_t total = 0;
    for (unsigned d = 0; d < N; ++d) total += took[d].size();
    CHECK(total == N * per_pe);
    // the oldest match (screcv() walks from the first message): when PE d took
    // m from s, every earlier message of s to d that the receive matches had
    // already been taken (it was in d's buffer before m was)
    unsigned checked = 0, ordered_pairs = 0;
    for (unsigned d = 0; d < N; ++d) {
        std::vector<std::vector<unsigned>> seen(N);  // per source, the seqs taken so far
        for (const Took& t : took[d]) {
            const unsigned s = t.m.source, q = t.m.value & 0xffffff;
            for (const auto& p : plan[s]) {
                if (p.dest != d || p.seq >= q) continue;
                if ((t.src != Sc::Any && unsigned(t.src) != s) || (t.type != Sc::Any && t.type != p.type)) continue;
                INFO("PE" << d << " took message " << q << " of PE" << s << " asking for source " << t.src << " type "
                          << t.type << " while PE" << s << "'s older matching message " << p.seq << " was waiting");
                CHECK(std::count(seen[s].begin(), seen[s].end(), p.seq) == 1);
                ++checked;
            }
            seen[s].push_back(q);
        }
        // messages of one pair taken by receives of any type come in order
        for (unsigned s = 0; s < N; ++s) {
            std::vector<unsigned> any_type;
            for (const Took& t : took[d])
                if (t.m.source == s && t.type == Sc::Any) any_type.push_back(t.m.value & 0xffffff);
            CHECK(std::is_sorted(any_type.begin(), any_type.end()));
            ordered_pairs += any_type.size() > 1;
        }
    }
    std::fprintf(stderr, "[scalar] %s: %zu messages, %u older-match checks, %u pairs in order\n", name, total,
                 checked, ordered_pairs);
    CHECK(checked > total);
}

template <class F>
unsigned cause_of(F&& f) {
    try {
        f();
    } catch (const Sc::ScalarError& e) {
        return e.cause;
    }
    return 0;
}

}  // namespace

TEST_CASE("scalar: random traffic with wildcards, every message once, the oldest match first", "[scalar][link]") {
    random_traffic("scalar_ops_traffic", 40, {});
}

TEST_CASE("scalar: damaged frames, every message once, the oldest match first", "[scalar][link][faults]") {
    random_traffic("scalar_ops_faults", 24, LinkHub::Faults{5, sim::test_seed("scalar_ops_faults_wire")});
}

TEST_CASE("scalar: on the virtual hub with its fault injector, every message once, the oldest match first",
          "[scalar][vhub][faults]") {
    // aggnet-sim as a process, a socket per PE, 10 % of the frames both ways
    // damaged by its injector (its seed from this test's)
    const uint64_t fseed = sim::test_seed("scalar_vhub_injector");
    test::SimProcess hub(N, {"--engines", "scalar", "--faults", "10", "--fault-seed", std::to_string(fseed % 1000000)});
    std::atomic<uint64_t> resends{0};
    random_traffic_on("scalar_vhub_traffic", 24, [&](const std::function<void(unsigned, Sc::Port&)>& fn) {
        sim::on_pe_threads(N, [&](unsigned pe) {
            link::SocketPipe pipe(hub.dir() + "/pe" + std::to_string(pe), hub.dev(pe), std::chrono::seconds(5));
            link::LinkClient c(pipe, hub.dev(pe), link::SocketPipe::sim_link_config());
            Sc::Port port(c, pe, std::chrono::seconds(20));
            fn(pe, port);
            resends += c.stats().resends;
        });
    });
    std::fprintf(stderr, "[scalar] scalar_vhub_traffic: %llu resends\n", (unsigned long long)resends.load());
    CHECK(resends > 0);  // the injector did damage frames, and the link recovered them
}

TEST_CASE("scalar: one request and one reply frame per send and per receive", "[scalar][link]") {
    Bench b("scalar_ops_frames");
    b.run([&](unsigned pe, Sc::Port& port, link::LinkClient& c) {
        if (pe != 0) return;
        const auto f0 = c.stats().frames_sent, r0 = c.stats().replies;
        for (unsigned i = 0; i < 10; ++i) {
            port.send(0, 9, i);
            const auto m = port.recv(0, 9);
            PE_CHECK(m.value == i && m.source == 0 && m.type == 9);
        }
        PE_CHECK_MSG(c.stats().frames_sent - f0 == 20, "frames sent " << c.stats().frames_sent - f0);
        PE_CHECK_MSG(c.stats().replies - r0 == 20, "replies " << c.stats().replies - r0);
    }, 1);
}

TEST_CASE("scalar: a full buffer holds the 65th send until the receiver makes room", "[scalar][link]") {
    Bench b("scalar_ops_full");
    std::atomic<int> phase{0};
    b.run([&](unsigned pe, Sc::Port& port, link::LinkClient&) {
        if (pe == 1) {
            struct Abort {  // PE0 must not wait for a phase a failed PE1 never reaches
                std::atomic<int>& phase;
                ~Abort() {
                    if (phase.load() < 2) phase = -1;
                }
            } abort{phase};
            for (uint32_t i = 0; i < 64; ++i) port.send(0, 5, i);
            // the 65th: held, and withdrawn when its timeout passes
            port.set_timeout(milliseconds(3));
            try {
                port.send(0, 5, 999);
                PE_FAIL("the send to a full buffer returned");
            } catch (const TimeoutError& e) {
                const std::string w = e.what();
                PE_CHECK_MSG(w.find("room in PE0's receive buffer") != std::string::npos, w);
                PE_CHECK_MSG(w.find("withdrawn, not sent") != std::string::npos, w);
            }
            phase = 1;
            // again, long enough for PE0 to make room
            port.set_timeout(milliseconds(5000));
            port.send(0, 5, 64);
            phase = 2;
        } else if (pe == 0) {
            while (phase.load() == 0) port.fill();  // each read lets the hub's time run
            if (phase.load() < 0) return;            // PE1 failed (reported on its thread)
            PE_CHECK(port.fill() == 64);  // the withdrawn 65th never went in
            for (unsigned k = 0; k < 200 && phase.load() < 2; ++k) PE_CHECK(port.fill() == 64);
            PE_CHECK(phase.load() == 1);  // held while full
            // every message in the order sent, the 65th last, none twice
            for (uint32_t i = 0; i <= 64; ++i) {
                const auto m = port.recv(1, 5);
                PE_CHECK_MSG(m.value == i, "message " << i << " is " << m.value);
            }
            PE_CHECK(!port.try_recv());
        }
    }, 0b11);
}

TEST_CASE("scalar: bad input is refused with its cause", "[scalar][link]") {
    Bench b("scalar_ops_bad");
    b.run([&](unsigned pe, Sc::Port& port, link::LinkClient& c) {
        if (pe != 2) return;
        // destinations the hub does not have (N = 4); 64 does not fit the address
        for (unsigned d : {4u, 17u, 63u, 64u}) PE_CHECK_MSG(cause_of([&] { port.send(d, 0, 1); }) == R::CAUSE_DEST, d);
        try {
            port.send(5, 3, 1);
        } catch (const Sc::ScalarError& e) {
            PE_CHECK_MSG(std::string(e.what()).find("send to PE5 (type 3) refused: DEST") != std::string::npos, e.what());
        }
        PE_CHECK(cause_of([&] { port.recv(4, 0); }) == R::CAUSE_SOURCE);
        PE_CHECK(cause_of([&] { port.try_recv(-2); }) == R::CAUSE_SOURCE);
        bool threw = false;
        try {
            port.recv(Sc::Any, 65536);
        } catch (const std::invalid_argument&) {
            threw = true;
        }
        PE_CHECK(threw);
        // reserved address bits: no such register
        for (uint16_t reg : {uint16_t(R::SEND | 0x040), uint16_t(R::SEND | 0x200), uint16_t(R::RECV | 0x200),
                             uint16_t(0x7ff)}) {
            uint8_t code = 0;
            try {
                c.call(pe, R::addr(reg), 0, R::SEND_BYTES, milliseconds(100));
            } catch (const RegisterError& e) {
                code = e.code;
            }
            PE_CHECK_MSG(code == link_defs::ERR_NO_REG, "reg 0x" << std::hex << reg);
        }
        // operand bytes: refused LEN
        uint8_t code = 0;
        try {
            c.call(pe, R::addr(uint16_t(R::SEND | 1)), 7, 2, milliseconds(100));
        } catch (const RegisterError& e) {
            code = e.code;
        }
        PE_CHECK(code == link_defs::ERR_REFUSED);
        PE_CHECK(c.read(pe, R::addr(R::CAUSE), 4) == R::CAUSE_LEN);
        // the read-only registers refuse writes
        code = 0;
        try {
            c.write(pe, R::addr(R::FILL), 1, 4);
        } catch (const RegisterError& e) {
            code = e.code;
        }
        PE_CHECK(code == link_defs::ERR_REFUSED);
        // an operation left pending by a raw CALL that timed out: BUSY until cancelled
        try {
            c.call(pe, R::addr(uint16_t(R::RECV | 1u << R::CA_RECV_BLOCK | 1u << R::CA_RECV_ANYSRC | 1u << R::CA_RECV_ANYTYPE)),
                   0, R::RECV_BYTES, milliseconds(1));
            PE_FAIL("a blocking receive on an empty buffer returned");
        } catch (const TimeoutError&) {
        }
        PE_CHECK(c.read(pe, R::addr(R::STATE), 4) == R::ST_RECV);
        PE_CHECK(cause_of([&] { port.send(0, 0, 0); }) == R::CAUSE_BUSY);
        PE_CHECK((port.cancel() >> R::RES_WHAT & 7) == R::WHAT_WITHDRAWN);
        port.send(2, 0, 77);  // to itself
        PE_CHECK(port.recv().value == 77);
    }, 0b100);
}

TEST_CASE("scalar: a receive's timeout says what it waited for and withdraws it", "[scalar][link]") {
    Bench b("scalar_ops_timeout");
    b.run([&](unsigned pe, Sc::Port& port, link::LinkClient& c) {
        if (pe != 3) return;
        port.send(3, 1, 11);  // one message that does not match
        port.set_timeout(milliseconds(3));
        try {
            port.recv(2, 7);
            PE_FAIL("a receive with nothing to match returned");
        } catch (const TimeoutError& e) {
            const std::string w = e.what();
            PE_CHECK_MSG(w.find("receive from PE2 of type 7: no such message within 3 ms") != std::string::npos, w);
            PE_CHECK_MSG(w.find("(1 others in this PE's buffer)") != std::string::npos, w);
            PE_CHECK(e.never_arrived == (uint64_t(1) << 2));
        }
        PE_CHECK(c.read(pe, R::addr(R::STATE), 4) == R::ST_IDLE);  // withdrawn in the hub
        PE_CHECK(!port.try_recv(Sc::Any, 7));
        const auto m = port.recv(Sc::Any, 1);  // the non-matching one stayed
        PE_CHECK(m.value == 11 && m.source == 3);
    }, 0b1000);
}
