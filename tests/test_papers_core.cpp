// papers_core (rtl/papers/papers_core.v) against the PAL equations of seed 000
// section 3.1 and Table 7 (sim/papers_model.hpp: pal()), every cycle, under
// seeded random stimulus, for N = 3 (absent PEs in the 4-bit mask), 4 and 16;
// and the pipelined core (PIPE = 1, link-only hubs) at N = 3 and 20 (groups
// of 8, the last one short): INT, go_rd and irq are the PAL's of the
// inputs and masks one cycle before, GO's CLKSET and CLKRST the PAL's of S
// one cycle before and of the masks two cycles before (mask agreement is
// precomputed), the I bits those of the inputs one cycle before with the
// current masks (the core's header).  The pipelined core applies presence
// itself (its input here, papers_hub's link-only mode): PEs go absent and
// come back at random, an absent PE's S, D, IR, PROBE, GI and IE are driven
// 0 (as papers_hub gates them) and its mask as written, and the reference
// reads it as papers_hub's Presence says, alone and idle (presence as of
// the cycle its S is taken).
#include "harness.hpp"
#include "papers_model.hpp"
#include "seed.hpp"
#include "stim.hpp"
#include "vbits.hpp"

#include <Vpapers_core_n16.h>
#include <Vpapers_core_n3.h>
#include <Vpapers_core_n4.h>
#include <Vpapers_core_pipe_n20.h>
#include <Vpapers_core_pipe_n3.h>
#include <catch2/catch.hpp>

#include <random>

using namespace aggnet;
using namespace aggnet::sim;
namespace R = aggnet::papers_regs;

