// aggnet-sim: the virtual hub.  The Verilated aggnet_hub -- the same hub top
// the board tops instantiate -- behind its link port, served over Unix
// sockets (and optionally pseudo-terminals) that carry the link's frames
// (docs/link.md): exactly the bytes a board's USB UART carries, so every
// client of the virtual hub also exercises the link RTL that goes on the
// board.  docs/vhub.md is the user's guide.
//
//   aggnet-sim --pes N [--dir DIR] [--pty] [--engines LIST] [--trace FILE.fst]
//              [--faults PERCENT] [--fault-seed S]
//
// Channels (each one byte stream, each one client at a time):
//   DIR/peK       socket: frames of PE K only (a frame naming another PE is
//                 dropped and logged: a per-PE UART on header pins)
//   DIR/link      socket: frames of any PE (a board's shared USB UART: one
//                 program may act as every PE)
//   DIR/pty-peK, DIR/pty-link   with --pty: the same as pseudo-terminals
//                 (symlinks to /dev/pts/M), for serial:PATH@BAUD?pe=K
//   DIR/control   socket, a line protocol to hold, step and release the hub
//                 clock, read the cycle count, trace, cut the link and quit
//                 (docs/vhub.md; libaggnet's SimControl; `aggnet sim`)
//
// The hub's one byte stream: whole frames of the channels take turns (a
// frame is never interleaved with another), in the order they arrive, fed
// to the link port by sim::LinkStream (sim/link_stream.hpp).  The hub's output frames go to the channel that last sent a
// frame for their PE.  A channel's bytes are cut into frames with the
// link's own decoder; bytes that do not decode (garbage, a corrupted frame)
// still go to the hub in their place, so the RTL's receiver is the one that
// drops and counts them.
//
// Time: the hub clock runs while there is work -- bytes to feed, bytes
// coming out, and kQuietBase + kQuietPerPe * N more after the last one, so that a WAIT whose
// register changed is answered -- and stops when the hub is quiet, so an
// idle hub uses no CPU.  Nothing in the hub depends on wall time: a WAIT's
// timeout is the host's.  `hold` on the control socket stops the clock
// altogether (frames queue), `step K` runs exactly K cycles, `release`
// resumes.
//
// A client that disconnects, or is killed, leaves its PE's registers as it
// last wrote them, as a PC's port register keeps its value when the program
// exits: a PE killed with its barrier signal high keeps it high, and the
// others re-form without it (libaggnet's Papers does).  A new client may
// then take the channel; its HELLO resets the PE's sequence state.  A
// second client on a taken socket is closed at once (logged).  A client
// never holds up the others: replies queue per channel, and a client that
// takes nothing for kStallMs while replies wait, or lets kMaxQueued bytes
// pile up, is dropped (a pty's queue is discarded instead).
//
// --faults P: a fault injector on every channel, both ways: each frame is,
// with probability P%, dropped, hit by a single bit flip, hit by a burst of
// 2..8 flipped bits, duplicated, held back behind the next frame
// (reordered), or preceded by 1..16 garbage bytes (one of the six, equally
// likely; seeded by --fault-seed, printed).  `cut` on the control socket
// drops every frame both ways until `mend`.
#include "hub_rtl.hpp"
#include "link_stream.hpp"

#include <aggnet/cli.hpp>
#include <aggnet/link_defs.hpp>
#include <aggnet/link_frame.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <dirent.h>
#include <fcntl.h>
#include <memory>
#include <poll.h>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>
#include <vector>

using namespace aggnet;
namespace L = aggnet::link_defs;
using aggnet::sim::LinkStream;

