// libaggnet's COP API (aggnet/cop.hpp) over the link, on the Verilated
// aggnet_hub of the hub_cop family (PAPERS + COP, rtl/cop/manifest.json's
// hub_models; sim/link_hub.hpp: every PE thread has its own LinkClient on the
// hub's one byte stream).  Every PE draws every PE's contribution from the
// round's seed, so each PE checks its result against plain arithmetic over
// the values all PEs contributed (docs/cop.md: SUMI wraps, MAXI/MINI are
// signed, a 32-bit operand is the 64-bit function's low word), computed
// independently of the hub.  Also: barrier order, broadcast and receive,
// fetch-and-add tickets (unique and dense: every CALL applied exactly once,
// with and without damaged frames), prefix sums, the lock, supervisor against
// user, bad input with its cause (docs/cop_regmap.md "Causes"), and a PE
// that never arrives named by the others' timeouts.
#include "cause_names.hpp"
#include "fp_ref.hpp"
#include "hub_rtl.hpp"
#include "link_hub.hpp"
#include "pe_check.hpp"
#include "pe_threads.hpp"
#include "seed.hpp"

#include <aggnet/cop.hpp>
#include <aggnet/error.hpp>
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <functional>
#include <mutex>
#include <random>
#include <memory>
#include <set>
#include <vector>

namespace aggnet::sim {
// the hub_cop family's factory (sim/rtl_factory.cpp.in)
std::unique_ptr<HubModel> make_hub_cop_rtl(unsigned n, const std::string& name, uint64_t max_cycles);
}  // namespace aggnet::sim

using namespace aggnet;
using aggnet::sim::LinkHub;
using std::chrono::milliseconds;
namespace C = aggnet::cop;

namespace {

/// A hub_cop model over the link, its PEs' channels on threads.
struct Bench {
    unsigned n;
    LinkHub hub;
    Bench(unsigned n_, const std::string& name, LinkHub::Faults f = {})
        : n(n_), hub(sim::make_hub_cop_rtl(n_, name, 400'000'000), 20, f) {}
    link::LinkConfig cfg() const { return LinkHub::client_config(n); }
    /// fn(pe, channel) on every PE in `pes` (default all), each on its thread with its own client.
    void run(const std::function<void(unsigned, C::Channel&)>& fn, uint64_t pes = ~uint64_t(0),
             milliseconds timeout = milliseconds(5000)) {
        sim::on_pe_threads(n, [&](unsigned pe) {
            if (!(pes >> pe & 1)) return;
            link::LinkClient c(hub.endpoint(pe), "linkhub:pe" + std::to_string(pe), cfg());
            C::Channel ch(c, pe, timeout);
            fn(pe, ch);
        });
    }
    /// One thread on PE `pe`'s channel.
    void one(unsigned pe, const std::function<void(C::Channel&)>& fn, milliseconds timeout = milliseconds(5000)) {
        link::LinkClient c(hub.endpoint(pe), "linkhub:pe" + std::to_string(pe), cfg());
        C::Channel ch(c, pe, timeout);
        fn(ch);
    }
    /// The supervisor (on PE0's channel, process 0) sets key `mask`'s TC vector and broadcast mask.
    void setup(uint64_t tc, uint64_t bm, unsigned mask = 0) {
        one(0, [&](C::Channel& ch) {
            C::Supervisor s(ch);
            s.set_tc(mask, tc);
            s.set_bm(mask, bm);
        });
    }
};

/// The reference: op over every contribution, in `bits` bits, as plain arithmetic.
uint64_t reference(C::Op op, const std::vector<int64_t>& v, unsigned bits) {
    uint64_t acc = uint64_t(v[0]);
    for (size_t i = 1; i < v.size(); ++i) {
        const uint64_t x = uint64_t(v[i]);
        switch (op) {
        case C::Op::Sum: acc += x; break;
        case C::Op::Max: acc = uint64_t(std::max(int64_t(acc), int64_t(x))); break;
        case C::Op::Min: acc = uint64_t(std::min(int64_t(acc), int64_t(x))); break;
        case C::Op::Or: acc |= x; break;
        case C::Op::And: acc &= x; break;
        case C::Op::Xor: acc ^= x; break;
        }
    }
    return bits == 32 ? (acc & 0xffffffffu) : acc;
}

const char* op_text(C::Op op) {
    static const char* t[] = {"Sum", "Max", "Min", "Or", "And", "Xor"};
    return t[unsigned(op)];
}

/// Every PE's contribution to round r: the same on every thread.
std::vector<int64_t> contributions(uint64_t seed, unsigned r, unsigned n, unsigned bits) {
    std::mt19937_64 rng(seed * 1000003u + r);
    std::vector<int64_t> v(n);
    for (auto& x : v) {
        const unsigned shape = unsigned(rng() % 4);
        uint64_t u = rng();
        if (shape == 0) u %= 16;                // small
        if (shape == 1) u = ~uint64_t(0) - u % 16;  // small negative
        x = bits == 32 ? int64_t(int32_t(uint32_t(u))) : int64_t(u);
    }
    return v;
}

template <class F>
unsigned cause_of(F&& f) {
    try {
        f();
    } catch (const C::CopError& e) {
        return e.cause;
    }
    return 0;
}

}  // namespace

