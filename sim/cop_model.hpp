// cop_model.hpp: a cycle-level reference model of the COP core
// (rtl/cop/cop_core.v), written from seed 004 (Hall, chapter IV: Table I,
// figures 16-22) and the departures docs/cop.md lists.
//
// The model computes every result its own way: reductions and prefix sums
// as plain loops over the TC members in channel order (the RTL uses a
// registered tree and a sequential adder), Data RAM as a vector, masks and
// TC vectors as 64-bit words.  What it shares with the RTL is the schedule
// of the controller (figure 22 with the batched step of docs/cop.md):
//
//   IDLE   snapshot of the ready channels (not while HOLD)       1 cycle
//   PICK   round robin from the pointer                          1 cycle
//   LEAD   latch the leader's command                            1 cycle
//   GROUP  same-key ready channels join; read the key's row      1 cycle
//   EXEC   the step's effect, replies placed                     1 cycle
//   TREE   a completed reduction: ceil(log2 C) + 1 cycles, result placed in the last
//   SCAN   a completed prefix: C cycles, channel i placed in cycle i
//   FADD   a completed SUMF: 3 + 6 (M - 1) cycles for M members (M = 1: 2);
//          SCANIF / SCANXF the same, member k's reply placed in cycle 1 (k = 0)
//          or 6 k + 2 (k-th member in channel order), nothing in FPUT
//   FEX    a completed EXSUMF: C + 46 cycles; EXSCANIF / EXSCANXF: 48 M
//          cycles, member k's reply placed in cycle 48 k + 47, nothing in FPUT
//   FPUT   the float result placed (after FADD or FEX)                1 cycle
//
// The float results are computed here from docs/fpu.md's definitions
// (sim/fp_ref.hpp): SUMF with the host's IEEE addition over the members in
// channel order starting from the lowest member's term, MAXF / MINF as a
// fold of IEEE 754-2019 maximum / minimum, EXSUMF as a big-integer exact
// sum rounded once; every NaN result is the canonical one.
//
// so the tests can compare the RTL's bus answers cycle by cycle: a reply
// placed one cycle late is a PENDING where the model answers a result.
//
// Bus: at most one request per cycle; step(req) applies it in this cycle and
// returns the answer the RTL shows on bus_rsp_* in the next cycle.  The RTL
// applies a request in the cycle after it takes it (cop_core's request
// stage), so a test steps the model with the request in that cycle.
#pragma once

#include "fp_ref.hpp"

#include <aggnet/cop_regs.hpp>

#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <stdexcept>
#include <vector>

namespace aggnet::sim {

class CopModel {
public:
    struct Cfg {
        unsigned C = 4;
        unsigned ppn_w = 2, pid_w = 2, ra_w = 4, mb = 2;
        uint32_t key = 0x434F5053u;
        bool en_fpu = true;
    };
    struct Req {
        bool we = false, call = false;
        unsigned pe = 0;
        uint16_t addr = 0;     // bits 11..0 (the window is the hub's)
        uint64_t wdata = 0;    // a CALL's operand (bits 63..32 in wdata_hi)
        unsigned len = 0;      // a CALL's operand bytes
    };
    struct Rsp {
        unsigned err = 0;      // 0 ok, 1 NO_REG, 2 REFUSED, 3 PENDING
        uint64_t rdata = 0;
        unsigned len = 0;
        bool operator==(const Rsp& o) const { return err == o.err && rdata == o.rdata && len == o.len; }
    };
    enum Err : unsigned { OK = 0, NOREG = 1, REF = 2, PEND = 3 };
    enum State : unsigned { IDLE, PICK, LEAD, GROUP, EXEC, TREE, SCAN, FADD, FEX, FPUT };

    explicit CopModel(Cfg cfg) : cfg_(cfg) {
        if (cfg.C < 2 || cfg.C > 64) throw std::invalid_argument("CopModel: C must be in 2..64");
        cw_ = 1;
        while ((1u << cw_) < cfg.C) ++cw_;
        ch_.resize(cfg.C);
        keys_.resize(1u << (cfg.ppn_w + cfg.pid_w + 1));
        dram_.assign(1u << (cfg.ppn_w + cfg.pid_w + cfg.ra_w), 0);
    }

    /// rst: everything but the Data RAM (zero at configuration only).
    void reset() {
        for (auto& c : ch_) c = Chan{};
        for (auto& k : keys_) k = Key{};
        privcnt_ = errcnt_ = 0;
        lock_held_ = hold_ = restore_ = false;
        lock_ch_ = 0;
        ctl_ = Ctl{};
        cycle_ = 0;
    }

