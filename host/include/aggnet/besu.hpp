// libaggnet: the barrier/eureka synchronization units of seed 001 (Cray
// SSD-T90 "Barrier Synchronization Operations") in the hub's BESU engine
// (rtl/besu/, docs/besu.md), over the link.
//
// The engine is a 3-D mesh of nodes; link PE p is node p's processing
// element.  Each node has NB BESUs.  A partition is a tree over the mesh's
// links on one BESU number: every node of it has that BESU's BAR_CFG set to
// its parent link (or root) and its child links, with the PE bit set where
// the node's PE takes part.  plan() computes such a tree, validate() checks
// one, load() writes it (supervisor mode: the loader acts as every node's
// PE, before the job starts, as an operating system would).  Then each PE
// uses its own Node: arm a barrier, wait for it (polled, hub-side: arm and
// wait in one link CALL to BAR_CALL, or the interrupt method through
// IR_STATUS), send a eureka, wait for one, and eureka-then-barrier.
//
// Errors: a register access the node refuses throws BesuError naming the
// cause the node logged (docs/besu.md, the ERR register), which the library
// reads and clears.  A wait that does not complete throws TimeoutError with
// what this node's router is still waiting for.
#pragma once

#include <aggnet/besu_regs.hpp>  // the tables (tools/besugen.py)
#include <aggnet/error.hpp>
#include <aggnet/link_client.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace aggnet::besu {

namespace regs {
constexpr uint32_t DEFAULT_KEY = 0x53455550;  // BESU_KEY of the hub top ("SEUP"); set your own per site
}  // namespace regs
const char* state_name(unsigned s);
const char* code_name(unsigned c);
const char* cause_name(unsigned c);

const char* dir_name(unsigned d);  ///< "+X" .. "-Z"
/// BAR_CFG (figure 6): bit 0 PE, bits 1..6 children +X -X +Y -Y +Z -Z, 12..9 parent.
constexpr uint32_t cfg_word(bool pe, unsigned kids, unsigned parent) {
    return uint32_t(pe) | uint32_t(kids & 0x3f) << 1 | uint32_t(parent & 0xf) << 9;
}
constexpr uint32_t CFG_RESET = cfg_word(false, 0, P_NC);
std::string cfg_text(uint32_t cfg);  ///< "PE, children +X -Y, parent -Z"

/// The mesh of nodes: node i = x + X*(y + Y*z).
struct Mesh {
    unsigned X = 1, Y = 1, Z = 1;
    unsigned nodes() const { return X * Y * Z; }
    /// The neighbour of node i on direction d (0..5: +X -X +Y -Y +Z -Z), or -1.
    int nbr(unsigned i, unsigned d) const;
    std::string node_name(unsigned i) const;  ///< "node 5 (1,0,1)"
};

/// A BAR_CFG set that is not one tree; node is the first node found wrong.
struct ConfigError : Error {
    ConfigError(const std::string& what, unsigned node_) : Error(what), node(node_) {}
    unsigned node;
};

/// A spanning tree from `root` over the mesh's links reaching every member
/// (breadth first; nodes in `avoid` are never used, e.g. another
/// partition's nodes on the same BESU); nodes it needs only to pass through
/// are routers with the PE bit 0.  Returns every node's BAR_CFG (CFG_RESET
/// for nodes outside the tree).  Throws ConfigError if the root is not a
/// member, a node is out of range, or a member cannot be reached.
std::vector<uint32_t> plan(const Mesh& m, const std::vector<unsigned>& members, unsigned root,
                           const std::vector<unsigned>& avoid = {});
/// Checks that `cfg` (one word per node) is a set of trees the hardware can
/// run: valid codes, links that exist, every child link answered by a parent
/// link and back, no cycles, no tree without a member, every tree with one
/// root.  Throws ConfigError naming the first wrong node and what is wrong.
void validate(const Mesh& m, const std::vector<uint32_t>& cfg);

/// The node refused an access; cause as logged in its ERR register.
struct BesuError : Error {
    BesuError(const std::string& what, unsigned pe_, unsigned cause_) : Error(what), pe(pe_), cause(cause_) {}
    unsigned pe;
    unsigned cause;
};

/// How a PE learns that its barrier or eureka happened.
enum class Wait {
    Polled,     ///< the host reads BAR_CTL until it shows the event (seed: "polled method")
    Hub,        ///< one link CALL to BAR_CALL (write and wait in one frame each way): the hub asks, the host does not poll
    Interrupt,  ///< one link WAIT on the IR_STATUS bit, then BAR_CTL, then the bit is cleared (seed: "interrupt method")
};

/// One PE's node.
class Node {
public:
    /// PE `pe` of the hub behind `link` (which must serve it).  Throws
    /// DeviceError if the hub has no BESU engine or no node for this PE.
    Node(link::LinkClient& link, unsigned pe, std::chrono::nanoseconds timeout = std::chrono::seconds(10));

    unsigned pe() const { return pe_; }
    const Mesh& mesh() const { return mesh_; }
    unsigned besus() const { return nb_; }
    uint64_t io_cycles() const { return io_; }  ///< link commands made (a Wait::Hub barrier: 1)

