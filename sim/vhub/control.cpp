// control.cpp: the control socket's line protocol (control.hpp).
#include "control.hpp"

#include <aggnet/cli.hpp>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <sys/socket.h>
#include <unistd.h>

namespace aggnet::vhub {

void Control::add(int fd) {
    if (clients_.size() >= kMaxClients) {
        const std::string m = "err too many control clients (" + std::to_string(kMaxClients) + ")\n";
        if (::send(fd, m.data(), m.size(), MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {}
        ::close(fd);
        return;
    }
    ControlClient c;
    c.fd = fd;
    clients_.push_back(c);
}

void Control::read(ControlClient& c) {
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
        c.out += handle(line) + "\n";
    }
    if (c.in.size() > kMaxLine) {
        c.out += "err line longer than " + std::to_string(kMaxLine) + " bytes; closing\n";
        c.in.clear();
        c.closing = true;
    }
    flush(c);
}

void Control::flush(ControlClient& c) {
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

void Control::sweep() {
    clients_.erase(std::remove_if(clients_.begin(), clients_.end(), [](const ControlClient& c) { return c.fd < 0; }),
                   clients_.end());
}

void Control::close() {
    for (auto& c : clients_)
        if (c.fd >= 0) ::close(c.fd), c.fd = -1;
    listener_.close();
}

std::string Control::handle(const std::string& line) {
    std::istringstream in(line);
    std::string cmd, arg, extra;
    in >> cmd >> arg >> extra;
    if (!extra.empty() || (cmd != "step" && cmd != "trace" && !arg.empty()))
        return "err too many arguments for '" + cmd + "'";
    if (cmd == "status") {
        char eng[16];
        std::snprintf(eng, sizeof eng, "0x%04x", hub_.engines());
        return "ok cycle=" + std::to_string(hub_.cycle()) + " held=" + (hub_.held() ? "1" : "0") +
               " pes=" + std::to_string(hub_.pes()) + " engines=" + eng + " clk_hz=" + std::to_string(hub_.clk_hz()) +
               " queued=" + std::to_string(hub_.input_left()) + " clients=" + std::to_string(hub_.clients()) +
               " damaged=" + std::to_string(hub_.injector().damaged()) + " cut=" + (hub_.injector().cut() ? "1" : "0");
    }
    if (cmd == "cycle") return ok_cycle();
    if (cmd == "hold") {
        hub_.hold();
        return ok_cycle();
    }
    if (cmd == "release") {
        hub_.release();
        return ok_cycle();
    }
    if (cmd == "step") {
        if (!hub_.held()) return "err step needs the clock held (send hold first)";
        uint64_t k = 0;
        try {
            k = cli::number("step", arg, 1, 1000000000);
        } catch (const cli::UsageError& e) {
            return std::string("err ") + e.what();
        }
        hub_.step(k);
        return ok_cycle();
    }
    if (cmd == "trace") {
        if (arg.empty()) return "err trace needs a file name (or 'off')";
        if (arg == "off") {
            hub_.trace_off();
            return "ok";
        }
        FILE* f = std::fopen(arg.c_str(), "w");
        if (!f) return "err trace " + arg + ": cannot write it: " + errno_text();
        std::fclose(f);
        hub_.trace_to(arg);
        return "ok";
    }
    if (cmd == "cut" || cmd == "mend") {
        hub_.injector().set_cut(cmd == "cut");
        std::fprintf(stderr, "aggnet-sim: link %s at cycle %llu\n", cmd == "cut" ? "cut" : "mended",
                     static_cast<unsigned long long>(hub_.cycle()));
        return ok_cycle();
    }
    if (cmd == "quit") {
        quit_ = true;
        std::fprintf(stderr, "aggnet-sim: quit from the control socket\n");
        return "ok";
    }
    return "err unknown command '" + cmd + "' (commands: status cycle hold release step trace cut mend quit)";
}

}  // namespace aggnet::vhub