TEST_CASE("cop: every integer reduction and prefix sum against plain arithmetic", "[cop][link]") {
    const uint64_t seed = sim::test_seed("cop_ops_int");
    for (unsigned n : {4u, 16u}) {
        Bench b(n, "cop_ops_int_n" + std::to_string(n));
        b.setup(C::all_pes(n), C::all_pes(n));
        const unsigned rounds = n == 4 ? 6 : 2;
        std::atomic<uint64_t> checks{0};
        b.run([&](unsigned pe, C::Channel& ch) {
            PE_CHECK(ch.channels() == n);
            unsigned r = 0;
            for (unsigned k = 0; k < rounds; ++k)
                for (C::Op op : {C::Op::Sum, C::Op::Max, C::Op::Min, C::Op::Or, C::Op::And, C::Op::Xor})
                    for (unsigned bits : {32u, 64u}) {
                        const auto v = contributions(seed, r++, n, bits);
                        const uint64_t calls = ch.calls();
                        const uint64_t got = bits == 32 ? uint64_t(uint32_t(ch.reduce(op, int32_t(v[pe]))))
                                                        : uint64_t(ch.reduce(op, v[pe]));
                        PE_CHECK_MSG(got == reference(op, v, bits),
                                     "PE" << pe << " n " << n << " " << op_text(op) << bits << " round " << r
                                          << ": got 0x" << std::hex << got << ", want 0x" << reference(op, v, bits));
                        PE_CHECK(ch.calls() == calls + 1);  // one CALL, one frame each way
                        ++checks;
                    }
            // prefix sums in channel order, inclusive and exclusive (wrapping)
            for (unsigned bits : {32u, 64u})
                for (C::Scan s : {C::Scan::Inclusive, C::Scan::Exclusive}) {
                    const auto v = contributions(seed, r++, n, bits);
                    uint64_t want = 0;
                    for (unsigned j = 0; j < pe + (s == C::Scan::Inclusive ? 1u : 0u); ++j) want += uint64_t(v[j]);
                    if (bits == 32) want &= 0xffffffffu;
                    const uint64_t got = bits == 32 ? uint64_t(uint32_t(ch.scan(int32_t(v[pe]), s)))
                                                    : uint64_t(ch.scan(v[pe], s));
                    PE_CHECK_MSG(got == want, "PE" << pe << " scan" << bits
                                                   << (s == C::Scan::Inclusive ? " inclusive" : " exclusive")
                                                   << ": got 0x" << std::hex << got << ", want 0x" << want);
                    ++checks;
                }
        });
        CHECK(checks == n * (rounds * 12 + 4));
    }
}

