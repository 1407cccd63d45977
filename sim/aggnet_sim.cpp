// aggnet-sim: the virtual hub.  The Verilated papers_hub (the same hub top the
// board tops instantiate) served over one Unix stream socket per PE port,
// speaking the register protocol of aggnet/vhub_protocol.hpp.
//
//   aggnet-sim --pes N [--dir DIR] [--trace FILE.fst] [--cycles-per-access K]
//
// Single-threaded: one ppoll() loop over the listening sockets and the
// connected clients.  Simulated time advances only when a client performs a
// register operation (K cycles per operation), so a hub whose clients are all
// blocked sleeps in ppoll() and uses no CPU.
//
// Port ownership: one client per port; a second client gets an error reply
// naming the port and is closed.  When a client disconnects (or is killed),
// its PE's data and control pins go back to 0 -- S, IR and the mask low, as if
// the cable were unplugged -- so the other PEs are not left waiting on a
// barrier request nobody will withdraw.  A new client can then take the port.
#include "papers_pins.hpp"
#include "pc_port.hpp"

#include <aggnet/papers_regs.hpp>
#include <aggnet/vhub_protocol.hpp>

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

[[noreturn]] void usage(const char* msg) {
    if (msg && *msg) std::fprintf(stderr, "aggnet-sim: %s\n", msg);
    std::fprintf(stderr,
                 "usage: aggnet-sim --pes N [--dir DIR] [--trace FILE.fst] [--cycles-per-access K]\n"
                 "  Serves a Verilated PAPERS hub with N PEs, one Unix socket per PE at DIR/peK.\n"
                 "  --pes N                 hub size (built sizes: ");
    bool first = true;
    for (unsigned s : sim::papers_rtl_sizes()) std::fprintf(stderr, "%s%u", first ? "" : " ", s), first = false;
    std::fprintf(stderr,
                 ")\n"
                 "  --dir DIR               socket directory (default: a new /tmp/aggnet-XXXXXX)\n"
                 "  --trace FILE.fst        record an FST waveform of the run\n"
                 "  --cycles-per-access K   hub clock cycles each register access takes (default 8)\n"
                 "Stop it with SIGINT/SIGTERM or a client's QUIT request; it removes its sockets.\n");
    std::exit(msg ? 2 : 0);
}

std::string errno_text() { return std::strerror(errno); }

struct Client {
    int fd = -1;
    std::vector<uint8_t> buf;
};

class Hub {
public:
    Hub(unsigned n, std::unique_ptr<sim::PapersPins> pins, uint64_t k, std::string dir)
        : n_(n), pins_(std::move(pins)), k_(k), dir_(std::move(dir)), clients_(n), listen_(n, -1), ops_(n, 0) {
        width_ = R::reg_width(n);
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
            if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
                if (errno == EADDRINUSE && stale(a)) {
                    ::unlink(path.c_str());
                    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) goto bound;
                }
                const std::string e = errno_text();
                ::close(fd);
                throw std::runtime_error("cannot bind " + path + ": " + e +
                                         (errno == EADDRINUSE ? " (another aggnet-sim serves this directory?)" : ""));
            }
        bound:
            listen_[pe] = fd;
            if (::listen(fd, 4) != 0) throw std::runtime_error("listen " + path + ": " + errno_text());
        }
    }

    /// The ppoll loop; returns when a signal or QUIT arrives.
    void serve(const sigset_t& waitmask) {
        std::vector<pollfd> fds;
        std::vector<int> who;  // >= 0: client of PE; < 0: listener of PE -who-1
        while (!quit_ && !g_signal) {
            fds.clear();
            who.clear();
            for (unsigned pe = 0; pe < n_; ++pe) {
                fds.push_back({listen_[pe], POLLIN, 0});
                who.push_back(-int(pe) - 1);
                if (clients_[pe].fd >= 0) {
                    fds.push_back({clients_[pe].fd, POLLIN, 0});
                    who.push_back(int(pe));
                }
            }
            const int r = ::ppoll(fds.data(), fds.size(), nullptr, &waitmask);
            if (r < 0) {
                if (errno == EINTR) continue;
                throw std::runtime_error("ppoll: " + errno_text());
            }
            for (size_t i = 0; i < fds.size() && !quit_; ++i) {
                if (!fds[i].revents) continue;
                if (who[i] < 0)
                    accept_on(unsigned(-who[i] - 1));
                else
                    read_from(unsigned(who[i]));
            }
        }
    }

    void shutdown() {
        for (unsigned pe = 0; pe < n_; ++pe) {
            if (clients_[pe].fd >= 0) ::close(clients_[pe].fd), clients_[pe].fd = -1;
            if (listen_[pe] >= 0) {
                ::close(listen_[pe]);
                listen_[pe] = -1;
                ::unlink(port_path(pe).c_str());
            }
        }
    }

    std::string port_path(unsigned pe) const { return dir_ + "/pe" + std::to_string(pe); }
    uint64_t cycle() const { return pins_->cycle(); }
    const std::vector<uint64_t>& ops() const { return ops_; }
    bool quit_requested() const { return quit_; }

