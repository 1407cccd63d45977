// papers_pins.hpp: the pin-level view of a PAPERS hub (rtl/papers/papers_hub.v),
// implemented twice: by the Verilated RTL (make_papers_rtl) and by the C++
// reference model written from the seed's equations (PapersModel).  Tests drive
// both through this one interface and compare them; the virtual hub serves the
// RTL through it.
#pragma once

#include <aggnet/papers_regs.hpp>
#include <aggnet/transport.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace aggnet::sim {

class PapersPins {
public:
    virtual ~PapersPins() = default;
    virtual unsigned pes() const = 0;
    /// Pin levels, register layout (papers_regs.hpp): data and control in,
    /// status / LED / irq / bad out.  Outputs are those of the last tick().
    virtual void set_data(unsigned pe, reg_t pins) = 0;
    virtual void set_ctrl(unsigned pe, uint8_t pins) = 0;
    virtual reg_t stat(unsigned pe) = 0;
    virtual reg_t led(unsigned pe) = 0;
    virtual bool irq(unsigned pe) = 0;
    virtual bool bad(unsigned pe) = 0;
    /// rst high for `cycles` clock cycles, then low.
    virtual void reset(unsigned cycles = 3) = 0;
    /// One rising clock edge.
    virtual void tick() = 0;
    virtual uint64_t cycle() const = 0;
    /// The status bit on the DB25's Busy pin (pin 11), which the PC's port
    /// inverts (sim/pc_port.hpp): PAPERS' GO bit at this N; another cable on
    /// a PC port (sim/nand_cable.hpp) says which of its bits is Busy.
    virtual unsigned busy_bit() const { return papers_regs::STATUS_GO(pes()); }
    /// Start an FST waveform (RTL only; the model ignores it).
    virtual void trace_to(const std::string& path) = 0;
    virtual void close_trace() = 0;
};

/// The hub sizes the virtual hub and the tests are built for.
const std::vector<unsigned>& papers_rtl_sizes();
/// The Verilated papers_hub for N PEs; throws std::invalid_argument for an
/// N that was not built (see papers_rtl_sizes()).  `max_cycles` bounds tick().
std::unique_ptr<PapersPins> make_papers_rtl(unsigned n, const std::string& name = "papers_hub",
                                            uint64_t max_cycles = UINT64_MAX);

}  // namespace aggnet::sim
