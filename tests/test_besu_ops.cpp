// libaggnet's BESU API (aggnet/besu.hpp) over the link, on the Verilated
// aggnet_hub with its BESU engine (sim/link_hub.hpp; N = 8 gives a 2x2x2
// mesh): partitions planned, validated and loaded; barriers with the three
// waits of seed 001 (polled, hub-side WAIT, interrupt); eureka and
// eureka-then-barrier; random partitions, roots and members, checked for the
// barrier property (no PE passes barrier k before every member arrived at
// it); errors named; the barr diagnostic on a healthy mesh and with a cut
// link.  The hub-side waits are one link CALL each (BAR_CALL,
// docs/besu_regmap.md): exactly one request frame per PE per barrier, the
// timeout + CANCEL path, and the CALL refusals over the link.
#include "pe_check.hpp"
#include "besu_link.hpp"
#include "besu_model.hpp"
#include "cause_names.hpp"
#include "link_hub.hpp"
#include "seed.hpp"

#include <aggnet/besu.hpp>
#include <aggnet/error.hpp>
#include <aggnet/link_defs.hpp>
#include <catch2/catch.hpp>

#include <atomic>
#include <functional>
#include <mutex>
#include <random>
#include <thread>

using namespace aggnet;
using aggnet::sim::LinkHub;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::seconds;
namespace B = aggnet::besu;

