// channel.cpp: socket and pty channels and their bytes (channel.hpp).
#include "channel.hpp"

#include <algorithm>
#include <fcntl.h>
#include <stdexcept>
#include <sys/socket.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

namespace aggnet::vhub {

Channel Channel::socket(const std::string& dir, int pe) {
    Channel c;
    c.kind = Sock;
    c.pe = pe;
    c.listener = Listener::open(pe < 0 ? dir + "/link" : dir + "/pe" + std::to_string(pe));
    c.path = c.listener.path;
    return c;
}

Channel Channel::pty(const std::string& dir, int pe) {
    Channel c;
    c.kind = Pty;
    c.pe = pe;
    c.path = dir + (pe < 0 ? "/pty-link" : "/pty-pe" + std::to_string(pe));
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

void Channel::enqueue(Bytes b) {
    pending_bytes += b.size();
    pending.push_back(std::move(b));
}

bool Channel::next_pending(Bytes& b) {
    if (pending.empty()) return false;
    b = std::move(pending.front());
    pending_bytes -= b.size();
    pending.pop_front();
    return true;
}

void Channel::queue(const Bytes& b) {
    if (out.empty()) stalled_since = steady::now();
    out.insert(out.end(), b.begin(), b.end());
}

bool Channel::send() {
    while (!out.empty()) {
        uint8_t buf[4096];
        const size_t n = std::min(out.size(), sizeof buf);
        std::copy(out.begin(), out.begin() + long(n), buf);
        const ssize_t w = kind == Sock ? ::send(fd, buf, n, MSG_NOSIGNAL) : ::write(fd, buf, n);
        if (w > 0) {
            out.erase(out.begin(), out.begin() + w);
            stalled_since = steady::now();
            continue;
        }
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        out.clear();
        return true;
    }
    return out.size() <= kMaxQueued;
}

ssize_t Channel::receive(uint8_t* buf, size_t n) {
    return kind == Sock ? ::recv(fd, buf, n, 0) : ::read(fd, buf, n);
}

bool Channel::stalled(steady::time_point now) const {
    return fd >= 0 && !out.empty() && now - stalled_since >= std::chrono::milliseconds(kStallMs);
}

steady::time_point Channel::wake() const {
    steady::time_point t = std::min(in_lane.due(), out_lane.due());
    if (fd >= 0 && !out.empty()) t = std::min(t, stalled_since + std::chrono::milliseconds(kStallMs));
    return t;
}

void Channel::hang_up() {
    ::close(fd);
    fd = -1;
    out.clear();
    chunk.clear();
    dec = link::Decoder{};
    in_lane = out_lane = Lane{};
}

void Channel::close() {
    if (fd >= 0) ::close(fd);
    if (kind == Sock) {
        listener.close();
    } else {
        if (slave >= 0) ::close(slave);
        struct stat st {};
        if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) ::unlink(path.c_str());
    }
    fd = slave = -1;
}

}  // namespace aggnet::vhub
