// The host protocol of seed 000 section 4 (enqueue, p_wait, p_waitvec, as
// libaggnet's aggnet::Papers codes them) run by N virtual PEs against the
// Verilated hub, lock-stepped, with random per-PE "OS delays" (seed 002
// figure 1).  Properties checked against the barrier semantics of seed 000
// section 1 and the interrupt rules of section 2.2 / Table 7.
#include "lockstep.hpp"
#include "papers_pins.hpp"
#include "seed.hpp"

#include <aggnet/papers.hpp>
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <mutex>
#include <random>

using namespace aggnet;
using namespace aggnet::sim;
namespace R = aggnet::papers_regs;
using std::chrono::milliseconds;

namespace {

LockstepHub::Options opts(const char* name) {
    LockstepHub::Options o;
    o.seed = test_seed(name);
    return o;
}

uint64_t all_of(unsigned n) { return n >= 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1; }

// Every PE runs `rounds` barriers (p_wait or p_waitvec) on mask[pe]; records
// arrival (call) and departure (return) cycles and what waitvec returned.
struct Rounds {
    std::vector<std::vector<uint64_t>> arrive, leave, vec, sent;
};

Rounds run_rounds(LockstepHub& hub, const std::vector<uint64_t>& mask, unsigned rounds, bool with_vec,
                  uint64_t seed) {
    const unsigned n = hub.pes();
    Rounds r;
    r.arrive.assign(n, {});
    r.leave.assign(n, {});
    r.vec.assign(n, {});
    r.sent.assign(n, {});
    std::vector<std::function<void(Transport&)>> progs(n);
    for (unsigned pe = 0; pe < n; ++pe) {
        progs[pe] = [&, pe](Transport& t) {
            std::mt19937_64 rng(seed + pe);
            Papers p(t);
            p.enqueue(mask[pe], milliseconds(50));
            for (unsigned i = 0; i < rounds; ++i) {
                if (rng() % 4 == 0) hub.delay(pe, rng() % 3000);  // uneven work between barriers
                r.arrive[pe].push_back(hub.cycle());
                if (with_vec) {
                    const bool flag = rng() & 1;
                    r.sent[pe].push_back(flag);
                    r.vec[pe].push_back(p.waitvec(flag, milliseconds(50)));
                } else {
                    p.wait(milliseconds(50));
                }
                r.leave[pe].push_back(hub.cycle());
            }
        };
    }
    rethrow_first(hub.run(progs));
    return r;
}

void check_rounds(const Rounds& r, const std::vector<uint64_t>& mask, bool with_vec) {
    const unsigned n = static_cast<unsigned>(mask.size());
    for (unsigned p = 0; p < n; ++p) {
        for (size_t i = 0; i < r.leave[p].size(); ++i) {
            uint64_t expect_vec = 0;
            for (unsigned q = 0; q < n; ++q) {
                if (!((mask[p] >> q) & 1)) continue;
                INFO("round " << i << ": PE" << p << " left at cycle " << r.leave[p][i] << ", PE" << q
                              << " arrived at " << r.arrive[q][i]);
                REQUIRE(r.leave[p][i] > r.arrive[q][i]);  // nobody leaves before all arrived
                if (with_vec && r.sent[q][i]) expect_vec |= uint64_t(1) << q;
            }
            if (with_vec) {
                INFO("round " << i << " PE" << p);
                REQUIRE(r.vec[p][i] == expect_vec);  // mask PEs' D bits, 0 elsewhere
            }
        }
    }
}

}  // namespace

TEST_CASE("p_wait: no PE leaves before every PE of its mask arrived", "[protocol]") {
    for (unsigned n : {2u, 4u, 16u}) {
        LockstepHub hub(make_papers_rtl(n, "proto_wait_n" + std::to_string(n)), opts("protocol_wait"));
        std::vector<uint64_t> mask(n, all_of(n));
        const auto r = run_rounds(hub, mask, n == 16 ? 40 : 150, false, 7);
        check_rounds(r, mask, false);
    }
}