namespace {

link::LinkConfig cfg(unsigned n) { return LinkHub::client_config(n); }

/// fn(pe, node) on every PE's thread, each with its own LinkClient.
void run_pes(LinkHub& hub, unsigned n, const std::function<void(unsigned, B::Node&)>& fn) {
    sim::run_besu_pes(hub, n, "linkhub", cfg(n), fn);
}

/// One thread acting as every node's PE (a loader, or barr).
struct AllNodes : sim::BesuNodes {
    AllNodes(LinkHub& hub, unsigned n) : BesuNodes(hub, n, "linkhub", cfg(n)) {}
};

const B::Mesh kMesh{2, 2, 2};

TEST_CASE("besu::plan and validate: trees, and the node a wrong one names", "[besu][host]") {
    const B::Mesh m{4, 4, 1};
    const uint64_t seed = aggnet::sim::test_seed("besu_plan");
    std::mt19937_64 rng(seed);
    for (unsigned t = 0; t < 500; ++t) {
        std::vector<unsigned> mem;
        for (unsigned i = 0; i < 16; ++i)
            if (rng() % 3 == 0) mem.push_back(i);
        if (mem.empty()) mem.push_back(unsigned(rng() % 16));
        const unsigned root = mem[rng() % mem.size()];
        const auto c = B::plan(m, mem, root);
        B::validate(m, c);
        // the reference model sees the same members in the tree
        aggnet::sim::besu::FabricModel f(aggnet::sim::besu::Mesh{4, 4, 1}, 1);
        for (unsigned i = 0; i < 16; ++i) {
            f.access(i, true, aggnet::sim::besu::R_MODE, aggnet::sim::besu::KEY);
            REQUIRE(f.access(i, true, aggnet::sim::besu::R_CFG, c[i]).err == 0);
        }
        bool whole = false;
        const auto got = f.members(root, 0, &whole);
        CHECK(whole);
        CHECK(got == std::set<unsigned>(mem.begin(), mem.end()));
    }
    auto names = [&](const std::vector<uint32_t>& c, unsigned node, const char* text) {
        try {
            B::validate(m, c);
            FAIL("validate accepted a bad tree: " << text);
        } catch (const B::ConfigError& e) {
            INFO(e.what());
            CHECK(e.node == node);
            CHECK(std::string(e.what()).find(text) != std::string::npos);
        }
    };
    std::vector<uint32_t> c(16, B::CFG_RESET);
    // node 0 root with child +X (node 1); node 1 names -X as parent: fine
    c[0] = B::cfg_word(true, 1u << 0, B::P_ROOT);
    c[1] = B::cfg_word(true, 0, B::PARENT_CODE[1]);
    B::validate(m, c);
    auto o = c;
    o[5] = B::cfg_word(true, 0, B::PARENT_CODE[3]);  // node 5 says its parent is -Y (node 1), node 1 disagrees
    names(o, 5, "orphan");
    o = c;
    o[1] = B::cfg_word(true, 0, B::PARENT_CODE[0]);  // node 1's parent +X (node 2), not node 0
    names(o, 0, "as a child");
    o = c;
    o[0] = B::cfg_word(true, 1u << 1, B::P_ROOT);  // -X of node 0: the edge
    names(o, 0, "edge");
    o = c;
    o[1] = B::cfg_word(false, 0, B::PARENT_CODE[1]);  // a router leaf
    names(o, 1, "wait for it forever");
    o = c;
    o[0] = B::cfg_word(true, 0, 0b0101);
    names(o, 0, "Table 1");
    // a cycle: 2 -> 3 -> 7 -> 6 -> 2, each the others' parent and child
    std::vector<uint32_t> cy(16, B::CFG_RESET);
    cy[2] = B::cfg_word(true, 1u << 2, B::PARENT_CODE[0]);  // parent +X (3), child +Y (6)
    cy[3] = B::cfg_word(true, 1u << 1, B::PARENT_CODE[2]);  // parent +Y (7), child -X (2)
    cy[7] = B::cfg_word(true, 1u << 3, B::PARENT_CODE[1]);  // parent -X (6), child -Y (3)
    cy[6] = B::cfg_word(true, 1u << 0, B::PARENT_CODE[3]);  // parent -Y (2), child +X (7)
    names(cy, 2, "cycle");
    CHECK_THROWS_AS(B::plan(m, {3, 20}, 3), B::ConfigError);
    CHECK_THROWS_AS(B::plan(m, {3, 4}, 5), B::ConfigError);
    CHECK_THROWS_AS(B::plan(m, {0, 15}, 0, {1, 4, 5}), B::ConfigError);  // node 0 walled in
}

TEST_CASE("besu: every cause has its table's name and meaning", "[besu][host]") {
    // cause_name() is generated from tools/besugen.py's CAUSES (besu_regs.hpp cause_text)
    test::check_cause_names(B::cause_name, B::C_RANGE, B::C_NOWAIT, B::C_KEY, "KEY");
}

TEST_CASE("besu over the link: barriers with the three waits, eureka, eureka then barrier", "[besu][link]") {
    LinkHub hub(8, "besu_ops_n8");
    {
        AllNodes all(hub, 8);
        B::load(all.nodes, 3, B::plan(kMesh, {0, 1, 2, 3, 4, 5, 6, 7}, 6));
        B::load(all.nodes, 5, B::plan(kMesh, {1, 2, 7}, 7));
        B::load(all.nodes, 4, B::plan(kMesh, {1, 2, 7}, 1));
    }
    std::atomic<unsigned> arrived[6] = {};
    std::atomic<unsigned> early{0};
    run_pes(hub, 8, [&](unsigned pe, B::Node& nd) {
        PE_CHECK(nd.mesh().nodes() == 8);
        PE_CHECK(nd.besus() == 8);
        const B::Wait how[3] = {B::Wait::Polled, B::Wait::Hub, B::Wait::Interrupt};
        for (unsigned k = 0; k < 6; ++k) {
            ++arrived[k];
            const unsigned s = nd.barrier(3, how[(pe + k) % 3]);
            if (arrived[k] != 8) ++early;
            PE_CHECK(s == ((pe + k) % 3 == 2 ? B::S_BAR_I : B::S_BAR));
        }
        // eureka with interrupt, then a barrier (seed 001 figures 15-17); node 7 finds it
        if (pe == 1 || pe == 2 || pe == 7) {
            // Every member arms BESU 5 before anyone may find it: a barrier on
            // another BESU (4) says so.  (A eureka that reaches a BESU in
            // S_BAR is not waited for there and changes nothing, Table 2.)
            nd.arm_eureka_interrupt(5);
            nd.barrier(4);
            if (pe == 7) nd.eureka(5);
            PE_CHECK(nd.wait_eureka(5, B::Wait::Interrupt) == B::S_EUR_I);
            PE_CHECK(nd.barrier(5, B::Wait::Interrupt) == B::S_BAR_I);
            // eureka-then-barrier in one write: OP_EUR_B from everyone
            nd.eureka_barrier(5);
            PE_CHECK(nd.wait_barrier(5) == B::S_BAR);
            PE_CHECK(nd.ir_status() == 0);
        }
        PE_CHECK(nd.error_reg() == 0);
    });
    CHECK(early == 0);
}

TEST_CASE("besu over the link: random partitions, roots and members; the barrier property", "[besu][link][random]") {
    const uint64_t seed = aggnet::sim::test_seed("besu_ops_random");
    std::mt19937_64 rng(seed);
    LinkHub hub(8, "besu_ops_random");
    for (unsigned round = 0; round < 6; ++round) {
        const unsigned b = unsigned(rng() % 8);
        std::vector<unsigned> mem;
        for (unsigned i = 0; i < 8; ++i)
            if (rng() % 2) mem.push_back(i);
        if (mem.size() < 2) mem = {0, 7};
        const unsigned root = mem[rng() % mem.size()];
        {
            AllNodes all(hub, 8);
            B::load(all.nodes, b, B::plan(kMesh, mem, root));
        }
        const std::set<unsigned> members(mem.begin(), mem.end());
        std::atomic<unsigned> arrived[8] = {};
        std::atomic<unsigned> early{0}, passed{0};
        std::vector<uint64_t> delays(64);
        for (auto& d : delays) d = rng() % 300;
        run_pes(hub, 8, [&](unsigned pe, B::Node& nd) {
            if (!members.count(pe)) return;
            for (unsigned k = 0; k < 8; ++k) {
                std::this_thread::sleep_for(microseconds(delays[(pe * 8 + k) % 64]));
                ++arrived[k];
                nd.barrier(b, B::Wait(k % 3));
                if (arrived[k] != mem.size()) ++early;
                ++passed;
            }
        });
        INFO("seed " << seed << " round " << round << ": BESU " << b << ", root " << root << ", " << mem.size()
                     << " members");
        CHECK(early == 0);
        CHECK(passed == 8 * mem.size());
        AllNodes all(hub, 8);
        for (unsigned i = 0; i < 8; ++i) {
            all.nodes[i]->supervisor();
            all.nodes[i]->set_cfg(b, B::CFG_RESET);
            all.nodes[i]->user();
        }
    }
}

TEST_CASE("besu over the link: errors name their cause; a timeout names what the router waits for", "[besu][link][errors]") {
    LinkHub hub(8, "besu_errors");
    AllNodes all(hub, 8);
    B::Node& n0 = *all.nodes[0];
    B::Node& n1 = *all.nodes[1];
    auto cause = [&](const std::function<void()>& fn) -> unsigned {
        try {
            fn();
        } catch (const B::BesuError& e) {
            INFO(e.what());
            // a refusal from the node carries its cause's row of tools/besugen.py
            // CAUSES (RANGE is refused by the library first, naming the BESUs)
            if (e.cause != B::C_RANGE) CHECK(std::string(e.what()).find(B::cause_name(e.cause)) != std::string::npos);
            return e.cause;
        }
        return 99;
    };
    CHECK(cause([&] { n0.set_cfg(0, B::cfg_word(true, 0, B::P_ROOT)); }) == B::C_PRIV);
    CHECK(cause([&] { n0.control(0, B::OP_RSVD); }) == B::C_RSVD);
    CHECK(cause([&] { n0.arm_barrier(0); }) == B::C_NOTPART);
    CHECK(cause([&] { n0.supervisor(0x1234); }) == B::C_KEY);
    CHECK(cause([&] { n0.control(8, B::OP_BAR); }) == B::C_RANGE);  // the host refuses it before the link
    CHECK(n0.error_reg() == 0);  // the library cleared each one after naming it
    B::load(all.nodes, 2, B::plan(kMesh, {0, 1}, 0));
    n0.arm_barrier(2);
    CHECK(cause([&] { n0.arm_barrier(2); }) == B::C_ORDER);
    CHECK(n0.state(2) == B::S_ARM);  // unchanged
    // node 1 never arrives: the root's wait times out and says who it waits for
    B::Node slow(*all.clients[0], 0, milliseconds(20));
    try {
        slow.wait_barrier(2, B::Wait::Hub);
        FAIL("the barrier completed without node 1");
    } catch (const TimeoutError& e) {
        INFO(e.what());
        CHECK(std::string(e.what()).find("waits for +X (node 1)") != std::string::npos);
    }
    n1.arm_barrier(2);
    CHECK(n0.wait_barrier(2) == B::S_BAR);
    // a loader refuses a tree with a cycle or an orphan before writing anything
    std::vector<uint32_t> bad(8, B::CFG_RESET);
    bad[1] = B::cfg_word(true, 0, B::PARENT_CODE[1]);
    CHECK_THROWS_AS(B::load(all.nodes, 4, bad), B::ConfigError);
    CHECK(n1.cfg(4) == B::CFG_RESET);
}

TEST_CASE("besu: barr passes on a healthy mesh and names a cut link", "[besu][barr]") {
    LinkHub hub(8, "besu_barr");
    AllNodes all(hub, 8);
    const auto ok = B::barr(all.nodes, B::regs::DEFAULT_KEY, seconds(2));  // generous: a loaded machine
    for (const auto& l : ok.failures) UNSCOPED_INFO(l);
    CHECK(ok.ok());
    CHECK(ok.checks == 8 + 12 + 8 + 8);  // 8 nodes' registers, 12 links, 8 BESUs, 8 error checks
    // the fault: node 3's +Z link (to node 7) cut
    all.nodes[3]->supervisor();
    all.nodes[3]->set_fault(1u << 4);
    all.nodes[3]->user();
    const auto bad = B::barr(all.nodes, B::regs::DEFAULT_KEY, milliseconds(400));
    for (const auto& l : bad.lines) UNSCOPED_INFO(l);
    REQUIRE_FALSE(bad.ok());
    unsigned link_fails = 0;
    for (const auto& l : bad.failures)
        if (l.find("link node 3 (1,1,0) +Z <-> node 7 (1,1,1) -Z") != std::string::npos) ++link_fails;
    CHECK(link_fails == 1);
    // every other link passes
    unsigned links_ok = 0;
    for (const auto& l : bad.lines)
        if (l.rfind("ok   link", 0) == 0) ++links_ok;
    CHECK(links_ok == 11);
}

}  // namespace

