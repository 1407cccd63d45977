// papers_model.hpp: the C++ reference model of the PAPERS hub, written from
// seed 000 rather than from the RTL:
//   * the PAL22V10 equations of section 3.1 (CLKSET, CLKRST, PEaINT, /PEaGO),
//     evaluated literally per PE a with b, c, d generalised to every other PE;
//   * Table 7 for what GO and INT read as; Table 4's wiring of I0..I2
//     (PE_x I_k = PE_(x+k+1)%N D), generalised to N;
//   * the section 3.2 LED columns (CE, IR, U1, U0, D, S, B);
// plus the hub's documented synchronous timing (2-flop synchronizers, GO
// register, output registers; rtl/papers/papers_hub.v header) and its
// extensions: PROBE; PEs j >= N read as S = 0, B = 0; and presence: control
// pins are taken as the cable carries them (CE active low,
// papers_regs::CABLE_CONTROL_INVERT), and a PE whose CE is 0 is absent: it
// reads as alone and idle (every pin 0 but its own mask bit) and its LED
// column is dark (tools/regmap.py CABLE_ACTIVE_LOW).
#pragma once

#include "papers_pins.hpp"

#include <aggnet/papers_regs.hpp>

#include <vector>

namespace aggnet::sim {

/// One PE's PAL (seed 000 section 3.1), evaluated on the synchronized data
/// and control registers of every PE (register layout, papers_regs.hpp) and
/// PE a's GO register.  PEs j >= N read as S = 0, B = 0.
struct PalOut {
    bool clkset, clkrst, irterm, INT, go_rd, irq, bad;
    reg_t ivec;  ///< I_k at bit k
};

inline PalOut pal(const std::vector<reg_t>& data, const std::vector<uint8_t>& ctrl, bool GO, unsigned a) {
    namespace R = papers_regs;
    const unsigned n = static_cast<unsigned>(data.size());
    const unsigned mw = R::mask_width(n);
    const auto bit = [](reg_t v, unsigned b) { return bool((v >> b) & 1); };
    const auto S = [&](unsigned j) { return j < n && bit(data[j], R::DATA_S); };
    const auto D = [&](unsigned j) { return j < n && bit(data[j], R::DATA_D); };
    const auto IR = [&](unsigned j) { return j < n && bit(data[j], R::DATA_IR); };
    const auto B = [&](unsigned j, unsigned x) { return j < n && bit(data[j], R::DATA_B0 + x); };  // PEjBx
    PalOut o{};
    // CLKSET = (/PEaBa + PEaBa*PEaS) * (/PEaBb + PEbBa*PEbS) * ... * /GO
    // CLKRST = (/PEaBa + PEaBa*/PEaS) * (/PEaBb + PEbBa*/PEbS) * ... * GO
    o.clkset = !GO;
    o.clkrst = GO;
    for (unsigned j = 0; j < mw; ++j) {
        const bool a_names_j = B(a, j);
        o.clkset = o.clkset && (!a_names_j || (B(j, a) && S(j)));
        o.clkrst = o.clkrst && (!a_names_j || (B(j, a) && !S(j)));
    }
    // PEaINT = PEaIR*PEaBa + PEbIR*PEbBa + PEcIR*PEcBa + PEdIR*PEdBa + GO*PEaGI
    for (unsigned j = 0; j < n; ++j) o.irterm = o.irterm || (IR(j) && B(j, a));
    o.INT = o.irterm || (GO && bit(ctrl[a], R::CONTROL_GI));
    // /PEaGO = PEaINT * /(IR terms) + /PEaINT * GO: the pin is PEaGO, the PC
    // inverts Busy, so the register (Table 7's GO) reads the right-hand side.
    o.go_rd = (o.INT && !o.irterm) || (!o.INT && GO);
    o.irq = o.INT && bit(ctrl[a], R::CONTROL_IE);
    const bool probe = bit(data[a], R::DATA_PROBE);
    for (unsigned k = 0; k + 1 < n; ++k) {
        const unsigned src = (a + k + 1) % n;  // Table 4: PEx Ik = PEy D, y = (x+k+1)%4
        if (probe ? (S(src) && B(src, a)) : D(src)) o.ivec |= reg_t(1) << k;
    }
    for (unsigned j = n; j < mw; ++j) o.bad = o.bad || B(a, j);
    return o;
}

class PapersModel final : public PapersPins {
public:
    explicit PapersModel(unsigned n)
        : n_(n), mw_(papers_regs::mask_width(n)), w_(papers_regs::reg_width(n)),
          pins_d_(n), pins_c_(n), d1_(n), d2_(n), c1_(n), c2_(n), go_(n),
          stat_(n), led_(n), irq_(n), bad_(n) {}

