// aggnet_bench_load: load and idle figures of the virtual hub, for `make bench`.
//
//   aggnet_bench_load OUT.csv [--sim PATH] [--pes N[,N...]] [--barriers B] [--idle-ms T]
//
// Load: starts aggnet-sim with N PEs and N separate PE *processes* (fork),
// each doing B barriers over all PEs through its own sim: socket, exactly as N
// host programs on one machine would.  Reports barriers per second (B over the
// wall time of the slowest PE, from the first barrier to the last) and the
// median / p99 round trip of one barrier, all PEs pooled.
//
// Idle: PE0 waits (p_wait, timeout T) for PE1, which is attached but never
// arrives; reports the link frames PE0 sent per second while waiting (its
// LinkClient's count: the WAIT and its keep-alive resends) and PE0's CPU time
// over the wait.
#include <aggnet/cli.hpp>
#include <aggnet/link_papers.hpp>
#include <aggnet/papers.hpp>
#include <aggnet/papers_device.hpp>

#include "sim_child.hpp"
#include "socket_floor.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#ifndef AGGNET_SIM_EXE
#define AGGNET_SIM_EXE "aggnet-sim"
#endif

using namespace aggnet;
using clk = std::chrono::steady_clock;

namespace {

[[noreturn]] void usage(const std::string& msg) {
    if (!msg.empty()) std::fprintf(stderr, "aggnet_bench_load: %s\n", msg.c_str());
    std::fprintf(stderr, "usage: aggnet_bench_load OUT.csv [--sim PATH] [--pes N[,N...]] [--barriers B] [--idle-ms T]\n");
    std::exit(msg.empty() ? 0 : 2);
}

unsigned number(const std::string& opt, const std::string& s, unsigned lo, unsigned hi) {
    try {
        return unsigned(cli::number(opt, s, lo, hi));
    } catch (const cli::UsageError& e) {
        usage(e.what());
    }
}

/// aggnet-sim with n PEs (sim_child.hpp).
struct Hub : tools::SimChild {
    Hub(const std::string& sim, unsigned n) : SimChild(sim, {"--pes", std::to_string(n), "--engines", "papers"}) {}
};

double pct(std::vector<double>& v, double q) {
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, size_t(q * double(v.size() - 1) + 0.5))];
}

struct Load {
    unsigned n, barriers;
    double per_sec, median_us, p99_us;
};

/// One PE process: attach, barrier B times, write the latencies (us, double)
/// and the elapsed seconds to fd.
int pe_main(const std::string& dev, unsigned barriers, int fd) {
    try {
        auto t = open_papers_port(dev);
        Papers p(*t);
        p.enqueue(p.all_mask());
        p.wait();  // everybody attached
        std::vector<double> us(barriers);
        const auto start = clk::now();
        for (unsigned i = 0; i < barriers; ++i) {
            const auto t0 = clk::now();
            p.wait();
            us[i] = std::chrono::duration<double, std::micro>(clk::now() - t0).count();
        }
        const double secs = std::chrono::duration<double>(clk::now() - start).count();
        p.wait();  // nobody leaves (and closes its port) while others still count
        const size_t bytes = us.size() * sizeof(double);
        if (::write(fd, &secs, sizeof secs) != ssize_t(sizeof secs)) return 1;
        for (size_t done = 0; done < bytes;) {
            const ssize_t w = ::write(fd, reinterpret_cast<const char*>(us.data()) + done, bytes - done);
            if (w <= 0) return 1;
            done += size_t(w);
        }
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "PE %s: %s\n", dev.c_str(), e.what());
        return 1;
    }
}

Load load(const std::string& sim, unsigned n, unsigned barriers) {
    Hub hub(sim, n);
    std::vector<pid_t> kids;
    std::vector<int> fds;
    for (unsigned pe = 0; pe < n; ++pe) {
        int p[2];
        if (::pipe(p) != 0) throw std::runtime_error("pipe");
        const pid_t k = ::fork();
        if (k == 0) {
            ::close(p[0]);
            ::_exit(pe_main(hub.dev(pe), barriers, p[1]));
        }
        ::close(p[1]);
        kids.push_back(k);
        fds.push_back(p[0]);
    }
    std::vector<double> all;
    double slowest = 0;
    bool ok = true;
    for (unsigned pe = 0; pe < n; ++pe) {
        double secs = 0;
        std::vector<double> us(barriers);
        const size_t bytes = us.size() * sizeof(double);
        bool got = ::read(fds[pe], &secs, sizeof secs) == ssize_t(sizeof secs);
        for (size_t done = 0; got && done < bytes;) {
            const ssize_t r = ::read(fds[pe], reinterpret_cast<char*>(us.data()) + done, bytes - done);
            if (r <= 0) got = false;
            else done += size_t(r);
        }
        ::close(fds[pe]);
        int st = 0;
        ::waitpid(kids[pe], &st, 0);
        if (!got || !WIFEXITED(st) || WEXITSTATUS(st) != 0) ok = false;
        slowest = std::max(slowest, secs);
        all.insert(all.end(), us.begin(), us.end());
    }
    if (!ok) throw std::runtime_error("a PE process failed (N = " + std::to_string(n) + ")");
    return {n, barriers, double(barriers) / slowest, pct(all, 0.5), pct(all, 0.99)};
}

