// papers.hpp: the PAPERS barrier API of seed 000 section 4.3 -- enqueue(),
// p_wait(), p_waitvec() -- over any Transport.
//
//   aggnet::Papers p(transport);          // PE p.pe() of a p.pes()-PE hub
//   p.enqueue(0b0011);                     // barrier with PE0 and PE1
//   p.wait();                              // p_wait()
//   uint64_t v = p.waitvec(flag);          // p_waitvec(): PE k's bit at bit k
//
// As the seed codes them: no hub traffic when we are alone in the mask, no
// re-enqueue of an unchanged mask, enqueue() waits for the GO reset of the old
// mask before changing it, the PARANOID check is always on (a mask naming a PE
// >= N throws MaskError, and so does an empty mask, on which the PAL's GO would
// oscillate), and waitvec() zeroes the bits of PEs outside the mask.
// Every wait takes a timeout and every register access a deadline, so no call
// blocks forever.  While it waits for GO a PE sets PROBE (papers_regs.hpp), so
// each status it reads shows which PEs have arrived for it; on expiry it
// throws TimeoutError naming the PEs that never arrived and, apart, those
// that arrived and left again (they timed out themselves).  Waiting for a
// barrier's GO reset, it names the PEs still holding S (never released).
//
// After a TimeoutError the object stays usable: the barrier it was in is
// abandoned, so the next enqueue() of a different mask does not wait for that
// barrier's GO reset (which a dead PE holding S would block forever) -- the
// survivors re-form with a mask that leaves the dead PE out and go on.  An
// enqueue() that times out waiting for the reset abandons the old barrier too,
// so calling it again proceeds.  (Survivors should re-form only after all of
// them have given up on the old barrier: one that re-forms while another is
// still waiting in it, holding S with a mask that names the re-formed PEs,
// can complete a barrier with it.  Equal timeouts, or one more timeout period
// before re-forming, see to that.)
#pragma once

#include <aggnet/error.hpp>
#include <aggnet/papers_regs.hpp>
#include <aggnet/transport.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace aggnet {

/// What a PE reads of its PAPERS unit, in the hub window's terms
/// (docs/papers_regmap.md: STAT and IVEC), whatever the port: PE k at bit k.
struct PapersStatus {
    bool go = false;    ///< Table 7 GO, 1 when fired
    bool intr = false;  ///< Table 7 INT
    /// The other PEs' D bits (their arrivals while our PROBE is set), PE k
    /// at bit k; our own bit 0.
    uint64_t ivec = 0;
};

/// What the PAPERS routines need of a PE's port: seed 000's P_OUT, P_IN and
/// P_MODE (section 4.2) in the hub window's terms, plus a wait for GO.  Two
/// implementations: LptPort (a PC parallel port, or the pin-level virtual
/// hub: the only one that speaks the PC's register layout, seed 000 Tables
/// 3-5, with its I-bit order and inversions) and LinkPapersPort
/// (aggnet/link_papers.hpp: the PAPERS window of a hub over the link).
class PapersPort {
public:
    virtual ~PapersPort() = default;
    virtual unsigned hub_pes() const = 0;
    virtual unsigned pe_index() const = 0;
    /// The clock deadlines are measured on.
    virtual std::chrono::nanoseconds now() = 0;
    Deadline in_time(std::chrono::nanoseconds after) { return {now() + after}; }
    /// P_OUT: the window's SIG (papers_regs DATA_D, DATA_PROBE, DATA_IR,
    /// DATA_S) and MASK (PE k at bit DATA_B0 + k) in one word.
    virtual void out(reg_t data, Deadline d) = 0;
    virtual PapersStatus in(Deadline d) = 0;             ///< P_IN: STAT and IVEC
    virtual void mode(uint8_t control, Deadline d) = 0;  ///< P_MODE: CTRL, control bits at logic level
    /// The status once GO reads `level`, or at the deadline.  Only `go` and
    /// `intr` are sure to be current in the value returned.
    virtual PapersStatus wait_go(bool level, Deadline d) = 0;
    /// Every P_OUT / P_MODE so far has taken effect at the hub.
    virtual void flush(Deadline) {}
    /// The PEs the hub counts as present (CE at 1: rtl/papers/papers_hub.v,
    /// Presence), where the port can ask (the link's PRESENT registers);
    /// a parallel port cannot, and returns false.
    virtual bool present(uint64_t& pes, Deadline d) {
        (void)pes, (void)d;
        return false;
    }
    /// Whether the hub runs a whole barrier for this PE in one operation
    /// (the link's SYNC CALL, docs/papers_regmap.md); a parallel port cannot,
    /// and Papers then drives S and reads GO itself.
    virtual bool can_sync() const { return false; }
    /// One barrier done by the hub, as _p_wait / _p_waitvec (seed 000
    /// section 4.3.2-4.3.3): wait for the last barrier's reset, raise S with
    /// D = `d`, wait for GO, drop S.  Returns the data vector (bit k = PE
    /// k's D, for the PEs of the mask; ours = d).  Throws TimeoutError when
    /// `d` passes first; the barrier then stays in progress at the hub
    /// until sync_cancel().
    virtual uint64_t sync(bool d, Deadline dl) {
        (void)d, (void)dl;
        throw Error("papers: this port cannot run a barrier at the hub");
    }
    /// Ends a sync() that timed out: the hub's outcome (papers_regs
    /// W_CANCEL_*) and its LAST vector (the data vector of a barrier that
    /// finished, or the PEs that had arrived at one withdrawn).
    virtual unsigned sync_cancel(uint64_t& last, Deadline dl) {
        (void)last, (void)dl;
        throw Error("papers: this port cannot run a barrier at the hub");
    }
    /// Register requests made so far.
    virtual uint64_t accesses() const = 0;
    virtual std::string describe() const = 0;
};

