// libaggnet: the BESU engine (seed 001) over the link; see aggnet/besu.hpp
// and docs/besu.md.
#include <aggnet/besu.hpp>
#include <aggnet/link_defs.hpp>
#include "strf.hpp"

#include <cstdarg>
#include <chrono>
#include <cstdio>
#include <deque>
#include <functional>
#include <sstream>

namespace aggnet::besu {

namespace {
using aggnet::detail::strf;
int parent_dir(unsigned code) {
    for (int d = 0; d < 6; ++d)
        if (PARENT_CODE[d] == code) return d;
    return -1;
}
unsigned opposite(unsigned d) { return d ^ 1u; }
std::string dirs_text(unsigned mask) {
    std::string s;
    for (unsigned d = 0; d < 6; ++d)
        if (mask >> d & 1) s += std::string(s.empty() ? "" : " ") + dir_name(d);
    return s;
}
}  // namespace

const char* state_name(unsigned s) {
    static const char* n[8] = {"S_IDLE", "S_IDLE_I", "S_EUR", "S_EUR_I", "S_ARM", "S_ARM_I", "S_BAR", "S_BAR_I"};
    return s < 8 ? n[s] : "?";
}
const char* code_name(unsigned c) {
    static const char* n[8] = {"OP_CLEAR", "reserved code 001", "OP_EUR", "OP_INT", "OP_BAR", "OP_BAR_I", "OP_EUR_B",
                               "OP_RESET"};
    return c < 8 ? n[c] : "?";
}
const char* cause_name(unsigned c) {
    if (c == C_NONE) return "no cause logged";
    const char* t = cause_text(c);  // the table's meaning (tools/besugen.py CAUSES, docs/besu_regmap.md)
    return t ? t : "an unknown cause";
}
const char* dir_name(unsigned d) {
    static const char* n[6] = {"+X", "-X", "+Y", "-Y", "+Z", "-Z"};
    return d < 6 ? n[d] : "?";
}

std::string cfg_text(uint32_t cfg) {
    const unsigned p = cfg >> 9 & 0xf;
    if (p == P_NC) return "not connected";
    std::string s = (cfg & 1) ? "PE" : "no PE";
    const unsigned kids = cfg >> 1 & 0x3f;
    if (kids) s += ", children " + dirs_text(kids);
    const int d = parent_dir(p);
    s += p == P_ROOT ? ", root" : d >= 0 ? std::string(", parent ") + dir_name(unsigned(d)) : strf(", parent code %u?", p);
    return s;
}

int Mesh::nbr(unsigned i, unsigned d) const {
    int c[3] = {int(i % X), int(i / X % Y), int(i / (X * Y))};
    const int lim[3] = {int(X), int(Y), int(Z)};
    c[d / 2] += (d % 2) ? -1 : 1;
    if (i >= nodes() || d >= 6 || c[d / 2] < 0 || c[d / 2] >= lim[d / 2]) return -1;
    return c[0] + int(X) * (c[1] + int(Y) * c[2]);
}

std::string Mesh::node_name(unsigned i) const {
    return strf("node %u (%u,%u,%u)", i, i % X, i / X % Y, i / (X * Y));
}

// ---- trees ---------------------------------------------------------------------

std::vector<uint32_t> plan(const Mesh& m, const std::vector<unsigned>& members, unsigned root,
                           const std::vector<unsigned>& avoid) {
    const unsigned n = m.nodes();
    std::vector<bool> member(n), banned(n);
    for (unsigned a : avoid) {
        if (a >= n) throw ConfigError(strf("plan: node %u in avoid is beyond the mesh's %u nodes", a, n), a);
        banned[a] = true;
    }
    if (members.empty()) throw ConfigError("plan: a partition needs at least one member", root);
    for (unsigned a : members) {
        if (a >= n) throw ConfigError(strf("plan: member node %u is beyond the mesh's %u nodes", a, n), a);
        if (banned[a]) throw ConfigError(strf("plan: member %s is also in avoid", m.node_name(a).c_str()), a);
        member[a] = true;
    }
    if (root >= n || !member[root]) throw ConfigError(strf("plan: the root, node %u, is not a member", root), root);
    // breadth first from the root: parent direction of every node reached
    std::vector<int> up(n, -1);  // direction from the node to its parent
    std::vector<bool> seen(n);
    std::vector<unsigned> order{root};
    seen[root] = true;
    for (size_t k = 0; k < order.size(); ++k)
        for (unsigned d = 0; d < 6; ++d) {
            const int j = m.nbr(order[k], d);
            if (j < 0 || seen[unsigned(j)] || banned[unsigned(j)]) continue;
            seen[unsigned(j)] = true;
            up[unsigned(j)] = int(opposite(d));
            order.push_back(unsigned(j));
        }
    for (unsigned a : members)
        if (!seen[a])
            throw ConfigError(strf("plan: member %s cannot be reached from the root without the avoided nodes",
                                   m.node_name(a).c_str()),
                              a);
    // keep the nodes on a path from a member to the root, leaves first
    std::vector<bool> need(n);
    std::vector<uint32_t> cfg(n, CFG_RESET);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const unsigned i = *it;
        unsigned kids = 0;
        for (unsigned d = 0; d < 6; ++d) {
            const int j = m.nbr(i, d);
            if (j >= 0 && need[unsigned(j)] && up[unsigned(j)] == int(opposite(d))) kids |= 1u << d;
        }
        if (!member[i] && !kids) continue;
        need[i] = true;
        cfg[i] = cfg_word(member[i], kids, i == root ? P_ROOT : PARENT_CODE[up[i]]);
    }
    return cfg;
}

