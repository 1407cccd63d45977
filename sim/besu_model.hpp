// besu_model.hpp: a C++ reference of seed 001's barrier/eureka logic, written
// from the seed's tables (Table 1 parent codes, Table 2 states, Table 3
// control codes, Table 4 code -> opcode, Table 5 opcodes) and the choices
// docs/besu.md makes where the seed is silent, independent of the RTL's
// structure:
//   * ctl_ref(): one BESU's BAR_CTL transition, table by table;
//   * FabricModel: the registers of every node of a mesh (docs/besu.md),
//     with partitions taken from the BAR_CFG trees as a whole: a barrier
//     completes for every member of a tree when every member (PE bit set)
//     has joined, a eureka reaches every member at once.  It has no router,
//     no links and no timing: the RTL is compared with it once the fabric is
//     quiet (tests/test_besu_engine.cpp, tests/test_besu_ops.cpp).
#pragma once

#include <aggnet/besu_regs.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace aggnet::sim::besu {

// Table 2
enum State : unsigned { S_IDLE = 0, S_IDLE_I = 1, S_EUR = 2, S_EUR_I = 3, S_ARM = 4, S_ARM_I = 5, S_BAR = 6, S_BAR_I = 7 };
// Table 3
enum Code : unsigned { OP_CLEAR = 0, OP_RSVD = 1, OP_EUR = 2, OP_INT = 3, OP_BAR = 4, OP_BAR_I = 5, OP_EUR_B = 6, OP_RESET = 7 };
// Table 4, transcribed: control code -> opcode C option -> R option
constexpr unsigned TABLE4[8] = {0b00, 0b00, 0b01, 0b00, 0b10, 0b10, 0b11, 0b00};
// Table 5 (R option -> C option): bit 0 eureka received, bit 1 barrier completed
constexpr unsigned NET_EUR = 0b01, NET_BAR = 0b10;
// Table 1: parent code of a direction d = 0..5 (+X, -X, +Y, -Y, +Z, -Z); root 0000, none 0100
constexpr unsigned PARENT_CODE[6] = {0b0001, 0b1111, 0b0010, 0b1110, 0b0011, 0b1101};
constexpr unsigned P_ROOT = 0b0000, P_NC = 0b0100;
// docs/besu.md: error causes
enum Cause : unsigned { C_NONE = 0, C_RANGE = 1, C_PRIV = 2, C_RSVD = 3, C_ORDER = 4, C_NOTPART = 5, C_BADCFG = 6,
                        C_KEY = 7, C_STRAY = 8 };
// registers (addr[11:0]): aggnet's map, not the seed's, so taken from the one table
// (tools/besugen.py -> aggnet/besu_regs.hpp) rather than written here again
namespace regs_ = aggnet::besu::regs;
constexpr uint16_t R_CTL = regs_::BAR_CTL, R_CFG = regs_::BAR_CFG, R_JOINED = regs_::JOINED, R_IR = regs_::IR_STATUS,
                   R_ERR = regs_::ERR, R_MODE = regs_::MODE, R_SHAPE = regs_::SHAPE, R_LINKS = regs_::LINKS,
                   R_FAULT = regs_::FAULT;
constexpr uint32_t KEY = 0x53455550;
enum BusErr : unsigned { OK = 0, NO_REG = 1, REFUSED = 2, PENDING = 3 };
// docs/besu_regmap.md, "CALL registers": BAR_CALL[n] and CANCEL, their
// operand bits and CANCEL's outcomes (aggnet's, not the seed's: from the table)
constexpr uint16_t R_CALL = regs_::BAR_CALL, R_CANCEL = regs_::CANCEL;
constexpr unsigned CALL_NOWRITE = aggnet::besu::CALL_NOWRITE, CALL_EUREKA = aggnet::besu::CALL_EUREKA;
constexpr unsigned CANCEL_NONE = aggnet::besu::CANCEL_NONE, CANCEL_WITHDRAWN = aggnet::besu::CANCEL_WITHDRAWN,
                   CANCEL_FINISHED = aggnet::besu::CANCEL_FINISHED;
constexpr unsigned C_CALLARG = 9, C_BUSY = 10, C_NOWAIT = 11;