TEST_CASE("cop: double reductions through the hub against the FPU's references", "[cop][link][fpu]") {
    // Seed 004 Table I SUMF, MAXF, MINF and aggnet's EXSUMF, SCANIF, SCANXF (docs/cop.md):
    // SUMF adds in ascending channel order, one rounded add at a time;
    // MAXF/MINF are IEEE 754-2019 maximum/minimum; EXSUMF is the exact sum
    // rounded once, so the same terms give the same bits whichever PE
    // holds which (sim/fp_ref.hpp has the references).
    namespace fp = aggnet::sim::fp;
    const uint64_t seed = sim::test_seed("cop_ops_float");
    const unsigned n = 4;
    Bench b(n, "cop_ops_float_n4");
    b.setup(C::all_pes(n), C::all_pes(n));
    bool fpu = false;
    b.one(0, [&](C::Channel& ch) { fpu = ch.has_fpu(); });
    REQUIRE(fpu);  // hub_cop carries the FPU (cop_core EN_FPU defaults to 1)
    // every round's terms, the same on every thread; the odd rounds hold
    // the even rounds' terms shuffled over the PEs
    std::mt19937_64 rng(seed);
    std::vector<std::vector<uint64_t>> terms;
    for (unsigned k = 0; k < 16; ++k) {
        std::vector<uint64_t> t = fp::term_set(rng, k);
        t.resize(n, 0);
        terms.push_back(t);
        std::shuffle(t.begin(), t.end(), rng);
        terms.push_back(t);
    }
    const C::FOp ops[] = {C::FOp::Sum, C::FOp::Max, C::FOp::Min, C::FOp::ExactSum};
    std::vector<std::vector<uint64_t>> got(n, std::vector<uint64_t>(terms.size() * 4));
    std::vector<std::vector<uint64_t>> gscan(n, std::vector<uint64_t>(terms.size() * 4));
    b.run([&](unsigned pe, C::Channel& ch) {
        for (size_t r = 0; r < terms.size(); ++r) {
            for (unsigned o = 0; o < 4; ++o) got[pe][r * 4 + o] = fp::to_b(ch.reduce(ops[o], fp::to_d(terms[r][pe])));
            const double x = fp::to_d(terms[r][pe]);
            gscan[pe][r * 4] = fp::to_b(ch.scan(x, C::Scan::Inclusive));
            gscan[pe][r * 4 + 1] = fp::to_b(ch.scan(x, C::Scan::Exclusive));
            gscan[pe][r * 4 + 2] = fp::to_b(ch.exact_scan(x, C::Scan::Inclusive));
            gscan[pe][r * 4 + 3] = fp::to_b(ch.exact_scan(x, C::Scan::Exclusive));
        }
    });
    for (size_t r = 0; r < terms.size(); ++r) {
        const auto& t = terms[r];
        uint64_t sum = t[0], mx = t[0], mn = t[0];
        for (unsigned i = 1; i < n; ++i) {
            sum = fp::ref_add(sum, t[i]);
            mx = fp::ref_minmax(mx, t[i], false);
            mn = fp::ref_minmax(mn, t[i], true);
        }
        const uint64_t want[4] = {sum, mx, mn, fp::ref_sum(t)};
        for (unsigned pe = 0; pe < n; ++pe)
            for (unsigned o = 0; o < 4; ++o) {
                INFO("round " << r << " op " << o << " PE" << pe << std::hex << ": got 0x" << got[pe][r * 4 + o]
                              << ", want 0x" << want[o]);
                CHECK(got[pe][r * 4 + o] == want[o]);
            }
        // the shuffled round: the same exact sum, bit for bit
        if (r % 2) CHECK(got[0][r * 4 + 3] == got[0][(r - 1) * 4 + 3]);
        // SCANIF / SCANXF: PE p gets SUMF's running sum up to p (exclusive: up to p - 1, +0 for
        // PE 0), every NaN the canonical one
        // EXSCANIF / EXSCANXF: the exact sum up to p (before p), rounded once
        const auto incl = fp::ref_prefix_sum(t, false), excl = fp::ref_prefix_sum(t, true);
        const auto eincl = fp::ref_exact_prefix_sum(t, false), eexcl = fp::ref_exact_prefix_sum(t, true);
        for (unsigned pe = 0; pe < n; ++pe) {
            const uint64_t w[4] = {incl[pe], excl[pe], eincl[pe], eexcl[pe]};
            for (unsigned o = 0; o < 4; ++o) {
                INFO("round " << r << " PE" << pe << " scan " << o << std::hex << ": got 0x" << gscan[pe][r * 4 + o]
                              << ", want 0x" << w[o]);
                CHECK(gscan[pe][r * 4 + o] == w[o]);
            }
        }
        CHECK(gscan[n - 1][r * 4] == want[0]);      // the last PE's inclusive sum is SUMF's
        CHECK(gscan[n - 1][r * 4 + 2] == want[3]);  // and its exact one EXSUMF's
    }
}

