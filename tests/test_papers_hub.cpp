// papers_hub (rtl/papers/papers_hub.v), the hub top every board and the
// virtual hub instantiate, against the reference model of seed 000
// (sim/papers_model.hpp), every output pin every cycle, seeded random stimulus.
// Also its documented timing: S pin -> GO pin 4 cycles, D -> I 3 cycles.
#include "papers_model.hpp"
#include "papers_pins.hpp"
#include "seed.hpp"
#include "stim.hpp"

#include <catch2/catch.hpp>

#include <random>

using namespace aggnet;
using namespace aggnet::sim;
namespace R = aggnet::papers_regs;

namespace {

void compare_hub(unsigned n, uint64_t cycles) {
    const unsigned mw = R::mask_width(n);
    const std::string name = "papers_hub_n" + std::to_string(n);
    auto rtl = make_papers_rtl(n, name);
    PapersModel model(n);
    std::mt19937_64 rng(test_seed(name.c_str()));
    rtl->reset(3);
    model.reset(3);

    std::vector<reg_t> data(n);
    std::vector<uint8_t> ctrl(n);
    std::vector<uint64_t> mask(n);
    std::vector<bool> prev_go(n), unplugged(n);
    const reg_t floating_d = (reg_t(1) << R::reg_width(n)) - 1;
    const uint8_t floating_c = (1u << R::CTRL_WIDTH) - 1;
    uint64_t fired = 0, ints = 0, bads = 0, epoch_end = 0;
    for (uint64_t c = 0; c < cycles; ++c) {
        if (c >= epoch_end) {
            const auto part = test::random_partition(rng, n);
            for (unsigned a = 0; a < n; ++a) mask[a] = test::noisy_mask(rng, part[a], n, mw);
            epoch_end = c + 1 + rng() % 200;
        }
        for (unsigned a = 0; a < n; ++a) {
            // The PE reads GO off its Busy pin (/GO) and follows the
            // protocol with random delays, sometimes misbehaving.
            const bool go = !((model.stat(a) >> R::STATUS_GO(n)) & 1);
            reg_t& dv = data[a];
            if (rng() % 8 == 0) {
                const bool s_now = (dv >> R::DATA_S) & 1;
                const bool s_next = (rng() % 16 == 0) ? !s_now : !go;
                dv = s_next ? (dv | (reg_t(1) << R::DATA_S)) : (dv & ~(reg_t(1) << R::DATA_S));
            }
            if (!((dv >> R::DATA_S) & 1) && rng() % 4 == 0) {  // change the mask between barriers
                dv &= ~(((reg_t(1) << mw) - 1) << R::DATA_B0);
                dv |= reg_t(mask[a]) << R::DATA_B0;
            }
            if (rng() % 16 == 0) dv ^= reg_t(1) << R::DATA_D;
            if (rng() % 256 == 0) dv ^= reg_t(1) << R::DATA_IR;
            if (rng() % 64 == 0) dv ^= reg_t(1) << R::DATA_PROBE;
            if (rng() % 128 == 0) ctrl[a] ^= uint8_t(1u << (rng() % R::CTRL_WIDTH)) & ~R::CABLE_CONTROL_INVERT;
            // Now and then the PE's cable is pulled out (every pin floats
            // high, as the pull-ups hold it) and plugged back in.
            if (rng() % 4096 == 0) unplugged[a] = !unplugged[a];
            const reg_t dp = unplugged[a] ? floating_d : dv;
            const uint8_t cp = unplugged[a] ? floating_c : ctrl[a];
            rtl->set_data(a, dp);
            model.set_data(a, dp);
            rtl->set_ctrl(a, cp);
            model.set_ctrl(a, cp);
        }
        rtl->tick();
        model.tick();
        for (unsigned a = 0; a < n; ++a) {
            if (rtl->stat(a) != model.stat(a) || rtl->led(a) != model.led(a) || rtl->irq(a) != model.irq(a) ||
                rtl->bad(a) != model.bad(a)) {
                INFO(name << " cycle " << c << " PE" << a << " data " << test::hex(data[a]) << " ctrl "
                          << unsigned(ctrl[a]) << (unplugged[a] ? " (unplugged)" : ""));
                REQUIRE(test::hex(rtl->stat(a)) == test::hex(model.stat(a)));
                REQUIRE(test::hex(rtl->led(a)) == test::hex(model.led(a)));
                REQUIRE(rtl->irq(a) == model.irq(a));
                REQUIRE(rtl->bad(a) == model.bad(a));
            }
            const bool g = model.go_register(a);
            fired += g && !prev_go[a];
            prev_go[a] = g;
            ints += (model.stat(a) >> R::STATUS_INT(n)) & 1;
            bads += model.bad(a);
        }
    }
    INFO(name << ": barriers fired " << fired << ", INT cycles " << ints << ", bad-mask cycles " << bads);
    CHECK(fired > cycles / 1000);
    CHECK(ints > 0);
    if (n < 4) CHECK(bads > 0);
}

}  // namespace

// >= 10^7 compared cycles per run across N = 4 and N = 16 (AGGNET_CYCLES_SCALE scales).
TEST_CASE("papers_hub matches the reference model, N=4", "[papers_hub][long]") {
    compare_hub(4, uint64_t(6000000 * cycles_scale()));
}
TEST_CASE("papers_hub matches the reference model, N=16", "[papers_hub][long]") {
    compare_hub(16, uint64_t(4000000 * cycles_scale()));
}
TEST_CASE("papers_hub matches the reference model, N=2, 3, 8, 64", "[papers_hub]") {
    for (unsigned n : {2u, 3u, 8u, 64u}) compare_hub(n, uint64_t(100000 * cycles_scale()));
}