/// BAR_CFG (figure 6): bit 0 PE, bits 1..6 children +X..-Z, bits 12..9 parent.
constexpr uint32_t cfg_word(bool pe, unsigned kids, unsigned parent) {
    return uint32_t(pe) | uint32_t(kids & 0x3f) << 1 | uint32_t(parent & 0xf) << 9;
}
constexpr uint32_t CFG_RESET = cfg_word(false, 0, P_NC);

/// The direction a parent code names, or -1 (root, not connected, undefined).
inline int parent_dir(unsigned code) {
    for (int d = 0; d < 6; ++d)
        if (PARENT_CODE[d] == code) return d;
    return -1;
}

struct CtlOut {
    unsigned next, op;
    bool refused;
    unsigned cause;
    bool ir, rst_router;
};

/// One BAR_CTL transition: the network opcode first, then the local write.
inline CtlOut ctl_ref(unsigned state, unsigned net, bool wr, unsigned code, bool member, bool super) {
    unsigned s = state;
    // Table 5, R -> C: eureka received 000 -> 010 ("no interrupt") and 001 -> 011 (the
    // interrupt example, step 8); barrier completed 100 -> 110 (figure 9) and 101 -> 111
    // (interrupt method, step 6).  Other states are not waiting for that event.
    if ((net & NET_EUR) && s == S_IDLE) s = S_EUR;
    else if ((net & NET_EUR) && s == S_IDLE_I) s = S_EUR_I;
    if ((net & NET_BAR) && s == S_ARM) s = S_BAR;
    else if ((net & NET_BAR) && s == S_ARM_I) s = S_BAR_I;
    CtlOut o{s, 0, false, C_NONE, false, false};
    auto refuse = [&](unsigned c) { o.refused = true, o.cause = c, o.next = s, o.op = 0; };
    if (wr) {
        const bool pending = s == S_ARM || s == S_ARM_I;
        const bool sends = TABLE4[code] != 0;  // the code sends an opcode (Table 4)
        switch (code) {
        case OP_CLEAR: o.next = S_IDLE; break;                         // "Clear"
        case OP_RESET:                                                 // privileged (docs/besu.md)
            if (!super) refuse(C_PRIV);
            else o.next = S_IDLE, o.rst_router = true;
            break;
        case OP_RSVD: refuse(C_RSVD); break;
        default:
            if (pending) refuse(C_ORDER);
            else if (sends && !member) refuse(C_NOTPART);
            else if (code == OP_INT) o.next = (s == S_EUR || s == S_EUR_I) ? S_EUR_I : S_IDLE_I;  // step 3: -> 001
            else if (code == OP_EUR) o.next = (s == S_IDLE_I || s == S_EUR_I) ? S_EUR_I : S_EUR;  // step 5: 001 -> 011
            else if (code == OP_BAR) o.next = S_ARM;      // figure 8: 000 -> 100
            else if (code == OP_BAR_I) o.next = S_ARM_I;  // interrupt method step 3: -> 101
            else o.next = S_ARM;                          // OP_EUR_B: eureka sent, polled barrier
            if (!o.refused) o.op = TABLE4[code];
        }
    }
    o.ir = (o.next == S_EUR_I || o.next == S_BAR_I) && o.next != state;
    return o;
}

struct Mesh {
    unsigned X, Y, Z;
    unsigned nodes() const { return X * Y * Z; }
    std::array<int, 3> coord(unsigned i) const { return {int(i % X), int(i / X % Y), int(i / (X * Y))}; }
    /// Neighbour of node i on direction d, or -1 past the edge.
    int nbr(unsigned i, unsigned d) const {
        auto c = coord(i);
        c[d / 2] += (d % 2) ? -1 : 1;
        const int lim[3] = {int(X), int(Y), int(Z)};
        if (c[d / 2] < 0 || c[d / 2] >= lim[d / 2]) return -1;
        return c[0] + int(X) * (c[1] + int(Y) * c[2]);
    }
    unsigned links(unsigned i) const {
        unsigned m = 0;
        for (unsigned d = 0; d < 6; ++d) m |= unsigned(nbr(i, d) >= 0) << d;
        return m;
    }
};

/// A boustrophedon path over the X x Y plane z = 0: 0 1 .. X-1, then 2X-1 .. X, ...
inline std::vector<unsigned> snake(const Mesh& m) {
    std::vector<unsigned> p;
    for (unsigned y = 0; y < m.Y; ++y)
        for (unsigned k = 0; k < m.X; ++k) p.push_back(y * m.X + ((y % 2) ? m.X - 1 - k : k));
    return p;
}

