// aggnet_hub (rtl/hub): the one hub top, reached through its link port by
// libaggnet's LinkClient, exactly as a host reaches a board's UART or the
// virtual hub's socket.  Checks:
//   * the INFO window against tools/linkgen.py's INFO table (identity, size,
//     engines, clock, the PAPERS register-map hash, a running cycle counter,
//     link statistics) and its refusals;
//   * the engine slots (tools/hubgen.py): the `hub` family is the full hub,
//     which every engine joins in its own manifest ("hub_models": NAND,
//     BESU and the scratch engine set their EN_<NAME> there), so at N = 4
//     it carries every engine of the generated registry (aggnet/engines.hpp);
//     a hub built with every engine left out (EN_PAPERS = 0) says so
//     in HELLO, answers NO_REG in their windows and drives their pins low;
//   * the PAPERS window against docs/papers_regmap.md "The PAPERS window on
//     the link" and seed 000: barriers of PEs on the link, barriers mixing
//     link PEs and cabled PEs (driven pin by pin as a PC port would), the
//     waitvec data vector in PE order (Table 4 un-rotated), PROBE, OWNER
//     handing a PE between its pins and the link, masks beyond N ignored,
//     the registers of N > 32 hubs, refusals;
//   * the barrier property on the hub's clock: no PE is told GO before every
//     PE of the mask had its S write taken by the hub.
#include "Vaggnet_hub_bare.h"
#include "hub_rtl.hpp"
#include "link_stream.hpp"
#include "seed.hpp"

#include <aggnet/engines.hpp>
#include <aggnet/error.hpp>
#include <aggnet/link_client.hpp>
#include <aggnet/besu_regs.hpp>
#include <aggnet/link_defs.hpp>
#include <aggnet/nand_regs.hpp>
#include <aggnet/papers_regs.hpp>
#include <catch2/catch.hpp>

#include <chrono>
#include <random>
#include <vector>

using namespace aggnet;
using namespace aggnet::link;
using aggnet::sim::HubModel;
using std::chrono::nanoseconds;
namespace D = aggnet::link_defs;
namespace R = aggnet::papers_regs;

namespace {

constexpr uint64_t NS_PER_CYCLE = 20;
constexpr uint64_t CLK_HZ = 48000000;  // as verilated (tests/hub.cmake)

uint16_t info(uint16_t reg) { return uint16_t(D::WIN_INFO << 12 | reg); }
uint16_t pap(uint16_t reg) { return uint16_t(D::WIN_PAPERS << 12 | reg); }

/// The Verilated hub behind a LinkPipe; cabled PEs' pins set directly.
struct HubBench : LinkPipe {
    std::unique_ptr<HubModel> hm;
    HubModel& h;
    unsigned n;
    aggnet::sim::LinkStream rxq;
    std::vector<uint8_t> hostq;

    HubBench(const std::string& name, unsigned n_) : HubBench(aggnet::sim::make_hub_rtl(n_, name, 50'000'000)) {}
    explicit HubBench(std::unique_ptr<HubModel> m) : hm(std::move(m)), h(*hm), n(hm->pes()) { h.reset(); }
    void tick() {
        rxq.drive(h, h.cycle());
        const bool txv = h.tx_valid();
        const uint8_t txb = h.tx_data();
        h.tick();
        if (txv) hostq.push_back(txb);
    }
    void ticks(unsigned k) {
        for (unsigned i = 0; i < k; ++i) tick();
    }
    // LinkPipe
    void send(const uint8_t* data, size_t len) override { rxq.push(data, len); }
    size_t recv(uint8_t* buf, size_t cap, nanoseconds until) override {
        while (hostq.empty() && now() < until) tick();
        const size_t k = std::min(cap, hostq.size());
        std::copy(hostq.begin(), hostq.begin() + long(k), buf);
        hostq.erase(hostq.begin(), hostq.begin() + long(k));
        return k;
    }
    nanoseconds now() override { return nanoseconds(h.cycle() * NS_PER_CYCLE); }
    void deliver(LinkClient& c) {
        if (!hostq.empty()) {
            c.feed(hostq.data(), hostq.size());
            hostq.clear();
        }
    }
    // A cabled PE: its parallel-port pins, in register layout (papers_hub).
    void pin_data(unsigned pe, reg_t v) { h.set_data(pe, v); }
    void pin_ctrl(unsigned pe, uint8_t v) { h.set_ctrl(pe, v); }
    reg_t pin_stat(unsigned pe) { return h.stat(pe); }
    bool pin_go(unsigned pe) { return h.go(pe); }
    /// PE pe's I bits in PE order, as the host's IToMask does.
    uint64_t pin_ivec(unsigned pe) {
        const reg_t st = pin_stat(pe);
        uint64_t m = 0;
        for (unsigned k = 0; k + 1 < n; ++k)
            if ((st >> (R::STATUS_I0 + k)) & 1) m |= uint64_t(1) << ((pe + k + 1) % n);
        return m;
    }
    /// What the hub's display sees for PE pe: {CE, IR, U1, U0, D, S, mask}.
    reg_t led(unsigned pe) { return h.led(pe); }
    bool led_s(unsigned pe) { return (led(pe) >> R::mask_width(n)) & 1; }
};

LinkConfig cfg() {
    LinkConfig c;
    c.resend_timeout = nanoseconds(4000 * NS_PER_CYCLE);
    c.max_attempts = 4;
    c.idle_timeout = nanoseconds(2000 * NS_PER_CYCLE);
    return c;
}

uint8_t err_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const RegisterError& e) {
        return e.code;
    }
    return 0;
}

}  // namespace