// ---- the hub-side waits as one CALL each (BAR_CALL) --------------------------------------

namespace {

/// Requests a client sent: frames less resends (a pending CALL's keep-alive
/// resends are the same request again).
uint64_t requests(const link::LinkClient& c) { return c.stats().frames_sent - c.stats().resends; }

/// fn(pe, node, client) on every PE's thread, each with its own LinkClient.
void run_pes_c(LinkHub& hub, unsigned n, const std::function<void(unsigned, B::Node&, link::LinkClient&)>& fn,
               std::chrono::nanoseconds timeout = seconds(10)) {
    sim::on_pe_threads(n, [&](unsigned pe) {
        link::LinkClient c(hub.endpoint(pe), "linkhub?pe=" + std::to_string(pe), cfg(n));
        B::Node nd(c, pe, timeout);
        fn(pe, nd, c);
    });
}

TEST_CASE("besu over CALL: one request frame per PE per barrier (Table 3 codes 100, 110) and per eureka wait",
          "[besu][link][call]") {
    LinkHub hub(8, "besu_call_frames");
    {
        AllNodes all(hub, 8);
        B::load(all.nodes, 3, B::plan(kMesh, {0, 1, 2, 3, 4, 5, 6, 7}, 6));
        B::load(all.nodes, 5, B::plan(kMesh, {1, 2, 7}, 7));
        B::load(all.nodes, 4, B::plan(kMesh, {1, 2, 7}, 1));
    }
    constexpr unsigned K = 6;
    std::atomic<unsigned> arrived[K] = {};
    std::atomic<unsigned> early{0}, extra{0};
    run_pes_c(hub, 8, [&](unsigned pe, B::Node& nd, link::LinkClient& c) {
        for (unsigned k = 0; k < K; ++k) {
            const uint64_t r0 = requests(c), io0 = nd.io_cycles();
            ++arrived[k];
            const unsigned s = nd.barrier(3);  // Wait::Hub: BAR_CALL[3] <- OP_BAR (100)
            if (arrived[k] != 8) ++early;
            PE_CHECK(s == B::S_BAR);
            const uint64_t dr = requests(c) - r0, dio = nd.io_cycles() - io0;
            PE_CHECK_MSG(dr == 1u, "PE" << pe << " barrier " << k << ": " << dr << " request frames");
            PE_CHECK_MSG(dio == 1u, "PE" << pe << " barrier " << k << ": " << dio << " link commands");
            if (dr != 1) ++extra;
        }
        if (pe == 1 || pe == 2 || pe == 7) {
            nd.arm_eureka_interrupt(5);  // OP_INT (011): a write, 1 frame
            nd.barrier(4);
            if (pe == 7) nd.eureka(5);
            const uint64_t r0 = requests(c);
            PE_CHECK(nd.wait_eureka(5) == B::S_EUR_I);  // a wait-only CALL
            PE_CHECK(requests(c) - r0 == 1u);
            nd.clear_ir(1u << 5);
            nd.clear(5);
            const uint64_t r1 = requests(c);
            PE_CHECK(nd.eureka_then_barrier(5) == B::S_BAR);  // BAR_CALL[5] <- OP_EUR_B (110)
            PE_CHECK(requests(c) - r1 == 1u);
        }
        PE_CHECK(nd.error_reg() == 0);
    });
    CHECK(early == 0);
    CHECK(extra == 0);
}

TEST_CASE("besu over CALL: a PE that never arrives; the others time out naming it, cancel, and the next barrier "
          "works",
          "[besu][link][call][errors]") {
    LinkHub hub(8, "besu_call_timeout");
    // node 0 the root, nodes 1 (+X), 2 (+Y) and 4 (+Z) its children
    const auto tree = B::plan(kMesh, {0, 1, 2, 4}, 0);
    {
        AllNodes all(hub, 8);
        B::load(all.nodes, 2, tree);
    }
    std::atomic<unsigned> timeouts{0};
    // PE 4 never arrives
    run_pes_c(
        hub, 8,
        [&](unsigned pe, B::Node& nd, link::LinkClient& c) {
            if (pe != 0 && pe != 1 && pe != 2) return;
            nd.partition(2, tree);
            try {
                nd.barrier(2);
                PE_FAIL("PE" << pe << " passed a barrier PE4 never arrived at");
            } catch (const TimeoutError& e) {
                ++timeouts;
                const std::string w = e.what();
                PE_CHECK_MSG(w.find("CALL cancelled") != std::string::npos, "PE" << pe << ": " << e.what());
                if (pe == 0) {
                    // the root's router knows +Z (node 4) has not joined; whether
                    // PEs 1 and 2 had joined before PE 0's deadline depends on
                    // how their threads ran, so only PE 4 is certain
                    PE_CHECK_MSG(w.find("+Z (node 4)") != std::string::npos, "PE" << pe << ": " << e.what());
                    PE_CHECK_MSG(w.find("not arrived (behind the links it waits for): ") != std::string::npos, "PE" << pe << ": " << e.what());
                    PE_CHECK_MSG((e.never_arrived >> 4 & 1) == 1u, "PE" << pe << ": " << e.what());
                    PE_CHECK_MSG((e.never_arrived & ~uint64_t(0x16)) == 0u, "PE" << pe << ": " << e.what());  // only PEs 1, 2, 4 can be named
                } else {  // a leaf: its join went up
                    PE_CHECK_MSG(w.find("holds no join") != std::string::npos, "PE" << pe << ": " << e.what());
                }
            }
            // withdrawn: the node has no CALL left (CANCEL again: none), the BESU stays armed
            PE_CHECK((nd.cancel() >> 4 & 3) == B::CANCEL_NONE);
            PE_CHECK(nd.state(2) == B::S_ARM);
            PE_CHECK(nd.error_reg() == 0);
            (void)c;
        },
        milliseconds(20));
    CHECK(timeouts == 3);
    // PE 4 arrives late: the barrier completes for every member
    {
        link::LinkClient c(hub.endpoint(4), "linkhub?pe=4", cfg(8));
        B::Node n4(c, 4);
        CHECK(n4.barrier(2) == B::S_BAR);
    }
    // and the next barrier works, one request each
    std::atomic<unsigned> arrived{0}, early{0};
    run_pes_c(hub, 8, [&](unsigned pe, B::Node& nd, link::LinkClient& c) {
        if (pe != 0 && pe != 1 && pe != 2 && pe != 4) return;
        PE_CHECK(nd.state(2) == B::S_BAR);
        const uint64_t r0 = requests(c);
        ++arrived;
        PE_CHECK(nd.barrier(2) == B::S_BAR);
        if (arrived != 4) ++early;
        PE_CHECK(requests(c) - r0 == 1u);
    });
    CHECK(early == 0);
}

TEST_CASE("besu over CALL: CANCEL's outcomes and the refusals over the link", "[besu][link][call][errors]") {
    LinkHub hub(8, "besu_call_refusals");
    AllNodes all(hub, 8);
    B::Node& n0 = *all.nodes[0];
    B::Node& n1 = *all.nodes[1];
    link::LinkClient& c0 = *all.clients[0];
    B::load(all.nodes, 2, B::plan(kMesh, {0, 1}, 0));
    auto besu_cause = [&](const std::function<void()>& fn) -> unsigned {
        try {
            fn();
        } catch (const B::BesuError& e) {
            INFO(e.what());
            return e.cause;
        }
        return 99;
    };
    auto link_err = [&](const std::function<void()>& fn) -> unsigned {
        try {
            fn();
        } catch (const RegisterError& e) {
            INFO(e.what());
            return e.code;
        }
        return 99;
    };
    const uint16_t call2 = B::regs::addr(uint16_t(B::regs::BAR_CALL + 2));
    // a CALL to a register that takes none; a wrong operand length; a
    // supervisor operation (OP_RESET, 111) as an operand, from user mode
    CHECK(link_err([&] { c0.call(0, B::regs::addr(uint16_t(B::regs::BAR_CTL + 2)), B::OP_BAR, 1, seconds(1)); }) ==
          link_defs::ERR_NO_REG);
    CHECK(link_err([&] { c0.call(0, B::regs::addr(B::regs::MODE), B::regs::DEFAULT_KEY, 4, seconds(1)); }) ==
          link_defs::ERR_NO_REG);
    CHECK(n0.error_reg() == 0);
    CHECK(link_err([&] { c0.call(0, call2, B::OP_BAR, 2, seconds(1)); }) == link_defs::ERR_REFUSED);
    CHECK((n0.error_reg() >> 4 & 0xf) == B::C_CALLARG);
    n0.clear_error();
    CHECK(link_err([&] { c0.call(0, call2, B::OP_RESET, 1, seconds(1)); }) == link_defs::ERR_REFUSED);
    CHECK((n0.error_reg() >> 4 & 0xf) == B::C_CALLARG);
    n0.clear_error();
    CHECK(n0.cfg(2) == B::cfg_word(true, 1u << 0, B::P_ROOT));  // untouched
    CHECK(n0.state(2) == B::S_IDLE);
    // the library names a refused BAR_CALL's cause: NOTPART from the BAR_CTL table
    CHECK(besu_cause([&] { n0.barrier(3); }) == B::C_NOTPART);
    CHECK(besu_cause([&] { n0.wait_barrier(2); }) == B::C_NOWAIT);  // nothing armed to wait for
    // a CALL left pending in the node (the host gave up; the hub forgot it at the next command)
    CHECK_THROWS_AS(c0.call(0, call2, B::OP_BAR, 1, microseconds(500)), TimeoutError);
    CHECK(n0.state(2) == B::S_ARM);
    CHECK(besu_cause([&] { n0.barrier(2); }) == B::C_BUSY);       // a second BAR_CALL
    CHECK(besu_cause([&] { n0.clear(2); }) == B::C_BUSY);         // a BAR_CTL write to its BESU
    // node 1 arrives; the barrier completes; nobody asked for node 0's result:
    // CANCEL finds it FINISHED with the state
    CHECK(n1.barrier(2) == B::S_BAR);
    const unsigned c = n0.cancel();
    CHECK((c >> 4 & 3) == B::CANCEL_FINISHED);
    CHECK((c & 7) == B::S_BAR);
    CHECK((n0.cancel() >> 4 & 3) == B::CANCEL_NONE);
    // and WITHDRAWN when it had not finished
    CHECK_THROWS_AS(c0.call(0, call2, B::OP_BAR, 1, microseconds(500)), TimeoutError);
    const unsigned w = n0.cancel();
    CHECK((w >> 4 & 3) == B::CANCEL_WITHDRAWN);
    CHECK((w & 7) == B::S_ARM);
    CHECK(n1.barrier(2) == B::S_BAR);
    CHECK(n0.wait_barrier(2) == B::S_BAR);  // a wait-only CALL finds it at once
    CHECK(n0.error_reg() == 0);
    CHECK(n1.error_reg() == 0);
}

}  // namespace