namespace {

volatile sig_atomic_t g_signal = 0;
void on_signal(int sig) { g_signal = sig; }

using steady = std::chrono::steady_clock;
using Bytes = std::vector<uint8_t>;

constexpr uint64_t kBurstCycles = 4096;      ///< cycles run between looks at the sockets
// The clock runs kQuietBase + kQuietPerPe * N cycles after the last byte in
// or out.  Long enough for a register change to reach every pending WAIT:
// PAPERS takes 4-6 cycles from a bus write to its status, and link_port
// re-reads the pending WAITs round-robin, 10 cycles each on the PAPERS
// window (S_IDLE, S_PICK, the entry read, S_POLL, the request, 3 cycles of
// papers_bus, the check, S_DONE) and 1 for a PE without one
// (rtl/link/link_port.v), so a full round is at most 10 N cycles.
// test_system_vhub checks that no WAIT answer waits for a keep-alive (at
// N = 16 it fails with 8 cycles per PE).
constexpr uint64_t kQuietBase = 32;
constexpr uint64_t kQuietPerPe = 12;
constexpr size_t kMaxQueued = 64 * 1024;     ///< reply bytes queued for one channel before it is dropped
constexpr size_t kMaxPartial = 4096;         ///< bytes of one undecodable chunk before it is passed on
constexpr size_t kMaxPending = 64 * 1024;    ///< bytes of one channel waiting for the hub before its reading pauses
constexpr int kStallMs = 2000;               ///< a client that takes no reply bytes this long is dropped
constexpr int kAcceptBackoffMs = 100;        ///< pause accepting after EMFILE / ENFILE
constexpr int kReorderMs = 5;                ///< a frame held back for reordering waits at most this long
constexpr size_t kMaxControlLine = 4096;
constexpr unsigned kMaxControlClients = 8;

const char* const kUsage =
    "usage: aggnet-sim --pes N [--dir DIR] [--pty] [--engines LIST] [--trace FILE.fst]\n"
    "                  [--faults PERCENT] [--fault-seed S]\n"
    "  Serves a Verilated aggnet_hub with N PEs; its link frames (docs/link.md) travel over\n"
    "  DIR/peK (PE K only), DIR/link (every PE) and, with --pty, the pseudo-terminals\n"
    "  DIR/pty-peK and DIR/pty-link; DIR/control holds, steps and traces the hub (docs/vhub.md).\n"
    "  --pes N             hub size (built sizes: %s)\n"
    "  --dir DIR           socket directory: created if missing; if it exists it must hold\n"
    "                      nothing but what an aggnet-sim left (default: a new /tmp/aggnet-XXXXXX)\n"
    "  --pty               also offer the channels as pseudo-terminals\n"
    "  --engines LIST      comma-separated engines the hub must have (e.g. papers); refused\n"
    "                      if the built hub lacks one\n"
    "  --trace FILE.fst    record an FST waveform of the run\n"
    "  --faults PERCENT    damage PERCENT%% of the frames both ways (0..100; drops, bit flips,\n"
    "                      bursts, duplicates, reordering, garbage)\n"
    "  --fault-seed S      seed of the fault injector (default: random, printed)\n"
    "Stop it with SIGINT/SIGTERM or `quit` on DIR/control; it removes what it made.\n"
    "Exit: 0 stopped, 1 runtime error, 2 usage error.\n";

std::string built_sizes() {
    std::string b;
    for (unsigned s : sim::hub_rtl_sizes()) b += (b.empty() ? "" : " ") + std::to_string(s);
    return b;
}

void print_usage(FILE* f) { std::fprintf(f, kUsage, built_sizes().c_str()); }

std::string errno_text() { return std::strerror(errno); }

std::string engine_list(uint16_t engines) {
    std::string s;
    for (unsigned w = 1; w < 16; ++w)
        if (engines >> w & 1) {
            const char* n = L::win_name(w);
            s += (s.empty() ? "" : ",") + (n ? std::string(n) : "window" + std::to_string(w));
        }
    return s.empty() ? "none" : s;
}

// ---- the fault injector --------------------------------------------------------

/// One direction of one channel: frames pass through here on their way.
struct Lane {
    Bytes held;                 ///< a frame held back (reordering)
    steady::time_point held_at;
};

class Injector {
public:
    enum Kind { Drop, Flip, Burst, Dup, Reorder, Garbage, kKinds };

    Injector(unsigned percent, uint64_t seed) : percent_(percent), rng_(seed) {}

    /// Passes one frame through a lane; appends what comes out to `out`.
    void pass(Lane& lane, Bytes f, std::vector<Bytes>& out) {
        if (cut_) {
            ++cut_frames_;
            return;
        }
        if (!percent_ || rng_() % 100 >= percent_) return emit(lane, std::move(f), out);
        ++damaged_;
        const Kind k = Kind(rng_() % kKinds);
        ++by_kind_[k];
        switch (k) {
        case Drop:
            return;
        case Flip:
            if (f.size() > 1) f[1 + rng_() % (f.size() - 1)] ^= uint8_t(1u << (rng_() % 8));
            return emit(lane, std::move(f), out);
        case Burst: {
            // 2..8 consecutive bits, after the FLAG.
            const size_t bits = (f.size() - 1) * 8;
            if (bits < 2) return emit(lane, std::move(f), out);
            const size_t len = std::min<size_t>(2 + rng_() % 7, bits);
            const size_t at = 8 + rng_() % (bits - len + 1);
            for (size_t b = at; b < at + len; ++b) f[b / 8] ^= uint8_t(0x80u >> (b % 8));
            return emit(lane, std::move(f), out);
        }
        case Dup:
            emit(lane, f, out);
            return emit(lane, std::move(f), out);
        case Reorder:
            if (!lane.held.empty()) out.push_back(std::move(lane.held));
            lane.held = std::move(f);
            lane.held_at = steady::now();
            return;
        case Garbage: {
            Bytes g(1 + rng_() % 16);
            for (auto& b : g) b = uint8_t(rng_());
            out.push_back(std::move(g));
            return emit(lane, std::move(f), out);
        }
        case kKinds:
            break;
        }
    }
    /// A frame held back too long goes out now.
    static void expire(Lane& lane, steady::time_point now, std::vector<Bytes>& out) {
        if (!lane.held.empty() && now - lane.held_at >= std::chrono::milliseconds(kReorderMs))
            out.push_back(std::move(lane.held)), lane.held.clear();
    }

    bool active() const { return percent_ != 0; }
    uint64_t damaged() const { return damaged_; }
    void set_cut(bool c) { cut_ = c; }
    bool cut() const { return cut_; }
    uint64_t cut_frames() const { return cut_frames_; }
    std::string summary() const {
        static const char* names[kKinds] = {"dropped", "bit-flipped", "burst-flipped", "duplicated", "reordered",
                                            "garbage-led"};
        std::string s = std::to_string(damaged_) + " frames damaged (";
        for (int k = 0; k < kKinds; ++k) s += (k ? ", " : "") + std::to_string(by_kind_[k]) + " " + names[k];
        return s + ")";
    }

private:
    /// A frame goes out after any frame held back before it.
    static void emit(Lane& lane, Bytes f, std::vector<Bytes>& out) {
        out.push_back(std::move(f));
        if (!lane.held.empty()) out.push_back(std::move(lane.held)), lane.held.clear();
    }
    unsigned percent_;
    std::mt19937_64 rng_;
    bool cut_ = false;
    uint64_t damaged_ = 0, cut_frames_ = 0;
    uint64_t by_kind_[kKinds] = {};
};

// ---- channels --------------------------------------------------------------------

struct Channel {
    enum Kind { Sock, Pty } kind = Sock;
    int pe = -1;                 ///< the PE this channel serves; -1: every PE
    std::string path;            ///< DIR/peK, DIR/link, DIR/pty-...
    std::string tty;             ///< pty: /dev/pts/M
    int listen_fd = -1;          ///< socket: the listener
    dev_t dev = 0;               ///< socket: what we bound (removed only if still ours)
    ino_t ino = 0;
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

