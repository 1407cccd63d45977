// hub.cpp: the virtual hub's clock, stream and frame routes (hub.hpp).
#include "hub.hpp"

#include <aggnet/link_defs.hpp>

#include <cstdio>
#include <stdexcept>
#include <termios.h>

namespace aggnet::vhub {

namespace L = aggnet::link_defs;

namespace {

constexpr size_t kMaxPartial = 4096;  ///< bytes of one undecodable chunk before it is passed on

}  // namespace

Hub::Hub(unsigned n, std::unique_ptr<sim::HubModel> model, Injector inj)
    : n_(n), h_(std::move(model)), inj_(std::move(inj)), owner_(64, -1) {
    const unsigned k = h_->streams();
    if (k != 1 && k != n + 1)
        throw std::logic_error("aggnet-sim: a hub model with " + std::to_string(k) + " byte streams at " +
                               std::to_string(n) + " PEs (1, or one per PE and a shared one)");
    for (unsigned i = 0; i < k; ++i) {
        in_.emplace_back(h_->s_gap());
        h_->s_tx_ready(i, true);
    }
}

void Hub::start() {
    h_->reset(3);
    link::Frame f;
    f.pe = 0;
    f.op = L::OP_HELLO;
    for (Stream& st : in_) st.in.clear();
    in_.back().in.push(link::encode(f));  // the one stream, or the shared one
    hello_probe_ = true;
    for (uint64_t i = 0; i < 100000 && hello_probe_; ++i) tick();
    if (hello_probe_) throw std::runtime_error("the Verilated hub did not answer HELLO in 100000 cycles");
    run_until_quiet();
}

// ---- the clock ------------------------------------------------------------------

size_t Hub::input_left() const {
    size_t k = 0;
    for (const Stream& st : in_) k += st.in.size();
    for (const Channel& c : channels_) k += c.pending_bytes;
    return k;
}

/// The next frame for stream k, once its last one went in: the stream's
/// channels take turns.
bool Hub::next_chunk(unsigned k) {
    Stream& st = in_[k];
    for (size_t i = 0; i < channels_.size(); ++i) {
        st.turn = (st.turn + 1) % channels_.size();
        Channel& c = channels_[st.turn];
        if (stream_of(c) != k) continue;
        Bytes f;
        if (!c.next_pending(f)) continue;
        st.in.push(f);
        return true;
    }
    return false;
}

/// One hub cycle: on every stream a queued byte in when the stream takes
/// one, a byte out whenever the hub offers one.
void Hub::tick() {
    const uint64_t cy = h_->cycle();
    const unsigned ns = streams();
    for (unsigned k = 0; k < ns; ++k) {
        Stream& st = in_[k];
        if (st.in.empty() && sim::LinkStream::slot(cy)) next_chunk(k);
        st.in.drive_stream(*h_, k, cy);
    }
    // (the outputs of the cycle before the edge: what the hub offers now)
    uint8_t txb[65];
    uint64_t txv = 0;
    for (unsigned k = 0; k < ns; ++k)
        if (h_->s_tx_valid(k)) txv |= uint64_t(1) << k, txb[k] = h_->s_tx_data(k);
    h_->tick();
    for (unsigned k = 0; txv; ++k, txv >>= 1)
        if (txv & 1) from_hub(in_[k], txb[k]);
}

void Hub::run(uint64_t max) {
    // (link_port's idle: rtl/link/link_port.v; test_system_vhub checks that
    // no WAIT or CALL answer waits for a keep-alive when the clock stops)
    for (uint64_t i = 0; i < max && (!h_->idle() || input_left()); ++i) tick();
}

void Hub::run_until_quiet() {
    while (!h_->idle() || input_left()) tick();
}

void Hub::step(uint64_t k) {
    for (uint64_t i = 0; i < k; ++i) tick();
}

// ---- frame routes -------------------------------------------------------------

/// A byte the hub sent on a stream: frames are cut out and go to their
/// PE's channel.
void Hub::from_hub(Stream& st, uint8_t b) {
    if (b == L::FLAG) st.tx_chunk.clear();
    st.tx_chunk.push_back(b);
    if (!st.tx_dec.push(b)) return;
    const link::Frame& f = st.tx_dec.frame();
    if (hello_probe_ && f.op == L::OP_HELLO_R && f.len >= L::HELLO_LEN) {
        engines_ = uint16_t(f.value(L::HELLO_ENGINES, 2));
        clk_hz_ = uint64_t(f.value(L::HELLO_CLK, 2)) * L::HELLO_CLK_UNIT_HZ;
        hello_probe_ = false;
        return;
    }
    const int to = f.pe < owner_.size() ? owner_[f.pe] : -1;
    if (to < 0 || channels_[size_t(to)].fd < 0) return;  // nobody there: a UART with no listener
    Channel& c = channels_[size_t(to)];
    ++c.frames_out;
    std::vector<Bytes> out;
    inj_.pass(c.out_lane, st.tx_chunk, out);
    for (const Bytes& o : out) c.queue(o);
    flush(c);
}

/// Whole frames (or undecodable chunks) of a channel join the hub's stream.
void Hub::to_hub(Channel& c, Bytes chunk) {
    std::vector<Bytes> out;
    inj_.pass(c.in_lane, std::move(chunk), out);
    for (Bytes& o : out) c.enqueue(std::move(o));
}

void Hub::receive(Channel& c, const uint8_t* data, size_t n) {
    for (size_t i = 0; i < n; ++i) cut(c, data[i]);
}

/// Cuts a channel's byte stream into frames with the link's decoder.
void Hub::cut(Channel& c, uint8_t b) {
    if (b == L::FLAG && !c.chunk.empty()) to_hub(c, std::move(c.chunk)), c.chunk.clear();  // an aborted partial
    c.chunk.push_back(b);
    const bool good = c.dec.push(b);
    if (good) {
        const link::Frame& f = c.dec.frame();
        if (c.pe >= 0 && f.pe != unsigned(c.pe)) {
            const bool mux = streams() > 1;
            if (c.foreign++ == 0)
                std::fprintf(stderr,
                             "aggnet-sim: %s: %s a frame for PE%u (this channel is PE%d's only; use "
                             "DIR/link for several PEs); further ones are counted\n",
                             c.what().c_str(), mux ? "passed on, for the multiplexer to refuse (BIND)," : "dropped",
                             f.pe, c.pe);
            if (!mux) {
                c.chunk.clear();
                return;
            }
            // (the multiplexer binds the stream to PE c.pe: no owner change)
            to_hub(c, std::move(c.chunk));
            c.chunk.clear();
            return;
        }
        if (f.pe < owner_.size()) owner_[f.pe] = int(&c - channels_.data());
        ++c.frames_in;
        to_hub(c, std::move(c.chunk));
        c.chunk.clear();
    } else if (!c.dec.in_frame() || c.chunk.size() >= kMaxPartial) {
        // Garbage between frames, or a frame the decoder dropped (bad
        // CRC, bad length): the hub's receiver sees it too.
        to_hub(c, std::move(c.chunk));
        c.chunk.clear();
    }
}

void Hub::expire_lanes(steady::time_point now) {
    for (Channel& c : channels_) {
        std::vector<Bytes> out;
        Injector::expire(c.in_lane, now, out);
        for (Bytes& o : out) c.enqueue(std::move(o));
        out.clear();
        Injector::expire(c.out_lane, now, out);
        if (c.fd >= 0)
            for (const Bytes& o : out) c.queue(o);
        if (!out.empty() && c.fd >= 0) flush(c);
    }
}

// ---- clients ------------------------------------------------------------------

void Hub::flush(Channel& c) {
    if (!c.send())
        stalled(c, "stopped reading its replies (" + std::to_string(c.out.size()) + " bytes queued, limit " +
                       std::to_string(kMaxQueued) + ")");
}

void Hub::drop_stalled(steady::time_point now) {
    for (Channel& c : channels_)
        if (c.stalled(now))
            stalled(c, "took no reply bytes for " + std::to_string(Channel::kStallMs) + " ms (" +
                           std::to_string(c.out.size()) + " bytes queued)");
}

void Hub::stalled(Channel& c, const std::string& why) {
    c.out.clear();
    if (c.kind == Channel::Pty) {
        // A pty has no client to drop: the replies nobody reads go.
        std::fprintf(stderr, "aggnet-sim: %s: its reader %s; discarded\n", c.what().c_str(), why.c_str());
        ::tcflush(c.fd, TCOFLUSH);
        return;
    }
    drop(c, why);
}

void Hub::drop(Channel& c, const std::string& why) {
    if (c.fd < 0 || c.kind != Channel::Sock) return;
    c.hang_up();
    for (auto& o : owner_)
        if (o >= 0 && &channels_[size_t(o)] == &c) o = -1;
    std::fprintf(stderr, "aggnet-sim: %s client %s at cycle %llu; %s\n", c.name().c_str(), why.c_str(),
                 static_cast<unsigned long long>(cycle()),
                 c.pe < 0 ? "the registers of its PEs stay as it left them" : "its registers stay as it left them");
}

size_t Hub::clients() const {
    size_t k = 0;
    for (const Channel& c : channels_)
        if (c.kind == Channel::Sock && c.fd >= 0) ++k;
    return k;
}

std::string Hub::stats() const {
    std::string s;
    for (const Channel& c : channels_)
        if (c.frames_in || c.frames_out)
            s += " " + c.name() + (c.kind == Channel::Pty ? "(pty)" : "") + " " + std::to_string(c.frames_in) + "/" +
                 std::to_string(c.frames_out);
    return s.empty() ? " none" : s;
}

std::string Hub::pty_paths() const {
    std::string s;
    for (const Channel& c : channels_)
        if (c.kind == Channel::Pty) s += "aggnet-sim: pty " + c.path + " -> " + c.tty + " (" + c.name() + ")\n";
    return s;
}

void Hub::close_channels() {
    for (Channel& c : channels_) c.close();
}

}  // namespace aggnet::vhub
