// The board tops themselves (fw/<board>/top.v, every board of tools/boards/),
// Verilated with the PLL model of rtl/common/pll.v (a pass-through: the
// oscillator pin is the hub clock) and their power-on reset, so that what is
// tested is the wiring of each top, not only the hub inside it:
//   * HELLO and INFO over the UART pins: libaggnet's link::LinkClient, its
//     bytes turned into 8N1 bits on the board's uart_rx pin at the top's
//     LINK_BAUD on the board's clock, and the uart_tx pin turned back into
//     bytes; the board reports its N, engines and clock (the top's HUB_KHZ),
//     and the hub's bits on uart_tx are exactly HUB_KHZ*1000/LINK_BAUD
//     cycles long;
//   * every PE's pins against the PAPERS reference (sim/papers_model.hpp,
//     written from the seed's PAL equations), every cycle: the status pins
//     (Busy = /GO, and I0..I2, INT where the board has them) and the status
//     display (every PE's section 3.2 column in turn, page by page, as
//     docs/hardware.md's tables say), under random pin stimulus limited to
//     the pins the board brings out;
//   * a barrier of PEs on their pins and PEs on the UART (libaggnet's Papers
//     over LinkPapersPort, one LinkClient per PE on the one serial line, as
//     one PC on the board's USB cable): the PEs on the pins arrive last, and
//     every PE's Busy pin must show GO in exactly the cycle the reference
//     says, at most 4 hub cycles after the last pin moved; the PEs on the
//     link must not leave before it.
//
// The reference sees what the hub's PAPERS engine sees: a PE's pins, or,
// once the link owns the PE (OWNER, docs/papers_regmap.md), the registers
// the link wrote.  The test learns those from the frames on the wire: a
// WRITE is in the reference from the moment its ACK is on uart_tx.  While a
// write is on its way (request sent, ACK not yet back) the hub may already
// have applied it, so those cycles, and the reference's pipeline depth after
// them, are not compared; the scenario keeps every edge it checks outside
// them (the link PEs are waiting, their WAIT acknowledged, before the pin
// PEs arrive).
#include "besu_link.hpp"
#include "harness.hpp"
#include "hub_rtl.hpp"
#include "link_hub.hpp"
#include "papers_model.hpp"
#include "seed.hpp"
#include "test_board_tops_boards.hpp"  // generated: AGGNET_BOARD_TOPS(X, P)
#include "vbits.hpp"

#include <aggnet/besu.hpp>
#include <aggnet/cop.hpp>
#include <aggnet/scalar.hpp>
#include <aggnet/link_defs.hpp>
#include <aggnet/link_papers.hpp>
#include <aggnet/nand.hpp>
#include <aggnet/papers.hpp>
#include <aggnet/papers_regs.hpp>
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>

using namespace aggnet;
using aggnet::sim::HubModel;
using aggnet::sim::LinkHub;
using std::chrono::microseconds;
using std::chrono::nanoseconds;
namespace D = aggnet::link_defs;
namespace R = aggnet::papers_regs;
namespace B = aggnet::besu;

