// bench_cop_cycles: seed 004's Table II as rows of hub clock cycles, for the
// Verilated COP core (rtl/cop/cop_core.v) at C = 4, 16 and 64 channels and
// the two-level test top (rtl/cop/cop_tree.v: 4 level 1 cores of 16 under
// one level 2 core, 64 PEs), beside the seed's own expressions.
//
// Counted as docs/cop.md "Timing" counts: every member but the last has
// contributed and waits; the last member's CALL start is applied in cycle k
// (the core applies a request the cycle after it takes it: its request
// stage; DATA_RDY from k + 1); the member is asked as often as the bus
// allows from then on (every other cycle), and the first ask whose answer
// is the result is applied in cycle a (the reply was placed in cycle
// a - 1 or earlier): a - 1 - k.  The round is run twice, the asks starting
// one cycle apart, and the smaller count is the latency (one of the two
// runs asks in the cycle after the reply is placed).  Every member's reply of
// a round is placed in the same cycle (a prefix sum: channel i in cycle i,
// and the last member is channel C - 1, so its reply is the round's last).
// A broadcast, a fetch-and-add and a Data RAM read are one command: its
// start in cycle k, its reply (and a broadcast's deliveries) placed in a - 1.
//
// The seed's columns (Hall, Table II and chapter V's expressions, P_CLK =
// 10 ns): the COP's own part C x t_OP (t_OP = 3 clocks, 7 for a double),
// and the whole (t_CN-COP + C x t_OP + t_COP-CN, t_CN-COP = 11, t_COP-CN =
// 17); for two levels, (2L - 1) C t_OP + (2L - 2) t_COP-COP with L = 2 and
// t_COP-COP = t_CN-COP, at the C of the level (16 here; the seed's 4,096
// nodes are C = 64: docs/cop.md gives those figures), plus t_CN-COP and
// t_COP-CN for the whole.  Issue 23's goals: 45 at C = 64 (barrier,
// integer reduce, max / min, broadcast), 129 for EXSUMF.
//
// Writes CSV (level, op, C, pes, cycles, seed_cop, seed_total, goal) to
// argv[1] and prints a table.
#include "cop_model.hpp"
#include "fp_ref.hpp"
#include "harness.hpp"

#include <Vcop_core_c16.h>
#include <Vcop_core_c4.h>
#include <Vcop_core_c64.h>
#include <Vcop_tree.h>
#include <aggnet/cop_regs.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace cop = aggnet::cop;
namespace R = aggnet::cop::regs;
using aggnet::sim::Harness;