    std::string name() const { return pe < 0 ? "link" : "PE" + std::to_string(pe); }
    std::string what() const { return (kind == Pty ? "pty " : "socket ") + path; }
};

struct ControlClient {
    int fd = -1;
    std::string in, out;
    bool closing = false;
};

class Hub {
public:
    Hub(unsigned n, std::unique_ptr<sim::HubModel> model, Injector inj)
        : n_(n), h_(std::move(model)), inj_(std::move(inj)),
          quiet_cycles_(kQuietBase + kQuietPerPe * uint64_t(n)), owner_(64, -1) {}

    ~Hub() { shutdown(); }

    /// Resets the hub and asks it, over its own link, what it is.
    void start() {
        h_->reset(3);
        link::Frame f;
        f.pe = 0;
        f.op = L::OP_HELLO;
        in_.clear();
        in_.push(link::encode(f));
        idle_left_ = quiet_cycles_;
        hello_probe_ = true;
        for (uint64_t i = 0; i < 100000 && hello_probe_; ++i) tick();
        if (hello_probe_) throw std::runtime_error("the Verilated hub did not answer HELLO in 100000 cycles");
        run_until_quiet();
    }
    uint16_t engines() const { return engines_; }
    uint64_t clk_hz() const { return clk_hz_; }

    void open_channels(const std::string& dir, bool pty) {
        dir_ = dir;
        pty_ = pty;
        for (int pe = -1; pe < int(n_); ++pe) {
            channels_.push_back(make_socket(pe < 0 ? dir_ + "/link" : dir_ + "/pe" + std::to_string(pe), pe));
            if (pty_) channels_.push_back(make_pty(pe));
        }
        control_ = make_listener(dir_ + "/control");
    }
    std::string pty_paths() const {
        std::string s;
        for (const Channel& c : channels_)
            if (c.kind == Channel::Pty) s += "aggnet-sim: pty " + c.path + " -> " + c.tty + " (" + c.name() + ")\n";
        return s;
    }

    /// The ppoll loop; returns when a signal or `quit` arrives.
    void serve(const sigset_t& waitmask) {
        std::vector<pollfd> fds;
        std::vector<std::pair<int, int>> who;  // (kind, index): 0 listener, 1 channel, 2 control listener, 3 control client
        while (!quit_ && !g_signal) {
            const auto now = steady::now();
            expire_lanes(now);
            drop_stalled(now);
            if (!held_ && (input_left() || idle_left_ > 0)) run(kBurstCycles);
            const bool accepting = now >= accept_paused_until_;
            fds.clear();
            who.clear();
            for (size_t i = 0; i < channels_.size(); ++i) {
                Channel& c = channels_[i];
                if (c.kind == Channel::Sock && accepting) {
                    fds.push_back({c.listen_fd, POLLIN, 0});
                    who.push_back({0, int(i)});
                }
                if (c.fd >= 0) {
                    // A channel with much waiting is not read until the hub takes it.
                    short ev = c.pending_bytes < kMaxPending ? POLLIN : 0;
                    if (!c.out.empty()) ev |= POLLOUT;
                    fds.push_back({c.fd, ev, 0});
                    who.push_back({1, int(i)});
                }
            }
            if (accepting) {
                fds.push_back({control_.fd, POLLIN, 0});
                who.push_back({2, 0});
            }
            for (size_t i = 0; i < ctl_.size(); ++i) {
                fds.push_back({ctl_[i].fd, short(POLLIN | (ctl_[i].out.empty() ? 0 : POLLOUT)), 0});
                who.push_back({3, int(i)});
            }
            timespec ts{}, *tp = nullptr;
            if (!held_ && (input_left() || idle_left_ > 0)) {
                tp = &ts;  // more cycles to run: just look
            } else {
                const auto wake = next_wake(now);
                if (wake != steady::time_point::max()) {
                    const auto left = std::max<steady::duration>(wake - now, std::chrono::milliseconds(0));
                    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
                    ts.tv_sec = time_t(ns / 1000000000);
                    ts.tv_nsec = long(ns % 1000000000);
                    tp = &ts;
                }
            }
            const int r = ::ppoll(fds.data(), fds.size(), tp, &waitmask);
            if (r < 0) {
                if (errno == EINTR) continue;
                throw std::runtime_error("ppoll: " + errno_text());
            }
            for (size_t i = 0; i < fds.size() && !quit_; ++i) {
                if (!fds[i].revents) continue;
                const auto [kind, idx] = who[i];
                if (kind == 0) {
                    accept_on(channels_[size_t(idx)]);
                } else if (kind == 1) {
                    Channel& c = channels_[size_t(idx)];
                    if (c.fd != fds[i].fd) continue;  // dropped meanwhile
                    if (fds[i].revents & POLLOUT) flush(c);
                    if (c.fd == fds[i].fd && (fds[i].revents & (POLLIN | POLLHUP | POLLERR))) read_from(c);
                } else if (kind == 2) {
                    accept_control();
                } else if (size_t(idx) < ctl_.size() && ctl_[size_t(idx)].fd == fds[i].fd) {
                    if (fds[i].revents & POLLOUT) flush_control(ctl_[size_t(idx)]);
                    if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) read_control(ctl_[size_t(idx)]);
                }
            }
            ctl_.erase(std::remove_if(ctl_.begin(), ctl_.end(), [](const ControlClient& c) { return c.fd < 0; }),
                       ctl_.end());
        }
        // Let queued replies (the `quit`'s own) go out before closing.
        for (auto& c : ctl_) flush_control(c);
    }