/// BAR_CFG of every node for a chain over the first `len` nodes of `path`
/// (neighbours on the mesh), rooted at path[0], every node with its PE; the
/// other nodes unconfigured.  The far end path[len - 1] is at depth len - 1.
inline std::vector<uint32_t> chain_cfg(const Mesh& m, const std::vector<unsigned>& path, unsigned len) {
    std::vector<uint32_t> cfg(m.nodes(), CFG_RESET);
    for (unsigned k = 0; k < len; ++k) {
        const unsigned i = path[k];
        unsigned kids = 0, parent = P_ROOT;
        for (unsigned d = 0; d < 6; ++d) {
            if (k + 1 < len && m.nbr(i, d) == int(path[k + 1])) kids |= 1u << d;
            if (k > 0 && m.nbr(i, d) == int(path[k - 1])) parent = PARENT_CODE[d];
        }
        cfg[i] = cfg_word(true, kids, parent);
    }
    return cfg;
}

struct Rsp {
    unsigned err = OK;
    uint32_t rdata = 0;
    bool exact = true;  ///< false: the model does not know the value (JOINED)
    unsigned len = 0;   ///< a finished CALL's result bytes (bus_rsp_len)
    uint32_t rdata_hi = 0;
};

/// Every node's registers and the partitions' semantics.
class FabricModel {
public:
    FabricModel(Mesh m, unsigned nb) : m_(m), nb_(nb), nodes_(m.nodes()) {
        for (auto& n : nodes_) n.cfg.assign(nb, CFG_RESET), n.state.assign(nb, S_IDLE);
    }
    const Mesh& mesh() const { return m_; }
    unsigned nb() const { return nb_; }
    unsigned state(unsigned node, unsigned b) const { return nodes_.at(node).state.at(b); }
    uint32_t cfg(unsigned node, unsigned b) const { return nodes_.at(node).cfg.at(b); }
    uint32_t ir(unsigned node) const { return nodes_.at(node).ir; }
    uint32_t err(unsigned node) const { return nodes_.at(node).err; }
    /// The events the last access set off: true if a completion or a eureka
    /// went out over the tree (the RTL needs time to deliver it).
    bool fanned_out() const { return fanned_; }

    /// The root node of node i's tree on BESU b, or -1 (not connected, or
    /// the parents do not lead to a root).
    int root_of(unsigned i, unsigned b) const {
        unsigned at = i;
        for (unsigned step = 0; step <= nodes_.size(); ++step) {
            const unsigned p = cfg(at, b) >> 9 & 0xf;
            if (p == P_ROOT) return int(at);
            const int d = parent_dir(p);
            if (d < 0) return -1;
            const int nx = m_.nbr(at, unsigned(d));
            if (nx < 0) return -1;
            at = unsigned(nx);
        }
        return -1;
    }
    /// Members (PE bit set) of root r's tree on BESU b: the nodes reached
    /// from r by child links.  *whole is false when the tree cannot complete
    /// a barrier: a child link to a node whose parent is not this one, or a
    /// node that is neither a member nor a parent (its parent waits forever).
    std::set<unsigned> members(unsigned r, unsigned b, bool* whole = nullptr) const {
        std::set<unsigned> s;
        bool ok = true;
        std::vector<unsigned> todo{r};
        for (size_t k = 0; k < todo.size() && k <= nodes_.size(); ++k) {
            const unsigned i = todo[k];
            const uint32_t c = cfg(i, b);
            const unsigned kids = c >> 1 & 0x3f;
            if (c & 1) s.insert(i);
            if (!(c & 1) && !kids) ok = false;
            for (unsigned d = 0; d < 6; ++d) {
                if (!(kids >> d & 1)) continue;
                const int j = m_.nbr(i, d);
                if (j < 0 || parent_dir(cfg(unsigned(j), b) >> 9 & 0xf) != int(d ^ 1)) {
                    ok = false;
                    continue;
                }
                todo.push_back(unsigned(j));
            }
        }
        if (whole) *whole = ok;
        return s;
    }