    uint64_t cycle() const { return cycle_; }
    State state() const { return ctl_.st; }
    uint64_t all() const { return cfg_.C == 64 ? ~0ull : (1ull << cfg_.C) - 1; }
    /// The cycle (as cycle()) in which channel c's last reply was placed; visible from the next.
    uint64_t placed_at(unsigned c) const { return ch_.at(c).placed; }
    bool reply_ready(unsigned c) const { return ch_.at(c).rp_v; }
    /// cop_core's idle: the controller is in IDLE with nothing to serve (no ready channel, or
    /// HOLD); until the next request nothing changes.
    /// (also low in the cycle after a CANCEL withdrew a served contribution: the RTL sets its
    /// TC bit again in that cycle; here it is set at once)
    bool idle() const { return ctl_.st == IDLE && (hold_ || ready() == 0) && !restore_; }
    uint64_t dram(unsigned idx) const { return dram_.at(idx); }
    unsigned tree_cycles() const { return cw_ + 1; }
    /// FADD's cycles for m members: the first term (and, with more, a cycle for the
    /// adder's operand register), then one 6-cycle add per further member
    static unsigned fadd_cycles(unsigned m) { return m == 1 ? 2 : 3 + 6 * (m - 1); }

    std::optional<Rsp> step(const Req* q) {
        // ---- everything is decided from the state before this cycle ----
        Bus b;
        if (q) b = bus(*q);
        Place pl = place();
        const Ctl next = decide(pl);
        restore_ = q && q->pe < cfg_.C && b.wd && ch_[q->pe].rx_srv;
        // ---- apply ----
        if (q && q->pe < cfg_.C) apply_bus(*q, b);
        errcnt_ += (q && b.cause && !b.hand ? 1u : 0u) + popcount(pl.ref);
        if (q && b.priv) ++privcnt_;
        // mailboxes: the bus pops its head, the controller pushes
        if (q && b.pop) ch_[q->pe].mb.pop_front();
        for (unsigned i = 0; i < cfg_.C; ++i)
            if (pl.push >> i & 1) ch_[i].mb.push_back({pl.push_data, pl.push_len});
        for (unsigned i = 0; i < cfg_.C; ++i)
            if (pl.srv >> i & 1) ch_[i].rx_srv = true;
        for (unsigned i = 0; i < cfg_.C; ++i) {
            if (!((pl.ok | pl.ref) >> i & 1)) continue;
            Chan& c = ch_[i];
            c.rx_v = c.rx_srv = false;
            c.rp_v = true;
            c.rp_err = pl.ref >> i & 1;
            c.rp_data = (pl.ok >> i & 1) ? pl.data : 0;
            c.rp_len = (pl.ok >> i & 1) ? pl.len : 0;
            c.rp_cause = (pl.ref >> i & 1) ? pl.cause : 0;
            c.placed = cycle_;
        }
        if (ctl_.st == EXEC) commit_exec(pl);
        ctl_ = next;
        if (q && b.lockbrk) lock_held_ = false;
        ++cycle_;
        if (!q) return std::nullopt;
        Rsp r;
        r.err = b.err;
        if (b.err == OK) {
            r.rdata = q->call ? b.rd : (b.rd & 0xffffffffu);
            r.len = q->call ? b.len : 0;
        }
        return r;
    }

private:
    struct Chan {
        bool rx_v = false, rx_srv = false, rp_v = false, rp_err = false, recv_w = false, last_v = false,
             sup = false;
        unsigned op = 0, mask = 0, ppn = 0, pid = 0, addr = 0;
        uint64_t data = 0, rp_data = 0, last_data = 0;
        unsigned rp_len = 0, rp_cause = 0, last_len = 0;
        unsigned pr_ppn = 0, pr_pid = 0, ch_addr = 0, cause = 0;
        uint32_t instr = 0;
        std::deque<std::pair<uint64_t, unsigned>> mb;
        uint64_t placed = 0;
    };
    struct Key {
        uint64_t tmpl = 0, work = 0, bm = 0;
        bool open = false;
        unsigned op = 0, addr = 0;
    };
    struct Bus {
        unsigned err = OK, cause = 0, len = 0;
        uint64_t rd = 0;
        bool priv = false, start = false, recv = false, pop = false, hand = false, last = false;
        bool mode = false, mode_v = false, proc = false, addr = false, lockbrk = false, hold = false;
        bool keep = false, unrecv = false, wd = false;  // CANCEL's effects
    };
    // SCANIF / SCANXF: the members in channel order and each one's reply
    /// EXSCANIF / EXSCANXF: FEX cycles per member (cop_core's XS_LAST + 1 = EX_RND + 3)
    static constexpr unsigned XS_SLOT = 48;
    struct FScan {
        unsigned n = 0;
        std::array<uint8_t, 64> ch{};
        std::array<uint64_t, 64> res{};
    };
    struct Place {
        uint64_t ok = 0, ref = 0, srv = 0, push = 0;
        unsigned cause = 0, len = 0, push_len = 0;
        uint64_t data = 0, push_data = 0;
        // EXEC's table and lock effects
        bool tc_we = false, bm_we = false, lock = false, unlock = false, ram_we = false, open = false;
        uint64_t tmpl = 0, work = 0, ram_wd = 0, result = 0;
        State next = IDLE;
        unsigned fwait = 0;  // cycles in FADD / FEX
        FScan fs;            // a prefix sum of doubles: each member's reply
    };
    // the controller's registers
    struct Ctl {
        State st = IDLE;
        unsigned ptr = 0, lead = 0, lkey = 0, tcnt = 0, scnt = 0, fwait = 0;
        uint64_t snap = 0, snap_hi = 0, grp = 0, ram_q = 0, result = 0, sacc = 0;
        bool t_full = false;
        FScan fs;
        Key t;
        const cop::OpInfo* li = nullptr;
    };

