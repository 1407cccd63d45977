// control.hpp: the virtual hub's control socket DIR/control (docs/vhub.md,
// "The control socket"; libaggnet's SimControl and `aggnet sim DIR ...` are
// its clients).  One ASCII line per request, one line per answer: `ok
// [fields]` or `err message`.  Requests: status, cycle, hold, step K,
// release, trace FILE / trace off, cut / mend (drop every frame both ways,
// a pulled cable), quit.  At most kMaxClients clients at once; a line
// longer than kMaxLine bytes closes its client.
#pragma once

#include "hub.hpp"
#include "sockets.hpp"

#include <string>
#include <vector>

namespace aggnet::vhub {

struct ControlClient {
    int fd = -1;
    std::string in, out;
    bool closing = false;
};

class Control {
public:
    static constexpr size_t kMaxLine = 4096;
    static constexpr unsigned kMaxClients = 8;

    explicit Control(Hub& hub) : hub_(hub) {}
    ~Control() { close(); }

    /// Listens on DIR/control.
    void listen(const std::string& path) { listener_ = Listener::open(path); }
    const Listener& listener() const { return listener_; }
    /// A client accepted on the listener: served, or told there are too many.
    void add(int fd);
    std::vector<ControlClient>& clients() { return clients_; }
    /// Reads a client's requests and answers every whole line.
    void read(ControlClient& c);
    /// Sends a client's answers; closes it when it is gone or takes none.
    void flush(ControlClient& c);
    /// Forgets the clients that were closed.
    void sweep();
    /// Whether a client sent `quit`.
    bool quit() const { return quit_; }
    void close();

    /// One request; returns the answer line (without the newline).
    std::string handle(const std::string& line);

private:
    std::string ok_cycle() const { return "ok " + std::to_string(hub_.cycle()); }

    Hub& hub_;
    Listener listener_;
    std::vector<ControlClient> clients_;
    bool quit_ = false;
};

}  // namespace aggnet::vhub