namespace {

template <class V>
void run_core(unsigned n, uint64_t cycles, bool pipe = false) {
    const unsigned mw = R::mask_width(n);
    const std::string name = std::string(pipe ? "papers_core_pipe_n" : "papers_core_n") + std::to_string(n);
    Harness<V> h(name);
    std::mt19937_64 rng(test_seed(name.c_str()));
    h.reset();

    std::vector<reg_t> data(n);    // register layout, for pal()
    std::vector<uint8_t> ctrl(n);
    // pipe: what the core registered at the last edge (reset: all 0)
    std::vector<reg_t> data_q(n, 0);
    std::vector<uint8_t> ctrl_q(n, 0);
    // pipe: the raw masks of one and two edges ago (CLKSET and CLKRST take
    // the latter; reset: every PE alone in its mask, the precomputed
    // agreement's reset value), and the reference's view one edge ago
    std::vector<reg_t> raw_q(n), raw_qq(n);
    for (unsigned a = 0; a < n; ++a) raw_q[a] = raw_qq[a] = reg_t(1) << (R::DATA_B0 + a);
    bool first = true;  // pipe: the partials hold their reset value (nothing fires)
    std::vector<bool> here(n, true), here_q(n, true);  // pipe: presence now and one edge ago
    std::vector<bool> go(n, false);  // the model's GO registers
    std::vector<uint64_t> mask(n);
    uint64_t rises = 0, falls = 0, ints = 0, irqs = 0, bads = 0;
    uint64_t epoch_end = 0;
    for (uint64_t c = 0; c < cycles; ++c) {
        if (c >= epoch_end) {
            const auto part = test::random_partition(rng, n);
            for (unsigned a = 0; a < n; ++a) mask[a] = test::noisy_mask(rng, part[a], n, mw);
            epoch_end = c + 1 + rng() % 64;
        }
        for (unsigned a = 0; a < n; ++a) {
            reg_t& dv = data[a];
            dv &= ~(((reg_t(1) << mw) - 1) << R::DATA_B0);
            dv |= reg_t(mask[a]) << R::DATA_B0;
            // S: follow GO (raise until fired, drop after) most of the time.
            const bool s_now = (dv >> R::DATA_S) & 1;
            const unsigned r = rng() % 16;
            bool s_next = s_now;
            if (r < 3) s_next = !go[a];
            else if (r == 3) s_next = !s_now;
            dv = s_next ? (dv | (reg_t(1) << R::DATA_S)) : (dv & ~(reg_t(1) << R::DATA_S));
            if (rng() % 8 == 0) dv ^= reg_t(1) << R::DATA_D;
            if (rng() % 64 == 0) dv ^= reg_t(1) << R::DATA_IR;
            if (rng() % 16 == 0) dv ^= reg_t(1) << R::DATA_PROBE;
            if (rng() % 32 == 0) ctrl[a] ^= uint8_t(1u << (rng() % R::CTRL_WIDTH));
            if (pipe && rng() % 256 == 0) here[a] = !here[a];
        }
        // What the core's ports carry: an absent PE's signals 0 (its mask
        // as written, pipe only); and what the reference reads: alone, idle.
        std::vector<reg_t> port = data;
        std::vector<uint8_t> cport = ctrl;
        std::vector<reg_t> seen = data;  // the reference's view (Presence)
        const reg_t mbits_all = ((reg_t(1) << mw) - 1) << R::DATA_B0;
        for (unsigned a = 0; a < n; ++a)
            if (!here[a]) {
                port[a] &= mbits_all;
                cport[a] = 0;
                seen[a] = reg_t(1) << (R::DATA_B0 + a);
            }
        // Drive the core's per-signal ports.
        for (unsigned a = 0; a < n; ++a) {
            const auto db = [&](unsigned b) { return reg_t((port[a] >> b) & 1); };
            put_bits(h->s, a, 1, db(R::DATA_S));
            put_bits(h->d, a, 1, db(R::DATA_D));
            put_bits(h->ir, a, 1, db(R::DATA_IR));
            put_bits(h->probe, a, 1, db(R::DATA_PROBE));
            put_bits(h->gi, a, 1, (cport[a] >> R::CONTROL_GI) & 1);
            put_bits(h->ie, a, 1, (cport[a] >> R::CONTROL_IE) & 1);
            put_bits(h->mask, a * mw, mw, mask[a]);
            put_bits(h->here, a, 1, here[a] ? 1 : 0);
        }
        h->eval();
        std::vector<bool> next(n);
        // pipe: the I bits and bad_mask from last cycle's S, D and PROBE with
        // this cycle's masks
        std::vector<reg_t> now_masks = data_q;
        const reg_t mbits = ((reg_t(1) << mw) - 1) << R::DATA_B0;
        for (unsigned a = 0; a < n; ++a) now_masks[a] = (data_q[a] & ~mbits) | (data[a] & mbits);
        // pipe: CLKSET and CLKRST from last cycle's S and presence with the
        // masks of the cycle before (an absent PE: alone, as data_q has it)
        std::vector<reg_t> set_view = data_q;
        for (unsigned a = 0; a < n; ++a)
            if (here_q[a]) set_view[a] = (data_q[a] & ~mbits) | (raw_qq[a] & mbits);
        for (unsigned a = 0; a < n; ++a) {
            PalOut o = pipe ? pal(data_q, ctrl_q, go[a], a) : pal(data, ctrl, go[a], a);
            if (pipe) {
                const PalOut im = pal(now_masks, ctrl_q, go[a], a);
                o.ivec = im.ivec;
                o.bad = here[a] && im.bad;  // presence now, as papers_hub's was
                const PalOut sv = pal(set_view, ctrl_q, go[a], a);
                o.clkset = sv.clkset;
                o.clkrst = sv.clkrst;
                if (first) {
                    // the partials' reset value: no term holds, no IR
                    o.clkset = o.clkrst = false;
                    o.irterm = false;
                    o.INT = go[a] && ((ctrl_q[a] >> R::CONTROL_GI) & 1);
                    o.go_rd = (o.INT && !o.irterm) || (!o.INT && go[a]);
                    o.irq = o.INT && ((ctrl_q[a] >> R::CONTROL_IE) & 1);
                }
            }
            INFO("N=" << n << " cycle " << c << " PE" << a << " mask " << test::hex(mask[a]) << (pipe ? " (PIPE = 1)" : ""));
            REQUIRE(bool(get_bits(h->go, a, 1)) == go[a]);
            REQUIRE(bool(get_bits(h->go_rd, a, 1)) == o.go_rd);
            REQUIRE(bool(get_bits(h->int_rd, a, 1)) == o.INT);
            REQUIRE(bool(get_bits(h->irq, a, 1)) == o.irq);
            REQUIRE(bool(get_bits(h->bad_mask, a, 1)) == o.bad);
            REQUIRE(get_bits(h->ivec, a * (mw - 1), mw - 1) == o.ivec);
            next[a] = o.clkset ? true : (o.clkrst ? false : bool(go[a]));
            rises += o.clkset;
            falls += o.clkrst;
            ints += o.INT;
            irqs += o.irq;
            bads += o.bad;
        }
        h.tick();
        go = next;
        raw_qq = raw_q;
        raw_q = data;
        data_q = pipe ? seen : data;
        ctrl_q = pipe ? cport : ctrl;
        here_q = here;
        first = false;
    }
    // The stimulus must have exercised what it claims to test.
    INFO("GO rises " << rises << ", falls " << falls << ", INT " << ints << ", irq " << irqs << ", bad " << bads);
    CHECK(rises > cycles / 200);
    CHECK(falls > cycles / 200);
    CHECK(ints > 0);
    CHECK(irqs > 0);
    if (n < 4) CHECK(bads > 0);
}

}  // namespace