    static unsigned popcount(uint64_t v) { return unsigned(__builtin_popcountll(v)); }
    unsigned key_of(unsigned ppn, unsigned pid, unsigned m) const { return (ppn << cfg_.pid_w | pid) << 1 | m; }
    static uint64_t ext(bool w64, uint64_t v) { return w64 ? v : uint64_t(int64_t(int32_t(uint32_t(v)))); }
    static uint64_t trunc(bool w64, uint64_t v) { return w64 ? v : (v & 0xffffffffu); }
    static uint64_t apply_fn(unsigned fn, uint64_t a, uint64_t b) {
        switch (fn) {
        case cop::FN_SUM: return a + b;
        case cop::FN_MAX: return int64_t(a) > int64_t(b) ? a : b;
        case cop::FN_MIN: return int64_t(a) < int64_t(b) ? a : b;
        case cop::FN_OR: return a | b;
        case cop::FN_AND: return a & b;
        default: return a ^ b;
        }
    }

    Bus bus(const Req& q) const {
        Bus b;
        if (q.pe >= cfg_.C) {
            b.err = NOREG;
            return b;
        }
        const Chan& c = ch_[q.pe];
        const unsigned r = q.addr & 0xfff;
        if (q.call && r == cop::regs::CANCEL) {
            // docs/link.md rule 8: finishes at its start
            if (!q.we) {
                b.err = NOREG;
            } else if (q.len != 0) {
                b.err = REF, b.cause = cop::C_BADLEN;
            } else {
                b.len = 4;
                if (c.rp_v) b.hand = true, b.keep = !c.rp_err,
                            b.rd = uint64_t(c.rp_cause) << 8 | unsigned(c.rp_err) << 2 | cop::CX_FINISHED;
                else if (c.recv_w) b.unrecv = true, b.rd = cop::CX_WITHDRAWN;
                else if (c.rx_v && (engaged() >> q.pe & 1)) b.rd = cop::CX_RUNNING;
                else if (c.rx_v) b.wd = true, b.rd = cop::CX_WITHDRAWN;
                else b.rd = cop::CX_NONE;
            }
            return b;
        }
        if (q.call) {
            if (!(r & 0x800)) {
                b.err = NOREG;
                return b;
            }
            const unsigned op = (r >> 4) & 0x7f;
            const cop::OpInfo* oi = cop::op_info(op);
            if (q.we) {
                if (!oi || (r & 3)) b.cause = cop::C_BADOP;
                else if (c.rx_v || c.rp_v || c.recv_w) b.cause = cop::C_BUSY;
                else if (q.len != oi->operand_len) b.cause = cop::C_BADLEN;
                else if (oi->supervisor && !c.sup) b.cause = cop::C_PRIV, b.priv = true;
                else if (oi->kind == cop::K_FLT && !cfg_.en_fpu) b.cause = cop::C_NOFPU;
                // (the model is a core with neither level: UP = 0, DOWN = 0)
                else if (op == cop::OP_EXMRG) b.cause = cop::C_NODOWN;
                else if (r & 4) b.cause = cop::C_NOUP;
                if (b.cause) {
                    b.err = REF;
                } else if (oi->kind == cop::K_ACK) {
                } else if (oi->kind == cop::K_XMIT) {
                    if (c.last_v) b.rd = c.last_data, b.len = c.last_len;
                    else b.err = REF, b.cause = cop::C_NOREPLY;
                } else if (oi->kind == cop::K_RECV) {
                    if (!c.mb.empty()) b.pop = b.last = true, b.rd = c.mb.front().first, b.len = c.mb.front().second;
                    else b.err = PEND, b.recv = true;
                } else {
                    b.err = PEND, b.start = true;
                }
            } else {
                if (c.recv_w) {
                    if (!c.mb.empty()) b.pop = b.last = true, b.rd = c.mb.front().first, b.len = c.mb.front().second;
                    else b.err = PEND;
                } else if (c.rp_v) {
                    b.hand = true;
                    if (c.rp_err) b.err = REF, b.cause = c.rp_cause;
                    else b.last = true, b.rd = c.rp_data, b.len = c.rp_len;
                } else if (c.rx_v) {
                    b.err = PEND;
                } else {
                    b.err = REF, b.cause = cop::C_NOCALL;
                }
            }
            return b;
        }
        namespace R = cop::regs;
        const uint32_t w = uint32_t(q.wdata);
        if (q.we) {
            switch (r) {
            case R::MODE:
                b.mode = true, b.mode_v = w == cfg_.key;
                if (w != cfg_.key && w != 0) b.err = REF, b.cause = cop::C_KEY;
                break;
            case R::PROC:
                if (!c.sup) b.err = REF, b.cause = cop::C_PRIV, b.priv = true;
                else if ((w & 0xf) >> cfg_.ppn_w || ((w >> 4) & 0xff) >> cfg_.pid_w || w >> 12)
                    b.err = REF, b.cause = cop::C_RANGE;
                else b.proc = true;
                break;
            case R::ADDR:
                if (w >> cfg_.ra_w) b.err = REF, b.cause = cop::C_RANGE;
                else b.addr = true;
                break;
            case R::LOCK:
            case R::HOLD:
                if (!c.sup) b.err = REF, b.cause = cop::C_PRIV, b.priv = true;
                else (r == R::LOCK ? b.lockbrk : b.hold) = true;
                break;
            case R::UPLINK:  // a core with no level 2 above it (UP = 0): nothing to withdraw
                if (!c.sup) b.err = REF, b.cause = cop::C_PRIV, b.priv = true;
                else b.err = REF, b.cause = cop::C_NOUP;
                break;
            default:
                if (r <= R::ERRCNT) b.err = REF, b.cause = cop::C_RDONLY;
                else b.err = NOREG;
            }
            return b;
        }
        const unsigned k0 = key_of(c.pr_ppn, c.pr_pid, 0), k1 = key_of(c.pr_ppn, c.pr_pid, 1);
        const Key &a = keys_[k0], &z = keys_[k1];
        const uint64_t wait0 = a.open ? a.work : 0, wait1 = z.open ? z.work : 0;
        switch (r) {
        case R::ID: b.rd = 0x434F5001u; break;
        case R::CONFIG:
            b.rd = cfg_.C | unsigned(cfg_.en_fpu) << 7 | cfg_.ppn_w << 8 | cfg_.pid_w << 12 | cfg_.ra_w << 16 |
                   cfg_.mb << 20;
            break;
        case R::MODE: b.rd = c.sup; break;
        case R::UPLINK: b.rd = 0; break;  // UP = 0: never an entry at level 2
        case R::PROC: b.rd = c.pr_ppn | c.pr_pid << 4; break;
        case R::ADDR: b.rd = c.ch_addr; break;
        case R::CAUSE: b.rd = c.cause; break;
        case R::STATUS:
            b.rd = unsigned(c.rx_v) | unsigned(c.rx_srv) << 1 | unsigned(c.rp_v) << 2 | unsigned(c.recv_w) << 3 |
                   unsigned(lock_held_ && lock_ch_ == q.pe) << 4 | unsigned(c.sup) << 5 | unsigned(c.mb.size()) << 8;
            break;
        case R::INSTR: b.rd = c.instr; break;
        case R::WAIT0_LO: b.rd = wait0 & 0xffffffffu; break;
        case R::WAIT0_HI: b.rd = wait0 >> 32; break;
        case R::WAIT1_LO: b.rd = wait1 & 0xffffffffu; break;
        case R::WAIT1_HI: b.rd = wait1 >> 32; break;
        case R::TC0_LO: b.rd = a.tmpl & 0xffffffffu; break;
        case R::TC0_HI: b.rd = a.tmpl >> 32; break;
        case R::TC1_LO: b.rd = z.tmpl & 0xffffffffu; break;
        case R::TC1_HI: b.rd = z.tmpl >> 32; break;
        case R::BM0_LO: b.rd = a.bm & 0xffffffffu; break;
        case R::BM0_HI: b.rd = a.bm >> 32; break;
        case R::BM1_LO: b.rd = z.bm & 0xffffffffu; break;
        case R::BM1_HI: b.rd = z.bm >> 32; break;
        case R::PRIVCNT: b.rd = privcnt_; break;
        case R::ERRCNT: b.rd = errcnt_; break;
        case R::LOCK: b.rd = unsigned(lock_held_) << 7 | lock_ch_; break;
        case R::HOLD: b.rd = hold_; break;
        default: b.err = NOREG;
        }
        return b;
    }

