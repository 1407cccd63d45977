// libaggnet: the NAND aggregate network (seed 002, TTL_PAPERS).
//
// One NandPe per PE: it drives that PE's OUT and reads its IN
// (rtl/nand/nand_engine.v, docs/nand.md) through a NandPort -- the hub's
// NAND register window over the link (LinkNandPort: serial:, sim:) or the
// engine's cable on a PC parallel port (LptNandPort: ppdev:) -- and
// implements the aggregate operations of seed 002 section 2 with the
// paper's algorithms.  Every PE of the hub takes part in
// every operation, in the same order (SPMD), as on TTL_PAPERS; a PE that has
// nothing to contribute outputs the neutral value (all 1s).
//
// Over the link every operation is one CALL to the engine's step sequencer
// (one request frame, one RESULT: link_frames()); io_cycles() still counts
// what the steps would cost as register accesses, Table 2's measure.
//
// Cost: each register access is one I/O cycle (io_cycles() counts them).  A
// step of t bits (t = trees(), 4 by default) is a write and a WAIT: 2 I/O
// cycles, because the engine latches the trees when the barrier completes
// (the paper's parallel port needs 5, Table 2).  So: barrier 2; any/all 2;
// k-bit broadcast and AND/OR/NAND/NOR 2*ceil(k/t); k-bit max/min
// 2*ceil(k/i) with i = floor(log2(t+1)) bits resolved per step (m = 2^i - 1
// trees); signal 1.  Over a USB serial bridge each I/O cycle is a round trip
// of 0.1-2 ms; over the virtual hub a round trip through the link RTL it
// simulates cycle by cycle (the README's "The NAND engine" and docs/nand.md
// have the measured times); on a PC's parallel port about 1 us.
#pragma once

#include <aggnet/link_client.hpp>
#include <aggnet/nand_regs.hpp>  // the register map and the cable (tools/nandgen.py)
#include <aggnet/transport.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace aggnet {

/// What a NandPe needs of its PE's connection to the NAND engine.  Values
/// are in the register layout of nand_regs (OUT, IN).  Every call counts as
/// one I/O cycle in accesses() (a wait polls, as the paper's routines do,
/// and counts once); a port that needs an extra access (the cable's select
/// bit) counts it too.
class NandPort {
public:
    virtual ~NandPort() = default;
    virtual unsigned pe() const = 0;
    virtual unsigned pes() const = 0;    ///< N
    virtual unsigned trees() const = 0;  ///< data trees this port reaches
    /// The PE's OUT as it stands when the port is opened (BAR, ACK).
    virtual uint32_t initial_out() = 0;
    virtual void write_out(uint32_t out) = 0;
    /// IN; `want` is IN_BF or IN_SP: which one a port that shows one flag at
    /// a time (the cable's BS) must show.
    virtual uint32_t read_in(unsigned want) = 0;
    /// Waits until IN bit `want` (IN_BF or IN_SP) equals `value`; returns
    /// IN; throws TimeoutError after `timeout`.
    virtual uint32_t wait_in(unsigned want, bool value, std::chrono::nanoseconds timeout) = 0;
    /// Every PE's BAR, where the port can see it (the link: BARS0/1); else empty.
    virtual std::optional<uint64_t> bars() = 0;
    /// The PEs whose CANCEL withdrew a barrier they had arrived at (the link:
    /// LEFT0/1); else empty.
    virtual std::optional<uint64_t> left() { return std::nullopt; }
    virtual std::string describe() const = 0;
    /// Whether the port runs whole operations on the engine's sequencer
    /// (call(); docs/nand.md, "The sequencer"): the link, unless turned off.
    virtual bool sequencer() const { return false; }
    /// One CALL to the sequencer register `reg` (nand_regs SLICES, VOTE,
    /// CANCEL, parameters included) with `len` operand bytes; returns its
    /// RESULT.  Throws TimeoutError when the operation has not finished in
    /// `timeout` (it then still runs in the engine: CANCEL it), RegisterError
    /// when the engine refuses it.  Not an I/O cycle: it counts in frames().
    virtual uint64_t call(uint16_t reg, uint64_t operands, unsigned len, std::chrono::nanoseconds timeout);
    uint64_t accesses() const { return accesses_; }
    /// Link frames (commands: READ, WRITE, WAIT, CALL; not resends) sent for
    /// this PE; 0 on the cable.
    uint64_t frames() const { return frames_; }

protected:
    uint64_t accesses_ = 0;
    uint64_t frames_ = 0;
};