TEST_CASE("aggnet_hub: the INFO window tells what the hub is", "[hub][link]") {
    HubBench b("hub_info_n4", 4);
    LinkClient c(b, "hub:n4", cfg());
    const HelloInfo hi = c.hello(2);
    CHECK(hi.version == D::VERSION);
    CHECK(hi.hub_pes == 4);
    CHECK(hi.port_pes == 4);
    // The hub family's models build every engine that has a slot in the hub
    // (each joins it in its manifest's hub_models), and aggnet/engines.hpp
    // lists those slots.
    uint32_t all = 1u << D::WIN_INFO;
    for (const auto& e : aggnet::engines::kEngines) all |= 1u << e.window;
    CHECK(hi.engines == all);
    CHECK(hi.clk_hz == CLK_HZ);
    CHECK(c.read(2, info(D::INFO_MAGIC), 4) == D::INFO_MAGIC_VALUE);
    CHECK(c.read(2, info(D::INFO_VERSION), 4) == D::VERSION);
    CHECK(c.read(0, info(D::INFO_HUB_PES), 4) == 4);
    CHECK(c.read(0, info(D::INFO_ENGINES), 4) == hi.engines);
    CHECK(c.read(0, info(D::INFO_CLK_KHZ), 4) == CLK_HZ / 1000);
    // The map hash a host checks before it trusts its header (tools/regmap.py,
    // nandgen.py, besugen.py), and every engine's as the generated registry
    // has it (tools/hubgen.py).
    CHECK(c.read(0, info(D::INFO_MAP_HASH + D::WIN_PAPERS), 4) == R::MAP_HASH);
    CHECK(c.read(0, info(D::INFO_MAP_HASH + D::WIN_NAND), 4) == aggnet::nand_regs::MAP_HASH);
    CHECK(c.read(0, info(D::INFO_MAP_HASH + D::WIN_BESU), 4) == aggnet::besu::regs::MAP_HASH);
    for (const auto& e : aggnet::engines::kEngines) {
        INFO("engine " << e.name);
        CHECK(c.read(0, info(uint16_t(D::INFO_MAP_HASH + e.window)), 4) == e.map_hash);
    }
    CHECK(c.read(0, info(D::INFO_MAP_HASH + D::WIN_INFO), 4) == 0);
    CHECK(c.read(0, info(D::INFO_MAP_HASH + 7), 4) == 0);
    // The cycle counter runs, and HI is latched by the LO read.
    const uint32_t c0 = c.read(1, info(D::INFO_CYCLE_LO), 4);
    CHECK(c.read(1, info(D::INFO_CYCLE_HI), 4) == 0);
    b.ticks(1000);
    const uint32_t c1 = c.read(1, info(D::INFO_CYCLE_LO), 4);
    CHECK(c1 - c0 >= 1000);
    CHECK(c1 < b.h.cycle());
    // Link statistics: frames so far were all good.
    CHECK(c.read(3, info(D::INFO_STAT + D::STAT_FRAMES_OK), 4) > 10);
    CHECK(c.read(3, info(D::INFO_STAT + D::STAT_CRC_ERR), 4) == 0);
    // Read-only; unknown registers; windows without an engine.
    CHECK(err_of([&] { c.write(0, info(D::INFO_MAGIC), 1, 4); }) == D::ERR_REFUSED);
    CHECK(err_of([&] { c.read(0, info(0x0ff), 4); }) == D::ERR_NO_REG);
    CHECK(err_of([&] { c.read(0, info(D::INFO_STAT + D::STAT_COUNT), 4); }) == D::ERR_NO_REG);
    // Window 2: the NAND engine's SHAPE (N, and NAND_T = 4 trees by default).
    CHECK(c.read(1, uint16_t(D::WIN_NAND << 12 | 0x003), 4) == (4u << 8 | 4u));
    // Window 3: the BESU engine's SHAPE for PE1: node 1 of the 2x2x1 mesh the
    // hub derives from N = 4, with BESU_NB = 8 (rtl/besu/manifest.json, hub_models).
    CHECK(c.read(1, uint16_t(D::WIN_BESU << 12 | 0x403), 4) == (8u | 2u << 8 | 2u << 12 | 1u << 16 | 1u << 20));
    for (unsigned win = 1; win < 16; ++win) {
        if (all >> win & 1) continue;
        INFO("window " << win);
        CHECK(err_of([&] { c.read(0, uint16_t(win << 12), 4); }) == D::ERR_NO_REG);
    }
    // Window 15: the scratch engine (rtl/scratch/scratch_regs.v's map): its
    // ID, the requesting PE, and a write counter that counts each write once.
    const uint16_t scr = uint16_t(D::WIN_SCRATCH << 12);
    CHECK(c.read(3, scr | 0x000, 4) == 0x53435201u);
    CHECK(c.read(3, scr | 0x001, 4) == 3);
    const uint32_t w0 = c.read(0, scr | 0x002, 4);
    c.write(1, scr | 0x010, 0xdeadbeef, 4);
    c.write(2, scr | 0x011, 0x5a, 1);
    CHECK(c.read(0, scr | 0x010, 4) == 0xdeadbeef);
    CHECK(c.read(0, scr | 0x002, 4) == w0 + 2);
    CHECK(c.read(0, info(D::INFO_MAP_HASH + D::WIN_SCRATCH), 4) == 0);
}