namespace {

constexpr uint32_t KEY = 0x434F5053u;
enum : unsigned { OK = 0, REF = 2, PEND = 3 };

struct Rsp {
    unsigned err = 0;
    uint64_t data = 0;
};

template <class V>
struct Bus {
    Harness<V> h;
    uint64_t cyc = 0;
    explicit Bus(const std::string& name) : h(name, 50'000'000) { h.reset(); }
    /// One request (presented in this cycle, answered two cycles later), or one idle cycle.
    Rsp cycle(bool valid, bool we, bool call, unsigned pe, uint16_t addr, uint64_t wdata = 0, unsigned len = 0) {
        h->bus_req_valid = valid;
        h->bus_req_we = we;
        h->bus_req_call = call;
        h->bus_req_pe = pe;
        h->bus_req_addr = uint16_t(R::WINDOW << 12 | addr);
        h->bus_req_wdata = uint32_t(wdata);
        h->bus_req_wdata_hi = uint32_t(wdata >> 32);
        h->bus_req_len = len;
        h->bus_req_size = 4;
        if (!h->bus_req_ready) throw std::runtime_error("bench: the core is not ready");
        h.tick();
        ++cyc;
        h->bus_req_valid = 0;
        if (valid) {
            h.tick();  // the request stage
            ++cyc;
        }
        if (valid && !h->bus_rsp_valid) throw std::runtime_error("bench: no bus response");
        return Rsp{h->bus_rsp_err, uint64_t(h->bus_rsp_rdata_hi) << 32 | h->bus_rsp_rdata};
    }
    void idle(unsigned n) {
        for (unsigned i = 0; i < n; ++i) cycle(false, false, false, 0, 0);
    }
    Rsp write(unsigned pe, uint16_t r, uint32_t v) { return cycle(true, true, false, pe, r, v); }
    Rsp start(unsigned pe, unsigned op, uint64_t v, unsigned mask = 0, unsigned x = 0) {
        const unsigned len = cop::op_info(op)->operand_len;
        if (len == 4) v &= 0xffffffffu;
        if (len == 0) v = 0;
        return cycle(true, true, true, pe, R::call(op, mask, x), v, len);
    }
    Rsp ask(unsigned pe) { return cycle(true, false, true, pe, R::CALL_BASE); }
    Rsp wait(unsigned pe) {
        for (unsigned i = 0; i < 1'000'000; ++i) {
            const Rsp r = ask(pe);
            if (r.err != PEND) return r;
        }
        throw std::runtime_error("bench: a CALL never finished");
    }
    void must(const Rsp& r, unsigned err, const char* what) {
        if (r.err != err) throw std::runtime_error(std::string("bench: ") + what + ": bus answer " + std::to_string(r.err));
    }
    void sup_call(unsigned pe, unsigned op, uint64_t v, unsigned x = 0) {
        must(write(pe, R::MODE, KEY), OK, "MODE");
        must(start(pe, op, v, 0, x), PEND, "supervisor CALL start");
        must(wait(pe), OK, "supervisor CALL");
    }
    /// From the last member's start to its reply (the header's count), the asks
    /// starting `phase` cycles after the start's answer.
    unsigned timed(unsigned pe, unsigned op, uint64_t v, unsigned x, unsigned phase) {
        const uint64_t k = cyc + 1;  // the cycle the start is applied
        must(start(pe, op, v, 0, x), PEND, "the timed start");
        idle(phase);
        for (;;) {
            const uint64_t a = cyc + 1;  // the cycle this ask is applied
            const Rsp r = ask(pe);
            if (r.err == OK) return unsigned(a - 1 - k);
            if (r.err != PEND) throw std::runtime_error("bench: the timed CALL was refused");
            if (cyc - k > 1'000'000) throw std::runtime_error("bench: the timed CALL never finished");
        }
    }
};

bool is_float(unsigned op) { return cop::op_info(op)->kind == cop::K_FLT; }

uint64_t operand(unsigned op, unsigned i) {
    if (is_float(op)) return aggnet::sim::fp::to_b(double(i) * 0.75 - 3.0);
    return i + 1;
}

struct Row {
    unsigned level, c, pes, cycles, seed_cop, seed_total, goal;
    std::string op;
};

unsigned t_op(unsigned op) {
    return is_float(op) ? 7 : 3;
}

/// One level: C channels, all members of key 0's TC and mask.
template <class V>
void one_level(unsigned C, std::vector<Row>& rows) {
    const unsigned ops[] = {cop::OP_BENTRY, cop::OP_SUMI64, cop::OP_MAXI64, cop::OP_BCAST64, cop::OP_RMW64,
                            cop::OP_MAXF,   cop::OP_MINF,   cop::OP_EXSUMF, cop::OP_SUMF,    cop::OP_SCANI64,
                            cop::OP_SCANIF, cop::OP_EXSCANIF};
    for (unsigned op : ops) {
        const cop::OpInfo* oi = cop::op_info(op);
        const auto run = [&](unsigned phase) {
            Bus<V> b("bench_cop_c" + std::to_string(C));
            const uint64_t all = C == 64 ? ~0ull : (1ull << C) - 1;
            b.sup_call(0, cop::OP_SETTC, all);
            b.sup_call(0, cop::OP_SETBM, all);
            b.must(b.write(0, R::MODE, 0), OK, "MODE");
            const bool coll = oi->kind == cop::K_BAR || oi->kind == cop::K_RED || oi->kind == cop::K_FLT ||
                              oi->kind == cop::K_SCAN;
            if (coll) {
                for (unsigned i = 0; i + 1 < C; ++i) b.must(b.start(i, op, operand(op, i)), PEND, "a member's start");
                b.idle(40 + 4 * C);  // served; they wait in the round
            }
            return b.timed(C - 1, op, operand(op, C - 1), 0, phase);
        };
        Row r{1, C, C, std::min(run(0), run(1)), 0, 0, 0, oi->name};
        r.seed_cop = C * t_op(op);
        r.seed_total = 11 + r.seed_cop + 17;
        if (C == 64 && op != cop::OP_SUMF && op != cop::OP_SCANI64 && op != cop::OP_SCANIF &&
            op != cop::OP_EXSCANIF && op != cop::OP_RMW64)
            r.goal = op == cop::OP_EXSUMF ? 129 : 45;
        rows.push_back(r);
    }
}

/// Two levels: cop_tree, 4 x 16; every PE a member (level 1 TCs all 16, level 2's all 4).
void two_levels(std::vector<Row>& rows) {
    const unsigned NCOP = 4, C = 16, N = 64;
    const unsigned ops[] = {cop::OP_BENTRY, cop::OP_SUMI64, cop::OP_MAXI64, cop::OP_MAXF, cop::OP_SUMF, cop::OP_EXSUMF,
                            cop::OP_SCANI64, cop::OP_BCAST64, cop::OP_RMW64};
    for (unsigned op : ops) {
        const cop::OpInfo* oi = cop::op_info(op);
        const auto run = [&](unsigned phase) {
            Bus<Vcop_tree> b("bench_cop_tree");
            for (unsigned k = 0; k < NCOP; ++k) {
                b.sup_call(k * C, cop::OP_SETTC, 0xffff);
                b.sup_call(k * C, cop::OP_SETBM, 0xffff);
            }
            b.sup_call(0, cop::OP_SETTC, 0xf, 1);
            b.sup_call(0, cop::OP_SETBM, 0xf, 1);
            // a first operation with X: the links' MODE, PROC and ADDR are written (not timed)
            for (unsigned pe = 0; pe < N; pe += C) {
                b.must(b.start(pe, cop::OP_RSRAM64, 0, 0, 1), PEND, "warm-up start");
                b.must(b.wait(pe), OK, "warm-up");
            }
            const bool coll = oi->kind == cop::K_BAR || oi->kind == cop::K_RED || oi->kind == cop::K_FLT ||
                              oi->kind == cop::K_SCAN;
            if (coll) {
                for (unsigned i = 0; i + 1 < N; ++i)
                    b.must(b.start(i, op, operand(op, i), 0, 1), PEND, "a member's start");
                b.idle(2000);  // three cores complete and wait at level 2; the fourth's members wait at level 1
            }
            return b.timed(N - 1, op, operand(op, N - 1), 1, phase);
        };
        Row r{2, C, N, std::min(run(0), run(1)), 0, 0, 0, oi->name};
        // (2L - 1) C t_OP + (2L - 2) t_COP-COP, L = 2, t_COP-COP = 11
        r.seed_cop = 3 * C * t_op(op) + 2 * 11;
        r.seed_total = 11 + r.seed_cop + 17;
        rows.push_back(r);
    }
}

}  // namespace