TEST_CASE("papers_core matches the PAL equations, N=3", "[papers_core]") {
    run_core<Vpapers_core_n3>(3, uint64_t(300000 * cycles_scale()));
}
TEST_CASE("papers_core matches the PAL equations, N=4", "[papers_core]") {
    run_core<Vpapers_core_n4>(4, uint64_t(500000 * cycles_scale()));
}
TEST_CASE("papers_core matches the PAL equations, N=16", "[papers_core]") {
    run_core<Vpapers_core_n16>(16, uint64_t(200000 * cycles_scale()));
}

TEST_CASE("papers_core PIPE = 1 is the PAL a cycle late (masks two), N=3", "[papers_core]") {
    run_core<Vpapers_core_pipe_n3>(3, uint64_t(300000 * cycles_scale()), true);
}
TEST_CASE("papers_core PIPE = 1 is the PAL a cycle late (masks two), N=20 (groups 8, 8, 4)", "[papers_core]") {
    run_core<Vpapers_core_pipe_n20>(20, uint64_t(100000 * cycles_scale()), true);
}

TEST_CASE("papers_core Table 7: IR has priority and reads as GO=0, INT=1", "[papers_core]") {
    Harness<Vpapers_core_n4> h("papers_core_table7");
    h.reset();
    // All four PEs barrier together; fire it.
    h->mask = 0xffff;
    h->s = 0xf;
    h->gi = 0;
    h.tick();
    REQUIRE(h->go == 0xf);
    h->eval();
    REQUIRE(h->go_rd == 0xf);  // (GO, INT) = (1, 0): synchronization achieved
    REQUIRE(h->int_rd == 0);
    h->gi = 0x1;                // PE0: GO causes interrupt
    h->eval();
    REQUIRE((h->go_rd & 1) == 1);  // (1, 1): interrupt for synchronization
    REQUIRE((h->int_rd & 1) == 1);
    REQUIRE((h->int_rd & 0xe) == 0);
    // PE2 raises IR; only PEs whose masks... PE2's mask contains everyone.
    h->ir = 0x4;
    h->eval();
    REQUIRE(h->go_rd == 0);     // (0, 1) for all: interrupt has priority
    REQUIRE(h->int_rd == 0xf);
    // PE2's mask now names only PE2 and PE3: only they are interrupted.
    h->mask = 0xc4ff;  // PE3: 0xc, PE2: 0x4, PE1: 0xf, PE0: 0xf
    h->eval();
    REQUIRE(h->int_rd == 0x4 + 0x1);  // PE2 (IR in its own mask) and PE0 (GO with GI)
}