TEST_CASE("aggnet_hub: a hub built without its engines says so, answers NO_REG and drives their pins low",
          "[hub][link]") {
    HubBench b(std::make_unique<aggnet::sim::HubRtl<Vaggnet_hub_bare>>(2, "hub_bare_n2", 50'000'000));
    LinkClient c(b, "hub:bare", cfg());
    const HelloInfo hi = c.hello(1);
    CHECK(hi.engines == (1u << D::WIN_INFO));
    CHECK(hi.hub_pes == 2);
    CHECK(c.read(0, info(D::INFO_ENGINES), 4) == (1u << D::WIN_INFO));
    for (unsigned win = 1; win < 16; ++win) {
        INFO("window " << win);
        CHECK(c.read(0, info(uint16_t(D::INFO_MAP_HASH + win)), 4) == 0);
    }
    for (unsigned win = 1; win < 16; ++win) {
        INFO("window " << win);
        CHECK(err_of([&] { c.read(0, uint16_t(win << 12), 4); }) == D::ERR_NO_REG);
        CHECK(err_of([&] { c.write(1, uint16_t(win << 12 | 1), 0xf, 1); }) == D::ERR_NO_REG);
    }
    // The PAPERS pins of a hub without PAPERS: whatever the PEs drive, the
    // status and display pins stay low (no GO, no Busy, no interrupt).
    for (unsigned pe = 0; pe < 2; ++pe) {
        b.pin_data(pe, (reg_t(0xf) << R::DATA_B0) | (reg_t(1) << R::DATA_S) | 1);
        b.pin_ctrl(pe, 0x1f);
    }
    b.ticks(50);
    for (unsigned pe = 0; pe < 2; ++pe) {
        CHECK(b.pin_stat(pe) == 0);
        CHECK(b.led(pe) == 0);
    }
}

