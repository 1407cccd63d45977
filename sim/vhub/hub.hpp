// hub.hpp: the virtual hub's core -- the Verilated aggnet_hub, its clock,
// its one link byte stream and the frames' routes between that stream and
// the channels.  No sockets are polled here (server.hpp) and no commands are
// read (control.hpp); a reply is handed to its channel's client as soon as
// the hub sends it.
//
// The streams: a model has one byte stream into its link port, or, with a
// link multiplexer in front of the port (aggnet-sim --mux, the `hub_mux`
// family: the boards' link_mux in RTL), one per PE and a shared one
// (sim/hub_rtl.hpp, HubModel::streams()).  Each channel feeds one stream:
// the one stream, or with a multiplexer PE K's channels stream K and the
// `link` channels the shared stream.  On a stream, whole frames of its
// channels take turns (a frame is never interleaved with another), the
// channels in round robin, each channel's in the order they arrived;
// sim::LinkStream (sim/link_stream.hpp) feeds them in at the stream's pace.
// A channel's bytes are cut into frames with the link's own decoder; bytes
// that do not decode (garbage, a corrupted frame) still go to the hub in
// their place, so the RTL's receiver is the one that drops and counts them.
// A frame naming another PE on a PE's own channel is dropped and logged --
// with a multiplexer it goes in, and the multiplexer refuses and counts it
// (BIND).  The hub's output frames, from whichever stream, go to the
// channel that last sent a frame for their PE.  Every frame passes the
// fault injector, both ways (faults.hpp).
//
// The clock runs while there is work -- bytes to feed, or the link port
// not idle (rtl/link/link_port.v, "Idle": a frame being handled, a reply
// going out, an engine settling after a write or busy, a pending WAIT or
// CALL not yet asked since the engines calmed down) -- and stops exactly
// when nothing but a new byte can change what the link sees.  Nothing in the hub depends on wall time.  hold()
// stops the clock altogether (frames queue), step() runs exactly K cycles,
// release() resumes.
//
// A client that takes nothing for Channel::kStallMs while replies wait, or
// lets kMaxQueued bytes pile up, is dropped (a pty's queue is discarded
// instead); its PE's registers stay as it last wrote them.
#pragma once

#include "channel.hpp"
#include "common.hpp"
#include "faults.hpp"
#include "hub_rtl.hpp"
#include "link_stream.hpp"

#include <aggnet/link_frame.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace aggnet::vhub {

class Hub {
public:
    Hub(unsigned n, std::unique_ptr<sim::HubModel> model, Injector inj);
    ~Hub() { close_channels(); }

    /// Resets the hub and asks it, over its own link, what it is.
    void start();
    unsigned pes() const { return n_; }
    uint16_t engines() const { return engines_; }
    uint64_t clk_hz() const { return clk_hz_; }
    uint64_t cycle() const { return h_->cycle(); }

    // ---- the clock ----
    /// Whether the clock has cycles to run: not held, and bytes to feed or
    /// the link port (and the multiplexer) not idle.
    bool busy() const { return !held_ && (input_left() || !h_->idle()); }
    /// Runs at most `max` cycles, while there is work.
    void run(uint64_t max);
    void hold() { held_ = true; }
    void release() { held_ = false; }
    bool held() const { return held_; }
    /// Exactly k cycles, work or not.
    void step(uint64_t k);
    void trace_to(const std::string& path) { h_->trace_to(path); }
    void trace_off() { h_->close_trace(); }
    /// Bytes waiting to enter the hub.
    size_t input_left() const;
    /// The model's byte streams: 1, or pes() + 1 with a link multiplexer.
    unsigned streams() const { return unsigned(in_.size()); }

    // ---- the channels ----
    void add_channel(Channel c) { channels_.push_back(std::move(c)); }
    std::vector<Channel>& channels() { return channels_; }
    const std::vector<Channel>& channels() const { return channels_; }
    /// Bytes a channel's client sent: cut into frames, they join the stream.
    void receive(Channel& c, const uint8_t* data, size_t n);
    /// Sends what the channel's client takes; drops it past the queue bound.
    void flush(Channel& c);
    /// Closes a socket channel's client, logging why; its PEs' frames have
    /// nowhere to go until a client sends for them again.
    void drop(Channel& c, const std::string& why);
    /// Drops every client that took no reply bytes for Channel::kStallMs.
    void drop_stalled(steady::time_point now);
    /// Frames the injector held back too long go on their way.
    void expire_lanes(steady::time_point now);
    /// Connected socket clients.
    size_t clients() const;
    /// " PEk n_in/n_out ..." per channel that carried frames, for the log at exit.
    std::string stats() const;
    /// One line per pty channel: its symlink, its /dev/pts device and whom it serves.
    std::string pty_paths() const;
    Injector& injector() { return inj_; }
    void close_channels();

private:
    /// Per byte stream of the model: what goes in, and the frames coming out.
    struct Stream {
        explicit Stream(uint64_t gap) : in(gap) {}
        sim::LinkStream in;     ///< the frame entering the stream
        size_t turn = 0;        ///< the channel whose frame went in last
        Bytes tx_chunk;
        link::Decoder tx_dec;
    };
    unsigned stream_of(const Channel& c) const {
        return streams() == 1 ? 0u : c.pe >= 0 ? unsigned(c.pe) : n_;
    }
    bool next_chunk(unsigned k);
    void tick();
    void run_until_quiet();
    void from_hub(Stream& st, uint8_t b);
    void to_hub(Channel& c, Bytes chunk);
    void cut(Channel& c, uint8_t b);
    void stalled(Channel& c, const std::string& why);

    unsigned n_;
    std::unique_ptr<sim::HubModel> h_;
    Injector inj_;
    bool held_ = false;
    bool hello_probe_ = false;
    uint16_t engines_ = 0;
    uint64_t clk_hz_ = 0;
    std::vector<Stream> in_;        ///< the model's byte streams
    std::vector<Channel> channels_;
    std::vector<int> owner_;        ///< per PE: the channel that last sent a frame for it
};

}  // namespace aggnet::vhub