TEST_CASE("p_waitvec returns exactly the mask PEs' bits", "[protocol]") {
    for (unsigned n : {3u, 4u, 8u}) {
        LockstepHub hub(make_papers_rtl(n, "proto_waitvec_n" + std::to_string(n)), opts("protocol_waitvec"));
        std::vector<uint64_t> mask(n, all_of(n));
        const auto r = run_rounds(hub, mask, 120, true, 11);
        check_rounds(r, mask, true);
    }
}

TEST_CASE("two disjoint partitions barrier independently and concurrently", "[protocol]") {
    LockstepHub hub(make_papers_rtl(4, "proto_partition"), opts("protocol_partition"));
    const std::vector<uint64_t> mask{0b0011, 0b0011, 0b1100, 0b1100};
    const auto r = run_rounds(hub, mask, 100, true, 13);
    check_rounds(r, mask, true);

    // Independence: pair {2,3} sits in one long barrier (PE3 computes for
    // 200000 cycles first) while pair {0,1} completes 50 barriers.
    uint64_t pair01_done = 0, pair23_done = 0;
    std::vector<std::function<void(Transport&)>> progs(4);
    for (unsigned pe = 0; pe < 4; ++pe) {
        progs[pe] = [&, pe](Transport& t) {
            Papers p(t);
            p.enqueue(mask[pe]);
            if (pe < 2) {
                for (int i = 0; i < 50; ++i) p.wait(milliseconds(50));
                if (pe == 0) pair01_done = hub.cycle();
            } else {
                if (pe == 3) hub.delay(pe, 200000);
                p.wait(milliseconds(50));
                if (pe == 2) pair23_done = hub.cycle();
            }
        };
    }
    rethrow_first(hub.run(progs));
    INFO("pair {0,1} done at " << pair01_done << ", pair {2,3} at " << pair23_done);
    REQUIRE(pair01_done < pair23_done);
    REQUIRE(pair23_done > 200000);
}

TEST_CASE("enqueue changes a mask only after the GO reset", "[protocol]") {
    // Random partitions every round; the hub observer checks every data write
    // that changes a PE's mask happens while that PE's GO is low.
    const unsigned n = 4;
    LockstepHub hub(make_papers_rtl(n, "proto_enqueue"), opts("protocol_enqueue"));
    std::mutex mu;
    std::vector<reg_t> last_data(n);
    uint64_t changes = 0;
    hub.observe([&](unsigned pe, LockstepHub::Op op, reg_t v, uint64_t cyc) {
        if (op != LockstepHub::Op::Data) return;
        const reg_t mask_bits = ((reg_t(1) << 4) - 1) << R::DATA_B0;
        const uint64_t old_mask = uint64_t((last_data[pe] & mask_bits) >> R::DATA_B0);
        if ((v & mask_bits) != (last_data[pe] & mask_bits) && (old_mask & ~(uint64_t(1) << pe))) {
            // GO as the PE would read it: status register bit 7.
            const reg_t st = status_pins_to_reg(hub.pins().stat(pe), n);
            INFO("PE" << pe << " changed its mask at cycle " << cyc << " with GO high");
            REQUIRE(((st >> R::STATUS_GO(n)) & 1) == 0);
            ++changes;
        }
        last_data[pe] = v;
    });
    // Everyone agrees on the sequence of partitions (a shared seeded list).
    std::mt19937_64 rng(5);
    std::vector<std::vector<uint64_t>> parts;
    const std::vector<std::vector<uint64_t>> choices{
        {0xf, 0xf, 0xf, 0xf}, {0x3, 0x3, 0xc, 0xc}, {0x5, 0xa, 0x5, 0xa}, {0x9, 0x6, 0x6, 0x9}, {0x7, 0x7, 0x7, 0x8}};
    for (int i = 0; i < 80; ++i) parts.push_back(choices[rng() % choices.size()]);
    std::vector<std::function<void(Transport&)>> progs(n);
    for (unsigned pe = 0; pe < n; ++pe) {
        progs[pe] = [&, pe](Transport& t) {
            Papers p(t);
            for (auto& part : parts) {
                p.enqueue(part[pe], milliseconds(50));
                p.wait(milliseconds(50));
            }
        };
    }
    rethrow_first(hub.run(progs));
    REQUIRE(changes > 40);
}