TEST_CASE("cop: exact_orders: EXSUMF's bits are the exact sum's in every order, SUMF's follow it",
          "[cop][link][fpu]") {
    // aggnet cop DEVICE orders (the demo's): one thread drives the 4 PEs' channels, each on
    // its own client; the terms cancel in pairs of 2^60, so SUMF in channel order loses or
    // keeps the small terms by where the large ones sit
    const unsigned n = 4;
    Bench b(n, "cop_ops_orders");
    b.setup(C::all_pes(n), C::all_pes(n));
    std::vector<std::unique_ptr<link::LinkClient>> clients;
    std::vector<std::unique_ptr<C::Channel>> own;
    std::vector<C::Channel*> chans;
    for (unsigned pe = 0; pe < n; ++pe) {
        clients.push_back(std::make_unique<link::LinkClient>(b.hub.endpoint(pe), "linkhub:pe" + std::to_string(pe),
                                                             b.cfg()));
        own.push_back(std::make_unique<C::Channel>(*clients.back(), pe, milliseconds(5000)));
        chans.push_back(own.back().get());
    }
    const C::Orders o = C::exact_orders(chans, 8, sim::test_seed("cop_ops_orders"));
    REQUIRE(o.rows.size() == 8);
    REQUIRE(o.exact == 2.0);  // the quarters 0.75 and 1.25; the pair of 2^60 cancels
    std::set<uint64_t> sumf;
    for (const auto& r : o.rows) {
        // the terms are the same multiset in every order; EXSUMF is exact (the library checked it too)
        REQUIRE(std::is_permutation(r.terms.begin(), r.terms.end(), o.rows[0].terms.begin()));
        CHECK(r.exsumf == 0x4000000000000000ull);
        sumf.insert(r.sumf);
    }
    // the list's order keeps 1.25 of 2 (2^60 + 0.75 rounds to 2^60), the reversed one none
    CHECK(o.rows[0].sumf == 0x3FF4000000000000ull);
    CHECK(o.rows[1].sumf == 0);
    CHECK(sumf.size() >= 2);
}