TEST_CASE("papers_hub timing: last S pin to GO on every pin in 4 cycles, D to I in 3", "[papers_hub][timing]") {
    for (unsigned n : papers_rtl_sizes()) {
        auto hub = make_papers_rtl(n, "timing_n" + std::to_string(n), 100000);
        hub->reset(3);
        const reg_t all = ((reg_t(1) << n) - 1) << R::DATA_B0;
        // Everyone but PE n-1 arrives, with D = 1 on PE n-1 only at the end.
        for (unsigned a = 0; a + 1 < n; ++a) hub->set_data(a, all | (reg_t(1) << R::DATA_S));
        hub->set_data(n - 1, all);
        for (int i = 0; i < 10; ++i) hub->tick();
        for (unsigned a = 0; a < n; ++a) REQUIRE(((hub->stat(a) >> R::STATUS_GO(n)) & 1) == 1);  // Busy pin high: no GO
        hub->set_data(n - 1, all | (reg_t(1) << R::DATA_S) | (reg_t(1) << R::DATA_D));
        unsigned go_cycles = 0, d_cycles = 0;
        for (unsigned c = 1; c <= 10; ++c) {
            hub->tick();
            bool every = true;
            for (unsigned a = 0; a < n; ++a) every = every && !((hub->stat(a) >> R::STATUS_GO(n)) & 1);
            if (every && !go_cycles) go_cycles = c;
            // PE0 sees PE n-1's D on I_(n-2).
            if (!d_cycles && ((hub->stat(0) >> (R::STATUS_I0 + n - 2)) & 1)) d_cycles = c;
        }
        INFO("N=" << n);
        REQUIRE(go_cycles == 4);
        REQUIRE(d_cycles == 3);
    }
}

// Presence (rtl/papers/papers_hub.v, tools/regmap.py CABLE_ACTIVE_LOW): an
// unplugged PE's pins float high (pull-ups), which at the seed's polarity is
// S up with every mask bit set.  It must never fire anyone's barrier nor keep
// one from firing, and it must show nothing on its LEDs.  Checked on the RTL
// and on the reference model alike, and against each other.
TEST_CASE("papers_hub: an unplugged PE (pins pulled high) never fires or blocks a barrier", "[papers_hub][presence]") {
    for (unsigned n : {4u, 16u}) {
        auto rtl = make_papers_rtl(n, "presence_n" + std::to_string(n), 100000);
        PapersModel model(n);
        std::vector<PapersPins*> hubs{rtl.get(), &model};
        const unsigned gone = n - 1;
        const reg_t floating_d = (reg_t(1) << R::reg_width(n)) - 1;
        const uint8_t floating_c = (1u << R::CTRL_WIDTH) - 1;
        const auto s_bit = reg_t(1) << R::DATA_S;
        const auto m = [](uint64_t pes) { return reg_t(pes) << R::DATA_B0; };
        const uint64_t others = ((uint64_t(1) << n) - 1) & ~(uint64_t(1) << gone);
        const auto go = [&](PapersPins* h, unsigned a) { return !((h->stat(a) >> R::STATUS_GO(n)) & 1); };
        for (PapersPins* h : hubs) {
            INFO("N=" << n << (h == &model ? " model" : " RTL"));
            h->reset(3);
            h->set_data(gone, floating_d);
            h->set_ctrl(gone, floating_c);
            // PE0 waits for PE0 + the unplugged PE: must not fire, however long.
            h->set_data(0, m(1 | uint64_t(1) << gone) | s_bit);
            for (unsigned a = 1; a < gone; ++a) h->set_data(a, m(uint64_t(1) << a));
            for (int i = 0; i < 64; ++i) {
                h->tick();
                REQUIRE_FALSE(go(h, 0));
            }
            REQUIRE(h->led(gone) == 0);  // a dark column: no S, no mask, no CE
            // The others barrier among themselves while it floats: fires in 4 cycles.
            for (unsigned a = 0; a < gone; ++a) h->set_data(a, m(others) | s_bit);
            unsigned at = 0;
            for (unsigned c = 1; c <= 8 && !at; ++c) {
                h->tick();
                bool every = true;
                for (unsigned a = 0; a < gone; ++a) every = every && go(h, a);
                if (every) at = c;
            }
            REQUIRE(at == 4);
            REQUIRE_FALSE(go(h, gone));
            // Plugged in (CE driven, pin low) with S low and a mask of itself:
            // present, idle; it now shows CE on its LED column.
            for (unsigned a = 0; a < gone; ++a) h->set_data(a, m(others));
            h->set_data(gone, m(uint64_t(1) << gone));
            h->set_ctrl(gone, 0);  // cable levels: CE low (present), U0, U1, GI low
            for (int i = 0; i < 8; ++i) h->tick();
            REQUIRE(((h->led(gone) >> (R::mask_width(n) + 5)) & 1) == 1);
            // ... and joins a barrier of everyone, which fires.
            const uint64_t all = (uint64_t(1) << n) - 1;
            for (unsigned a = 0; a < n; ++a) h->set_data(a, m(all) | s_bit);
            for (int i = 0; i < 4; ++i) h->tick();
            for (unsigned a = 0; a < n; ++a) REQUIRE(go(h, a));
        }
    }
}