void validate(const Mesh& m, const std::vector<uint32_t>& cfg) {
    const unsigned n = m.nodes();
    if (cfg.size() != n)
        throw ConfigError(strf("BAR_CFG set: %zu words for a mesh of %u nodes", cfg.size(), n), 0);
    auto bad = [&](unsigned i, const std::string& what) {
        throw ConfigError(m.node_name(i) + " (BAR_CFG " + strf("0x%04x", cfg[i]) + "): " + what, i);
    };
    for (unsigned i = 0; i < n; ++i) {
        const uint32_t c = cfg[i];
        const unsigned p = c >> 9 & 0xf, kids = c >> 1 & 0x3f;
        if (c >> 13 || (c >> 7 & 3)) bad(i, "reserved bits set");
        const int pd = parent_dir(p);
        if (pd < 0 && p != P_ROOT && p != P_NC) bad(i, strf("parent code %u%u%u%u is not in Table 1", p >> 3 & 1, p >> 2 & 1, p >> 1 & 1, p & 1));
        if (p == P_NC) continue;
        for (unsigned d = 0; d < 6; ++d) {
            if (!(kids >> d & 1)) continue;
            const int j = m.nbr(i, d);
            if (j < 0) bad(i, std::string("a child on ") + dir_name(d) + ", past the mesh's edge");
            const uint32_t cj = cfg[unsigned(j)];
            if ((cj >> 9 & 0xf) == P_NC || parent_dir(cj >> 9 & 0xf) != int(opposite(d)))
                bad(i, std::string("names ") + m.node_name(unsigned(j)) + " on " + dir_name(d) +
                           " as a child, but that node's parent is not " + dir_name(opposite(d)) + " (it is " +
                           cfg_text(cj) + ")");
        }
        if (pd >= 0) {
            const int j = m.nbr(i, unsigned(pd));
            if (j < 0) bad(i, std::string("its parent is on ") + dir_name(unsigned(pd)) + ", past the mesh's edge");
            if (kids >> pd & 1) bad(i, std::string("its parent link ") + dir_name(unsigned(pd)) + " is also a child link");
            const uint32_t cj = cfg[unsigned(j)];
            if ((cj >> 9 & 0xf) == P_NC || !((cj >> 1) >> opposite(unsigned(pd)) & 1))
                bad(i, "an orphan: its parent " + m.node_name(unsigned(j)) + " on " + dir_name(unsigned(pd)) +
                           " does not name it as a child (" + cfg_text(cj) + ")");
        }
        if (!(c & 1) && !kids) bad(i, "neither a member (PE bit) nor the parent of one: its parent would wait for it forever");
    }
    // every connected node reaches a root by its parents (no cycle)
    for (unsigned i = 0; i < n; ++i) {
        if ((cfg[i] >> 9 & 0xf) == P_NC) continue;
        unsigned at = i;
        std::string path = std::to_string(i);
        for (unsigned step = 0;; ++step) {
            const unsigned p = cfg[at] >> 9 & 0xf;
            if (p == P_ROOT) break;
            if (step > n) bad(i, "its parents form a cycle: nodes " + path);
            at = unsigned(m.nbr(at, unsigned(parent_dir(p))));
            path += " -> " + std::to_string(at);
        }
    }
}

