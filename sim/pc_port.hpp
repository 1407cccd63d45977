// pc_port.hpp: what a PC's parallel-port hardware does between its registers
// and the DB25 pins (seed 000 section 2.2), so that the virtual hub can offer
// the same register operations ppdev does.  This models the PC, not the hub,
// and mirrors the inversions libaggnet's LptPort undoes.
#pragma once

#include <aggnet/papers_regs.hpp>
#include <aggnet/transport.hpp>

#include <cstdint>

namespace aggnet::sim {

/// Control register value -> control pin levels (IE stays inside the PC; the
/// hub gets it so it can report the interrupt the PC would take).
inline uint8_t control_reg_to_pins(uint8_t reg) {
    return static_cast<uint8_t>((reg ^ papers_regs::PC_CONTROL_INVERT) & ((1u << papers_regs::CTRL_WIDTH) - 1));
}

/// Status pin levels -> status register value: the PC inverts Busy, which
/// is status bit `busy_bit` (PapersPins::busy_bit()).
inline reg_t status_pins_to_reg_busy(reg_t pins, unsigned busy_bit) { return pins ^ (reg_t(1) << busy_bit); }

/// The same for a PAPERS hub of n PEs: Busy carries GO.
inline reg_t status_pins_to_reg(reg_t pins, unsigned n) {
    return status_pins_to_reg_busy(pins, papers_regs::STATUS_GO(n));
}

}  // namespace aggnet::sim