    void shutdown() {
        for (Channel& c : channels_) {
            if (c.kind == Channel::Sock) {
                if (c.fd >= 0) ::close(c.fd);
                close_listener(c.listen_fd, c.path, c.dev, c.ino);
            } else {
                if (c.fd >= 0) ::close(c.fd);
                if (c.slave >= 0) ::close(c.slave);
                struct stat st {};
                if (::lstat(c.path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) ::unlink(c.path.c_str());
            }
            c.fd = c.slave = -1;
        }
        for (auto& c : ctl_)
            if (c.fd >= 0) ::close(c.fd), c.fd = -1;
        close_listener(control_.fd, control_.path, control_.dev, control_.ino);
    }

    uint64_t cycle() const { return h_->cycle(); }
    std::string stats() const {
        std::string s;
        for (const Channel& c : channels_)
            if (c.frames_in || c.frames_out)
                s += " " + c.name() + (c.kind == Channel::Pty ? "(pty)" : "") + " " + std::to_string(c.frames_in) +
                     "/" + std::to_string(c.frames_out);
        return s.empty() ? " none" : s;
    }
    const Injector& injector() const { return inj_; }

private:
    struct Listener {
        int fd = -1;
        std::string path;
        dev_t dev = 0;
        ino_t ino = 0;
    };

    // ---- set-up ---------------------------------------------------------------

    static Listener make_listener(const std::string& path) {
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
        if (::listen(fd, 4) != 0) throw std::runtime_error("listen " + path + ": " + errno_text());
        return {fd, path, st.st_dev, st.st_ino};
    }

    static void close_listener(int& fd, const std::string& path, dev_t dev, ino_t ino) {
        if (fd < 0) return;
        ::close(fd);
        fd = -1;
        // Remove the socket only if it is still the one we made.
        struct stat st {};
        if (::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode) && st.st_dev == dev && st.st_ino == ino)
            ::unlink(path.c_str());
    }

    static Channel make_socket(const std::string& path, int pe) {
        Channel c;
        c.kind = Channel::Sock;
        c.pe = pe;
        const Listener l = make_listener(path);
        c.path = l.path;
        c.listen_fd = l.fd;
        c.dev = l.dev;
        c.ino = l.ino;
        return c;
    }

    Channel make_pty(int pe) {
        Channel c;
        c.kind = Channel::Pty;
        c.pe = pe;
        c.path = dir_ + (pe < 0 ? "/pty-link" : "/pty-pe" + std::to_string(pe));
        const int m = ::posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
        if (m < 0) throw std::runtime_error("posix_openpt: " + errno_text());
        if (::grantpt(m) != 0 || ::unlockpt(m) != 0) {
            const std::string e = errno_text();
            ::close(m);
            throw std::runtime_error("grantpt/unlockpt: " + e);
        }
        const char* name = ::ptsname(m);
        if (!name) throw std::runtime_error("ptsname: " + errno_text());
        c.tty = name;
        c.fd = m;
        // Our own slave descriptor keeps the pty up between clients (no
        // hang-up, no EIO on the master) and lets us make it raw: no echo,
        // no line discipline, before any client opens it.
        c.slave = ::open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (c.slave < 0) throw std::runtime_error(std::string("cannot open ") + name + ": " + errno_text());
        termios t{};
        ::tcgetattr(c.slave, &t);
        ::cfmakeraw(&t);
        ::tcsetattr(c.slave, TCSANOW, &t);
        if (::symlink(name, c.path.c_str()) != 0)
            throw std::runtime_error("cannot make " + c.path + " -> " + name + ": " + errno_text());
        return c;
    }

    // ---- the hub clock ----------------------------------------------------------

    /// Bytes waiting to enter the hub.
    size_t input_left() const {
        size_t k = in_.size();
        for (const Channel& c : channels_) k += c.pending_bytes;
        return k;
    }

    /// The next frame for the hub's stream, once the last one went in: the
    /// channels take turns.
    bool next_chunk() {
        for (size_t i = 0; i < channels_.size(); ++i) {
            turn_ = (turn_ + 1) % channels_.size();
            Channel& c = channels_[turn_];
            if (c.pending.empty()) continue;
            in_.push(c.pending.front());
            c.pending_bytes -= c.pending.front().size();
            c.pending.pop_front();
            return true;
        }
        return false;
    }

    /// One hub cycle: a queued byte in when the stream offers one, a byte
    /// out whenever the hub offers one.
    void tick() {
        if (in_.empty() && LinkStream::slot(h_->cycle())) next_chunk();
        const bool fed = in_.drive(*h_, h_->cycle());
        const bool txv = h_->tx_valid();
        const uint8_t txb = h_->tx_data();
        h_->tick();
        if (txv) from_hub(txb);
        if (fed || txv)
            idle_left_ = quiet_cycles_;
        else if (idle_left_)
            --idle_left_;
    }