private:
    static bool stale(const sockaddr_un& a) {
        // A socket file nobody listens on is left over from a killed hub.
        const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) return false;
        const bool live = ::connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0;
        ::close(fd);
        return !live;
    }

    static bool send_all(int fd, const void* p, size_t len) {
        const auto* c = static_cast<const uint8_t*>(p);
        while (len) {
            const ssize_t w = ::send(fd, c, len, MSG_NOSIGNAL);
            if (w < 0) {
                if (errno == EINTR) continue;
                if (errno == EAGAIN || errno == EWOULDBLOCK) {
                    pollfd p1{fd, POLLOUT, 0};
                    if (::poll(&p1, 1, 1000) <= 0) return false;  // a client that never reads
                    continue;
                }
                return false;
            }
            c += w;
            len -= size_t(w);
        }
        return true;
    }

    bool reply(int fd, vhub::Reply r, const std::string& text = "") {
        r.text_len = uint32_t(text.size() < vhub::kMaxText ? text.size() : vhub::kMaxText);
        r.cycle = cycle();
        std::vector<uint8_t> out(sizeof r + r.text_len);
        std::memcpy(out.data(), &r, sizeof r);
        std::memcpy(out.data() + sizeof r, text.data(), r.text_len);
        return send_all(fd, out.data(), out.size());
    }

    bool error(int fd, const std::string& text) {
        vhub::Reply r;
        r.status = vhub::kErr;
        return reply(fd, r, "aggnet-sim: " + text);
    }

    void accept_on(unsigned pe) {
        for (;;) {
            const int fd = ::accept4(listen_[pe], nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
            if (fd < 0) return;  // EAGAIN: done
            if (clients_[pe].fd >= 0) {
                // The owner may just have closed (its EOF not yet read): drain it first.
                pollfd p1{clients_[pe].fd, POLLIN, 0};
                while (clients_[pe].fd >= 0 && ::poll(&p1, 1, 0) > 0 && p1.revents) read_from(pe);
            }
            if (clients_[pe].fd >= 0) {
                error(fd, "port " + port_path(pe) + " (PE" + std::to_string(pe) +
                              ") is already in use by another client; one host process per PE");
                ::close(fd);
                std::fprintf(stderr, "aggnet-sim: refused a second client on PE%u\n", pe);
                continue;
            }
            clients_[pe].fd = fd;
            clients_[pe].buf.clear();
        }
    }

    void drop(unsigned pe, const char* why) {
        ::close(clients_[pe].fd);
        clients_[pe].fd = -1;
        clients_[pe].buf.clear();
        // Unplug the cable: S, IR, the mask and the control pins go low.
        pins_->set_data(pe, 0);
        pins_->set_ctrl(pe, 0);
        std::fprintf(stderr, "aggnet-sim: PE%u %s at cycle %llu; its pins are released (0)\n", pe, why,
                     static_cast<unsigned long long>(cycle()));
    }

    void read_from(unsigned pe) {
        Client& c = clients_[pe];
        uint8_t tmp[4096];
        const ssize_t got = ::recv(c.fd, tmp, sizeof tmp, 0);
        if (got == 0) return drop(pe, "disconnected");
        if (got < 0) {
            if (errno == EAGAIN || errno == EINTR) return;
            return drop(pe, "failed");
        }
        c.buf.insert(c.buf.end(), tmp, tmp + got);
        size_t off = 0;
        while (c.buf.size() - off >= sizeof(vhub::Request) && !quit_) {
            vhub::Request q;
            std::memcpy(&q, c.buf.data() + off, sizeof q);
            off += sizeof q;
            if (!handle(pe, q)) return drop(pe, "stopped reading replies");
        }
        c.buf.erase(c.buf.begin(), c.buf.begin() + off);
    }

    void advance() {
        for (uint64_t i = 0; i < k_; ++i) pins_->tick();
    }

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

    bool handle(unsigned pe, const vhub::Request& q) {
        const int fd = clients_[pe].fd;
        if (q.magic != vhub::kMagic)
            return error(fd, "malformed request on PE" + std::to_string(pe) + ": bad magic 0x" +
                                 [&] { char b[8]; std::snprintf(b, sizeof b, "%04x", q.magic); return std::string(b); }() +
                                 " (expected 0xa66e; is this an aggnet vhub client?)");
        const reg_t value = (reg_t(q.hi) << 64) | q.lo;
        vhub::Reply r;
        switch (q.op) {
        case vhub::HELLO:
            r.lo = n_;
            r.hi = pe;
            r.aux = k_;
            return reply(fd, r);
        case vhub::WDATA:
            if (value & ~reg_mask())
                return error(fd, "WDATA value " + hex128(value) + " has bits above the " + std::to_string(width_) +
                                     "-bit data register of a " + std::to_string(n_) + "-PE hub");
            ++ops_[pe];
            advance();
            pins_->set_data(pe, value);
            return reply(fd, r);
        case vhub::WCTRL:
            if (value > 0xff) return error(fd, "WCTRL value " + hex128(value) + " is wider than the 8-bit control register");
            ++ops_[pe];
            advance();
            pins_->set_ctrl(pe, sim::control_reg_to_pins(uint8_t(q.lo)));
            return reply(fd, r);
        case vhub::RSTATUS: {
            ++ops_[pe];
            advance();
            const reg_t st = sim::status_pins_to_reg(pins_->stat(pe), n_) & reg_mask();
            r.lo = uint64_t(st);
            r.hi = uint64_t(st >> 64);
            return reply(fd, r);
        }
        case vhub::CYCLE:
            r.lo = ops_[pe];
            r.aux = k_;
            return reply(fd, r);
        case vhub::QUIT:
            quit_ = true;
            std::fprintf(stderr, "aggnet-sim: QUIT from PE%u\n", pe);
            return reply(fd, r);
        default:
            return error(fd, "malformed request on PE" + std::to_string(pe) + ": unknown op " + std::to_string(q.op));
        }
    }

    unsigned n_;
    std::unique_ptr<sim::PapersPins> pins_;
    uint64_t k_;
    std::string dir_;
    unsigned width_;
    std::vector<Client> clients_;
    std::vector<int> listen_;
    std::vector<uint64_t> ops_;
    bool quit_ = false;
};

