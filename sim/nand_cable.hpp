// nand_cable.hpp: the NAND engine's cable (rtl/nand/nand_engine.v, "Pins";
// docs/nand.md, "The cable") seen as the pins a PC's parallel port drives
// and reads, in PapersPins' register layout, which sim/lockstep.hpp's PC
// port model speaks: data D0..D7, control pins 1, 14, 16, 17 (the CTRL bits
// below IE), status S3..S7 at bits 3..7.  So libaggnet's LptNandPort runs
// on it as on a board's DB25.
//
// The source is anything with the engine's pins: the Verilated hub
// (HubModel, whose PAPERS pins then float), or a bare Verilated nand_engine
// (NandEngineRtl<V>, below).  Shared by test_nand_ops and bench_nand_ops.
#pragma once

#include "harness.hpp"
#include "papers_pins.hpp"
#include "vbits.hpp"

#include <aggnet/nand_regs.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace aggnet::sim {

/// Src: pes(), set_nand_pins_in(pe, 12 lines), nand_pins_out(pe) (5 lines),
/// reset(cycles), tick(), cycle(), trace_to(path), close_trace().
template <class Src>
class NandCable final : public PapersPins {
public:
    explicit NandCable(std::unique_ptr<Src> h) : h_(std::move(h)), d_(h_->pes(), 0xff), c_(h_->pes(), 0xf) {}
    unsigned pes() const override { return h_->pes(); }
    void set_data(unsigned pe, reg_t pins) override { d_.at(pe) = uint8_t(pins), drive(pe); }
    void set_ctrl(unsigned pe, uint8_t pins) override { c_.at(pe) = pins & 0xf, drive(pe); }
    reg_t stat(unsigned pe) override { return reg_t(h_->nand_pins_out(pe)) << nand_regs::CABLE_PC_STATUS_AT; }
    /// S7: the PC's 8-bit status register, whatever N (not PAPERS' widened one).
    unsigned busy_bit() const override { return 7; }
    reg_t led(unsigned) override { return 0; }
    bool irq(unsigned) override { return false; }
    bool bad(unsigned) override { return false; }
    void reset(unsigned cycles) override { h_->reset(cycles); }
    void tick() override { h_->tick(); }
    uint64_t cycle() const override { return h_->cycle(); }
    void trace_to(const std::string& path) override { h_->trace_to(path); }
    void close_trace() override { h_->close_trace(); }

private:
    std::unique_ptr<Src> h_;
    std::vector<uint8_t> d_, c_;
    void drive(unsigned pe) { h_->set_nand_pins_in(pe, uint16_t(d_[pe] | c_[pe] << nand_regs::CABLE_PC_CONTROL_LINE)); }
};

/// A bare Verilated nand_engine (any N, T) with its bus idle: only its cable.
/// Every line starts high, as a board's pull-ups hold an unplugged cable.
template <class V>
class NandEngineRtl {
public:
    NandEngineRtl(unsigned n, const std::string& name, uint64_t max_cycles = UINT64_MAX) : n_(n), h_(name, max_cycles) {
        h_->bus_req_valid = 0;
        for (unsigned pe = 0; pe < n; ++pe) set_nand_pins_in(pe, uint16_t((1u << nand_regs::CABLE_IN_LINES) - 1));
    }
    unsigned pes() const { return n_; }
    void set_nand_pins_in(unsigned pe, reg_t v) {
        put_bits(h_->nand_pins_in, pe * nand_regs::CABLE_IN_LINES, nand_regs::CABLE_IN_LINES, v);
    }
    reg_t nand_pins_out(unsigned pe) const {
        return reg_t(get_bits(h_.dut().nand_pins_out, pe * nand_regs::CABLE_OUT_LINES, nand_regs::CABLE_OUT_LINES));
    }
    void reset(unsigned cycles) { h_.reset(cycles); }
    void tick() { h_.tick(); }
    uint64_t cycle() const { return h_.cycle(); }
    void trace_to(const std::string& path) { h_.trace_to(path); }
    void close_trace() { h_.close_trace(); }

private:
    unsigned n_;
    mutable Harness<V> h_;
};

}  // namespace aggnet::sim