namespace {

/// A top's integer localparams (N, HUB_KHZ, LINK_BAUD, EN_<ENGINE>, ...) and,
/// in `text`, its string ones (DISPLAY, the status display's layout).
struct Params : std::map<std::string, long> {
    std::map<std::string, std::string> text;
};
void put(Params& p, const char* k, int v) { p[k] = v; }  // (int, not long: a literal 0 is no pointer here)
void put(Params& p, const char* k, const char* v) { p.text[k] = v; }
/// The top's status display layout (its localparam DISPLAY, which it gives papers_display).
std::string display_of(const std::string& board, const Params& p) {
    if (!p.text.count("DISPLAY"))
        throw std::invalid_argument(board + ": its top declares no localparam DISPLAY (papers_display's LAYOUT)");
    return p.text.at("DISPLAY");
}

// ---- which of the seed's pins a top brings out (its port names) ------------
#define AGGNET_HAS_MEMBER(trait, member)                                                         \
    template <class M, class = void>                                                             \
    struct trait : std::false_type {};                                                           \
    template <class M>                                                                           \
    struct trait<M, std::void_t<decltype(std::declval<M&>().member)>> : std::true_type {};
AGGNET_HAS_MEMBER(has_pe_d, pe_d)        // full PAPERS-4 in DB25 order (hx8k, hx1k)
AGGNET_HAS_MEMBER(has_pe_dd, pe_dd)      // PAPERS-4 without PROBE, U0, U1 (ulx3s)
AGGNET_HAS_MEMBER(has_pe_busy, pe_busy)  // barrier only: S, CE, the other PEs' B in, Busy out (icestick, icebreaker)
AGGNET_HAS_MEMBER(has_btn_n, btn_n)      // active-low reset button
AGGNET_HAS_MEMBER(has_btn_fire1, btn_fire1)  // active-high reset button
AGGNET_HAS_MEMBER(has_ledg_n, ledg_n)    // two active-low LEDs and an RGB LED (icebreaker)
AGGNET_HAS_MEMBER(has_uart, uart_rx)     // the link on the board's USB UART (not on the HX1K boards)
AGGNET_HAS_MEMBER(has_pe_rx, pe_rx)      // a UART per PE: tests/test_uart_pe_tops.cpp tests those tops
#undef AGGNET_HAS_MEMBER

constexpr unsigned kW = 8;  // register width at N = 4 (papers_regs::reg_width(4))

/// The status display a top drives, by its layout (docs/hardware.md "The
/// status display"; rtl/papers/papers_display.v): every PE in turn, each in
/// `pages` pages, the LEDs as bit i = LED i lit, from the shown PE's
/// section 3.2 column (bit 0..3 B0..B3, 4 S, 5 D, 6 U0, 7 U1, 8 IR, 9 CE),
/// the PE shown and the page.  Written from the docs' tables, not the RTL.
/// A new layout adds its case; a new board names one in its top.
unsigned display_pages(const std::string& layout) {
    if (layout == "LED8") return 2;
    if (layout == "LED5") return 3;
    if (layout == "RGB") return 5;
    throw std::invalid_argument("display layout " + layout + ": add it to display_pages() and expected_leds()");
}
uint32_t expected_leds(const std::string& layout, reg_t col, unsigned sel, unsigned page) {
    const auto b = [&](unsigned k) { return uint32_t((col >> k) & 1); };
    if (layout == "LED8")  // led[7:6] = PE; {CE, IR, U1, U0, D, S} / {B3..B0}
        return (sel & 3) << 6 | (page == 0 ? uint32_t(col >> 4) & 0x3f : uint32_t(col) & 0xf);
    if (layout == "LED5") {  // red led[3:0], green led[4]
        if (page == 0) return b(9) << 4 | 1u << (sel & 3);       // the PE shown; CE
        if (page == 1) return b(4) << 4 | (uint32_t(col >> 5) & 0xf);  // S; IR, U1, U0, D
        return uint32_t(col) & 0xf;                                // B3..B0
    }
    // RGB: bit 0 red LED, bit 1 green LED, bits 2..4 the RGB LED's red, green, blue
    static const unsigned pair[5][2] = {{9, 4}, {8, 5}, {7, 6}, {1, 0}, {3, 2}};  // {R, G}
    const uint32_t rgb = page == 0 ? (sel == 3 ? 7u : 1u << sel) : 0u;
    return b(pair[page][0]) | b(pair[page][1]) << 1 | rgb << 2;
}

/// What the test reads of a board top beside HubModel (BoardTop below).
class BoardModel : public HubModel {
public:
    virtual const std::string& board() const = 0;
    /// Cycles compared with the reference, mismatches, the first one.
    virtual uint64_t compared() const = 0;
    virtual uint64_t mismatches() const = 0;
    virtual const std::string& first_mismatch() const = 0;
    /// Distinct (PE shown, page) states of the status display on compared cycles.
    virtual size_t display_states() const = 0;
    /// GO rises of any PE's Busy pin that fell on a compared cycle.
    virtual uint64_t compared_go_rises() const = 0;
    /// The last cycle PE a's Busy pin showed GO rising, on the board and in the reference.
    virtual uint64_t go_rise_board(unsigned a) const = 0;
    virtual uint64_t go_rise_ref(unsigned a) const = 0;
    /// Shortest run of one level on uart_tx (cycles), and framing errors seen there.
    virtual uint64_t shortest_tx_run() const = 0;
    virtual uint64_t tx_framing_errors() const = 0;
    /// Link PE a has S up (its SIG write ACKed) and a WAIT acknowledged and
    /// not yet answered; arrivals(a) counts its ACKed SIG writes with S up.
    virtual bool waiting_with_s(unsigned a) const = 0;
    virtual unsigned arrivals(unsigned a) const = 0;
};

/// A Verilated board top as a HubModel whose byte streams are its UART pins:
/// rx() queues bytes that go out as 8N1 bits on uart_rx at LINK_BAUD on the
/// board's clock; the bits on uart_tx come back as tx_valid()/tx_data().  The
/// PE pins are set and read in papers_hub's register layout (only the pins
/// the top brings out; the others read 0).  Every tick also ticks the PAPERS
/// reference and compares every PE's status pins and PE0's LEDs with it.
template <class V>
class BoardTop final : public BoardModel {
public:
    BoardTop(const std::string& board, const Params& p, uint64_t max_cycles)
        : board_(board), n_(unsigned(p.at("N"))), hz_(uint64_t(p.at("HUB_KHZ")) * 1000),
          baud_(p.count("LINK_BAUD") ? uint64_t(p.at("LINK_BAUD")) : 1), h_(board + "_top", max_cycles), ref_(n_), pins_d_(n_), pins_c_(n_),
          sh_(n_), pending_(n_), waiting_(n_), arrivals_(n_), go_board_(n_), go_ref_(n_) {
        if (n_ != 4) throw std::invalid_argument(board + ": the board tops are PAPERS-4 (N = 4)");
        layout_ = display_of(board, p);
        pages_ = display_pages(layout_);
        if constexpr (has_pe_d<V>::value) {
            data_mask_ = 0xff, ctrl_mask_ = 0x0f, stat_mask_ = 0xf8;
        } else if constexpr (has_pe_dd<V>::value) {
            data_mask_ = 0xfd, ctrl_mask_ = 0x0c, stat_mask_ = 0xf8;
        } else {
            static_assert(has_pe_busy<V>::value, "a board top with pins this test does not know");
            // The PE's own mask bit has no pin (the top ties it to 1); CE does.
            data_mask_ = 0xf8, ctrl_mask_ = 1u << R::CONTROL_CE, stat_mask_ = 0x80, own_bit_tied_ = true;
        }
        // Every PE starts alone and not at a barrier (mask = itself, S low), as
        // Papers' attach leaves a port: an empty mask would make GO toggle
        // every clock (the PAL's CLKSET and CLKRST both hold), in a phase
        // that depends on when the por released the hub.
        for (unsigned a = 0; a < n_; ++a) pins_d_[a] = reg_t(1) << (R::DATA_B0 + a);
        if constexpr (has_uart<V>::value) {
            if (!p.count("LINK_BAUD")) throw std::invalid_argument(board + ": a top with a UART declares LINK_BAUD");
            h_->uart_rx = 1;
        }
        if constexpr (has_btn_n<V>::value) h_->btn_n = 1;
        if constexpr (has_btn_fire1<V>::value) h_->btn_fire1 = 0;
        for (unsigned a = 0; a < n_; ++a) drive(a);
    }

