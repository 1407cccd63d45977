// pty.hpp: a pseudo-terminal pair for tests of the serial link: the code
// under test opens `path` (the slave side) as it would /dev/ttyUSB0; the
// test talks on `master`.  Shared by test_serial_pipe and test_serial_hub.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace aggnet::test {

/// Write every byte to a non-blocking descriptor; false if it fails (no
/// Catch macros: responder threads call this).
inline bool write_all_fd(int fd, const uint8_t* p, size_t n) {
    for (size_t done = 0; done < n;) {
        const ssize_t w = ::write(fd, p + done, n - done);
        if (w > 0) done += size_t(w);
        else if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
            pollfd q{fd, POLLOUT, 0};
            ::poll(&q, 1, 100);
        } else return false;
    }
    return true;
}

/// A pty pair: the SerialPipe opens `path` (the slave); the test talks on `master`.
struct Pty {
    int master = -1, slave = -1;
    std::string path;
    Pty() {
        char name[128];
        REQUIRE(::openpty(&master, &slave, name, nullptr, nullptr) == 0);
        path = name;
        ::fcntl(master, F_SETFD, FD_CLOEXEC);
        ::fcntl(slave, F_SETFD, FD_CLOEXEC);
        ::fcntl(master, F_SETFL, ::fcntl(master, F_GETFL) | O_NONBLOCK);
    }
    ~Pty() {
        close_master();
        if (slave >= 0) ::close(slave);
    }
    void close_master() {
        if (master >= 0) ::close(master);
        master = -1;
    }
    /// Write every byte to the master; false if it fails (no Catch macros:
    /// the responder thread calls this).
    bool write_all(const uint8_t* p, size_t n) const { return write_all_fd(master, p, n); }
    /// Read exactly n bytes from the master within `ms`.
    std::vector<uint8_t> read_n(size_t n, int ms = 2000) const {
        std::vector<uint8_t> out;
        const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
        while (out.size() < n && std::chrono::steady_clock::now() < end) {
            pollfd q{master, POLLIN, 0};
            ::poll(&q, 1, 10);
            uint8_t b[4096];
            const ssize_t r = ::read(master, b, std::min(sizeof b, n - out.size()));
            if (r > 0) out.insert(out.end(), b, b + r);
        }
        return out;
    }
};

}  // namespace aggnet::test