/// The NAND window over the link (a LinkClient that serves `pe`).  Throws
/// DeviceError if the hub has no NAND engine, or one whose register map
/// hash (INFO MAP_HASH+2) is not this library's nand_regs::MAP_HASH.
/// Opening cancels whatever sequenced operation an earlier program left on
/// the PE (one CANCEL), so a new program starts between operations.
/// NandPe runs every operation as one CALL to the engine's sequencer;
/// `use_sequencer(false)` makes it drive each step itself (a WRITE and a
/// WAIT per step, as the cable does).
class LinkNandPort final : public NandPort {
public:
    LinkNandPort(link::LinkClient& link, unsigned pe);
    bool sequencer() const override { return seq_; }
    void use_sequencer(bool on) { seq_ = on; }
    uint64_t call(uint16_t reg, uint64_t operands, unsigned len, std::chrono::nanoseconds timeout) override;
    unsigned pe() const override { return pe_; }
    unsigned pes() const override { return n_; }
    unsigned trees() const override { return t_; }
    uint32_t initial_out() override { return out0_; }
    void write_out(uint32_t out) override;
    uint32_t read_in(unsigned want) override;
    uint32_t wait_in(unsigned want, bool value, std::chrono::nanoseconds timeout) override;
    std::optional<uint64_t> bars() override;
    std::optional<uint64_t> left() override;
    std::string describe() const override;

private:
    uint64_t read64(uint16_t lo, uint16_t hi);
    link::LinkClient& link_;
    unsigned pe_, n_ = 0, t_ = 0;
    uint32_t out0_ = 0;
    bool seq_ = true;
};

/// The engine's cable on a PC's parallel port (a Transport: ppdev:, or a
/// simulated port).  The pins do not tell N or which PE this is: the
/// caller says (the ppdev: device string's ?n=N&pe=K).  Opening drives pin
/// 17 low (the PE is on its cable) and BAR to where the barrier flip-flop
/// stands, so the PE joins between barriers; closing lets pin 17 float.
/// Trees: the 4 the cable carries (S3..S6).  The status register shows BF
/// or SP as SEL chooses: reading the other one first writes SEL (one more
/// I/O cycle).
class LptNandPort final : public NandPort {
public:
    /// How long after a SEL write (or attaching) BS may still show the
    /// other flag: the engine takes 6 hub cycles from the SEL pin to the
    /// Busy pin (sync 2, OUT 1, BS 1, skew guard 2; rtl/nand/nand_engine.v),
    /// under 1 us for any hub clock of 6 MHz or more (every board runs at
    /// 12 MHz or more).  Status reads in that time are not trusted: the
    /// port waits it out (on a PC's port, where an access takes about 1 us,
    /// that is at most one extra read).
    static constexpr std::chrono::nanoseconds kSelectSettle = std::chrono::microseconds(1);

    LptNandPort(Transport& port, unsigned pe, unsigned pes);
    ~LptNandPort() override;
    unsigned pe() const override { return pe_; }
    unsigned pes() const override { return n_; }
    unsigned trees() const override { return nand_regs::CABLE_OUT_DATA_W; }
    uint32_t initial_out() override { return out0_; }
    void write_out(uint32_t out) override;
    uint32_t read_in(unsigned want) override;
    uint32_t wait_in(unsigned want, bool value, std::chrono::nanoseconds timeout) override;
    std::optional<uint64_t> bars() override { return std::nullopt; }
    std::string describe() const override;

private:
    Transport& port_;
    unsigned pe_, n_;
    uint32_t out0_ = 0;
    uint8_t d_ = 0xff;  ///< the data register as last written
    std::chrono::nanoseconds settled_{0};  ///< BS shows the flag SEL selects from then on
    void put(uint8_t d);
    void select(unsigned want);
    void settle();
    uint32_t in_of(reg_t status) const;
};

/// The approximate count of true votes (seed 002 section 2.5).
enum class VoteCount { zero, one, many, all };
const char* vote_count_name(VoteCount c);

class NandPe {
public:
    /// Attaches PE `pe` of the hub behind `link` (which must serve it) and
    /// reads the engine's shape.  Throws DeviceError if the hub has no NAND
    /// engine or another register map (LinkNandPort).  `timeout` bounds
    /// every wait for the other PEs.
    NandPe(link::LinkClient& link, unsigned pe,
           std::chrono::nanoseconds timeout = std::chrono::seconds(10));
    /// Any NandPort (e.g. LptNandPort on a parallel port); it must outlive this.
    explicit NandPe(NandPort& port, std::chrono::nanoseconds timeout = std::chrono::seconds(10));

