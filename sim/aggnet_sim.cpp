// aggnet-sim: the virtual hub.  The Verilated papers_hub (the same hub top the
// board tops instantiate) served over one Unix stream socket per PE port,
// speaking the register protocol of aggnet/vhub_protocol.hpp.
//
//   aggnet-sim --pes N [--dir DIR] [--trace FILE.fst] [--cycles-per-access K]
//
// Single-threaded: one ppoll() loop over the listening sockets and the
// connected clients.  Simulated time advances when a client performs a
// register operation (K cycles per operation), and, while some client has a
// WAIT parked, by K more cycles after a write that nobody followed up, so a
// change that needs the hub's pipeline to settle reaches the waiters.  A hub
// whose clients are all idle or blocked sleeps in ppoll() and uses no CPU.
//
// Port ownership: one client per port; a second client gets an error reply
// naming the port and is closed.  A port with no client reads as its pins
// were left: all 0 before anyone connected; after a client disconnects (or
// is killed), exactly what it last wrote, as a PC's port register keeps its
// value when the program exits.  So a PE that leaves right after a barrier
// does not take its D bit from the PEs still reading it, and a PE killed with
// S high keeps S high: the others see it as never releasing the barrier and
// re-form without it (libaggnet's Papers does; the PAL equations only wait
// for the PEs of each PE's own mask).  A new client can then take the port.
//
// A client never holds up the others: replies are queued per client and sent
// as the socket takes them; a client whose queue passes kMaxQueued bytes, or
// that takes nothing for kStallMs while replies wait, is dropped with the
// reason logged.  A malformed request gets an error reply naming what was
// wrong and the connection is closed once that reply is out.
#include "papers_pins.hpp"
#include "pc_port.hpp"

#include <aggnet/cli.hpp>
#include <aggnet/papers_regs.hpp>
#include <aggnet/vhub_protocol.hpp>

#include <algorithm>
#include <chrono>
#include <dirent.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <poll.h>
#include <stdexcept>
#include <string>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <vector>

using namespace aggnet;
namespace R = aggnet::papers_regs;

namespace {

volatile sig_atomic_t g_signal = 0;
void on_signal(int sig) { g_signal = sig; }

using steady = std::chrono::steady_clock;

constexpr size_t kMaxQueued = 64 * 1024;      ///< reply bytes queued for one client before it is dropped
constexpr size_t kMaxPending = 64 * 1024;     ///< request bytes buffered behind a parked WAIT
constexpr int kStallMs = 2000;                ///< a client that takes no reply bytes this long is dropped
constexpr int kAcceptBackoffMs = 100;         ///< pause accepting after EMFILE / ENFILE

const char* const kUsage =
    "usage: aggnet-sim --pes N [--dir DIR] [--trace FILE.fst] [--cycles-per-access K]\n"
    "  Serves a Verilated PAPERS hub with N PEs, one Unix socket per PE at DIR/peK.\n"
    "  --pes N                 hub size (built sizes: %s)\n"
    "  --dir DIR               socket directory: created if missing; if it exists it must hold\n"
    "                          nothing but sockets left by an aggnet-sim (default: a new\n"
    "                          /tmp/aggnet-XXXXXX)\n"
    "  --trace FILE.fst        record an FST waveform of the run\n"
    "  --cycles-per-access K   hub clock cycles each register access takes (1..1000000, default 8)\n"
    "Stop it with SIGINT/SIGTERM or a client's QUIT request; it removes its sockets.\n"
    "Exit: 0 stopped, 1 runtime error, 2 usage error.\n";

std::string built_sizes() {
    std::string b;
    for (unsigned s : sim::papers_rtl_sizes()) b += (b.empty() ? "" : " ") + std::to_string(s);
    return b;
}

void print_usage(FILE* f) { std::fprintf(f, kUsage, built_sizes().c_str()); }

std::string errno_text() { return std::strerror(errno); }

struct Client {
    int fd = -1;
    std::vector<uint8_t> in;    ///< request bytes not yet handled
    std::vector<uint8_t> out;   ///< reply bytes not yet sent
    bool closing = false;       ///< close once `out` is sent (after a malformed request)
    bool gone = false;          ///< replies cannot be sent any more: the client has closed
    bool waiting = false;       ///< a WAIT is parked
    vhub::Request wait_req;
    steady::time_point wait_until, stalled_since;
};

struct Socket {
    int fd = -1;
    dev_t dev = 0;
    ino_t ino = 0;
};

class Hub {
public:
    Hub(unsigned n, std::unique_ptr<sim::PapersPins> pins, uint64_t k, std::string dir)
        : n_(n), pins_(std::move(pins)), k_(k), dir_(std::move(dir)), clients_(n), listen_(n), ops_(n, 0) {
        width_ = R::reg_width(n);
        settle_ = std::max<uint64_t>(k_, 8);  // papers_hub: 4 cycles from a pin to every output
    }

