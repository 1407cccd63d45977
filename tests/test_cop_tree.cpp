// cop_tree (rtl/cop/cop_tree.v): two levels of Hall's COP (seed 004, chapter
// IV: the X bit of figure 13b's instruction word and two-level trees), 4
// level 1 cores of C = 16 channels under one level 2 core, 64 PEs (PE p is
// core p / 16, channel p mod 16).  docs/cop.md "Two levels".
//
// The reference is the cycle-level model sim/cop_model.hpp composed the way
// the tree is: a round with X is the level 1 round of each core over its
// members (one CopModel of 16 channels each), whose combined value is one
// contribution of that core's channel of a level 2 round (one CopModel of
// 4 channels).  Results are compared per PE, not per cycle (the tree's
// timing is the links' and the arbiter's, docs/cop.md).  For the integer
// reductions, MAXF and MINF the same contributions are also run through
// one CopModel of 64 channels: two levels give the same bits as one.  The
// exact sum (EXSUMF) with X is checked against one level only: level 2
// merges the level 1 accumulators' exact values (EXMRG), which no
// composition of rounded level 1 results can model.
// Random programs use the seed printed (AGGNET_SEED overrides it).
#include "cop_model.hpp"
#include "fp_ref.hpp"
#include "harness.hpp"
#include "seed.hpp"

#include <Vcop_tree.h>
#include <aggnet/cop_regs.hpp>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

using aggnet::sim::CopModel;
using aggnet::sim::Harness;
namespace cop = aggnet::cop;
namespace R = aggnet::cop::regs;
namespace fp = aggnet::sim::fp;