TEST_CASE("aggnet_hub: PAPERS window registers, refusals, OWNER and the pins", "[hub][link]") {
    HubBench b("hub_regs_n4", 4);
    LinkClient c(b, "hub:n4", cfg());
    // After reset every PE is on its pins.
    for (unsigned pe = 0; pe < 4; ++pe) CHECK(c.read(pe, pap(R::W_OWNER), 1) == 0);
    // PE2's cable says S; the hub sees it (LED display), the link does not own it.
    b.pin_data(2, reg_t(1) << R::DATA_S);
    b.ticks(8);
    CHECK(b.led_s(2));
    // A write of SIG moves PE2 onto the link: now the register drives it.
    c.write(2, pap(R::W_SIG), 0, 1);
    CHECK(c.read(2, pap(R::W_OWNER), 1) == 1);
    b.ticks(8);
    CHECK_FALSE(b.led_s(2));
    c.write(2, pap(R::W_SIG), 1u << R::DATA_S, 1);
    b.ticks(8);
    CHECK(b.led_s(2));
    CHECK(c.read(2, pap(R::W_SIG), 1) == 1u << R::DATA_S);
    // OWNER = 0 hands it back to the pins.
    b.pin_data(2, 0);
    c.write(2, pap(R::W_OWNER), 0, 1);
    b.ticks(8);
    CHECK_FALSE(b.led_s(2));
    // Read-back of what was written; each PE has its own registers.
    c.write(1, pap(R::W_MASK0), 0x6, 1);
    c.write(3, pap(R::W_MASK0), 0x9, 1);
    c.write(1, pap(R::W_CTRL), 0x1f, 1);
    CHECK(c.read(1, pap(R::W_MASK0), 4) == 0x6);
    CHECK(c.read(3, pap(R::W_MASK0), 4) == 0x9);
    CHECK(c.read(1, pap(R::W_CTRL), 1) == 0x1f);
    CHECK(c.read(3, pap(R::W_CTRL), 1) == 1u << R::CONTROL_CE);  // reset value: present
    // Mask bits for PEs >= N are not stored.
    c.write(0, pap(R::W_MASK0), 0xffffffffu, 4);
    CHECK(c.read(0, pap(R::W_MASK0), 4) == 0xf);
    // Refusals: read-only registers; registers that do not exist at N = 4.
    CHECK(err_of([&] { c.write(0, pap(R::W_STAT), 1, 1); }) == D::ERR_REFUSED);
    CHECK(err_of([&] { c.write(0, pap(R::W_IVEC0), 1, 1); }) == D::ERR_REFUSED);
    CHECK(err_of([&] { c.read(0, pap(R::W_MASK1), 4); }) == D::ERR_NO_REG);
    CHECK(err_of([&] { c.read(0, pap(R::W_IVEC1), 4); }) == D::ERR_NO_REG);
    CHECK(err_of([&] { c.read(0, pap(0x0ff), 4); }) == D::ERR_NO_REG);
    // STAT decodes Table 7: IR of PE1 (mask 0x6 names PE2) interrupts PE2.
    c.write(2, pap(R::W_MASK0), 0x4, 1);
    c.write(1, pap(R::W_SIG), 1u << R::DATA_IR, 1);
    const uint32_t st2 = c.wait(2, pap(R::W_STAT), 1u << R::W_STAT_INT, 1u << R::W_STAT_INT, 1,
                                nanoseconds(20000 * NS_PER_CYCLE));
    CHECK(((st2 >> R::W_STAT_INT) & 1) == 1);
    CHECK(((c.read(3, pap(R::W_STAT), 1) >> R::W_STAT_INT) & 1) == 0);  // PE3 is not in PE1's mask
}