TEST_CASE("cop: barrier order, start/finish overlap, broadcast and receive", "[cop][link]") {
    const unsigned n = 4;
    const uint64_t seed = sim::test_seed("cop_ops_bcast");
    Bench b(n, "cop_ops_bcast");
    b.setup(C::all_pes(n), C::all_pes(n));
    const unsigned rounds = 8;
    std::vector<std::atomic<unsigned>> arrived(rounds);
    for (auto& a : arrived) a = 0;
    b.run([&](unsigned pe, C::Channel& ch) {
        for (unsigned k = 0; k < rounds; ++k) {
            ++arrived[k];
            ch.barrier();
            // nobody passes barrier k before every PE arrived at it
            PE_CHECK_MSG(arrived[k] == n, "PE" << pe << " passed barrier " << k << " with " << arrived[k]
                                              << " of " << n << " arrived");
        }
        // Hall's overlap: start the round, work, then finish
        const auto v = contributions(seed, 100, n, 64);
        auto h = ch.start_reduce(C::Op::Sum, v[pe]);
        volatile uint64_t work = 0;
        for (unsigned i = 0; i < 1000; ++i) work = work + i;
        PE_CHECK(int64_t(ch.finish(h)) == int64_t(reference(C::Op::Sum, v, 64)));
        // broadcast from each root in turn: every other PE receives it once
        for (unsigned root = 0; root < n; ++root)
            for (unsigned bits : {32u, 64u}) {
                const auto w = contributions(seed, 200 + root * 2 + bits / 32, n, bits);
                if (pe == root) {
                    if (bits == 32)
                        ch.broadcast(uint32_t(w[root]));
                    else
                        ch.broadcast(uint64_t(w[root]));
                } else {
                    unsigned len = 0;
                    const uint64_t got = ch.receive(&len);
                    PE_CHECK_MSG(len == bits / 8, "PE" << pe << " received " << len << " bytes from PE" << root);
                    const uint64_t want = bits == 32 ? uint64_t(uint32_t(w[root])) : uint64_t(w[root]);
                    PE_CHECK_MSG(got == want, "PE" << pe << " received 0x" << std::hex << got << " from PE" << root
                                                   << ", want 0x" << want);
                }
                ch.barrier();  // the sender gets no copy: its mailbox stays empty
                const uint32_t st = ch.reg(C::regs::STATUS);
                PE_CHECK_MSG((st >> 8 & 7) == 0, "PE" << pe << " root " << root << " bits " << bits << ": STATUS 0x"
                                                       << std::hex << st);
                ch.barrier();  // before the next root broadcasts
            }
    });
}

TEST_CASE("cop: fetch-and-add tickets are unique and dense, Data RAM read and write", "[cop][link]") {
    const unsigned n = 4, per = 25;
    Bench b(n, "cop_ops_tickets");
    b.setup(C::all_pes(n), C::all_pes(n));
    std::mutex m;
    std::vector<uint32_t> tickets;
    b.one(0, [&](C::Channel& ch) {
        ch.write(3, uint32_t(0));
        ch.write(5, uint64_t(0));
        CHECK(ch.read(3) == 0);
    });
    b.run([&](unsigned pe, C::Channel& ch) {
        std::vector<uint32_t> mine;
        for (unsigned i = 0; i < per; ++i) {
            mine.push_back(ch.fetch_add(3, uint32_t(1)));
            ch.fetch_add(5, uint64_t(pe + 1) << 33);
        }
        std::lock_guard<std::mutex> l(m);
        tickets.insert(tickets.end(), mine.begin(), mine.end());
    });
    std::sort(tickets.begin(), tickets.end());
    std::vector<uint32_t> dense(n * per);
    for (unsigned i = 0; i < n * per; ++i) dense[i] = i;
    CHECK(tickets == dense);
    b.one(1, [&](C::Channel& ch) {
        CHECK(ch.read(3) == n * per);
        uint64_t want = 0;
        for (unsigned pe = 0; pe < n; ++pe) want += per * (uint64_t(pe + 1) << 33);
        CHECK(ch.read64(5) == want);
        // WSRAM32 keeps the word's high half
        ch.write(5, uint32_t(7));
        CHECK(ch.read64(5) == ((want & ~uint64_t(0xffffffff)) | 7));
    });
}