    ~Hub() { shutdown(); }

    void listen_all() {
        for (unsigned pe = 0; pe < n_; ++pe) {
            const std::string path = port_path(pe);
            sockaddr_un a{};
            a.sun_family = AF_UNIX;
            if (path.size() >= sizeof(a.sun_path))
                throw std::runtime_error("socket path " + path + " is too long for a Unix socket (" +
                                         std::to_string(sizeof(a.sun_path) - 1) + " bytes at most)");
            std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
            const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
            if (fd < 0) throw std::runtime_error("socket: " + errno_text());
            // check_dir() made sure nothing is in the way: never unlink here.
            if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
                const std::string e = errno_text();
                ::close(fd);
                throw std::runtime_error("cannot bind " + path + ": " + e);
            }
            struct stat st {};
            ::stat(path.c_str(), &st);
            listen_[pe] = {fd, st.st_dev, st.st_ino};
            if (::listen(fd, 4) != 0) throw std::runtime_error("listen " + path + ": " + errno_text());
        }
    }

    /// The ppoll loop; returns when a signal or QUIT arrives.
    void serve(const sigset_t& waitmask) {
        std::vector<pollfd> fds;
        std::vector<int> who;  // >= 0: client of PE; < 0: listener of PE -who-1
        while (!quit_ && !g_signal) {
            settle();
            const auto now = steady::now();
            expire_waits(now);
            drop_stalled(now);
            const bool accepting = now >= accept_paused_until_;
            fds.clear();
            who.clear();
            for (unsigned pe = 0; pe < n_; ++pe) {
                if (accepting) {
                    fds.push_back({listen_[pe].fd, POLLIN, 0});
                    who.push_back(-int(pe) - 1);
                }
                const Client& c = clients_[pe];
                if (c.fd >= 0) {
                    short ev = 0;
                    // Stop reading a client that is closing or has too much queued.
                    if (!c.closing && c.in.size() < kMaxPending) ev |= POLLIN;
                    if (!c.out.empty()) ev |= POLLOUT;
                    fds.push_back({c.fd, ev, 0});
                    who.push_back(int(pe));
                }
            }
            timespec ts{}, *tp = nullptr;
            const auto wake = next_wake(now);
            if (wake != steady::time_point::max()) {
                const auto left = std::max<steady::duration>(wake - now, std::chrono::milliseconds(0));
                const auto nsec = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
                ts.tv_sec = time_t(nsec / 1000000000);
                ts.tv_nsec = long(nsec % 1000000000);
                tp = &ts;
            }
            const int r = ::ppoll(fds.data(), fds.size(), tp, &waitmask);
            if (r < 0) {
                if (errno == EINTR) continue;
                throw std::runtime_error("ppoll: " + errno_text());
            }
            for (size_t i = 0; i < fds.size() && !quit_; ++i) {
                if (!fds[i].revents) continue;
                if (who[i] < 0) {
                    accept_on(unsigned(-who[i] - 1));
                    continue;
                }
                const unsigned pe = unsigned(who[i]);
                if (clients_[pe].fd != fds[i].fd) continue;  // dropped meanwhile
                if (fds[i].revents & POLLOUT) flush(pe);
                if (clients_[pe].fd == fds[i].fd && (fds[i].revents & (POLLIN | POLLHUP | POLLERR))) read_from(pe);
            }
        }
        // Let queued replies (the QUIT's own) go out before closing.
        for (unsigned pe = 0; pe < n_; ++pe)
            if (clients_[pe].fd >= 0) flush(pe);
    }

