// channel.hpp: one channel of the virtual hub -- one byte stream, one client
// at a time (docs/vhub.md, "Channels"):
//   DIR/peK       socket: frames of PE K only
//   DIR/link      socket: frames of any PE
//   DIR/pty-peK, DIR/pty-link   with --pty: the same as pseudo-terminals
//                 (symlinks to /dev/pts/M), for serial:PATH@BAUD?pe=K
// A Channel holds its descriptors and both directions' bytes: those the
// client sent, being cut into frames and waiting for their turn on the hub's
// stream, and the replies not yet sent.  What a frame means, and when a
// client is dropped, is the hub's business (hub.hpp).
#pragma once

#include "common.hpp"
#include "faults.hpp"
#include "sockets.hpp"

#include <aggnet/link_frame.hpp>

#include <deque>
#include <string>
#include <sys/types.h>

namespace aggnet::vhub {

struct Channel {
    static constexpr int kStallMs = 2000;  ///< a client that takes no reply bytes this long is dropped

    enum Kind { Sock, Pty } kind = Sock;
    int pe = -1;                 ///< the PE this channel serves; -1: every PE
    std::string path;            ///< DIR/peK, DIR/link, DIR/pty-...
    std::string tty;             ///< pty: /dev/pts/M
    Listener listener;           ///< socket: the listener
    int fd = -1;                 ///< the connected client, or the pty master
    int slave = -1;              ///< pty: our own slave descriptor, so the pty never hangs up
    Bytes chunk;                 ///< bytes of the frame being cut out of the stream
    std::deque<Bytes> pending;   ///< frames waiting for their turn on the hub's stream
    size_t pending_bytes = 0;
    link::Decoder dec;           ///< cuts the stream into frames
    std::deque<uint8_t> out;     ///< reply bytes not yet sent
    steady::time_point stalled_since;
    Lane in_lane, out_lane;      ///< the fault injector's, per direction
    uint64_t frames_in = 0, frames_out = 0, foreign = 0;

    /// DIR/peK (pe >= 0) or DIR/link (pe < 0), listening.
    static Channel socket(const std::string& dir, int pe);
    /// DIR/pty-peK or DIR/pty-link: a raw pseudo-terminal and its symlink.
    static Channel pty(const std::string& dir, int pe);

    std::string name() const { return pe < 0 ? "link" : "PE" + std::to_string(pe); }
    std::string what() const { return (kind == Pty ? "pty " : "socket ") + path; }

    /// A frame (or undecodable chunk) joins those waiting for the hub.
    void enqueue(Bytes b);
    /// The oldest frame waiting for the hub leaves the queue; false if none.
    bool next_pending(Bytes& b);
    /// Reply bytes join those not yet sent.
    void queue(const Bytes& b);
    /// Sends what the client takes; false when more than kMaxQueued bytes
    /// stay queued.  A client that is gone (EPIPE, ECONNRESET) loses its
    /// queue: what it sent was handled; it is dropped at its EOF.
    bool send();
    /// recv() or read() into buf: what the system call returned.
    ssize_t receive(uint8_t* buf, size_t n);
    /// Whether replies have waited for the client kStallMs by `now`.
    bool stalled(steady::time_point now) const;
    /// The earliest time this channel needs a look without any I/O: a stall
    /// deadline or a frame held back by the injector; max() if none.
    steady::time_point wake() const;
    /// Closes the client's connection and forgets its partial frame, its
    /// replies and its lanes.
    void hang_up();
    /// Closes every descriptor and removes what the channel made in DIR.
    void close();
};

}  // namespace aggnet::vhub