unsigned long long parse_num(const char* opt, const char* s, unsigned long long lo, unsigned long long hi) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(s, &end, 0);
    if (!*s || *end || errno || v < lo || v > hi || *s == '-')
        usage((std::string(opt) + " wants a number in " + std::to_string(lo) + ".." + std::to_string(hi) + ", not '" + s + "'").c_str());
    return v;
}

}  // namespace

int main(int argc, char** argv) {
    unsigned n = 0;
    uint64_t k = 8;
    std::string dir, trace;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> const char* {
            if (i + 1 >= argc) usage((a + " needs a value").c_str());
            return argv[++i];
        };
        if (a == "--help" || a == "-h") usage(nullptr);
        else if (a == "--pes") n = unsigned(parse_num("--pes", value(), 2, 64));
        else if (a == "--dir") dir = value();
        else if (a == "--trace") trace = value();
        else if (a == "--cycles-per-access") k = parse_num("--cycles-per-access", value(), 1, 1000000);
        else usage(("unknown argument '" + a + "'").c_str());
    }
    if (!n) usage("--pes N is required");

    std::unique_ptr<sim::PapersPins> pins;
    try {
        pins = sim::make_papers_rtl(n, "aggnet_sim");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "aggnet-sim: %s\n", e.what());
        return 2;
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
    if (dir.empty()) {
        char tmpl[] = "/tmp/aggnet-XXXXXX";
        if (!::mkdtemp(tmpl)) {
            std::fprintf(stderr, "aggnet-sim: mkdtemp /tmp/aggnet-XXXXXX: %s\n", errno_text().c_str());
            return 1;
        }
        dir = tmpl;
        made_dir = true;
    } else {
        while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
        if (::mkdir(dir.c_str(), 0700) == 0)
            made_dir = true;
        else if (errno != EEXIST) {
            std::fprintf(stderr, "aggnet-sim: cannot create --dir %s: %s\n", dir.c_str(), errno_text().c_str());
            return 1;
        }
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
