// socket_floor.hpp: the socket-star floor of a barrier on this machine, for
// the benchmark tools (aggnet_bench_host, aggnet_bench_load).
//
// A star of Unix stream sockets with nothing behind it: a hub process that
// waits for one message of `req` bytes from each of N PEs and then sends
// each a reply of `rep` bytes, and N PEs (threads of this process, or
// processes) that send, wait for the reply and time the round trip.  That is
// a barrier over the virtual hub's sockets with the hub's simulation taken
// out: what no virtual hub can beat on this machine, measured in the same
// run as the real figures so that their ratio is what counts on a noisy
// machine.  `msgs` messages each way per barrier (1 for a CALL, 4 for the
// old four-frame barrier) are sent one after the other, each waiting for
// its reply.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <poll.h>
#include <stdexcept>
#include <string>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace aggnet::tools {

struct StarFloor {
    unsigned n = 0, msgs = 0, rounds = 0;
    double median_us = 0, p99_us = 0;  ///< one barrier (msgs exchanges), all PEs pooled
    double per_sec = 0;                ///< barriers per second of the slowest PE
};

namespace star_detail {

inline bool full_io(int fd, void* buf, size_t n, bool out) {
    auto* p = static_cast<char*>(buf);
    for (size_t done = 0; done < n;) {
        const ssize_t k = out ? ::write(fd, p + done, n - done) : ::read(fd, p + done, n - done);
        if (k <= 0) return false;
        done += size_t(k);
    }
    return true;
}

/// The hub: rounds * msgs times, a message from every PE, then a reply to each.
inline void hub(const std::vector<int>& fds, unsigned rounds, unsigned msgs, size_t req, size_t rep) {
    std::vector<char> in(req), out(rep, 0x5a);
    const size_t n = fds.size();
    std::vector<pollfd> pf(n);
    for (uint64_t step = 0; step < uint64_t(rounds) * msgs; ++step) {
        std::vector<bool> got(n, false);
        size_t have = 0;
        while (have < n) {
            for (size_t i = 0; i < n; ++i) pf[i] = {fds[i], short(got[i] ? 0 : POLLIN), 0};
            if (::poll(pf.data(), nfds_t(n), 5000) <= 0) return;  // a PE died: give up
            for (size_t i = 0; i < n; ++i)
                if (!got[i] && (pf[i].revents & (POLLIN | POLLHUP))) {
                    if (!full_io(fds[i], in.data(), req, false)) return;
                    got[i] = true;
                    ++have;
                }
        }
        for (size_t i = 0; i < n; ++i)
            if (!full_io(fds[i], out.data(), rep, true)) return;
    }
}

/// One PE: returns the round trips of its barriers (us) and its elapsed seconds.
inline double pe(int fd, unsigned rounds, unsigned msgs, size_t req, size_t rep, std::vector<double>& us) {
    using clk = std::chrono::steady_clock;
    std::vector<char> out(req, 0x7e), in(rep);
    us.assign(rounds, 0.0);
    const auto start = clk::now();
    for (unsigned r = 0; r < rounds; ++r) {
        const auto t0 = clk::now();
        for (unsigned m = 0; m < msgs; ++m)
            if (!full_io(fd, out.data(), req, true) || !full_io(fd, in.data(), rep, false))
                throw std::runtime_error("socket star: the hub went away");
        us[r] = std::chrono::duration<double, std::micro>(clk::now() - t0).count();
    }
    return std::chrono::duration<double>(clk::now() - start).count();
}

inline double pct(std::vector<double>& v, double q) {
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, size_t(q * double(v.size() - 1) + 0.5))];
}

}  // namespace star_detail

/// Measure the floor; `processes`: PEs are forked processes (as N host
/// programs), else threads of this process (as one program driving N PEs).
inline StarFloor socket_star(unsigned n, unsigned rounds, unsigned msgs, size_t req, size_t rep, bool processes) {
    namespace S = star_detail;
    std::vector<int> hub_end(n), pe_end(n);
    for (unsigned i = 0; i < n; ++i) {
        int sv[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) throw std::runtime_error("socketpair failed");
        hub_end[i] = sv[0];
        pe_end[i] = sv[1];
    }
    const pid_t hub_pid = ::fork();
    if (hub_pid < 0) throw std::runtime_error("fork failed");
    if (hub_pid == 0) {
        for (int fd : pe_end) ::close(fd);
        S::hub(hub_end, rounds, msgs, req, rep);
        ::_exit(0);
    }
    for (int fd : hub_end) ::close(fd);
    std::vector<std::vector<double>> us(n);
    std::vector<double> secs(n, 0.0);
    bool ok = true;
    if (processes) {
        std::vector<pid_t> kids;
        std::vector<int> pipes;
        for (unsigned i = 0; i < n; ++i) {
            int p[2];
            if (::pipe(p) != 0) throw std::runtime_error("pipe failed");
            const pid_t k = ::fork();
            if (k == 0) {
                ::close(p[0]);
                std::vector<double> mine;
                double s = 0;
                try {
                    s = S::pe(pe_end[i], rounds, msgs, req, rep, mine);
                } catch (const std::exception&) {
                    ::_exit(1);
                }
                const bool w = S::full_io(p[1], &s, sizeof s, true) &&
                               S::full_io(p[1], mine.data(), mine.size() * sizeof(double), true);
                ::_exit(w ? 0 : 1);
            }
            ::close(p[1]);
            kids.push_back(k);
            pipes.push_back(p[0]);
        }
        for (unsigned i = 0; i < n; ++i) {
            us[i].assign(rounds, 0.0);
            if (!S::full_io(pipes[i], &secs[i], sizeof(double), false) ||
                !S::full_io(pipes[i], us[i].data(), rounds * sizeof(double), false))
                ok = false;
            ::close(pipes[i]);
            int st = 0;
            ::waitpid(kids[i], &st, 0);
            if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) ok = false;
        }
    } else {
        std::vector<std::thread> ts;
        std::vector<char> failed(n, 0);
        for (unsigned i = 0; i < n; ++i)
            ts.emplace_back([&, i] {
                try {
                    secs[i] = S::pe(pe_end[i], rounds, msgs, req, rep, us[i]);
                } catch (const std::exception&) {
                    failed[i] = 1;
                }
            });
        for (auto& t : ts) t.join();
        for (char f : failed)
            if (f) ok = false;
    }
    for (int fd : pe_end) ::close(fd);
    int st = 0;
    ::waitpid(hub_pid, &st, 0);
    if (!ok) throw std::runtime_error("socket star: a PE failed");
    std::vector<double> all;
    for (auto& v : us) all.insert(all.end(), v.begin(), v.end());
    StarFloor f;
    f.n = n;
    f.msgs = msgs;
    f.rounds = rounds;
    f.median_us = S::pct(all, 0.5);
    f.p99_us = S::pct(all, 0.99);
    f.per_sec = double(rounds) / *std::max_element(secs.begin(), secs.end());
    return f;
}

}  // namespace aggnet::tools