    void shutdown() {
        for (unsigned pe = 0; pe < n_; ++pe) {
            if (clients_[pe].fd >= 0) ::close(clients_[pe].fd), clients_[pe].fd = -1;
            Socket& l = listen_[pe];
            if (l.fd >= 0) {
                ::close(l.fd);
                l.fd = -1;
                // Remove the socket only if it is still the one we made.
                struct stat st {};
                const std::string path = port_path(pe);
                if (::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode) && st.st_dev == l.dev &&
                    st.st_ino == l.ino)
                    ::unlink(path.c_str());
            }
        }
    }

    std::string port_path(unsigned pe) const { return dir_ + "/pe" + std::to_string(pe); }
    uint64_t cycle() const { return pins_->cycle(); }
    const std::vector<uint64_t>& ops() const { return ops_; }

private:
    // ---- output: per-client queues, never blocking ---------------------------

    void queue(unsigned pe, const void* p, size_t len) {
        Client& c = clients_[pe];
        if (c.gone) return;
        if (c.out.empty()) c.stalled_since = steady::now();
        const auto* b = static_cast<const uint8_t*>(p);
        c.out.insert(c.out.end(), b, b + len);
    }

    /// Sends what the socket takes; drops the client past the queue bound.
    void flush(unsigned pe) {
        Client& c = clients_[pe];
        size_t sent = 0;
        while (sent < c.out.size()) {
            const ssize_t w = ::send(c.fd, c.out.data() + sent, c.out.size() - sent, MSG_NOSIGNAL);
            if (w > 0) {
                sent += size_t(w);
                continue;
            }
            if (w < 0 && errno == EINTR) continue;
            if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
            // The client is gone (EPIPE, ECONNRESET).  Its requests that
            // arrived are still handled -- a PC's OUT instructions happened
            // even if the program then died -- and it is dropped at its EOF.
            if (!c.gone)
                std::fprintf(stderr, "aggnet-sim: PE%u: cannot send replies (%s); handling what it sent before it went\n",
                             pe, errno_text().c_str());
            c.gone = true;
            c.out.clear();
            return;
        }
        if (sent) {
            c.out.erase(c.out.begin(), c.out.begin() + long(sent));
            c.stalled_since = steady::now();
        }
        if (c.out.size() > kMaxQueued) {
            const std::string why = "stopped reading its replies (" + std::to_string(c.out.size()) +
                                    " bytes queued, limit " + std::to_string(kMaxQueued) + ")";
            c.out.clear();
            return drop(pe, why.c_str());
        }
        if (c.out.empty() && c.closing) drop(pe, "closed after a malformed request");
    }

    void drop_stalled(steady::time_point now) {
        for (unsigned pe = 0; pe < n_; ++pe) {
            Client& c = clients_[pe];
            if (c.fd >= 0 && !c.out.empty() && now - c.stalled_since >= std::chrono::milliseconds(kStallMs)) {
                const std::string why = "took no reply bytes for " + std::to_string(kStallMs) + " ms (" +
                                        std::to_string(c.out.size()) + " bytes queued)";
                c.out.clear();
                drop(pe, why.c_str());
            }
        }
    }

    void reply(unsigned pe, const vhub::Request& q, vhub::Reply r, const std::string& text = "") {
        r.seq = q.seq;
        r.text_len = uint32_t(text.size() < vhub::kMaxText ? text.size() : vhub::kMaxText);
        r.cycle = cycle();
        queue(pe, &r, sizeof r);
        if (r.text_len) queue(pe, text.data(), r.text_len);
        flush(pe);
    }

    void error(unsigned pe, const vhub::Request& q, const std::string& text) {
        vhub::Reply r;
        r.status = vhub::kErr;
        reply(pe, q, r, "aggnet-sim: " + text);
    }

    /// A malformed request: say what was wrong, then close once that is sent.
    void malformed(unsigned pe, const vhub::Request& q, const std::string& text) {
        std::fprintf(stderr, "aggnet-sim: PE%u: malformed request (%s); closing its connection\n", pe, text.c_str());
        Client& c = clients_[pe];
        c.closing = true;
        c.in.clear();
        error(pe, q, "malformed request on PE" + std::to_string(pe) + ": " + text +
                         "; closing the connection (its byte stream can no longer be trusted)");
    }

    // ---- connections ---------------------------------------------------------

    /// One connection per call: the listener stays readable while more
    /// wait.  (Looping until EAGAIN would report EMFILE with nobody waiting:
    /// accept() takes a descriptor before it looks at the queue.)
    void accept_on(unsigned pe) {
        for (bool once = true; once; once = false) {
            const int fd = ::accept4(listen_[pe].fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
            if (fd < 0) {
                if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                    // Out of descriptors: the listener stays readable, so do
                    // not poll it for a while (no spinning); keep serving the
                    // connected clients.  Log once per episode.
                    accept_paused_until_ = steady::now() + std::chrono::milliseconds(kAcceptBackoffMs);
                    if (!accept_failing_)
                        std::fprintf(stderr,
                                     "aggnet-sim: cannot accept a client on PE%u: %s; retrying every %d ms, "
                                     "connected clients are still served\n",
                                     pe, errno_text().c_str(), kAcceptBackoffMs);
                    accept_failing_ = true;
                }
                return;  // EAGAIN: done
            }
            if (accept_failing_) std::fprintf(stderr, "aggnet-sim: accepting clients again\n");
            accept_failing_ = false;
            if (clients_[pe].fd >= 0) {
                // The owner may just have closed (its EOF not yet read): drain it first.
                pollfd p1{clients_[pe].fd, POLLIN, 0};
                while (clients_[pe].fd >= 0 && !clients_[pe].closing && ::poll(&p1, 1, 0) > 0 && p1.revents)
                    if (!read_from(pe)) break;
            }
            if (clients_[pe].fd >= 0) {
                vhub::Reply r;
                r.status = vhub::kErr;
                const std::string text = "aggnet-sim: port " + port_path(pe) + " (PE" + std::to_string(pe) +
                                         ") is already in use by another client; one host process per PE";
                r.text_len = uint32_t(text.size());
                r.cycle = cycle();
                // Best effort, never blocking: a fresh socket takes this much.
                std::vector<uint8_t> out(sizeof r + text.size());
                std::memcpy(out.data(), &r, sizeof r);
                std::memcpy(out.data() + sizeof r, text.data(), text.size());
                if (::send(fd, out.data(), out.size(), MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {}
                ::close(fd);
                std::fprintf(stderr, "aggnet-sim: refused a second client on PE%u\n", pe);
                continue;
            }
            clients_[pe] = Client{};
            clients_[pe].fd = fd;
        }
    }

    void drop(unsigned pe, const char* why) {
        Client& c = clients_[pe];
        if (c.fd < 0) return;
        ::close(c.fd);
        c = Client{};
        // The pins stay as the client left them (see the file header).
        const reg_t d = pins_data_[pe];
        std::fprintf(stderr,
                     "aggnet-sim: PE%u %s at cycle %llu; its pins stay as it left them (S=%d, mask 0x%llx)\n", pe,
                     why, static_cast<unsigned long long>(cycle()), int((d >> R::DATA_S) & 1),
                     static_cast<unsigned long long>(uint64_t(d >> R::DATA_B0)));
    }

    /// Reads what the client sent and handles whole requests; false if the
    /// client was dropped.
    bool read_from(unsigned pe) {
        Client& c = clients_[pe];
        uint8_t tmp[4096];
        const ssize_t got = ::recv(c.fd, tmp, sizeof tmp, 0);
        if (got == 0) {
            const size_t partial = c.in.size() % sizeof(vhub::Request);
            drop(pe, partial ? ("disconnected in the middle of a request (" + std::to_string(partial) + " of " +
                                std::to_string(sizeof(vhub::Request)) + " bytes)").c_str()
                             : "disconnected");
            return false;
        }
        if (got < 0) {
            if (errno == EAGAIN || errno == EINTR) return true;
            drop(pe, ("disconnected (" + errno_text() + ")").c_str());
            return false;
        }
        if (c.closing) return true;  // after a malformed request: ignore the rest
        c.in.insert(c.in.end(), tmp, tmp + got);
        pump(pe);
        return clients_[pe].fd >= 0;
    }

    /// Handles the client's buffered requests, in order, until one parks.
    void pump(unsigned pe) {
        Client& c = clients_[pe];
        size_t off = 0;
        while (c.fd >= 0 && !c.closing && !c.waiting && c.in.size() - off >= sizeof(vhub::Request) && !quit_) {
            vhub::Request q;
            std::memcpy(&q, c.in.data() + off, sizeof q);
            off += sizeof q;
            handle(pe, q);
        }
        if (c.fd >= 0 && !c.closing) c.in.erase(c.in.begin(), c.in.begin() + long(off));
    }

    // ---- the hub clock and parked WAITs ----------------------------------------

    void advance(uint64_t cycles) {
        for (uint64_t i = 0; i < cycles; ++i) pins_->tick();
        moved_ = true;
    }

    reg_t status_reg(unsigned pe) { return sim::status_pins_to_reg(pins_->stat(pe), n_) & reg_mask(); }

    static reg_t wide(uint64_t lo, uint64_t hi) { return (reg_t(hi) << 64) | lo; }

    bool wait_done(unsigned pe, reg_t st) const {
        const vhub::Request& q = clients_[pe].wait_req;
        return ((st ^ wide(q.lo, q.hi)) & wide(q.mlo, q.mhi)) != 0;
    }

    void finish_wait(unsigned pe, reg_t st, bool timed_out) {
        Client& c = clients_[pe];
        c.waiting = false;
        vhub::Reply r;
        r.lo = uint64_t(st);
        r.hi = uint64_t(st >> 64);
        r.aux = timed_out ? 1 : 0;
        reply(pe, c.wait_req, r);
        if (clients_[pe].fd >= 0) pump(pe);  // requests that queued behind the WAIT
    }

    /// After the clock moved: answer every parked WAIT whose bits changed.
    void check_waits() {
        while (moved_) {
            moved_ = false;
            for (unsigned pe = 0; pe < n_; ++pe) {
                if (clients_[pe].fd < 0 || !clients_[pe].waiting) continue;
                const reg_t st = status_reg(pe);
                if (wait_done(pe, st)) finish_wait(pe, st, false);
            }
        }
    }

    /// While WAITs are parked and a write has not been followed by any clock
    /// cycles, run the clock on our own so that its effect reaches the pins.
    void settle() {
        check_waits();
        while (dirty_ && any_waiting()) {
            dirty_ = false;
            advance(settle_);
            check_waits();
        }
        dirty_ = dirty_ && any_waiting();
    }

    bool any_waiting() const {
        for (const Client& c : clients_)
            if (c.fd >= 0 && c.waiting) return true;
        return false;
    }

    void expire_waits(steady::time_point now) {
        for (unsigned pe = 0; pe < n_; ++pe)
            if (clients_[pe].fd >= 0 && clients_[pe].waiting && now >= clients_[pe].wait_until)
                finish_wait(pe, status_reg(pe), true);
    }

    steady::time_point next_wake(steady::time_point now) const {
        steady::time_point t = steady::time_point::max();
        if (now < accept_paused_until_) t = accept_paused_until_;
        for (const Client& c : clients_) {
            if (c.fd < 0) continue;
            if (c.waiting) t = std::min(t, c.wait_until);
            if (!c.out.empty()) t = std::min(t, c.stalled_since + std::chrono::milliseconds(kStallMs));
        }
        return t;
    }

    // ---- requests ---------------------------------------------------------------

    reg_t reg_mask() const { return (reg_t(1) << width_) - 1; }

    static std::string hex128(reg_t v) {
        char b[40];
        const uint64_t hi = uint64_t(v >> 64), lo = uint64_t(v);
        if (hi)
            std::snprintf(b, sizeof b, "0x%llx%016llx", (unsigned long long)hi, (unsigned long long)lo);
        else
            std::snprintf(b, sizeof b, "0x%llx", (unsigned long long)lo);
        return b;
    }

    void handle(unsigned pe, const vhub::Request& q) {
        if (q.magic != vhub::kMagic) {
            char b[160];
            std::snprintf(b, sizeof b, "bad magic 0x%04x (expected 0x%04x; is this an aggnet vhub client of this version?)",
                          q.magic, vhub::kMagic);
            return malformed(pe, q, b);
        }
        if (q.reserved != 0) return malformed(pe, q, "reserved field is " + std::to_string(q.reserved) + ", not 0");
        if (q.op < vhub::HELLO || q.op > vhub::WAIT) return malformed(pe, q, "unknown op " + std::to_string(q.op));
        if (q.op != vhub::WAIT && (q.wait_ms || q.mlo || q.mhi))
            return malformed(pe, q, std::string("wait fields set on a ") + vhub::op_name(q.op) + " request");
        const reg_t value = wide(q.lo, q.hi);
        vhub::Reply r;
        switch (q.op) {
        case vhub::HELLO:
            r.lo = n_;
            r.hi = pe;
            r.aux = k_;
            return reply(pe, q, r);
        case vhub::WDATA:
            if (value & ~reg_mask())
                return error(pe, q, "WDATA value " + hex128(value) + " has bits above the " + std::to_string(width_) +
                                        "-bit data register of a " + std::to_string(n_) + "-PE hub");
            ++ops_[pe];
            advance(k_);
            pins_->set_data(pe, value);
            pins_data_[pe] = value;
            dirty_ = true;
            reply(pe, q, r);
            return check_waits();
        case vhub::WCTRL:
            if (value > 0xff) return error(pe, q, "WCTRL value " + hex128(value) + " is wider than the 8-bit control register");
            ++ops_[pe];
            advance(k_);
            pins_->set_ctrl(pe, sim::control_reg_to_pins(uint8_t(q.lo)));
            dirty_ = true;
            reply(pe, q, r);
            return check_waits();
        case vhub::RSTATUS:
        case vhub::WAIT: {
            if (q.op == vhub::WAIT && q.wait_ms > vhub::kMaxWaitMs)
                return error(pe, q, "WAIT of " + std::to_string(q.wait_ms) + " ms is longer than the " +
                                        std::to_string(vhub::kMaxWaitMs) + " ms limit");
            ++ops_[pe];
            advance(k_);
            const reg_t st = status_reg(pe);
            if (q.op == vhub::WAIT && q.wait_ms && !(((st ^ value) & wide(q.mlo, q.mhi)) != 0)) {
                Client& c = clients_[pe];
                c.waiting = true;
                c.wait_req = q;
                c.wait_until = steady::now() + std::chrono::milliseconds(q.wait_ms);
                return check_waits();
            }
            r.lo = uint64_t(st);
            r.hi = uint64_t(st >> 64);
            r.aux = q.op == vhub::WAIT && !(((st ^ value) & wide(q.mlo, q.mhi)) != 0);
            reply(pe, q, r);
            return check_waits();
        }
        case vhub::CYCLE:
            r.lo = ops_[pe];
            r.aux = k_;
            return reply(pe, q, r);
        case vhub::QUIT:
            quit_ = true;
            std::fprintf(stderr, "aggnet-sim: QUIT from PE%u\n", pe);
            return reply(pe, q, r);
        }
    }

    unsigned n_;
    std::unique_ptr<sim::PapersPins> pins_;
    uint64_t k_, settle_;
    std::string dir_;
    unsigned width_;
    std::vector<Client> clients_;
    std::vector<Socket> listen_;
    std::vector<uint64_t> ops_;
    std::vector<reg_t> pins_data_ = std::vector<reg_t>(n_, 0);
    bool quit_ = false;
    bool moved_ = false;   ///< the clock ticked since check_waits() last looked
    bool dirty_ = false;   ///< a pin was written since the clock last ran
    bool accept_failing_ = false;
    steady::time_point accept_paused_until_{};
};

struct Usage {
    std::string msg;
};

/// --dir DIR: ours to use only if it is empty or holds nothing but sockets
/// nobody listens on (left by a killed aggnet-sim), which are removed.
/// Returns whether we created it.  Throws Usage for anything else in it.
bool check_dir(const std::string& dir) {
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0) {
        if (errno != ENOENT) throw std::runtime_error("--dir " + dir + ": " + errno_text());
        if (::mkdir(dir.c_str(), 0700) != 0) throw std::runtime_error("cannot create --dir " + dir + ": " + errno_text());
        return true;
    }
    if (!S_ISDIR(st.st_mode)) throw Usage{"--dir " + dir + " exists and is not a directory"};
    DIR* d = ::opendir(dir.c_str());
    if (!d) throw std::runtime_error("--dir " + dir + ": " + errno_text());
    std::vector<std::string> stale;
    std::string foreign, live;
    while (dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name == "." || name == "..") continue;
        const std::string path = dir + "/" + name;
        struct stat fs {};
        const bool is_sock = ::lstat(path.c_str(), &fs) == 0 && S_ISSOCK(fs.st_mode);
        if (!is_sock) {
            if (foreign.empty()) foreign = "'" + name + "' (" + (S_ISDIR(fs.st_mode) ? "a directory" : S_ISREG(fs.st_mode) ? "a regular file" : "not a socket") + ")";
            continue;
        }
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        if (path.size() >= sizeof(a.sun_path)) continue;
        std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
        const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        const bool answers = fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
        if (fd >= 0) ::close(fd);
        if (answers) {
            if (live.empty()) live = name;
        } else {
            stale.push_back(path);
        }
    }
    ::closedir(d);
    if (!live.empty())
        throw std::runtime_error("--dir " + dir + ": socket '" + live + "' in it answers: another program (an aggnet-sim?) serves this directory");
    if (!foreign.empty())
        throw Usage{"--dir " + dir + " holds " + foreign +
                    ", which aggnet-sim did not make; it only uses an empty directory (or a new path) and never "
                    "removes what it did not create"};
    for (const auto& p : stale) {
        ::unlink(p.c_str());
        std::fprintf(stderr, "aggnet-sim: removed %s, a socket nobody listens on (left by a killed hub)\n", p.c_str());
    }
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    unsigned n = 0;
    uint64_t k = 8;
    std::string dir, trace;
    bool have_dir = false;
    try {
        for (int i = 1; i < argc; ++i) {
            const std::string a = argv[i];
            auto value = [&]() -> std::string {
                if (i + 1 >= argc) throw cli::UsageError(a + " needs a value");
                return argv[++i];
            };
            auto once = [&](bool seen) {
                if (seen) throw cli::UsageError(a + " is given twice");
            };
            if (a == "--help" || a == "-h") {
                print_usage(stdout);
                return 0;
            } else if (a == "--pes") {
                once(n != 0);
                n = unsigned(cli::number("--pes", value(), 2, 64));
                const auto& sizes = sim::papers_rtl_sizes();
                if (std::find(sizes.begin(), sizes.end(), n) == sizes.end())
                    throw cli::UsageError("--pes " + std::to_string(n) + ": no hub of that size was built (built: " +
                                          built_sizes() + "; add it to AGGNET_PAPERS_SIZES)");
            } else if (a == "--dir") {
                once(have_dir);
                dir = cli::nonempty("--dir", value());
                have_dir = true;
            } else if (a == "--trace") {
                once(!trace.empty());
                trace = cli::nonempty("--trace", value());
            } else if (a == "--cycles-per-access") {
                k = cli::number("--cycles-per-access", value(), 1, 1000000);
            } else {
                throw cli::UsageError("unknown argument '" + a + "'");
            }
        }
        if (!n) throw cli::UsageError("--pes N is required");
        if (!trace.empty()) {
            // Fail now, not silently at the end: the waveform must be writable.
            FILE* f = std::fopen(trace.c_str(), "w");
            if (!f) throw cli::UsageError("--trace " + trace + ": cannot write it: " + errno_text());
            std::fclose(f);
        }
    } catch (const cli::UsageError& e) {
        std::fprintf(stderr, "aggnet-sim: %s\n", e.what());
        print_usage(stderr);
        return cli::kUsageExit;
    }

    std::unique_ptr<sim::PapersPins> pins;
    try {
        pins = sim::make_papers_rtl(n, "aggnet_sim");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "aggnet-sim: %s\n", e.what());
        return 1;
    }

    // Signals are blocked except inside ppoll(), so none is lost between the
    // flag check and the wait.
    sigset_t block, waitmask;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigprocmask(SIG_BLOCK, &block, &waitmask);
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGHUP, &sa, nullptr);
    std::signal(SIGPIPE, SIG_IGN);

    bool made_dir = false;
    try {
        if (!have_dir) {
            char tmpl[] = "/tmp/aggnet-XXXXXX";
            if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp /tmp/aggnet-XXXXXX: " + errno_text());
            dir = tmpl;
            made_dir = true;
        } else {
            while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
            made_dir = check_dir(dir);
        }
    } catch (const Usage& u) {
        std::fprintf(stderr, "aggnet-sim: %s\n", u.msg.c_str());
        return cli::kUsageExit;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "aggnet-sim: %s\n", e.what());
        return 1;
    }

    int rc = 0;
    try {
        if (!trace.empty()) {
            pins->trace_to(trace);
            std::fprintf(stderr, "aggnet-sim: tracing to %s\n", trace.c_str());
        }
        for (unsigned pe = 0; pe < n; ++pe) pins->set_data(pe, 0), pins->set_ctrl(pe, 0);
        pins->reset(3);
        Hub hub(n, std::move(pins), k, dir);
        hub.listen_all();
        std::printf("aggnet-sim: %u PEs at %s\n", n, dir.c_str());
        std::fflush(stdout);
        hub.serve(waitmask);
        std::fprintf(stderr, "aggnet-sim: %s after %llu cycles; register ops per PE:",
                     g_signal ? strsignal(g_signal) : "stopped", static_cast<unsigned long long>(hub.cycle()));
        for (unsigned pe = 0; pe < n; ++pe)
            std::fprintf(stderr, " PE%u %llu", pe, static_cast<unsigned long long>(hub.ops()[pe]));
        std::fprintf(stderr, "\n");
        hub.shutdown();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "aggnet-sim: %s\n", e.what());
        rc = 1;
    }
    if (made_dir && ::rmdir(dir.c_str()) != 0)
        std::fprintf(stderr, "aggnet-sim: left %s in place: %s\n", dir.c_str(), errno_text().c_str());
    return rc;
}