    unsigned pes() const override { return n_; }
    void set_data(unsigned pe, reg_t v) override { pins_d_.at(pe) = v & mask_bits(w_); }
    void set_ctrl(unsigned pe, uint8_t v) override { pins_c_.at(pe) = v & 0x1f; }
    reg_t stat(unsigned pe) override { return stat_.at(pe); }
    reg_t led(unsigned pe) override { return led_.at(pe); }
    bool irq(unsigned pe) override { return irq_.at(pe); }
    bool bad(unsigned pe) override { return bad_.at(pe); }
    uint64_t cycle() const override { return cycle_; }
    void trace_to(const std::string&) override {}
    void close_trace() override {}

    void reset(unsigned cycles) override {
        for (unsigned i = 0; i < cycles; ++i) edge(true);
    }
    void tick() override { edge(false); }

    /// The PAL's internal GO register of PE a (for tests).
    bool go_register(unsigned a) const { return go_.at(a); }

private:
    static reg_t mask_bits(unsigned w) { return (reg_t(1) << w) - 1; }

    void edge(bool rst) {
        ++cycle_;
        if (rst) {
            for (unsigned a = 0; a < n_; ++a) {
                d1_[a] = d2_[a] = 0;
                c1_[a] = c2_[a] = papers_regs::CABLE_CONTROL_INVERT;  // absent until sampled
                go_[a] = false;
                stat_[a] = reg_t(1) << papers_regs::STATUS_GO(n_);  // Busy pin = /GO = 1
                led_[a] = 0;
                irq_[a] = bad_[a] = false;
            }
            return;
        }
        // Presence: what the hub sees of each PE after its synchronizers.
        std::vector<reg_t> dq(n_);
        std::vector<uint8_t> cq(n_);
        for (unsigned a = 0; a < n_; ++a) {
            const uint8_t logic = uint8_t(c2_[a] ^ papers_regs::CABLE_CONTROL_INVERT);
            const bool here = (logic >> papers_regs::CONTROL_CE) & 1;
            dq[a] = here ? d2_[a] : reg_t(1) << (papers_regs::DATA_B0 + a);
            cq[a] = here ? logic : 0;
        }
        std::vector<bool> go_next(n_);
        for (unsigned a = 0; a < n_; ++a) {
            const PalOut o = pal(dq, cq, go_[a], a);
            reg_t st = o.ivec << papers_regs::STATUS_I0;
            if (!o.go_rd) st |= reg_t(1) << papers_regs::STATUS_GO(n_);  // Busy pin = PEaGO
            if (o.INT) st |= reg_t(1) << papers_regs::STATUS_INT(n_);
            // Section 3.2 display column: CE, IR, U1, U0, D, S, B(MW-1)..B0.
            const auto cbit = [&](unsigned b) { return reg_t((cq[a] >> b) & 1); };
            const auto dbit = [&](unsigned b) { return reg_t((dq[a] >> b) & 1); };
            reg_t led = (dq[a] >> papers_regs::DATA_B0) & mask_bits(mw_);
            led |= dbit(papers_regs::DATA_S) << mw_;
            led |= dbit(papers_regs::DATA_D) << (mw_ + 1);
            led |= cbit(papers_regs::CONTROL_U0) << (mw_ + 2);
            led |= cbit(papers_regs::CONTROL_U1) << (mw_ + 3);
            led |= dbit(papers_regs::DATA_IR) << (mw_ + 4);
            led |= cbit(papers_regs::CONTROL_CE) << (mw_ + 5);
            stat_[a] = st;
            led_[a] = ((cq[a] >> papers_regs::CONTROL_CE) & 1) ? led : 0;
            irq_[a] = o.irq;
            bad_[a] = o.bad;
            go_next[a] = o.clkset ? true : (o.clkrst ? false : go_[a]);
        }
        for (unsigned a = 0; a < n_; ++a) {
            go_[a] = go_next[a];
            d2_[a] = d1_[a];
            d1_[a] = pins_d_[a];
            c2_[a] = c1_[a];
            c1_[a] = pins_c_[a];
        }
    }

    unsigned n_, mw_, w_;
    std::vector<reg_t> pins_d_;
    std::vector<uint8_t> pins_c_;
    std::vector<reg_t> d1_, d2_;
    std::vector<uint8_t> c1_, c2_;
    std::vector<bool> go_;
    std::vector<reg_t> stat_, led_;
    std::vector<bool> irq_, bad_;
    uint64_t cycle_ = 0;
};

}  // namespace aggnet::sim
