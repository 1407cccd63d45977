// sim_child.hpp: aggnet-sim as a child process of a benchmark tool: started
// with the given arguments, its socket directory read from its first line
// ("aggnet-sim: N PEs at DIR"), stopped with SIGTERM (or waited for after a
// quit on its control socket, SimControl::quit()) when the object goes.
// Shared by aggnet_bench_host and aggnet_bench_load.
#pragma once

#include <csignal>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace aggnet::tools {

class SimChild {
public:
    SimChild(const std::string& exe, std::vector<std::string> args) {
        int out[2];
        if (::pipe(out) != 0) throw std::runtime_error("pipe failed");
        pid_ = ::fork();
        if (pid_ < 0) throw std::runtime_error("fork failed");
        if (pid_ == 0) {
            ::dup2(out[1], 1);
            ::close(out[0]);
            ::close(out[1]);
            args.insert(args.begin(), exe);
            std::vector<char*> argv;
            for (auto& a : args) argv.push_back(&a[0]);
            argv.push_back(nullptr);
            ::execv(exe.c_str(), argv.data());
            ::_exit(127);
        }
        ::close(out[1]);
        std::string line;
        char c;
        while (::read(out[0], &c, 1) == 1 && c != '\n') line += c;
        ::close(out[0]);
        const auto at = line.find(" PEs at ");
        if (at == std::string::npos) {
            ::waitpid(pid_, nullptr, 0);
            pid_ = -1;
            throw std::runtime_error(exe + " did not start (is it built? run it by hand to see why)");
        }
        dir_ = line.substr(at + 8);
    }
    ~SimChild() { stop(); }
    SimChild(const SimChild&) = delete;
    SimChild& operator=(const SimChild&) = delete;

    const std::string& dir() const { return dir_; }
    std::string dev(unsigned pe) const { return "sim:" + dir_ + "/pe" + std::to_string(pe); }
    /// SIGTERM (unless it already stopped after a quit) and reap; its exit status.
    int stop() {
        if (pid_ <= 0) return 0;
        int st = 0;
        if (::waitpid(pid_, &st, WNOHANG) != pid_) {
            ::kill(pid_, SIGTERM);
            ::waitpid(pid_, &st, 0);
        }
        pid_ = -1;
        return st;
    }

private:
    pid_t pid_ = -1;
    std::string dir_;
};

}  // namespace aggnet::tools