// ---- one PE's node ---------------------------------------------------------------

Node::Node(link::LinkClient& link, unsigned pe, std::chrono::nanoseconds timeout)
    : link_(link), pe_(pe), timeout_(timeout) {
    uint32_t shape = 0;
    try {
        shape = link_.read(pe_, regs::addr(regs::SHAPE), 4);
        ++io_;
        const uint32_t hash = link_.read(pe_, uint16_t(link_defs::INFO_MAP_HASH + regs::WINDOW), 4);
        ++io_;
        if (hash != regs::MAP_HASH)
            throw DeviceError(strf("PE%u: the hub's BESU register map hash is 0x%08x, this library's 0x%08x: rebuild "
                                   "one of them from the same tools/besugen.py",
                                   pe, hash, regs::MAP_HASH));
    } catch (const RegisterError& e) {
        throw DeviceError(strf("PE%u: no BESU node (the hub was built without EN_BESU, or its mesh has fewer nodes "
                               "than PE%u): ",
                               pe, pe) +
                          e.what());
    }
    nb_ = shape & 0xff;
    mesh_ = Mesh{shape >> 8 & 0xf, shape >> 12 & 0xf, shape >> 16 & 0xf};
    if (nb_ < 1 || nb_ > 32 || !mesh_.X || !mesh_.Y || !mesh_.Z || (shape >> 20 & 0x3f) != pe_)
        throw DeviceError(strf("PE%u: the BESU engine reports SHAPE 0x%08x (NB %u, mesh %ux%ux%u, node %u)", pe,
                               shape, nb_, mesh_.X, mesh_.Y, mesh_.Z, shape >> 20 & 0x3f));
}

uint32_t Node::rd(uint16_t reg) {
    ++io_;
    return link_.read(pe_, regs::addr(reg), 4);
}

void Node::wr(uint16_t reg, uint32_t v, const std::string& what) {
    ++io_;
    try {
        link_.write(pe_, regs::addr(reg), v, 4);
    } catch (const RegisterError& e) {
        if (e.code != link_defs::ERR_REFUSED) throw;
        refused(what);
    }
}

void Node::refused(const std::string& what) {
    // the node logged why: name it, and clear the log for the next error
    const uint32_t err = rd(regs::ERR);
    const unsigned cause = (err & 1) ? (err >> 4 & 0xf) : C_NONE;
    if (err & 1) wr(regs::ERR, 1, "clear ERR");
    throw BesuError(strf("PE%u: %s refused: %s", pe_, what.c_str(), cause_name(cause)), pe_, cause);
}

unsigned Node::cancel() {
    ++io_;
    const auto r = link_.call(pe_, regs::addr(regs::CANCEL), 0, 0, timeout_);
    return unsigned(r.value) & 0x37;
}

void Node::partition(unsigned b, const std::vector<uint32_t>& cfg) {
    check_b(b);
    validate(mesh_, cfg);
    if (trees_.size() < nb_) trees_.resize(nb_);
    trees_[b] = cfg;
}

