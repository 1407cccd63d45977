// hub_rtl.hpp: the Verilated aggnet_hub (rtl/hub) behind one interface,
// HubModel, at every built size (the `hub` model family of
// rtl/hub/manifest.json; sim/rtl_factory.cpp.in makes make_hub_rtl()).
// Its link byte stream and its per-PE pins, in papers_hub's layout.
#pragma once

#include "harness.hpp"
#include "vbits.hpp"

#include <aggnet/papers_regs.hpp>
#include <aggnet/transport.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace aggnet::sim {

class HubModel {
public:
    virtual ~HubModel() = default;
    virtual unsigned pes() const = 0;
    /// rst high for `cycles` clock cycles, then low.
    virtual void reset(unsigned cycles = 3) = 0;
    /// One rising clock edge.
    virtual void tick() = 0;
    virtual uint64_t cycle() const = 0;
    // The link port's byte streams (rtl/link/link_port.v): set before tick().
    virtual void rx(bool valid, uint8_t data) = 0;
    virtual void tx_ready(bool ready) = 0;
    /// link_port's rx_held: a received frame waits to be taken, so the next
    /// frame must not start (sim/link_stream.hpp).  A model that queues the
    /// bytes itself (a board top's UART) never holds.
    virtual bool rx_held() const = 0;
    /// link_port's idle (rtl/link/link_port.v, "Idle"): nothing the link
    /// sees can change until the next byte comes in, so a simulation may stop
    /// its clock.  A model that cannot tell says false (never idle).
    virtual bool idle() const = 0;
    virtual bool tx_valid() const = 0;
    virtual uint8_t tx_data() const = 0;
    // Per-PE pins in register layout (papers_regs.hpp), as papers_hub's.
    virtual void set_data(unsigned pe, reg_t pins) = 0;
    virtual void set_ctrl(unsigned pe, uint8_t pins) = 0;
    virtual reg_t stat(unsigned pe) const = 0;
    virtual reg_t led(unsigned pe) const = 0;
    /// The NAND engine's cable for PE pe (rtl/nand/nand_engine.v, "Pins"):
    /// the 12 lines its PC drives, and the 5 status lines it reads.
    virtual void set_nand_pins(unsigned pe, uint16_t lines) = 0;
    virtual unsigned nand_pins(unsigned pe) const = 0;
    /// GO as the PE's PC would read it (the Busy pin carries /GO).
    bool go(unsigned pe) const { return !((stat(pe) >> papers_regs::STATUS_GO(pes())) & 1); }
    virtual void trace_to(const std::string& path) = 0;
    virtual void close_trace() = 0;
};

template <class V>
class HubRtl final : public HubModel {
public:
    HubRtl(unsigned n, const std::string& name, uint64_t max_cycles)
        : n_(n), w_(papers_regs::reg_width(n)), lw_(papers_regs::mask_width(n) + 6), h_(name, max_cycles) {
        h_->link_rx_valid = 0;
        h_->link_rx_ferr = 0;
        h_->link_tx_ready = 1;
        // No cable on the NAND engine's pins: every line floats high, as a
        // board's pull-ups hold it (rtl/nand/nand_engine.v, "Pins").
        for (unsigned pe = 0; pe < n; ++pe) set_nand_pins(pe, 0xfff);
    }
    unsigned pes() const override { return n_; }
    void reset(unsigned cycles) override { h_.reset(cycles); }
    void tick() override { h_.tick(); }
    uint64_t cycle() const override { return h_.cycle(); }
    void rx(bool valid, uint8_t data) override {
        h_->link_rx_valid = valid;
        h_->link_rx_data = data;
    }
    void tx_ready(bool ready) override { h_->link_tx_ready = ready; }
    bool rx_held() const override { return h_.dut().link_rx_held; }
    bool idle() const override { return h_.dut().link_idle; }
    bool tx_valid() const override { return h_.dut().link_tx_valid; }
    uint8_t tx_data() const override { return h_.dut().link_tx_data; }
    void set_data(unsigned pe, reg_t v) override { put_bits(h_->pe_data, pe * w_, w_, v); }
    void set_ctrl(unsigned pe, uint8_t v) override { put_bits(h_->pe_ctrl, pe * 5, 5, v); }
    reg_t stat(unsigned pe) const override { return get_bits(h_.dut().pe_stat, pe * w_, w_); }
    reg_t led(unsigned pe) const override { return get_bits(h_.dut().pe_led, pe * lw_, lw_); }
    void set_nand_pins(unsigned pe, uint16_t v) override { put_bits(h_->nand_pins_in, pe * 12, 12, v); }
    unsigned nand_pins(unsigned pe) const override { return unsigned(get_bits(h_.dut().nand_pins_out, pe * 5, 5)); }
    void trace_to(const std::string& path) override { h_.trace_to(path); }
    void close_trace() override { h_.close_trace(); }

private:
    unsigned n_, w_, lw_;
    mutable Harness<V> h_;  // Verilated outputs are read through non-const accessors
};

/// The sizes built (AGGNET_HUB_SIZES) and the factory (sim/rtl_factory.cpp.in).
const std::vector<unsigned>& hub_rtl_sizes();
std::unique_ptr<HubModel> make_hub_rtl(unsigned n, const std::string& name = "aggnet_hub",
                                       uint64_t max_cycles = UINT64_MAX);

}  // namespace aggnet::sim