    unsigned pe() const { return pe_; }
    unsigned n() const { return n_; }        ///< PEs in the hub
    unsigned trees() const { return t_; }    ///< data NAND trees (t)
    /// I/O cycles so far, as Table 2 counts them: port accesses, and for an
    /// operation the sequencer ran, the 2 per step the cable would take.
    uint64_t io_cycles() const { return port_.accesses() + seq_io_; }
    /// Link frames (commands) so far: 1 per operation on the sequencer, 2
    /// per step without it; 0 on the cable.
    uint64_t link_frames() const { return port_.frames(); }
    /// Ends this PE's sequenced operation in the engine, if any (one CANCEL;
    /// a timed-out operation is cancelled already).  Returns nand_regs
    /// CANCEL_WAS_IDLE, _RUNNING (a barrier this PE had arrived at is
    /// withdrawn) or _FINISHED (its result is dropped).
    unsigned cancel();
    /// Bounds every later wait for the other PEs.
    void set_timeout(std::chrono::nanoseconds timeout) { timeout_ = timeout; }

    // ---- 2.1 barrier ------------------------------------------------------
    void barrier();

    // ---- the primitive: one barrier-synchronised step of the t data trees --
    /// Outputs `out` (low t bits) on the data trees with a barrier; returns
    /// the NAND over every PE's output, as latched when the barrier completed.
    uint32_t step(uint32_t out);

    // ---- 2.2 broadcast, 2.3 any/all, 2.4 reductions (k in 1..64 bits) ------
    uint64_t broadcast(unsigned root, uint64_t value, unsigned k);
    bool any(bool a);
    bool all(bool a);
    uint64_t reduce_and(uint64_t v, unsigned k);
    uint64_t reduce_or(uint64_t v, unsigned k);
    uint64_t reduce_nand(uint64_t v, unsigned k);
    uint64_t reduce_nor(uint64_t v, unsigned k);
    uint64_t max_u(uint64_t v, unsigned k);
    uint64_t min_u(uint64_t v, unsigned k);
    int64_t max_s(int64_t v, unsigned k);
    int64_t min_s(int64_t v, unsigned k);
    float max_f(float v);
    float min_f(float v);
    double max_d(double v);
    double min_d(double v);
    /// Maximum with `bits` bits resolved per step (1 <= bits, 2^bits - 1 <= t):
    /// the m = 2^i - 1 tree variant of section 2.4; max_u uses the largest i.
    uint64_t max_u_bits(uint64_t v, unsigned k, unsigned bits);

    // ---- 2.5 votes, 2.6 multi-way branch --------------------------------------
    /// The lowest-numbered PE that voted true, or n() if none did.
    unsigned lowest_true(bool vote);
    VoteCount count_vote(bool vote);
    /// A k-bit vector whose bit i is how the PE that controls bit i voted;
    /// this PE controls bit `my_bit` (or none: my_bit >= k).
    uint64_t vote_vector(bool vote, unsigned my_bit, unsigned k);
    /// Bit i: at least one PE wants resource i.
    uint64_t resource_vector(uint64_t wants, unsigned k);
    /// The multi-way branch key of section 2.6 (figure 4): each PE passes the
    /// NAND arguments it outputs (1 where it does not control a bit); the key
    /// is their NAND.
    uint64_t branch_key(uint64_t nand_args, unsigned k) { return reduce_nand(nand_args, k); }

    // ---- 2.7 asynchronous signal with acknowledge ---------------------------
    void signal();                 ///< 1 I/O cycle: sets the pending signal
    bool signal_pending();         ///< 1 I/O cycle: reads it
    /// Waits until a signal is pending (TimeoutError after `timeout`).
    void wait_signal(std::chrono::nanoseconds timeout);
    /// This PE's part of the acknowledge barrier (1 I/O cycle); the signal is
    /// cleared when every PE has acknowledged.  A second acknowledge before
    /// every PE made the first is out of protocol order: over the link the
    /// engine refuses it and this throws ProtocolError, the hub unchanged; a
    /// PE on its cable cannot be refused (its pins are what they are), and
    /// there it would withdraw the first.
    void acknowledge();

private:
    std::unique_ptr<NandPort> own_;  ///< the LinkNandPort of the link constructor
    NandPort& port_;
    unsigned pe_, n_ = 0, t_ = 0;
    std::chrono::nanoseconds timeout_;
    bool phase_ = false;      ///< BAR: the barrier tree this PE is at (S1 when true)
    bool ack_ = false;
    uint32_t data_ = 0;       ///< the data trees' outputs
    bool pending_ = false;    ///< a barrier that timed out is still open
    uint64_t seq_io_ = 0;     ///< I/O cycles the sequencer's operations stand for
    void write_out(uint32_t extra = 0);
    /// One operation on the engine's sequencer: k bits (the low k of v), w
    /// per step; SLICES or VOTE.  Returns the result's k bits.
    uint64_t sequenced(bool vote, uint64_t v, unsigned k, unsigned w, const char* op);
    uint32_t wait_phase();
    uint64_t chunked(uint64_t v, unsigned k, bool invert_out, bool invert_in, const char* op);
    void check_k(unsigned k, const char* op) const;
    std::optional<uint64_t> missing();
};

}  // namespace aggnet