uint64_t Node::behind_missing(unsigned b) {
    if (b >= trees_.size() || trees_[b].size() != mesh_.nodes()) return 0;
    const auto& t = trees_[b];
    const uint32_t c = t[pe_], j = joined(b);
    if ((c >> 9 & 0xf) == P_NC) return 0;
    // the members of the subtree below node i (its child links, recursively)
    std::function<uint64_t(unsigned)> below = [&](unsigned i) -> uint64_t {
        uint64_t m = (t[i] & 1) ? 1ull << i : 0;
        for (unsigned d = 0; d < 6; ++d) {
            if (!(t[i] >> (1 + d) & 1)) continue;
            const int k = mesh_.nbr(i, d);
            if (k >= 0) m |= below(unsigned(k));
        }
        return m;
    };
    if (j == 0) return 0;  // the join went up: who is missing is not visible from this node
    uint64_t m = 0;
    if ((c & 1) && !(j & 1)) m |= 1ull << pe_;
    for (unsigned d = 0; d < 6; ++d) {
        if (!(c >> (1 + d) & 1) || (j >> (1 + d) & 1)) continue;
        const int k = mesh_.nbr(pe_, d);
        if (k >= 0) m |= below(unsigned(k));
    }
    return m;
}

unsigned Node::call_wait(unsigned b, unsigned operand, const char* what) {
    check_b(b);
    const uint16_t reg = uint16_t(regs::BAR_CALL + b);
    const std::string op = (operand & CALL_NOWRITE)
                               ? strf("BAR_CALL[%u] (wait for the %s)", b, what)
                               : strf("BAR_CALL[%u] <- %s (and wait for the %s)", b, code_name(operand & 7), what);
    try {
        ++io_;
        return unsigned(link_.call(pe_, regs::addr(reg), operand, 1, timeout_).value) & 7;
    } catch (const RegisterError& e) {
        if (e.code != link_defs::ERR_REFUSED) throw;
        refused(op);
    } catch (const TimeoutError&) {
        // The hub forgets the CALL with our next command; the node does not:
        // withdraw it.  If it finished meanwhile, the barrier passed.
        const unsigned c = cancel();
        const unsigned outcome = c >> 4 & 3, s = c & 7;
        const bool eur = operand & CALL_EUREKA;
        auto shows = [&](unsigned st) { return eur ? (st & 6) == 2 : (st & 6) == 6; };
        if (outcome == CANCEL_FINISHED) return s;
        if (outcome == CANCEL_NONE) {
            // no record: its result was handed over while our deadline passed
            const unsigned st = state(b);
            if (shows(st)) return st;
        }
        const uint64_t miss = eur ? 0 : behind_missing(b);
        std::string names;
        for (unsigned k = 0; k < 64; ++k)
            if (miss >> k & 1) names += strf("%sPE%u", names.empty() ? "" : ", ", k);
        throw TimeoutError(strf("PE%u: %s on BESU %u did not arrive within %lld ms (state %s; CALL cancelled); ",
                                pe_, what, b, (long long)(timeout_.count() / 1000000), state_name(s)) +
                               pending(b) +
                               (names.empty() ? std::string()
                                              : "; not arrived (behind the links it waits for): " + names),
                           miss);
    }
    return 0;
}

void Node::check_b(unsigned b) const {
    if (b >= nb_)
        throw BesuError(strf("PE%u: BESU %u does not exist (this node has BESUs 0..%u)", pe_, b, nb_ - 1), pe_, C_RANGE);
}

unsigned Node::state(unsigned b) {
    check_b(b);
    return rd(uint16_t(regs::BAR_CTL + b)) & 7;
}

void Node::control(unsigned b, unsigned code) {
    check_b(b);
    if (code > 7) throw BesuError(strf("PE%u: control code %u is not 3 bits", pe_, code), pe_, C_RSVD);
    wr(uint16_t(regs::BAR_CTL + b), code, strf("BAR_CTL[%u] <- %s", b, code_name(code)));
}

unsigned Node::wait_state(unsigned b, Wait how, unsigned mask, unsigned value, const char* what) {
    check_b(b);
    const auto t0 = std::chrono::steady_clock::now();
    auto timed_out = [&]() -> TimeoutError {
        return TimeoutError(strf("PE%u: %s on BESU %u did not arrive within %lld ms (state %s); ", pe_, what, b,
                                 (long long)(timeout_.count() / 1000000), state_name(state(b))) +
                                pending(b),
                            0);
    };
    switch (how) {
    case Wait::Polled:
        for (;;) {
            const unsigned s = state(b);
            if ((s & mask) == value) return s;
            if (std::chrono::steady_clock::now() - t0 > timeout_) throw timed_out();
        }
    case Wait::Hub:  // one CALL: BAR_CALL[b], wait only
        return call_wait(b, CALL_NOWRITE | (value == 0b010 ? CALL_EUREKA : 0), what);
    case Wait::Interrupt: {
        try {
            ++io_;
            link_.wait(pe_, regs::addr(regs::IR_STATUS), 1u << b, 1u << b, 4, timeout_);
        } catch (const TimeoutError&) {
            throw timed_out();
        }
        const unsigned s = state(b);
        clear_ir(1u << b);
        if ((s & mask) != value)
            throw BesuError(strf("PE%u: IR_STATUS bit %u was set but BAR_CTL[%u] is %s, not the %s", pe_, b, b,
                                 state_name(s), what),
                            pe_, C_NONE);
        return s;
    }
    }
    return 0;
}