    void apply_bus(const Req& q, const Bus& b) {
        Chan& c = ch_[q.pe];
        const unsigned r = q.addr & 0xfff;
        const unsigned op = (r >> 4) & 0x7f;
        if (b.cause) c.cause = (q.call ? op : 0u) << 8 | b.cause;
        if (b.start) {
            const cop::OpInfo* oi = cop::op_info(op);
            c.rx_v = true;
            c.op = op, c.mask = (r >> 3) & 1, c.ppn = c.pr_ppn, c.pid = c.pr_pid, c.addr = c.ch_addr, c.data = q.wdata;
            const bool has_addr = oi->kind == cop::K_RAMR || oi->kind == cop::K_RAMW || oi->kind == cop::K_RMW ||
                                  oi->kind == cop::K_RED || oi->kind == cop::K_FLT || oi->kind == cop::K_SCAN;
            const unsigned wc = (has_addr ? 1 : 0) + oi->operand_len / 4;
            c.instr = wc << cop::IW_WC_LSB | c.pr_pid << cop::IW_PID_LSB | c.pr_ppn << cop::IW_PPN_LSB |
                      ((r >> 3) & 1) << cop::IW_MASK_LSB | unsigned(c.sup) << cop::IW_US_LSB |
                      ((r >> 2) & 1) << cop::IW_X_LSB | op;
        }
        if (b.recv) c.recv_w = true;
        if (b.pop && !b.recv) c.recv_w = false;
        if (b.last) c.last_v = true, c.last_data = b.rd, c.last_len = b.len;
        if (b.hand) c.rp_v = false;
        if (b.mode) c.sup = b.mode_v;
        if (b.proc) c.pr_ppn = unsigned(q.wdata) & ((1u << cfg_.ppn_w) - 1),
                    c.pr_pid = (unsigned(q.wdata) >> 4) & ((1u << cfg_.pid_w) - 1);
        if (b.addr) c.ch_addr = unsigned(q.wdata);
        if (b.hold) hold_ = q.wdata & 1;
        if (b.keep) c.last_v = true, c.last_data = c.rp_data, c.last_len = c.rp_len;
        if (b.unrecv) c.recv_w = false;
        if (b.wd) {
            if (c.rx_srv) {
                // the contribution leaves its open round: its TC bit is set again; a round left
                // with no contribution is closed (its next first contribution fixes it anew)
                Key& k = keys_[key_of(c.ppn, c.pid, c.mask)];
                k.work |= 1ull << q.pe;
                if (k.work == k.tmpl) k.open = false;
            }
            c.rx_v = c.rx_srv = false;
        }
    }