    void run(uint64_t max) {
        for (uint64_t i = 0; i < max && (idle_left_ > 0 || input_left()); ++i) tick();
    }
    void run_until_quiet() {
        while (idle_left_ > 0 || input_left()) tick();
    }

    /// A byte the hub sent: frames are cut out and go to their PE's channel.
    void from_hub(uint8_t b) {
        if (b == L::FLAG) tx_chunk_.clear();
        tx_chunk_.push_back(b);
        if (!tx_dec_.push(b)) return;
        const link::Frame& f = tx_dec_.frame();
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
        inj_.pass(c.out_lane, tx_chunk_, out);
        for (const Bytes& o : out) queue(c, o);
        flush(c);
    }

    /// Whole frames (or undecodable chunks) of a channel join the hub's stream.
    void to_hub(Channel& c, Bytes chunk) {
        std::vector<Bytes> out;
        inj_.pass(c.in_lane, std::move(chunk), out);
        for (Bytes& o : out) enqueue(c, std::move(o));
    }
    static void enqueue(Channel& c, Bytes b) {
        c.pending_bytes += b.size();
        c.pending.push_back(std::move(b));
    }

    void expire_lanes(steady::time_point now) {
        for (Channel& c : channels_) {
            std::vector<Bytes> out;
            Injector::expire(c.in_lane, now, out);
            for (Bytes& o : out) enqueue(c, std::move(o));
            out.clear();
            Injector::expire(c.out_lane, now, out);
            if (c.fd >= 0)
                for (const Bytes& o : out) queue(c, o);
            if (!out.empty() && c.fd >= 0) flush(c);
        }
    }

    // ---- channel I/O --------------------------------------------------------------

    void queue(Channel& c, const Bytes& b) {
        if (c.out.empty()) c.stalled_since = steady::now();
        c.out.insert(c.out.end(), b.begin(), b.end());
    }

    /// Sends what the channel takes; drops the client past the queue bound.
    void flush(Channel& c) {
        while (!c.out.empty()) {
            uint8_t buf[4096];
            const size_t n = std::min(c.out.size(), sizeof buf);
            std::copy(c.out.begin(), c.out.begin() + long(n), buf);
            const ssize_t w = c.kind == Channel::Sock ? ::send(c.fd, buf, n, MSG_NOSIGNAL) : ::write(c.fd, buf, n);
            if (w > 0) {
                c.out.erase(c.out.begin(), c.out.begin() + w);
                c.stalled_since = steady::now();
                continue;
            }
            if (w < 0 && errno == EINTR) continue;
            if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
            // The client is gone (EPIPE, ECONNRESET): what it sent was
            // handled; it is dropped at its EOF.
            c.out.clear();
            return;
        }
        if (c.out.size() > kMaxQueued)
            stalled(c, "stopped reading its replies (" + std::to_string(c.out.size()) + " bytes queued, limit " +
                           std::to_string(kMaxQueued) + ")");
    }

    void drop_stalled(steady::time_point now) {
        for (Channel& c : channels_)
            if (c.fd >= 0 && !c.out.empty() && now - c.stalled_since >= std::chrono::milliseconds(kStallMs))
                stalled(c, "took no reply bytes for " + std::to_string(kStallMs) + " ms (" +
                               std::to_string(c.out.size()) + " bytes queued)");
    }

    void stalled(Channel& c, const std::string& why) {
        c.out.clear();
        if (c.kind == Channel::Pty) {
            // A pty has no client to drop: the replies nobody reads go.
            std::fprintf(stderr, "aggnet-sim: %s: its reader %s; discarded\n", c.what().c_str(), why.c_str());
            ::tcflush(c.fd, TCOFLUSH);
            return;
        }
        drop(c, why);
    }

    void drop(Channel& c, const std::string& why) {
        if (c.fd < 0 || c.kind != Channel::Sock) return;
        ::close(c.fd);
        c.fd = -1;
        c.out.clear();
        c.chunk.clear();
        c.dec = link::Decoder{};
        c.in_lane = c.out_lane = Lane{};
        for (auto& o : owner_)
            if (o >= 0 && &channels_[size_t(o)] == &c) o = -1;
        std::fprintf(stderr, "aggnet-sim: %s client %s at cycle %llu; %s\n", c.name().c_str(), why.c_str(),
                     static_cast<unsigned long long>(cycle()),
                     c.pe < 0 ? "the registers of its PEs stay as it left them"
                              : "its registers stay as it left them");
    }

    /// One connection per call: the listener stays readable while more wait.
    void accept_on(Channel& c) {
        const int fd = accept_one(c.listen_fd, c.path);
        if (fd < 0) return;
        if (c.fd >= 0) {
            // The owner may just have closed (its EOF not yet read): drain it first.
            pollfd p1{c.fd, POLLIN, 0};
            while (c.fd >= 0 && ::poll(&p1, 1, 0) > 0 && p1.revents)
                if (!read_from(c)) break;
        }
        if (c.fd >= 0) {
            // Logged first: the client may read the log as soon as it sees EOF.
            std::fprintf(stderr, "aggnet-sim: refused a second client on %s (%s): one program per channel\n",
                         c.path.c_str(), c.name().c_str());
            ::close(fd);
            return;
        }
        c.fd = fd;
    }