unsigned Node::wait_barrier(unsigned b, Wait how) { return wait_state(b, how, 0b110, 0b110, "barrier completion"); }
unsigned Node::wait_eureka(unsigned b, Wait how) { return wait_state(b, how, 0b110, 0b010, "eureka"); }
unsigned Node::barrier(unsigned b, Wait how) {
    if (how == Wait::Hub) return call_wait(b, OP_BAR, "barrier completion");  // one CALL
    arm_barrier(b, how == Wait::Interrupt);
    return wait_barrier(b, how);
}
unsigned Node::eureka_then_barrier(unsigned b, Wait how) {
    if (how == Wait::Hub) return call_wait(b, OP_EUR_B, "barrier completion");  // one CALL
    eureka_barrier(b);
    return wait_barrier(b, how);
}

uint32_t Node::ir_status() { return rd(regs::IR_STATUS); }
void Node::clear_ir(uint32_t mask) { wr(regs::IR_STATUS, mask, "IR_STATUS clear"); }
uint32_t Node::error_reg() { return rd(regs::ERR); }
void Node::clear_error() { wr(regs::ERR, 1, "ERR clear"); }
uint32_t Node::joined(unsigned b) {
    check_b(b);
    return rd(uint16_t(regs::JOINED + b));
}
void Node::supervisor(uint32_t key) { wr(regs::MODE, key, "MODE <- key"); }
void Node::user() { wr(regs::MODE, 0, "MODE <- 0"); }
uint32_t Node::cfg(unsigned b) {
    check_b(b);
    return rd(uint16_t(regs::BAR_CFG + b));
}
void Node::set_cfg(unsigned b, uint32_t v) {
    check_b(b);
    wr(uint16_t(regs::BAR_CFG + b), v, strf("BAR_CFG[%u] <- 0x%04x (%s)", b, v, cfg_text(v).c_str()));
}
void Node::set_fault(uint32_t links) { wr(regs::FAULT, links, strf("FAULT <- 0x%02x", links)); }

std::string Node::pending(unsigned b) {
    const uint32_t c = cfg(b), j = joined(b);
    const unsigned p = c >> 9 & 0xf;
    if (p == P_NC) return "this node's BESU is in no partition";
    const unsigned need = (c & 1) | (c >> 1 & 0x3f) << 1;
    std::string have, miss;
    for (unsigned k = 0; k < 7; ++k) {
        if (!(need >> k & 1)) continue;
        std::string who = k == 0 ? std::string("its PE") : std::string(dir_name(k - 1));
        if (k > 0) {
            const int nb = mesh_.nbr(pe_, k - 1);
            if (nb >= 0) who += strf(" (node %d)", nb);
        }
        ((j >> k & 1) ? have : miss) += (((j >> k & 1) ? have : miss).empty() ? "" : ", ") + who;
    }
    if (j == 0)
        return "this node's router holds no join (its subtree has not started this barrier, or it went up and the " +
               std::string(p == P_ROOT ? "completion" : "root's fan-out") + " has not come back)";
    return "this node's router has joins from " + (have.empty() ? std::string("nobody") : have) + " and waits for " +
           (miss.empty() ? std::string("nobody") : miss);
}