    // The group GROUP forms this cycle: the ready channels with the leader's key, opcode and address.
    uint64_t group_now() const {
        const Chan& L = ch_[ctl_.lead];
        const unsigned kind = ctl_.li->kind;
        if (!(kind == cop::K_RED || kind == cop::K_BAR || kind == cop::K_SCAN || kind == cop::K_FLT))
            return 1ull << ctl_.lead;
        const uint64_t rd = ready();
        uint64_t g = 0;
        for (unsigned i = 0; i < cfg_.C; ++i) {
            const Chan& c = ch_[i];
            if ((rd >> i & 1) && c.op == L.op && c.mask == L.mask && c.ppn == L.ppn && c.pid == L.pid &&
                c.addr == L.addr)
                g |= 1ull << i;
        }
        return g;
    }
    // The commands the controller is using in this cycle (CANCEL answers RUNNING for them).
    uint64_t engaged() const {
        const Chan& L = ch_[ctl_.lead];
        uint64_t same = 0;
        for (unsigned i = 0; i < cfg_.C; ++i)
            if (ch_[i].rx_srv && ch_[i].ppn == L.ppn && ch_[i].pid == L.pid && ch_[i].mask == L.mask)
                same |= 1ull << i;
        switch (ctl_.st) {
        case IDLE: return hold_ ? 0 : ready();
        case PICK: return ctl_.snap;  // the snapshot, not only its pick (cop_core: timing)
        case LEAD: return 1ull << ctl_.lead;
        case GROUP: return ready() | 1ull << ctl_.lead | same;  // every ready channel, not only the group
        case EXEC: return ctl_.grp | 1ull << ctl_.lead | same;
        default: {  // a completed round: its members not yet answered
            uint64_t srv = 0;
            for (unsigned i = 0; i < cfg_.C; ++i)
                if (ch_[i].rx_srv) srv |= 1ull << i;
            return ctl_.t.tmpl & srv;
        }
        }
    }