    unsigned state(unsigned b);
    /// Writes a control code (Table 3) to BAR_CTL[b].
    void control(unsigned b, unsigned code);
    void clear(unsigned b) { control(b, OP_CLEAR); }
    /// Joins the barrier (OP_BAR, or OP_BAR_I for the interrupt method).
    void arm_barrier(unsigned b, bool interrupt = false) { control(b, interrupt ? OP_BAR_I : OP_BAR); }
    /// Waits until the barrier completed (S_BAR or S_BAR_I); returns the state.
    /// Wait::Hub: one wait-only CALL (BAR_CALL[b] with CALL_NOWRITE).
    unsigned wait_barrier(unsigned b, Wait how = Wait::Hub);
    /// arm_barrier + wait_barrier (the interrupt flavour with Wait::Interrupt);
    /// Wait::Hub: both in one CALL (BAR_CALL[b] <- OP_BAR), one request frame.
    /// A timeout cancels the CALL (CANCEL): if the barrier had completed
    /// after all, that is success; else TimeoutError naming what this node's
    /// router waits for (and the PEs behind it, when partition() was told).
    unsigned barrier(unsigned b, Wait how = Wait::Hub);
    /// eureka_barrier + wait_barrier; Wait::Hub: one CALL (BAR_CALL[b] <- OP_EUR_B).
    unsigned eureka_then_barrier(unsigned b, Wait how = Wait::Hub);
    /// OP_INT: a eureka will raise IR_STATUS bit b.
    void arm_eureka_interrupt(unsigned b) { control(b, OP_INT); }
    /// OP_EUR: this PE found it; every member of the partition learns it.
    void eureka(unsigned b) { control(b, OP_EUR); }
    /// Waits until a eureka arrived (S_EUR or S_EUR_I); returns the state.
    /// Wait::Hub: one wait-only CALL (CALL_NOWRITE | CALL_EUREKA).
    unsigned wait_eureka(unsigned b, Wait how = Wait::Hub);
    /// OP_EUR_B: send a eureka and join the barrier (wait with wait_barrier).
    void eureka_barrier(unsigned b) { control(b, OP_EUR_B); }
    uint32_t ir_status();
    void clear_ir(uint32_t mask);
    uint32_t error_reg();
    void clear_error();
    /// The router's record of barrier b: bit 0 the PE joined, bit 1 + d link d.
    uint32_t joined(unsigned b);

    // ---- supervisor ------------------------------------------------------
    void supervisor(uint32_t key = regs::DEFAULT_KEY);
    void user();
    uint32_t cfg(unsigned b);
    void set_cfg(unsigned b, uint32_t cfg);
    /// OP_RESET: the BESU idle and its router record cleared (supervisor).
    void reset(unsigned b) { control(b, OP_RESET); }
    /// Cuts links (bit d: link d) of this node, to test the diagnostic (supervisor).
    void set_fault(uint32_t links);

    /// What this node's router still waits for on barrier b, for messages.
    std::string pending(unsigned b);
    /// CANCEL: withdraws this PE's pending BAR_CALL in the node; returns the
    /// result byte: bits 5..4 CANCEL_NONE / CANCEL_WITHDRAWN /
    /// CANCEL_FINISHED, bits 2..0 the BESU's state.  The blocking waits do
    /// this themselves after a timeout.
    unsigned cancel();
    /// The partition of BESU b (every node's BAR_CFG, as plan() gives it),
    /// so that a barrier timeout names the member PEs behind the links this
    /// node's router waits for (TimeoutError::never_arrived).  Optional.
    void partition(unsigned b, const std::vector<uint32_t>& cfg);

private:
    link::LinkClient& link_;
    unsigned pe_;
    std::chrono::nanoseconds timeout_;
    Mesh mesh_;
    unsigned nb_ = 0;
    uint64_t io_ = 0;
    uint32_t rd(uint16_t reg);
    void wr(uint16_t reg, uint32_t v, const std::string& what);
    void check_b(unsigned b) const;
    unsigned wait_state(unsigned b, Wait how, unsigned mask, unsigned value, const char* what);
    unsigned call_wait(unsigned b, unsigned operand, const char* what);
    [[noreturn]] void refused(const std::string& what);
    uint64_t behind_missing(unsigned b);
    std::vector<std::vector<uint32_t>> trees_;
};

/// Loads `cfg` (one BAR_CFG per node, as plan() gives) into BESU b of every
/// node: validates it first, then per node enters supervisor mode with
/// `key`, writes the BAR_CFG, reads it back and leaves supervisor mode.
/// nodes[i] is node i's Node (the loader acts as each node's PE).
void load(const std::vector<Node*>& nodes, unsigned b, const std::vector<uint32_t>& cfg,
          uint32_t key = regs::DEFAULT_KEY);

/// The offline diagnostic `barr` of seed 001: per node, writes and reads back
/// every BESU's BAR_CFG and BAR_CTL; a two-node partition over every mesh
/// link (barrier and eureka both ways); a partition of every node on every
/// BESU.  Each finding names the node, link or BESU.  Leaves every BESU
/// unconfigured and idle.  nodes[i] is node i's Node.
struct BarrReport {
    std::vector<std::string> lines;     ///< "ok ..." and "FAIL ..." lines, in order
    std::vector<std::string> failures;  ///< the FAIL lines
    unsigned checks = 0;
    bool ok() const { return failures.empty(); }
};
BarrReport barr(const std::vector<Node*>& nodes, uint32_t key = regs::DEFAULT_KEY,
                std::chrono::nanoseconds step_timeout = std::chrono::milliseconds(200));

}  // namespace aggnet::besu