namespace {

/// Rounds of waitvec-style barriers: link PEs through the client (non-blocking,
/// all at once), cabled PEs by pins.  Returns after `rounds`; checks every
/// vector and the barrier order on the hub clock.
void barrier_rounds(HubBench& b, LinkClient& c, uint64_t cabled, unsigned rounds, uint64_t seed) {
    const unsigned n = b.n;
    const uint64_t all = (n >= 64) ? ~uint64_t(0) : (uint64_t(1) << n) - 1;
    std::mt19937_64 rng(seed);
    // Everybody's mask: all PEs.
    for (unsigned pe = 0; pe < n; ++pe) {
        if (cabled >> pe & 1) {
            b.pin_data(pe, reg_t(all) << R::DATA_B0);
        } else {
            c.write(pe, pap(R::W_MASK0), uint32_t(all), 4);
            if (n > 32) c.write(pe, pap(R::W_MASK1), uint32_t(all >> 32), 4);
        }
    }
    // A PC sets its mask well before it raises S (seed 000): cabled pins pass
    // the hub's synchronizer and input register first.  Without this, a
    // cabled PE whose mask was set last and whose S came a cycle or two
    // later (round 0, a short delay) was seen alone in its old mask and let
    // through by itself, and the others waited for it forever.
    b.ticks(64);
    enum Step { RaiseS, WaitGo, ReadLo, ReadHi, DropS, WaitReset, Done };
    for (unsigned r = 0; r < rounds; ++r) {
        INFO("round " << r);
        std::vector<bool> d(n);
        for (unsigned pe = 0; pe < n; ++pe) d[pe] = rng() & 1;
        uint64_t dvec = 0;
        for (unsigned pe = 0; pe < n; ++pe) dvec |= uint64_t(d[pe]) << pe;
        std::vector<Step> step(n, RaiseS);
        std::vector<uint64_t> sent_s(n, 0), got_go(n, 0), vec(n, 0);
        std::vector<unsigned> delay(n);
        for (unsigned pe = 0; pe < n; ++pe) delay[pe] = unsigned(rng() % 400);  // uneven arrival
        const uint64_t start = b.h.cycle();
        auto all_done = [&] {
            for (auto s : step)
                if (s != Done) return false;
            return true;
        };
        while (!all_done()) {
            REQUIRE(b.h.cycle() - start < 2'000'000);
            for (unsigned pe = 0; pe < n; ++pe) {
                const reg_t pins = (reg_t(all) << R::DATA_B0) | (d[pe] ? reg_t(1) << R::DATA_D : 0);
                if (cabled >> pe & 1) {
                    // A PC port doing _p_waitvec() (seed 000 section 4.3.3) by pins.
                    switch (step[pe]) {
                    case RaiseS:
                        if (b.h.cycle() - start < delay[pe]) break;
                        b.pin_data(pe, pins | (reg_t(1) << R::DATA_S));
                        sent_s[pe] = b.h.cycle();
                        step[pe] = WaitGo;
                        break;
                    case WaitGo:
                        if (b.pin_go(pe)) got_go[pe] = b.h.cycle(), step[pe] = ReadLo;
                        break;
                    case ReadLo:
                        vec[pe] = b.pin_ivec(pe);
                        b.pin_data(pe, pins);
                        step[pe] = WaitReset;
                        break;
                    case WaitReset:
                        if (!b.pin_go(pe)) step[pe] = Done;
                        break;
                    default: break;
                    }
                    continue;
                }
                if (c.busy(pe) && !c.done(pe)) continue;
                LinkResult res;
                if (c.done(pe)) {
                    res = c.take(pe);
                    REQUIRE(res.kind == LinkResult::ok);
                }
                const uint32_t s_bits = (1u << R::DATA_S) | (d[pe] ? 1u << R::DATA_D : 0);
                switch (step[pe]) {
                case RaiseS:
                    if (b.h.cycle() - start < delay[pe]) break;
                    c.start_write(pe, pap(R::W_SIG), s_bits, 1);
                    sent_s[pe] = b.h.cycle();
                    step[pe] = WaitGo;
                    c.poll();
                    break;
                case WaitGo:
                    if (res.op == D::OP_WRITE) {  // S taken: wait for GO
                        c.start_wait(pe, pap(R::W_STAT), 1u << R::W_STAT_GO, 1u << R::W_STAT_GO, 1,
                                     b.now() + nanoseconds(1'000'000 * NS_PER_CYCLE));
                    } else {
                        got_go[pe] = b.h.cycle();
                        c.start_read(pe, pap(R::W_IVEC0), 4);
                        step[pe] = ReadLo;
                    }
                    break;
                case ReadLo:
                    vec[pe] = res.value;
                    if (n > 32) {
                        c.start_read(pe, pap(R::W_IVEC1), 4);
                        step[pe] = ReadHi;
                    } else {
                        c.start_write(pe, pap(R::W_SIG), s_bits & ~(1u << R::DATA_S), 1);
                        step[pe] = DropS;
                    }
                    break;
                case ReadHi:
                    vec[pe] |= uint64_t(res.value) << 32;
                    c.start_write(pe, pap(R::W_SIG), s_bits & ~(1u << R::DATA_S), 1);
                    step[pe] = DropS;
                    break;
                case DropS:
                    c.start_wait(pe, pap(R::W_STAT), 1u << R::W_STAT_GO, 0, 1,
                                 b.now() + nanoseconds(1'000'000 * NS_PER_CYCLE));
                    step[pe] = WaitReset;
                    break;
                case WaitReset:
                    step[pe] = Done;
                    break;
                default: break;
                }
            }
            c.poll();
            b.tick();
            b.deliver(c);
        }
        const uint64_t last_s = *std::max_element(sent_s.begin(), sent_s.end());
        for (unsigned pe = 0; pe < n; ++pe) {
            INFO("PE" << pe << (cabled >> pe & 1 ? " (cabled)" : " (link)"));
            CHECK(got_go[pe] > last_s);  // nobody told GO before the last S was sent
            CHECK(vec[pe] == (dvec & ~(uint64_t(1) << pe)));  // everybody else's D, in PE order
        }
    }
}

}  // namespace