namespace {

constexpr uint32_t KEY = 0x434F5053u;
constexpr unsigned NCOP = 4, CH = 16, NPE = NCOP * CH;
using Req = CopModel::Req;
using Rsp = CopModel::Rsp;

unsigned operand_len(unsigned op) { return cop::op_info(op)->operand_len; }

// ---- a bus driver: the same calls for the RTL and for a model ----------------------
template <class Impl>
struct Driver {
    Rsp write(unsigned pe, uint16_t reg, uint32_t v) {
        Req q;
        q.we = true, q.pe = pe, q.addr = reg, q.wdata = v;
        return self().cycle(&q);
    }
    uint32_t read(unsigned pe, uint16_t reg) {
        Req q;
        q.pe = pe, q.addr = reg;
        const Rsp r = self().cycle(&q);
        REQUIRE(r.err == CopModel::OK);
        return uint32_t(r.rdata);
    }
    Rsp start(unsigned pe, unsigned op, uint64_t v = 0, unsigned mask = 0, unsigned x = 0) {
        Req q;
        q.we = true, q.call = true, q.pe = pe, q.addr = R::call(op, mask, x), q.wdata = v;
        q.len = operand_len(op);
        if (q.len == 4) q.wdata &= 0xffffffffu;
        if (q.len == 0) q.wdata = 0;
        return self().cycle(&q);
    }
    Rsp ask(unsigned pe) {
        Req q;
        q.call = true, q.pe = pe, q.addr = R::CALL_BASE;
        return self().cycle(&q);
    }
    Rsp wait(unsigned pe, unsigned limit = 200000) {
        for (unsigned i = 0; i < limit; ++i) {
            const Rsp r = ask(pe);
            if (r.err != CopModel::PEND) return r;
        }
        FAIL("PE" << pe << ": CALL still pending after " << limit << " asks");
        return {};
    }
    /// Asks every PE of `pes` in turn until each has finished; their answers.
    std::map<unsigned, Rsp> wait_all(const std::vector<unsigned>& pes, unsigned limit = 200000) {
        std::map<unsigned, Rsp> got;
        for (unsigned i = 0; i < limit && got.size() < pes.size(); ++i)
            for (unsigned pe : pes) {
                if (got.count(pe)) continue;
                const Rsp r = ask(pe);
                if (r.err != CopModel::PEND) got[pe] = r;
            }
        REQUIRE(got.size() == pes.size());
        return got;
    }
    /// Supervisor on pe, then an S opcode (SETTC / SETBM) of key `mask`, with or without X.
    Rsp sup_call(unsigned pe, unsigned op, uint64_t v, unsigned mask = 0, unsigned x = 0) {
        REQUIRE(write(pe, R::MODE, KEY).err == CopModel::OK);
        const Rsp s = start(pe, op, v, mask, x);
        if (s.err != CopModel::PEND) return s;
        return wait(pe);
    }
    /// CANCEL (docs/link.md rule 8): the outcome word (bits 1..0 cop::CancelOutcome), at once.
    uint32_t cancel(unsigned pe) {
        Req q;
        q.we = q.call = true, q.pe = pe, q.addr = R::CANCEL;
        const Rsp r = self().cycle(&q);
        REQUIRE(r.err == CopModel::OK);
        return uint32_t(r.rdata);
    }
    unsigned cause(unsigned pe) { return read(pe, R::CAUSE) & 0xff; }
    Impl& self() { return *static_cast<Impl*>(this); }
};

struct Tree : Driver<Tree> {
    Harness<Vcop_tree> h;
    explicit Tree(const std::string& name) : h(name, 60'000'000) { h.reset(); }
    Rsp cycle(const Req* q) {
        h->bus_req_valid = q != nullptr;
        if (q) {
            h->bus_req_we = q->we;
            h->bus_req_call = q->call;
            h->bus_req_pe = q->pe;
            h->bus_req_addr = uint16_t(R::WINDOW << 12 | q->addr);
            h->bus_req_wdata = uint32_t(q->wdata);
            h->bus_req_wdata_hi = uint32_t(q->wdata >> 32);
            h->bus_req_len = q->len;
            h->bus_req_size = 4;
        }
        REQUIRE(h->bus_req_ready);
        h.tick();
        h->bus_req_valid = 0;
        if (!q) {
            REQUIRE(h->bus_rsp_valid == 0);
            return {};
        }
        // the cores' request stage: answered two cycles after the request, no request taken between
        REQUIRE(h->bus_rsp_valid == 0);
        REQUIRE_FALSE(h->bus_req_ready);
        h.tick();
        REQUIRE(h->bus_rsp_valid == 1);
        Rsp r;
        r.err = h->bus_rsp_err;
        r.rdata = uint64_t(h->bus_rsp_rdata_hi) << 32 | h->bus_rsp_rdata;
        r.len = h->bus_rsp_len;
        return r;
    }
    void idle(unsigned n) {
        for (unsigned i = 0; i < n; ++i) cycle(nullptr);
    }
};

struct Model : Driver<Model> {
    CopModel m;
    explicit Model(unsigned c) : m(CopModel::Cfg{c, 2, 2, 4, 2, KEY, true}) { m.reset(); }
    Rsp cycle(const Req* q) {
        auto r = m.step(q);
        return q ? *r : Rsp{};
    }
};

/// One round of `op` on a model of C channels: members[i] contributes v[i]
/// (arriving in the given order); every member's answer.
std::map<unsigned, Rsp> model_round(unsigned c, unsigned op, const std::vector<unsigned>& members,
                                    const std::vector<uint64_t>& v) {
    Model md(c);
    uint64_t tc = 0;
    for (unsigned p : members) tc |= 1ull << p;
    REQUIRE(md.sup_call(0, cop::OP_SETTC, tc).err == CopModel::OK);
    for (size_t i = 0; i < members.size(); ++i) REQUIRE(md.start(members[i], op, v[i]).err == CopModel::PEND);
    return md.wait_all(members);
}

/// The two-level reference: each core's members (in PE numbers) make a level
/// 1 round; its result (the first member's) is core k's contribution to the
/// level 2 round of the cores that have members.  Returns the one answer every
/// member gets.
Rsp two_level(unsigned op, const std::map<unsigned, uint64_t>& contrib) {
    std::vector<unsigned> l2m;
    std::vector<uint64_t> l2v;
    for (unsigned k = 0; k < NCOP; ++k) {
        std::vector<unsigned> m;
        std::vector<uint64_t> v;
        for (const auto& [pe, x] : contrib)
            if (pe / CH == k) m.push_back(pe % CH), v.push_back(x);
        if (m.empty()) continue;
        const auto r = model_round(CH, op, m, v);
        const Rsp first = r.at(m[0]);
        for (const auto& [ch, a] : r) REQUIRE(a == first);
        REQUIRE(first.err == CopModel::OK);
        l2m.push_back(k);
        l2v.push_back(first.rdata);
    }
    const auto r = model_round(NCOP, op, l2m, l2v);
    return r.at(l2m[0]);
}

/// The one-level reference: one model of 64 channels.
Rsp one_level(unsigned op, const std::map<unsigned, uint64_t>& contrib) {
    std::vector<unsigned> m;
    std::vector<uint64_t> v;
    for (const auto& [pe, x] : contrib) m.push_back(pe), v.push_back(x);
    const auto r = model_round(NPE, op, m, v);
    return r.at(m[0]);
}

/// Prefix sums (SCANI / SCANX, 32 or 64 bits) on two levels, composed from the
/// model the way docs/cop.md "Two levels" says the tree computes them: each
/// core's members make a level 1 prefix sum without X (in channel order);
/// the core's total (its last member's inclusive sum) is core k's operand of
/// a level 2 exclusive prefix sum of the same width over the cores that have
/// members; a member's answer is its core's offset plus its level 1 sum.
std::map<unsigned, Rsp> two_level_scan(unsigned op, const std::map<unsigned, uint64_t>& contrib) {
    const bool w64 = operand_len(op) == 8;
    const unsigned incl = w64 ? cop::OP_SCANI64 : cop::OP_SCANI32, excl = incl | 1u;
    const uint64_t wmask = w64 ? ~uint64_t(0) : 0xffffffffu;
    std::map<unsigned, std::map<unsigned, Rsp>> local;  // core -> channel -> level 1 answer
    std::vector<unsigned> l2m;
    std::vector<uint64_t> l2v;
    for (unsigned k = 0; k < NCOP; ++k) {
        std::vector<unsigned> m;
        std::vector<uint64_t> v;
        for (const auto& [pe, x] : contrib)
            if (pe / CH == k) m.push_back(pe % CH), v.push_back(x);
        if (m.empty()) continue;
        local[k] = model_round(CH, op, m, v);
        const auto last = model_round(CH, incl, m, v).at(m.back());
        REQUIRE(last.err == CopModel::OK);
        l2m.push_back(k);
        l2v.push_back(last.rdata);
    }
    const auto offs = model_round(NCOP, excl, l2m, l2v);
    std::map<unsigned, Rsp> want;
    for (const auto& [k, r] : local) {
        const Rsp off = offs.at(k);
        REQUIRE(off.err == CopModel::OK);
        for (const auto& [ch, a] : r) {
            REQUIRE(a.err == CopModel::OK);
            Rsp w = a;
            w.rdata = (a.rdata + off.rdata) & wmask;
            want[k * CH + ch] = w;
        }
    }
    return want;
}

/// The one-level reference of a prefix sum: one model of 64 channels, every member's answer.
std::map<unsigned, Rsp> one_level_all(unsigned op, const std::map<unsigned, uint64_t>& contrib) {
    std::vector<unsigned> m;
    std::vector<uint64_t> v;
    for (const auto& [pe, x] : contrib) m.push_back(pe), v.push_back(x);
    return model_round(NPE, op, m, v);
}

const unsigned kScanOps[] = {cop::OP_SCANI32, cop::OP_SCANX32, cop::OP_SCANI64, cop::OP_SCANX64};

/// The tree with every core's key 0 TC and mask = all its channels, and level
/// 2's key 0 TC and mask = all four cores (SETTC / SETBM with X from PE0).
void setup_all(Tree& t) {
    for (unsigned k = 0; k < NCOP; ++k) {
        REQUIRE(t.sup_call(k * CH, cop::OP_SETTC, 0xffff).err == CopModel::OK);
        REQUIRE(t.sup_call(k * CH, cop::OP_SETBM, 0xffff).err == CopModel::OK);
    }
    REQUIRE(t.sup_call(0, cop::OP_SETTC, 0xf, 0, 1).err == CopModel::OK);
    REQUIRE(t.sup_call(0, cop::OP_SETBM, 0xf, 0, 1).err == CopModel::OK);
}

/// A round with X on the tree: the members start in `order`, the answers.
std::map<unsigned, Rsp> tree_round(Tree& t, unsigned op, const std::vector<unsigned>& order,
                                   const std::map<unsigned, uint64_t>& contrib) {
    for (unsigned pe : order) {
        const Rsp s = t.start(pe, op, contrib.at(pe), 0, 1);
        REQUIRE(s.err == CopModel::PEND);
    }
    return t.wait_all(order);
}

const unsigned kIntOps[] = {cop::OP_SUMI32, cop::OP_MAXI32, cop::OP_MINI32, cop::OP_OR32,  cop::OP_AND32,
                            cop::OP_EXOR32, cop::OP_SUMI64, cop::OP_MAXI64, cop::OP_MINI64, cop::OP_OR64,
                            cop::OP_AND64,  cop::OP_EXOR64};

uint64_t draw(std::mt19937_64& rng, unsigned op) {
    uint64_t u = rng();
    switch (rng() % 4) {
    case 0: u %= 16; break;
    case 1: u = ~uint64_t(0) - u % 16; break;
    default: break;
    }
    return operand_len(op) == 4 ? (u & 0xffffffffu) : u;
}

/// Every PE's operand of `op`, drawn in PE order.
std::map<unsigned, uint64_t> draw_all(std::mt19937_64& rng, unsigned op) {
    std::map<unsigned, uint64_t> v;
    for (unsigned pe = 0; pe < NPE; ++pe) v[pe] = draw(rng, op);
    return v;
}

/// The 64 PEs in a random order (their arrivals).
std::vector<unsigned> shuffled_pes(std::mt19937_64& rng) {
    std::vector<unsigned> order(NPE);
    for (unsigned i = 0; i < NPE; ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    return order;
}

}  // namespace

TEST_CASE("cop tree: a barrier with X completes only when every PE of both levels entered", "[cop][tree]") {
    // seed 004 Table I BENTRY with figure 13b's X bit: the level 1 cores
    // complete their barriers and each sends one entry up; level 2's round
    // completes with the fourth, and the exit comes down to all 64
    Tree t("cop_tree_barrier");
    setup_all(t);
    for (unsigned round = 0; round < 3; ++round) {
        std::vector<unsigned> order(NPE);
        for (unsigned i = 0; i < NPE; ++i) order[i] = (i * 37 + round * 11) % NPE;
        const unsigned last = order.back();
        for (unsigned i = 0; i + 1 < NPE; ++i) REQUIRE(t.start(order[i], cop::OP_BENTRY, 0, 0, 1).err == CopModel::PEND);
        t.idle(400);
        // three cores complete their level 1 round and wait at level 2; none is released
        for (unsigned pe = 0; pe < NPE; ++pe)
            if (pe != last) REQUIRE(t.ask(pe).err == CopModel::PEND);
        REQUIRE(t.start(last, cop::OP_BENTRY, 0, 0, 1).err == CopModel::PEND);
        const auto got = t.wait_all(order);
        for (const auto& [pe, r] : got) {
            INFO("round " << round << " PE" << pe);
            REQUIRE(r.err == CopModel::OK);
            REQUIRE(r.len == 0u);
        }
    }
}

TEST_CASE("cop tree: a PE that never arrives: its core's WAIT names it; supervisor aborts free both levels",
          "[cop][tree]") {
    // Issue 23's fault case on two levels: PE 50 (core 3, channel 2) dies before an X barrier.
    // Cores 0-2 complete and wait at level 2; core 3's round waits for channel 2 alone, which
    // its WAIT0 register says (a host names PE 3 * 16 + 2 from it). A survivor of core 3
    // gives up: CANCEL withdraws its contribution (an X entry of cores 0-2 is RUNNING: it is
    // at level 2); as supervisor it ends core 3's round (SETTC: ABORTED to its waiting members,
    // docs/cop.md departure 7), then level 2's (SETTC with X from core 3, which has no entry
    // up: ABORTED comes down to every member of cores 0-2). Nothing is left waiting, and the
    // next barrier of all 64 completes as usual.
    Tree t("cop_tree_dead_pe");
    setup_all(t);
    constexpr unsigned DEAD = 50, SUP = 48;
    std::vector<unsigned> alive;
    for (unsigned pe = 0; pe < NPE; ++pe)
        if (pe != DEAD) alive.push_back(pe);
    for (unsigned pe : alive) REQUIRE(t.start(pe, cop::OP_BENTRY, 0, 0, 1).err == CopModel::PEND);
    t.idle(400);
    for (unsigned pe : alive) REQUIRE(t.ask(pe).err == CopModel::PEND);
    for (unsigned k = 0; k < NCOP; ++k) {
        INFO("core " << k);
        const uint64_t w = uint64_t(t.read(k * CH, R::WAIT0_HI)) << 32 | t.read(k * CH, R::WAIT0_LO);
        REQUIRE(w == (k == DEAD / CH ? 1ull << (DEAD % CH) : 0ull));
    }
    // a member of core 0 is in the entry at level 2: RUNNING, nothing changes
    REQUIRE((t.cancel(5) & 3u) == cop::CX_RUNNING);
    REQUIRE(t.ask(5).err == CopModel::PEND);
    // the survivor of core 3 withdraws, then aborts core 3's round and level 2's
    REQUIRE((t.cancel(SUP) & 3u) == cop::CX_WITHDRAWN);
    REQUIRE(t.sup_call(SUP, cop::OP_SETTC, 0xffff).err == CopModel::OK);
    REQUIRE(t.sup_call(SUP, cop::OP_SETTC, 0xf, 0, 1).err == CopModel::OK);
    std::vector<unsigned> waiting;
    for (unsigned pe : alive)
        if (pe != SUP) waiting.push_back(pe);
    for (const auto& [pe, r] : t.wait_all(waiting)) {
        INFO("PE" << pe);
        REQUIRE(r.err == CopModel::REF);
        REQUIRE(t.cause(pe) == cop::C_ABORTED);
    }
    for (unsigned k = 0; k < NCOP; ++k) REQUIRE(t.read(k * CH, R::WAIT0_LO) == 0u);
    // PE 50 is back: a barrier of all 64 completes
    std::vector<unsigned> all(NPE);
    for (unsigned i = 0; i < NPE; ++i) all[i] = (i * 29 + 7) % NPE;
    for (unsigned pe : all) REQUIRE(t.start(pe, cop::OP_BENTRY, 0, 0, 1).err == CopModel::PEND);
    for (const auto& [pe, r] : t.wait_all(all)) {
        INFO("after the aborts, PE" << pe);
        REQUIRE(r.err == CopModel::OK);
    }
}

TEST_CASE("cop tree: X rounds that wait for each other's cores: a supervisor withdraws one (UPLINK)",
          "[cop][tree]") {
    // docs/cop.md departure 16: one entry per core at level 2. Core 0's round of key 0 (mask 0)
    // goes up first, core 1's of key 1 (mask 1) too; core 0's key 1 members then wait behind
    // its entry, core 1's key 0 members behind its: level 2's round of key 0 waits for core 1,
    // its round of key 1 for core 0, for ever. SETTC with X cannot break it (it would wait
    // behind the entry too). A supervisor of core 0 writes UPLINK: cop_up CANCELs the entry's
    // CALL at level 2 (WITHDRAWN), its members are refused ABORTED, core 0's key 1 entry goes
    // up and completes key 1, core 1's key 0 entry follows, and key 0's members of core 0,
    // starting again, complete it.
    Tree t("cop_tree_uplink");
    for (unsigned core : {0u, 1u}) {
        REQUIRE(t.sup_call(core * CH, cop::OP_SETTC, 0x00ff, 0).err == CopModel::OK);
        REQUIRE(t.sup_call(core * CH, cop::OP_SETTC, 0xff00, 1).err == CopModel::OK);
    }
    REQUIRE(t.sup_call(0, cop::OP_SETTC, 0x3, 0, 1).err == CopModel::OK);
    REQUIRE(t.sup_call(0, cop::OP_SETTC, 0x3, 1, 1).err == CopModel::OK);
    std::vector<unsigned> a0, a1, b0, b1;  // key 0 / key 1 members of cores 0 and 1
    for (unsigned ch = 0; ch < CH; ++ch) (ch < 8 ? a0 : b0).push_back(ch), (ch < 8 ? a1 : b1).push_back(CH + ch);
    const auto val = [](unsigned pe) { return uint64_t(pe) * 1000 + 7; };
    uint64_t sum_a = 0, sum_b = 0;
    for (unsigned pe : a0) sum_a += val(pe);
    for (unsigned pe : a1) sum_a += val(pe);
    for (unsigned pe : b0) sum_b += val(pe);
    for (unsigned pe : b1) sum_b += val(pe);
    // no entry at level 2 yet: UPLINK reads 0; a write changes nothing; from a user, PRIV
    REQUIRE(t.read(0, R::UPLINK) == 0u);
    REQUIRE(t.write(0, R::UPLINK, 1).err == CopModel::OK);
    REQUIRE(t.read(0, R::UPLINK) == 0u);
    REQUIRE(t.write(3, R::MODE, 0).err == CopModel::OK);
    REQUIRE(t.write(3, R::UPLINK, 1).err == CopModel::REF);
    REQUIRE(t.cause(3) == cop::C_PRIV);
    for (unsigned pe : a0) REQUIRE(t.start(pe, cop::OP_SUMI64, val(pe), 0, 1).err == CopModel::PEND);
    for (unsigned pe : b1) REQUIRE(t.start(pe, cop::OP_SUMI64, val(pe), 1, 1).err == CopModel::PEND);
    t.idle(300);
    for (unsigned pe : b0) REQUIRE(t.start(pe, cop::OP_SUMI64, val(pe), 1, 1).err == CopModel::PEND);
    for (unsigned pe : a1) REQUIRE(t.start(pe, cop::OP_SUMI64, val(pe), 0, 1).err == CopModel::PEND);
    t.idle(2000);
    for (unsigned pe = 0; pe < 2 * CH; ++pe) REQUIRE(t.ask(pe).err == CopModel::PEND);  // stuck
    REQUIRE(t.read(0, R::UPLINK) == 1u);   // core 0's entry is at level 2
    REQUIRE(t.read(CH, R::UPLINK) == 1u);  // and core 1's
    REQUIRE(t.write(0, R::UPLINK, 1).err == CopModel::OK);  // PE 0 is supervisor (sup_call)
    for (const auto& [pe, r] : t.wait_all(a0)) {
        INFO("withdrawn, PE" << pe);
        REQUIRE(r.err == CopModel::REF);
        REQUIRE(t.cause(pe) == cop::C_ABORTED);
    }
    std::vector<unsigned> bs(b0);
    bs.insert(bs.end(), b1.begin(), b1.end());
    for (const auto& [pe, r] : t.wait_all(bs)) {
        INFO("key 1, PE" << pe);
        REQUIRE(r.err == CopModel::OK);
        REQUIRE(r.rdata == sum_b);
    }
    t.idle(300);
    REQUIRE(t.read(0, R::UPLINK) == 0u);   // core 0 has nothing at level 2 now
    REQUIRE(t.read(CH, R::UPLINK) == 1u);  // core 1's key 0 entry waits there for core 0
    for (unsigned pe : a0) REQUIRE(t.start(pe, cop::OP_SUMI64, val(pe), 0, 1).err == CopModel::PEND);
    std::vector<unsigned> as(a0);
    as.insert(as.end(), a1.begin(), a1.end());
    for (const auto& [pe, r] : t.wait_all(as)) {
        INFO("key 0 again, PE" << pe);
        REQUIRE(r.err == CopModel::OK);
        REQUIRE(r.rdata == sum_a);
    }
}

TEST_CASE("cop tree: a withdrawal racing level 2's completion: every member gets the same outcome",
          "[cop][tree]") {
    // UPLINK written at every delay around the last core's arrival: either level 2 withdraws
    // core 0's contribution first (core 0's members ABORTED, core 1's still waiting, and they
    // complete when core 0's members start again) or the round finished first (every member
    // gets the result: through CANCEL's FINISHED and XMIT, or the link's own ask)
    Tree t("cop_tree_uplink_race");
    REQUIRE(t.sup_call(0, cop::OP_SETTC, 0x3).err == CopModel::OK);
    REQUIRE(t.sup_call(CH, cop::OP_SETTC, 0x3).err == CopModel::OK);
    REQUIRE(t.sup_call(0, cop::OP_SETTC, 0x3, 0, 1).err == CopModel::OK);
    const std::vector<unsigned> c0{0, 1}, c1{CH, CH + 1}, all{0, 1, CH, CH + 1};
    unsigned withdrawn = 0, finished = 0;
    for (unsigned d = 0; d < 40; ++d) {
        INFO("delay " << d);
        for (unsigned pe : c0) REQUIRE(t.start(pe, cop::OP_SUMI32, pe + 1, 0, 1).err == CopModel::PEND);
        t.idle(100);
        REQUIRE(t.start(CH, cop::OP_SUMI32, CH + 1, 0, 1).err == CopModel::PEND);
        REQUIRE(t.start(CH + 1, cop::OP_SUMI32, CH + 2, 0, 1).err == CopModel::PEND);
        t.idle(d);
        REQUIRE(t.write(0, R::UPLINK, 1).err == CopModel::OK);
        const uint64_t want = 1u + 2u + (CH + 1) + (CH + 2);
        const auto r0 = t.wait_all(c0);
        REQUIRE(r0.at(0) == r0.at(1));
        std::vector<unsigned> rest = c1;
        if (r0.at(0).err == CopModel::REF) {
            ++withdrawn;
            for (unsigned pe : c0) REQUIRE(t.cause(pe) == cop::C_ABORTED);
            t.idle(200);
            for (unsigned pe : c1) REQUIRE(t.ask(pe).err == CopModel::PEND);
            for (unsigned pe : c0) REQUIRE(t.start(pe, cop::OP_SUMI32, pe + 1, 0, 1).err == CopModel::PEND);
            rest = all;
        } else {
            ++finished;
            REQUIRE(r0.at(0).err == CopModel::OK);
            REQUIRE(r0.at(0).rdata == want);
        }
        for (const auto& [pe, r] : t.wait_all(rest)) {
            INFO("PE" << pe);
            REQUIRE(r.err == CopModel::OK);
            REQUIRE(r.rdata == want);
        }
    }
    std::printf("cop tree uplink race: %u withdrawn, %u finished first\n", withdrawn, finished);
    REQUIRE(withdrawn > 0);
    REQUIRE(finished > 0);
}

TEST_CASE("cop tree: integer reductions with X equal one level's and the composed model's", "[cop][tree]") {
    // Table I SUMI, MAXI, MINI, OR, AND, EXOR (32 and 64 bits) over 64 PEs
    const uint64_t seed = aggnet::sim::test_seed("cop_tree_int");
    std::mt19937_64 rng(seed);
    Tree t("cop_tree_int");
    setup_all(t);
    unsigned checks = 0;
    for (unsigned op : kIntOps) {
        const auto v = draw_all(rng, op);
        const auto order = shuffled_pes(rng);
        const Rsp want = two_level(op, v);
        REQUIRE(want == one_level(op, v));
        const auto got = tree_round(t, op, order, v);
        for (const auto& [pe, r] : got) {
            INFO(cop::op_info(op)->name << " PE" << pe << " seed " << seed);
            REQUIRE(r == want);
            ++checks;
        }
    }
    REQUIRE(checks == 12 * NPE);
}

TEST_CASE("cop tree: double reductions with X (MAXF, MINF as one level; SUMF in two-level order)",
          "[cop][tree][fpu]") {
    const uint64_t seed = aggnet::sim::test_seed("cop_tree_float");
    std::mt19937_64 rng(seed);
    Tree t("cop_tree_float");
    setup_all(t);
    for (unsigned k = 0; k < 12; ++k) {
        std::vector<uint64_t> terms = fp::term_set(rng, k);
        terms.resize(NPE, fp::to_b(1.0));
        std::shuffle(terms.begin(), terms.end(), rng);
        std::map<unsigned, uint64_t> v;
        for (unsigned pe = 0; pe < NPE; ++pe) v[pe] = terms[pe];
        for (unsigned op : {cop::OP_MAXF, cop::OP_MINF, cop::OP_SUMF}) {
            const auto order = shuffled_pes(rng);
            const Rsp want = two_level(op, v);
            if (op != cop::OP_SUMF) REQUIRE(want == one_level(op, v));
            const auto got = tree_round(t, op, order, v);
            for (const auto& [pe, r] : got) {
                INFO(cop::op_info(op)->name << " set " << k << " PE" << pe << " seed " << seed);
                REQUIRE(r == want);
            }
        }
    }
}

TEST_CASE("cop tree: prefix sums with X equal one level's over all PEs and the composed model's",
          "[cop][tree]") {
    // SCANI / SCANX (aggnet's opcodes in free Table I slots, docs/cop_regmap.md) with X: the
    // level 1 sums, level 2's exclusive sum over the cores' totals, the offsets added.
    // Integer sums wrap, so two levels give one level's bits in PE order.
    const uint64_t seed = aggnet::sim::test_seed("cop_tree_scan");
    std::mt19937_64 rng(seed);
    Tree t("cop_tree_scan");
    setup_all(t);
    unsigned checks = 0;
    for (unsigned rep = 0; rep < 2; ++rep)
        for (unsigned op : kScanOps) {
            const auto v = draw_all(rng, op);
            const auto order = shuffled_pes(rng);
            const auto want = two_level_scan(op, v);
            REQUIRE(want == one_level_all(op, v));
            const auto got = tree_round(t, op, order, v);
            for (const auto& [pe, r] : got) {
                INFO(cop::op_info(op)->name << " PE" << pe << " seed " << seed);
                REQUIRE(r == want.at(pe));
                ++checks;
            }
        }
    REQUIRE(checks == 8 * NPE);
    // one member per core (TC vectors of one channel each): the offsets are the totals of
    // the cores before, the first member of the tree gets an exclusive sum's 0
    const uint64_t one_ch[NCOP] = {0x1, 0x2, 0x100, 0x8000};  // PEs 0, 17, 40, 63
    for (unsigned k = 0; k < NCOP; ++k) REQUIRE(t.sup_call(k * CH, cop::OP_SETTC, one_ch[k]).err == CopModel::OK);
    const auto got = tree_round(t, cop::OP_SCANX64, {63, 17, 0, 40}, {{0, 1}, {17, 18}, {40, 41}, {63, 64}});
    REQUIRE(got.at(0).rdata == 0);
    REQUIRE(got.at(17).rdata == 1);
    REQUIRE(got.at(40).rdata == 19);
    REQUIRE(got.at(63).rdata == 60);
}

TEST_CASE("cop tree: X on SCANIF, SCANXF, XMIT and ACK is refused XOP; EXMRG is level 2's; EXSUMF without X",
          "[cop][tree]") {
    Tree t("cop_tree_xop");
    setup_all(t);
    for (unsigned op : {cop::OP_SCANIF, cop::OP_SCANXF, cop::OP_XMIT, cop::OP_ACK}) {
        const Rsp s = t.start(17, op, 0, 0, 1);
        INFO(cop::op_info(op)->name);
        REQUIRE(s.err == CopModel::REF);
        REQUIRE((t.read(17, R::CAUSE) & 0xff) == cop::C_XOP);
    }
    // EXMRG (docs/cop_regmap.md) reads other cores' accumulators: supervisor only, and only a
    // core built with DOWN = 1 (level 2) takes it; a level 1 core refuses it NODOWN, with X XOP
    REQUIRE(t.write(18, R::MODE, 0).err == CopModel::OK);
    REQUIRE(t.start(18, cop::OP_EXMRG).err == CopModel::REF);
    REQUIRE(t.cause(18) == cop::C_PRIV);
    REQUIRE(t.write(18, R::MODE, KEY).err == CopModel::OK);
    REQUIRE(t.start(18, cop::OP_EXMRG).err == CopModel::REF);
    REQUIRE(t.cause(18) == cop::C_NODOWN);
    REQUIRE(t.write(18, R::MODE, 0).err == CopModel::OK);
    // the level 1 round of core 1 without X (its own 16 channels)
    std::vector<unsigned> pes;
    for (unsigned pe = CH; pe < 2 * CH; ++pe) pes.push_back(pe);
    for (unsigned pe : pes) REQUIRE(t.start(pe, cop::OP_EXSUMF, fp::to_b(double(pe) - 20.5)).err == CopModel::PEND);
    double want = 0;
    for (unsigned pe : pes) want += double(pe) - 20.5;  // small halves: exact in binary64
    for (const auto& [pe, r] : t.wait_all(pes)) {
        REQUIRE(r.err == CopModel::OK);
        REQUIRE(r.rdata == fp::to_b(want));
    }
    // CONFIG bits 23 and 24: the level 1 cores are built with UP = 1 and DOWN = 0
    REQUIRE((t.read(5, R::CONFIG) >> 23 & 3) == 1u);
}

TEST_CASE("cop tree: exact sums with X give one level's bits for every split of the terms",
          "[cop][tree][fpu]") {
    // aggnet's EXSUMF (docs/cop.md "Beyond the seed") with X: each level 1 core adds its
    // members' terms exactly and keeps them; level 2's EXMRG merges the cores' accumulators
    // (34 words each) and rounds once, so the result is the correctly rounded exact sum of all
    // the terms, whatever cores and channels they sit on (issue 23: "bit-identical for every
    // arrival order, batching and tree split"). fp_ref's term sets: wide ranges, cancellation,
    // overflow, subnormals, ties far below the result, NaNs and infinities, signed zeros.
    const uint64_t seed = aggnet::sim::test_seed("cop_tree_exsum");
    std::printf("cop tree exact sums: seed %llu (AGGNET_SEED overrides)\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    Tree t("cop_tree_exsum");
    setup_all(t);
    unsigned checks = 0;
    for (unsigned k = 0; k < 16; ++k) {
        std::vector<uint64_t> terms = fp::term_set(rng, k);
        terms.resize(NPE, fp::SIGN);  // -0 leaves every sum as it is (an all -0 sum too)
        std::shuffle(terms.begin(), terms.end(), rng);
        // the split: all 64 PEs in even sets; in odd ones a random subset of each core (a core
        // with none stays out of level 2's round)
        std::map<unsigned, uint64_t> v;
        uint64_t cores = 0;
        for (unsigned c = 0; c < NCOP; ++c) {
            uint64_t m = (k % 2 == 0) ? 0xffff : (rng() % 4 == 0 ? 0 : rng() & 0xffff);
            if (c == k % NCOP && !m) m = 1;
            if (m) cores |= 1ull << c;
            REQUIRE(t.sup_call(c * CH, cop::OP_SETTC, m ? m : 0xffff).err == CopModel::OK);
            for (unsigned ch = 0; ch < CH; ++ch)
                if (m >> ch & 1) v[c * CH + ch] = terms[c * CH + ch];
        }
        REQUIRE(t.sup_call(0, cop::OP_SETTC, cores, 0, 1).err == CopModel::OK);
        std::vector<uint64_t> mine;
        for (const auto& [pe, x] : v) mine.push_back(x);
        const Rsp want = one_level(cop::OP_EXSUMF, v);
        REQUIRE(want.err == CopModel::OK);
        REQUIRE(want.rdata == fp::ref_sum(mine));
        std::vector<unsigned> order;
        for (const auto& [pe, x] : v) order.push_back(pe);
        std::shuffle(order.begin(), order.end(), rng);
        for (const auto& [pe, r] : tree_round(t, cop::OP_EXSUMF, order, v)) {
            INFO("set " << k << " PE" << pe << " seed " << seed);
            REQUIRE(r == want);
            ++checks;
        }
    }
    REQUIRE(checks >= 8 * NPE);
}

TEST_CASE("cop tree: while a core's exact sum is at level 2 its other exact sums wait; an abort clears it",
          "[cop][tree][fpu]") {
    // The level 1 accumulator holds its export until level 2's answer comes down (docs/cop.md
    // departure 17): an EXSUMF round without X on the same core must not run meanwhile (its
    // terms would go into the export, and its ROUND_CLEAR would empty it). Key 0 (mask 0):
    // channels 0-7 of core 0 and all of cores 1-3, with X; key 1 (mask 1): channels 8-15 of
    // core 0, without X.
    Tree t("cop_tree_exhold");
    setup_all(t);
    REQUIRE(t.sup_call(0, cop::OP_SETTC, 0x00ff).err == CopModel::OK);
    REQUIRE(t.sup_call(0, cop::OP_SETTC, 0xff00, 1).err == CopModel::OK);
    const auto term = [](unsigned pe) { return fp::to_b(std::ldexp(double(pe) + 0.5, int(pe % 7) * 40 - 100)); };
    std::map<unsigned, uint64_t> x_terms;
    std::vector<uint64_t> x_list, k1_list;
    for (unsigned pe = 0; pe < NPE; ++pe)
        if (pe >= 8 && pe < CH) k1_list.push_back(term(pe));
        else x_terms[pe] = term(pe), x_list.push_back(term(pe));
    // core 0's X round completes and goes up; the other cores have not arrived
    for (unsigned pe = 0; pe < 8; ++pe) REQUIRE(t.start(pe, cop::OP_EXSUMF, x_terms[pe], 0, 1).err == CopModel::PEND);
    t.idle(200);
    // key 1's round completes its contributions, but does not run while the export is at level 2
    for (unsigned pe = 8; pe < CH; ++pe) REQUIRE(t.start(pe, cop::OP_EXSUMF, term(pe), 1).err == CopModel::PEND);
    t.idle(400);
    for (unsigned pe = 0; pe < CH; ++pe) REQUIRE(t.ask(pe).err == CopModel::PEND);
    // cores 1-3 arrive: level 2 merges, the answer comes down, then key 1's round runs
    std::vector<unsigned> rest, k1;
    for (unsigned pe = CH; pe < NPE; ++pe) rest.push_back(pe);
    for (unsigned pe = 8; pe < CH; ++pe) k1.push_back(pe);
    for (unsigned pe : rest) REQUIRE(t.start(pe, cop::OP_EXSUMF, x_terms[pe], 0, 1).err == CopModel::PEND);
    std::vector<unsigned> xs(rest);
    for (unsigned pe = 0; pe < 8; ++pe) xs.push_back(pe);
    for (const auto& [pe, r] : t.wait_all(xs)) {
        INFO("X round, PE" << pe);
        REQUIRE(r.err == CopModel::OK);
        REQUIRE(r.rdata == fp::ref_sum(x_list));
    }
    for (const auto& [pe, r] : t.wait_all(k1)) {
        INFO("key 1, PE" << pe);
        REQUIRE(r.err == CopModel::OK);
        REQUIRE(r.rdata == fp::ref_sum(k1_list));
    }
    // a level 2 round that is aborted: core 3 never arrives; the ABORTED that comes down
    // clears each held export, so the next round counts no term twice
    for (unsigned pe = 0; pe < 3 * CH; ++pe)
        if (x_terms.count(pe)) REQUIRE(t.start(pe, cop::OP_EXSUMF, fp::to_b(1e300), 0, 1).err == CopModel::PEND);
    t.idle(400);
    REQUIRE(t.sup_call(3 * CH, cop::OP_SETTC, 0xf, 0, 1).err == CopModel::OK);
    std::vector<unsigned> aborted;
    for (unsigned pe = 0; pe < 3 * CH; ++pe)
        if (x_terms.count(pe)) aborted.push_back(pe);
    for (const auto& [pe, r] : t.wait_all(aborted)) {
        INFO("aborted, PE" << pe);
        REQUIRE(r.err == CopModel::REF);
        REQUIRE(t.cause(pe) == cop::C_ABORTED);
    }
    std::vector<unsigned> all;
    for (const auto& [pe, x] : x_terms) all.push_back(pe);
    for (const auto& [pe, r] : tree_round(t, cop::OP_EXSUMF, all, x_terms)) {
        INFO("after the abort, PE" << pe);
        REQUIRE(r.err == CopModel::OK);
        REQUIRE(r.rdata == fp::ref_sum(x_list));
    }
}

TEST_CASE("cop tree: fetch-and-add with X through level 2: 64 unique dense tickets", "[cop][tree]") {
    // Table I RMW (fetch-and-add, the seed's evaluation) on level 2's Data RAM
    Tree t("cop_tree_rmw");
    setup_all(t);
    for (unsigned pe = 0; pe < NPE; ++pe) REQUIRE(t.write(pe, R::ADDR, 3).err == CopModel::OK);
    std::vector<unsigned> order(NPE);
    for (unsigned i = 0; i < NPE; ++i) order[i] = (i * 13) % NPE;
    for (unsigned pe : order) REQUIRE(t.start(pe, cop::OP_RMW32, 1, 0, 1).err == CopModel::PEND);
    std::vector<uint64_t> tickets;
    for (const auto& [pe, r] : t.wait_all(order)) {
        REQUIRE(r.err == CopModel::OK);
        REQUIRE(r.len == 4u);
        tickets.push_back(r.rdata);
    }
    std::sort(tickets.begin(), tickets.end());
    for (unsigned i = 0; i < NPE; ++i) REQUIRE(tickets[i] == i);
    // level 2's word 3 holds 64; every core's own word 3 is untouched
    REQUIRE(t.start(40, cop::OP_RSRAM32, 0, 0, 1).err == CopModel::PEND);
    const Rsp r2 = t.wait(40);
    REQUIRE(r2.err == CopModel::OK);
    REQUIRE(r2.rdata == NPE);
    for (unsigned k = 0; k < NCOP; ++k) {
        REQUIRE(t.start(k * CH + 1, cop::OP_RSRAM32).err == CopModel::PEND);
        const Rsp r1 = t.wait(k * CH + 1);
        REQUIRE(r1.err == CopModel::OK);
        REQUIRE(r1.rdata == 0u);
    }
    // WSRAM64 with X then RSRAM64 with X from another core
    REQUIRE(t.start(63, cop::OP_WSRAM64, 0x1122334455667788ull, 0, 1).err == CopModel::PEND);
    REQUIRE(t.wait(63).err == CopModel::OK);
    REQUIRE(t.start(2, cop::OP_RSRAM64, 0, 0, 1).err == CopModel::PEND);
    REQUIRE(t.wait(2).rdata == 0x1122334455667788ull);
}

TEST_CASE("cop tree: broadcast with X goes up unchanged; a PE of each other core collects it with RECV X",
          "[cop][tree]") {
    // Table I BCAST64 with X: level 2 delivers it to the mailboxes of its
    // mask's other channels (cores); RECV with X collects one at level 2
    Tree t("cop_tree_bcast");
    setup_all(t);
    const uint64_t v = 0xfeedfacecafebeefull;
    REQUIRE(t.start(5, cop::OP_BCAST64, v, 0, 1).err == CopModel::PEND);
    const Rsp s = t.wait(5);
    REQUIRE(s.err == CopModel::OK);
    for (unsigned pe : {20u, 40u, 60u}) {
        REQUIRE(t.start(pe, cop::OP_RECV, 0, 0, 1).err == CopModel::PEND);
        const Rsp r = t.wait(pe);
        INFO("PE" << pe);
        REQUIRE(r.err == CopModel::OK);
        REQUIRE(r.rdata == v);
        REQUIRE(r.len == 8u);
    }
    // the level 1 mailboxes stay empty: a plain RECV on core 2 waits
    REQUIRE(t.start(41, cop::OP_RECV).err == CopModel::PEND);
    t.idle(200);
    REQUIRE(t.ask(41).err == CopModel::PEND);
    // BCAST32 with X from core 3 while core 0's RECV X waits for it
    REQUIRE(t.start(7, cop::OP_RECV, 0, 0, 1).err == CopModel::PEND);
    t.idle(100);
    REQUIRE(t.ask(7).err == CopModel::PEND);
    REQUIRE(t.start(50, cop::OP_BCAST32, 0x12345678u, 0, 1).err == CopModel::PEND);
    REQUIRE(t.wait(50).err == CopModel::OK);
    const Rsp r7 = t.wait(7);
    REQUIRE(r7.err == CopModel::OK);
    REQUIRE(r7.rdata == 0x12345678u);
    REQUIRE(r7.len == 4u);
}

TEST_CASE("cop tree: level 2 refusals come down; a user SETTC with X is refused PRIV at level 1",
          "[cop][tree]") {
    Tree t("cop_tree_refuse");
    setup_all(t);
    // a user channel: PRIV at level 1 (nothing goes up)
    REQUIRE(t.write(9, R::MODE, 0).err == CopModel::OK);
    REQUIRE(t.start(9, cop::OP_SETTC, 0x3, 0, 1).err == CopModel::REF);
    REQUIRE((t.read(9, R::CAUSE) & 0xff) == cop::C_PRIV);
    // level 2's TC names a core beyond its 4 channels: RANGE, from level 2
    const Rsp r = t.sup_call(0, cop::OP_SETTC, 0x10, 0, 1);
    REQUIRE(r.err == CopModel::REF);
    REQUIRE((t.read(0, R::CAUSE) & 0xff) == cop::C_RANGE);
    // key 1 has no TC at level 2: a level 1 round of key 1 completes, level 2 refuses NOTC, to every member
    for (unsigned k = 0; k < NCOP; ++k) REQUIRE(t.sup_call(k * CH, cop::OP_SETTC, 0x3, 1).err == CopModel::OK);
    REQUIRE(t.start(16, cop::OP_SUMI64, 1, 1, 1).err == CopModel::PEND);
    REQUIRE(t.start(17, cop::OP_SUMI64, 2, 1, 1).err == CopModel::PEND);
    for (const auto& [pe, a] : t.wait_all({16, 17})) {
        REQUIRE(a.err == CopModel::REF);
        REQUIRE((t.read(pe, R::CAUSE) & 0xff) == cop::C_NOTC);
    }
    // a round's contributions with and without X do not mix: MISMATCH
    REQUIRE(t.start(32, cop::OP_SUMI64, 1, 1, 1).err == CopModel::PEND);
    t.idle(50);
    REQUIRE(t.start(33, cop::OP_SUMI64, 1, 1, 0).err == CopModel::PEND);
    const Rsp m = t.wait(33);
    REQUIRE(m.err == CopModel::REF);
    REQUIRE((t.read(33, R::CAUSE) & 0xff) == cop::C_MISMATCH);
}

TEST_CASE("cop tree: random rounds on random members against the composed model", "[cop][tree]") {
    const uint64_t seed = aggnet::sim::test_seed("cop_tree_random");
    std::printf("cop tree random: seed %llu (AGGNET_SEED overrides)\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    Tree t("cop_tree_random");
    const unsigned ops[] = {cop::OP_BENTRY, cop::OP_SUMI32, cop::OP_MAXI64, cop::OP_MINI32, cop::OP_OR64,
                            cop::OP_AND32,  cop::OP_EXOR64, cop::OP_SUMI64, cop::OP_MAXF,   cop::OP_MINF,
                            cop::OP_SUMF,   cop::OP_SCANI32, cop::OP_SCANX64, cop::OP_EXSUMF};
    unsigned checks = 0;
    for (unsigned round = 0; round < 24; ++round) {
        // members: a random subset of each core (some cores none)
        std::map<unsigned, uint64_t> v;
        uint64_t cores = 0;
        const unsigned op = ops[rng() % (sizeof ops / sizeof ops[0])];
        for (unsigned k = 0; k < NCOP; ++k) {
            if (rng() % 5 == 0) continue;
            uint64_t m = rng() & 0xffff;
            if (!m) m = 1ull << (rng() % CH);
            for (unsigned c = 0; c < CH; ++c)
                if (m >> c & 1) {
                    uint64_t x = draw(rng, op);
                    if (op == cop::OP_MAXF || op == cop::OP_MINF || op == cop::OP_SUMF)
                        x = fp::to_b(double(int64_t(rng() % 2001) - 1000) / 8.0);
                    if (op == cop::OP_EXSUMF)  // wide exponents: the order and split would show in a rounded sum
                        x = fp::make(rng() & 1, 1023 - 60 + rng() % 121, rng());
                    v[k * CH + c] = x;
                }
            REQUIRE(t.sup_call(k * CH, cop::OP_SETTC, m).err == CopModel::OK);
            cores |= 1ull << k;
        }
        if (!cores) continue;
        REQUIRE(t.sup_call(0, cop::OP_SETTC, cores, 0, 1).err == CopModel::OK);
        std::vector<unsigned> order;
        for (const auto& [pe, x] : v) order.push_back(pe);
        std::shuffle(order.begin(), order.end(), rng);
        const bool scan = cop::op_info(op)->kind == cop::K_SCAN;
        // (EXSUMF: one level's exact sum; the others: the model composed in two levels)
        const Rsp want = op == cop::OP_BENTRY || scan ? Rsp{} : op == cop::OP_EXSUMF ? one_level(op, v) : two_level(op, v);
        const auto want_scan = scan ? two_level_scan(op, v) : std::map<unsigned, Rsp>{};
        // arrivals spread over time: idle gaps between starts
        for (unsigned pe : order) {
            REQUIRE(t.start(pe, op, op == cop::OP_BENTRY ? 0 : v.at(pe), 0, 1).err == CopModel::PEND);
            t.idle(unsigned(rng() % 8));
        }
        for (const auto& [pe, r] : t.wait_all(order)) {
            INFO("round " << round << " " << cop::op_info(op)->name << " PE" << pe << " seed " << seed);
            REQUIRE(r == (scan ? want_scan.at(pe) : want));
            ++checks;
        }
    }
    REQUIRE(checks > 0);
}