    uint64_t ready() const {
        uint64_t v = 0;
        for (unsigned i = 0; i < cfg_.C; ++i)
            if (ch_[i].rx_v && !ch_[i].rx_srv && (!lock_held_ || lock_ch_ == i)) v |= 1ull << i;
        return v;
    }

    // What the controller places (and, in EXEC, decides) this cycle.
    Place place() {
        Place pl;
        if (ctl_.st == EXEC) {
            exec(pl);
        } else if (ctl_.st == TREE && ctl_.tcnt == cw_) {
            pl.ok = ctl_.t.tmpl, pl.data = ctl_.result, pl.len = unsigned(ctl_.li->result_len);
        } else if (ctl_.st == SCAN && (ctl_.t.tmpl >> ctl_.scnt & 1)) {
            const uint64_t d = ext(ctl_.li->w64, ch_[ctl_.scnt].data);
            pl.ok = 1ull << ctl_.scnt;
            pl.data = trunc(ctl_.li->w64, (ctl_.li->fn & 1) ? ctl_.sacc : ctl_.sacc + d);
            pl.len = unsigned(ctl_.li->result_len);
        } else if (ctl_.st == FADD && fscan()) {
            // FADD's cycle i: the lowest member's reply in cycle 1 (from the accumulator, which
            // took its term in cycle 0), member k's when its add is done, in cycle 6 k + 2 (the
            // first add in cycle 2, the adder's latency 6)
            const unsigned i = fadd_cycles(ctl_.fs.n) - ctl_.fwait;
            unsigned k = ~0u;
            if (i == 1) k = 0;
            else if (i >= 8 && (i - 2) % 6 == 0) k = (i - 2) / 6;
            if (k < ctl_.fs.n)
                pl.ok = 1ull << ctl_.fs.ch[k], pl.data = ctl_.fs.res[k], pl.len = unsigned(ctl_.li->result_len);
        } else if (ctl_.st == FEX && xscan()) {
            // FEX's cycle i: member k's reply in cycle 48 k + 47 (its ROUND's worst case)
            const unsigned i = XS_SLOT * ctl_.fs.n - ctl_.fwait;
            if (i % XS_SLOT == XS_SLOT - 1) {
                const unsigned k = i / XS_SLOT;
                pl.ok = 1ull << ctl_.fs.ch[k], pl.data = ctl_.fs.res[k], pl.len = unsigned(ctl_.li->result_len);
            }
        } else if (ctl_.st == FPUT && !fscan() && !xscan()) {
            pl.ok = ctl_.t.tmpl, pl.data = ctl_.result, pl.len = unsigned(ctl_.li->result_len);
        }
        return pl;
    }

    bool fscan() const { return ctl_.li->kind == cop::K_FLT && (ctl_.li->fn == 4 || ctl_.li->fn == 5); }
    bool xscan() const { return ctl_.li->kind == cop::K_FLT && ctl_.li->fn == 7; }