TEST_CASE("cop: the lock serves only its holder; a foreign unlock is refused", "[cop][link]") {
    const unsigned n = 4, per = 10;
    Bench b(n, "cop_ops_lock");
    b.setup(C::all_pes(n), C::all_pes(n));
    b.one(0, [&](C::Channel& ch) { ch.write(2, uint32_t(0)); });
    // a read-modify-write of two CALLs under the lock is never interleaved
    b.run([&](unsigned, C::Channel& ch) {
        for (unsigned i = 0; i < per; ++i) {
            C::Lock l(ch);
            const uint32_t v = ch.read(2);
            ch.write(2, v + 1);
        }
    });
    b.one(1, [&](C::Channel& ch) {
        CHECK(ch.read(2) == n * per);
        CHECK((ch.reg(C::regs::LOCK) >> 7 & 1) == 0);
        // nobody holds it: UNLOCK is refused and changes nothing
        CHECK(cause_of([&] { ch.unlock(); }) == C::C_NOTLOCKER);
    });
    // PE2 holds it: PE1's UNLOCK waits until it is gone, then is refused
    b.one(2, [&](C::Channel& c2) {
        c2.lock();
        CHECK(c2.reg(C::regs::LOCK) == (0x80u | 2));
        link::LinkClient c(b.hub.endpoint(1), "linkhub:pe1", b.cfg());
        C::Channel c1(c, 1, milliseconds(5000));
        auto h = c1.start(C::OP_UNLOCK);
        CHECK(c2.fetch_add(2, uint32_t(1)) == n * per);  // the holder is still served
        c2.unlock();
        CHECK(cause_of([&] { c1.finish(h); }) == C::C_NOTLOCKER);
        CHECK(c2.reg(C::regs::LOCK) == 2);  // released by its holder
    });
}

TEST_CASE("cop: supervisor against user", "[cop][link]") {
    const unsigned n = 4;
    Bench b(n, "cop_ops_priv");
    b.setup(C::all_pes(n), C::all_pes(n));
    b.one(3, [&](C::Channel& ch) {
        const uint64_t tc = ch.tc(0), bm = ch.bm(0);
        CHECK(tc == C::all_pes(n));
        const uint32_t priv = ch.reg(C::regs::PRIVCNT);
        // a user SETTC, SETBM, PROC or HOLD write: ProtectionError, nothing changes
        CHECK_THROWS_AS(ch.call_on(0, C::OP_SETTC, 1), C::ProtectionError);
        CHECK_THROWS_AS(ch.call_on(0, C::OP_SETBM, 1), C::ProtectionError);
        CHECK_THROWS_AS(ch.set_reg(C::regs::PROC, 1, "PROC"), C::ProtectionError);
        CHECK_THROWS_AS(ch.set_reg(C::regs::HOLD, 1, "HOLD"), C::ProtectionError);
        try {
            ch.call_on(0, C::OP_SETTC, 1);
        } catch (const C::ProtectionError& e) {
            CHECK(e.pe == 3);
            CHECK(e.opcode == C::OP_SETTC);
            CHECK(e.cause == C::C_PRIV);
            CHECK_THAT(e.what(), Catch::Contains("PE3") && Catch::Contains("SETTC") && Catch::Contains("PRIV"));
        }
        CHECK(ch.tc(0) == tc);
        CHECK(ch.bm(0) == bm);
        CHECK(ch.reg(C::regs::PROC) == 0);
        CHECK(ch.reg(C::regs::PRIVCNT) == priv + 5);
        // a wrong key leaves the channel user
        CHECK(cause_of([&] { C::Supervisor s(ch, C::DEFAULT_KEY ^ 1); }) == C::C_KEY);
        CHECK((ch.reg(C::regs::MODE) & 1) == 0);
        {
            C::Supervisor s(ch);
            s.set_tc(0, 0b0111);
            CHECK(ch.tc(0) == 0b0111);
            s.set_tc(0, C::all_pes(n));
        }
        CHECK((ch.reg(C::regs::MODE) & 1) == 0);  // user again
    });
}

TEST_CASE("cop: every cause has its table's name and meaning", "[cop]") {
    // cause_name() is generated from tools/copgen.py's CAUSES (cop_regs.hpp cause_text)
    test::check_cause_names(C::cause_name, C::C_BADOP, C::C_NODOWN, C::C_XOP, "XOP");
}