void load(const std::vector<Node*>& nodes, unsigned b, const std::vector<uint32_t>& cfg, uint32_t key) {
    if (nodes.empty() || !nodes[0]) throw Error("besu::load: node 0's Node is needed");
    const Mesh& m = nodes[0]->mesh();
    validate(m, cfg);
    if (nodes.size() != m.nodes())
        throw Error(strf("besu::load: %zu Nodes for a mesh of %u nodes", nodes.size(), m.nodes()));
    for (unsigned i = 0; i < m.nodes(); ++i) {
        if (!nodes[i]) {
            if (cfg[i] != CFG_RESET) throw ConfigError(strf("besu::load: node %u is in the tree but has no Node", i), i);
            continue;
        }
        Node& nd = *nodes[i];
        nd.supervisor(key);
        try {
            nd.set_cfg(b, cfg[i]);
            const uint32_t back = nd.cfg(b);
            if (back != cfg[i])
                throw ConfigError(strf("besu::load: %s BAR_CFG[%u] reads back 0x%04x after 0x%04x was written",
                                       m.node_name(i).c_str(), b, back, cfg[i]),
                                  i);
        } catch (...) {
            nd.user();
            throw;
        }
        nd.user();
    }
}

// ---- barr: the offline diagnostic ------------------------------------------------

