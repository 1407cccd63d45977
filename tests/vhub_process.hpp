// vhub_process.hpp: aggnet-sim (the virtual hub) as a child process of a
// test, and PE client threads over its sockets -- the same library path a
// host program takes to a board (open_papers_port: link frames over
// DIR/peK).  Shared by the system and fault suites.
#pragma once

#include "pe_threads.hpp"

#include <aggnet/device.hpp>
#include <aggnet/papers.hpp>
#include <aggnet/papers_device.hpp>
#include <aggnet/sim_control.hpp>
#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

#ifndef AGGNET_SIM_EXE
#error "AGGNET_SIM_EXE: path of aggnet-sim"
#endif

namespace aggnet::test {

/// How long a test lets aggnet-sim take to exit after SIGTERM, QUIT or a bad
/// option: generous, because a loaded 2-core CI machine can starve it for
/// seconds; a hub that never exits still fails.
constexpr int kExitMs = 20000;

inline bool exists(const std::string& p) {
    struct stat st;
    return ::lstat(p.c_str(), &st) == 0;
}

inline std::string slurp(const std::string& path) {
    std::ifstream f(path);
    return std::string((std::istreambuf_iterator<char>(f)), {});
}

/// aggnet-sim as a child process; SIGTERM and reap on destruction.  Its
/// stderr goes to a file (log()) so tests can read what it logged.
class SimProcess {
public:
    struct Options {
        std::vector<std::string> args;
        rlim_t nofile = 0;      ///< RLIMIT_NOFILE for the hub (0: inherit)
        bool expect_start = true;
    };
    explicit SimProcess(unsigned n, std::vector<std::string> extra = {}) : SimProcess(n, Options{std::move(extra)}) {}
    SimProcess(unsigned n, Options o) {
        char tmpl[] = "/tmp/aggnet-test-log-XXXXXX";
        const int lf = ::mkstemp(tmpl);
        REQUIRE(lf >= 0);
        log_ = tmpl;
        int out[2];
        REQUIRE(::pipe(out) == 0);
        pid_ = ::fork();
        REQUIRE(pid_ >= 0);
        if (pid_ == 0) {
            ::dup2(out[1], 1);
            ::dup2(lf, 2);
            ::close(out[0]);
            ::close(out[1]);
            ::close(lf);
            // Only stdin/stdout/stderr go to the hub: its descriptor count is
            // then known (the EMFILE test counts on it).
            for (int fd = 3; fd < 4096; ++fd) ::close(fd);
            if (o.nofile) {
                rlimit rl{o.nofile, o.nofile};
                ::setrlimit(RLIMIT_NOFILE, &rl);
            }
            std::vector<std::string> args{AGGNET_SIM_EXE};
            if (n) args.insert(args.end(), {"--pes", std::to_string(n)});
            args.insert(args.end(), o.args.begin(), o.args.end());
            std::vector<char*> argv;
            for (auto& a : args) argv.push_back(&a[0]);
            argv.push_back(nullptr);
            ::execv(argv[0], argv.data());
            ::_exit(127);
        }
        ::close(lf);
        ::close(out[1]);
        // First line: "aggnet-sim: N PEs at DIR".
        std::string line;
        char c;
        while (::read(out[0], &c, 1) == 1 && c != '\n') line += c;
        ::close(out[0]);
        const std::string key = " PEs at ";
        const auto at = line.find(key);
        if (o.expect_start) {
            INFO("aggnet-sim log: " << log());
            REQUIRE(at != std::string::npos);
            dir_ = line.substr(at + key.size());
        } else {
            started_ = at != std::string::npos;
        }
    }
    ~SimProcess() {
        if (pid_ > 0) {
            ::kill(pid_, SIGCONT);
            ::kill(pid_, SIGTERM);
            reap(kExitMs);
            if (pid_ > 0) {
                std::fprintf(stderr, "aggnet-sim (pid %d) did not exit %d ms after SIGTERM; killed. Its log:\n%s\n%s\n",
                             int(pid_), kExitMs, log().c_str(), describe_stuck().c_str());
                ::kill(pid_, SIGKILL), ::waitpid(pid_, nullptr, 0);
            }
        }
        ::unlink(log_.c_str());
    }
    /// What a child that does not exit is doing (its state, signal masks,
    /// kernel wait channel and stack), for failure messages.
    std::string describe_stuck() const {
        if (pid_ <= 0) return "exited";
        const std::string p = "/proc/" + std::to_string(pid_);
        std::string out, line;
        std::ifstream st(p + "/status");
        while (std::getline(st, line))
            if (line.rfind("State", 0) == 0 || line.rfind("Sig", 0) == 0 || line.rfind("ShdPnd", 0) == 0)
                out += line + "\n";
        out += "wchan: " + slurp(p + "/wchan") + "\nkernel stack:\n" + slurp(p + "/stack");
        return out;
    }
    const std::string& dir() const { return dir_; }
    /// PE K's own socket, and the shared link socket acting as PE K.
    std::string dev(unsigned pe) const { return "sim:" + dir_ + "/pe" + std::to_string(pe); }
    std::string link_dev(unsigned pe) const { return "sim:" + dir_ + "/link?pe=" + std::to_string(pe); }
    /// A client of the hub's control socket (DIR/control).
    SimControl control() const { return SimControl(dir_); }
    std::string log() const { return slurp(log_); }
    bool started() const { return started_; }
    pid_t pid() const { return pid_; }
    /// Waits up to ms of wall time for the child to exit; returns its wait
    /// status or -1.
    int reap(int ms) {
        const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
        for (;;) {
            int st = 0;
            if (::waitpid(pid_, &st, WNOHANG) == pid_) {
                pid_ = -1;
                return st;
            }
            if (std::chrono::steady_clock::now() >= end) return -1;
            ::usleep(1000);
        }
    }
    /// CPU time the child has used, in clock ticks.
    long cpu_ticks() const {
        std::ifstream f("/proc/" + std::to_string(pid_) + "/stat");
        std::string s((std::istreambuf_iterator<char>(f)), {});
        std::istringstream in(s.substr(s.rfind(')') + 2));
        std::string tok;
        long utime = 0, stime = 0;
        for (int field = 3; in >> tok; ++field) {
            if (field == 14) utime = std::stol(tok);
            if (field == 15) { stime = std::stol(tok); break; }
        }
        return utime + stime;
    }

private:
    pid_t pid_ = -1;
    std::string dir_, log_;
    bool started_ = true;
};

/// Opens hub.dev(pe) for PEs 0..n-1 (open_papers_port: a LinkPapersPort over
/// the PE's socket), then runs fn(pe, port) on one thread per PE; rethrows
/// the first error.
inline void run_pes(const SimProcess& hub, unsigned n, const std::function<void(unsigned, PapersPort&)>& fn) {
    std::vector<std::unique_ptr<PapersPort>> ports;
    for (unsigned pe = 0; pe < n; ++pe) ports.push_back(open_papers_port(hub.dev(pe)));
    sim::on_pe_threads(n, [&](unsigned pe) { fn(pe, *ports[pe]); });
}

/// Runs a program (argv) to completion; returns its exit status and output.
/// A program still running after `limit` is killed (SIGKILL) and the test
/// fails saying so: a command that was meant to be refused but was accepted
/// (a hub that starts and serves for ever) must not hang the test run.
struct Run {
    int status;
    std::string out;
};
inline Run run_program(std::vector<std::string> args,
                       std::chrono::milliseconds limit = std::chrono::milliseconds(30000)) {
    char tmpl[] = "/tmp/aggnet-test-out-XXXXXX";
    const int fd = ::mkstemp(tmpl);
    REQUIRE(fd >= 0);
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        ::dup2(fd, 1);
        ::dup2(fd, 2);
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(&a[0]);
        argv.push_back(nullptr);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    ::close(fd);
    int st = 0;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    bool killed = false;
    while (::waitpid(pid, &st, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &st, 0);
            killed = true;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    Run r{WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), slurp(tmpl)};
    if (killed) FAIL_CHECK(args[0] << " still ran after " << limit.count() << " ms and was killed; output: " << r.out);
    ::unlink(tmpl);
    return r;
}

}  // namespace aggnet::test