    // ---- HubModel ------------------------------------------------------------
    unsigned pes() const override { return n_; }
    /// A board top has no rst pin: its por holds the hub in reset for its
    /// first cycles.  Idle that long, then start the reference in step.
    void reset(unsigned cycles) override {
        for (unsigned i = 0; i < cycles + kPorCycles; ++i) h_.tick();
        ref_.reset(3);
        cmp_from_ = h_.cycle() + kSettle;
    }
    void tick() override {
        if constexpr (has_uart<V>::value) h_->uart_rx = ser_line();
        h_.tick();
        for (unsigned a = 0; a < n_; ++a) {
            const reg_t own = own_bit_tied_ ? reg_t(1) << (R::DATA_B0 + a) : 0;
            const reg_t d = sh_[a].owner ? sh_[a].data() : (pins_d_[a] & data_mask_) | own;
            if (((d >> R::DATA_B0) & 0xf) == 0) empty_at_[a] = h_.cycle();
            ref_.set_data(a, d);
            // Control at the cable's levels (CE active low); the link's CTRL
            // register holds logic levels.
            ref_.set_ctrl(a, sh_[a].owner ? uint8_t(sh_[a].ctrl ^ R::CABLE_CONTROL_INVERT)
                                          : uint8_t(pins_c_[a] & ctrl_mask_));
        }
        ref_.tick();
        if constexpr (has_uart<V>::value) deserialize(h_.dut().uart_tx);
        compare();
    }
    uint64_t cycle() const override { return h_.cycle(); }
    void rx(bool valid, uint8_t data) override {
        if (!valid) return;
        serq_.push_back(data);
        if (req_.push(data)) on_request(req_.frame());
    }
    /// The serializer queues every byte: nothing to hold back.
    bool rx_held() const override { return false; }
    bool idle() const override { return false; }  // the UART and its clock: cannot tell
    /// A UART cannot hold the hub's transmitter back: the host always reads.
    void tx_ready(bool) override {}
    bool tx_valid() const override { return out_valid_; }
    uint8_t tx_data() const override { return out_byte_; }
    void set_data(unsigned a, reg_t v) override {
        pins_d_.at(a) = v;
        drive(a);
    }
    void set_ctrl(unsigned a, uint8_t v) override {
        pins_c_.at(a) = v;
        drive(a);
    }
    reg_t stat(unsigned a) const override {
        V& m = h_.dut();
        if constexpr (has_pe_busy<V>::value) return reg_t((m.pe_busy >> a) & 1) << (kW - 1);
        else return sim::get_bits(m.pe_st, a * 5, 5) << R::STATUS_I0;
    }
    // The board tops carry PAPERS on their cables and no other engine's
    // pins: HubModel's accessors of the generated engine pins throw.
    /// A board top shows every PE's column in turn (leds()), not one column
    /// per PE: compare() checks the display against the reference.
    reg_t led(unsigned) const override { return 0; }
    /// The LEDs lit, in expected_leds()'s bit order.
    uint32_t leds() const {
        V& m = h_.dut();
        if constexpr (has_ledg_n<V>::value)
            return uint32_t(!m.ledr_n) | uint32_t(!m.ledg_n) << 1 | (uint32_t(~m.rgb_n) & 7u) << 2;
        else
            return uint32_t(m.led);
    }
    void trace_to(const std::string& path) override { h_.trace_to(path); }
    void close_trace() override { h_.close_trace(); }

    // ---- BoardModel ------------------------------------------------------------
    const std::string& board() const override { return board_; }
    uint64_t compared() const override { return compared_; }
    size_t display_states() const override { return shown_.size(); }
    uint64_t mismatches() const override { return mismatches_; }
    const std::string& first_mismatch() const override { return first_mismatch_; }
    uint64_t compared_go_rises() const override { return compared_go_rises_; }
    uint64_t go_rise_board(unsigned a) const override { return go_board_.at(a); }
    uint64_t go_rise_ref(unsigned a) const override { return go_ref_.at(a); }
    uint64_t shortest_tx_run() const override { return min_run_; }
    uint64_t tx_framing_errors() const override { return ferr_; }
    bool waiting_with_s(unsigned a) const override {
        return waiting_.at(a) && sh_.at(a).owner && ((sh_.at(a).sig >> R::DATA_S) & 1);
    }
    unsigned arrivals(unsigned a) const override { return arrivals_.at(a); }

private:
    static constexpr unsigned kPorCycles = 32;  // por BITS = 4: 2 + 16 cycles, and margin
    static constexpr uint64_t kSettle = 6;      // the reference's pipeline: 2 sync flops, GO, outputs

    struct Shadow {  // what the link wrote into the PAPERS window for a PE
        bool owner = false;
        uint8_t sig = 0, ctrl = 1u << R::CONTROL_CE;  // CTRL's reset value
        uint32_t mask = 0;
        reg_t data() const { return reg_t(sig & 0xf) | reg_t(mask & 0xf) << R::DATA_B0; }
    };
    struct Pending {
        bool on = false;
        uint8_t seq = 0;
        uint16_t addr = 0;
        uint32_t value = 0;
    };

    void drive(unsigned a) {
        V& m = h_.dut();
        const reg_t d = pins_d_[a];
        const uint8_t c = pins_c_[a];
        const auto bit = [](reg_t v, unsigned b) { return reg_t((v >> b) & 1); };
        if constexpr (has_pe_d<V>::value) {
            sim::put_bits(m.pe_d, a * 8, 8, d & 0xff);
            sim::put_bits(m.pe_c, a * 4, 4, c & 0x0f);
        } else if constexpr (has_pe_dd<V>::value) {
            sim::put_bits(m.pe_dd, a, 1, bit(d, R::DATA_D));
            sim::put_bits(m.pe_ir, a, 1, bit(d, R::DATA_IR));
            sim::put_bits(m.pe_s, a, 1, bit(d, R::DATA_S));
            sim::put_bits(m.pe_b, a * 4, 4, (d >> R::DATA_B0) & 0xf);
            sim::put_bits(m.pe_gi, a, 1, bit(c, R::CONTROL_GI));
            sim::put_bits(m.pe_ce, a, 1, bit(c, R::CONTROL_CE));
        } else {
            sim::put_bits(m.pe_s, a, 1, bit(d, R::DATA_S));
            sim::put_bits(m.pe_ce, a, 1, bit(c, R::CONTROL_CE));
            for (unsigned k = 0, j = 0; k < 4; ++k)  // the other PEs' bits, in PE order
                if (k != a) sim::put_bits(m.pe_bx, a * 3 + j++, 1, bit(d, R::DATA_B0 + k));
        }
    }

    // 8N1 onto uart_rx: bit k of a character covers cycles [k*hz/baud, (k+1)*hz/baud).
    int ser_line() {
        const uint64_t now = h_.cycle();
        if (ser_busy_ && (now - ser_start_) * baud_ / hz_ >= 10) ser_busy_ = false;
        if (!ser_busy_ && !serq_.empty()) {
            ser_busy_ = true;
            ser_start_ = now;
            ser_byte_ = serq_.front();
            serq_.pop_front();
        }
        if (!ser_busy_) return 1;
        const uint64_t k = (now - ser_start_) * baud_ / hz_;
        return k == 0 ? 0 : k <= 8 ? (ser_byte_ >> (k - 1)) & 1 : 1;
    }