TEST_CASE("IR interrupts exactly the PEs in the requester's mask; GI makes GO raise INT", "[protocol]") {
    const unsigned n = 4;
    LockstepHub hub(make_papers_rtl(n, "proto_interrupt"), opts("protocol_interrupt"));
    std::vector<Papers::Status> seen(n);
    std::vector<bool> go_with_int(n), go_without_int(n);
    std::vector<std::function<void(Transport&)>> progs(n);
    for (unsigned pe = 0; pe < n; ++pe) {
        progs[pe] = [&, pe](Transport& t) {
            Papers p(t);
            p.enqueue(0xf);
            p.wait(milliseconds(50));  // all attached
            if (pe == 1) {
                p.enqueue(0b1011);  // PE1 interrupts PE0, PE1, PE3 -- not PE2
                p.set_interrupt_request(true);
            }
            hub.delay(pe, 50000);  // the IR is up well before anyone looks
            seen[pe] = p.status();
        };
    }
    rethrow_first(hub.run(progs));
    for (unsigned pe = 0; pe < n; ++pe) {
        INFO("PE" << pe);
        const bool expect = pe != 2;
        REQUIRE(seen[pe].intr == expect);
        if (expect) REQUIRE(seen[pe].go == false);  // Table 7: interrupt reads GO = 0
    }

    // GI: PE0 sets GO-causes-interrupt; every GO it reads comes with INT.
    LockstepHub hub2(make_papers_rtl(n, "proto_gi"), opts("protocol_gi"));
    hub2.observe([&](unsigned pe, LockstepHub::Op op, reg_t st, uint64_t) {
        if (op != LockstepHub::Op::Status || !((st >> R::STATUS_GO(n)) & 1)) return;
        const bool intr = (st >> R::STATUS_INT(n)) & 1;
        if (intr) go_with_int[pe] = true;
        else go_without_int[pe] = true;
    });
    for (unsigned pe = 0; pe < n; ++pe) {
        progs[pe] = [&, pe](Transport& t) {
            Papers p(t);
            if (pe == 0) p.set_mode(true);
            p.enqueue(0xf);
            for (int i = 0; i < 20; ++i) p.wait(milliseconds(50));
        };
    }
    rethrow_first(hub2.run(progs));
    REQUIRE(go_with_int[0]);
    REQUIRE_FALSE(go_without_int[0]);
    for (unsigned pe = 1; pe < n; ++pe) {
        REQUIRE(go_without_int[pe]);
        REQUIRE_FALSE(go_with_int[pe]);
    }
}