    void exec(Place& pl) {
        const Chan& L = ch_[ctl_.lead];
        const uint64_t one = 1ull << ctl_.lead;
        const bool w64 = ctl_.li->w64;
        pl.tmpl = ctl_.t.tmpl, pl.work = ctl_.t.work, pl.open = ctl_.t.open;
        switch (ctl_.li->kind) {
        case cop::K_RAMR:
            pl.ok = one, pl.data = trunc(w64, ctl_.ram_q), pl.len = unsigned(ctl_.li->result_len);
            break;
        case cop::K_RAMW:
            pl.ok = one, pl.ram_we = true;
            pl.ram_wd = w64 ? L.data : ((ctl_.ram_q & ~0xffffffffull) | (L.data & 0xffffffffu));
            break;
        case cop::K_RMW:  // fetch-and-add (docs/cop.md)
            pl.ok = one, pl.ram_we = true, pl.data = trunc(w64, ctl_.ram_q), pl.len = unsigned(ctl_.li->result_len);
            pl.ram_wd = w64 ? ctl_.ram_q + L.data
                            : ((ctl_.ram_q & ~0xffffffffull) | (uint32_t(ctl_.ram_q) + uint32_t(L.data)));
            break;
        case cop::K_BCAST:
            if (ctl_.t_full) {
                pl.ref = one, pl.cause = cop::C_MBFULL;
            } else {
                pl.ok = one, pl.push = ctl_.t.bm & ~one, pl.push_data = trunc(w64, L.data),
                pl.push_len = ctl_.li->operand_len;
            }
            break;
        case cop::K_LOCK: pl.ok = one, pl.lock = true; break;
        case cop::K_UNLOCK:
            if (lock_held_ && lock_ch_ == ctl_.lead) pl.ok = one, pl.unlock = true;
            else pl.ref = one, pl.cause = cop::C_NOTLOCKER;
            break;
        case cop::K_SETBM:
        case cop::K_SETTC:
            if (L.data & ~all()) {
                pl.ref = one, pl.cause = cop::C_RANGE;
                break;
            }
            pl.ok = one;
            if (ctl_.t.open) pl.ref = ctl_.t.tmpl & ~ctl_.t.work, pl.cause = cop::C_ABORTED;
            pl.open = false, pl.tc_we = true;
            if (ctl_.li->kind == cop::K_SETTC) pl.tmpl = pl.work = L.data;
            else pl.bm_we = true, pl.work = ctl_.t.tmpl;
            break;
        case cop::K_BAR:
        case cop::K_RED:
        case cop::K_SCAN:
        case cop::K_FLT: {
            if (!ctl_.t.tmpl) {
                pl.ref = one, pl.cause = cop::C_NOTC;
                break;
            }
            if (ctl_.t.open && (ctl_.t.op != L.op || ctl_.t.addr != L.addr)) {
                pl.ref = one, pl.cause = cop::C_MISMATCH;
                break;
            }
            const uint64_t gin = ctl_.grp & ctl_.t.work;
            pl.ref = ctl_.grp & ~ctl_.t.tmpl, pl.cause = cop::C_NOTINTC;
            pl.srv = gin, pl.tc_we = gin != 0;  // a step of refusals only changes no row
            if (!(ctl_.t.work & ~gin)) {
                pl.work = ctl_.t.tmpl, pl.open = false;
                if (ctl_.li->kind == cop::K_BAR) {
                    pl.ok = ctl_.t.tmpl;
                } else if (ctl_.li->kind == cop::K_RED) {
                    pl.next = TREE;
                    uint64_t acc = 0;
                    bool first = true;
                    for (unsigned i = 0; i < cfg_.C; ++i) {
                        if (!(ctl_.t.tmpl >> i & 1)) continue;
                        const uint64_t d = ext(w64, ch_[i].data);
                        acc = first ? d : apply_fn(ctl_.li->fn, acc, d);
                        first = false;
                    }
                    pl.result = trunc(w64, acc);
                } else if (ctl_.li->kind == cop::K_SCAN) {
                    pl.next = SCAN;
                } else {
                    flt_result(pl);
                }
            } else {
                pl.work = ctl_.t.work & ~gin, pl.open = true;
            }
            break;
        }
        default: pl.ref = one, pl.cause = cop::C_BADOP;
        }
    }

    // A completed float round (docs/fpu.md; the order of docs/cop.md): its result and its schedule.
    void flt_result(Place& pl) const {
        std::vector<uint64_t> xs;  // the members' terms in channel order
        for (unsigned i = 0; i < cfg_.C; ++i)
            if (ctl_.t.tmpl >> i & 1) xs.push_back(ch_[i].data);
        switch (ctl_.li->fn) {
        case 0: {  // SUMF: rounded adds in channel order, one at a time
            uint64_t acc = xs[0];
            for (size_t i = 1; i < xs.size(); ++i) acc = fp::ref_add(acc, xs[i]);
            pl.result = fp::is_nan(acc) ? fp::QNAN : acc;
            pl.next = FADD, pl.fwait = fadd_cycles(unsigned(xs.size()));
            break;
        }
        case 4:    // SCANIF, SCANXF: SUMF's adds; each member's running sum (or the one before)
        case 5: {
            const auto res = fp::ref_prefix_sum(xs, ctl_.li->fn == 5);
            unsigned k = 0;
            for (unsigned i = 0; i < cfg_.C; ++i)
                if (ctl_.t.tmpl >> i & 1) pl.fs.ch[k] = uint8_t(i), pl.fs.res[k] = res[k], ++k;
            pl.fs.n = k;
            pl.next = FADD, pl.fwait = fadd_cycles(unsigned(xs.size()));
            break;
        }
        case 7: {  // EXSCANIF, EXSCANXF (opcode bit 0): each member's exact prefix, rounded once
            const auto res = fp::ref_exact_prefix_sum(xs, ctl_.li->opcode & 1);
            unsigned k = 0;
            for (unsigned i = 0; i < cfg_.C; ++i)
                if (ctl_.t.tmpl >> i & 1) pl.fs.ch[k] = uint8_t(i), pl.fs.res[k] = res[k], ++k;
            pl.fs.n = k;
            pl.next = FEX, pl.fwait = unsigned(XS_SLOT * xs.size());
            break;
        }
        case 3: {  // EXSUMF: exact, rounded once
            fp::ExactRef r;
            for (uint64_t x : xs) r.add(x);
            pl.result = r.round();
            pl.next = FEX, pl.fwait = cfg_.C + 46;
            break;
        }
        default: {  // MAXF (1), MINF (2): any order gives the same bits
            const bool min = ctl_.li->fn == 2;
            uint64_t acc = min ? fp::PINF : fp::NINF;
            for (uint64_t x : xs) acc = fp::ref_minmax(acc, x, min);
            pl.result = acc, pl.next = TREE;
        }
        }
    }

