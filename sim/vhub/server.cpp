// server.cpp: the virtual hub's I/O loop (server.hpp).
#include "server.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <poll.h>
#include <stdexcept>
#include <unistd.h>
#include <utility>
#include <vector>

namespace aggnet::vhub {

namespace {

constexpr uint64_t kBurstCycles = 4096;    ///< cycles run between looks at the sockets
constexpr size_t kMaxPending = 64 * 1024;  ///< bytes of one channel waiting for the hub before its reading pauses

}  // namespace

void Server::open(const std::string& dir, bool pty) {
    for (int pe = -1; pe < int(hub_.pes()); ++pe) {
        hub_.add_channel(Channel::socket(dir, pe));
        if (pty) hub_.add_channel(Channel::pty(dir, pe));
    }
    control_.listen(dir + "/control");
}

void Server::serve(const sigset_t& waitmask, const volatile sig_atomic_t& signal) {
    std::vector<Channel>& channels = hub_.channels();
    std::vector<pollfd> fds;
    std::vector<std::pair<int, int>> who;  // (kind, index): 0 listener, 1 channel, 2 control listener, 3 control client
    while (!control_.quit() && !signal) {
        const auto now = steady::now();
        hub_.expire_lanes(now);
        hub_.drop_stalled(now);
        if (hub_.busy()) hub_.run(kBurstCycles);
        const bool accepting = acceptor_.accepting(now);
        fds.clear();
        who.clear();
        for (size_t i = 0; i < channels.size(); ++i) {
            Channel& c = channels[i];
            if (c.kind == Channel::Sock && accepting) {
                fds.push_back({c.listener.fd, POLLIN, 0});
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
            fds.push_back({control_.listener().fd, POLLIN, 0});
            who.push_back({2, 0});
        }
        std::vector<ControlClient>& ctl = control_.clients();
        for (size_t i = 0; i < ctl.size(); ++i) {
            fds.push_back({ctl[i].fd, short(POLLIN | (ctl[i].out.empty() ? 0 : POLLOUT)), 0});
            who.push_back({3, int(i)});
        }
        timespec ts{}, *tp = nullptr;
        if (hub_.busy()) {
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
        for (size_t i = 0; i < fds.size() && !control_.quit(); ++i) {
            if (!fds[i].revents) continue;
            const auto [kind, idx] = who[i];
            if (kind == 0) {
                accept_on(channels[size_t(idx)]);
            } else if (kind == 1) {
                Channel& c = channels[size_t(idx)];
                if (c.fd != fds[i].fd) continue;  // dropped meanwhile
                if (fds[i].revents & POLLOUT) hub_.flush(c);
                if (c.fd == fds[i].fd && (fds[i].revents & (POLLIN | POLLHUP | POLLERR))) read_from(c);
            } else if (kind == 2) {
                const int fd = acceptor_.accept(control_.listener().fd, control_.listener().path);
                if (fd >= 0) control_.add(fd);
            } else if (size_t(idx) < ctl.size() && ctl[size_t(idx)].fd == fds[i].fd) {
                if (fds[i].revents & POLLOUT) control_.flush(ctl[size_t(idx)]);
                if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) control_.read(ctl[size_t(idx)]);
            }
        }
        control_.sweep();
    }
    // Let queued replies (the `quit`'s own) go out before closing.
    for (auto& c : control_.clients()) control_.flush(c);
}

void Server::close() {
    hub_.close_channels();
    control_.close();
}

/// One connection per call: the listener stays readable while more wait.
void Server::accept_on(Channel& c) {
    const int fd = acceptor_.accept(c.listener.fd, c.path);
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

/// Reads what the client sent; false if it was dropped.
bool Server::read_from(Channel& c) {
    uint8_t tmp[4096];
    const ssize_t got = c.receive(tmp, sizeof tmp);
    if (got == 0) {
        hub_.drop(c, c.chunk.size() > 1
                         ? "disconnected in the middle of a frame (" + std::to_string(c.chunk.size()) + " bytes)"
                         : std::string("disconnected"));
        return false;
    }
    if (got < 0) {
        if (errno == EAGAIN || errno == EINTR || errno == EIO) return true;  // EIO: a pty between clients
        hub_.drop(c, "disconnected (" + errno_text() + ")");
        return false;
    }
    hub_.receive(c, tmp, size_t(got));
    return true;
}

steady::time_point Server::next_wake(steady::time_point now) const {
    steady::time_point t = acceptor_.resumes(now);
    for (const Channel& c : hub_.channels()) t = std::min(t, c.wake());
    return t;
}

}  // namespace aggnet::vhub