TEST_CASE("aggnet_hub: PAPERS barriers and waitvec over the link, and mixed with cabled PEs", "[hub][link]") {
    const uint64_t seed = aggnet::sim::test_seed("hub_barriers");
    SECTION("N = 4, every PE on the link") {
        HubBench b("hub_bar_n4", 4);
        LinkClient c(b, "hub:n4", cfg());
        barrier_rounds(b, c, 0x0, 25, seed);
    }
    SECTION("N = 4, PEs 0 and 3 cabled, 1 and 2 on the link") {
        HubBench b("hub_mixed_n4", 4);
        LinkClient c(b, "hub:n4", cfg());
        barrier_rounds(b, c, 0x9, 25, seed + 1);
    }
    SECTION("N = 3 (four mask bits, one absent PE)") {
        HubBench b("hub_bar_n3", 3);
        LinkClient c(b, "hub:n3", cfg());
        barrier_rounds(b, c, 0x4, 25, seed + 2);
    }
    SECTION("N = 40: MASK1 and IVEC1, cabled and link PEs above 32") {
        HubBench b("hub_bar_n40", 40);
        LinkClient c(b, "hub:n40", cfg());
        barrier_rounds(b, c, (uint64_t(1) << 35) | 0x3, 4, seed + 3);
    }
}

TEST_CASE("aggnet_hub: PROBE shows who has arrived; a barrier waits for every PE of the mask", "[hub][link]") {
    HubBench b("hub_probe_n4", 4);
    LinkClient c(b, "hub:n4", cfg());
    for (unsigned pe = 0; pe < 4; ++pe) c.write(pe, pap(R::W_MASK0), 0xf, 1);
    // PE1 and PE3 arrive; PE0 probes.
    c.write(1, pap(R::W_SIG), 1u << R::DATA_S, 1);
    c.write(3, pap(R::W_SIG), 1u << R::DATA_S | 1u << R::DATA_D, 1);
    c.write(0, pap(R::W_SIG), 1u << R::DATA_PROBE, 1);
    b.ticks(8);
    CHECK(c.read(0, pap(R::W_IVEC0), 4) == 0xa);  // arrived: PE1, PE3
    c.write(0, pap(R::W_SIG), 0, 1);
    b.ticks(8);
    CHECK(c.read(0, pap(R::W_IVEC0), 4) == 0x8);  // D bits: PE3 only
    // Without PE2 nobody gets GO, however long we wait.
    c.write(0, pap(R::W_SIG), 1u << R::DATA_S, 1);
    CHECK_THROWS_AS(c.wait(0, pap(R::W_STAT), 1u << R::W_STAT_GO, 1u << R::W_STAT_GO, 1,
                           nanoseconds(50000 * NS_PER_CYCLE)),
                    TimeoutError);
    c.write(2, pap(R::W_SIG), 1u << R::DATA_S, 1);
    for (unsigned pe = 0; pe < 4; ++pe)
        CHECK(c.wait(pe, pap(R::W_STAT), 1u << R::W_STAT_GO, 1u << R::W_STAT_GO, 1,
                     nanoseconds(50000 * NS_PER_CYCLE)) &
              (1u << R::W_STAT_GO));
}