TEST_CASE("cop: bad input names its cause", "[cop][link]") {
    const unsigned n = 4;
    Bench b(n, "cop_ops_bad");
    b.setup(0b0111, C::all_pes(n));
    // a TC naming a PE beyond N: RANGE, the TC unchanged
    b.one(0, [&](C::Channel& ch) {
        C::Supervisor s(ch);
        CHECK(cause_of([&] { s.set_tc(0, uint64_t(1) << n); }) == C::C_RANGE);
        CHECK(ch.tc(0) == 0b0111);
        CHECK(cause_of([&] { s.set_process(15, 0); }) == C::C_RANGE);
    });
    b.one(3, [&](C::Channel& ch) {
        // a PE not in the TC
        CHECK(cause_of([&] { ch.barrier(); }) == C::C_NOTINTC);
        // no TC set for key 1
        ch.use_mask(1);
        CHECK(cause_of([&] { ch.reduce(C::Op::Sum, int32_t(1)); }) == C::C_NOTC);
        ch.use_mask(0);
        // an opcode nobody defines: BADOP
        CHECK(cause_of([&] { ch.call(0x7f); }) == C::C_BADOP);
        // the float opcodes: NOFPU while the COP has no FPU
        if (!ch.has_fpu()) {
            try {
                ch.reduce(C::FOp::ExactSum, 1.5);
                FAIL("a float reduction was not refused without the FPU");
            } catch (const C::CopError& e) {
                CHECK(e.cause == C::C_NOFPU);
                CHECK(e.opcode == C::OP_EXSUMF);
                CHECK_THAT(e.what(), Catch::Contains("FPU"));
            }
        }
    });
    // mismatched contributions to one round: the first (PE0's SUM, served:
    // the round's WAIT no longer names PE0) fixes the opcode; PE1's MAX is
    // refused MISMATCH and PE1 then joins with SUM
    const uint64_t seed = sim::test_seed("cop_ops_mismatch");
    const auto v = contributions(seed, 0, n, 32);
    b.one(0, [&](C::Channel& c0) {
        link::LinkClient c(b.hub.endpoint(1), "linkhub:pe1", b.cfg());
        C::Channel c1(c, 1, milliseconds(5000));
        link::LinkClient cc(b.hub.endpoint(2), "linkhub:pe2", b.cfg());
        C::Channel c2(cc, 2, milliseconds(5000));
        auto h0 = c0.start_reduce(C::Op::Sum, int32_t(v[0]));
        uint64_t w = 0;
        for (unsigned i = 0; i < 1000 && (w = c2.waiting(0)) != 0b0110; ++i) {
        }
        REQUIRE(w == 0b0110);
        try {
            c1.reduce(C::Op::Max, int32_t(v[1]));
            FAIL("a MAX joined a SUM round");
        } catch (const C::CopError& e) {
            CHECK(e.cause == C::C_MISMATCH);
            CHECK(e.opcode == C::OP_MAXI32);
            CHECK(e.pe == 1);
        }
        CHECK(c2.waiting(0) == 0b0110);  // the refusal left the round alone
        const std::vector<int64_t> all{v[0], v[1], v[2]};
        const uint32_t want = uint32_t(reference(C::Op::Sum, all, 32));
        auto h1 = c1.start_reduce(C::Op::Sum, int32_t(v[1]));
        CHECK(uint32_t(c2.reduce(C::Op::Sum, int32_t(v[2]))) == want);
        CHECK(uint32_t(c1.finish(h1)) == want);
        CHECK(uint32_t(c0.finish(h0)) == want);
    });
}