    /// accept4() on a listener; -1 when there is nobody (EAGAIN) or no
    /// descriptor to spare.  Out of descriptors the listener stays readable,
    /// so the listeners are not polled for a while (no spinning) while the
    /// connected clients are still served; logged once per episode.
    int accept_one(int listen_fd, const std::string& path) {
        const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                accept_paused_until_ = steady::now() + std::chrono::milliseconds(kAcceptBackoffMs);
                if (!accept_failing_)
                    std::fprintf(stderr,
                                 "aggnet-sim: cannot accept a client on %s: %s; retrying every %d ms, connected "
                                 "clients are still served\n",
                                 path.c_str(), errno_text().c_str(), kAcceptBackoffMs);
                accept_failing_ = true;
            }
            return -1;
        }
        if (accept_failing_) std::fprintf(stderr, "aggnet-sim: accepting clients again\n");
        accept_failing_ = false;
        return fd;
    }

    /// Reads what the client sent; false if it was dropped.
    bool read_from(Channel& c) {
        uint8_t tmp[4096];
        const ssize_t got = c.kind == Channel::Sock ? ::recv(c.fd, tmp, sizeof tmp, 0) : ::read(c.fd, tmp, sizeof tmp);
        if (got == 0) {
            drop(c, c.chunk.size() > 1 ? "disconnected in the middle of a frame (" + std::to_string(c.chunk.size()) +
                                             " bytes)"
                                       : std::string("disconnected"));
            return false;
        }
        if (got < 0) {
            if (errno == EAGAIN || errno == EINTR || errno == EIO) return true;  // EIO: a pty between clients
            drop(c, "disconnected (" + errno_text() + ")");
            return false;
        }
        for (ssize_t i = 0; i < got; ++i) cut(c, tmp[i]);
        return true;
    }

    /// Cuts a channel's byte stream into frames with the link's decoder.
    void cut(Channel& c, uint8_t b) {
        if (b == L::FLAG && !c.chunk.empty()) to_hub(c, std::move(c.chunk)), c.chunk.clear();  // an aborted partial
        c.chunk.push_back(b);
        const bool good = c.dec.push(b);
        if (good) {
            const link::Frame& f = c.dec.frame();
            if (c.pe >= 0 && f.pe != unsigned(c.pe)) {
                if (c.foreign++ == 0)
                    std::fprintf(stderr,
                                 "aggnet-sim: %s: dropped a frame for PE%u (this channel is PE%d's only; use "
                                 "DIR/link for several PEs); further ones are counted\n",
                                 c.what().c_str(), f.pe, c.pe);
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

    steady::time_point next_wake(steady::time_point now) const {
        steady::time_point t = steady::time_point::max();
        if (now < accept_paused_until_) t = accept_paused_until_;
        for (const Channel& c : channels_) {
            if (c.fd >= 0 && !c.out.empty()) t = std::min(t, c.stalled_since + std::chrono::milliseconds(kStallMs));
            if (!c.in_lane.held.empty()) t = std::min(t, c.in_lane.held_at + std::chrono::milliseconds(kReorderMs));
            if (!c.out_lane.held.empty()) t = std::min(t, c.out_lane.held_at + std::chrono::milliseconds(kReorderMs));
        }
        return t;
    }

    // ---- the control socket ----------------------------------------------------------

    void accept_control() {
        const int fd = accept_one(control_.fd, control_.path);
        if (fd < 0) return;
        if (ctl_.size() >= kMaxControlClients) {
            const std::string m = "err too many control clients (" + std::to_string(kMaxControlClients) + ")\n";
            if (::send(fd, m.data(), m.size(), MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {}
            ::close(fd);
            return;
        }
        ControlClient c;
        c.fd = fd;
        ctl_.push_back(c);
    }

    void read_control(ControlClient& c) {
        char tmp[1024];
        const ssize_t got = ::recv(c.fd, tmp, sizeof tmp, 0);
        if (got <= 0) {
            if (got < 0 && (errno == EAGAIN || errno == EINTR)) return;
            ::close(c.fd);
            c.fd = -1;
            return;
        }
        if (c.closing) return;
        c.in.append(tmp, size_t(got));
        for (size_t nl; (nl = c.in.find('\n')) != std::string::npos && !c.closing;) {
            std::string line = c.in.substr(0, nl);
            c.in.erase(0, nl + 1);
            if (!line.empty() && line.back() == '\r') line.pop_back();
            c.out += control(line) + "\n";
        }
        if (c.in.size() > kMaxControlLine) {
            c.out += "err line longer than " + std::to_string(kMaxControlLine) + " bytes; closing\n";
            c.in.clear();
            c.closing = true;
        }
        flush_control(c);
    }

    void flush_control(ControlClient& c) {
        while (c.fd >= 0 && !c.out.empty()) {
            const ssize_t w = ::send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
            if (w > 0) {
                c.out.erase(0, size_t(w));
                continue;
            }
            if (w < 0 && errno == EINTR) continue;
            if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && c.out.size() <= kMaxQueued) return;
            c.out.clear();
            ::close(c.fd);
            c.fd = -1;
            return;
        }
        if (c.fd >= 0 && c.closing) ::close(c.fd), c.fd = -1;
    }

    std::string ok_cycle() const { return "ok " + std::to_string(cycle()); }

    /// One control command; returns the reply line (without the newline).
    std::string control(const std::string& line) {
        std::istringstream in(line);
        std::string cmd, arg, extra;
        in >> cmd >> arg >> extra;
        auto no_arg = [&]() -> bool { return arg.empty(); };
        if (!extra.empty() || (cmd != "step" && cmd != "trace" && !no_arg()))
            return "err too many arguments for '" + cmd + "'";
        if (cmd == "status") {
            size_t clients = 0;
            for (const Channel& c : channels_)
                if (c.kind == Channel::Sock && c.fd >= 0) ++clients;
            char eng[16];
            std::snprintf(eng, sizeof eng, "0x%04x", engines_);
            return "ok cycle=" + std::to_string(cycle()) + " held=" + (held_ ? "1" : "0") +
                   " pes=" + std::to_string(n_) + " engines=" + eng + " clk_hz=" + std::to_string(clk_hz_) +
                   " queued=" + std::to_string(input_left()) + " clients=" + std::to_string(clients) +
                   " damaged=" + std::to_string(inj_.damaged()) + " cut=" + (inj_.cut() ? "1" : "0");
        }
        if (cmd == "cycle") return ok_cycle();
        if (cmd == "hold") {
            held_ = true;
            return ok_cycle();
        }
        if (cmd == "release") {
            held_ = false;
            return ok_cycle();
        }
        if (cmd == "step") {
            if (!held_) return "err step needs the clock held (send hold first)";
            uint64_t k = 0;
            try {
                k = cli::number("step", arg, 1, 1000000000);
            } catch (const cli::UsageError& e) {
                return std::string("err ") + e.what();
            }
            for (uint64_t i = 0; i < k; ++i) tick();
            return ok_cycle();
        }
        if (cmd == "trace") {
            if (arg.empty()) return "err trace needs a file name (or 'off')";
            if (arg == "off") {
                h_->close_trace();
                return "ok";
            }
            FILE* f = std::fopen(arg.c_str(), "w");
            if (!f) return "err trace " + arg + ": cannot write it: " + errno_text();
            std::fclose(f);
            h_->trace_to(arg);
            return "ok";
        }
        if (cmd == "cut" || cmd == "mend") {
            inj_.set_cut(cmd == "cut");
            std::fprintf(stderr, "aggnet-sim: link %s at cycle %llu\n", cmd == "cut" ? "cut" : "mended",
                         static_cast<unsigned long long>(cycle()));
            return ok_cycle();
        }
        if (cmd == "quit") {
            quit_ = true;
            std::fprintf(stderr, "aggnet-sim: quit from the control socket\n");
            return "ok";
        }
        return "err unknown command '" + cmd + "' (commands: status cycle hold release step trace cut mend quit)";
    }

    unsigned n_;
    std::unique_ptr<sim::HubModel> h_;
    std::string dir_;
    bool pty_ = false;
    Injector inj_;
    uint64_t quiet_cycles_;         ///< cycles the clock runs on after the last byte in or out
    uint64_t idle_left_ = 0;
    bool held_ = false;
    bool quit_ = false;
    bool hello_probe_ = false;
    uint16_t engines_ = 0;
    uint64_t clk_hz_ = 0;
    LinkStream in_;                 ///< the frame entering the link port
    size_t turn_ = 0;               ///< the channel whose frame went in last
    Bytes tx_chunk_;
    link::Decoder tx_dec_;
    std::vector<Channel> channels_;
    std::vector<int> owner_;        ///< per PE: the channel that last sent a frame for it
    Listener control_;
    std::vector<ControlClient> ctl_;
    bool accept_failing_ = false;
    steady::time_point accept_paused_until_{};
};

struct Usage {
    std::string msg;
};

/// --dir DIR: ours to use only if it is empty or holds nothing but what an
/// aggnet-sim makes (sockets nobody listens on, pty-* symlinks into
/// /dev/pts), left by a killed one; those are removed.  Returns whether we
/// created it.  Throws Usage for anything else in it.
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
        ::lstat(path.c_str(), &fs);
        if (S_ISLNK(fs.st_mode) && name.rfind("pty-", 0) == 0) {
            char target[256] = {};
            const ssize_t k = ::readlink(path.c_str(), target, sizeof target - 1);
            if (k > 0 && std::string(target, size_t(k)).rfind("/dev/pts/", 0) == 0) {
                stale.push_back(path);
                continue;
            }
        }
        if (!S_ISSOCK(fs.st_mode)) {
            if (foreign.empty())
                foreign = "'" + name + "' (" +
                          (S_ISDIR(fs.st_mode) ? "a directory" : S_ISREG(fs.st_mode) ? "a regular file" : "not a socket") +
                          ")";
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
        throw std::runtime_error("--dir " + dir + ": socket '" + live +
                                 "' in it answers: another program (an aggnet-sim?) serves this directory");
    if (!foreign.empty())
        throw Usage{"--dir " + dir + " holds " + foreign +
                    ", which aggnet-sim did not make; it only uses an empty directory (or a new path) and never "
                    "removes what it did not create"};
    for (const auto& p : stale) {
        ::unlink(p.c_str());
        std::fprintf(stderr, "aggnet-sim: removed %s, left by a killed hub\n", p.c_str());
    }
    return false;
}

/// --engines LIST: the window of each named engine.
std::vector<unsigned> parse_engines(const std::string& list) {
    std::vector<unsigned> out;
    std::string known;
    for (unsigned w = 1; w < 16; ++w)
        if (const char* n = L::win_name(w)) known += (known.empty() ? "" : ", ") + std::string(n);
    if (list.back() == ',') throw cli::UsageError("--engines " + list + ": an empty engine name after the last ','");
    std::stringstream in(list);
    for (std::string name; std::getline(in, name, ',');) {
        if (name.empty()) throw cli::UsageError("--engines " + list + ": an empty engine name between ','s");
        unsigned found = 0;
        for (unsigned w = 1; w < 16 && !found; ++w)
            if (const char* n = L::win_name(w); n && name == n) found = w;
        if (!found)
            throw cli::UsageError("--engines: unknown engine '" + name + "' (engines: " + known + ")");
        for (unsigned w : out)
            if (w == found) throw cli::UsageError("--engines " + list + ": '" + name + "' is named twice");
        out.push_back(found);
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    unsigned n = 0;
    std::string dir, trace, engines_arg;
    bool have_dir = false, pty = false, have_seed = false;
    unsigned faults = 0;
    uint64_t fault_seed = 0;
    std::vector<unsigned> want_engines;
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
                const auto& sizes = sim::hub_rtl_sizes();
                if (std::find(sizes.begin(), sizes.end(), n) == sizes.end())
                    throw cli::UsageError("--pes " + std::to_string(n) + ": no hub of that size was built (built: " +
                                          built_sizes() + "; add it to AGGNET_HUB_SIZES)");
            } else if (a == "--dir") {
                once(have_dir);
                dir = cli::nonempty("--dir", value());
                have_dir = true;
            } else if (a == "--pty") {
                once(pty);
                pty = true;
            } else if (a == "--engines") {
                once(!engines_arg.empty());
                engines_arg = cli::nonempty("--engines", value());
                want_engines = parse_engines(engines_arg);
            } else if (a == "--trace") {
                once(!trace.empty());
                trace = cli::nonempty("--trace", value());
            } else if (a == "--faults") {
                once(faults != 0);
                faults = unsigned(cli::number("--faults", value(), 0, 100));
            } else if (a == "--fault-seed") {
                once(have_seed);
                fault_seed = cli::number("--fault-seed", value(), 0, UINT64_MAX);
                have_seed = true;
            } else {
                throw cli::UsageError("unknown argument '" + a + "'");
            }
        }
        if (!n) throw cli::UsageError("--pes N is required");
        if (have_seed && !faults) throw cli::UsageError("--fault-seed without --faults");
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
    if (!have_seed) fault_seed = std::random_device{}() * 0x100000001ull ^ uint64_t(::getpid());

    // Signals are blocked except inside ppoll(), so none is lost between the
    // flag check and the wait.  Blocked before the model exists: Verilator
    // may start worker threads (tracing), which inherit this mask, so that
    // SIGINT/SIGTERM can only be taken by the main thread in its ppoll() --
    // a signal handled by a worker would set the flag and leave the main
    // thread asleep (it did, under load: the hub then ignored SIGTERM).
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

    std::unique_ptr<sim::HubModel> model;
    try {
        model = sim::make_hub_rtl(n, "aggnet_sim");
        if (!trace.empty()) {
            model->trace_to(trace);
            std::fprintf(stderr, "aggnet-sim: tracing to %s\n", trace.c_str());
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "aggnet-sim: %s\n", e.what());
        return 1;
    }
    // No cable is plugged into the virtual hub's pins: they read high, as a
    // board's pull-ups hold them, so every PE is absent (papers_hub,
    // Presence) until the link drives it.
    const reg_t floating = (reg_t(1) << papers_regs::reg_width(n)) - 1;
    for (unsigned pe = 0; pe < n; ++pe)
        model->set_data(pe, floating), model->set_ctrl(pe, uint8_t((1u << papers_regs::CTRL_WIDTH) - 1));
    auto hub = std::make_unique<Hub>(n, std::move(model), Injector(faults, fault_seed));
    try {
        hub->start();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "aggnet-sim: %s\n", e.what());
        return 1;
    }
    for (unsigned w : want_engines)
        if (!(hub->engines() >> w & 1)) {
            std::fprintf(stderr, "aggnet-sim: --engines %s: this hub was built without %s (built with: %s)\n",
                         engines_arg.c_str(), L::win_name(w), engine_list(hub->engines()).c_str());
            return cli::kUsageExit;
        }


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
        hub->open_channels(dir, pty);
        std::printf("aggnet-sim: %u PEs at %s\n", n, dir.c_str());
        std::printf("aggnet-sim: engines %s; hub clock %.3f MHz; control socket %s/control\n",
                    engine_list(hub->engines()).c_str(), double(hub->clk_hz()) / 1e6, dir.c_str());
        std::printf("%s", hub->pty_paths().c_str());
        if (faults)
            std::printf("aggnet-sim: fault injector: %u%% of frames, --fault-seed %llu\n", faults,
                        static_cast<unsigned long long>(fault_seed));
        std::fflush(stdout);
        hub->serve(waitmask);
        std::fprintf(stderr, "aggnet-sim: %s after %llu cycles; frames in/out:%s\n",
                     g_signal ? strsignal(g_signal) : "stopped", static_cast<unsigned long long>(hub->cycle()),
                     hub->stats().c_str());
        if (hub->injector().active()) std::fprintf(stderr, "aggnet-sim: %s\n", hub->injector().summary().c_str());
        hub->shutdown();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "aggnet-sim: %s\n", e.what());
        hub->shutdown();
        rc = 1;
    }
    hub.reset();
    if (made_dir && ::rmdir(dir.c_str()) != 0)
        std::fprintf(stderr, "aggnet-sim: left %s in place: %s\n", dir.c_str(), errno_text().c_str());
    return rc;
}
