// server.hpp: the virtual hub's I/O loop.  It makes the channels and the
// control socket in DIR, and then one ppoll() loop serves them all: it
// accepts clients (one per channel: a second client on a taken socket is
// closed at once, logged), reads what they send into the hub (hub.hpp),
// sends what they have not yet taken, answers the control socket
// (control.hpp) and runs the hub clock in bursts while it has work.  With
// no work it sleeps until a descriptor is ready or a deadline passes (a
// stalled client, a frame held back by the injector, the accept back-off),
// so an idle hub uses no CPU.  A channel with kMaxPending bytes waiting for
// the hub is not read until the hub has taken some: a client that floods
// the hub slows only itself.
#pragma once

#include "control.hpp"
#include "hub.hpp"
#include "sockets.hpp"

#include <csignal>
#include <string>

namespace aggnet::vhub {

class Server {
public:
    explicit Server(Hub& hub) : hub_(hub), control_(hub) {}
    ~Server() { close(); }

    /// DIR/link, DIR/peK and, with pty, DIR/pty-link and DIR/pty-peK; then
    /// DIR/control.
    void open(const std::string& dir, bool pty);
    /// The ppoll() loop, which takes signals only while it waits (waitmask);
    /// returns when `signal` is set or `quit` arrives.
    void serve(const sigset_t& waitmask, const volatile sig_atomic_t& signal);
    /// Closes every channel and control client and removes what was made.
    void close();

private:
    void accept_on(Channel& c);
    bool read_from(Channel& c);
    steady::time_point next_wake(steady::time_point now) const;

    Hub& hub_;
    Control control_;
    Acceptor acceptor_;
};

}  // namespace aggnet::vhub