    /// A CALL access (docs/besu_regmap.md, "CALL registers"): a start (we,
    /// `len` operand bytes) or an ask.  The model's fabric is instantaneous,
    /// but a start that writes its code is answered PENDING, as the RTL
    /// answers it (the event needs cycles there); the next ask finds it.
    Rsp call(unsigned node, bool we, uint16_t reg, uint32_t operand, unsigned len) {
        fanned_ = false;
        Node& n = nodes_.at(node);
        Rsp r;
        const unsigned idx = reg & 0xff;
        auto fin = [](unsigned s, bool eur) { return eur ? (s & 6) == 2 : (s & 6) == 6; };
        if (reg == R_CANCEL) {
            if (!we) return r.err = REFUSED, r;
            if (len != 0) return refuse(n, C_CALLARG, reg);
            unsigned out = CANCEL_NONE, s = 0;
            if (n.call) {
                s = n.state[n.call_b];
                out = fin(s, n.call_eur) ? CANCEL_FINISHED : CANCEL_WITHDRAWN;
            }
            n.call = false;
            r.rdata = out << 4 | s;
            r.len = 1;
            return r;
        }
        if ((reg & 0xf00) != R_CALL) return r.err = NO_REG, r;
        if (idx >= nb_) return refuse(n, C_RANGE, reg);
        if (!we) {
            if (!n.call || n.call_b != idx) return r.err = REFUSED, r;
            if (!fin(n.state[idx], n.call_eur)) return r.err = PENDING, r;
            n.call = false;
            r.rdata = n.state[idx];
            r.len = 1;
            return r;
        }
        const unsigned code = operand & 7;
        const bool nw = operand & CALL_NOWRITE, eur = operand & CALL_EUREKA;
        const bool arg = len == 1 && (operand >> 5) == 0 &&
                         (nw ? code == OP_CLEAR : (!eur && (code == OP_BAR || code == OP_BAR_I || code == OP_EUR_B)));
        if (!arg) return refuse(n, C_CALLARG, reg);
        if (n.call) return refuse(n, C_BUSY, reg);
        if (!nw) {
            const Rsp w = access(node, true, uint16_t(R_CTL + idx), code);
            if (w.err != OK) return w;
            n.call = true, n.call_b = idx, n.call_eur = eur;
            return r.err = PENDING, r;
        }
        const bool member = (n.cfg[idx] & 1) && (n.cfg[idx] >> 9 & 0xf) != P_NC;
        const unsigned s = n.state[idx];
        if (!member || bool(s & 4) == eur) return refuse(n, C_NOWAIT, reg);
        if (fin(s, eur)) return r.rdata = s, r.len = 1, r;
        n.call = true, n.call_b = idx, n.call_eur = eur;
        return r.err = PENDING, r;
    }
    /// Whether node's PE has a BAR_CALL pending, and on which BESU.
    bool call_pending(unsigned node, unsigned* b = nullptr) const {
        const Node& n = nodes_.at(node);
        if (b) *b = n.call_b;
        return n.call;
    }