TEST_CASE("cop: a PE that never arrives is named by the others' timeouts", "[cop][link]") {
    const unsigned n = 4;
    Bench b(n, "cop_ops_timeout");
    b.setup(C::all_pes(n), C::all_pes(n));
    // a lock holder is named, and the timed-out fetch-and-add is cancelled
    // (docs/cop.md "CANCEL"): withdrawn before it was served, so it never
    // adds, and PE1's channel takes its next CALL (without the CANCEL the
    // command stays: it adds once the lock goes and the next CALL is BUSY)
    b.one(3, [&](C::Channel& c3) {
        c3.lock();
        link::LinkClient c(b.hub.endpoint(1), "linkhub:pe1", b.cfg());
        C::Channel c1(c, 1, milliseconds(60));
        try {
            c1.fetch_add(1, uint32_t(1));
            FAIL("a fetch-and-add was served while PE3 held the lock");
        } catch (const TimeoutError& e) {
            CHECK_THAT(e.what(), Catch::Contains("PE3 holds the COP lock"));
            CHECK_THAT(e.what(), Catch::Contains("CALL cancelled: withdrawn"));
        }
        CHECK((c1.reg(C::regs::STATUS) & 0xf) == 0);  // no command in its buffer, no reply, no RECV
        c3.unlock();
        CHECK(c1.fetch_add(1, uint32_t(5)) == 0u);  // the withdrawn +1 never happened
        CHECK(c1.read(1) == 5u);
    });
    // PE1 never enters: each of the others times out naming PE1 (and the PEs
    // that cancelled before it read WAIT, never itself), and cancels
    b.run(
        [&](unsigned pe, C::Channel& ch) {
            try {
                ch.barrier();
                PE_FAIL("PE" << pe << " passed a barrier PE1 never entered");
            } catch (const TimeoutError& e) {
                PE_CHECK_MSG((e.never_arrived >> 1 & 1) && !(e.never_arrived >> pe & 1),
                             "PE" << pe << ": " << e.what());
                PE_CHECK_MSG(std::string(e.what()).find("PE1") != std::string::npos, e.what());
                PE_CHECK_MSG(std::string(e.what()).find("CALL cancelled: withdrawn") != std::string::npos, e.what());
            }
        },
        0b1101, milliseconds(100));
    // nothing stayed armed: the round is not open, and a barrier of all four completes
    b.one(0, [&](C::Channel& ch) {
        CHECK(ch.waiting(0) == 0);
        CHECK((ch.reg(C::regs::STATUS) & 0xf) == 0);
    });
    std::atomic<unsigned> passed{0};
    b.run([&](unsigned, C::Channel& ch) {
        ch.barrier();
        ++passed;
    });
    CHECK(passed == n);
}

TEST_CASE("cop: damaged frames, every CALL applied exactly once", "[cop][link][faults]") {
    const unsigned n = 4, per = 20;
    const uint64_t seed = sim::test_seed("cop_ops_faults");
    Bench b(n, "cop_ops_faults", LinkHub::Faults{5, seed});
    b.setup(C::all_pes(n), C::all_pes(n));
    std::mutex m;
    std::vector<uint32_t> tickets;
    b.run([&](unsigned pe, C::Channel& ch) {
        std::vector<uint32_t> mine;
        for (unsigned i = 0; i < per; ++i) {
            mine.push_back(ch.fetch_add(6, uint32_t(1)));
            const auto v = contributions(seed, i, n, 64);
            PE_CHECK_MSG(ch.reduce(C::Op::Sum, v[pe]) == int64_t(reference(C::Op::Sum, v, 64)),
                         "PE" << pe << " round " << i);
        }
        std::lock_guard<std::mutex> l(m);
        tickets.insert(tickets.end(), mine.begin(), mine.end());
    });
    INFO("frames damaged: " << b.hub.damaged());
    CHECK(b.hub.damaged() > 0);
    std::sort(tickets.begin(), tickets.end());
    std::vector<uint32_t> dense(n * per);
    for (unsigned i = 0; i < n * per; ++i) dense[i] = i;
    CHECK(tickets == dense);
}