/// The PC parallel port: the only place that knows the PC's register layout
/// (seed 000 Tables 3-5: I_k carries PE (x+k+1) mod N) and that the PC
/// inverts some pins (section 2.2).
class LptPort final : public PapersPort {
public:
    explicit LptPort(Transport& t);
    unsigned hub_pes() const override { return t_.hub_pes(); }
    unsigned pe_index() const override { return t_.pe_index(); }
    std::chrono::nanoseconds now() override { return t_.now(); }
    void out(reg_t data, Deadline d) override;
    PapersStatus in(Deadline d) override;              ///< the PC's status register, I bits to PE order
    void mode(uint8_t control, Deadline d) override;  ///< PC inversion undone here
    PapersStatus wait_go(bool level, Deadline d) override;
    void flush(Deadline d) override { t_.flush(d); }
    uint64_t accesses() const override { return t_.requests(); }
    std::string describe() const override { return t_.describe(); }
    Transport& transport() { return t_; }

private:
    Transport& t_;
};

class Papers {
public:
    using Timeout = std::chrono::nanoseconds;
    static constexpr Timeout kDefaultTimeout = std::chrono::seconds(10);
    /// While waiting, who has arrived is sampled at least this often (a PE
    /// that arrives and withdraws again within one sample can be reported
    /// as never arrived).  On the virtual hub a waiting PE sends one request
    /// per sample: 20 per second.
    static constexpr Timeout kArrivalSample = std::chrono::milliseconds(50);

    /// Attaches to the hub: writes CE and U0 (Table 6: barrier synchronize)
    /// and enqueues the mask of this PE alone.  `io` bounds each register
    /// access of the calls that take no timeout of their own.
    explicit Papers(Transport& t, Timeout io_timeout = kDefaultTimeout);
    /// The same over any PapersPort (e.g. a LinkPapersPort); `port` must
    /// outlive this object.
    explicit Papers(PapersPort& port, Timeout io_timeout = kDefaultTimeout);

    unsigned pe() const { return pe_; }
    unsigned pes() const { return n_; }
    uint64_t our_mask() const { return uint64_t(1) << pe_; }
    uint64_t all_mask() const { return n_ >= 64 ? ~uint64_t(0) : (uint64_t(1) << n_) - 1; }
    uint64_t last_mask() const { return last_mask_; }
    /// True after a TimeoutError until the next enqueue() or completed barrier.
    bool abandoned() const { return abandoned_; }

    void enqueue(uint64_t mask, Timeout timeout = kDefaultTimeout);
    void wait(Timeout timeout = kDefaultTimeout);
    uint64_t waitvec(bool flag, Timeout timeout = kDefaultTimeout);

    /// IR: interrupt every PE whose mask contains us (held until cleared).
    void set_interrupt_request(bool on);
    /// Control bits of Table 5 (GI: GO causes interrupt; IE; U1/U0 display).
    void set_mode(bool gi, bool ie = false, uint8_t user = 1);

    struct Status {
        bool go;     ///< Table 7 GO as read
        bool intr;   ///< Table 7 INT
        uint64_t vec;  ///< the other PEs' D bits, PE k at bit k (unmasked)
    };
    Status status();
    /// PEs that have arrived for us (S high, mask contains us), PE k at bit k.
    uint64_t arrived();

    PapersPort& port() { return port_; }

private:
    reg_t pout(uint64_t mask) const;
    reg_t ir_bit() const;
    Deadline io() { return port_.in_time(io_); }
    void attach();
    struct Waited {
        PapersStatus status;  ///< the status that showed the awaited GO level
        bool s_dropped;   ///< GO came as we withdrew S at the deadline: S is low now
    };
    /// Waits for GO == level, our data pins kept as they are (PROBE added).
    /// Throws TimeoutError (and marks the barrier abandoned) at `end`.
    Waited wait_go(bool level, uint64_t mask, Deadline end, Timeout timeout, const char* what);
    /// P_OUT through here, so that cur_ always holds our data pins.
    void put(reg_t data, Deadline d);
    Waited sync(reg_t b, Deadline end, Timeout timeout, const char* what);
    /// The barrier at the hub (port_.can_sync()): true with the data vector
    /// in `vec` when it completed; throws TimeoutError as sync() does.
    bool hub_sync(bool d, Deadline end, Timeout timeout, const char* what, uint64_t& vec);
    /// The TimeoutError of a barrier whose mask's PEs `here` had arrived
    /// (`seen`: arrived during the wait, then left) when we gave up.
    [[noreturn]] void arrival_timeout(const char* what, Timeout timeout, uint64_t mask, uint64_t here,
                                      uint64_t seen, Deadline cleanup);
    /// The TimeoutError of a wait for the reset of a barrier that PEs
    /// `holding` keep up.
    [[noreturn]] void reset_timeout(const char* what, Timeout timeout, uint64_t mask, uint64_t holding);

    std::unique_ptr<LptPort> own_port_;  ///< when built from a Transport
    PapersPort& port_;
    Timeout io_;
    unsigned n_;
    unsigned pe_;
    uint64_t last_mask_ = 0;
    reg_t last_pout_ = 0;
    reg_t cur_ = 0;  ///< the data register as we last wrote it
    bool ir_ = false;
    bool abandoned_ = false;
    uint8_t control_ = 0;
};

}  // namespace aggnet