    // The controller's registers after this cycle, from the state before it.
    Ctl decide(const Place& pl) const {
        Ctl n = ctl_;
        switch (ctl_.st) {
        case IDLE: {
            const uint64_t rd = ready();
            if (!hold_ && rd) n.snap = rd, n.snap_hi = rd & ~((1ull << ctl_.ptr) - 1), n.st = PICK;
            break;
        }
        case PICK: {
            const uint64_t v = ctl_.snap_hi ? ctl_.snap_hi : ctl_.snap;
            n.lead = unsigned(__builtin_ctzll(v));
            n.ptr = n.lead == cfg_.C - 1 ? 0 : n.lead + 1;
            n.st = LEAD;
            break;
        }
        case LEAD:
            n.li = cop::op_info(ch_[ctl_.lead].op);
            n.st = GROUP;
            break;
        case GROUP: {
            const Chan& L = ch_[ctl_.lead];
            n.grp = group_now();
            n.lkey = key_of(L.ppn, L.pid, L.mask);
            n.t = keys_[n.lkey];
            n.t_full = false;
            for (unsigned i = 0; i < cfg_.C; ++i)
                if ((n.t.bm >> i & 1) && i != ctl_.lead && ch_[i].mb.size() == cfg_.mb) n.t_full = true;
            n.ram_q = dram_[ridx()];
            n.st = EXEC;
            break;
        }
        case EXEC:
            n.t.tmpl = pl.tmpl;
            n.result = pl.result;
            n.tcnt = 0, n.scnt = 0, n.sacc = 0, n.fwait = pl.fwait, n.fs = pl.fs;
            n.st = pl.next;
            break;
        case FADD:
        case FEX:
            if (--n.fwait == 0) n.st = FPUT;
            break;
        case FPUT: n.st = IDLE; break;
        case TREE:
            if (ctl_.tcnt == cw_) n.st = IDLE;
            ++n.tcnt;
            break;
        case SCAN:
            if (ctl_.t.tmpl >> ctl_.scnt & 1) n.sacc += ext(ctl_.li->w64, ch_[ctl_.scnt].data);
            if (ctl_.scnt == cfg_.C - 1) n.st = IDLE;
            ++n.scnt;
            break;
        }
        return n;
    }
    // EXEC's effects on the key table, the lock and the Data RAM.
    void commit_exec(const Place& pl) {
        Key& k = keys_[ctl_.lkey];
        const Chan& L = ch_[ctl_.lead];
        if (pl.tc_we) {
            if (pl.open && !ctl_.t.open) k.op = L.op, k.addr = L.addr;
            k.tmpl = pl.tmpl, k.work = pl.work, k.open = pl.open;
        }
        if (pl.bm_we) k.bm = L.data;
        if (pl.lock) lock_held_ = true, lock_ch_ = ctl_.lead;
        if (pl.unlock) lock_held_ = false;
        if (pl.ram_we) dram_[ridx()] = pl.ram_wd;
    }
    unsigned ridx() const {
        const Chan& L = ch_[ctl_.lead];
        return ((L.ppn << cfg_.pid_w | L.pid) << cfg_.ra_w) | L.addr;
    }

    Cfg cfg_;
    unsigned cw_ = 1;
    std::vector<Chan> ch_;
    std::vector<Key> keys_;
    std::vector<uint64_t> dram_;
    uint32_t privcnt_ = 0, errcnt_ = 0;
    bool lock_held_ = false, hold_ = false;
    bool restore_ = false;  // a served contribution was withdrawn in the last cycle (idle())
    unsigned lock_ch_ = 0;
    uint64_t cycle_ = 0;
    Ctl ctl_;
};

}  // namespace aggnet::sim
