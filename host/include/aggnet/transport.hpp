// transport.hpp: the raw register interface a PE's port offers (seed 000
// section 2.2, Tables 3-5): write the data register, write the control
// register, read the status register.  Values are exactly the bytes the PC's
// port registers hold; the PC's own pin inversions are undone above this, in
// aggnet::LptPort, and nowhere else.
//
// A hub with N > 4 PEs uses the same three registers widened as
// aggnet/papers_regs.hpp describes (W = max(N,4) + 4 bits); only transports
// that can carry that (the virtual hub) accept it.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace aggnet {

__extension__ typedef unsigned __int128 reg_t;  ///< up to 68 register bits (N = 64)

class Transport {
public:
    virtual ~Transport() = default;
    virtual void write_data(reg_t value) = 0;
    virtual void write_control(uint8_t value) = 0;
    virtual reg_t read_status() = 0;
    /// The number of PEs of the hub behind this port, and which one we are.
    virtual unsigned hub_pes() const = 0;
    virtual unsigned pe_index() const = 0;
    /// The clock timeouts are measured on.  Real ports: the steady clock.
    virtual std::chrono::nanoseconds now() {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::steady_clock::now().time_since_epoch());
    }
    /// Called by a spin loop between polls; a transport may yield here.
    virtual void relax() {}
    virtual std::string describe() const = 0;
};

}  // namespace aggnet