    // uart_tx back into bytes: sample bit k at (k + 1/2) bit times after the start edge.
    void deserialize(int line) {
        const uint64_t now = h_.cycle();
        out_valid_ = false;
        if (line != last_line_) {
            if (last_edge_ && now - last_edge_ < min_run_) min_run_ = now - last_edge_;
            last_edge_ = now;
            last_line_ = line;
        }
        if (!des_busy_) {
            if (line == 0) des_busy_ = true, des_start_ = now, des_bit_ = 0, des_byte_ = 0;
            return;
        }
        const uint64_t at = des_start_ + ((2 * des_bit_ + 1) * hz_) / (2 * baud_);
        if (now < at) return;
        if (des_bit_ == 0 && line != 0) {  // a glitch, not a start bit
            des_busy_ = false;
            return;
        }
        if (des_bit_ >= 1 && des_bit_ <= 8) des_byte_ |= uint8_t(line << (des_bit_ - 1));
        if (des_bit_ == 9) {
            des_busy_ = false;
            if (line != 1) {
                ++ferr_;
                return;
            }
            out_valid_ = true;
            out_byte_ = des_byte_;
            if (rep_.push(des_byte_)) on_reply(rep_.frame());
            return;
        }
        ++des_bit_;
    }

    // ---- the link PEs' PAPERS registers, from the frames on the wire ------------
    static bool papers_reg(uint16_t addr, uint16_t reg) { return addr == uint16_t(D::WIN_PAPERS << 12 | reg); }
    void on_request(const link::Frame& f) {
        if (f.pe >= n_ || f.op != D::OP_WRITE) return;
        Pending& p = pending_[f.pe];
        p.on = true, p.seq = f.seq, p.addr = f.addr, p.value = f.value(0, f.len);
        unsettled_at_ = h_.cycle();
    }
    void on_reply(const link::Frame& f) {
        if (f.pe >= n_) return;
        Pending& p = pending_[f.pe];
        Shadow& s = sh_[f.pe];
        if (p.on && f.seq == p.seq && f.addr == p.addr && (f.op == D::OP_ACK || f.op == D::OP_ERR)) {
            p.on = false;
            unsettled_at_ = h_.cycle();
            if (f.op == D::OP_ERR) return;
            if (papers_reg(f.addr, R::W_SIG)) {
                s.sig = uint8_t(p.value & 0xf), s.owner = true;
                if ((s.sig >> R::DATA_S) & 1) ++arrivals_[f.pe];
            } else if (papers_reg(f.addr, R::W_MASK0)) {
                s.mask = p.value, s.owner = true;
            } else if (papers_reg(f.addr, R::W_CTRL)) {
                s.ctrl = uint8_t(p.value & 0x1f), s.owner = true;
            } else if (papers_reg(f.addr, R::W_OWNER)) {
                s.owner = p.value & 1;
            }
            return;
        }
        if (papers_reg(f.addr, R::W_STAT)) {
            if (f.op == D::OP_ACK) waiting_[f.pe] = true;      // WAIT accepted, pending
            else if (f.op == D::OP_DATA) waiting_[f.pe] = false;
        }
    }

    // A PE whose mask is empty has a GO that toggles every clock (CLKSET and
    // CLKRST both hold), in a phase set by when the mask emptied: a link
    // write's exact cycle the test does not know.  Its own status is not
    // compared then (nobody else's GO depends on its GO), nor for the
    // reference's pipeline depth after.
    void compare() {
        const uint64_t now = h_.cycle();
        bool settled = now >= cmp_from_ && now >= unsettled_at_ + kSettle;
        for (const Pending& p : pending_) settled = settled && !p.on;
        bool pe_ok[4];
        for (unsigned a = 0; a < n_; ++a) {
            pe_ok[a] = settled && now >= empty_at_[a] + kSettle;
            const bool gb = go(a), gr = !((ref_.stat(a) >> (kW - 1)) & 1);
            if (gb && !last_go_b_[a]) {
                go_board_[a] = now;
                if (pe_ok[a]) ++compared_go_rises_;
            }
            if (gr && !last_go_r_[a]) go_ref_[a] = now;
            last_go_b_[a] = gb, last_go_r_[a] = gr;
        }
        // The status display: the PE and page it shows (papers_display's
        // registers), and its LEDs against that PE's reference column.
        // papers_display has two register stages (column, LED pins), so the
        // pins show what was selected two cycles before: compared when all
        // three cycles are settled.
        V& m = h_.dut();
        const unsigned sel = m.rootp->top__DOT__u_display__DOT__sel, page = m.rootp->top__DOT__u_display__DOT__page;
        const uint32_t lit = leds();
        const Want due = wants_[0];
        wants_[0] = wants_[1];
        wants_[1] = {expected_leds(layout_, ref_.led(sel % n_), sel % n_, page % pages_), settled};
        if (!settled) return;
        ++compared_;
        if (sel >= n_ || page >= pages_) mismatch("display state (PE, page)", sel, page);
        shown_.insert(sel * 8 + page);
        if (due.settled && wants_[0].settled && due.leds != lit) mismatch("LEDs (the display)", lit, due.leds);
        for (unsigned a = 0; a < n_; ++a) {
            if (!pe_ok[a]) continue;
            const reg_t want = ref_.stat(a) & stat_mask_, got = stat(a);
            if (want != got) mismatch("PE" + std::to_string(a) + " status pins", got, want);
        }
    }
    void mismatch(const std::string& what, reg_t got, reg_t want) {
        if (!mismatches_++) {
            std::ostringstream o;
            o << board_ << ": cycle " << h_.cycle() << ": " << what << " 0x" << std::hex << uint64_t(got)
              << ", the PAPERS reference says 0x" << uint64_t(want);
            first_mismatch_ = o.str();
        }
    }

