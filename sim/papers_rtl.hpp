// papers_rtl.hpp: PapersPins over a Verilated papers_hub (one instantiation
// per hub size, made by sim/papers_rtl_factory.cpp.in).
#pragma once

#include "harness.hpp"
#include "papers_pins.hpp"
#include "vbits.hpp"

#include <aggnet/papers_regs.hpp>

namespace aggnet::sim {

template <class V>
class PapersRtl final : public PapersPins {
public:
    PapersRtl(unsigned n, const std::string& name, uint64_t max_cycles)
        : n_(n), w_(papers_regs::reg_width(n)), lw_(papers_regs::mask_width(n) + 6),
          h_(name, max_cycles) {}
    unsigned pes() const override { return n_; }
    void set_data(unsigned pe, reg_t v) override { put_bits(h_->pe_data, pe * w_, w_, v); }
    void set_ctrl(unsigned pe, uint8_t v) override { put_bits(h_->pe_ctrl, pe * 5, 5, v); }
    reg_t stat(unsigned pe) override { return get_bits(h_->pe_stat, pe * w_, w_); }
    reg_t led(unsigned pe) override { return get_bits(h_->pe_led, pe * lw_, lw_); }
    bool irq(unsigned pe) override { return get_bits(h_->pe_irq, pe, 1); }
    bool bad(unsigned pe) override { return get_bits(h_->pe_bad, pe, 1); }
    void reset(unsigned cycles) override { h_.reset(cycles); }
    void tick() override { h_.tick(); }
    uint64_t cycle() const override { return h_.cycle(); }
    void trace_to(const std::string& path) override { h_.trace_to(path); }
    void close_trace() override { h_.close_trace(); }

private:
    unsigned n_, w_, lw_;
    Harness<V> h_;
};

}  // namespace aggnet::sim
