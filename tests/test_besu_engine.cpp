// besu_engine (rtl/besu/), the barrier/eureka units of seed 001, on its bus:
//   * besu_ctl, every input, against sim/besu_model.hpp's ctl_ref() (written
//     from Tables 2-5), and the seed's own stated transitions as literal rows;
//   * the seed's worked examples step by step: the 4-PE barrier of figure 1,
//     the polled method on BESU 3 (000 -> 100 -> 110), the interrupt method
//     (101 -> 111 with IR_STATUS), eureka with interrupt then a barrier
//     (001 -> 011, then 101 -> 111);
//   * random partitions (several per BESU, different roots), arrival orders
//     and operations on a 2x2x2 and a 4x4x1 mesh against FabricModel, the
//     whole fabric's reference, compared whenever the fabric is quiet;
//   * bad input: the reserved code, a BESU beyond NB, user writes to
//     BAR_CFG and FAULT, a wrong key, BAR_CFG values the node cannot hold, a
//     mis-wired tree (STRAY), a cut link;
//   * the latency bound: a barrier completes everywhere within 2 * depth + 3
//     cycles of the last join;
//   * the CALL registers (docs/besu_regmap.md, "CALL registers"): BAR_CALL
//     with the Table 3 codes that wait (100, 101, 110) and the wait-only
//     operands, asks, CANCEL's three outcomes, BUSY, CALLARG, NOWAIT, no
//     supervisor operation through a CALL, in the random runs and directed,
//     against FabricModel::call.
#include "besu_bus.hpp"
#include "besu_model.hpp"
#include "harness.hpp"
#include "seed.hpp"

#include <Vbesu_ctl.h>
#include <Vbesu_engine_2x2x2.h>
#include <Vbesu_engine_4x4x1.h>
#include <aggnet/besu.hpp>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

using aggnet::sim::Harness;
namespace M = aggnet::sim::besu;