    std::string board_, layout_;
    unsigned n_;
    uint64_t hz_, baud_;
    mutable sim::Harness<V> h_;
    sim::PapersModel ref_;
    unsigned pages_ = 1;
    std::set<unsigned> shown_;  // sel * 8 + page
    struct Want {
        uint32_t leds = 0;     // the LEDs expected two cycles later
        bool settled = false;  // computed on a settled cycle
    };
    Want wants_[2];  // [0]: due next cycle
    reg_t data_mask_ = 0, stat_mask_ = 0;
    uint8_t ctrl_mask_ = 0;
    bool own_bit_tied_ = false;  // reduced tops: PE a's own mask bit is 1, its pin carries CE
    std::vector<reg_t> pins_d_;
    std::vector<uint8_t> pins_c_;
    std::vector<Shadow> sh_;
    std::vector<Pending> pending_;
    std::vector<bool> waiting_;
    std::vector<unsigned> arrivals_;
    std::vector<uint64_t> go_board_, go_ref_;
    bool last_go_b_[4] = {}, last_go_r_[4] = {};
    uint64_t empty_at_[4] = {};
    uint64_t cmp_from_ = UINT64_MAX, unsettled_at_ = 0;
    uint64_t compared_ = 0, mismatches_ = 0, compared_go_rises_ = 0;
    std::string first_mismatch_;
    link::Decoder req_, rep_;
    // serializer (host -> uart_rx)
    std::deque<uint8_t> serq_;
    bool ser_busy_ = false;
    uint64_t ser_start_ = 0;
    uint8_t ser_byte_ = 0;
    // deserializer (uart_tx -> host)
    bool des_busy_ = false, out_valid_ = false;
    uint64_t des_start_ = 0, des_bit_ = 0;
    uint8_t des_byte_ = 0, out_byte_ = 0;
    int last_line_ = 1;
    uint64_t last_edge_ = 0, min_run_ = UINT64_MAX, ferr_ = 0;
};

/// Every board of tools/boards/ (or those named in AGGNET_BOARDS, comma
/// separated): fn(board, params of its top, factory).
using Factory = std::function<std::unique_ptr<BoardModel>(uint64_t max_cycles)>;
using BoardFn = std::function<void(const std::string&, const Params&, const Factory&)>;
/// No AGGNET_BOARDS filter: every board of tools/boards/ is run.
bool all_boards() {
    const char* env = std::getenv("AGGNET_BOARDS");
    return !env || !*env;
}
bool board_selected(const std::string& b) {
    const char* env = std::getenv("AGGNET_BOARDS");
    if (!env || !*env) return true;
    return ("," + std::string(env) + ",").find("," + b + ",") != std::string::npos;
}
/// The PAPERS-cable tops only: those with a UART per PE have their own suite.
template <class V>
void run_board(const char* b, const Params& p, const BoardFn& fn) {
    if constexpr (!has_pe_rx<V>::value)
        fn(b, p, [&](uint64_t mc) { return std::make_unique<BoardTop<V>>(b, p, mc); });
}
void for_each_board(const BoardFn& fn) {
#define AGGNET_P(k, v) put(p, #k, v)
#define AGGNET_X(b, V, ...)                                                                       \
    if (board_selected(#b)) {                                                                     \
        Params p;                                                                                 \
        (void)(__VA_ARGS__);                                                                      \
        run_board<V>(#b, p, fn);                                                                  \
    }
    AGGNET_BOARD_TOPS(AGGNET_X, AGGNET_P)
#undef AGGNET_X
#undef AGGNET_P
}

/// The top builds engine EN_<name> in (its localparam, e.g. EN_NAND = 1).
bool builds(const Params& p, const char* en) { return p.count(en) && p.at(en) != 0; }

/// HELLO's engine bitmap for a top: INFO and PAPERS always, every other
/// engine of link_defs' WINDOWS whose EN_<ENGINE> localparam is set.
uint32_t built_engines(const Params& p) {
    uint32_t m = 1u << D::WIN_INFO | 1u << D::WIN_PAPERS;
    for (const D::Window& w : D::WINDOWS)
        if (builds(p, ("EN_" + std::string(w.name)).c_str())) m |= 1u << w.win;
    return m;
}

/// The top carries the link (the HX1K boards cannot: fw/icestick/top.v).
bool has_link(const std::string& board, const Params& p) {
    if (p.count("LINK_BAUD")) return true;
    std::printf("%s: no link on this board's top (no LINK_BAUD): only its pins are tested\n", board.c_str());
    return false;
}

uint64_t ns_per_cycle(const Params& p) { return uint64_t((1000000 + p.at("HUB_KHZ") / 2) / p.at("HUB_KHZ")); }

std::string device(const std::string& board, const Params& p) {
    return "serial:" + board + "-uart@" + std::to_string(p.at("LINK_BAUD"));
}

/// Resends after 4000 bit times: every other PE's frames may be queued ahead
/// of a reply on the one line.
link::LinkConfig cfg(const Params& p) {
    const auto bit = nanoseconds(1000000000LL / p.at("LINK_BAUD"));
    link::LinkConfig c;
    c.resend_timeout = bit * 4000;
    c.max_attempts = 8;
    c.idle_timeout = bit * 400;
    return c;
}

}  // namespace

TEST_CASE("board tops: HELLO and INFO over the UART pins report the board's size, engines and clock",
          "[boards][link]") {
    for_each_board([](const std::string& board, const Params& p, const Factory& make) {
        if (!has_link(board, p)) return;
        INFO(board << ": HUB_KHZ " << p.at("HUB_KHZ") << ", LINK_BAUD " << p.at("LINK_BAUD"));
        auto model = make(50'000'000);
        auto* top = model.get();
        LinkHub hub(std::move(model), ns_per_cycle(p));
        for (unsigned pe = 0; pe < 4; ++pe) {  // one client per PE, as LinkPapersPort has
            link::LinkClient c(hub.endpoint(pe), device(board, p) + "?pe=" + std::to_string(pe), cfg(p));
            const link::HelloInfo h = c.hello(pe);
            CHECK(h.version == D::VERSION);
            CHECK(h.hub_pes == unsigned(p.at("N")));
            CHECK(h.first_pe == 0);
            CHECK(h.port_pes == unsigned(p.at("N")));  // one PC on the cable can be every PE
            // A top that builds an engine in says so (localparam EN_<ENGINE>).
            CHECK(h.engines == built_engines(p));
            CHECK(h.clk_hz == uint64_t(p.at("HUB_KHZ")) * 1000);
        }
        link::LinkClient c(hub.endpoint(0), device(board, p) + "?pe=0", cfg(p));
        CHECK(c.read(0, uint16_t(D::WIN_INFO << 12 | D::INFO_MAGIC), 4) == D::INFO_MAGIC_VALUE);
        CHECK(c.read(0, uint16_t(D::WIN_INFO << 12 | D::INFO_CLK_KHZ), 4) == uint32_t(p.at("HUB_KHZ")));
        CHECK(c.read(0, uint16_t(D::WIN_INFO << 12 | D::INFO_STAT + D::STAT_UART_FERR), 2) == 0);
        CHECK(c.read(0, uint16_t(D::WIN_INFO << 12 | D::INFO_STAT + D::STAT_CRC_ERR), 2) == 0);
        auto lk = hub.guard();
        auto& b = *top;
        // The hub's bits are exactly one bit time of LINK_BAUD long on the board's clock.
        CHECK(b.tx_framing_errors() == 0);
        CHECK(b.shortest_tx_run() == uint64_t(p.at("HUB_KHZ")) * 1000 / uint64_t(p.at("LINK_BAUD")));
        // Nobody touched the pins: every PE idles, and the pins agree with the reference.
        INFO(b.first_mismatch());
        CHECK(b.mismatches() == 0);
        CHECK(b.compared() > 1000);
    });
}

TEST_CASE("board tops: every PE's pins against the PAPERS reference, cycle by cycle", "[boards][papers]") {
    const uint64_t seed = aggnet::sim::test_seed("board_tops_pins");
    for_each_board([&](const std::string& board, const Params& p, const Factory& make) {
        INFO(board);
        auto top = make(10'000'000);
        top->reset(3);
        std::mt19937_64 rng(seed ^ std::hash<std::string>{}(board));
        // Barriers need masks that name each other: draw masks from a few
        // partitions, S and the other bits at random, each PE changing its
        // pins now and then as a PC would (every pin, carried or not: the
        // board drops what it does not bring out, and so must the check).
        const reg_t parts[] = {0xf, 0x3, 0xc, 0x5, 0xa, 0x6, 0x9};
        std::vector<reg_t> mask(4, 0xf);
        uint64_t rises = 0;
        std::vector<bool> last(4);
        for (unsigned i = 0; i < 40000; ++i) {
            if (rng() % 8 == 0) {
                const unsigned a = unsigned(rng() % 4);
                if (rng() % 16 == 0) {
                    const reg_t part = parts[rng() % 7];
                    for (unsigned q = 0; q < 4; ++q) mask[q] = (part >> q) & 1 ? part : (0xf & ~part);
                }
                reg_t d = reg_t(rng() % 8) | (reg_t(rng() % 2) << R::DATA_S) | mask[a] << R::DATA_B0;
                if (rng() % 32 == 0) d ^= reg_t(1) << (R::DATA_B0 + rng() % 4);  // a mask that disagrees
                top->set_data(a, d);
                if (rng() % 8 == 0) top->set_ctrl(a, uint8_t(rng() % 32));
            }
            top->tick();
            for (unsigned a = 0; a < 4; ++a) {
                if (top->go(a) && !last[a]) ++rises;
                last[a] = top->go(a);
            }
        }
        INFO(top->first_mismatch());
        CHECK(top->mismatches() == 0);
        CHECK(top->compared() > 39000);
        // The display scanned every PE and page (PAGE_CYCLES = 97 in this
        // simulation: rtl/hub/manifest.json board_args).
        CHECK(top->display_states() == 4 * display_pages(display_of(board, p)));
        CHECK(rises > 100);  // barriers did happen
        CHECK(top->compared_go_rises() == rises);
    });
}

TEST_CASE("board tops: a barrier of PEs on the pins and PEs on the UART completes when the reference says",
          "[boards][papers][link]") {
    const uint64_t seed = aggnet::sim::test_seed("board_tops_mixed");
    for_each_board([&](const std::string& board, const Params& p, const Factory& make) {
        if (!has_link(board, p)) return;
        std::mt19937_64 rng(seed ^ std::hash<std::string>{}(board));
        // Which PEs are on the UART: a non-empty proper subset.
        unsigned on_link = 0;
        while (on_link == 0 || on_link == 0xf) on_link = unsigned(rng() % 16);
        std::vector<unsigned> link_pes, pin_pes;
        for (unsigned a = 0; a < 4; ++a) (((on_link >> a) & 1) ? link_pes : pin_pes).push_back(a);
        INFO(board << ": PEs on the UART: mask 0x" << std::hex << on_link);
        auto model = make(100'000'000);
        BoardModel& b = *model;
        LinkHub hub(std::move(model), ns_per_cycle(p));
        const unsigned rounds = 3;
        const auto to = std::chrono::milliseconds(200);
        std::vector<std::vector<uint64_t>> leave(4);
        sim::PeThreads th;
        for (unsigned pe : link_pes)
            th.start([&, pe] {
                link::LinkClient c(hub.endpoint(pe), device(board, p), cfg(p));
                LinkPapersPort port(c, hub.endpoint(pe), pe);
                // pin by pin: the reference follows SIG from the frames
                port.use_sync(false);
                Papers papers(port, to);
                papers.enqueue(0xf, to);
                for (unsigned r = 0; r < rounds; ++r) {
                    papers.wait(to);
                    leave[pe].push_back(hub.cycle());
                }
            });
        // The PEs on the pins, driven here: mask all, S low.
        auto& ep = hub.endpoint(pin_pes[0]);  // its clock: nobody talks to a PE on its pins
        auto sleep = [&](nanoseconds d) {
            uint8_t buf[64];
            const auto until = ep.now() + d;
            while (ep.now() < until) ep.recv(buf, sizeof buf, until);
        };
        auto until = [&](const std::function<bool()>& cond, const char* what) {
            const auto end = ep.now() + to;
            for (;;) {
                {
                    auto lk = hub.guard();
                    if (cond()) return true;
                }
                if (ep.now() >= end) {
                    FAIL_CHECK(board << ": never " << what);
                    return false;
                }
                sleep(microseconds(2));
            }
        };
        const reg_t mask_pins = reg_t(0xf) << R::DATA_B0;
        {
            auto lk = hub.guard();
            for (unsigned a : pin_pes) hub.pins().set_data(a, mask_pins);
        }
        std::vector<uint64_t> last_pin(rounds);
        bool ok = true;
        for (unsigned r = 0; r < rounds && ok; ++r) {
            // Every PE on the UART has arrived: S written, its WAIT for GO pending.
            ok = until([&] {
                for (unsigned a : link_pes)
                    if (b.arrivals(a) != r + 1 || !b.waiting_with_s(a)) return false;
                return true;
            }, "saw every link PE arrive");
            if (!ok) break;
            // Then the PEs on the pins arrive, one by one, a little apart.
            std::vector<unsigned> order = pin_pes;
            std::shuffle(order.begin(), order.end(), rng);
            for (unsigned a : order) {
                sleep(nanoseconds(ns_per_cycle(p) * (rng() % 200)));
                auto lk = hub.guard();
                hub.pins().set_data(a, mask_pins | reg_t(1) << R::DATA_S);
                last_pin[r] = hub.pins().cycle();  // the edge it is sampled at
            }
            ok = until([&] {
                for (unsigned a = 0; a < 4; ++a)
                    if (!b.go(a)) return false;
                return true;
            }, "showed GO on every Busy pin");
            if (!ok) break;
            {
                auto lk = hub.guard();
                for (unsigned a = 0; a < 4; ++a) {
                    INFO("round " << r << " PE" << a << ": last pin PE arrived at cycle " << last_pin[r]);
                    CHECK(b.go_rise_board(a) == b.go_rise_ref(a));
                    CHECK(b.go_rise_board(a) > last_pin[r]);
                    CHECK(b.go_rise_board(a) - last_pin[r] <= 4);  // BRIEF: at most 4 hub cycles, pin to pin
                }
            }
            // The PEs on the pins see GO and withdraw S, as the seed's P_OUT(p) does.
            for (unsigned a : order) {
                sleep(nanoseconds(ns_per_cycle(p) * (rng() % 200)));
                auto lk = hub.guard();
                hub.pins().set_data(a, mask_pins);
            }
        }
        th.join();
        auto lk = hub.guard();
        INFO(b.first_mismatch());
        CHECK(b.mismatches() == 0);
        CHECK(b.compared_go_rises() >= 4 * rounds);
        for (unsigned a : link_pes) {
            REQUIRE(leave[a].size() == rounds);
            for (unsigned r = 0; r < rounds; ++r) CHECK(leave[a][r] > last_pin[r]);  // nobody leaves early
        }
    });
}

TEST_CASE("board tops with the NAND engine: seed 002 operations over the board's UART, every PE on the link",
          "[boards][nand]") {
    unsigned boards_with_nand = 0;
    for_each_board([&](const std::string& board, const Params& p, const Factory& make) {
        if (!has_link(board, p) || !builds(p, "EN_NAND")) return;
        ++boards_with_nand;
        const uint64_t seed = aggnet::sim::test_seed(("board_nand_" + board).c_str());
        const unsigned n = unsigned(p.at("N"));
        LinkHub hub(make(200'000'000), ns_per_cycle(p));
        std::mt19937_64 g(seed);
        std::vector<uint64_t> v(n);
        for (auto& x : v) x = g() & 0xffff;
        const uint64_t want_max = *std::max_element(v.begin(), v.end());
        std::vector<uint64_t> got_max(n), got_bc(n);
        sim::on_pe_threads(n, [&](unsigned pe) {
            link::LinkClient c(hub.endpoint(pe), device(board, p) + "?pe=" + std::to_string(pe), cfg(p));
            NandPe q(c, pe, std::chrono::seconds(2));
            q.barrier();
            got_max[pe] = q.max_u(v[pe], 16);
            got_bc[pe] = q.broadcast(n - 1, pe == n - 1 ? v[pe] : 0, 16);
        });
        INFO(board << ", seed " << seed);
        for (unsigned pe = 0; pe < n; ++pe) {
            CHECK(got_max[pe] == want_max);
            CHECK(got_bc[pe] == v[n - 1]);
        }
    });
    // fw/hx8k/top.v builds it in (EN_NAND = 1); this runs on every top that does.
    if (all_boards()) CHECK(boards_with_nand > 0);
    std::printf("[boards] %u board tops with the NAND engine\n", boards_with_nand);
}

TEST_CASE("board tops with the BESU engine: barr over the board's UART, then barriers and a eureka of every PE",
          "[boards][besu]") {
    unsigned boards_with_besu = 0;
    for_each_board([&](const std::string& board, const Params& p, const Factory& make) {
        if (!has_link(board, p) || !builds(p, "EN_BESU")) return;
        ++boards_with_besu;
        const unsigned n = unsigned(p.at("N")), nb = unsigned(p.at("BESU_NB"));
        const std::string dev = device(board, p);
        const auto step = std::chrono::seconds(5);  // on the hub's clock (LinkHub)
        auto model = make(2'000'000'000);
        auto* top = model.get();
        LinkHub hub(std::move(model), ns_per_cycle(p));
        const unsigned bar = nb - 1, eur = nb - 2;  // the two partitions: every PE, rooted at the last node
        {
            sim::BesuNodes all(hub, n, dev, cfg(p), step);
            const B::Mesh m = all.nodes[0]->mesh();
            INFO(board << ": " << m.X << "x" << m.Y << "x" << m.Z << " mesh, " << nb << " BESUs per node");
            REQUIRE(m.nodes() == n);  // one node per PE
            CHECK(all.nodes[0]->besus() == nb);
            unsigned links = 0;
            for (unsigned i = 0; i < n; ++i)
                for (unsigned d = 0; d < 6; d += 2) links += m.nbr(i, d) >= 0;
            // seed 001's offline diagnostic, as `aggnet barr serial:...` runs it on the board
            const B::BarrReport r = B::barr(all.nodes, B::regs::DEFAULT_KEY, step);
            for (const auto& l : r.failures) UNSCOPED_INFO(l);
            CHECK(r.ok());
            CHECK(r.checks == n + links + nb + n);  // registers per node, links, BESUs, error checks
            std::vector<unsigned> everyone(n);
            for (unsigned i = 0; i < n; ++i) everyone[i] = i;
            B::load(all.nodes, bar, B::plan(m, everyone, n - 1));
            B::load(all.nodes, eur, B::plan(m, everyone, 0));
        }
        constexpr unsigned kRounds = 4;
        std::atomic<unsigned> arrived[kRounds] = {};
        std::atomic<unsigned> early{0};
        sim::run_besu_pes(
            hub, n, dev, cfg(p),
            [&](unsigned pe, B::Node& nd) {
                const B::Wait how[3] = {B::Wait::Polled, B::Wait::Hub, B::Wait::Interrupt};
                for (unsigned k = 0; k < kRounds; ++k) {
                    ++arrived[k];
                    const unsigned s = nd.barrier(bar, how[(pe + k) % 3]);
                    if (arrived[k] != n) ++early;
                    CHECK(s == ((pe + k) % 3 == 2 ? B::S_BAR_I : B::S_BAR));
                }
                // a eureka from the last PE reaches every PE; the barrier before
                // it says every PE armed its interrupt first
                nd.arm_eureka_interrupt(eur);
                nd.barrier(bar);
                if (pe == n - 1) nd.eureka(eur);
                CHECK(nd.wait_eureka(eur, B::Wait::Interrupt) == B::S_EUR_I);
                CHECK(nd.error_reg() == 0);
            },
            step);
        CHECK(early == 0);
        // the PAPERS pins idled throughout, as the reference says
        auto lk = hub.guard();
        INFO(top->first_mismatch());
        CHECK(top->mismatches() == 0);
    });
    std::printf("[boards] %u board tops with the BESU engine\n", boards_with_besu);
    if (all_boards()) CHECK(boards_with_besu > 0);  // fw/ulx3s/top.v (EN_BESU = 1)
}

TEST_CASE("board tops with the scalar engine: a token round the ring and a wildcard receive over the UART",
          "[boards][scalar]") {
    unsigned boards_with_scalar = 0;
    for_each_board([&](const std::string& board, const Params& p, const Factory& make) {
        if (!has_link(board, p) || !builds(p, "EN_SCALAR")) return;
        ++boards_with_scalar;
        const unsigned n = unsigned(p.at("N"));
        const std::string dev = device(board, p);
        auto model = make(2'000'000'000);
        LinkHub hub(std::move(model), ns_per_cycle(p));
        constexpr unsigned kLaps = 3;
        constexpr uint16_t kToken = 7, kDone = 9;
        // seed 003 chapter 6: scsend() to the next PE, screcv() from the one
        // before; at the end every PE tells PE 0, which takes the n - 1
        // messages with a wildcard source in arrival order
        sim::on_pe_threads(n, [&](unsigned pe) {
            link::LinkClient c(hub.endpoint(pe), dev + "?pe=" + std::to_string(pe), cfg(p));
            scalar::Port port(c, pe, std::chrono::seconds(5));  // on the hub's clock (LinkHub)
            REQUIRE(port.pes() == n);
            const unsigned next = (pe + 1) % n, prev = (pe + n - 1) % n;
            for (unsigned lap = 0; lap < kLaps; ++lap) {
                if (pe == 0) port.send(next, kToken, lap * 1000);
                const scalar::Message m = port.recv(int(prev), kToken);
                CHECK(m.source == prev);
                CHECK(m.value == lap * 1000 + (pe == 0 ? n - 1 : pe - 1));
                if (pe != 0) port.send(next, kToken, m.value + 1);
            }
            if (pe != 0) {
                port.send(0, kDone, pe);
            } else {
                std::vector<bool> seen(n, false);
                for (unsigned k = 1; k < n; ++k) {
                    const scalar::Message m = port.recv(scalar::Any, kDone);
                    CHECK(m.value == m.source);
                    CHECK(!seen[m.source]);
                    seen[m.source] = true;
                }
                CHECK(!port.try_recv());  // nothing left over
            }
        });
    });
    std::printf("[boards] %u board tops with the scalar engine\n", boards_with_scalar);
    if (all_boards()) CHECK(boards_with_scalar > 0);  // fw/ulx3s/top.v (EN_SCALAR = 1)
}

TEST_CASE("board tops with the COP: barriers, reductions, an exact sum, broadcasts and tickets over the UART",
          "[boards][cop]") {
    unsigned boards_with_cop = 0;
    for_each_board([&](const std::string& board, const Params& p, const Factory& make) {
        if (!has_link(board, p) || !builds(p, "EN_COP")) return;
        ++boards_with_cop;
        namespace C = aggnet::cop;
        const unsigned n = unsigned(p.at("N"));
        const std::string dev = device(board, p);
        const auto step = std::chrono::seconds(5);  // on the hub's clock (LinkHub)
        auto model = make(2'000'000'000);
        LinkHub hub(std::move(model), ns_per_cycle(p));
        {
            link::LinkClient c(hub.endpoint(0), dev + "?pe=0", cfg(p));
            C::Channel ch(c, 0, step);
            INFO(board << ": " << ch.channels() << " channels");
            REQUIRE(ch.channels() == n);  // C = N: one channel per PE (docs/cop.md)
            REQUIRE(ch.has_fpu());
            C::Supervisor s(ch);
            s.set_tc(0, C::all_pes(n));
            s.set_bm(0, C::all_pes(n));
        }
        constexpr unsigned kRounds = 3;
        std::mutex m;
        std::vector<uint32_t> tickets;
        sim::on_pe_threads(n, [&](unsigned pe) {
            link::LinkClient c(hub.endpoint(pe), dev + "?pe=" + std::to_string(pe), cfg(p));
            C::Channel ch(c, pe, step);
            for (unsigned k = 0; k < kRounds; ++k) {
                ch.barrier();
                // Table I: the wrapping integer sum and the signed maximum
                CHECK(ch.reduce(C::Op::Sum, int64_t(pe) * 1000 + k) ==
                      int64_t(n * (n - 1) / 2) * 1000 + int64_t(n) * k);
                CHECK(ch.reduce(C::Op::Max, int32_t(pe) - 7 * int32_t(k)) == int32_t(n - 1) - 7 * int32_t(k));
                // The exact sum: PE 0's 1e300 and PE 2's -1e300 cancel; the
                // small terms 2^-(10 pe) of the others survive exactly.  SUMF's
                // rounded adds in channel order lose PE 1's term into 1e300.
                const double big = pe == 0 ? 1e300 : pe == 2 ? -1e300 : 0.0;
                const double t = big != 0.0 ? big : std::ldexp(1.0, -10 * int(pe));
                double want = n < 3 ? 1e300 : 0.0;  // n = 2: 1e300 + 2^-10 rounds to 1e300
                for (unsigned q = 1; q < n && n >= 3; ++q)
                    if (q != 2) want += std::ldexp(1.0, -10 * int(q));  // exact: a few powers of two
                CHECK(ch.reduce(C::FOp::ExactSum, t) == want);
                // the exclusive prefix sum in channel order
                CHECK(ch.scan(int64_t(pe + 1), C::Scan::Exclusive) == int64_t(pe * (pe + 1) / 2));
                // a broadcast from PE k mod n: every other PE receives it once
                const unsigned root = k % n;
                const uint64_t word = 0x0123456789abcdefULL ^ (uint64_t(root) << 56) ^ k;
                if (pe == root) {
                    ch.broadcast(word);
                } else {
                    unsigned len = 0;
                    CHECK(ch.receive(&len) == word);
                    CHECK(len == 8);
                }
                ch.barrier();  // before the next root broadcasts
                const uint32_t tk = ch.fetch_add(3, uint32_t(1));
                std::lock_guard<std::mutex> l(m);
                tickets.push_back(tk);
            }
        });
        // fetch-and-add hands out every ticket exactly once
        std::sort(tickets.begin(), tickets.end());
        REQUIRE(tickets.size() == n * kRounds);
        for (unsigned i = 0; i < tickets.size(); ++i) CHECK(tickets[i] == i);
    });
    std::printf("[boards] %u board tops with the COP\n", boards_with_cop);
    if (all_boards()) CHECK(boards_with_cop > 0);  // fw/ulx3s_cop/top.v (EN_COP = 1)
}
