// socket_pipe.cpp: SocketPipe, the link over a Unix stream socket
// (aggnet/socket_pipe.hpp), and connect_unix, the one place libaggnet
// connects to the virtual hub's sockets.
#include <aggnet/socket_pipe.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace aggnet {

using std::chrono::nanoseconds;

namespace {

nanoseconds steady_now() {
    return std::chrono::duration_cast<nanoseconds>(std::chrono::steady_clock::now().time_since_epoch());
}

long long ms_of(nanoseconds t) { return (long long)std::chrono::duration_cast<std::chrono::milliseconds>(t).count(); }

/// ppoll() one descriptor for `events` for at most `left`; the ppoll result
/// (EINTR retried by the callers, which recompute `left`).
int poll_for(int fd, short events, nanoseconds left, short& revents) {
    if (left < nanoseconds(0)) left = nanoseconds(0);
    timespec ts{};
    ts.tv_sec = time_t(left.count() / 1000000000);
    ts.tv_nsec = long(left.count() % 1000000000);
    pollfd p{fd, events, 0};
    const int r = ::ppoll(&p, 1, &ts, nullptr);
    revents = p.revents;
    return r;
}

}  // namespace

int connect_unix(const std::string& path, const std::string& device, nanoseconds timeout) {
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    if (path.empty()) throw DeviceError(device + ": no socket path");
    if (path.size() >= sizeof(a.sun_path))
        throw DeviceError(device + ": socket path is " + std::to_string(path.size()) + " bytes, longer than the " +
                          std::to_string(sizeof(a.sun_path) - 1) +
                          " a Unix socket address holds (start aggnet-sim with a shorter --dir)");
    std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) throw DeviceError(device + ": socket: " + std::strerror(errno));
    const nanoseconds start = steady_now();
    // Non-blocking: a Unix socket whose listen backlog is full answers EAGAIN
    // (the hub is not accepting); retry until the deadline, never block.
    int rc;
    while ((rc = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a)) != 0 &&
           (errno == EAGAIN || errno == EINTR) && steady_now() - start < timeout)
        ::usleep(1000);
    if (rc == 0) return fd;
    const int e = errno;
    ::close(fd);
    std::string hint;
    struct stat st {};
    const bool exists = ::stat(path.c_str(), &st) == 0;
    if (e == ENOENT) hint = " (no virtual hub there: is aggnet-sim running? it prints its directory)";
    else if (exists && !S_ISSOCK(st.st_mode))
        hint = std::string(" (") + path + " is " + (S_ISDIR(st.st_mode) ? "a directory" : "not a socket") +
               "; aggnet-sim's sockets are DIR/peK, DIR/link and DIR/control)";
    else if (e == ECONNREFUSED) hint = " (nobody listens: the aggnet-sim that made it was killed?)";
    else if (e == EACCES) hint = " (no permission on the socket or its directory)";
    else if (e == EAGAIN)
        hint = " (for " + std::to_string(ms_of(steady_now() - start)) +
               " ms: the hub is not accepting connections; is it stopped or out of file descriptors?)";
    throw DeviceError(device + ": cannot connect to " + path + ": " + std::strerror(e) + hint);
}

namespace link {

SocketPipe::SocketPipe(std::string path, std::string device, nanoseconds connect_timeout)
    : device_(device.empty() ? "sim:" + path : std::move(device)) {
    fd_ = connect_unix(path, device_, connect_timeout);
}

SocketPipe::SocketPipe(int fd, std::string device) : device_(std::move(device)), fd_(fd) {
    if (fd_ < 0) throw DeviceError(device_ + ": not a connected socket (descriptor " + std::to_string(fd) + ")");
    const int fl = ::fcntl(fd_, F_GETFL);
    if (fl < 0 || ::fcntl(fd_, F_SETFL, fl | O_NONBLOCK) != 0) {
        const int e = errno;
        ::close(fd_);
        fd_ = -1;
        throw DeviceError(device_ + ": cannot make the socket non-blocking: " + std::strerror(e));
    }
}

SocketPipe::~SocketPipe() { close(); }

void SocketPipe::close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    if (gone_.empty()) gone_ = device_ + ": closed by the program";
}

void SocketPipe::check_usable() const {
    if (fd_ < 0) throw DeviceError(gone_.empty() ? device_ + ": not open" : gone_);
}

void SocketPipe::fail(const std::string& why) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    gone_ = device_ + ": " + why;
    throw DeviceError(gone_);
}

nanoseconds SocketPipe::now() { return steady_now(); }

LinkConfig SocketPipe::sim_link_config() {
    LinkConfig c;
    c.resend_timeout = std::chrono::milliseconds(50);
    c.max_attempts = 20;
    return c;
}

namespace {
const char* const kClosed =
    "the virtual hub closed the connection: it stopped, or refused a second client on this port; see its log";
}

void SocketPipe::send(const uint8_t* data, size_t n) {
    check_usable();
    const nanoseconds start = now();
    size_t done = 0;
    while (done < n) {
        const ssize_t w = ::send(fd_, data + done, n - done, MSG_NOSIGNAL);
        if (w > 0) {
            done += size_t(w);
            continue;
        }
        const int e = w < 0 ? errno : EAGAIN;
        if (e == EINTR) continue;
        if (e == EPIPE || e == ECONNRESET) fail(kClosed);
        if (e != EAGAIN && e != EWOULDBLOCK) fail(std::string("send failed: ") + std::strerror(e));
        // The socket buffer is full: the hub is not reading.  Wait, up to the limit.
        short rev = 0;
        const int r = poll_for(fd_, POLLOUT, start + kSendTimeout - now(), rev);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) fail(std::string("poll failed: ") + std::strerror(errno));
        if (r == 0)
            fail("the virtual hub stopped reading (it took " + std::to_string(done) + " of " + std::to_string(n) +
                 " bytes in " + std::to_string(ms_of(now() - start)) +
                 " ms; is aggnet-sim stopped (SIGSTOP) or stuck?); connection closed");
        // POLLOUT, or POLLHUP/POLLERR: the next send() tells which.
    }
}

size_t SocketPipe::recv(uint8_t* buf, size_t cap, nanoseconds until) {
    check_usable();
    if (cap == 0) return 0;
    for (;;) {
        const ssize_t k = ::recv(fd_, buf, cap, 0);
        if (k > 0) return size_t(k);
        if (k == 0) fail(kClosed);
        const int e = errno;
        if (e == ECONNRESET) fail(kClosed);
        if (e != EAGAIN && e != EWOULDBLOCK && e != EINTR) fail(std::string("receive failed: ") + std::strerror(e));
        if (e == EINTR) continue;
        const nanoseconds left = until - now();
        if (left <= nanoseconds(0)) return 0;
        short rev = 0;
        const int r = poll_for(fd_, POLLIN, left, rev);
        if (r < 0 && errno != EINTR) fail(std::string("poll failed: ") + std::strerror(errno));
        // r == 0 (timer slack may wake us early), EINTR or readable: try again.
    }
}

}  // namespace link
}  // namespace aggnet
