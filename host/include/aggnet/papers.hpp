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
// Every wait takes a timeout; on expiry it throws TimeoutError naming the PEs
// of the mask that had not arrived, read with the PROBE bit (papers_regs.hpp).
#pragma once

#include <aggnet/error.hpp>
#include <aggnet/papers_regs.hpp>
#include <aggnet/transport.hpp>

#include <chrono>
#include <cstdint>

namespace aggnet {

/// The lowest layer: the only place that knows the PC port inverts some pins
/// (seed 000 section 2.2).  P_OUT, P_IN, P_MODE of section 4.2.
class LptPort {
public:
    explicit LptPort(Transport& t);
    void out(reg_t data);          ///< P_OUT: data register (no inversion)
    reg_t in();                    ///< P_IN: status register; GO reads 1 when fired
    void mode(uint8_t control);    ///< P_MODE: control register, PC inversion undone
    uint64_t accesses() const { return accesses_; }
    Transport& transport() { return t_; }

private:
    Transport& t_;
    uint64_t accesses_ = 0;
};

class Papers {
public:
    using Timeout = std::chrono::nanoseconds;
    static constexpr Timeout kDefaultTimeout = std::chrono::seconds(10);

    /// Attaches to the hub: writes CE and U0 (Table 6: barrier synchronize)
    /// and enqueues the mask of this PE alone.
    explicit Papers(Transport& t);

    unsigned pe() const { return pe_; }
    unsigned pes() const { return n_; }
    uint64_t our_mask() const { return uint64_t(1) << pe_; }
    uint64_t all_mask() const { return n_ >= 64 ? ~uint64_t(0) : (uint64_t(1) << n_) - 1; }
    uint64_t last_mask() const { return last_mask_; }

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

    LptPort& port() { return port_; }

private:
    reg_t pout(uint64_t mask) const;
    uint64_t i_to_mask(reg_t status) const;  ///< IToMask(): I bits to PE positions
    bool go_of(reg_t status) const;
    void wait_go(bool level, reg_t out_while_waiting, uint64_t mask, Timeout timeout, const char* what);
    void sync(reg_t b, Timeout timeout, const char* what);

    Transport& t_;
    LptPort port_;
    unsigned n_;
    unsigned pe_;
    uint64_t last_mask_ = 0;
    reg_t last_pout_ = 0;
    bool ir_ = false;
    uint8_t control_ = 0;
};

}  // namespace aggnet