BarrReport barr(const std::vector<Node*>& nodes, uint32_t key, std::chrono::nanoseconds step_timeout) {
    BarrReport rep;
    auto line = [&](bool ok, const std::string& s) {
        ++rep.checks;
        rep.lines.push_back((ok ? "ok   " : "FAIL ") + s);
        if (!ok) rep.failures.push_back(rep.lines.back());
    };
    if (nodes.empty()) throw Error("barr: no nodes");
    const Mesh m = nodes[0]->mesh();
    const unsigned n = m.nodes(), nb = nodes[0]->besus();
    if (nodes.size() != n) throw Error(strf("barr: %zu Nodes for a mesh of %u nodes", nodes.size(), n));
    // run fn; a library error is a FAIL line naming `what`
    auto guarded = [&](const std::string& what, const std::function<bool()>& fn) {
        try {
            line(fn(), what);
        } catch (const LinkError&) {
            throw;  // the link itself is gone: nothing more can be asked
        } catch (const Error& e) {
            line(false, what + ": " + e.what());
        }
    };
    for (Node* nd : nodes) nd->supervisor(key);

    // 1. every node: write and read back every BESU's BAR_CFG and BAR_CTL
    for (unsigned i = 0; i < n; ++i) {
        Node& nd = *nodes[i];
        std::vector<uint32_t> pats{CFG_RESET};
        unsigned links = 0;
        for (unsigned d = 0; d < 6; ++d)
            if (m.nbr(i, d) >= 0) links |= 1u << d;
        pats.push_back(cfg_word(true, links, P_ROOT));
        for (unsigned d = 0; d < 6; ++d)
            if (links >> d & 1) pats.push_back(cfg_word(true, links & ~(1u << d), PARENT_CODE[d]));
        guarded(m.node_name(i) + ": BAR_CFG and BAR_CTL of every BESU write and read back", [&] {
            for (unsigned b = 0; b < nb; ++b) {
                for (uint32_t p : pats) {
                    nd.set_cfg(b, p);
                    const uint32_t got = nd.cfg(b);
                    if (got != p)
                        throw Error(strf("BESU %u: BAR_CFG reads 0x%04x after 0x%04x", b, got, p));
                }
                nd.set_cfg(b, CFG_RESET);
                const unsigned seq[3][2] = {{OP_CLEAR, S_IDLE}, {OP_INT, S_IDLE_I}, {OP_CLEAR, S_IDLE}};
                for (auto& sc : seq) {
                    nd.control(b, sc[0]);
                    const unsigned s = nd.state(b);
                    if (s != sc[1])
                        throw Error(strf("BESU %u: BAR_CTL reads %s after %s, not %s", b, state_name(s),
                                         code_name(sc[0]), state_name(sc[1])));
                }
            }
            return true;
        });
    }

    // 2. every mesh link, both ways: a two-node partition on BESU 0
    for (unsigned i = 0; i < n; ++i)
        for (unsigned d = 0; d < 6; d += 2) {
            const int jj = m.nbr(i, d);
            if (jj < 0) continue;
            const unsigned j = unsigned(jj);
            Node &a = *nodes[i], &c = *nodes[j];
            const std::string what = strf("link %s %s <-> %s %s", m.node_name(i).c_str(), dir_name(d),
                                          m.node_name(j).c_str(), dir_name(opposite(d)));
            guarded(what + ": barrier (join up, completion down) and eureka (up and down)", [&] {
                a.set_cfg(0, cfg_word(true, 1u << d, P_ROOT));
                c.set_cfg(0, cfg_word(true, 0, PARENT_CODE[opposite(d)]));
                a.arm_barrier(0);
                if (a.state(0) != S_ARM) throw Error("the root completed a barrier its child never joined");
                c.arm_barrier(0);
                auto wait = [&](Node& nd, bool eureka) {
                    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(step_timeout).count();
                    const auto t0 = std::chrono::steady_clock::now();
                    for (;;) {
                        const unsigned s = nd.state(0);
                        if (eureka ? (s & 6) == 2 : (s & 6) == 6) return;
                        if (std::chrono::steady_clock::now() - t0 > step_timeout)
                            throw Error(strf("%s: no %s within %lld ms (state %s); ", m.node_name(nd.pe()).c_str(),
                                             eureka ? "eureka" : "barrier completion", (long long)ms, state_name(s)) +
                                        nd.pending(0));
                    }
                };
                wait(c, false);
                wait(a, false);
                // a eureka from the child reaches the root; one from the root reaches the child
                a.arm_eureka_interrupt(0);
                c.clear(0);
                c.eureka(0);
                wait(a, true);
                if (!(a.ir_status() & 1)) throw Error(m.node_name(i) + ": eureka arrived but IR_STATUS bit 0 is clear");
                a.clear_ir(1);
                a.clear(0);
                c.clear(0);
                a.eureka(0);
                wait(c, true);
                a.clear(0);
                c.clear(0);
                return true;
            });
            a.reset(0);
            c.reset(0);
            a.set_cfg(0, CFG_RESET);
            c.set_cfg(0, CFG_RESET);
        }

    // 3. every BESU: a partition of every node, rooted at node 0
    std::vector<unsigned> all(n);
    for (unsigned i = 0; i < n; ++i) all[i] = i;
    const auto tree = plan(m, all, 0);
    for (unsigned b = 0; b < nb; ++b) {
        guarded(strf("BESU %u: a barrier and a eureka over all %u nodes", b, n), [&] {
            for (unsigned i = 0; i < n; ++i) nodes[i]->set_cfg(b, tree[i]);
            for (unsigned i = 0; i < n; ++i) nodes[i]->arm_barrier(b);
            for (unsigned i = 0; i < n; ++i) {
                const auto t0 = std::chrono::steady_clock::now();
                while ((nodes[i]->state(b) & 6) != 6)
                    if (std::chrono::steady_clock::now() - t0 > step_timeout)
                        throw Error(m.node_name(i) + ": no barrier completion; " + nodes[i]->pending(b));
            }
            for (unsigned i = 0; i < n; ++i) nodes[i]->clear(b);
            nodes[n - 1]->eureka(b);
            for (unsigned i = 0; i < n; ++i) {
                const auto t0 = std::chrono::steady_clock::now();
                while ((nodes[i]->state(b) & 6) != 2)
                    if (std::chrono::steady_clock::now() - t0 > step_timeout)
                        throw Error(m.node_name(i) + ": no eureka from " + m.node_name(n - 1));
            }
            return true;
        });
        for (unsigned i = 0; i < n; ++i) {
            nodes[i]->reset(b);
            nodes[i]->set_cfg(b, CFG_RESET);
        }
    }

    // leave every node clean: no partitions, idle, no interrupts, no errors, user mode
    for (Node* nd : nodes) {
        nd->clear_ir(~0u);
        const uint32_t err = nd->error_reg();
        line(!(err & 1), strf("%s: no B/E error logged during the tests", m.node_name(nd->pe()).c_str()) +
                             ((err & 1) ? strf(" (ERR 0x%08x: %s)", err, cause_name(err >> 4 & 0xf)) : std::string()));
        nd->clear_error();
        nd->user();
    }
    return rep;
}

}  // namespace aggnet::besu
