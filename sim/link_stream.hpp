// link_stream.hpp: the host-to-hub half of a link port's byte stream in
// simulation, written once.  link_port takes at most one byte a cycle and
// has no backpressure, but it holds one received frame until its state
// machine takes it, and a frame that completes meanwhile is an OVERRUN
// (rtl/link/link_port.v, "Byte streams").  So a simulation that feeds it
// bytes directly, instead of through a UART's pins, offers one byte every
// link_defs::SIM_BYTE_CYCLES hub cycles (tools/linkgen.py), and holds a
// frame's first byte (FLAG) back while the port's rx_held is high, and for
// link_defs::SIM_FRAME_GAP cycles after the byte before it (frame_rx shows
// a completed frame on rx_held 3 cycles after its last byte): frames go in as
// fast as the port takes them, and never overrun.  Every simulated
// stream goes through this class: the virtual hub (sim/vhub/hub.cpp),
// sim::LinkHub, and the link and hub test benches.  The UART path stays
// tested bit by bit (tests/test_link_uart.cpp, tests/test_board_tops.cpp).
//
//   LinkStream in;
//   in.push(link::encode(frame));
//   for (;;) { in.drive(model, model.cycle()); model.tick(); ... }
//
// drive() works on a sim::HubModel (rx(), rx_held()), drive_stream() on
// stream k of one (one stream, or a link multiplexer's, whose stream takes
// a byte every s_gap() cycles and a frame while its s_rx_room is high:
// LinkStream in(model.s_gap())); drive_port() on a
// Verilated link_port or link_port-like top (rx_valid, rx_data, rx_held).
#pragma once

#include <aggnet/link_defs.hpp>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace aggnet::sim {

class LinkStream {
public:
    static constexpr uint64_t kByteCycles = link_defs::SIM_BYTE_CYCLES;
    static constexpr uint64_t kFrameGap = link_defs::SIM_FRAME_GAP;
    static_assert(kByteCycles >= 1, "link_defs::SIM_BYTE_CYCLES must be at least 1");

    /// gap: the fewest cycles between two bytes (a HubModel's s_gap(): a
    /// link multiplexer's stream takes a byte every S + 1 cycles at most).
    explicit LinkStream(uint64_t gap = kByteCycles) : gap_(gap < 1 ? 1 : gap) {}

    void push(const uint8_t* data, size_t n) { q_.insert(q_.end(), data, data + n); }
    void push(const std::vector<uint8_t>& bytes) { push(bytes.data(), bytes.size()); }
    bool empty() const { return q_.empty(); }
    /// Bytes not yet offered to the port.
    size_t size() const { return q_.size(); }
    void clear() { q_.clear(); }
    /// Whether the cycle about to be clocked (hub cycle `cycle`) is one in
    /// which a byte may be offered.
    static bool slot(uint64_t cycle) { return cycle % kByteCycles == 0; }

    /// The byte offered in hub cycle `cycle`, if this cycle is a byte slot
    /// and one is queued, and it is not a frame's FLAG while the port holds a
    /// received frame (`held`) or may still be about to; it leaves the queue.
    bool next(uint64_t cycle, bool held, uint8_t& byte) {
        if (q_.empty() || !slot(cycle) || (sent_ && cycle < last_ + gap_)) return false;
        if (q_.front() == link_defs::FLAG && (held || cycle < last_ + kFrameGap)) return false;
        byte = q_.front();
        q_.pop_front();
        last_ = cycle;
        sent_ = true;
        return true;
    }
    /// Sets a HubModel's rx for the cycle about to be clocked; true if a byte
    /// was offered.
    template <class Hub>
    bool drive(Hub& hub, uint64_t cycle) {
        uint8_t b = 0;
        const bool v = next(cycle, hub.rx_held(), b);
        hub.rx(v, b);
        return v;
    }
    /// The same for stream k of a HubModel (one stream, or a link
    /// multiplexer's: a frame starts only while s_may_start(k)).
    template <class Hub>
    bool drive_stream(Hub& hub, unsigned k, uint64_t cycle) {
        uint8_t b = 0;
        const bool v = next(cycle, !hub.s_may_start(k), b);
        hub.s_rx(k, v, b);
        return v;
    }
    /// The same for a Verilated top with rx_valid / rx_data / rx_held.
    template <class Top>
    bool drive_port(Top& top, uint64_t cycle) {
        uint8_t b = 0;
        const bool v = next(cycle, top.rx_held, b);
        top.rx_valid = v;
        if (v) top.rx_data = b;
        return v;
    }

private:
    std::deque<uint8_t> q_;
    uint64_t gap_;
    bool sent_ = false;  ///< a byte was offered (last_ is its cycle)
    uint64_t last_ = 0;  ///< the cycle of the last byte offered
};

}  // namespace aggnet::sim