    Rsp access(unsigned node, bool we, uint16_t reg, uint32_t wdata) {
        fanned_ = false;
        Node& n = nodes_.at(node);
        Rsp r;
        const unsigned region = reg >> 8 & 3, idx = reg & 0xff;
        if (reg < 0x300) {
            if (idx >= nb_) return refuse(n, C_RANGE, reg);
            if (region == 0) {
                if (!we) return r.rdata = n.state[idx], r;
                if (n.call && n.call_b == idx) return refuse(n, C_BUSY, reg);  // CANCEL first
                const bool member = (n.cfg[idx] & 1) && (n.cfg[idx] >> 9 & 0xf) != P_NC;
                const CtlOut o = ctl_ref(n.state[idx], 0, true, wdata & 7, member, n.super);
                if (o.refused) return refuse(n, o.cause, reg);
                n.state[idx] = o.next;
                if (o.ir) n.ir |= 1u << idx;
                if (o.rst_router) forget(node, idx);
                if (o.op) send(node, idx, o.op);
                return r;
            }
            if (region == 1) {
                if (!we) return r.rdata = n.cfg[idx], r;
                if (!n.super) return refuse(n, C_PRIV, reg);
                if (!cfg_ok(node, wdata)) return refuse(n, C_BADCFG, reg);
                forget(node, idx);
                if (n.call && n.call_b == idx) n.call = false;  // withdrawn with the BESU's reset
                n.cfg[idx] = wdata;
                n.state[idx] = S_IDLE;
                return r;
            }
            if (we) return r.err = REFUSED, r;
            return r.exact = false, r;  // JOINED: the router's record, not modelled
        }
        switch (reg) {
        case R_IR:
            if (we) n.ir &= ~wdata;
            else r.rdata = n.ir;
            return r;
        case R_ERR:
            if (we) {
                if (wdata & 1) n.err = 0;
            } else {
                r.rdata = n.err;
            }
            return r;
        case R_MODE:
            if (!we) return r.rdata = n.super, r;
            if (wdata != KEY && wdata != 0) {
                n.super = false;
                return refuse(n, C_KEY, reg);
            }
            n.super = wdata == KEY;
            return r;
        case R_SHAPE:
            if (we) return r.err = REFUSED, r;
            return r.rdata = nb_ | m_.X << 8 | m_.Y << 12 | m_.Z << 16 | node << 20, r;
        case R_LINKS:
            if (we) return r.err = REFUSED, r;
            return r.rdata = m_.links(node), r;
        case R_FAULT:
            if (!we) return r.rdata = n.fault, r;
            if (!n.super) return refuse(n, C_PRIV, reg);
            n.fault = wdata & 0x3f;
            return r;
        default:
            return r.err = NO_REG, r;
        }
    }

private:
    struct Node {
        std::vector<uint32_t> cfg;
        std::vector<unsigned> state;
        uint32_t ir = 0, err = 0, fault = 0;
        bool super = false;
        bool call = false, call_eur = false;  // the pending BAR_CALL: its BESU, a eureka wait
        unsigned call_b = 0;
    };
    Mesh m_;
    unsigned nb_;
    std::vector<Node> nodes_;
    std::map<std::pair<unsigned, unsigned>, std::set<unsigned>> joined_;  // (BESU, root) -> members joined
    bool fanned_ = false;

    static void log(Node& n, unsigned cause, uint16_t reg) {
        const uint32_t type = (cause == C_RANGE || cause == C_PRIV || cause == C_KEY) ? 23 : 0;
        if (!(n.err & 1)) {
            n.err = 1u | cause << 4 | type << 8 | uint32_t(reg & 0xff) << 16 | 1u << 24;
        } else {
            n.err |= 2;
            if ((n.err >> 24) != 0xff) n.err += 1u << 24;
        }
    }
    Rsp refuse(Node& n, unsigned cause, uint16_t reg) {
        log(n, cause, reg);
        Rsp r;
        r.err = REFUSED;
        return r;
    }
    bool cfg_ok(unsigned node, uint32_t v) const {
        if (v >> 13 || (v >> 7 & 3)) return false;
        const unsigned p = v >> 9 & 0xf, kids = v >> 1 & 0x3f, has = m_.links(node);
        const int d = parent_dir(p);
        if (d < 0 && p != P_ROOT && p != P_NC) return false;
        if (p == P_NC) return true;
        if (kids & ~has) return false;
        if (d >= 0 && (!(has >> d & 1) || (kids >> d & 1))) return false;
        return true;
    }
    /// A reconfigured or reset BESU: its own join is forgotten (tests only
    /// do this when its partition is quiet).
    void forget(unsigned node, unsigned b) {
        for (auto& [k, s] : joined_)
            if (k.first == b) s.erase(node);
    }
    void apply(unsigned node, unsigned b, unsigned net) {
        Node& n = nodes_[node];
        const CtlOut o = ctl_ref(n.state[b], net, false, 0, true, false);
        n.state[b] = o.next;
        if (o.ir) n.ir |= 1u << b;
    }
    void send(unsigned node, unsigned b, unsigned op) {
        const int r = root_of(node, b);
        if (r < 0) return;  // a tree without a root: nothing completes (the tests do not build one)
        bool whole = true;
        const auto mem = members(unsigned(r), b, &whole);
        if (!mem.count(node)) return;  // an orphan: its parent drops what it sends (STRAY)
        if (op & 1) {  // eureka: every member, at once
            for (unsigned i : mem) apply(i, b, NET_EUR);
            fanned_ = true;
        }
        if (op & 2) {
            auto& j = joined_[{b, unsigned(r)}];
            j.insert(node);
            if (whole && j == mem) {
                for (unsigned i : mem) apply(i, b, NET_BAR);
                j.clear();
                fanned_ = true;
            }
        }
    }
};

}  // namespace aggnet::sim::besu