struct Idle {
    double ms, requests_per_sec, cpu_ms;
};

Idle idle(const std::string& sim, unsigned ms) {
    Hub hub(sim, 2);
    auto t0 = open_papers_port(hub.dev(0));
    auto t1 = open_papers_port(hub.dev(1));
    Papers p1(*t1);  // attached, never arrives
    Papers p0(*t0);
    p0.enqueue(0x3);
    const link::LinkClient& c0 = link_of(*t0)->client();
    const uint64_t ops0 = c0.stats().frames_sent;
    rusage r0{}, r1{};
    ::getrusage(RUSAGE_THREAD, &r0);
    const auto start = clk::now();
    try {
        p0.wait(std::chrono::milliseconds(ms));
    } catch (const TimeoutError&) {
    }
    const double secs = std::chrono::duration<double>(clk::now() - start).count();
    ::getrusage(RUSAGE_THREAD, &r1);
    const uint64_t ops = c0.stats().frames_sent - ops0;
    auto us = [](const rusage& r) {
        return double(r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e6 + double(r.ru_utime.tv_usec + r.ru_stime.tv_usec);
    };
    return {secs * 1e3, double(ops) / secs, (us(r1) - us(r0)) / 1e3};
}

}  // namespace

int main(int argc, char** argv) {
    std::string csv, sim = AGGNET_SIM_EXE;
    std::vector<unsigned> sizes{8, 16};
    unsigned barriers = 10000, idle_ms = 2000;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto val = [&]() -> std::string {
            if (i + 1 >= argc) usage(a + " needs a value");
            return argv[++i];
        };
        if (a == "--help" || a == "-h") usage("");
        else if (a == "--sim") sim = val();
        else if (a == "--pes") {
            sizes.clear();
            std::string v = val();
            for (size_t pos = 0; pos <= v.size();) {
                const auto comma = v.find(',', pos);
                sizes.push_back(number("--pes", v.substr(pos, comma - pos), 2, 64));
                pos = comma == std::string::npos ? v.size() + 1 : comma + 1;
            }
        } else if (a == "--barriers") barriers = number(a, val(), 1, 10000000);
        else if (a == "--idle-ms") idle_ms = number(a, val(), 100, 600000);
        else if (csv.empty() && a[0] != '-') csv = a;
        else usage("unexpected argument '" + a + "'");
    }
    if (csv.empty()) usage("missing OUT.csv");
    std::signal(SIGPIPE, SIG_IGN);
    std::vector<Load> loads;
    std::vector<tools::StarFloor> floors;  // the socket-star floor per N, same run (socket_floor.hpp)
    Idle id{};
    try {
        for (unsigned n : sizes) {
            loads.push_back(load(sim, n, barriers));
            floors.push_back(tools::socket_star(n, barriers, 1, 11, 10, true));
        }
        id = idle(sim, idle_ms);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "aggnet_bench_load: %s\n", e.what());
        return 1;
    }
    std::printf("\nVirtual hub under load: N PE processes, each %u barriers over all PEs (sim: sockets)\n\n", barriers);
    std::printf("%-6s %10s %14s %12s %12s %16s %14s\n", "pes", "barriers", "barriers_per_s", "median_us", "p99_us",
                "floor_per_s", "floor_med_us");
    for (size_t i = 0; i < loads.size(); ++i) {
        const Load& l = loads[i];
        std::printf("%-6u %10u %14.0f %12.1f %12.1f %16.0f %14.1f\n", l.n, l.barriers, l.per_sec, l.median_us,
                    l.p99_us, floors[i].per_sec, floors[i].median_us);
    }
    std::printf("\nfloor: a socket star with nothing simulated, N processes, one exchange per barrier, same run\n");
    std::printf("\nIdle wait: PE0 waits %.0f ms for PE1 that never arrives: %.1f link frames/s to the hub, %.1f ms CPU\n",
                id.ms, id.requests_per_sec, id.cpu_ms);
    std::ofstream f(csv);
    f << "what,pes,barriers,barriers_per_s,median_us,p99_us,idle_requests_per_s,idle_cpu_ms\n";
    for (auto& l : loads) f << "load," << l.n << ',' << l.barriers << ',' << l.per_sec << ',' << l.median_us << ',' << l.p99_us << ",,\n";
    for (auto& fl : floors)
        f << "floor," << fl.n << ',' << fl.rounds << ',' << fl.per_sec << ',' << fl.median_us << ',' << fl.p99_us << ",,\n";
    f << "idle,2,,,,," << id.requests_per_sec << ',' << id.cpu_ms << '\n';
    if (!f) {
        std::fprintf(stderr, "aggnet_bench_load: cannot write %s\n", csv.c_str());
        return 1;
    }
    std::printf("wrote %s\n", csv.c_str());
    return 0;
}