TEST_CASE("PEs whose masks do not contain each other never release; the timeout names them", "[protocol][bad]") {
    const unsigned n = 4;
    LockstepHub hub(make_papers_rtl(n, "proto_norelease"), opts("protocol_norelease"));
    std::vector<std::function<void(Transport&)>> progs(n);
    // PE0 wants {0,1,2}; PE1 and PE2 barrier only with each other.
    progs[0] = [&](Transport& t) {
        Papers p(t);
        p.enqueue(0b0111);
        p.wait(milliseconds(2));
    };
    for (unsigned pe : {1u, 2u}) {
        progs[pe] = [&, pe](Transport& t) {
            Papers p(t);
            p.enqueue(0b0110);
            for (int i = 0; i < 20; ++i) p.wait(milliseconds(50));
        };
    }
    const auto errs = hub.run(progs);
    REQUIRE(errs[0]);
    REQUIRE_FALSE(errs[1]);
    REQUIRE_FALSE(errs[2]);
    try {
        std::rethrow_exception(errs[0]);
    } catch (const TimeoutError& e) {
        INFO(e.what());
        REQUIRE(e.missing_pes == 0b0110);  // neither names PE0
        REQUIRE(std::string(e.what()).find("PE1, PE2") != std::string::npos);
    }

    // A PE that simply never arrives is named alone by the first PE to give
    // up (PE0, 1 ms); PE1 gives up at 20 ms, when PE0 has withdrawn, and PE2
    // at 40 ms, when PE1 has too.  PE3 is named by all.
    LockstepHub hub2(make_papers_rtl(n, "proto_absent"), opts("protocol_absent"));
    for (unsigned pe = 0; pe < 3; ++pe) {
        progs[pe] = [&, pe](Transport& t) {
            Papers p(t);
            p.enqueue(0xf);
            p.wait(milliseconds(pe == 0 ? 1 : 20 * pe));
        };
    }
    const auto errs2 = hub2.run(progs);
    for (unsigned pe = 0; pe < 3; ++pe) {
        REQUIRE(errs2[pe]);
        try {
            std::rethrow_exception(errs2[pe]);
        } catch (const TimeoutError& e) {
            INFO(e.what());
            const uint64_t expect[] = {0b1000, 0b1001, 0b1011};
            REQUIRE(e.missing_pes == expect[pe]);
        }
    }
}

TEST_CASE("a mask naming a PE >= N is rejected by the host and ignored safely by the hub", "[protocol][bad]") {
    // Host: PARANOID check, always on.
    for (unsigned n : {3u, 4u, 16u}) {
        LockstepHub hub(make_papers_rtl(n, "proto_badmask_n" + std::to_string(n)), opts("protocol_badmask"));
        std::vector<std::function<void(Transport&)>> progs(n);
        uint64_t before = 0, after = 0;
        progs[0] = [&](Transport& t) {
            Papers p(t);
            before = p.last_mask();
            const uint64_t bad = uint64_t(1) << n;
            REQUIRE_THROWS_AS(p.enqueue(1 | bad), MaskError);
            try {
                p.enqueue(1 | bad);
            } catch (const MaskError& e) {
                REQUIRE(e.bad_pes == bad);
                REQUIRE(std::string(e.what()).find("PE" + std::to_string(n)) != std::string::npos);
            }
            REQUIRE_THROWS_AS(p.enqueue(0), MaskError);  // empty: GO would oscillate
            after = p.last_mask();  // nothing lost: the old mask stands
        };
        rethrow_first(hub.run(progs));
        REQUIRE(before == after);
    }
    // Hub (N = 3 keeps the seed's 4 mask bits): a raw write naming PE3 is read
    // as a PE that never arrives: no GO, and the bad-mask flag is up.
    LockstepHub hub(make_papers_rtl(3, "proto_badmask_rtl"), opts("protocol_badmask_rtl"));
    std::vector<std::function<void(Transport&)>> progs(3);
    reg_t st = 0;
    progs[0] = [&](Transport& t) {
        // Attach first, as libaggnet does (our own mask, S low): from reset the
        // pins name no PE, and an empty mask makes GO toggle every cycle
        // (README departure 7), so the bad write would otherwise freeze GO at
        // whichever phase it met (seen with AGGNET_SEED=16542815950008810048).
        t.write_data(reg_t(0b0001) << R::DATA_B0);
        hub.delay(0, 20);
        t.write_data((reg_t(0b1001) << R::DATA_B0) | (reg_t(1) << R::DATA_S));
        hub.delay(0, 10000);
        st = t.read_status();
    };
    rethrow_first(hub.run(progs));
    REQUIRE(((st >> R::STATUS_GO(3)) & 1) == 0);
    REQUIRE(hub.pins().bad(0));
}