int main(int argc, char** argv) {
    try {
        std::vector<Row> rows;
        one_level<Vcop_core_c4>(4, rows);
        one_level<Vcop_core_c16>(16, rows);
        one_level<Vcop_core_c64>(64, rows);
        two_levels(rows);
        std::printf("COP (seed 004 Table II): hub cycles from the last member's DATA_RDY to its reply\n");
        std::printf("%-5s %-8s %4s %4s %8s %10s %12s %6s\n", "level", "op", "C", "PEs", "cycles", "seed C*tOP",
                    "seed total", "goal");
        for (const auto& r : rows)
            std::printf("%-5u %-8s %4u %4u %8u %10u %12u %6s\n", r.level, r.op.c_str(), r.c, r.pes, r.cycles,
                        r.seed_cop, r.seed_total, r.goal ? std::to_string(r.goal).c_str() : "-");
        if (argc > 1) {
            std::ofstream f(argv[1]);
            f << "level,op,C,pes,cycles,seed_cop,seed_total,goal\n";
            for (const auto& r : rows)
                f << r.level << "," << r.op << "," << r.c << "," << r.pes << "," << r.cycles << "," << r.seed_cop << ","
                  << r.seed_total << "," << r.goal << "\n";
            if (!f) throw std::runtime_error(std::string("bench: cannot write ") + argv[1]);
        }
        int bad = 0;
        for (const auto& r : rows)
            if (r.goal && r.cycles > r.goal) {
                std::printf("bench: %s at C = %u takes %u cycles, over the goal of %u\n", r.op.c_str(), r.c, r.cycles,
                            r.goal);
                bad = 1;
            }
        return bad;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}