namespace {

/// A bus master on the Verilated engine (sim/besu_bus.hpp): one request at a time.
template <class V>
using Bus = M::EngineBus<V>;

aggnet::besu::Mesh mesh_of(const M::Mesh& m) { return aggnet::besu::Mesh{m.X, m.Y, m.Z}; }

// ---- BAR_CTL -----------------------------------------------------------------------

TEST_CASE("besu_ctl: every input against the seed's tables (ctl_ref)", "[besu][ctl]") {
    VerilatedContext ctx;
    Vbesu_ctl dut(&ctx);
    Vbesu_ctl* h = &dut;  // combinational: no clock, no harness
    unsigned rows = 0;
    for (unsigned s = 0; s < 8; ++s)
        for (unsigned net = 0; net < 4; ++net)
            for (unsigned wr = 0; wr < 2; ++wr)
                for (unsigned code = 0; code < 8; ++code)
                    for (unsigned member = 0; member < 2; ++member)
                        for (unsigned sup = 0; sup < 2; ++sup) {
                            h->state = s, h->net_op = net, h->wr = wr, h->code = code, h->member = member, h->sup = sup;
                            h->eval();
                            const M::CtlOut o = M::ctl_ref(s, net, wr, code, member, sup);
                            INFO("state " << s << " net " << net << " wr " << wr << " code " << code << " member "
                                          << member << " super " << sup);
                            REQUIRE(unsigned(h->next) == o.next);
                            REQUIRE(unsigned(h->op) == o.op);
                            REQUIRE(bool(h->refused) == o.refused);
                            if (o.refused) REQUIRE(unsigned(h->cause) == o.cause);
                            REQUIRE(bool(h->ir) == o.ir);
                            REQUIRE(bool(h->rst_router) == o.rst_router);
                            // Table 4: an accepted write sends its code's opcode
                            if (wr && !o.refused) REQUIRE(unsigned(h->op) == M::TABLE4[code]);
                            ++rows;
                        }
    CHECK(rows == 2048);
    // The transitions seed 001 states in words, as literal rows:
    // {state, net, code (8: no write), next, opcode, ir}
    struct Row {
        unsigned s, net, code, next, op;
        bool ir;
        const char* where;
    };
    const Row rows_seed[] = {
        {0b000, 0, 0b100, 0b100, 0b10, false, "figure 8: write 100 to BAR_CTL[1]: 000 -> 100, opcode 10"},
        {0b100, 0b10, 8, 0b110, 0, false, "figure 9: barrier completed: 100 -> 110"},
        {0b000, 0, 0b101, 0b101, 0b10, false, "interrupt method step 3: 101, opcode 10"},
        {0b101, 0b10, 8, 0b111, 0, true, "interrupt method steps 6-7: 101 -> 111, IR_STATUS"},
        {0b000, 0, 0b011, 0b001, 0b00, false, "eureka interrupt step 3: write 011, state 001"},
        {0b001, 0, 0b010, 0b011, 0b01, true, "eureka interrupt steps 4-6: write 010: 011, opcode 01"},
        {0b001, 0b01, 8, 0b011, 0, true, "eureka interrupt steps 8-9: eureka received: 001 -> 011, IR_STATUS"},
        {0b011, 0, 0b101, 0b101, 0b10, false, "eureka interrupt steps 13-14: write 101: 101, opcode 10"},
        {0b000, 0, 0b110, 0b100, 0b11, false, "Table 4: 110 sends 11 (eureka/barrier)"},
        {0b000, 0, 0b000, 0b000, 0b00, false, "Table 4: 000 clear, 00"},
    };
    for (const Row& r : rows_seed) {
        h->state = r.s, h->net_op = r.net, h->wr = r.code < 8, h->code = r.code & 7, h->member = 1, h->sup = 0;
        h->eval();
        INFO(r.where);
        CHECK(unsigned(h->next) == r.next);
        CHECK(unsigned(h->op) == r.op);
        CHECK(bool(h->ir) == r.ir);
        CHECK(!h->refused);
    }
    dut.final();
}

// ---- the seed's worked examples -------------------------------------------------------

TEST_CASE("besu: figure 1, a 4-PE barrier with node n as the root", "[besu][seed]") {
    Bus<Vbesu_engine_2x2x2> bus("besu_fig1");
    const M::Mesh m{2, 2, 2};
    const std::vector<unsigned> pes{0, 1, 2, 3};  // nodes n .. n+3 (n = 0), the z = 0 plane
    const auto cfg = aggnet::besu::plan(mesh_of(m), pes, 0);
    aggnet::besu::validate(mesh_of(m), cfg);
    const unsigned b = 1;
    bus.load(b, cfg);
    // step 2: nodes n+1, n+2, n+3 arrive, in that order; the barrier is not complete
    for (unsigned pe : {1u, 2u, 3u}) {
        bus.write(pe, uint16_t(M::R_CTL + b), M::OP_BAR);
        bus.settle();
        for (unsigned q : pes) CHECK(bus.state(q, b) == (q <= pe && q != 0 ? M::S_ARM : M::S_IDLE));
    }
    // step 3: the root arrives and completes; step 4: every PE sees it
    bus.write(0, uint16_t(M::R_CTL + b), M::OP_BAR);
    bus.settle();
    for (unsigned q : pes) CHECK(bus.state(q, b) == M::S_BAR);
    for (unsigned q = 4; q < 8; ++q) CHECK(bus.state(q, b) == M::S_IDLE);  // not in the partition
}

TEST_CASE("besu: polled method on BESU 3 (000 -> 100 -> 110)", "[besu][seed]") {
    Bus<Vbesu_engine_2x2x2> bus("besu_polled");
    const M::Mesh m{2, 2, 2};
    std::vector<unsigned> all{0, 1, 2, 3, 4, 5, 6, 7};
    bus.load(3, aggnet::besu::plan(mesh_of(m), all, 5));
    CHECK(bus.state(2, 3) == M::S_IDLE);
    bus.write(2, M::R_CTL + 3, M::OP_BAR);     // step 1
    CHECK(bus.state(2, 3) == M::S_ARM);        // step 3
    for (unsigned pe : all)
        if (pe != 2) {
            CHECK(bus.state(2, 3) == M::S_ARM);  // step 2: the loop reads 100 until everyone arrived
            bus.write(pe, M::R_CTL + 3, M::OP_BAR);
        }
    unsigned polls = 0;
    while (bus.state(2, 3) != M::S_BAR && polls < 100) ++polls;  // step 9
    CHECK(polls < 100);
    bus.settle();
    for (unsigned pe : all) CHECK(bus.state(pe, 3) == M::S_BAR);
    CHECK(bus.read(2, M::R_IR) == 0);  // polled: no interrupt
    CHECK(bus.h->bus_rsp_err == 0);
}

TEST_CASE("besu: interrupt method on BESU 3 (101 -> 111, IR_STATUS)", "[besu][seed]") {
    Bus<Vbesu_engine_2x2x2> bus("besu_interrupt");
    const M::Mesh m{2, 2, 2};
    std::vector<unsigned> mem{1, 3, 7};
    bus.load(3, aggnet::besu::plan(mesh_of(m), mem, 3));
    for (unsigned pe : mem) {
        bus.write(pe, M::R_CTL + 3, M::OP_BAR_I);  // step 2
        // step 3: armed; the last member's join may complete the barrier
        // before the bus's next read reaches its node (depth 1: 4 cycles)
        const unsigned s = bus.state(pe, 3);
        if (pe != mem.back()) CHECK(s == M::S_ARM_I);
        else CHECK((s == M::S_ARM_I || s == M::S_BAR_I));
    }
    bus.settle();
    for (unsigned pe : mem) {
        CHECK(bus.read(pe, M::R_IR) == (1u << 3));   // steps 7-8: BESU 3 caused the interrupt
        CHECK(bus.state(pe, 3) == M::S_BAR_I);       // step 9
        bus.write(pe, M::R_IR, 1u << 3);
        CHECK(bus.read(pe, M::R_IR) == 0);
    }
    CHECK(bus.read(5, M::R_IR) == 0);  // a router on the path (node 5) is no member: no interrupt
}

TEST_CASE("besu: eureka with interrupt, then a barrier (001 -> 011, 101 -> 111)", "[besu][seed]") {
    Bus<Vbesu_engine_4x4x1> bus("besu_eureka");
    const M::Mesh m{4, 4, 1};
    std::vector<unsigned> mem{0, 5, 10, 15};
    const unsigned root = 0;
    bus.load(3, aggnet::besu::plan(mesh_of(m), mem, root));
    for (unsigned pe : mem) {
        bus.write(pe, M::R_CTL + 3, M::OP_INT);  // step 2
        CHECK(bus.state(pe, 3) == M::S_IDLE_I);  // step 3
    }
    bus.write(root, M::R_CTL + 3, M::OP_EUR);    // step 4: the root found it
    CHECK(bus.state(root, 3) == M::S_EUR_I);     // step 5
    bus.settle();
    for (unsigned pe : mem) {
        CHECK(bus.state(pe, 3) == M::S_EUR_I);   // step 8
        CHECK(bus.read(pe, M::R_IR) == (1u << 3));  // steps 9-10
        bus.write(pe, M::R_IR, 1u << 3);
    }
    for (unsigned pe : mem) {
        bus.write(pe, M::R_CTL + 3, M::OP_BAR_I);  // step 13
        CHECK(bus.state(pe, 3) == M::S_ARM_I);     // step 14
    }
    bus.settle();
    for (unsigned pe : mem) {
        CHECK(bus.state(pe, 3) == M::S_BAR_I);      // step 17, 20
        CHECK(bus.read(pe, M::R_IR) == (1u << 3));  // steps 18-19
    }
}

// ---- random partitions against the fabric's reference ------------------------------------

template <class V>
void random_fabric(const char* name, const M::Mesh& m, unsigned nb, unsigned rounds) {
    const uint64_t seed = aggnet::sim::test_seed(name);
    std::mt19937_64 rng(seed);
    Bus<V> bus(name);
    M::FabricModel model(m, nb);
    const unsigned n = m.nodes();
    uint64_t accesses = 0, completions = 0, eurekas = 0, refusals = 0, compares = 0;
    auto rnd = [&](unsigned k) { return unsigned(rng() % k); };
    // one access on both; responses must agree
    auto both = [&](unsigned node, bool we, uint16_t reg, uint32_t v) {
        const M::Rsp want = model.access(node, we, reg, v);
        const M::Rsp got = bus.access(we, node, reg, v);
        ++accesses;
        if (std::getenv("BESU_DEBUG"))
            std::printf("%llu: node %u %s 0x%03x 0x%x -> %u 0x%x (model %u 0x%x)\n", (unsigned long long)bus.h.cycle(),
                        node, we ? "W" : "R", reg, v, got.err, got.rdata, want.err, want.rdata);
        INFO(name << " seed " << seed << ": node " << node << (we ? " write" : " read") << " reg 0x" << std::hex << reg
                  << " value 0x" << v);
        REQUIRE(got.err == want.err);
        if (!we && want.exact) REQUIRE(got.rdata == want.rdata);
        if (want.err == M::REFUSED) ++refusals;
        return model.fanned_out();
    };
    // one CALL access (start or ask) on both
    uint64_t calls = 0, call_done = 0, cancels = 0;
    auto call_both = [&](unsigned node, bool we, uint16_t reg, uint32_t v, unsigned len) {
        const M::Rsp want = model.call(node, we, reg, v, len);
        const M::Rsp got = bus.access(we, node, reg, v, true, len);
        ++accesses;
        ++calls;
        if (std::getenv("BESU_DEBUG"))
            std::printf("%llu: node %u CALL %s 0x%03x 0x%x/%u -> %u 0x%x (model %u 0x%x)\n",
                        (unsigned long long)bus.h.cycle(), node, we ? "start" : "ask", reg, v, len, got.err, got.rdata,
                        want.err, want.rdata);
        INFO(name << " seed " << seed << ": node " << node << (we ? " CALL start" : " CALL ask") << " reg 0x"
                  << std::hex << reg << " operand 0x" << v << " len " << len);
        REQUIRE(got.err == want.err);
        if (want.err == M::OK) {
            REQUIRE(got.rdata == want.rdata);
            REQUIRE(got.len == want.len);
            ++call_done;
        } else {
            REQUIRE(got.len == 0u);
        }
        if (want.err == M::REFUSED) ++refusals;
        return model.fanned_out();
    };
    auto compare_all = [&] {
        bus.settle();
        for (unsigned i = 0; i < n; ++i) {
            for (unsigned b = 0; b < nb; ++b) both(i, false, uint16_t(M::R_CTL + b), 0);
            both(i, false, M::R_IR, 0);
            both(i, false, M::R_ERR, 0);
        }
        ++compares;
    };
    for (unsigned round = 0; round < rounds; ++round) {
        // new partitions on a few BESUs: one tree, or two disjoint ones split by x
        std::vector<std::vector<unsigned>> parts;  // per partition: BESU, then members
        const unsigned used = 1 + rnd(std::min(nb, 4u));
        std::vector<unsigned> besus(nb);
        for (unsigned b = 0; b < nb; ++b) besus[b] = b;
        std::shuffle(besus.begin(), besus.end(), rng);
        for (unsigned u = 0; u < used; ++u) {
            const unsigned b = besus[u];
            std::vector<uint32_t> cfg(n, M::CFG_RESET);
            const bool split = m.X >= 2 && rnd(2);
            for (unsigned half = 0; half < (split ? 2u : 1u); ++half) {
                std::vector<unsigned> region, avoid, mem;
                for (unsigned i = 0; i < n; ++i) {
                    const bool in = !split || ((i % m.X < m.X / 2) == (half == 0));
                    (in ? region : avoid).push_back(i);
                }
                for (unsigned i : region)
                    if (rnd(3)) mem.push_back(i);
                if (mem.empty()) mem.push_back(region[rnd(unsigned(region.size()))]);
                const unsigned root = mem[rnd(unsigned(mem.size()))];
                const auto c = aggnet::besu::plan(mesh_of(m), mem, root, avoid);
                for (unsigned i : region) cfg[i] = c[i];
                std::vector<unsigned> p{b};
                p.insert(p.end(), mem.begin(), mem.end());
                parts.push_back(p);
            }
            aggnet::besu::validate(mesh_of(m), cfg);
            for (unsigned i = 0; i < n; ++i) {
                both(i, true, M::R_MODE, M::KEY);
                both(i, true, uint16_t(M::R_CFG + b), cfg[i]);
                both(i, true, M::R_MODE, 0);
            }
        }
        // random operations; a partition whose completion or eureka is in flight rests
        std::vector<uint64_t> busy_until(parts.size(), 0);
        for (unsigned step = 0; step < 300; ++step) {
            const unsigned pi = rnd(unsigned(parts.size()));
            if (bus.h.cycle() < busy_until[pi]) {
                bus.h.tick();
                continue;
            }
            const auto& p = parts[pi];
            const unsigned b = p[0], node = p[1 + rnd(unsigned(p.size() - 1))];
            const unsigned s = model.state(node, b);
            const bool pending = s == M::S_ARM || s == M::S_ARM_I;
            unsigned code;
            unsigned cb = 0;
            const bool has_call = model.call_pending(node, &cb);
            const unsigned pick = rnd(24);
            if (pick >= 20) {
                // the CALL registers: an ask or a CANCEL for this BESU's pending
                // BAR_CALL, else a start (mostly a wait, sometimes a bad operand)
                bool fan = false;
                if (has_call && cb == b && pick < 23) {
                    if (pick < 22) {
                        call_both(node, false, uint16_t(M::R_CALL + b), 0, 0);
                    } else {
                        call_both(node, true, M::R_CANCEL, 0, 0);
                        ++cancels;
                    }
                } else {
                    static const unsigned ops[] = {M::OP_BAR, M::OP_BAR, M::OP_BAR_I, M::OP_EUR_B,
                                                   M::CALL_NOWRITE, M::CALL_NOWRITE | M::CALL_EUREKA,
                                                   M::OP_RESET, M::OP_EUR};
                    const unsigned op = ops[rnd(8)];
                    const unsigned len = rnd(16) ? 1 : rnd(3) * 2;
                    fan = call_both(node, true, uint16_t(M::R_CALL + b), op, len);
                }
                if (fan) {
                    busy_until[pi] = bus.h.cycle() + 4 * n + 8;
                    (model.state(node, b) >= M::S_ARM ? completions : eurekas) += 1;
                }
                if (rnd(40) == 0) compare_all();
                continue;
            }
            if (pick < 2) {
                both(node, false, uint16_t(M::R_CTL + b), 0);
                continue;
            } else if (pick < 3) {
                // only this BESU's bit: another BESU's interrupt may be in flight
                both(node, true, M::R_IR, uint32_t(rng()) & (1u << b));
                continue;
            } else if (pick < 4) {
                code = M::OP_RSVD;
            } else if (pending) {
                code = rnd(4) ? M::OP_BAR : M::OP_EUR;  // refused: a barrier is pending
            } else {
                static const unsigned codes[] = {M::OP_BAR, M::OP_BAR, M::OP_BAR_I, M::OP_BAR, M::OP_EUR_B,
                                                 M::OP_EUR, M::OP_INT, M::OP_CLEAR};
                code = codes[rnd(8)];
            }
            const bool fan = both(node, true, uint16_t(M::R_CTL + b), code);
            if (fan) {
                busy_until[pi] = bus.h.cycle() + 4 * n + 8;  // well past 2 * depth + 3
                (model.state(node, b) >= M::S_ARM ? completions : eurekas) += 1;
            }
            if (rnd(40) == 0) compare_all();
        }
        compare_all();
        // leave: reset every partition's BESU (supervisor) for the next round
        for (const auto& p : parts)
            for (unsigned i = 0; i < n; ++i) {
                both(i, true, M::R_MODE, M::KEY);
                both(i, true, uint16_t(M::R_CFG + p[0]), M::CFG_RESET);
                both(i, true, M::R_MODE, 0);
            }
        for (unsigned i = 0; i < n; ++i) both(i, true, M::R_ERR, 1);
    }
    std::printf("%s: %u rounds, %llu accesses, %llu barrier completions, %llu eurekas, %llu refusals, %llu full "
                "compares; %llu CALL accesses, %llu finished, %llu CANCELs\n",
                name, rounds, (unsigned long long)accesses, (unsigned long long)completions,
                (unsigned long long)eurekas, (unsigned long long)refusals, (unsigned long long)compares,
                (unsigned long long)calls, (unsigned long long)call_done, (unsigned long long)cancels);
    CHECK(completions > rounds);
    CHECK(eurekas > rounds / 2);
    CHECK(call_done > rounds);
    CHECK(cancels > rounds / 4);
}

TEST_CASE("besu: random partitions, roots and arrival orders on a 2x2x2 mesh", "[besu][random]") {
    random_fabric<Vbesu_engine_2x2x2>("besu_random_2x2x2", M::Mesh{2, 2, 2}, 32, 40);
}

TEST_CASE("besu: random partitions, roots and arrival orders on a 4x4x1 mesh", "[besu][random]") {
    random_fabric<Vbesu_engine_4x4x1>("besu_random_4x4x1", M::Mesh{4, 4, 1}, 8, 30);
}

// ---- bad input ---------------------------------------------------------------------------

TEST_CASE("besu: bad input is refused, logged, and changes nothing", "[besu][errors]") {
    Bus<Vbesu_engine_2x2x2> bus("besu_bad");
    M::FabricModel model(M::Mesh{2, 2, 2}, 32);
    auto expect = [&](unsigned node, bool we, uint16_t reg, uint32_t v, unsigned err, unsigned cause,
                      const char* what) {
        INFO(what);
        const M::Rsp want = model.access(node, we, reg, v);
        const M::Rsp got = bus.access(we, node, reg, v);
        CHECK(want.err == err);  // the model agrees with the documented behaviour
        CHECK(got.err == err);
        const uint32_t e = bus.read(node, M::R_ERR);
        CHECK(e == model.err(node));
        if (cause) {
            CHECK((e & 1) == 1);
            CHECK((e >> 4 & 0xf) == cause);
            CHECK((e >> 16 & 0xff) == (reg & 0xff));
            CHECK((e >> 8 & 0xff) == ((cause == M::C_RANGE || cause == M::C_PRIV || cause == M::C_KEY) ? 23u : 0u));
        } else {
            CHECK(e == 0);
        }
        bus.write(node, M::R_ERR, 1);
        model.access(node, true, M::R_ERR, 1);
    };
    expect(0, true, M::R_CTL + 2, M::OP_RSVD, M::REFUSED, M::C_RSVD, "the reserved control code 001");
    expect(0, true, M::R_CTL + 32, M::OP_BAR, M::REFUSED, M::C_RANGE, "BESU 32 of 32 (write)");
    expect(0, false, M::R_CTL + 255, 0, M::REFUSED, M::C_RANGE, "BESU 255 (read)");
    expect(0, false, M::R_CFG + 40, 0, M::REFUSED, M::C_RANGE, "BAR_CFG 40");
    expect(0, true, M::R_CFG + 1, M::cfg_word(true, 0, M::P_ROOT), M::REFUSED, M::C_PRIV, "BAR_CFG from user mode");
    expect(0, true, M::R_FAULT, 1, M::REFUSED, M::C_PRIV, "FAULT from user mode");
    expect(0, true, M::R_CTL + 1, M::OP_RESET, M::REFUSED, M::C_PRIV, "OP_RESET from user mode");
    expect(0, true, M::R_MODE, 0x1234, M::REFUSED, M::C_KEY, "a wrong key");
    expect(0, true, M::R_CTL + 1, M::OP_BAR, M::REFUSED, M::C_NOTPART, "a barrier on a BESU in no partition");
    expect(0, true, 0x300, 0, M::NO_REG, 0, "no such register (0x300)");
    expect(0, true, 0x406, 0, M::NO_REG, 0, "no such register (0x406)");
    expect(0, true, M::R_SHAPE, 0, M::REFUSED, 0, "SHAPE is read-only (not a barrier operation: not logged)");
    // supervisor: BAR_CFG values no node can hold
    bus.write(0, M::R_MODE, M::KEY);
    model.access(0, true, M::R_MODE, M::KEY);
    expect(0, true, M::R_CFG + 1, M::cfg_word(true, 0, 0b0101), M::REFUSED, M::C_BADCFG, "parent code 0101");
    expect(0, true, M::R_CFG + 1, M::cfg_word(true, 1u << 1, M::P_ROOT), M::REFUSED, M::C_BADCFG,
           "node 0 has no -X link");
    expect(0, true, M::R_CFG + 1, M::cfg_word(true, 1u << 0, M::PARENT_CODE[0]), M::REFUSED, M::C_BADCFG,
           "the parent link is also a child link");
    expect(0, true, M::R_CFG + 1, M::cfg_word(true, 0, M::P_ROOT) | 1u << 7, M::REFUSED, M::C_BADCFG, "reserved bit 7");
    expect(0, true, M::R_CFG + 1, M::cfg_word(true, 0, M::PARENT_CODE[1]), M::REFUSED, M::C_BADCFG,
           "a parent past the mesh's edge (-X of node 0)");
    expect(0, true, M::R_CFG + 1, M::cfg_word(true, 1u << 0, M::P_ROOT), M::OK, 0, "a good BAR_CFG");
    // the errors left nothing behind: states idle, no interrupts
    for (unsigned b = 0; b < 32; ++b) CHECK(bus.state(0, b) == M::S_IDLE);
    CHECK(bus.read(0, M::R_IR) == 0);
    // a pending barrier refuses a second one (ORDER) and stays pending
    bus.write(0, M::R_CTL + 1, M::OP_BAR);
    model.access(0, true, M::R_CTL + 1, M::OP_BAR);
    expect(0, true, M::R_CTL + 1, M::OP_BAR, M::REFUSED, M::C_ORDER, "a second barrier before the first completed");
    expect(0, true, M::R_CTL + 1, M::OP_EUR, M::REFUSED, M::C_ORDER, "a eureka while a barrier is pending");
    CHECK(bus.state(0, 1) == M::S_ARM);
    // MORE and the count: two errors without a clear
    bus.access(true, 0, M::R_CTL + 2, M::OP_RSVD);
    bus.access(true, 0, M::R_CTL + 40, 0);
    const uint32_t e = bus.read(0, M::R_ERR);
    CHECK((e & 3) == 3);
    CHECK((e >> 4 & 0xf) == M::C_RSVD);  // the first one's details
    CHECK((e >> 24) == 2);
    // a PE beyond the mesh has no registers
    CHECK(bus.access(false, 9, M::R_SHAPE).err == M::NO_REG);
}

// ---- the CALL registers -------------------------------------------------------------------

TEST_CASE("besu: BAR_CALL waits (Table 3 codes 100, 101, 110), CANCEL, refusals", "[besu][call]") {
    Bus<Vbesu_engine_2x2x2> bus("besu_call");
    M::FabricModel model(M::Mesh{2, 2, 2}, 32);
    // one access on both, as the documented answer says (err; the result
    // byte when OK); the ERR log agrees and is cleared after
    auto expect = [&](unsigned node, bool call, bool we, uint16_t reg, uint32_t v, unsigned len, unsigned err,
                      unsigned cause, const char* what, int result = -1) {
        INFO(what);
        const M::Rsp want = call ? model.call(node, we, reg, v, len) : model.access(node, we, reg, v);
        const M::Rsp got = bus.access(we, node, reg, v, call, len);
        CHECK(want.err == err);  // the model agrees with docs/besu_regmap.md
        CHECK(got.err == err);
        if (err == M::OK && call) {
            CHECK(got.len == 1u);
            CHECK(want.len == 1u);
            CHECK(got.rdata == want.rdata);
            if (result >= 0) CHECK(got.rdata == unsigned(result));
        } else {
            CHECK(got.len == 0u);
        }
        CHECK(got.rdata_hi == 0u);
        const uint32_t e = bus.read(node, M::R_ERR);
        CHECK(e == model.err(node));
        if (cause) CHECK((e >> 4 & 0xf) == cause);
        else CHECK(e == 0);
        bus.write(node, M::R_ERR, 1);
        model.access(node, true, M::R_ERR, 1);
        return got.rdata;
    };
    auto settle = [&] { bus.settle(); };
    const unsigned b = 4;
    const uint16_t CALL = uint16_t(M::R_CALL + b), CTL = uint16_t(M::R_CTL + b);
    // a partition of nodes 0 and 1 on BESU 4 (node 0 the root)
    const auto cfg = aggnet::besu::plan(aggnet::besu::Mesh{2, 2, 2}, {0, 1}, 0);
    for (unsigned i = 0; i < 8; ++i) {
        expect(i, false, true, M::R_MODE, M::KEY, 0, M::OK, 0, "supervisor");
        expect(i, false, true, uint16_t(M::R_CFG + b), cfg[i], 0, M::OK, 0, "BAR_CFG");
        expect(i, false, true, M::R_MODE, 0, 0, M::OK, 0, "user");
    }

    // which accesses reach which registers
    expect(0, true, true, CTL, M::OP_BAR, 1, M::NO_REG, 0, "a CALL to BAR_CTL (not a CALL register)");
    expect(0, true, true, M::R_MODE, M::KEY, 4, M::NO_REG, 0, "a CALL to MODE (not a CALL register)");
    expect(0, true, true, uint16_t(M::R_CFG + b), 0, 4, M::NO_REG, 0, "a CALL to BAR_CFG");
    expect(0, false, true, CALL, M::OP_BAR, 0, M::NO_REG, 0, "a plain write to BAR_CALL");
    expect(0, false, false, M::R_CANCEL, 0, 0, M::NO_REG, 0, "a plain read of CANCEL");
    expect(0, true, true, uint16_t(M::R_CALL + 32), M::OP_BAR, 1, M::REFUSED, M::C_RANGE, "BAR_CALL[32] of 32");
    // operands: 1 byte, a wait; no supervisor operation through a CALL
    expect(0, true, true, CALL, M::OP_BAR, 0, M::REFUSED, M::C_CALLARG, "BAR_CALL with no operand");
    expect(0, true, true, CALL, M::OP_BAR, 2, M::REFUSED, M::C_CALLARG, "BAR_CALL with 2 operand bytes");
    expect(0, true, true, CALL, M::OP_RESET, 1, M::REFUSED, M::C_CALLARG, "OP_RESET (111) as a BAR_CALL, user mode");
    expect(0, true, true, CALL, M::OP_EUR, 1, M::REFUSED, M::C_CALLARG, "OP_EUR (010) waits for nothing");
    expect(0, true, true, CALL, M::OP_CLEAR, 1, M::REFUSED, M::C_CALLARG, "OP_CLEAR (000) without CALL_NOWRITE");
    expect(0, true, true, CALL, M::CALL_NOWRITE | M::OP_BAR, 1, M::REFUSED, M::C_CALLARG, "CALL_NOWRITE with a code");
    expect(0, true, true, CALL, M::OP_BAR | M::CALL_EUREKA, 1, M::REFUSED, M::C_CALLARG, "OP_BAR with CALL_EUREKA");
    expect(0, true, true, CALL, M::OP_BAR | 0x20, 1, M::REFUSED, M::C_CALLARG, "operand bit 5");
    expect(0, true, true, M::R_CANCEL, 0, 1, M::REFUSED, M::C_CALLARG, "CANCEL with an operand");
    bus.write(0, M::R_MODE, M::KEY);
    model.access(0, true, M::R_MODE, M::KEY);
    expect(0, true, true, CALL, M::OP_RESET, 1, M::REFUSED, M::C_CALLARG, "OP_RESET (111) as a BAR_CALL, supervisor");
    bus.write(0, M::R_MODE, 0);
    model.access(0, true, M::R_MODE, 0);
    CHECK(bus.state(0, b) == M::S_IDLE);
    expect(0, true, true, uint16_t(M::R_CALL + 5), M::OP_BAR, 1, M::REFUSED, M::C_NOTPART,
           "BAR_CALL 100 on a BESU in no partition (the BAR_CTL verdict)");
    expect(0, true, true, CALL, M::CALL_NOWRITE, 1, M::REFUSED, M::C_NOWAIT, "a barrier wait on an idle BESU");
    expect(0, true, true, uint16_t(M::R_CALL + 5), M::CALL_NOWRITE | M::CALL_EUREKA, 1, M::REFUSED, M::C_NOWAIT,
           "a eureka wait on a BESU in no partition");
    expect(0, true, false, CALL, 0, 0, M::REFUSED, 0, "an ask with no BAR_CALL pending (not logged)");
    expect(0, true, true, M::R_CANCEL, 0, 0, M::OK, 0, "CANCEL with none pending", M::CANCEL_NONE << 4);

    // the polled barrier as one CALL (code 100, figure 8): node 0 starts, node 1 later
    expect(0, true, true, CALL, M::OP_BAR, 1, M::PENDING, 0, "BAR_CALL 100: armed, PENDING");
    CHECK(bus.state(0, b) == M::S_ARM);
    settle();
    expect(0, true, false, CALL, 0, 0, M::PENDING, 0, "the ask while node 1 has not joined");
    expect(0, true, true, CALL, M::OP_BAR, 1, M::REFUSED, M::C_BUSY, "a second BAR_CALL while one is pending");
    expect(0, true, true, uint16_t(M::R_CALL + 6), M::OP_BAR, 1, M::REFUSED, M::C_BUSY, "a BAR_CALL on another BESU");
    expect(0, false, true, CTL, M::OP_CLEAR, 0, M::REFUSED, M::C_BUSY, "a BAR_CTL write to the pending CALL's BESU");
    bus.write(0, M::R_MODE, M::KEY);
    model.access(0, true, M::R_MODE, M::KEY);
    expect(0, false, true, CTL, M::OP_RESET, 0, M::REFUSED, M::C_BUSY, "OP_RESET too (CANCEL first)");
    bus.write(0, M::R_MODE, 0);
    model.access(0, true, M::R_MODE, 0);
    expect(0, false, true, uint16_t(M::R_CTL + 7), M::OP_INT, 0, M::OK, 0, "a write to another BESU: as always");
    expect(0, false, true, uint16_t(M::R_CTL + 7), M::OP_CLEAR, 0, M::OK, 0, "(and back)");
    CHECK(bus.state(0, b) == M::S_ARM);
    expect(1, true, true, CALL, M::OP_BAR, 1, M::PENDING, 0, "node 1's BAR_CALL 100: the last join");
    settle();
    expect(0, true, false, CALL, 0, 0, M::OK, 0, "node 0's ask: finished, S_BAR (figure 9: 100 -> 110)", M::S_BAR);
    expect(0, true, false, CALL, 0, 0, M::REFUSED, 0, "the result is handed over once");
    expect(1, true, false, CALL, 0, 0, M::OK, 0, "node 1's ask", M::S_BAR);
    expect(0, true, true, M::R_CANCEL, 0, 0, M::OK, 0, "CANCEL after the hand-over: none", M::CANCEL_NONE << 4);

    // the interrupt method's code (101) and a CANCEL that finds it finished
    expect(0, true, true, CALL, M::OP_BAR_I, 1, M::PENDING, 0, "BAR_CALL 101 from S_BAR");
    expect(1, true, true, CALL, M::OP_BAR_I, 1, M::PENDING, 0, "node 1's BAR_CALL 101");
    settle();
    expect(0, true, true, M::R_CANCEL, 0, 0, M::OK, 0, "CANCEL of a finished BAR_CALL: FINISHED, S_BAR_I",
           M::CANCEL_FINISHED << 4 | M::S_BAR_I);
    expect(0, true, false, CALL, 0, 0, M::REFUSED, 0, "no ask after the CANCEL");
    expect(1, true, false, CALL, 0, 0, M::OK, 0, "node 1: S_BAR_I (101 -> 111)", M::S_BAR_I);
    CHECK(bus.read(0, M::R_IR) == 1u << b);
    bus.write(0, M::R_IR, 1u << b);
    model.access(0, true, M::R_IR, 1u << b);
    bus.write(1, M::R_IR, 1u << b);
    model.access(1, true, M::R_IR, 1u << b);

    // a PE that does not arrive: CANCEL withdraws, the BESU stays armed;
    // when the late PE joins, the barrier completes, and the next works
    expect(0, true, true, CALL, M::OP_BAR, 1, M::PENDING, 0, "node 0 waits for node 1");
    settle();
    expect(0, true, false, CALL, 0, 0, M::PENDING, 0, "still");
    expect(0, true, true, M::R_CANCEL, 0, 0, M::OK, 0, "CANCEL: WITHDRAWN, S_ARM",
           M::CANCEL_WITHDRAWN << 4 | M::S_ARM);
    CHECK(bus.state(0, b) == M::S_ARM);
    expect(0, false, true, CTL, M::OP_BAR, 0, M::REFUSED, M::C_ORDER, "no longer BUSY: the barrier is pending (ORDER)");
    expect(1, true, true, CALL, M::OP_BAR, 1, M::PENDING, 0, "node 1 arrives late");
    settle();
    expect(1, true, false, CALL, 0, 0, M::OK, 0, "node 1 passes", M::S_BAR);
    CHECK(bus.state(0, b) == M::S_BAR);
    expect(0, true, true, CALL, M::CALL_NOWRITE, 1, M::OK, 0, "a wait-only barrier CALL finds it at once", M::S_BAR);

    // eureka-then-barrier (110) in one CALL each
    expect(0, true, true, CALL, M::OP_EUR_B, 1, M::PENDING, 0, "BAR_CALL 110");
    expect(1, true, true, CALL, M::OP_EUR_B, 1, M::PENDING, 0, "node 1's BAR_CALL 110");
    settle();
    expect(0, true, false, CALL, 0, 0, M::OK, 0, "110: S_BAR", M::S_BAR);
    expect(1, true, false, CALL, 0, 0, M::OK, 0, "110: S_BAR", M::S_BAR);

    // a eureka wait (CALL_NOWRITE | CALL_EUREKA): arm the interrupt (011), wait, node 1 finds it
    for (unsigned i : {0u, 1u}) {
        bus.write(i, CTL, M::OP_INT);
        model.access(i, true, CTL, M::OP_INT);
    }
    expect(0, true, true, CALL, M::CALL_NOWRITE | M::CALL_EUREKA, 1, M::PENDING, 0, "a eureka wait on S_IDLE_I");
    expect(0, false, true, CTL, M::OP_EUR, 0, M::REFUSED, M::C_BUSY, "the waiting PE's own eureka write is BUSY");
    expect(1, false, true, CTL, M::OP_EUR, 0, M::OK, 0, "node 1 finds it (010)");
    settle();
    expect(0, true, false, CALL, 0, 0, M::OK, 0, "eureka: S_EUR_I (001 -> 011)", M::S_EUR_I);
    expect(0, true, true, CALL, M::CALL_NOWRITE, 1, M::REFUSED, M::C_NOWAIT, "a barrier wait on S_EUR_I");

    // a BAR_CFG write (supervisor) withdraws the pending CALL with the BESU's reset
    for (unsigned i : {0u, 1u}) {
        bus.write(i, CTL, M::OP_CLEAR);
        model.access(i, true, CTL, M::OP_CLEAR);
    }
    expect(0, true, true, CALL, M::OP_BAR, 1, M::PENDING, 0, "armed again");
    bus.write(0, M::R_MODE, M::KEY);
    model.access(0, true, M::R_MODE, M::KEY);
    expect(0, false, true, uint16_t(M::R_CFG + b), cfg[0], 0, M::OK, 0, "BAR_CFG rewritten");
    expect(0, true, false, CALL, 0, 0, M::REFUSED, 0, "the CALL is gone");
    expect(0, true, true, M::R_CANCEL, 0, 0, M::OK, 0, "CANCEL: none", M::CANCEL_NONE << 4);
    // a PE beyond the mesh has no CALL registers either
    CHECK(bus.access(true, 9, CALL, M::OP_BAR, true, 1).err == M::NO_REG);
}

TEST_CASE("besu: a mis-wired tree is logged as STRAY, a cut link stalls, JOINED shows where", "[besu][errors]") {
    Bus<Vbesu_engine_2x2x2> bus("besu_stray");
    for (unsigned i = 0; i < 8; ++i) bus.write(i, M::R_MODE, M::KEY);
    // node 1 names node 0 (-X) as its parent, node 0 is a root without that child
    bus.write(0, M::R_CFG + 2, M::cfg_word(true, 0, M::P_ROOT));
    bus.write(1, M::R_CFG + 2, M::cfg_word(true, 0, M::PARENT_CODE[1]));
    bus.write(1, M::R_CTL + 2, M::OP_BAR);
    bus.settle();
    const uint32_t e = bus.read(0, M::R_ERR);
    CHECK((e & 1) == 1);
    CHECK((e >> 4 & 0xf) == M::C_STRAY);
    CHECK((e >> 16 & 0xff) == 2);  // BESU 2
    CHECK(bus.state(1, 2) == M::S_ARM);
    // a good two-node tree with the link cut: the barrier stalls; JOINED names who joined
    bus.write(0, M::R_CFG + 4, M::cfg_word(true, 1u << 0, M::P_ROOT));
    bus.write(1, M::R_CFG + 4, M::cfg_word(true, 0, M::PARENT_CODE[1]));
    bus.write(1, M::R_FAULT, 1u << 1);  // node 1's -X link: to node 0
    bus.write(0, M::R_CTL + 4, M::OP_BAR);
    bus.write(1, M::R_CTL + 4, M::OP_BAR);
    bus.settle();
    CHECK(bus.state(0, 4) == M::S_ARM);
    CHECK(bus.state(1, 4) == M::S_ARM);
    CHECK(bus.read(0, M::R_JOINED + 4) == 1u);  // the root: its PE joined, +X (node 1) did not
    // mend the link: node 1 joins again?  No: its join was lost with the cable;
    // a supervisor OP_RESET clears both and the barrier runs
    bus.write(1, M::R_FAULT, 0);
    for (unsigned i : {0u, 1u}) bus.write(i, M::R_CTL + 4, M::OP_RESET);
    CHECK(bus.read(0, M::R_JOINED + 4) == 0u);
    for (unsigned i : {0u, 1u}) bus.write(i, M::R_CTL + 4, M::OP_BAR);
    bus.settle();
    CHECK(bus.state(0, 4) == M::S_BAR);
    CHECK(bus.state(1, 4) == M::S_BAR);
}

// ---- the latency bound ---------------------------------------------------------------------

TEST_CASE("besu: a barrier completes everywhere within 2 * depth + 3 cycles of the last join", "[besu][latency]") {
    Bus<Vbesu_engine_4x4x1> bus("besu_latency");
    const M::Mesh m{4, 4, 1};
    // a chain along a snake over the 4x4 plane, rooted at its start; the last join at the far
    // end (depth len - 1), whose own completion is the last of the fan-out
    const std::vector<unsigned> path = M::snake(m);
    for (unsigned len : {2u, 3u, 4u, 8u, 16u}) {
        const unsigned b = len % 8, depth = len - 1;
        const std::vector<uint32_t> cfg = M::chain_cfg(m, path, len);
        aggnet::besu::validate(mesh_of(m), cfg);
        bus.load(b, cfg);
        for (unsigned k = 0; k + 1 < len; ++k) bus.write(path[k], uint16_t(M::R_CTL + b), M::OP_BAR);
        bus.settle();
        const unsigned took = bus.write_then_sample(path[len - 1], b, M::OP_BAR, path[len - 1], M::S_BAR);
        std::printf("besu latency: chain of %u nodes (depth %u): the far end's BAR_CTL reads S_BAR %u cycles after "
                    "its OP_BAR write\n", len, depth, took);
        CHECK(took > 0);                  // it completed at all
        CHECK(took <= 2 * depth + 3);     // one cycle per hop up and down, plus the node's own stages
        CHECK(took >= 2 * depth);         // and no hop is skipped
        bus.settle();
        for (unsigned k = 0; k < len; ++k) CHECK(bus.state(path[k], b) == M::S_BAR);
    }
}

}  // namespace
