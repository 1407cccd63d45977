// transport.hpp: the raw register interface a PE's port offers (seed 000
// section 2.2, Tables 3-5): write the data register, write the control
// register, read the status register, and wait for the status to change.
// Values are exactly the bytes the PC's port registers hold; the PC's own pin
// inversions are undone above this, in aggnet::LptPort, and nowhere else.
//
// A hub with N > 4 PEs uses the same three registers widened as
// aggnet/papers_regs.hpp describes (W = max(N,4) + 4 bits); only transports
// that can carry that (the virtual hub) accept it.
//
// Every call has a deadline on the transport's own clock (now()): a call that
// cannot complete by then throws DeviceError saying what it was waiting for
// and on which device, so no call blocks forever.  The overloads without a
// deadline use kDefaultIo.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace aggnet {

__extension__ typedef unsigned __int128 reg_t;  ///< up to 68 register bits (N = 64)

/// A point in time on a Transport's now() clock by which a call must return.
struct Deadline {
    std::chrono::nanoseconds at;
};

class Transport {
public:
    static constexpr std::chrono::nanoseconds kDefaultIo = std::chrono::seconds(10);

    virtual ~Transport() = default;

    void write_data(reg_t value, Deadline d) { ++requests_; do_write_data(value, d); }
    void write_control(uint8_t value, Deadline d) { ++requests_; do_write_control(value, d); }
    reg_t read_status(Deadline d) { ++requests_; return do_read_status(d); }
    /// Returns the status as soon as (status ^ last) & watch is non-zero, or
    /// the status at the deadline if no watched bit changed by then.  The
    /// virtual hub does this without polling (its WAIT request); a parallel
    /// port polls read_status(), as the seed's routines do.
    reg_t wait_status(reg_t watch, reg_t last, Deadline d) { ++requests_; return do_wait_status(watch, last, d); }
    /// Returns once every write made so far has taken effect at the hub (a
    /// transport that posts writes waits for their acknowledgements here).
    void flush(Deadline d) { do_flush(d); }
    /// Register requests made so far (a WAIT counts once; each extra poll of
    /// the default wait_status counts too).
    uint64_t requests() const { return requests_; }

    void write_data(reg_t value) { write_data(value, in(kDefaultIo)); }
    void write_control(uint8_t value) { write_control(value, in(kDefaultIo)); }
    reg_t read_status() { return read_status(in(kDefaultIo)); }

    /// The number of PEs of the hub behind this port, and which one we are.
    virtual unsigned hub_pes() const = 0;
    virtual unsigned pe_index() const = 0;
    /// The clock timeouts are measured on.  Real ports: the steady clock.
    virtual std::chrono::nanoseconds now() {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::steady_clock::now().time_since_epoch());
    }
    /// The deadline `after` from now.
    Deadline in(std::chrono::nanoseconds after) { return {now() + after}; }
    /// Called by a polling loop between polls; a transport may yield here.
    virtual void relax() {}
    virtual std::string describe() const = 0;

protected:
    virtual void do_write_data(reg_t value, Deadline d) = 0;
    virtual void do_write_control(uint8_t value, Deadline d) = 0;
    virtual reg_t do_read_status(Deadline d) = 0;
    virtual void do_flush(Deadline) {}
    /// Default: poll read_status() until a watched bit changes or the deadline.
    virtual reg_t do_wait_status(reg_t watch, reg_t last, Deadline d) {
        for (bool first = true;; first = false) {
            if (!first) ++requests_;
            const reg_t st = do_read_status(d);
            if (((st ^ last) & watch) != 0 || now() >= d.at) return st;
            relax();
        }
    }

private:
    uint64_t requests_ = 0;
};

}  // namespace aggnet
